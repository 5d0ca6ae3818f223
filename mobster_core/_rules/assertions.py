"""Assertions: what a check expects to see on one read of the screen .

Rule 1: an assertion has exactly one kind, ``text``, ``no_text``, ``visible``, ``absent``,
        ``value`` or ``count``, and an optional ``name`` (1-120 characters). ``text`` and
        ``no_text`` take a string or a list of strings; a list expands into one assertion per
        string. A check holds at most ``MAX_ASSERTIONS`` (50) after lists expand.
Rule 2: a string written ``/pattern/`` or ``/pattern/i`` is a regex: the pattern is 1-500
        characters and must compile as a Python ``re`` pattern without a warning that its
        meaning may change; ``//`` would match everything and is refused. A repeat count is at
        most 1,000 and repeats nested in repeats multiply to at most 10,000 (``a{100000000}``
        would take gigabytes to compile). Any other string is plain text of 1-2,000 characters
        that is not blank once normalized.
Rule 2a: a regex runs with the ``regex`` library's time limit: each search stops after 0.1 s,
        and the searches of one read of the screen together stop after 1 s of CPU. An assertion
        whose regex hit a limit couldn't be evaluated: it holds no verdict of its own (its result
        has ``error`` set and ``ok`` false); ``_verdict.decide`` makes the check ``couldnt_run``,
        class ``usage``, unless another assertion failed for sure. So a catastrophic pattern such
        as ``/(a|a)+$/`` never spins, and Ctrl+C is seen within about a second.
Rule 3: every comparison runs on normalized text: Unicode NFKC; curly quotes, dashes and the minus
        sign become ASCII; zero-width and bidi marks are removed; every whitespace run (NBSP
        included) becomes one space; the result is stripped.
Rule 4: ``text`` holds when one *shown* element's label or value contains the text
        (case-insensitive), or the regex finds a match in it. Text is never joined across two
        elements. ``no_text`` holds when no shown element's label or value does.
Rule 5: a selector names at least one of ``id``, ``label``, ``value``, ``role``, ``enabled``,
        ``selected``, and an element matches when every field given matches. ``id``, ``label`` and
        ``value`` are exact, case-sensitive comparisons of normalized text, or a regex search.
        An element without an identifier never matches ``id``. ``role`` is a friendly name
        (``button``, ``field``, ``text``, … see ``FRIENDLY_ROLES``) or an XCUIElementType name,
        with or without its prefix.
Rule 6: ``visible`` holds when at least one shown element matches; ``absent`` when none does;
        ``value`` when exactly one shown element matches and its value equals ``equals``;
        ``count`` when the number of shown matches meets its one bound (``equals``, ``at_least``
        or ``at_most``, a whole number from 0).
Rule 7: ``equals`` on ``value`` compares by the type written: a boolean reads the value as on
        (1, true, on, yes) or off (0, false, off, no); a number takes the first number in the
        value (thousands groups of exactly three digits, separated by commas or spaces) at the
        expected number's own precision (against ``3`` the value 3.4 reads as 3; against ``39.99``
        the value 39 does not match); a string is normalized exact equality.
Rule 8: an element is *shown* by the screen's one rule (:meth:`Screen.is_shown`): visible itself
        (an ancestor's visibility is not inherited), its frame overlapping the screen with positive
        area, not the Application or a Window, and not the unlabelled inner Switch of a SwiftUI
        Toggle. The signature and the matcher use the same rule.
Rule 9: evaluation is pure: one screen in, one result per assertion out, all on the same read.
        A failing assertion says what was found instead: near misses, the value, the count (what
        was counted, by label or the text inside, up to ``MAX_LISTED``), the elements that match
        but aren't shown, and a role that doesn't match (``"Share week" is on the screen as a
        Button, not a tab``). A field that shows its placeholder reads as "" and says so.
"""

from __future__ import annotations

import contextvars
import decimal
import difflib
import enum
import json
import math
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, TypeAlias

import attrs
import regex

from mobster_core.exceptions import MobsterError

from .screen import MAX_ELEMENTS, Element, Screen
from .work import work_seconds
from .yaml import did_you_mean

__all__ = [
    "ELEMENT_TYPES",
    "FRIENDLY_ROLES",
    "MAX_ASSERTIONS",
    "Assertion",
    "AssertionResult",
    "ExpectError",
    "Expected",
    "Kind",
    "Pattern",
    "RegexTimeout",
    "Selector",
    "dotted",
    "evaluate",
    "first_number",
    "kind_of",
    "near_misses",
    "normalize",
    "parse_assertion",
    "parse_expect",
    "quote_fix",
    "role_types",
    "shown_elements",
]

#: The most assertions one check holds, after ``text``/``no_text`` lists expand.
MAX_ASSERTIONS = 50
#: The longest assertion ``name``.
MAX_NAME_CHARS = 120
#: The longest plain string in an assertion or selector.
MAX_TEXT_CHARS = 2000
#: The longest regex pattern (between the slashes).
MAX_REGEX_CHARS = 500
#: The largest repeat count in a regex (``{m,n}``), and the largest product of nested counts.
MAX_REGEX_REPEAT = 1000
MAX_REGEX_EXPANSION = 10_000
#: Rule 2a: the time limit of one regex search, and the CPU budget of every search on one read.
REGEX_SEARCH_SECONDS = 0.1
REGEX_READ_SECONDS = 1.0
#: The largest ``equals`` number (in magnitude, exclusive), its most digits and decimal places:
#: what a screen shows, with room to spare (an order number of 20 digits compares exactly).
MAX_EQUALS_NUMBER = 10**30
MAX_EQUALS_DIGITS = 30
MAX_EQUALS_PLACES = 10
#: The most matching elements kept in a result.
MAX_MATCHES = 10
#: The most elements a failing ``count`` names (then "…and N more").
MAX_LISTED = 10
#: Near misses listed for a failing assertion: up to 5 close ones (difflib ratio >= 0.6), else up
#: to 3 that are somewhat alike (ratio >= 0.3).
_NEAR_CLOSE, _NEAR_CLOSE_CUTOFF, _NEAR_SOME, _NEAR_SOME_CUTOFF = 5, 0.6, 3, 0.3
# Near misses compare at most this many candidates, each cut to this length (difflib is quadratic).
_NEAR_CANDIDATES, _NEAR_CHARS = 500, 200
# Long texts in messages are cut to this many characters.
_SHOW_CHARS = 80

Keys: TypeAlias = tuple[str | int, ...]
#: What ``equals`` on a ``value`` assertion may be (Rule 7).
Expected: TypeAlias = bool | int | float | str


class ExpectError(MobsterError):
    """An assertion that is malformed. ``keys`` locate it inside the ``expect`` list.

    ``problem`` says what is wrong and ``fix`` what to write instead; the check loader adds the
    file and the line.
    """

    def __init__(self, keys: Keys, problem: str, fix: str) -> None:
        path = dotted(keys)
        super().__init__(f"{path}: {problem}; {fix}" if path else f"{problem}; {fix}")
        self.keys = keys
        self.problem = problem
        self.fix = fix


class Kind(enum.StrEnum):
    """The kind of an assertion: the one key that says what it checks."""

    TEXT = "text"
    NO_TEXT = "no_text"
    VISIBLE = "visible"
    ABSENT = "absent"
    VALUE = "value"
    COUNT = "count"


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

        Raises :class:`RegexTimeout` when the regex hits a time limit (Rule 2a).
        """
        if self.regex is not None:
            return _search(self.regex, text)
        return self._folded in text.casefold()

    def equals(self, text: str) -> bool:
        """Is normalized ``text`` exactly it (case-sensitive), or does the regex match in it?

        Raises :class:`RegexTimeout` when the regex hits a time limit (Rule 2a).
        """
        if self.regex is not None:
            return _search(self.regex, text)
        return self.literal == text

    @property
    def word(self) -> str:
        """What near misses are measured against: the plain text, or the regex's source."""
        return self.literal if self.regex is None else self.regex.pattern

    def show(self, *, bare: bool = False) -> str:
        """The one-line form: a regex as written, text JSON-quoted (bare when a simple token)."""
        if self.regex is not None or (bare and _TOKEN.fullmatch(self.written)):
            return self.written
        return _json(self.written)


_TOKEN = re.compile(r"[A-Za-z0-9_.:-]+")


# -- Rule 2a: regexes under a time limit ------------------------------------------------------


class RegexTimeout(Exception):
    """A check's regex hit a time limit (Rule 2a); ``text`` is what it was searching."""

    def __init__(self, pattern: str, text: str, *, spent: bool) -> None:
        super().__init__(pattern)
        self.pattern = pattern
        self.text = text
        self.spent = spent


@attrs.define
class _Budget:
    """The CPU seconds the regexes of one read may still use."""

    until: float


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("mobster_regex_budget", default=None)


def _search(compiled: regex.Pattern[str], text: str) -> bool:
    budget = _BUDGET.get()
    limit = REGEX_SEARCH_SECONDS
    if budget is not None:
        left = budget.until - work_seconds()
        if left <= 0:
            raise RegexTimeout(compiled.pattern, text, spent=True)
        limit = min(limit, left)
    try:
        return compiled.search(text, timeout=limit) is not None
    except TimeoutError:
        raise RegexTimeout(compiled.pattern, text, spent=False) from None


_REPEAT = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


def _repeat_problem(source: str) -> str | None:
    """Rule 2's repeat limits: a count over 1,000, or nested counts multiplying past 10,000."""
    # Each open group keeps the largest product of counts inside it; a count after a group
    # multiplies that product.
    groups: list[int] = [1]
    last = 1  # the product of the atom just read (a group's inner product, else 1)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c in "\\[":
            i, last = _atom_end(source, i), 1
        elif c == "(":
            groups.append(1)
            i += 1
        elif c == ")" and len(groups) > 1:
            last = groups.pop()
            groups[-1] = max(groups[-1], last)
            i += 1
        elif c == "{":
            product, i, problem = _repeat(source, i, last)
            if problem is not None:
                return problem
            groups[-1], last = max(groups[-1], product), 1
        else:
            i, last = i + 1, 1
    return None


def _atom_end(source: str, i: int) -> int:
    """The index after the escape or the character class at ``i``."""
    if source[i] == "[":
        return _class_end(source, i)
    if source.startswith("N{", i + 1):  # a character by name, \N{EM DASH}
        close = source.find("}", i)
        return len(source) if close < 0 else close + 1
    return i + 2


def _repeat(source: str, i: int, last: int) -> tuple[int, int, str | None]:
    """The repeat count at ``source[i] == "{"``: its product with ``last``, where it ends, and a problem."""
    found = _REPEAT.match(source, i)
    if found is None or not (found.group(1) or found.group(3)):
        # re reads a brace that isn't a repeat as itself, the regex library as fuzzy matching
        # ({e<=1}): the same pattern would mean two things.
        return 0, i + 1, "a brace that is not a repeat count; write a literal brace as \\{"
    count = max(int(found.group(1) or 0), int(found.group(3) or 0))
    if count > MAX_REGEX_REPEAT:
        return 0, i + 1, f"the repeat {found.group()} is over {MAX_REGEX_REPEAT}"
    product = count * last
    if product > MAX_REGEX_EXPANSION:
        return 0, i + 1, f"repeats nested in repeats multiply to {product}, over {MAX_REGEX_EXPANSION}"
    return product, found.end(), None


def _class_end(source: str, i: int) -> int:
    """The index after the character class that starts at ``source[i] == "["``."""
    i += 1
    if i < len(source) and source[i] == "^":
        i += 1
    if i < len(source) and source[i] == "]":
        i += 1
    while i < len(source) and source[i] != "]":
        i += 2 if source[i] == "\\" else 1
    return i + 1


def role_types(name: str) -> frozenset[str]:
    """The element types a role name covers (Rule 5); raises ``ValueError`` with a hint."""
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
    """Which elements an assertion looks at (Rule 5). At least one field is given."""

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
                parts.append(f"{name}={_flag(flag)}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The selector as written in a check file."""
        out: dict[str, Any] = {}
        for name in _SELECTOR_KEYS:
            field = getattr(self, name)
            if field is not None:
                out[name] = field.written if isinstance(field, Pattern) else field
        return out


# -- assertions -----------------------------------------------------------------------------


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@attrs.frozen
class Assertion:
    """One expectation (Rules 1 and 6). Build it from check data with :func:`parse_assertion`.

    ``subject`` is the text (a :class:`Pattern`) of ``text``/``no_text`` and the
    :class:`Selector` of the others. ``equals`` is the expected value of a ``value`` assertion
    (Rule 7); exactly one of ``equals``/``at_least``/``at_most`` bounds a ``count``.
    """

    kind: Kind = attrs.field(converter=Kind)
    subject: Pattern | Selector
    equals: Expected | None = None
    at_least: int | None = None
    at_most: int | None = None
    name: str | None = None
    #: Where the assertion was written (``file:line: expect[2]``), for messages; not compared.
    where: str | None = attrs.field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        textual = self.kind in _TEXT_KINDS
        if textual != isinstance(self.subject, Pattern):
            raise ValueError(f"a {self.kind} assertion takes {'a Pattern' if textual else 'a Selector'}")
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
        return f"{line} {op} {_expected(bound[1])}"

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


def _is_expected(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, bool | int | str)


@attrs.frozen
class AssertionResult:
    """How one assertion fared on one read.

    ``text`` is the assertion's one-line form, ``observed`` what was found (where the text was,
    near misses, the actual value or count), ``matches`` up to ``MAX_MATCHES`` shown elements
    that matched. ``name`` is the assertion's name, when it has one.
    """

    text: str
    ok: bool
    observed: str
    matches: tuple[Element, ...] = ()
    name: str | None = None
    #: Set when the assertion couldn't be evaluated (its regex hit a time limit, Rule 2a): the
    #: message names where it was written and the regex. ``ok`` is then False.
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"text", "ok", "observed"}``, as in ``results.json``."""
        return {"text": self.text, "ok": self.ok, "observed": self.observed}


# -- parsing check data ---------------------------------------------------------------------


def parse_expect(items: Any, locate: Callable[[Keys], str] | None = None) -> tuple[Assertion, ...]:
    """Parse a check's ``expect`` list (lists of text expand, Rule 1); raises :class:`ExpectError`.

    ``locate`` turns an item's keys into where it was written (``file:line``), kept in
    ``Assertion.where`` for messages.
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
        fix = f"write - text: {_json(item)}" if isinstance(item, str) else "write - text: Welcome"
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
            f"the number {_cut(str(value))} is out of range: at most {MAX_EQUALS_DIGITS} digits, "
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
    regex_form = len(written) >= 2 and written[0] == "/" and written.endswith("/")
    regex_i = len(written) >= 3 and written[0] == "/" and written.endswith("/i")
    if regex_form or regex_i:
        source = written[1:-2] if regex_i and not regex_form else written[1:-1]
        if not source:
            raise ExpectError(keys, "an empty regex matches everything", "write a pattern between the slashes")
        if len(source) > MAX_REGEX_CHARS:
            raise ExpectError(
                keys, f"the regex is {len(source)} characters; the limit is {MAX_REGEX_CHARS}", "shorten it"
            )
        ignore_case = regex_i and not regex_form
        try:
            # Rule 2: the pattern must mean in Python's re what it means here; re warns (FutureWarning)
            # where a pattern's meaning differs between dialects, such as a nested set [[:alpha:]].
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                re.compile(source, re.IGNORECASE if ignore_case else 0)
        except (re.error, OverflowError, FutureWarning, DeprecationWarning) as exc:
            raise ExpectError(
                keys,
                f"{written!r} is not a valid regex ({exc})",
                "fix the pattern (a string between two slashes is a regex)",
            ) from exc
        problem = _repeat_problem(source)
        if problem is not None:
            raise ExpectError(
                keys, f"{written!r}: {problem}", "fix the pattern: use a smaller repeat count, or + and *"
            )
        try:
            compiled = regex.compile(source, regex.V0 | (regex.IGNORECASE if ignore_case else 0))
        except regex.error as exc:
            raise ExpectError(
                keys,
                f"{written!r} is not a valid regex ({exc})",
                "fix the pattern (a string between two slashes is a regex)",
            ) from exc
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
            fields[name] = _selector_flag(value[name], (*keys, name))
    return Selector(**fields)


def _selector_keys(value: Any, keys: Keys) -> None:
    """A selector is a mapping of known keys, at least one."""
    kind = keys[-1]
    if not isinstance(value, Mapping):
        example = f"{{label: {_json(value)}}}" if isinstance(value, str) else "{label: Continue}"
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


def _selector_flag(flag: Any, keys: Keys) -> bool:
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


def quote_fix(keys: Keys, value: Any) -> str:
    """What to write for a value that should have been a string: ``quote it: name: "3"``."""
    if not isinstance(value, bool | int | float):
        return "write a string"
    shown = _json(_flag(value) if isinstance(value, bool) else str(value))
    last = keys[-1] if keys else None
    return f"quote it: {last}: {shown}" if isinstance(last, str) else f"quote it: {shown}"


def kind_of(value: Any) -> str:  # noqa: PLR0911 - one return per kind of value: it reads as the table it is
    """Describe an untrusted value for a message: ``3 (a number)``, ``'yes' (a string)``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{_flag(value)} (a flag)"
    if isinstance(value, int | float):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOW_CHARS else value[: _SHOW_CHARS - 1] + "\u2026"
        return f"{shown!r} (a string)"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__} (from a YAML tag or an unquoted date)"


def dotted(keys: Keys) -> str:
    """``expect[2].count.equals`` for ``("expect", 2, "count", "equals")`` (list indexes from 0)."""
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out += f".{key}" if out else key
    return out


# -- what counts as shown (Rule 8) ----------------------------------------------------------


@attrs.frozen
class _Node:
    """An element with its text normalized once, and what its ancestors say about it."""

    element: Element
    shown: bool
    ident: str
    label: str
    value: str
    in_tab_bar: bool


def _ancestor_paths(path: str) -> Iterable[str]:
    while "/" in path[1:]:
        path = path.rsplit("/", 1)[0]
        yield path


class _View:
    """One screen prepared for evaluation: every element as a node, and the shown ones."""

    def __init__(self, screen: Screen) -> None:
        by_path = {e.path: e for e in screen.elements}
        shown = screen.shown_paths
        self.screen = screen
        self.nodes: list[_Node] = []
        for e in screen.elements:
            in_tab_bar = any(p in by_path and by_path[p].role == "TabBar" for p in _ancestor_paths(e.path))
            self.nodes.append(
                _Node(e, e.path in shown, normalize(e.identifier), normalize(e.label), normalize(e.value), in_tab_bar)
            )
        self.shown = [n for n in self.nodes if n.shown]
        self.hidden = [n for n in self.nodes if not n.shown]

    def name(self, node: _Node) -> str:
        """An element's name in messages.

        Its identifier, else its quoted label, else its role and the first labelled element inside it.
        """
        e = node.element
        if e.identifier:
            return _cut(e.identifier)
        if e.label:
            return _json(_cut(e.label))
        inside = e.path + "/"
        for other in self.screen.elements:
            if other.path.startswith(inside) and other.label:
                return f"{e.role} {_json(_cut(other.label))}"
        return f"{e.role} at {e.path}"

    def names(self, nodes: Sequence[_Node]) -> str:
        shown = ", ".join(self.name(n) for n in nodes[:3])
        return shown + (f" and {len(nodes) - 3} more" if len(nodes) > 3 else "")

    def text_name(self, node: _Node) -> str:
        """An element by what a person reads: its label, else the first label inside it, quoted."""
        e = node.element
        if e.label:
            return _json(_cut(e.label))
        inside = e.path + "/"
        for other in self.screen.elements:
            if other.path.startswith(inside) and other.label:
                return _json(_cut(other.label))
        if e.identifier:
            return _cut(e.identifier)
        return f"{e.role} at {e.path}"

    def listing(self, nodes: Sequence[_Node]) -> str:
        """Up to ``MAX_LISTED`` elements by :meth:`text_name`, then "…and N more"."""
        listed = ", ".join(self.text_name(n) for n in nodes[:MAX_LISTED])
        return listed + (f" \u2026and {len(nodes) - MAX_LISTED} more" if len(nodes) > MAX_LISTED else "")


def shown_elements(screen: Screen) -> tuple[Element, ...]:
    """The elements of ``screen`` that count as shown (Rule 8), in tree order."""
    return screen.shown


# -- evaluation -----------------------------------------------------------------------------


def evaluate(assertions: Iterable[Assertion], screen: Screen) -> tuple[AssertionResult, ...]:
    """Evaluate every assertion on the same read (Rule 9); one result per assertion, in order.

    The regexes of the read share one CPU budget (Rule 2a).
    """
    view = _View(screen)
    token = _BUDGET.set(_Budget(until=work_seconds() + REGEX_READ_SECONDS))
    try:
        return tuple(_evaluate(a, view) for a in assertions)
    finally:
        _BUDGET.reset(token)


def _evaluate(assertion: Assertion, view: _View) -> AssertionResult:
    subject = assertion.subject
    try:
        if isinstance(subject, Pattern):
            ok, observed, matches = _text(assertion.kind, subject, view)
        else:
            ok, observed, matches = _selected(assertion, subject, view)
    except RegexTimeout as timeout:
        return _unevaluated(assertion, timeout)
    return AssertionResult(
        text=assertion.show(),
        ok=ok,
        observed=observed,
        matches=tuple(n.element for n in matches[:MAX_MATCHES]),
        name=assertion.name,
    )


_Outcome: TypeAlias = tuple[bool, str, list[_Node]]


def _unevaluated(assertion: Assertion, timeout: RegexTimeout) -> AssertionResult:
    """Rule 2a: the result of an assertion whose regex hit a time limit."""
    if timeout.spent:
        why = f"the regexes of this read used their {REGEX_READ_SECONDS:g} s budget before it ran"
    else:
        why = f"it ran past its {REGEX_SEARCH_SECONDS:g} s time limit on {_json(_cut(timeout.text))}"
    observed = f"couldn't evaluate the regex /{_cut(timeout.pattern)}/: {why}"
    where = f"{assertion.where}: " if assertion.where else ""
    error = (
        f"{where}{assertion.show()}: {observed}; simplify the pattern (a repeat inside a repeat, "
        "such as (a+)+ or (a|a)*, can take exponential time)"
    )
    return AssertionResult(text=assertion.show(), ok=False, observed=observed, name=assertion.name, error=error)


def _text(kind: Kind, pattern: Pattern, view: _View) -> _Outcome:
    hits: list[tuple[_Node, str]] = []
    for node in view.shown:
        if pattern.found_in(node.label):
            hits.append((node, "label"))
        elif pattern.found_in(node.value):
            hits.append((node, "value"))
    nodes = [n for n, _ in hits]
    if hits:
        node, field = hits[0]
        where = view.name(node) if field == "label" else f"the value of {view.name(node)}"
        more = f" and {len(hits) - 1} more" if len(hits) > 1 else ""
        if kind is Kind.TEXT:
            return True, f"found in {where}{more}", nodes
        return False, f"shown in {where}{more}", nodes
    hidden = sum(1 for n in view.hidden if pattern.found_in(n.label) or pattern.found_in(n.value))
    if kind is Kind.NO_TEXT:
        return True, "not on the screen" + _hidden_note(hidden), nodes
    candidates = [t for n in view.shown for t in (n.label, n.value) if t]
    return False, "not on the screen" + _near_note(pattern.word, candidates, "") + _hidden_note(hidden), nodes


def _selects(selector: Selector, node: _Node) -> bool:
    """Rule 5: every field the selector gives matches the element (a tab bar's Button is a tab)."""
    e = node.element
    # ``and`` in this order: a field that fails spares the regexes of the next ones their time.
    return (
        (selector.id is None or bool(node.ident and selector.id.equals(node.ident)))
        and (selector.label is None or selector.label.equals(node.label))
        and (selector.value is None or selector.value.equals(node.value))
        and (
            selector.role is None
            or e.role in selector.types
            or (selector.role == "tab" and e.role == "Button" and node.in_tab_bar)
        )
        and (selector.enabled is None or e.enabled == selector.enabled)
        and (selector.selected is None or e.selected == selector.selected)
    )


def _selected(assertion: Assertion, selector: Selector, view: _View) -> _Outcome:
    matches = [n for n in view.shown if _selects(selector, n)]
    bound = assertion.bound
    if bound is None:  # visible or absent
        return _present(assertion.kind is Kind.ABSENT, matches, selector, view)
    op, expected = bound
    if assertion.kind is Kind.COUNT:
        limit, count = int(expected), len(matches)
        ok = {"equals": count == limit, "at_least": count >= limit, "at_most": count <= limit}[op]
        return ok, f"found {count}" if ok else _count_note(count, matches, selector, view), matches
    if not matches:
        return False, _not_found("not found", selector, view), matches
    if len(matches) > 1:
        return False, f"ambiguous: {len(matches)} match ({view.names(matches)})", matches
    node = matches[0]
    ok, note = _compare(expected, node.value)
    placeholder = node.element.placeholder
    if placeholder and not node.value:
        note += f" (it shows its placeholder {_json(_cut(placeholder))})"
    return ok, f"{view.name(node)} is {_json(_cut(node.value))}{note}", matches


def _present(absent: bool, matches: list[_Node], selector: Selector, view: _View) -> _Outcome:
    """``visible`` holds when something matches; ``absent`` when nothing does."""
    if matches:
        return not absent, f"found {view.names(matches)}", matches
    return absent, "not on the screen" if absent else _not_found("not on the screen", selector, view), matches


def _count_note(count: int, matches: Sequence[_Node], selector: Selector, view: _View) -> str:
    """A failing count: what it counted, and what it left out as not shown."""
    text = f"found {count}" + (f": {view.listing(matches)}" if matches else "")
    left_out = _hidden(selector, view)
    if left_out:
        text += f"; left out {len(left_out)} not shown (hidden, covered or off screen): {view.listing(left_out)}"
    elif not matches and (role := _role_note(selector, view)):
        text += f"; {role}"
    return text


def _hidden(selector: Selector, view: _View) -> list[_Node]:
    """The elements that match but aren't shown, without containers and Toggles' inner switches."""
    return [n for n in view.hidden if _countable(n) and _selects(selector, n)]


def _countable(node: _Node) -> bool:
    # Hidden matches are reported to a person: leave out what is never shown whatever the screen
    # (the app's window, a Toggle's inner switch) so "left out" names only what could have been.
    e = node.element
    if e.role in ("Application", "Window"):
        return False
    return not (e.role == "Switch" and not e.label and not e.identifier)


def _role_note(selector: Selector, view: _View) -> str:
    """``"Share week" is on the screen as a Button, not a tab`` when only the role is wrong, else ""."""
    if selector.role is None:
        return ""
    loose = attrs.evolve(selector, role=None) if _has_other_fields(selector) else None
    if loose is None:
        return ""
    others = [n for n in view.shown if _selects(loose, n)]
    if not others:
        return ""
    roles: list[str] = []
    for n in others:
        if n.element.role not in roles:
            roles.append(n.element.role)
    what = (
        _json(_cut(others[0].element.label))
        if selector.label is not None and others[0].element.label
        else (view.name(others[0]))
    )
    kinds = " and ".join(f"{_article(r)} {r}" for r in roles[:3])
    return f"{what} is on the screen as {kinds}, not {_article(selector.role)} {selector.role}"


def _has_other_fields(selector: Selector) -> bool:
    return any(getattr(selector, k) is not None for k in _SELECTOR_KEYS if k != "role")


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _not_found(text: str, selector: Selector, view: _View) -> str:
    """The role that didn't match, else near misses by id, label or value; and what isn't shown."""
    role = _role_note(selector, view)
    if role:
        return role + _hidden_note(len(_hidden(selector, view)))
    for what, attr, field in (
        ("ids", "ident", selector.id),
        ("labels", "label", selector.label),
        ("values", "value", selector.value),
    ):
        if field is not None:
            candidates = [c for n in view.shown if (c := getattr(n, attr))]
            text += _near_note(field.word, candidates, f" {what}")
            break
    return text + _hidden_note(len(_hidden(selector, view)))


def _hidden_note(count: int) -> str:
    if not count:
        return ""
    return f"; {count} more off screen or hidden: swipe to {'it' if count == 1 else 'them'}"


def _near_note(word: str, candidates: Sequence[str], what: str) -> str:
    near = near_misses(word, candidates)
    if not near:
        return ""
    return f"; closest{what}: " + ", ".join(_json(_cut(c)) for c in near)


def near_misses(word: str, candidates: Iterable[str]) -> list[str]:
    """Up to 5 candidates close to ``word`` (ratio >= 0.6), else up to 3 somewhat alike (>= 0.3).

    Compared case-insensitively; each candidate is returned as given, once.
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


# -- equals on value (Rule 7) ---------------------------------------------------------------

_ON = frozenset({"1", "true", "on", "yes"})
_OFF = frozenset({"0", "false", "off", "no"})
# The first number: an optional minus not glued to a word, thousands groups of exactly three digits
# separated by commas or spaces (or plain digits), and an optional decimal part.
_NUMBER = re.compile(r"(?:(?<!\w)(-))?(?<![\d.])(\d{1,3}(?:[, ]\d{3}(?!\d))+|\d+)(\.\d+)?")


def _compare(expected: Expected, actual: str) -> tuple[bool, str]:
    """Does the normalized ``actual`` value equal ``expected``? And a note when it doesn't."""
    if isinstance(expected, bool):
        word = actual.casefold()
        if word in _ON or word in _OFF:
            return (word in _ON) is expected, ""
        return False, ": neither on nor off"
    if isinstance(expected, str):
        return actual == normalize(expected), ""
    return _compare_number(expected, actual)


def first_number(text: str) -> decimal.Decimal | None:
    """The first number in normalized ``text`` (Rule 7), separators removed; None when there is none."""
    found = _NUMBER.search(text)
    if found is None:
        return None
    sign, whole, fraction = found.groups()
    return decimal.Decimal((sign or "") + re.sub(r"[, ]", "", whole) + (fraction or ""))


def _compare_number(expected: float, actual: str) -> tuple[bool, str]:
    number = first_number(actual)
    if number is None:
        return False, ": no number in it"
    want = decimal.Decimal(expected) if isinstance(expected, int) else decimal.Decimal(repr(expected))
    places = min(int(want.as_tuple().exponent), 0)
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        try:
            read = number.quantize(decimal.Decimal(1).scaleb(places), rounding=decimal.ROUND_HALF_UP)
        except decimal.InvalidOperation:  # far too many digits to compare: not equal
            return False, ": the number is out of range"
    if read == want:
        return True, ""
    return False, f" (reads as {read})"


# -- small formatting helpers ---------------------------------------------------------------


def _json(text: Any) -> str:
    return json.dumps(text, ensure_ascii=False)


def _cut(text: str) -> str:
    return text if len(text) <= _SHOW_CHARS else text[: _SHOW_CHARS - 1] + "\u2026"


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _expected(value: Expected) -> str:
    if isinstance(value, bool):
        return _flag(value)
    if isinstance(value, str):
        return _json(value)
    return repr(value)
