"""Secrets a check names as ``${NAME}``: typed with no model, never stored or shown.

Rule 1 (references): a check names a secret as ``${NAME}`` (a letter or ``_``, then letters,
        digits or ``_``) in a step or a launch value (``launch.args``, ``launch.env`` values,
        ``launch.url``). Everything Mobster stores or shows holds the reference, never the value:
        the recorded path, the journal, the results, JUnit, the report, the terminal, the logs,
        the heal file, and what the model is shown.
Rule 2 (resolution): a reference is replaced by its value only where an action or a launch leaves
        for the device (:meth:`Secrets.resolve`), and nowhere else. A reference whose variable
        isn't set, or is set to nothing (``""``: what a CI system gives for a secret it doesn't
        have), is a usage problem naming it, found before anything is sent: a check can't type
        nothing, and a step that types nothing is a step the check shouldn't have.
Rule 3 (scrubbing): whatever comes back (a read of the screen, a device's error) has every value
        replaced by its reference (:meth:`Secrets.scrub`), in the forms a server echoes it: as
        typed, JSON-escaped and URL-encoded. A value shorter than :data:`WHOLE_WORD_BELOW`
        characters is replaced only where it stands as a whole word, so a PIN of ``12`` doesn't
        shred every number on the screen. An empty value is never scrubbed (there is nothing to
        find).
Rule 4 (typing): text that is exactly references (``${SIGNUP_PASSWORD}``) and appears in the
        check's own words is replayed with no model even into a secure field: what is stored is
        the reference, which holds no secret.

Pure: the values are given (the runner reads the environment).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote

import attrs

from mobster_core._rules.vocabulary.screen import Element, Screen

__all__ = ["REFERENCE", "WHOLE_WORD_BELOW", "MissingSecret", "Secrets", "only_references", "references"]

#: Rule 1: ``${NAME}``.
REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Rule 3: values shorter than this are scrubbed as whole words only.
WHOLE_WORD_BELOW = 4


class MissingSecret(ValueError):
    """A check names ``${NAME}`` and the variable isn't set, or is empty (Rule 2); ``name`` is which."""

    def __init__(self, name: str, *, empty: bool = False) -> None:
        super().__init__(name)
        self.name = name
        self.empty = empty

    @property
    def how(self) -> str:
        """How the variable is wrong, in words: ``isn't set`` or ``is set but empty``."""
        return "is set but empty" if self.empty else "isn't set"


def references(texts: Iterable[str | None]) -> tuple[str, ...]:
    """The names referenced in ``texts``, each once, in the order they first appear."""
    seen: dict[str, None] = {}
    for text in texts:
        for m in REFERENCE.finditer(text or ""):
            seen.setdefault(m.group(1), None)
    return tuple(seen)


def only_references(text: str) -> bool:
    """True when ``text`` is one or more references and nothing else but spaces (Rule 4)."""
    return bool(REFERENCE.search(text)) and not REFERENCE.sub("", text).strip()


def _values(values: Mapping[str, str]) -> dict[str, str]:
    return dict(values)


def _forms(value: str) -> set[str]:
    """Rule 3: the forms a value comes back in."""
    return {value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1], quote(value, safe="")}


@attrs.frozen
class Secrets:
    """The values of the secrets a run's check names (``values``: name -> value)."""

    values: Mapping[str, str] = attrs.field(factory=dict, converter=_values)
    _patterns: tuple[tuple[re.Pattern[str], str], ...] = attrs.field(init=False, repr=False, eq=False)

    @_patterns.default
    def _compile(self) -> tuple[tuple[re.Pattern[str], str], ...]:
        pairs = []
        # The longest first, so a value that holds another is replaced whole.
        for name, value in sorted(self.values.items(), key=lambda kv: -len(kv[1])):
            if not value:
                continue
            reference = "${" + name + "}"
            for form in sorted(_forms(value), key=len, reverse=True):
                escaped = re.escape(form)
                if len(value) < WHOLE_WORD_BELOW:
                    escaped = rf"(?<!\w){escaped}(?!\w)"
                pairs.append((re.compile(escaped), reference))
        return tuple(pairs)

    @classmethod
    def of(cls, names: Iterable[str], environ: Mapping[str, str]) -> Secrets:
        """The values of ``names`` from ``environ``; :class:`MissingSecret` names the first unset or empty one."""
        values = {}
        for name in names:
            if name not in environ:
                raise MissingSecret(name)
            if not environ[name]:
                raise MissingSecret(name, empty=True)
            values[name] = environ[name]
        return cls(values)

    def __bool__(self) -> bool:
        return bool(self.values)

    def resolve(self, text: str) -> str:
        """Rule 2: ``text`` with each reference replaced by its value (unknown names stay as written)."""
        if not self.values:
            return text
        return REFERENCE.sub(lambda m: self.values.get(m.group(1), m.group(0)), text)

    def scrub(self, text: str) -> str:
        """Rule 3: ``text`` with every value replaced by its reference."""
        for pattern, reference in self._patterns:
            text = pattern.sub(reference, text)
        return text

    def scrub_screen(self, screen: Screen) -> Screen:
        """Rule 3: the screen with every value in a label, value or identifier replaced by its reference."""
        if not self._patterns:
            return screen
        elements = tuple(self._scrub_element(e) for e in screen.elements)
        if all(a is b for a, b in zip(elements, screen.elements, strict=True)):
            return screen
        return attrs.evolve(screen, elements=elements)

    def _scrub_element(self, element: Element) -> Element:
        label, value, identifier = (self.scrub(t) for t in (element.label, element.value, element.identifier))
        if (label, value, identifier) == (element.label, element.value, element.identifier):
            return element
        return attrs.evolve(element, label=label, value=value, identifier=identifier)
