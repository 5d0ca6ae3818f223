"""Screens: one read of the accessibility tree plus the bundle id of the app in front.

Rule 1: an element's ``frame`` is ``(x, y, w, h)`` normalized to the screen, each in 0..1.
Rule 2: an element's ``path`` is its index path in the tree. The app's root element is ``/0``;
        its first child is ``/0/0``; the second child of its third child is ``/0/2/1``.
Rule 3: the *signature* is the sorted list of unique ``[role, label]`` pairs of the *shown*
        elements with a non-empty label (Rule 7). Frames and values are not part of it.
Rule 4: the *screen hash* is the first 16 hex digits of SHA-256 over the canonical JSON of the
        signature.
Rule 5: the *read fingerprint* covers everything a read returned (the app, and each element's
        path, role, label, identifier, value, enabled, visible, selected and frame rounded to
        whole points, and the placeholder when there is one). Two reads in a row *agree* when their
        fingerprints are equal.
Rule 6: the similarity of two screens is the Jaccard index of their signatures as sets; two
        empty signatures are 1.0 alike.
Rule 7: an element is *shown* when, judged on the element alone: it is visible itself (an
        ancestor's visibility is not inherited: SwiftUI reports a Form's or List's collection view
        as not visible while its rows show, and a descendant's isn't either: a visible Cancel
        button whose text WDA reports hidden is shown, as WDA's own rule has it); its frame
        overlaps the screen with positive area; it is not the Application or a Window; and it is
        not an unlabelled, unidentified Switch nested inside a Switch (a SwiftUI Toggle reports
        as two switches). An element whose frame is all zeros has no geometry to judge (a screen
        written by hand leaves frames out); a driver always gives frames. This one rule decides
        the signature (Rule 3), the matcher's targets (:meth:`Screen.find`) and what the
        assertions see.
Rule 8: ``placeholder`` is the text a field shows while it is empty; a driver reads such a field
        with ``value`` "" (WDA reports the placeholder as the value of an empty field).
Rule 9: a screen's text is valid Unicode: a lone surrogate from the device (an app that cut a
        label in the middle of an emoji) reads as U+FFFD (``_text.py``, Rule 1).
Rule 10: a role has one spelling (``roles.py``): ``XCUIElementTypeButton`` and ``button`` from a
        driver are ``Button`` on the screen, so no rule (the signature, the matcher, the
        assertions, safety) is fooled by a driver's spelling.
Rule 11: why an element isn't shown (:attr:`Screen.hidden`, a :class:`Hidden`) is the first
        clause of Rule 7 it fails, in the rule's order: not visible, zero size or off screen (its
        frame), a container, the inner switch of a Toggle, else its content all hidden. Rule 7
        alone decides *whether* it is shown; the reason is given only for an element it hid, so
        a tool that explains the screen (``mobster inspect``) says what the rule decided.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import compress
from json.encoder import encode_basestring
from operator import itemgetter
from typing import Any

import attrs

from mobster_core._rules.formats.canon import digest, pairs_digest, text_digest
from mobster_core._rules.formats.text import valid_text

from .roles import ROLES, canonical_role

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

Frame = tuple[float, float, float, float]

#: The screen size in points used when a read does not say (an iPhone 15/16/17 Pro).
DEFAULT_SCREEN_SIZE: tuple[int, int] = (402, 874)

_ELEMENT_KEYS = ("role", "label", "id", "value", "frame", "enabled", "visible", "selected", "placeholder", "children")
#: Elements that are never shown themselves: the screen's containers (Rule 7).
_CONTAINER_ROLES = frozenset({"Application", "Window"})
_NO_FRAME: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
_ROLE, _LABEL = itemgetter(0), itemgetter(1)


class Hidden(enum.StrEnum):
    """Why an element doesn't count as shown: the first clause of Rule 7 it fails (Rule 11)."""

    NOT_VISIBLE = "not visible"  # the device says the element itself isn't visible
    ZERO_SIZE = "zero size"  # its frame has no width or no height
    OFF_SCREEN = "off screen"  # its frame doesn't overlap the screen
    CONTAINER = "container"  # the Application or a Window: never shown itself
    INNER_SWITCH = "inner switch"  # the unlabelled inner Switch of a SwiftUI Toggle

    @property
    def why(self) -> str:
        """The reason in words, for a person."""
        return _HIDDEN_WHY[self]


_HIDDEN_WHY = {
    Hidden.NOT_VISIBLE: "the phone reports it not visible",
    Hidden.ZERO_SIZE: "its frame has no width or no height",
    Hidden.OFF_SCREEN: "its frame is off the screen",
    Hidden.CONTAINER: "the Application and its Windows are never shown themselves",
    Hidden.INNER_SWITCH: "the unlabelled inner switch of a Toggle (the Toggle itself counts)",
}


@attrs.frozen
class Element:
    """One element of the accessibility tree.

    ``role`` is the XCUIElementType name without its prefix (``Button``, ``StaticText``, …).
    ``visible`` is what the device says of the element itself; whether it counts as shown is
    :meth:`Screen.is_shown` (module Rule 7). ``placeholder`` is the text an empty field shows.
    """

    role: str
    label: str = ""
    identifier: str = ""
    value: str = ""
    frame: Frame = (0.0, 0.0, 0.0, 0.0)
    enabled: bool = True
    visible: bool = True
    selected: bool = False
    path: str = "/0/0"
    placeholder: str = ""

    @property
    def center(self) -> tuple[float, float]:
        """The centre of the frame, normalized (0..1 on each axis)."""
        x, y, w, h = self.frame
        return (x + w / 2, y + h / 2)

    @property
    def pair(self) -> tuple[str, str]:
        """The ``(role, label)`` pair this element adds to a signature."""
        return (self.role, self.label)


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
        return tuple(compress(self.elements, _shown_flags(self.elements)))

    @cached_property
    def hidden(self) -> tuple[Hidden | None, ...]:
        """For each element, in tree order: None when it counts as shown (Rule 7), else why not (Rule 11)."""
        flags = _shown_flags(self.elements)
        return tuple(None if ok else _why_hidden(e) for e, ok in zip(self.elements, flags, strict=True))

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
            text = _fingerprint_json(self.app, self.elements, width, height)
        except (TypeError, KeyError):  # a value the writer leaves to the encoder (canon's Rule 5)
            return digest([self.app, _fingerprint_rows(self.elements, width, height)], 32)
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
        if not isinstance(data, Mapping):
            raise ValueError(f"a screen is a mapping with 'app' and 'elements', not {type(data).__name__}")
        extra = sorted(set(data) - {"app", "elements", "size"})
        if extra:
            raise ValueError(f"screen: unknown key {extra[0]!r} (keys: app, elements, size)")
        app = data.get("app")
        if not isinstance(app, str) or not app:
            raise ValueError("screen.app: expected the bundle id of the app in front, a non-empty string")
        raw = data.get("elements", [])
        if not isinstance(raw, Sequence) or isinstance(raw, str):
            raise ValueError("screen.elements: expected a list of elements")
        size = _size(data.get("size", list(DEFAULT_SCREEN_SIZE)))
        out: list[Element] = []
        _flatten(raw, "/0", "elements", out)
        return cls(app=app, elements=tuple(out), size=size)


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


def signature_hash(pairs: Iterable[Sequence[str]]) -> str:
    """The screen hash of a signature given as ``(role, label)`` pairs, in the given order."""
    return digest([list(p) for p in pairs], 16)


def similarity(a: Screen | Iterable[Sequence[str]], b: Screen | Iterable[Sequence[str]]) -> float:
    """The Jaccard index of two signatures as sets, 0.0..1.0; two empty signatures are 1.0 alike."""
    sa = a.signature_set if isinstance(a, Screen) else frozenset((p[0], p[1]) for p in a)
    sb = b.signature_set if isinstance(b, Screen) else frozenset((p[0], p[1]) for p in b)
    union = len(sa | sb)
    if union == 0:
        return 1.0
    return len(sa & sb) / union


def _size(value: Any) -> tuple[int, int]:
    if (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        return (int(value[0]), int(value[1]))
    raise ValueError("screen.size: expected [width, height] in whole points, both above 0")


#: The deepest tree and the most elements a screen may have (WDA reads stop at depth 60).
MAX_TREE_DEPTH = 100
MAX_ELEMENTS = 20_000


def _flatten(raw: Sequence[Any], parent: str, where: str, out: list[Element]) -> None:
    if parent.count("/") > MAX_TREE_DEPTH:
        raise ValueError(f"screen.{where}: the tree is deeper than {MAX_TREE_DEPTH} levels")
    if len(out) + len(raw) > MAX_ELEMENTS:
        raise ValueError(f"screen.{where}: a screen has at most {MAX_ELEMENTS} elements")
    for index, item in enumerate(raw):
        key = f"{where}[{index}]"
        if not isinstance(item, Mapping):
            raise ValueError(f"screen.{key}: expected a mapping with at least 'role'")
        extra = sorted(set(item) - set(_ELEMENT_KEYS))
        if extra:
            raise ValueError(f"screen.{key}: unknown key {extra[0]!r} (keys: {', '.join(_ELEMENT_KEYS)})")
        path = f"{parent}/{index}"
        out.append(
            Element(
                role=_text(item, "role", key, required=True),
                label=_text(item, "label", key),
                identifier=_text(item, "id", key),
                value=_text(item, "value", key),
                frame=frame_from(item.get("frame", (0.0, 0.0, 0.0, 0.0)), f"screen.{key}.frame"),
                enabled=_flag(item, "enabled", key, default=True),
                visible=_flag(item, "visible", key, default=True),
                selected=_flag(item, "selected", key, default=False),
                path=path,
                placeholder=_text(item, "placeholder", key),
            )
        )
        children = item.get("children", [])
        if not isinstance(children, Sequence) or isinstance(children, str):
            raise ValueError(f"screen.{key}.children: expected a list of elements")
        _flatten(children, path, f"{key}.children", out)


def _parent_path(path: str) -> str | None:
    head, sep, _ = path.rpartition("/")
    return head if sep and head else None


def _overlaps_screen(frame: Frame) -> bool:
    """Does ``frame`` overlap the unit screen with positive area?

    ``min(x + w, 1) - max(x, 0) > 0`` on each axis, written as the comparisons it amounts to (a
    difference of two floats is above 0 exactly when the first is the greater; NaN is never).
    """
    x, y, w, h = frame
    right = x + w
    if not (right > x and right > 0.0 and x < 1.0):
        return False
    bottom = y + h
    return bottom > y and bottom > 0.0 and y < 1.0


def _why_hidden(e: Element) -> Hidden:
    """Rule 11: the first clause of Rule 7 that ``e``, which Rule 7 hid, fails."""
    if not e.visible:
        return Hidden.NOT_VISIBLE
    if e.frame != _NO_FRAME and not _overlaps_screen(e.frame):
        return Hidden.ZERO_SIZE if e.frame[2] <= 0 or e.frame[3] <= 0 else Hidden.OFF_SCREEN
    if e.role in _CONTAINER_ROLES:
        return Hidden.CONTAINER
    return Hidden.INNER_SWITCH  # the one clause of Rule 7 left: the unlabelled switch inside a Switch


def _fingerprint_rows(elements: Sequence[Element], width: int, height: int) -> list[list[object]]:
    """Rule 5's row of each element, for the JSON encoder."""
    return [
        [
            e.path,
            e.role,
            e.label,
            e.identifier,
            e.value,
            e.enabled,
            e.visible,
            e.selected,
            round(e.frame[0] * width),
            round(e.frame[1] * height),
            round(e.frame[2] * width),
            round(e.frame[3] * height),
            # Only when set, so a screen without placeholders keeps the digest it always had.
            *([e.placeholder] if e.placeholder else []),
        ]
        for e in elements
    ]


#: Whole points as JSON writes them, for the frames of a screen up to this size (canon's Rule 5).
_POINTS = {n: str(n) for n in range(4096)}


def _fingerprint_json(app: str, elements: Sequence[Element], width: int, height: int) -> str:
    """The canonical JSON of ``[app, _fingerprint_rows(...)]``, written directly (canon's Rule 5).

    Raises TypeError or KeyError for what it leaves to the encoder: text that isn't a string, a
    flag that isn't a bool, a frame that isn't floats (``float.__round__`` is ``round`` without
    the builtin's look-up), a point outside ``_POINTS``. A frame that can't be rounded (NaN, an
    infinity) raises what ``round`` raises.
    """
    text = encode_basestring
    points = _POINTS
    to_int = float.__round__
    rows: list[str] = []
    add = rows.append
    for e in elements:
        enabled, visible, selected = e.enabled, e.visible, e.selected
        if enabled.__class__ is not bool or visible.__class__ is not bool or selected.__class__ is not bool:
            raise TypeError(e)
        x, y, w, h = e.frame
        add(
            f"[{text(e.path)},{text(e.role)},{text(e.label)},{text(e.identifier)},{text(e.value)},"
            f"{'true' if enabled else 'false'},{'true' if visible else 'false'},{'true' if selected else 'false'},"
            f"{points[to_int(x * width)]},{points[to_int(y * height)]},"
            f"{points[to_int(w * width)]},{points[to_int(h * height)]}"
            f"{',' + text(e.placeholder) if e.placeholder else ''}]"
        )
    return f"[{text(app)},[{','.join(rows)}]]"


def _shown_flags(elements: Sequence[Element]) -> list[bool]:
    """Rule 7 for every element, in order, in one pass over the read.

    Only an unlabelled, unidentified Switch asks about its ancestors (the inner switch of a
    Toggle); the map of paths it needs is built the first time one is met, so a read without one
    never builds it.
    """
    flags: list[bool] = []
    containers = _CONTAINER_ROLES
    overlaps = _overlaps_screen
    switch_above: Callable[[str], bool] | None = None
    for e in elements:
        role = e.role
        if not e.visible or role in containers:
            flags.append(False)
            continue
        frame = e.frame
        if not overlaps(frame) and frame != _NO_FRAME:
            flags.append(False)
        elif role == "Switch" and not e.label and not e.identifier:
            if switch_above is None:
                switch_above = _switch_ancestry(elements)
            flags.append(not switch_above(e.path))  # the inner switch of a SwiftUI Toggle is hidden
        else:
            flags.append(True)
    return flags


def _switch_ancestry(elements: Sequence[Element]) -> Callable[[str], bool]:
    """Does a path have a Switch among its ancestors?

    Ancestors are looked up by path (the last element at a path says its role); memoized by path,
    walked without recursion.
    """
    roles = {e.path: e.role for e in elements}
    under_switch: dict[str, bool] = {}

    def switch_above(path: str) -> bool:
        chain: list[str] = []
        parent = _parent_path(path)
        answer = False
        while parent is not None:
            if roles.get(parent) == "Switch":
                answer = True
                break
            if parent in under_switch:
                answer = under_switch[parent]
                break
            chain.append(parent)
            parent = _parent_path(parent)
        for seen in chain:
            under_switch[seen] = answer
        return answer

    return switch_above


def _text(item: Mapping[str, Any], name: str, where: str, *, required: bool = False) -> str:
    value = item.get(name)
    if value is None:
        if required:
            raise ValueError(f"screen.{where}.{name}: required, a string")
        return ""
    if not isinstance(value, str):
        raise ValueError(f"screen.{where}.{name}: expected a string, got {value!r}")
    if required and not value:
        raise ValueError(f"screen.{where}.{name}: must not be empty")
    return value


def _flag(item: Mapping[str, Any], name: str, where: str, *, default: bool) -> bool:
    value = item.get(name, default)
    if not isinstance(value, bool):
        raise ValueError(f"screen.{where}.{name}: expected true or false, got {value!r}")
    return value


def frame_from(value: Any, where: str) -> Frame:
    """Validate a normalized frame ``[x, y, w, h]``: four numbers, each in 0..1."""
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 4:
        nums: list[float] = []
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                break
            if not 0.0 <= v <= 1.0:
                break
            nums.append(float(v))
        else:
            return (nums[0], nums[1], nums[2], nums[3])
    raise ValueError(f"{where}: expected [x, y, w, h], four numbers each in 0..1, got {value!r}")
