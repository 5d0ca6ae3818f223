r"""Text from outside on a page (Rule 2 of the pages): valid, controls shown, cut, escaped.

Every string from the app, the check, the model or a results file goes through :func:`text`
(element text) or :func:`attr` (a quoted attribute value) before it reaches a page: made valid
Unicode, its control and bidi characters shown as escapes (``\u202e``), cut to a limit saying how
long it was, then HTML-escaped, quotes included. The other helpers read a value of a results
file as the type a page needs, or as nothing when it isn't one (a page renders any JSON).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from mobster_core.results import Cost
from mobster_core.text import escape_controls

__all__ = [
    "MAX_CELL",
    "MAX_TEXT",
    "attr",
    "cost",
    "items",
    "mapping",
    "number",
    "percent",
    "plain",
    "quoted",
    "seconds",
    "string",
    "text",
]

#: The most characters of one string a page shows.
MAX_TEXT = 4000
#: The most characters of one string in a list that repeats per step or entry (the journal, actions).
MAX_CELL = 300


def plain(value: object, limit: int = MAX_TEXT) -> tuple[str, int]:
    """Rule 2 before escaping: valid, controls shown, cut to ``limit`` characters.

    Returns the text and, when it was cut, how many characters the whole string has (else 0).
    Only the start of a long string is escaped: shown as escapes, characters only get longer,
    so ``limit + 1`` characters say whether it is cut.
    """
    if isinstance(value, str):
        raw = value
    elif value is None:
        raw = ""
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**100:
        raw = "(a number too large to show)"  # int -> str refuses over 4,300 digits
    else:
        raw = str(value)
    shown = escape_controls(raw[: limit + 1])
    if len(shown) > limit:
        return shown[:limit], len(raw)
    return shown, 0


def text(value: object, limit: int = MAX_TEXT) -> str:
    """Rule 2: any value as element text: valid, controls shown, cut, escaped."""
    shown, total = plain(value, limit)
    cut = f"<span class=more>… ({total:,} characters in all)</span>" if total else ""
    return html.escape(shown, quote=True) + cut


def attr(value: object, limit: int = 300) -> str:
    """Rule 2: any value as a quoted attribute's text (no markup at all)."""
    shown, total = plain(value, limit)
    return html.escape(shown + (f"… ({total:,} characters in all)" if total else ""), quote=True)


def quoted(value: object, limit: int = MAX_TEXT) -> str:
    """A string from outside, in quotes, isolated from the text around it (bidi)."""
    return f"“<bdi>{text(value, limit)}</bdi>”"


def string(data: Mapping[str, Any], key: str) -> str:
    """``data[key]`` as a string ("" for nothing)."""
    value = data.get(key)
    return value if isinstance(value, str) else ("" if value is None else str(value))


def number(value: object) -> float | None:
    """A finite number, or None for anything else (a bool, a string, an int past a float's range)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        found = float(value)
    except OverflowError:  # an int past a float's range
        return None
    return found if math.isfinite(found) else None


def mapping(value: object) -> Mapping[str, Any]:
    """A mapping, or an empty one."""
    return value if isinstance(value, Mapping) else {}


def items(value: object) -> list[Any]:
    """A list, or an empty one."""
    return list(value) if isinstance(value, list | tuple) else []


def seconds(value: object) -> str:
    """``3.21 s``, ``12.3 s``, or a dash."""
    n = number(value)
    if n is None:
        return "—"
    return f"{n:.2f} s" if n < 10 else f"{n:.1f} s"


def cost(value: object, estimated: object) -> str:
    """``$0.0132`` (``~`` when estimated: the results' own ``Cost.text``, at four places), or a dash."""
    n = number(value)
    if n is None:
        return "—"
    return Cost(n, estimated is True).text(4)


def percent(value: float) -> str:
    """Rounded down, as the matcher says it."""
    return f"{math.floor(value * 100 + 1e-9):d}%"
