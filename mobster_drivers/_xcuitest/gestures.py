r"""What an action is on an XCUITest phone, in points: one plan for the WDA and Appium devices.

Pure: no I/O. Each device turns a :class:`Gesture` into its own requests (WDA's endpoints, or
Appium's ``mobile:`` commands); what the gesture is, where it lands and how it is named in
messages is decided here, once.

Rule 1 (points): ``TAP``, ``LONG_PRESS`` and ``TYPE`` act at the centre of the element's frame
        (from the latest read, the current screen), in points on the latest read's screen size, in
        0.5 pt steps, inside the screen (:func:`center_points`).
Rule 2 (presses): a tap holds the finger :data:`W3C_TAP_HOLD_MS`, a long press
        :data:`LONG_PRESS_MS`. ``TYPE`` taps the field first (to focus it; named "focusing …" in
        messages), then types its text into the focused field; ``SUBMIT`` types ``"\n"``.
Rule 3 (swipes): a swipe runs from 75% to 25% of its region (the element's frame, else the whole
        screen) along its axis, through the region's centre, in :data:`SWIPE_SECONDS`
        (:func:`swipe_points`): ``SWIPE_UP`` moves the finger up, as XCTest's ``swipeUp``.
Rule 4 (the system): ``HOME``, and ``LAUNCH_APP`` of SpringBoard, press the home button;
        another ``LAUNCH_APP`` activates its app; ``OPEN_URL`` opens its URL.
Rule 5 (names): an action is named in messages by :func:`describe_action`.
Rule 6 (the keyboard): ``DISMISS_KEYBOARD`` hides the keyboard: WDA's ``/wda/keyboard/dismiss`` (and
        Appium's ``mobile: hideKeyboard``, which calls it) with :data:`KEYBOARD_KEYS`, the names of
        the keys that hide it. On an iPhone WDA taps no key of its own (only an iPad's hide key), so
        the names are what makes it work there: the keyboard's own hide, done or return key. A
        return key that sends, posts or joins is never among them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import attrs

from mobster_core import Action, DeviceError, Op
from mobster_core.protocols import SPRINGBOARD, Frame

__all__ = [
    "KEYBOARD_KEYS",
    "LONG_PRESS_MS",
    "SWIPE_SECONDS",
    "W3C_TAP_HOLD_MS",
    "Gesture",
    "Move",
    "center_points",
    "describe_action",
    "gesture",
    "pointer_actions",
    "swipe_points",
]

#: How long a tap holds the finger down, in milliseconds (as Mobster's W3C tap).
W3C_TAP_HOLD_MS = 40
#: How long a long press holds, in milliseconds.
LONG_PRESS_MS = 1_000
#: Rule 6: the keys that hide the keyboard, by label or identifier, tried in this order by WDA.
KEYBOARD_KEYS = ("Hide keyboard", "Done", "done", "Return", "return")
#: How long a swipe's drag lasts, in seconds (XCTest's drag, as Mobster's default swipe).
SWIPE_SECONDS = 0.1


class Move(enum.Enum):
    """What a gesture does on the phone (the module rules)."""

    PRESS = "press"  # a tap, a long press, or the tap that focuses a field (Rules 1, 2)
    KEYS = "keys"  # typing into the focused field only (SUBMIT)
    SWIPE = "swipe"
    HOME = "home"
    ACTIVATE = "activate"
    OPEN_URL = "open_url"
    DISMISS_KEYBOARD = "dismiss_keyboard"


@attrs.frozen
class Gesture:
    """One action as the phone sees it, in points (the module rules).

    ``what`` names the action in messages. A ``PRESS`` is at ``point`` for ``hold_ms``, named
    ``press_what``; ``keys`` is the text typed after it (``TYPE``) or alone (``SUBMIT``), else None.
    A ``SWIPE`` runs ``swipe`` = ``(from_x, from_y, to_x, to_y)``. ``ACTIVATE`` and ``OPEN_URL``
    carry their bundle or URL in ``target``.
    """

    move: Move
    what: str
    point: tuple[float, float] = (0.0, 0.0)
    hold_ms: int = 0
    press_what: str = ""
    keys: str | None = None
    swipe: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    target: str = ""

    @property
    def long(self) -> bool:
        """A long press (Rule 2)."""
        return self.move is Move.PRESS and self.hold_ms >= LONG_PRESS_MS


def gesture(action: Action, size: Callable[[], tuple[int, int]]) -> Gesture:
    """The gesture of ``action``; ``size`` gives the screen's size in points, asked only when needed."""
    op, element, what = action.op, action.element, describe_action(action)
    if op in (Op.TAP, Op.LONG_PRESS, Op.TYPE):
        assert element is not None  # Action refuses these without an element
        press_what = f"focusing {element.role} {element.label!r} to type" if op is Op.TYPE else what
        hold = LONG_PRESS_MS if op is Op.LONG_PRESS else W3C_TAP_HOLD_MS
        keys = (action.text or "") if op is Op.TYPE else None
        point = center_points(element.frame, size())
        return Gesture(Move.PRESS, what, point=point, hold_ms=hold, press_what=press_what, keys=keys)
    if op in (Op.SUBMIT, Op.DISMISS_KEYBOARD):  # the keyboard's: its return key, or hiding it (Rule 6)
        return Gesture(Move.KEYS, what, keys="\n") if op is Op.SUBMIT else Gesture(Move.DISMISS_KEYBOARD, what)
    if op.is_swipe:
        return Gesture(Move.SWIPE, what, swipe=swipe_points(op, None if element is None else element.frame, size()))
    if op is Op.HOME or (op is Op.LAUNCH_APP and action.text == SPRINGBOARD):
        return Gesture(Move.HOME, what)
    if op is Op.LAUNCH_APP:
        return Gesture(Move.ACTIVATE, what, target=action.text or "")
    if op is Op.OPEN_URL:
        return Gesture(Move.OPEN_URL, what, target=action.text or "")
    if op is Op.BACK:  # nothing is sent: an iPhone has no system back button
        raise DeviceError("BACK is Android's system back button; an iPhone has none (tap the app's own Back)")
    raise ValueError(f"{op} is not something an XCUITest phone can do")  # pragma: no cover - every Op is above


def describe_action(action: Action) -> str:
    """``TAP on Button 'Continue'``, ``typing into TextField 'Email'``, ``LAUNCH_APP com.example.app``."""
    element = action.element
    if element is not None:
        target = f"{element.role} {element.label!r}" if element.label else f"{element.role} at {element.path}"
        if action.op is Op.TYPE:
            return f"typing into {target}"
        return f"{action.op.value} on {target}"
    if action.text is not None and action.op is not Op.TYPE:
        return f"{action.op.value} {action.text}"
    return action.op.value


def center_points(frame: Frame, size: tuple[int, int]) -> tuple[float, float]:
    """The centre of a normalized frame in points on a screen of ``size`` points (0.5 pt steps)."""
    x, y, w, h = frame
    width, height = size
    return (_half(min(width - 1.0, (x + w / 2) * width)), _half(min(height - 1.0, (y + h / 2) * height)))


def _half(value: float) -> float:
    return max(0.0, round(value * 2) / 2)


def pointer_actions(x: float, y: float, hold_ms: int) -> dict[str, Any]:
    """A W3C actions body: one finger moves to (x, y) points, goes down, holds, and lifts."""
    return {
        "actions": [
            {
                "type": "pointer",
                "id": "finger1",
                "parameters": {"pointerType": "touch"},
                "actions": [
                    {"type": "pointerMove", "duration": 0, "x": x, "y": y},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pause", "duration": hold_ms},
                    {"type": "pointerUp", "button": 0},
                ],
            }
        ]
    }


def swipe_points(op: Op, frame: Frame | None, size: tuple[int, int]) -> tuple[float, float, float, float]:
    """Where a swipe starts and ends, in points: ``(from_x, from_y, to_x, to_y)`` (Rule 3)."""
    x, y, w, h = frame if frame is not None else (0.0, 0.0, 1.0, 1.0)
    cx, cy = x + w / 2, y + h / 2
    near_x, far_x = x + 0.25 * w, x + 0.75 * w
    near_y, far_y = y + 0.25 * h, y + 0.75 * h
    ends = {
        Op.SWIPE_UP: (cx, far_y, cx, near_y),
        Op.SWIPE_DOWN: (cx, near_y, cx, far_y),
        Op.SWIPE_LEFT: (far_x, cy, near_x, cy),
        Op.SWIPE_RIGHT: (near_x, cy, far_x, cy),
    }
    if op not in ends:
        raise ValueError(f"{op} is not a swipe")
    fx, fy, tx, ty = ends[op]
    width, height = size
    return (_half(fx * width), _half(fy * height), _half(tx * width), _half(ty * height))
