"""Patterns and selectors: the strings an assertion looks for and which elements it looks at.

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

(Numbered as the assertions' rules: ``model`` says where each one is kept.) A string that breaks
Rule 2 is an :class:`ExpectError` (Rule 7, ``parse``).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping
from functools import cached_property
from typing import Any

import attrs
import regex

from mobster_core._rules.formats.yaml import KeyedProblem, Keys, kind_of, quote_fix
from mobster_core.exceptions import MobsterError

from .explanation import quoted, shown_flag
from .safe_regex import RegexRefused, compile_written, search

__all__ = [
    "ELEMENT_TYPES",
    "FRIENDLY_ROLES",
    "MAX_TEXT_CHARS",
    "SELECTOR_KEYS",
    "ExpectError",
    "Pattern",
    "Selector",
    "normalize",
    "parse_pattern",
    "role_types",
    "written_string",
]

#: The longest plain string in an assertion or selector.
MAX_TEXT_CHARS = 2000


class ExpectError(KeyedProblem, MobsterError):
    """An assertion that is malformed. ``keys`` locate it inside the ``expect`` list.

    ``problem`` says what is wrong and ``fix`` what to write instead; the check loader adds the
    file and the line.
    """


SELECTOR_KEYS = ("id", "label", "value", "role", "enabled", "selected")

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
        return parse_pattern(written, ())

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
        if all(getattr(self, k) is None for k in SELECTOR_KEYS):
            raise ValueError("a selector needs at least one of " + ", ".join(SELECTOR_KEYS))

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
        for name in SELECTOR_KEYS:
            field = getattr(self, name)
            if field is not None:
                out[name] = field.written if isinstance(field, Pattern) else field
        return out


def parse_pattern(value: Any, keys: Keys) -> Pattern:
    """Parse one string of Rule 2 at ``keys``."""
    written = written_string(value, keys)
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


def written_string(value: Any, keys: Keys) -> str:
    if isinstance(value, str):
        return value
    raise ExpectError(keys, f"expected a string, got {kind_of(value)}", quote_fix(keys, value))
