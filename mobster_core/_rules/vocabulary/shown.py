"""Shown: whether an element counts as shown, and why it doesn't (the screen's Rules 7 and 11).

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
Rule 11: why an element isn't shown (:attr:`Screen.hidden`, a :class:`Hidden`) is the first
        clause of Rule 7 it fails, in the rule's order: not visible, zero size or off screen (its
        frame), a container, the inner switch of a Toggle, else its content all hidden. Rule 7
        alone decides *whether* it is shown; the reason is given only for an element it hid, so
        a tool that explains the screen (``mobster inspect``) says what the rule decided.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

from .elements import Element, Frame

__all__ = ["Hidden", "shown_flags", "why_hidden"]

#: Elements that are never shown themselves: the screen's containers (Rule 7).
_CONTAINER_ROLES = frozenset({"Application", "Window"})
_NO_FRAME: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


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


def why_hidden(e: Element) -> Hidden:
    """Rule 11: the first clause of Rule 7 that ``e``, which Rule 7 hid, fails."""
    if not e.visible:
        return Hidden.NOT_VISIBLE
    if e.frame != _NO_FRAME and not _overlaps_screen(e.frame):
        return Hidden.ZERO_SIZE if e.frame[2] <= 0 or e.frame[3] <= 0 else Hidden.OFF_SCREEN
    if e.role in _CONTAINER_ROLES:
        return Hidden.CONTAINER
    return Hidden.INNER_SWITCH  # the one clause of Rule 7 left: the unlabelled switch inside a Switch


def shown_flags(elements: Sequence[Element]) -> list[bool]:
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
