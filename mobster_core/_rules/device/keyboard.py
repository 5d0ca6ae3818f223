"""The on-screen keyboard: where it is, and whether it covers a step's target.

Rule 1: the keyboard is the first shown ``Keyboard`` element of a read (``XCUIElementTypeKeyboard``:
        WDA's source and the scripted phone show it while a text field has the focus).
Rule 2: a target is covered when the centre of its frame (where a tap lands) lies inside the
        keyboard's frame and the target is not part of the keyboard itself (its keys).
Rule 3: a covered target is no match on that read: the step waits, and drifts with the reason
        "the keyboard covers “Continue”" (:func:`covers_reason`). The fix is a ``DISMISS_KEYBOARD``
        step (or ``SUBMIT``) before it.
"""

from __future__ import annotations

from mobster_core._rules.formats.text import escape_controls
from mobster_core._rules.vocabulary.screen import Element, Frame, Screen

__all__ = ["covered_by_keyboard", "covers_reason", "keyboard_of"]


def keyboard_of(screen: Screen) -> Element | None:
    """Rule 1: the keyboard shown on ``screen``, or None."""
    return next((e for e in screen.elements if e.role == "Keyboard" and screen.is_shown(e)), None)


def covered_by_keyboard(screen: Screen, element: Element) -> bool:
    """Rule 2: does the keyboard of ``screen`` cover ``element``?"""
    keyboard = keyboard_of(screen)
    if keyboard is None or element.path == keyboard.path or element.path.startswith(keyboard.path + "/"):
        return False
    return _inside(element.center, keyboard.frame)


def _inside(point: tuple[float, float], frame: Frame) -> bool:
    x, y, w, h = frame
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def covers_reason(element: Element) -> str:
    """Rule 3: ``the keyboard covers “Continue”``."""
    label = escape_controls(element.label or element.identifier or f"{element.role} at {element.path}")
    return f"the keyboard covers “{label[:120]}”"
