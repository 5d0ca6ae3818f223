"""Screens: one read of the accessibility tree plus the bundle id of the app in front.

Rules 1, 2 and 8 (an element's frame, path and placeholder) are ``elements``'; Rules 3 to 5 (the
signature, the screen hash, the read fingerprint) ``signature``'s; Rules 7 and 11 (shown, and why
not) ``shown``'s; a screen written as data is read by ``screen_data``. The numbers are the screen's.

Rule 6: the similarity of two screens is the Jaccard index of their signatures as sets; two
        empty signatures are 1.0 alike.
Rule 9: a screen's text is valid Unicode: a lone surrogate from the device (an app that cut a
        label in the middle of an emoji) reads as U+FFFD (``formats/text``, Rule 1).
Rule 10: a role has one spelling (``roles.py``): ``XCUIElementTypeButton`` and ``button`` from a
        driver are ``Button`` on the screen, so no rule (the signature, the matcher, the
        assertions, safety) is fooled by a driver's spelling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import compress
from operator import itemgetter
from typing import Any

import attrs

from mobster_core._rules.formats.canon import digest, pairs_digest, text_digest
from mobster_core._rules.formats.text import valid_text

from .elements import DEFAULT_SCREEN_SIZE, Element, Frame
from .roles import ROLES, canonical_role
from .screen_data import MAX_ELEMENTS, MAX_TREE_DEPTH, read_screen
from .shown import Hidden, shown_flags, why_hidden
from .signature import fingerprint_json, fingerprint_rows

__all__ = [
    "DEFAULT_SCREEN_SIZE",
    "MAX_ELEMENTS",
    "MAX_TREE_DEPTH",
    "Element",
    "Frame",
    "Hidden",
    "Screen",
    "similarity",
]

_ROLE, _LABEL = itemgetter(0), itemgetter(1)


@attrs.frozen
class Screen:
    """One read of the accessibility tree: the app in front and its elements, depth first.

    ``size`` is the screen size in points; it turns normalized frames back into points for the
    read fingerprint (frames rounded to 1 pt).
    """

    app: str
    elements: tuple[Element, ...] = ()
    size: tuple[int, int] = DEFAULT_SCREEN_SIZE

    def __attrs_post_init__(self) -> None:
        # Rule 9, checked once for the whole read: the common case costs one join and one encode.
        texts = [self.app]
        for e in self.elements:
            texts += (e.role, e.label, e.identifier, e.value, e.placeholder, e.path)
        try:
            "".join(texts).encode("utf-8")
        except UnicodeEncodeError:
            object.__setattr__(self, "app", valid_text(self.app))
            object.__setattr__(self, "elements", tuple(_valid_element(e) for e in self.elements))
        if not {e.role for e in self.elements} <= ROLES:  # Rule 10: one spelling of every role
            elements = tuple(
                e if e.role in ROLES else attrs.evolve(e, role=canonical_role(e.role)) for e in self.elements
            )
            object.__setattr__(self, "elements", elements)

    @cached_property
    def shown(self) -> tuple[Element, ...]:
        """The elements that count as shown (Rule 7), in tree order."""
        return tuple(compress(self.elements, shown_flags(self.elements)))

    @cached_property
    def hidden(self) -> tuple[Hidden | None, ...]:
        """For each element, in tree order: None when it counts as shown (Rule 7), else why not (Rule 11)."""
        flags = shown_flags(self.elements)
        return tuple(None if ok else why_hidden(e) for e, ok in zip(self.elements, flags, strict=True))

    @cached_property
    def shown_paths(self) -> frozenset[str]:
        """The tree paths of the shown elements."""
        return frozenset(e.path for e in self.shown)

    def is_shown(self, element: Element) -> bool:
        """Does ``element`` (one of this screen's) count as shown (Rule 7)?"""
        return element.path in self.shown_paths and self.element_at(element.path) == element

    @cached_property
    def signature_pairs(self) -> tuple[tuple[str, str], ...]:
        """The signature as sorted ``(role, label)`` tuples (Rule 3)."""
        pairs = {(e.role, e.label) for e in self.shown if e.label}
        # Two stable sorts of strings, by label then by role, give the order of the tuples (role,
        # then label) without comparing tuples: the same order, fewer and cheaper comparisons.
        return tuple(sorted(sorted(pairs, key=_LABEL), key=_ROLE))

    @cached_property
    def signature_set(self) -> frozenset[tuple[str, str]]:
        """The signature as a set, for similarity."""
        return frozenset(self.signature_pairs)

    @property
    def signature(self) -> list[list[str]]:
        """The signature as JSON-ready ``[role, label]`` lists, sorted (Rule 3)."""
        return [list(p) for p in self.signature_pairs]

    @cached_property
    def hash(self) -> str:
        """16 hex digits of SHA-256 over the canonical JSON of the signature (Rule 4)."""
        return pairs_digest(self.signature_pairs, 16)  # signature_hash's digest, byte for byte

    @cached_property
    def fingerprint(self) -> str:
        """A digest of everything the read returned, frames rounded to whole points (Rule 5)."""
        width, height = self.size
        try:
            text = fingerprint_json(self.app, self.elements, width, height)
        except (TypeError, KeyError):  # a value the writer leaves to the encoder (canon's Rule 5)
            return digest([self.app, fingerprint_rows(self.elements, width, height)], 32)
        return text_digest(text, 32)

    def find(self, role: str, label: str) -> list[Element]:
        """The shown elements (Rule 7) with exactly this role and label (no partial labels)."""
        return [e for e in self.shown if e.role == role and e.label == label]

    @cached_property
    def _by_path(self) -> dict[str, Element]:
        out: dict[str, Element] = {}
        for e in self.elements:
            out.setdefault(e.path, e)
        return out

    def element_at(self, path: str) -> Element | None:
        """The element at a tree path, or None."""
        return self._by_path.get(path)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Screen:
        """Build a screen from ``{"app": …, "elements": [...], "size": [w, h]}``.

        Each element takes ``role`` (required) and optionally ``label``, ``id``, ``value``,
        ``frame``, ``enabled``, ``visible``, ``selected``, ``placeholder`` and ``children``. The listed elements are
        the children of the app's root element ``/0``. Raises ``ValueError`` naming the key.
        """
        app, elements, size = read_screen(data)
        return cls(app=app, elements=elements, size=size)


def _valid_element(e: Element) -> Element:
    return attrs.evolve(
        e,
        role=valid_text(e.role),
        label=valid_text(e.label),
        identifier=valid_text(e.identifier),
        value=valid_text(e.value),
        placeholder=valid_text(e.placeholder),
        path=valid_text(e.path),
    )


def similarity(a: Screen | Iterable[Sequence[str]], b: Screen | Iterable[Sequence[str]]) -> float:
    """The Jaccard index of two signatures as sets, 0.0..1.0; two empty signatures are 1.0 alike."""
    sa = a.signature_set if isinstance(a, Screen) else frozenset((p[0], p[1]) for p in a)
    sb = b.signature_set if isinstance(b, Screen) else frozenset((p[0], p[1]) for p in b)
    union = len(sa | sb)
    if union == 0:
        return 1.0
    return len(sa & sb) / union
