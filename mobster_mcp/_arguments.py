"""What a tool says when its arguments don't fit: one line naming the argument and what to give.

Pure: it reads a tool's input schema (JSON Schema, as ``tools/list`` publishes it), the arguments
a call sent and the validator's errors (pydantic's ``errors()``: plain dicts), and returns text.

Rule 1: an argument the tool doesn't take is refused by its name, with the nearest one it takes
        (``taget``: did you mean ``target``?), else the ones it takes; nothing is dropped silently.
Rule 2: an argument that doesn't fit its schema is named (``expect[0]`` below the top level), with
        what is wrong in a few words (how long it is and the most it may be, a list where text
        goes, not one of the ops) and what to give instead: the argument's own description in the
        tool's schema, which is written to be read after "give".
Rule 3: what the caller sent is quoted short and on one line (JSON, cut to :data:`SHOWN` characters,
        or said as its length): it never makes a line of its own, or a wall of text.
Rule 4: every problem of one call is on its one line, at most :data:`MOST` of them and how many
        more, separated by ``; ``.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["MOST", "SHOWN", "nearest", "one_line", "problems", "shown", "unknown"]

#: Rule 3: the most characters of a value the caller sent that a line quotes.
SHOWN = 40
#: Rule 4: the most problems one line lists.
MOST = 3

_KINDS = {bool: "true or false", int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}


def one_line(message: str) -> str:
    """A message as one line: its lines joined by spaces (every line break ``str.splitlines`` knows)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def shown(value: Any) -> str:
    """Rule 3: ``value`` quoted short, as JSON on one line."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    text = one_line(text)
    if len(text) > SHOWN:
        size = len(value) if isinstance(value, str) else len(text)
        return f"{text[: SHOWN - 1]}… ({size} characters)"
    return text


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return next((word for t, word in _KINDS.items() if isinstance(value, t)), type(value).__name__)


def _takes(tool: str, names: Sequence[str]) -> str:
    if not names:
        return f"{tool} takes no arguments"
    if len(names) == 1:
        return f"{tool} takes {names[0]}"
    return f"{tool} takes {', '.join(names[:-1])} and {names[-1]}"


def unknown(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """Rule 1: the line refusing the arguments ``tool`` doesn't take, None when it takes them all."""
    known = list(schema.get("properties", {}))
    strangers = [name for name in arguments if name not in known]
    if not strangers:
        return None
    lines = []
    for name in strangers[:MOST]:
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        lines.append(f"unknown argument {shown(name)}" + (f" (did you mean {shown(near[0])}?)" if near else ""))
    if len(strangers) > MOST:
        lines.append(f"and {len(strangers) - MOST} more unknown arguments")
    lines.append(_takes(tool, known))
    return "; ".join(lines)


def nearest(name: str, known: Sequence[str]) -> str:
    """Rule 1 for a tool's name: `` (did you mean "act"?)`` when one is near, else ``""``."""
    near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {shown(near[0])}?)" if near else ""


def _where(loc: Sequence[Any]) -> str:
    """Rule 2: ``expect[0].text`` for pydantic's ``("expect", 0, "text")``."""
    out = str(loc[0]) if loc else "the arguments"
    for part in loc[1:]:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _length(value: Any) -> str:
    return str(len(value)) if isinstance(value, str) else "?"


def _too_short(value: Any, ctx: Mapping[str, Any]) -> str:
    return "is empty" if value == "" else f"is {_length(value)} characters, at least {ctx.get('min_length')}"


#: Rule 2: what is wrong, by the validator's error type: ``(value, its ctx) -> words``.
_WRONG: dict[str, Callable[[Any, Mapping[str, Any]], str]] = {
    "missing": lambda _v, _c: "is missing",
    "string_too_long": lambda v, c: f"is {_length(v)} characters, at most {c.get('max_length')}",
    "string_too_short": _too_short,
    "too_long": lambda _v, c: f"has {c.get('actual_length')} entries, at most {c.get('max_length')}",
    "too_short": lambda _v, c: f"has {c.get('actual_length')} entries, at least {c.get('min_length')}",
    "string_type": lambda v, _c: f"is {_kind(v)}, not text",
    "bool_type": lambda v, _c: f"is {shown(v)}, not true or false",
    "bool_parsing": lambda v, _c: f"is {shown(v)}, not true or false",
    "list_type": lambda v, _c: f"is {_kind(v)}, not a list",
    "literal_error": lambda v, _c: f"is {shown(v)}",
    "enum": lambda v, _c: f"is {shown(v)}",
    "string_pattern_mismatch": lambda v, _c: f"is {shown(v)}",
}


def _wrong(error: Mapping[str, Any]) -> str:
    """Rule 2: what is wrong with the value, in a few words (the validator's own, on one line, otherwise)."""
    words = _WRONG.get(str(error.get("type", "")))
    if words is not None:
        return words(error.get("input"), error.get("ctx") or {})
    message = str(error.get("msg") or "doesn't fit its schema")
    return f"doesn't fit: {one_line(message)[:120]}"


def _give(schema: Mapping[str, Any], loc: Sequence[Any]) -> str:
    """Rule 2: what to give instead: the argument's description, else its choices."""
    prop = schema.get("properties", {}).get(loc[0], {}) if loc else {}
    described = prop.get("description")
    if isinstance(described, str) and described:
        return f"give {described}"
    choices = prop.get("enum")
    if isinstance(choices, list) and choices:
        return f"give one of {', '.join(str(c) for c in choices)}"
    return ""


def problems(schema: Mapping[str, Any], errors: Sequence[Mapping[str, Any]]) -> str:
    """Rules 2 to 4: the one line of what is wrong with the arguments, and what to give instead."""
    lines = []
    seen: set[str] = set()
    for error in errors:
        loc = tuple(error.get("loc") or ())
        where = _where(loc)
        if where in seen:
            continue  # one problem an argument: the first the validator found
        seen.add(where)
        give = _give(schema, loc)
        lines.append(f"{where} {_wrong(error)}" + (f"; {give}" if give else ""))
    listed = lines[:MOST]
    if len(lines) > MOST:
        listed.append(f"and {len(lines) - MOST} more arguments that don't fit")
    return one_line("; ".join(listed)) or "the arguments don't fit the tool's schema"
