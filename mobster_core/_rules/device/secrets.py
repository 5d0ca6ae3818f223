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
        nothing, and a step that types nothing is a step the check shouldn't have. When several
        are unset or empty, it names every one of them (:func:`unset_words`), so one run says all
        to set.
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

__all__ = [
    "REFERENCE",
    "WHOLE_WORD_BELOW",
    "MissingSecret",
    "Secrets",
    "only_references",
    "references",
    "unset_words",
]

#: Rule 1: ``${NAME}``.
REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Rule 3: values shorter than this are scrubbed as whole words only.
WHOLE_WORD_BELOW = 4


class MissingSecret(ValueError):
    """A check names ``${NAME}`` and the variable isn't set, or is empty (Rule 2).

    ``names`` is every one unset or empty, in the order the check names them, ``empties`` those
    of them that are set but empty; ``name`` is the first and ``empty`` whether it is empty.
    """

    def __init__(self, *names: str, empties: Iterable[str] = ()) -> None:
        super().__init__(", ".join(names))
        empty = set(empties)
        self.names = names
        self.empties = tuple(name for name in names if name in empty)
        self.name = names[0]

    @property
    def empty(self) -> bool:
        """Whether the first one (``name``) is set but empty."""
        return self.name in self.empties

    @property
    def unset(self) -> tuple[str, ...]:
        """Those of ``names`` that aren't set at all."""
        return tuple(name for name in self.names if name not in self.empties)

    def words(self) -> tuple[str, str]:
        """:func:`unset_words` of this one: every name, and how each is wrong."""
        return unset_words(self.names, empty=self.empties)


def unset_words(names: Iterable[str], *, empty: Iterable[str] = ()) -> tuple[str, str]:
    """Rule 2: ``names`` said in a message: (``${A} and ${B}``, ``the variables A and B aren't set``).

    One name reads as it always did: ``${A}``, ``the variable A isn't set``. Those of ``names``
    in ``empty`` are said as set but empty: ``the variable B is set but empty``, and with unset
    ones, ``the variable A isn't set and the variables B and C are set but empty``.
    """
    given = list(names)
    blank = set(empty)

    def joined(words: list[str]) -> str:
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"

    def said(which: list[str], one: str, several: str) -> str:
        if len(which) == 1:
            return f"the variable {which[0]} {one}"
        return f"the variables {joined(which)} {several}"

    unset = [n for n in given if n not in blank]
    empties = [n for n in given if n in blank]
    how = [
        *([said(unset, "isn't set", "aren't set")] if unset else []),
        *([said(empties, "is set but empty", "are set but empty")] if empties else []),
    ]
    return joined(["${" + n + "}" for n in given]), " and ".join(how)


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
        """The values of ``names`` from ``environ``; :class:`MissingSecret` names every unset or empty one (Rule 2)."""
        given = list(dict.fromkeys(names))
        missing = [name for name in given if not environ.get(name)]
        if missing:
            raise MissingSecret(*missing, empties=[name for name in missing if name in environ])
        return cls({name: environ[name] for name in given})

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
