"""The assertion model: the parsed ``expect`` entries of a check, and how one fared on a read.

Rule 1: an assertion has exactly one kind, ``text``, ``no_text``, ``visible``, ``absent``,
        ``value`` or ``count``, and an optional ``name`` (1-120 characters). ``text`` and
        ``no_text`` take a string or a list of strings; a list expands into one assertion per
        string. A check holds at most ``MAX_ASSERTIONS`` (50) after lists expand.
Rules 2 to 4 (patterns, normalized text, selectors) are ``selectors``'.
Rule 5: ``visible`` and ``absent`` take a selector and no bound; ``value`` takes a selector and
        ``equals``; ``count`` takes a selector and exactly one of ``equals``, ``at_least`` or
        ``at_most``, a whole number from 0 to the most elements a screen holds.
Rule 6: ``equals`` on ``value`` is text, a flag, or a finite number of at most 30 digits and 10
        decimal places, below 10^30 in magnitude: what a screen shows, with room to spare.
Rule 7 (nothing converted, every malformed entry an ``ExpectError``) is ``parse``'s, which builds
        these values from a check's data.
Rule 8: ``accessibility_audit`` takes ``types`` (a list of :data:`~mobster_core._rules.device.controls.AUDIT_TYPES`
        names, none or absent: all of them) and ``max`` (the most issues allowed, default 0); it
        holds when the device's audit of the verdict's screen finds at most ``max`` issues of
        those types (``evaluation``, Rule 8).
"""

from __future__ import annotations

import enum
import math
from typing import Any, TypeAlias

import attrs

from mobster_core._rules.vocabulary.screen import Element

from .explanation import quoted, shown_flag
from .selectors import (
    ELEMENT_TYPES,
    FRIENDLY_ROLES,
    ExpectError,
    Pattern,
    Selector,
    normalize,
    role_types,
)

__all__ = [
    "BOUNDS",
    "ELEMENT_TYPES",
    "FRIENDLY_ROLES",
    "TEXT_KINDS",
    "Assertion",
    "AssertionResult",
    "AuditSpec",
    "ExpectError",
    "Expected",
    "Kind",
    "Pattern",
    "Selector",
    "is_count",
    "is_expected",
    "normalize",
    "role_types",
]

#: What ``equals`` on a ``value`` assertion may be (Rule 6).
Expected: TypeAlias = bool | int | float | str


class Kind(enum.StrEnum):
    """The kind of an assertion: the one key that says what it checks."""

    TEXT = "text"
    NO_TEXT = "no_text"
    VISIBLE = "visible"
    ABSENT = "absent"
    VALUE = "value"
    COUNT = "count"
    ACCESSIBILITY_AUDIT = "accessibility_audit"


TEXT_KINDS = (Kind.TEXT, Kind.NO_TEXT)
BOUNDS = ("equals", "at_least", "at_most")


@attrs.frozen
class AuditSpec:
    """What an ``accessibility_audit`` asks (Rule 8): the types (empty: all) and the most issues allowed."""

    types: tuple[str, ...] = ()
    max: int = 0

    def show(self) -> str:
        """``contrast, dynamicType <= 0`` or ``all types <= 0``."""
        return f"{', '.join(self.types) or 'all types'} <= {self.max}"

    def to_dict(self) -> dict[str, Any]:
        """The body as written in a check file."""
        return {"types": list(self.types), "max": self.max}


def is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@attrs.frozen
class Assertion:
    """One expectation (Rules 1 and 5). Build it from check data with :func:`parse_assertion`.

    ``subject`` is the text (a :class:`Pattern`) of ``text``/``no_text`` and the
    :class:`Selector` of the others. ``equals`` is the expected value of a ``value`` assertion
    (Rule 6); exactly one of ``equals``/``at_least``/``at_most`` bounds a ``count`` (Rule 5).
    """

    kind: Kind = attrs.field(converter=Kind)
    subject: Pattern | Selector | AuditSpec
    equals: Expected | None = None
    at_least: int | None = None
    at_most: int | None = None
    name: str | None = None
    #: Where the assertion was written (``file:line: expect[2]``), for messages; not compared.
    where: str | None = attrs.field(default=None, eq=False)
    #: The line of the check file its ``expect`` entry starts on (from 1), None for one built in
    #: code; not compared.
    line: int | None = attrs.field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        textual = self.kind in TEXT_KINDS
        audit = self.kind is Kind.ACCESSIBILITY_AUDIT
        if textual != isinstance(self.subject, Pattern) or audit != isinstance(self.subject, AuditSpec):
            wanted = "a Pattern" if textual else "an AuditSpec" if audit else "a Selector"
            raise ValueError(f"a {self.kind} assertion takes {wanted}")
        bounds = [b for b in BOUNDS if getattr(self, b) is not None]
        if self.kind is Kind.VALUE:
            ok = bounds == ["equals"] and is_expected(self.equals)
        elif self.kind is Kind.COUNT:
            ok = len(bounds) == 1 and is_count(getattr(self, bounds[0]))
        else:
            ok = not bounds
        if not ok:
            raise ValueError(f"a {self.kind} assertion with wrong bounds: {self.equals, self.at_least, self.at_most}")

    @property
    def text(self) -> Pattern | None:
        """The text of a ``text``/``no_text`` assertion, else None."""
        return self.subject if isinstance(self.subject, Pattern) else None

    @property
    def selector(self) -> Selector | None:
        """The selector of a ``visible``/``absent``/``value``/``count`` assertion, else None."""
        return self.subject if isinstance(self.subject, Selector) else None

    @property
    def audit(self) -> AuditSpec | None:
        """What an ``accessibility_audit`` asks, else None."""
        return self.subject if isinstance(self.subject, AuditSpec) else None

    @property
    def bound(self) -> tuple[str, Expected] | None:
        """The one of ``equals``/``at_least``/``at_most`` that is set, with its value."""
        for name in BOUNDS:
            value = getattr(self, name)
            if value is not None:
                return name, value
        return None

    def show(self) -> str:
        """One line, such as ``text "Choose your plan"`` or ``count id=/^plan_/ == 3``."""
        line = f"{self.kind} {self.subject.show()}"
        bound = self.bound
        if bound is None:
            return line
        op = {"equals": "==", "at_least": ">=", "at_most": "<="}[bound[0]]
        return f"{line} {op} {_shown_expected(bound[1])}"

    def to_dict(self) -> dict[str, Any]:
        """The canonical check-file form: the kind key, its bound, and ``name`` when given."""
        subject = self.subject
        out: dict[str, Any] = {self.kind.value: subject.written if isinstance(subject, Pattern) else subject.to_dict()}
        bound = self.bound
        if bound is not None:
            out[bound[0]] = bound[1]
        if self.name is not None:
            out["name"] = self.name
        return out


def _shown_expected(value: Expected) -> str:
    if isinstance(value, bool):
        return shown_flag(value)
    if isinstance(value, str):
        return quoted(value)
    return repr(value)


def is_expected(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, bool | int | str)


@attrs.frozen
class AssertionResult:
    """How one assertion fared on one read.

    ``text`` is the assertion's one-line form, ``observed`` what was found (where the text was,
    near misses, the actual value or count), ``matches`` up to ``evaluation.MAX_MATCHES`` shown elements
    that matched. ``name`` is the assertion's name, when it has one.
    """

    text: str
    ok: bool
    observed: str
    matches: tuple[Element, ...] = ()
    name: str | None = None
    #: Set when the assertion couldn't be evaluated (its regex hit a time limit, ``safe_regex``): the
    #: message names where it was written and the regex. ``ok`` is then False.
    error: str | None = None
    #: The line of the check file the assertion's ``expect`` entry starts on (``Assertion.line``).
    line: int | None = None
    #: Set when the device couldn't do what the assertion needs (an ``accessibility_audit`` on a
    #: device that can't audit): why. ``ok`` is then False; the check can't run (class ``environment``).
    unavailable: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "ok", "observed"}``, as in ``results.json``."""
        return {"text": self.text, "ok": self.ok, "observed": self.observed}
