"""Inspection: a screen as the matcher and the verdict see it, and what a check would write for an element.

Rule 1: whether an element counts as shown, and why not, is the screen's one rule
        (:attr:`Screen.hidden`, ``screen`` Rule 7); nothing here decides it again.
Rule 2: two reads of one screen (the verdict's evidence read and the replay's fast read) are
        compared element by element by tree path: an element shown in one and not the other, in
        one read only, or with another label or value is a :class:`Difference`, in tree order.
Rule 3: :func:`suggest` finds the elements whose label is the text given, exactly (as the matcher's
        targets are found, ``Screen.find``), else whose identifier is. For each shown one it gives
        the step a check would write (``Tap "Continue"``; ``Type "…" into "Email"`` for a field),
        with the role when another shown element has the label, and, when the label and role are
        on the screen more than once, the nearest shown element whose label is on the screen once
        (``near``; else which one in tree order, ``the second``): the replay tells them apart by
        tree order (``matcher`` Rule 3, the recorded ``count`` and ``nth``, given with each).
Rule 4: the expect entries offered are checked with the assertions' own rules (parsed strictly,
        then evaluated on this screen): a selector is offered only when exactly one shown element
        matches it and it is this element, tried in the order ``{id}``, ``{label, role}``,
        ``{label}``; ``text: <label>`` when the text is found in this element alone. When no
        selector singles it out, the ``count`` that holds is offered and the note says an expect
        selector has no index (an identifier would single it out).
Rule 5: a label with no shown element says so: hidden (each with its reason) or absent, with the
        near misses among the shown labels (the assertions' own ``near_misses``). At most
        ``MAX_CANDIDATES`` elements are given (the rest counted), so a label on a screen thousands
        of times costs twenty checks. A blank text is refused: every unlabelled element would be named.
Rule 6: what is offered is YAML as a check file holds it: a value is written plain when YAML
        reads it back as the same string, else double-quoted with every character YAML can't
        print raw (controls, bidi marks, separators) escaped.
"""

from __future__ import annotations

import enum
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

import attrs

from mobster_core._rules.assertions import (
    FRIENDLY_ROLES,
    AssertionResult,
    ExpectError,
    evaluate,
    near_misses,
    parse_assertion,
)
from mobster_core._rules.replay.matcher import position
from mobster_core._rules.vocabulary.screen import Element, Hidden, Screen

__all__ = [
    "MAX_CANDIDATES",
    "Candidate",
    "Difference",
    "Found",
    "Suggestion",
    "flow_yaml",
    "read_differences",
    "suggest",
]

_FIELDS = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})
#: A friendly role for each element type that has exactly one (``button``, ``text``, ``cell``…).
_FRIENDLY = {next(iter(types)): name for name, types in FRIENDLY_ROLES.items() if len(types) == 1}
_FRIENDLY.update({"TextField": "field", "SecureTextField": "field", "SearchField": "field", "TextView": "field"})
_FRIENDLY.update({"Switch": "switch", "Toggle": "toggle", "Image": "image", "Icon": "image"})
#: The most elements :func:`suggest` gives what a check would write for (each is checked on the screen).
MAX_CANDIDATES = 20
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


# -- Rule 2: two reads ------------------------------------------------------------------------


@attrs.frozen
class Difference:
    """One element the two reads see differently (Rule 2); ``what`` says how, in words."""

    path: str
    what: str
    evidence: Element | None
    fast: Element | None


def read_differences(evidence: Screen, fast: Screen) -> tuple[Difference, ...]:
    """Where ``fast`` (the replay's read) differs from ``evidence`` (the verdict's), in tree order."""
    why_e = _reasons(evidence)
    why_f = _reasons(fast)
    out: list[Difference] = []
    for path in sorted(set(why_e) | set(why_f), key=_tree_order):
        e, f = evidence.element_at(path), fast.element_at(path)
        what = _difference(e, f, why_e.get(path), why_f.get(path))
        if what is not None:
            out.append(Difference(path, what, e, f))
    return tuple(out)


def _reasons(screen: Screen) -> dict[str, Hidden | None]:
    out: dict[str, Hidden | None] = {}
    for element, why in zip(screen.elements, screen.hidden, strict=True):
        out.setdefault(element.path, why)
    return out


def _difference(e: Element | None, f: Element | None, why_e: Hidden | None, why_f: Hidden | None) -> str | None:
    if e is None or f is None:
        return "only in the fast read" if e is None else "only in the verdict's read"
    if why_e is not None and why_f is None:
        return f"the fast read shows it; the verdict's read doesn't ({why_e.value})"
    if why_e is None and why_f is not None:
        return f"the verdict's read shows it; the fast read doesn't ({why_f.value})"
    if e.role != f.role or e.label != f.label:
        return "another role or label in the fast read"
    if e.value != f.value:
        return "another value in the fast read"
    return None


def _tree_order(path: str) -> tuple[int, ...]:
    return tuple(int(p) for p in path.split("/")[1:] if p.isdigit())


# -- Rules 3 to 5: the selector a check would write ------------------------------------------


class Found(enum.StrEnum):
    """What :func:`suggest` found for the text: one shown element, several, only hidden ones, none."""

    UNIQUE = "unique"
    DUPLICATED = "duplicated"
    HIDDEN = "hidden"
    ABSENT = "absent"


@attrs.frozen
class Candidate:
    """One element the text names, and what a check would write for it.

    ``step`` is the step's text, ``expect`` the expect entries (YAML lines) that single it out on
    this screen, ``count`` and ``nth`` how the matcher tells it from the shown elements with its
    role and label (``nth`` from 0, tree order), ``near`` the label of the nearest shown element
    whose label is on the screen once. ``hidden`` says why it isn't shown (then nothing is offered).
    """

    element: Element
    hidden: Hidden | None = None
    step: str | None = None
    expect: tuple[str, ...] = ()
    count: int = 1
    nth: int = 0
    near: str | None = None
    note: str | None = None


@attrs.frozen
class Suggestion:
    """:func:`suggest`'s answer: what was found for ``text``, the candidates, and the near misses."""

    text: str
    found: Found
    candidates: tuple[Candidate, ...] = ()
    near_misses: tuple[str, ...] = ()
    #: How many shown elements the text names, and how many candidates were left out (``MAX_CANDIDATES``).
    shown: int = 0
    left_out: int = 0

    @property
    def message(self) -> str:
        """One line saying what was found."""
        quoted = json.dumps(self.text, ensure_ascii=False)
        if self.found is Found.UNIQUE:
            return f"{quoted} is on the screen once"
        if self.found is Found.DUPLICATED:
            more = f" (the first {MAX_CANDIDATES} are given)" if self.shown > MAX_CANDIDATES else ""
            return f"{quoted} is on the screen {self.shown} times: each needs its own selector{more}"
        near = f"; did you mean {', '.join(json.dumps(n, ensure_ascii=False) for n in self.near_misses)}?"
        near = near if self.near_misses else ""
        if self.found is Found.HIDDEN:
            return f"{quoted} is in the tree but not shown: a check can't see it or act on it{near}"
        return f"{quoted} isn't on the screen{near}"


def suggest(screen: Screen, text: str) -> Suggestion:
    """What a check would write for the elements labelled ``text`` on ``screen`` (Rules 3 to 5).

    Raises ``ValueError`` for a blank ``text``: every unlabelled element would be named.
    """
    if not text.strip():
        raise ValueError("give the label to look for: it is blank")
    named = [i for i, e in enumerate(screen.elements) if e.label == text]
    if not named:
        named = [i for i, e in enumerate(screen.elements) if e.identifier == text]
    shown = [screen.elements[i] for i in named if screen.hidden[i] is None]
    hidden = tuple(
        Candidate(screen.elements[i], hidden=screen.hidden[i]) for i in named if screen.hidden[i] is not None
    )
    if not shown:
        misses = near_misses(text, [e.label for e in screen.shown if e.label])
        kept = hidden[:MAX_CANDIDATES]
        found = Found.HIDDEN if hidden else Found.ABSENT
        return Suggestion(text, found, kept, tuple(misses), left_out=len(hidden) - len(kept))
    found = Found.UNIQUE if len(shown) == 1 else Found.DUPLICATED
    offered = tuple(_candidate(screen, e) for e in shown[:MAX_CANDIDATES])
    kept = hidden[: MAX_CANDIDATES - len(offered)]
    left = len(shown) + len(hidden) - len(offered) - len(kept)
    return Suggestion(text, found, offered + kept, shown=len(shown), left_out=left)


def _candidate(screen: Screen, element: Element) -> Candidate:
    count, nth = position(screen, element) if element.label else (1, 0)
    near = _near(screen, element) if count > 1 else None
    expect, note = _expect(screen, element)
    return Candidate(
        element,
        step=_step(screen, element, count, nth, near),
        expect=expect,
        count=count,
        nth=nth,
        near=near,
        note=note,
    )


def _step(screen: Screen, element: Element, count: int, nth: int, near: str | None) -> str | None:
    """Rule 3: the step a check would write to act on ``element``."""
    if not element.label:
        return None
    name = _quoted_step(element.label)
    same_label = sum(1 for e in screen.shown if e.label == element.label)
    role = _FRIENDLY.get(element.role, element.role)
    if count > 1:
        which = _ORDINALS[nth] if nth < len(_ORDINALS) else _ordinal(nth + 1)
        name = f"the {name} {role} near {_quoted_step(near)}" if near else f"the {which} {name} {role}"
    elif same_label > 1:
        name = f"the {name} {role}"
    if element.role in _FIELDS:
        return f'Type "…" into {name}'
    return f"Tap {name}"


def _ordinal(n: int) -> str:
    """``11th``, ``21st``, ``22nd``, ``23rd``, ``101st``."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _quoted_step(label: str) -> str:
    return f'"{label}"'


def _near(screen: Screen, element: Element) -> str | None:
    """The nearest shown element whose label is on the screen exactly once (by the frames' centres)."""
    counts: dict[str, int] = {}
    for e in screen.shown:
        if e.label:
            counts[e.label] = counts.get(e.label, 0) + 1
    x, y = element.center
    best: tuple[float, str] | None = None
    for e in screen.shown:
        if e.label and counts[e.label] == 1 and e.label != element.label:
            cx, cy = e.center
            distance = math.hypot(cx - x, cy - y)
            if best is None or distance < best[0]:
                best = (distance, e.label)
    return None if best is None else best[1]


def _expect(screen: Screen, element: Element) -> tuple[tuple[str, ...], str | None]:
    """Rule 4: the expect entries that single ``element`` out, checked with the assertions' rules."""
    role = _FRIENDLY.get(element.role, element.role)
    selectors: list[dict[str, Any]] = []
    if element.identifier:
        selectors.append({"id": element.identifier})
    if element.label:
        selectors += [{"label": element.label, "role": role}, {"label": element.label}]
    entries: list[str] = []
    chosen = next((s for s in selectors if _singles_out(screen, s, element)), None)
    if chosen is not None:
        entries.append(f"visible: {flow_yaml(chosen)}")
    if element.label and _holds_on_it_alone(screen, {"text": element.label}, element):
        entries.append(f"text: {flow_yaml(element.label)}")
    if chosen is not None or not element.label:
        return tuple(entries), None
    count = position(screen, element)[0]
    for name in dict.fromkeys((role, element.role)):
        written = {"label": element.label, "role": name}
        result = _results(screen, {"count": written, "equals": count})
        if result is not None and result.ok:
            entries.append(flow_yaml({"count": written, "equals": count}))
            break
    else:
        return tuple(entries), "its label can't be written as a check's text (too long, or a /regex/)"
    return tuple(entries), "an expect selector has no index: give it an accessibility identifier to single it out"


def _results(screen: Screen, entry: Mapping[str, Any]) -> AssertionResult | None:
    try:
        assertions = parse_assertion(dict(entry))
    except ExpectError:
        return None
    return evaluate(assertions, screen)[0]


def _singles_out(screen: Screen, selector: Mapping[str, Any], element: Element) -> bool:
    return _holds_on_it_alone(screen, {"count": dict(selector), "equals": 1}, element)


def _holds_on_it_alone(screen: Screen, entry: Mapping[str, Any], element: Element) -> bool:
    result = _results(screen, entry)
    return result is not None and result.ok and len(result.matches) == 1 and result.matches[0] == element


# -- Rule 6: YAML as a check holds it ---------------------------------------------------------

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9 _.'()&/+-]*")
_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def flow_yaml(value: object) -> str:
    """``value`` (a string, a number, a flag, or a mapping of them) as YAML's flow style (Rule 6)."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {flow_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text == text.strip() and text.casefold() not in _WORDS:
        return text
    return '"' + "".join(_escaped(c) for c in text) + '"'


def _escaped(char: str) -> str:
    if char in '"\\':
        return "\\" + char
    if unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}:
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    return char
