"""The assertion model: the parsed ``expect`` entries of a check, their selectors, strictly built.

Rule 1: an assertion has exactly one kind, ``text``, ``no_text``, ``visible``, ``absent``,
        ``value`` or ``count``, and an optional ``name`` (1-120 characters). ``text`` and
        ``no_text`` take a string or a list of strings; a list expands into one assertion per
        string. A check holds at most ``MAX_ASSERTIONS`` (50) after lists expand.
Rule 2: a string written ``/pattern/`` or ``/pattern/i`` is a regex, refused when pathological
        (``safe_regex``, Rules 1-2). Any other string is plain text of 1-2,000 characters that is
        not blank once normalized.
Rule 3: every comparison runs on normalized text: Unicode NFKC; curly quotes, dashes and the minus
        sign become ASCII; zero-width and bidi marks are removed; every whitespace run (NBSP
        included) becomes one space; the result is stripped.
Rule 4: a selector names at least one of ``id``, ``label``, ``value``, ``role``, ``enabled``,
        ``selected``. ``id``, ``label`` and ``value`` are patterns (Rule 2); ``role`` is a
        friendly name (``button``, ``field``, ``text``, … see ``FRIENDLY_ROLES``) or an
        XCUIElementType name, with or without its prefix; ``enabled`` and ``selected`` are flags.
Rule 5: ``visible`` and ``absent`` take a selector and no bound; ``value`` takes a selector and
        ``equals``; ``count`` takes a selector and exactly one of ``equals``, ``at_least`` or
        ``at_most``, a whole number from 0 to the most elements a screen holds.
Rule 6: ``equals`` on ``value`` is text, a flag, or a finite number of at most 30 digits and 10
        decimal places, below 10^30 in magnitude: what a screen shows, with room to spare.
Rule 7: values are never converted: a malformed entry is an :class:`ExpectError` whose keys
        locate it in the ``expect`` list, with what is wrong and what to write instead, worded
        as every strict YAML reader words its errors (``_rules/yaml.py``, Rule 3). What an
        assertion means on a screen is ``evaluation``'s.
Rule 8: ``accessibility_audit`` takes ``types`` (a list of :data:`~mobster_core._rules.controls.AUDIT_TYPES`
        names, none or absent: all of them) and ``max`` (the most issues allowed, default 0); it
        holds when the device's audit of the verdict's screen finds at most ``max`` issues of
        those types (``evaluation``, Rule 8).
"""

from __future__ import annotations

import decimal
import difflib
import enum
import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any, TypeAlias

import attrs
import regex

from mobster_core._rules.device.controls import AUDIT_TYPES
from mobster_core._rules.formats.yaml import KeyedProblem, Keys, did_you_mean, kind_of, quote_fix
from mobster_core._rules.vocabulary.screen import MAX_ELEMENTS, Element
from mobster_core.exceptions import MobsterError

from .explanation import cut, quoted, shown_flag
from .safe_regex import RegexRefused, compile_written, search

__all__ = [
    "ELEMENT_TYPES",
    "FRIENDLY_ROLES",
    "MAX_ASSERTIONS",
    "Assertion",
    "AssertionResult",
    "AuditSpec",
    "ExpectError",
    "Expected",
    "Kind",
    "Pattern",
    "Selector",
    "normalize",
    "parse_assertion",
    "parse_expect",
    "role_types",
]

#: The most assertions one check holds, after ``text``/``no_text`` lists expand.
MAX_ASSERTIONS = 50
#: The longest assertion ``name``.
MAX_NAME_CHARS = 120
#: The longest plain string in an assertion or selector.
MAX_TEXT_CHARS = 2000
#: Rule 6: the largest ``equals`` number (in magnitude, exclusive), its most digits and decimal
#: places (an order number of 20 digits compares exactly).
MAX_EQUALS_NUMBER = 10**30
MAX_EQUALS_DIGITS = 30
MAX_EQUALS_PLACES = 10

#: What ``equals`` on a ``value`` assertion may be (Rule 6).
Expected: TypeAlias = bool | int | float | str


class ExpectError(KeyedProblem, MobsterError):
    """An assertion that is malformed. ``keys`` locate it inside the ``expect`` list.

    ``problem`` says what is wrong and ``fix`` what to write instead; the check loader adds the
    file and the line.
    """


class Kind(enum.StrEnum):
    """The kind of an assertion: the one key that says what it checks."""

    TEXT = "text"
    NO_TEXT = "no_text"
    VISIBLE = "visible"
    ABSENT = "absent"
    VALUE = "value"
    COUNT = "count"
    ACCESSIBILITY_AUDIT = "accessibility_audit"


_TEXT_KINDS = (Kind.TEXT, Kind.NO_TEXT)
_BOUNDS = ("equals", "at_least", "at_most")
_ITEM_KEYS = (*(k.value for k in Kind), "name", *_BOUNDS)
_SELECTOR_KEYS = ("id", "label", "value", "role", "enabled", "selected")
# Keys people write for a selector field by habit, and the field they mean.
_SELECTOR_HINTS = {
    "text": "label",
    "name": "label",
    "title": "label",
    "identifier": "id",
    "accessibility_id": "id",
    "accessibilityIdentifier": "id",
    "type": "role",
}

#: Friendly role names and the element types (XCUIElementType without the prefix) they cover.
#: ``tab`` also covers a Button inside a TabBar.
FRIENDLY_ROLES: Mapping[str, frozenset[str]] = {
    "button": frozenset({"Button"}),
    "text": frozenset({"StaticText"}),
    "field": frozenset({"TextField", "SecureTextField", "SearchField", "TextView"}),
    "switch": frozenset({"Switch", "Toggle"}),
    "toggle": frozenset({"Switch", "Toggle"}),
    "cell": frozenset({"Cell"}),
    "image": frozenset({"Image", "Icon"}),
    "link": frozenset({"Link"}),
    "tab": frozenset({"Tab"}),
    "slider": frozenset({"Slider"}),
    "stepper": frozenset({"Stepper"}),
    "picker": frozenset({"Picker", "PickerWheel", "DatePicker"}),
    "segment": frozenset({"SegmentedControl"}),
    "navbar": frozenset({"NavigationBar"}),
    "alert": frozenset({"Alert"}),
}

#: Every XCUIElementType name, without the prefix (XCUIElement.ElementType, plus ``Tab``).
# fmt: off
ELEMENT_TYPES: frozenset[str] = frozenset({
    "Any", "Other", "Application", "Group", "Window", "Sheet", "Drawer", "Alert", "Dialog", "Button",
    "RadioButton", "RadioGroup", "CheckBox", "DisclosureTriangle", "PopUpButton", "ComboBox",
    "MenuButton", "ToolbarButton", "Popover", "Keyboard", "Key", "NavigationBar", "TabBar", "TabGroup",
    "Toolbar", "StatusBar", "Table", "TableRow", "TableColumn", "Outline", "OutlineRow", "Browser",
    "CollectionView", "Slider", "PageIndicator", "ProgressIndicator", "ActivityIndicator",
    "SegmentedControl", "Picker", "PickerWheel", "Switch", "Toggle", "Link", "Image", "Icon",
    "SearchField", "ScrollView", "ScrollBar", "StaticText", "TextField", "SecureTextField", "DatePicker",
    "TextView", "Menu", "MenuItem", "MenuBar", "MenuBarItem", "Map", "WebView", "IncrementArrow",
    "Stepper", "RelevanceIndicator", "ValueIndicator", "ColorWell", "HelpTag", "Matte", "DockItem",
    "Ruler", "RulerMarker", "Grid", "LevelIndicator", "Cell", "LayoutArea", "LayoutItem", "Handle",
    "Timeline", "TouchBar", "StatusItem", "Tab",
})
# fmt: on
_TYPE_PREFIX = "XCUIElementType"

# -- normalization (Rule 3) -----------------------------------------------------------------

_TO_ASCII = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63", "-"),
        # zero-width characters, the soft hyphen, and bidi marks, embeddings and isolates
        **dict.fromkeys(
            "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u061c"
            "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
            None,
        ),
    }
)


def normalize(text: str) -> str:
    """The normalized form of ``text`` that every comparison uses (Rule 3)."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_TO_ASCII).split())


# -- patterns and selectors -----------------------------------------------------------------


@attrs.frozen
class Pattern:
    """A string to look for, as written: plain text, ``/regex/`` or ``/regex/i`` (Rule 2).

    Build one with :meth:`parse`. ``literal`` is the normalized plain text ("" for a regex).
    """

    written: str
    literal: str = ""
    regex: regex.Pattern[str] | None = None

    @classmethod
    def parse(cls, written: str) -> Pattern:
        """Parse a written string; raises :class:`ExpectError` when it breaks Rule 2."""
        return _pattern(written, ())

    @cached_property
    def _folded(self) -> str:
        return self.literal.casefold()

    def found_in(self, text: str) -> bool:
        """Does normalized ``text`` contain it (case-insensitive), or the regex match in it?

        Raises :class:`~.safe_regex.RegexTimeout` when the regex hits a time limit.
        """
        if self.regex is not None:
            return search(self.regex, text)
        return self._folded in text.casefold()

    def equals(self, text: str) -> bool:
        """Is normalized ``text`` exactly it (case-sensitive), or does the regex match in it?

        Raises :class:`~.safe_regex.RegexTimeout` when the regex hits a time limit.
        """
        if self.regex is not None:
            return search(self.regex, text)
        return self.literal == text

    @property
    def word(self) -> str:
        """What near misses are measured against: the plain text, or the regex's source."""
        return self.literal if self.regex is None else self.regex.pattern

    def show(self, *, bare: bool = False) -> str:
        """The one-line form: a regex as written, text JSON-quoted (bare when a simple token)."""
        if self.regex is not None or (bare and _TOKEN.fullmatch(self.written)):
            return self.written
        return quoted(self.written)


_TOKEN = re.compile(r"[A-Za-z0-9_.:-]+")


def role_types(name: str) -> frozenset[str]:
    """The element types a role name covers (Rule 4); raises ``ValueError`` with a hint."""
    if name in FRIENDLY_ROLES:
        return FRIENDLY_ROLES[name]
    bare = name.removeprefix(_TYPE_PREFIX)
    if bare in ELEMENT_TYPES:
        return frozenset({bare})
    # A capitalized name suggests an element type; a lowercase one a friendly name where both fit.
    order = (*FRIENDLY_ROLES, *ELEMENT_TYPES) if name[:1].isupper() else (*ELEMENT_TYPES, *FRIENDLY_ROLES)
    choices = {c.casefold(): c for c in order}
    close = difflib.get_close_matches(bare.casefold(), list(choices), n=1, cutoff=0.6)
    hint = f" (did you mean {choices[close[0]]!r}?)" if close else ""
    raise ValueError(
        f"unknown role {name!r}{hint}; write a friendly role ({', '.join(FRIENDLY_ROLES)}) "
        "or an element type such as StaticText or XCUIElementTypeStaticText"
    )


def _role_validator(_inst: object, _attribute: attrs.Attribute[str | None], value: str | None) -> None:
    if value is not None:
        role_types(value)


@attrs.frozen
class Selector:
    """Which elements an assertion looks at (Rule 4). At least one field is given."""

    id: Pattern | None = None
    label: Pattern | None = None
    value: Pattern | None = None
    role: str | None = attrs.field(default=None, validator=_role_validator)
    enabled: bool | None = None
    selected: bool | None = None

    def __attrs_post_init__(self) -> None:
        if all(getattr(self, k) is None for k in _SELECTOR_KEYS):
            raise ValueError("a selector needs at least one of " + ", ".join(_SELECTOR_KEYS))

    @cached_property
    def types(self) -> frozenset[str]:
        """The element types ``role`` covers (empty when there is no role)."""
        return frozenset() if self.role is None else role_types(self.role)

    def show(self) -> str:
        """One line, such as ``id=plan_annual``, ``label="Restore Purchases" role=button``."""
        parts: list[str] = []
        if self.id is not None:
            parts.append(f"id={self.id.show(bare=True)}")
        if self.label is not None:
            parts.append(f"label={self.label.show()}")
        if self.value is not None:
            parts.append(f"value={self.value.show()}")
        if self.role is not None:
            parts.append(f"role={self.role}")
        for name in ("enabled", "selected"):
            flag = getattr(self, name)
            if flag is not None:
                parts.append(f"{name}={shown_flag(flag)}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The selector as written in a check file."""
        out: dict[str, Any] = {}
        for name in _SELECTOR_KEYS:
            field = getattr(self, name)
            if field is not None:
                out[name] = field.written if isinstance(field, Pattern) else field
        return out


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


_AUDIT_KEYS = ("types", "max")


# -- assertions -----------------------------------------------------------------------------


def _is_count(value: object) -> bool:
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
        textual = self.kind in _TEXT_KINDS
        audit = self.kind is Kind.ACCESSIBILITY_AUDIT
        if textual != isinstance(self.subject, Pattern) or audit != isinstance(self.subject, AuditSpec):
            wanted = "a Pattern" if textual else "an AuditSpec" if audit else "a Selector"
            raise ValueError(f"a {self.kind} assertion takes {wanted}")
        bounds = [b for b in _BOUNDS if getattr(self, b) is not None]
        if self.kind is Kind.VALUE:
            ok = bounds == ["equals"] and _is_expected(self.equals)
        elif self.kind is Kind.COUNT:
            ok = len(bounds) == 1 and _is_count(getattr(self, bounds[0]))
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
        for name in _BOUNDS:
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


def _is_expected(value: object) -> bool:
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


# -- parsing check data ---------------------------------------------------------------------


def parse_expect(
    items: Any, locate: Callable[[Keys], str] | None = None, line: Callable[[Keys], int | None] | None = None
) -> tuple[Assertion, ...]:
    """Parse a check's ``expect`` list (lists of text expand, Rule 1); raises :class:`ExpectError`.

    ``locate`` turns an item's keys into where it was written (``file:line``), kept in
    ``Assertion.where`` for messages; ``line`` into its line, kept in ``Assertion.line``.
    """
    if not isinstance(items, list):
        raise ExpectError(
            (),
            f"expected a list of assertions, got {kind_of(items)}",
            'write one assertion per list item, such as "- text: Welcome"',
        )
    out: list[Assertion] = []
    for index, item in enumerate(items):
        parsed = parse_assertion(item, (index,))
        if locate is not None:
            where = f"{locate((index,))}: expect[{index}]"
            parsed = tuple(attrs.evolve(a, where=where) for a in parsed)
        if line is not None:
            at = line((index,))
            parsed = tuple(attrs.evolve(a, line=at) for a in parsed)
        out.extend(parsed)
    if len(out) > MAX_ASSERTIONS:
        raise ExpectError(
            (),
            f"{len(out)} assertions after lists expand; the limit is {MAX_ASSERTIONS}",
            "split the check in two",
        )
    return tuple(out)


def parse_assertion(item: Any, keys: Keys = ()) -> tuple[Assertion, ...]:
    """Parse one item of ``expect``: one assertion, or several when ``text`` is a list."""
    if not isinstance(item, Mapping):
        fix = f"write - text: {quoted(item)}" if isinstance(item, str) else "write - text: Welcome"
        raise ExpectError(keys, f"expected a mapping with one kind ({', '.join(Kind)}), got {kind_of(item)}", fix)
    for key in item:
        if key not in _ITEM_KEYS:
            unknown = str(key)
            raise ExpectError(
                (*keys, unknown),
                f"unknown key {unknown!r}{did_you_mean(unknown, _ITEM_KEYS)}",
                "rename it or remove it",
            )
    kinds = [k for k in Kind if k.value in item]
    if not kinds:
        raise ExpectError(
            keys,
            f"no kind: an assertion needs one of {', '.join(Kind)}",
            "add one, such as text: Welcome or visible: {label: Continue}",
        )
    if len(kinds) > 1:
        raise ExpectError(
            keys,
            f"two kinds ({kinds[0]} and {kinds[1]}): an assertion checks one thing",
            "split it into two list items",
        )
    kind = kinds[0]
    name = _name(item["name"], (*keys, "name")) if "name" in item else None
    bounds = {b: item[b] for b in _BOUNDS if b in item}
    body = item[kind.value]
    where = (*keys, kind.value)
    if kind in _TEXT_KINDS:
        _no_bounds(kind, bounds, keys)
        return tuple(Assertion(kind, p, name=name) for p in _texts(body, where))
    if kind is Kind.ACCESSIBILITY_AUDIT:
        _no_bounds(kind, bounds, keys)
        return (Assertion(kind, _audit(body, where), name=name),)
    selector = _selector(body, where)
    if kind in (Kind.VISIBLE, Kind.ABSENT):
        _no_bounds(kind, bounds, keys)
        return (Assertion(kind, selector, name=name),)
    if kind is Kind.VALUE:
        return (Assertion(kind, selector, equals=_value_equals(bounds, keys), name=name),)
    bound, value = _count_bound(bounds, keys)
    counts: dict[str, int | None] = {b: value if b == bound else None for b in _BOUNDS}
    return (
        Assertion(
            kind, selector, name=name, equals=counts["equals"], at_least=counts["at_least"], at_most=counts["at_most"]
        ),
    )


def _audit(value: Any, keys: Keys) -> AuditSpec:
    """Rule 8: ``{types: [contrast, …], max: 0}``; ``{}`` or null-free defaults: every type, none allowed."""
    if not isinstance(value, Mapping):
        raise ExpectError(
            keys,
            f"expected a mapping of types and max, got {kind_of(value)}",
            "write accessibility_audit: {types: [contrast], max: 0}",
        )
    for key in value:
        if key not in _AUDIT_KEYS:
            unknown = str(key)
            raise ExpectError(
                (*keys, unknown), f"unknown key {unknown!r}{did_you_mean(unknown, _AUDIT_KEYS)}", "write types and max"
            )
    types: list[str] = []
    raw = value.get("types", [])
    if not isinstance(raw, list):
        raise ExpectError(
            (*keys, "types"), f"expected a list of audit types, got {kind_of(raw)}", "write types: [contrast]"
        )
    for index, item in enumerate(raw):
        if not isinstance(item, str) or item not in AUDIT_TYPES:
            hint = did_you_mean(item, AUDIT_TYPES) if isinstance(item, str) else ""
            raise ExpectError(
                (*keys, "types", index),
                f"unknown audit type {item!r}{hint}"
                if isinstance(item, str)
                else f"expected an audit type, got {kind_of(item)}",
                f"write one of {', '.join(AUDIT_TYPES)}",
            )
        if item not in types:
            types.append(item)
    most = value.get("max", 0)
    if not _is_count(most) or most > MAX_ELEMENTS:
        raise ExpectError(
            (*keys, "max"), f"expected a whole number from 0 to {MAX_ELEMENTS}, got {kind_of(most)}", "write max: 0"
        )
    return AuditSpec(types=tuple(types), max=most)


def _name(value: Any, keys: Keys) -> str:
    text = _string(value, keys)
    if not text.strip():
        raise ExpectError(keys, "the name is blank", "write a short name, or remove the key")
    if len(text) > MAX_NAME_CHARS:
        raise ExpectError(keys, f"the name is {len(text)} characters; the limit is {MAX_NAME_CHARS}", "shorten it")
    return text.strip()


def _no_bounds(kind: Kind, bounds: Mapping[str, Any], keys: Keys) -> None:
    if bounds:
        bound = next(iter(bounds))
        raise ExpectError(
            (*keys, bound),
            f"{bound} belongs to value and count assertions, not to {kind}",
            f"remove {bound}",
        )


def _value_equals(bounds: Mapping[str, Any], keys: Keys) -> Expected:
    for bound in ("at_least", "at_most"):
        if bound in bounds:
            raise ExpectError(
                (*keys, bound),
                f"a value assertion takes equals, not {bound}",
                "write equals: the expected value, or use count for a number of matches",
            )
    if "equals" not in bounds:
        raise ExpectError(
            keys, "a value assertion needs equals", "add equals: the expected value (text, a number, true/false)"
        )
    value = bounds["equals"]
    where = (*keys, "equals")
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        raise ExpectError(where, f"the text is {len(value)} characters; the limit is {MAX_TEXT_CHARS}", "shorten it")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpectError(where, f"expected a finite number, got {value!r}", "write a number such as 39.99")
    if isinstance(value, int | float) and not isinstance(value, bool):
        _bounded_number(value, where)
    if _is_expected(value):
        return value  # type: ignore[no-any-return]
    raise ExpectError(
        where,
        f"expected text, a number or true/false, got {kind_of(value)}",
        'write equals: "$39.99 / year", equals: 3 or equals: true',
    )


def _count_bound(bounds: Mapping[str, Any], keys: Keys) -> tuple[str, int]:
    if len(bounds) != 1:
        given = " and ".join(bounds) if bounds else "none"
        raise ExpectError(
            keys,
            f"a count takes exactly one of equals, at_least, at_most; got {given}",
            "keep one, such as equals: 3 or at_least: 1",
        )
    bound, value = next(iter(bounds.items()))
    if not _is_count(value):
        raise ExpectError(
            (*keys, bound),
            f"expected a whole number from 0, got {kind_of(value)}",
            f"write {bound}: 3",
        )
    if value > MAX_ELEMENTS:
        raise ExpectError(
            (*keys, bound),
            f"{value} is more elements than a screen holds (at most {MAX_ELEMENTS})",
            f"write a count from 0 to {MAX_ELEMENTS}",
        )
    return bound, value


def _bounded_number(value: float, keys: Keys) -> None:
    """Refuse an ``equals`` number no screen shows: too large, too many digits or places."""
    number = decimal.Decimal(value) if isinstance(value, int) else decimal.Decimal(repr(value))
    _sign, digits, exponent = number.as_tuple()
    places = -int(exponent) if isinstance(exponent, int) and exponent < 0 else 0
    significant = len(digits)
    if number.copy_abs() >= MAX_EQUALS_NUMBER or significant > MAX_EQUALS_DIGITS or places > MAX_EQUALS_PLACES:
        raise ExpectError(
            keys,
            f"the number {cut(str(value))} is out of range: at most {MAX_EQUALS_DIGITS} digits, "
            f"{MAX_EQUALS_PLACES} decimal places, below 10^30",
            'write the number as the screen shows it, or quote it to compare text: equals: "…"',
        )


def _texts(value: Any, keys: Keys) -> list[Pattern]:
    if isinstance(value, list):
        if not value:
            raise ExpectError(keys, "the list is empty", "list at least one text, or remove the assertion")
        return [_pattern(item, (*keys, index)) for index, item in enumerate(value)]
    return [_pattern(value, keys)]


def _pattern(value: Any, keys: Keys) -> Pattern:
    """Parse one string of Rule 2 at ``keys``."""
    written = _string(value, keys)
    try:
        compiled = compile_written(written)
    except RegexRefused as exc:
        raise ExpectError(keys, exc.problem, exc.fix) from exc
    if compiled is not None:
        return Pattern(written=written, regex=compiled)
    if len(written) > MAX_TEXT_CHARS:
        raise ExpectError(keys, f"the text is {len(written)} characters; the limit is {MAX_TEXT_CHARS}", "shorten it")
    literal = normalize(written)
    if not literal:
        raise ExpectError(keys, "the text is blank and would match everything", "write the text to look for")
    return Pattern(written=written, literal=literal)


def _selector(value: Any, keys: Keys) -> Selector:
    _selector_keys(value, keys)
    fields: dict[str, Any] = {}
    for name in ("id", "label", "value"):
        if name in value:
            fields[name] = _pattern(value[name], (*keys, name))
    if "role" in value:
        role = _string(value["role"], (*keys, "role"))
        try:
            role_types(role)
        except ValueError as exc:
            problem, _, fix = str(exc).partition("; ")
            raise ExpectError((*keys, "role"), problem, fix) from exc
        fields["role"] = role
    for name in ("enabled", "selected"):
        if name in value:
            fields[name] = _selectorshown_flag(value[name], (*keys, name))
    return Selector(**fields)


def _selector_keys(value: Any, keys: Keys) -> None:
    """A selector is a mapping of known keys, at least one."""
    kind = keys[-1]
    if not isinstance(value, Mapping):
        example = f"{{label: {quoted(value)}}}" if isinstance(value, str) else "{label: Continue}"
        raise ExpectError(
            keys,
            f"expected a selector, a mapping of {', '.join(_SELECTOR_KEYS)}; got {kind_of(value)}",
            f"write {kind}: {example}",
        )
    for key in value:
        if key not in _SELECTOR_KEYS:
            name = str(key)
            hint = (
                f" (did you mean {_SELECTOR_HINTS[name]!r}?)"
                if name in _SELECTOR_HINTS
                else did_you_mean(name, _SELECTOR_KEYS)
            )
            raise ExpectError((*keys, name), f"unknown selector key {name!r}{hint}", "rename it or remove it")
    if not value:
        raise ExpectError(
            keys, f"the selector is empty; it needs at least one of {', '.join(_SELECTOR_KEYS)}", "write {id: …}"
        )


def _selectorshown_flag(flag: Any, keys: Keys) -> bool:
    if not isinstance(flag, bool):
        name = keys[-1]
        raise ExpectError(
            keys,
            f"expected true or false, got {kind_of(flag)}",
            f"write {name}: true or {name}: false (yes and no are strings in YAML 1.2)",
        )
    return flag


def _string(value: Any, keys: Keys) -> str:
    if isinstance(value, str):
        return value
    raise ExpectError(keys, f"expected a string, got {kind_of(value)}", quote_fix(keys, value))
