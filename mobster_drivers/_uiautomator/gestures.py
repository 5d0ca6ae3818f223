"""What an Android action is on the wire, pure: a W3C pointer body, an element's point in pixels.

Rule 1: a tap, a long press or a swipe is one touch pointer (``finger1``): a move to its start, a
        press, a pause of ``hold_ms`` (a tap, a long press) or a move of that duration to its end
        (a swipe), a release. Both the UiAutomator2 server (``POST /actions``) and Appium's
        UiAutomator2 driver take it as W3C defines it.
Rule 2: an element's point is its centre, in the window's pixels (the tree's frames are fractions
        of the window), rounded to the nearest pixel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mobster_core import Element

__all__ = ["pixels", "pointer"]


def pointer(start: tuple[int, int], end: tuple[int, int], hold_ms: int) -> dict[str, Any]:
    """Rule 1: a W3C actions body: one touch pointer down at ``start``, held, moved to ``end``, up."""
    steps: list[dict[str, Any]] = [
        {"type": "pointerMove", "duration": 0, "x": start[0], "y": start[1], "origin": "viewport"},
        {"type": "pointerDown", "button": 0},
    ]
    if start == end:
        steps.append({"type": "pause", "duration": hold_ms})
    else:
        steps.append({"type": "pointerMove", "duration": hold_ms, "x": end[0], "y": end[1], "origin": "viewport"})
    steps.append({"type": "pointerUp", "button": 0})
    return {"actions": [{"type": "pointer", "id": "finger1", "parameters": {"pointerType": "touch"}, "actions": steps}]}


def pixels(element: Element, size: tuple[int, int]) -> tuple[int, int]:
    """Rule 2: ``element``'s centre in a window of ``size`` pixels."""
    x, y = element.center
    return (round(x * size[0]), round(y * size[1]))
