"""What the WDA and Appium devices both decide: an action's gesture in points, and what a reply must be."""

from __future__ import annotations

import base64
import re

import pytest

from mobster_core import Action, DeviceError, Element, Op
from mobster_core.protocols import SPRINGBOARD
from mobster_drivers._xcuitest import replies
from mobster_drivers._xcuitest.gestures import LONG_PRESS_MS, W3C_TAP_HOLD_MS, Move, gesture

FIELD = Element(role="TextField", label="Email", frame=(0.1, 0.2, 0.8, 0.05), path="/0/1")
BUTTON = Element(role="Button", label="Continue", frame=(0.1, 0.8, 0.8, 0.06), path="/0/2")
SIZE = (400, 800)


def size() -> tuple[int, int]:
    return SIZE


def never() -> tuple[int, int]:
    raise AssertionError("the screen's size is asked only for a gesture that needs it")


def test_a_tap_presses_the_centre_of_its_element_briefly() -> None:
    move = gesture(Action(Op.TAP, element=BUTTON), size)
    assert (move.move, move.point, move.hold_ms, move.keys, move.long) == (
        Move.PRESS,
        (200.0, 664.0),
        W3C_TAP_HOLD_MS,
        None,
        False,
    )
    assert move.what == move.press_what == "TAP on Button 'Continue'"


def test_a_long_press_holds_a_second() -> None:
    move = gesture(Action(Op.LONG_PRESS, element=BUTTON), size)
    assert (move.move, move.hold_ms, move.long) == (Move.PRESS, LONG_PRESS_MS, True)


def test_typing_focuses_the_field_with_a_tap_then_types_its_text() -> None:
    move = gesture(Action(Op.TYPE, element=FIELD, text="ada@example.com"), size)
    assert (move.move, move.point, move.hold_ms, move.keys) == (Move.PRESS, (200.0, 180.0), 40, "ada@example.com")
    assert move.press_what == "focusing TextField 'Email' to type"
    assert move.what == "typing into TextField 'Email'"


def test_submit_types_a_return_and_nothing_else() -> None:
    move = gesture(Action(Op.SUBMIT), never)
    assert (move.move, move.keys, move.what) == (Move.KEYS, "\n", "SUBMIT")


def test_a_swipe_runs_from_three_quarters_to_a_quarter_of_its_region() -> None:
    assert gesture(Action(Op.SWIPE_UP), size).swipe == (200.0, 600.0, 200.0, 200.0)
    assert gesture(Action(Op.SWIPE_LEFT, element=BUTTON), size).swipe == (280.0, 664.0, 120.0, 664.0)


def test_the_system_moves_need_no_screen() -> None:
    assert gesture(Action(Op.HOME), never).move is Move.HOME
    assert gesture(Action(Op.LAUNCH_APP, text=SPRINGBOARD), never).move is Move.HOME
    launch = gesture(Action(Op.LAUNCH_APP, text="com.example.app"), never)
    assert (launch.move, launch.target, launch.what) == (Move.ACTIVATE, "com.example.app", "LAUNCH_APP com.example.app")
    link = gesture(Action(Op.OPEN_URL, text="yourapp://done"), never)
    assert (link.move, link.target) == (Move.OPEN_URL, "yourapp://done")


def test_a_screenshot_is_base64_of_a_png() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"rest"
    assert replies.screenshot_png(base64.b64encode(png).decode(), "WDA") == png
    with pytest.raises(DeviceError, match="WDA sent a screenshot that is not base64 text"):
        replies.screenshot_png(42, "WDA")
    with pytest.raises(DeviceError, match="WDA sent a screenshot that is not a PNG"):
        replies.screenshot_png(base64.b64encode(b"GIF89a").decode(), "WDA")


def test_a_window_size_is_two_positive_numbers_rounded() -> None:
    assert replies.window_size({"width": 402.4, "height": 874}, "WDA", "a window size") == (402, 874)
    with pytest.raises(DeviceError, match=re.escape("WDA sent a window rect that is not a size: {'width': True")):
        replies.window_size({"width": True, "height": 874}, "WDA", "a window rect")


@pytest.mark.parametrize(
    ("details", "said"),
    [
        ({"isSimulator": True}, True),
        ({"isSimulator": "0"}, False),
        ({"isSimulator": 1}, True),
        ({}, None),
        ({"isSimulator": "yes"}, None),
    ],
)
def test_is_simulator_is_a_flag_or_says_nothing(details: dict[str, object], said: bool | None) -> None:
    assert replies.simulator_flag(details) is said


def test_a_failure_is_worded_the_same_for_every_driver() -> None:
    assert replies.not_answering("WDA at x", "GET /status", "refused", action=None, hint="is it running?") == (
        "WDA at x isn't answering (GET /status: refused): is it running?"
    )
    assert replies.not_answering("WDA at x", "POST /actions", "refused", action="TAP", hint="h").startswith(
        "TAP: nothing was sent. "
    )
    assert replies.unknown_outcome("TAP", "WDA at x", "no complete reply", "POST /actions", "timed out") == (
        "TAP: WDA at x sent no complete reply to POST /actions (timed out); it may or may not have happened, "
        "and it was not sent again"
    )
