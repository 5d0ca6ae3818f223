"""Explanation: the words of an assertion's ``observed`` text: what a failure found instead.

Rule 1: a failing assertion says what was found instead, from facts the evaluation gathered: near
        misses, the value, the count (what was counted, by label or the text inside, up to
        ``MAX_LISTED``), the elements that match but aren't shown, and a role that doesn't match
        (``"Share week" is on the screen as a Button, not a tab``). A field that shows its
        placeholder reads as "" and says so.
Rule 2: near misses are up to 5 candidates close to the word (difflib ratio >= 0.6), else up to 3
        somewhat alike (>= 0.3), compared case-insensitively, at most 500 candidates of at most
        200 characters each (difflib is quadratic).
Rule 3: an element is named by its identifier, else its quoted label, else its role and the first
        labelled element inside it; a count lists elements by what a person reads (the label, else
        the first label inside). Long texts are cut to 80 characters with "…".
Rule 4: explanation decides nothing: every function here takes facts and returns text. A malformed
        entry is worded as every strict YAML reader words its errors (``_rules/formats/yaml.py``, Rule 3).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from mobster_core._rules.vocabulary.screen import Element, Screen

from .safe_regex import REGEX_READ_SECONDS, REGEX_SEARCH_SECONDS, RegexTimeout

__all__ = [
    "MAX_LISTED",
    "Names",
    "cut",
    "hidden_note",
    "near_misses",
    "near_note",
    "quoted",
    "role_mismatch",
    "shown_flag",
    "unevaluated",
]

#: The most elements a failing ``count`` names (then "…and N more").
MAX_LISTED = 10
#: Rule 2: up to 5 close ones (ratio >= 0.6), else up to 3 that are somewhat alike (>= 0.3).
_NEAR_CLOSE, _NEAR_CLOSE_CUTOFF, _NEAR_SOME, _NEAR_SOME_CUTOFF = 5, 0.6, 3, 0.3
_NEAR_CANDIDATES, _NEAR_CHARS = 500, 200
# Rule 3: long texts in messages are cut to this many characters.
_SHOW_CHARS = 80


def quoted(text: Any) -> str:
    """``text`` JSON-quoted, non-ASCII kept as it is."""
    return json.dumps(text, ensure_ascii=False)


def cut(text: str) -> str:
    """``text`` cut to 80 characters, the last one "…" (Rule 3)."""
    return text if len(text) <= _SHOW_CHARS else text[: _SHOW_CHARS - 1] + "\u2026"


def shown_flag(value: bool) -> str:
    """``true`` or ``false``, as a check file writes it."""
    return "true" if value else "false"


# -- Rule 3: elements by name -----------------------------------------------------------------


class Names:
    """How the elements of one screen are named in messages (Rule 3)."""

    def __init__(self, screen: Screen) -> None:
        self._elements = screen.elements

    def _first_label_inside(self, element: Element) -> str | None:
        inside = element.path + "/"
        for other in self._elements:
            if other.path.startswith(inside) and other.label:
                return other.label
        return None

    def name(self, element: Element) -> str:
        """Its identifier, else its quoted label, else its role and the first labelled element inside it."""
        if element.identifier:
            return cut(element.identifier)
        if element.label:
            return quoted(cut(element.label))
        inner = self._first_label_inside(element)
        if inner is not None:
            return f"{element.role} {quoted(cut(inner))}"
        return f"{element.role} at {element.path}"

    def names(self, elements: Sequence[Element]) -> str:
        """The first three by :meth:`name`, then "and N more"."""
        shown = ", ".join(self.name(e) for e in elements[:3])
        return shown + (f" and {len(elements) - 3} more" if len(elements) > 3 else "")

    def text_name(self, element: Element) -> str:
        """An element by what a person reads: its label, else the first label inside it, quoted."""
        if element.label:
            return quoted(cut(element.label))
        inner = self._first_label_inside(element)
        if inner is not None:
            return quoted(cut(inner))
        if element.identifier:
            return cut(element.identifier)
        return f"{element.role} at {element.path}"

    def listing(self, elements: Sequence[Element]) -> str:
        """Up to ``MAX_LISTED`` elements by :meth:`text_name`, then "…and N more"."""
        listed = ", ".join(self.text_name(e) for e in elements[:MAX_LISTED])
        return listed + (f" \u2026and {len(elements) - MAX_LISTED} more" if len(elements) > MAX_LISTED else "")


# -- Rule 1: what a failing assertion found instead ---------------------------------------------


def hidden_note(count: int) -> str:
    """``; 2 more off screen or hidden: swipe to them`` ("" for none)."""
    if not count:
        return ""
    return f"; {count} more off screen or hidden: swipe to {'it' if count == 1 else 'them'}"


def near_note(word: str, candidates: Sequence[str], what: str) -> str:
    """``; closest labels: "Contine"`` from the near misses of ``word`` ("" for none)."""
    near = near_misses(word, candidates)
    if not near:
        return ""
    return f"; closest{what}: " + ", ".join(quoted(cut(c)) for c in near)


def near_misses(word: str, candidates: Iterable[str]) -> list[str]:
    """Up to 5 candidates close to ``word`` (ratio >= 0.6), else up to 3 somewhat alike (>= 0.3).

    Compared case-insensitively; each candidate is returned as given, once (Rule 2).
    """
    folded: dict[str, str] = {}
    for candidate in candidates:
        key = candidate[:_NEAR_CHARS].casefold()
        folded.setdefault(key, candidate)
        if len(folded) >= _NEAR_CANDIDATES:
            break
    target = word[:_NEAR_CHARS].casefold()
    close = difflib.get_close_matches(target, list(folded), n=_NEAR_CLOSE, cutoff=_NEAR_CLOSE_CUTOFF)
    if close:
        return [folded[c] for c in close]
    scored = sorted(
        ((difflib.SequenceMatcher(None, target, key).ratio(), key) for key in folded),
        key=lambda pair: -pair[0],
    )
    return [folded[key] for ratio, key in scored[:_NEAR_SOME] if ratio >= _NEAR_SOME_CUTOFF]


def role_mismatch(role: str, what: str, others: Sequence[Element]) -> str:
    """``"Share week" is on the screen as a Button, not a tab``: ``others`` match but for ``role``."""
    roles: list[str] = []
    for e in others:
        if e.role not in roles:
            roles.append(e.role)
    kinds = " and ".join(f"{_article(r)} {r}" for r in roles[:3])
    return f"{what} is on the screen as {kinds}, not {_article(role)} {role}"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def unevaluated(timeout: RegexTimeout, shown: str, where: str | None) -> tuple[str, str]:
    """The ``observed`` text and the error of an assertion whose regex hit a time limit.

    ``shown`` is the assertion's one-line form, ``where`` where it was written.
    """
    if timeout.spent:
        why = f"the regexes of this read used their {REGEX_READ_SECONDS:g} s budget before it ran"
    else:
        why = f"it ran past its {REGEX_SEARCH_SECONDS:g} s time limit on {quoted(cut(timeout.text))}"
    observed = f"couldn't evaluate the regex /{cut(timeout.pattern)}/: {why}"
    located = f"{where}: " if where else ""
    error = (
        f"{located}{shown}: {observed}; simplify the pattern (a repeat inside a repeat, "
        "such as (a+)+ or (a|a)*, can take exponential time)"
    )
    return observed, error
