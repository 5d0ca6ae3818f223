r"""Taps, W3C actions, typing and gestures: what reaches the scripted phone as an action.

Rule 5: a coordinate tap hits the topmost visible element under the point that does something
        (leads somewhere, or takes typing), else the topmost one; a tap on a text field focuses
        it, and ``/wda/keys`` types into the focused field (nothing happens without one, as on a
        phone). ``"\n"`` submits. (Launches and buttons, the rest of Rule 5, are ``apps``'s.)
Rule 13: gestures without an id act on the app (``/wda/tap``: ``x``/``y`` from the screen's
         corner; with an id, from the element's; neither: its middle); a double tap, a
         two-finger tap and ``tapWithNumberOfTaps`` are one tap to the scripted phone, a force
         touch a long press, a scroll the opposite swipe; a pinch, a rotation and ``scrollTo``
         are carried out and change nothing (no app script answers them). Typing into an
         element gives it the keyboard focus first, as ``fb_typeText`` does; one that can't take
         it is 400 ``invalid element state``. (The element cache, the rest of Rule 13, is
         ``state``'s.)

Routes (appium-webdriveragent 16.12.9, ``Commands/FB<name>Commands.m:line``):

    ``POST /actions`` (FBTouchAction:24); ``POST /element/:uuid/clear`` (FBElement:66);
    ``POST /element/:uuid/click`` (FBElement:65); ``POST /element/:uuid/value`` (FBElement:64);
    ``POST /wda/doubleTap`` (FBElement:88); ``POST /wda/dragfromtoforduration`` (FBElement:107);
    ``POST /wda/element/:uuid/doubleTap`` (FBElement:87);
    ``POST /wda/element/:uuid/dragfromtoforduration`` (FBElement:106);
    ``POST /wda/element/:uuid/forceTouch`` (FBElement:112);
    ``POST /wda/element/:uuid/keyboardInput`` (FBCustom:86);
    ``POST /wda/element/:uuid/pinch`` (FBElement:81);
    ``POST /wda/element/:uuid/pressAndDragWithVelocity`` (FBElement:109);
    ``POST /wda/element/:uuid/rotate`` (FBElement:84);
    ``POST /wda/element/:uuid/scroll`` (FBElement:101);
    ``POST /wda/element/:uuid/scrollTo`` (FBElement:104);
    ``POST /wda/element/:uuid/swipe`` (FBElement:78);
    ``POST /wda/element/:uuid/tap`` (FBElement:115);
    ``POST /wda/element/:uuid/tapWithNumberOfTaps`` (FBElement:93);
    ``POST /wda/element/:uuid/touchAndHold`` (FBElement:98);
    ``POST /wda/element/:uuid/twoFingerTap`` (FBElement:90);
    ``POST /wda/forceTouch`` (FBElement:113); ``POST /wda/keys`` (FBElement:120);
    ``POST /wda/pickerwheel/:uuid/select`` (FBElement:118); ``POST /wda/pinch`` (FBElement:82);
    ``POST /wda/pressAndDragWithVelocity`` (FBElement:110); ``POST /wda/rotate`` (FBElement:85);
    ``POST /wda/scroll`` (FBElement:102); ``POST /wda/swipe`` (FBElement:79);
    ``POST /wda/tap`` (FBElement:116); ``POST /wda/tapWithNumberOfTaps`` (FBElement:95);
    ``POST /wda/touchAndHold`` (FBElement:99); ``POST /wda/twoFingerTap`` (FBElement:91).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mobster_core import Action, DeviceError, Element, Op

from .state import Target, Wda
from .table import Routes
from .tree import PREFIX, TEXT_INPUTS
from .wire import WdaFailure, is_number

__all__ = ["ROUTES"]

_LONG_PRESS_MS = 500  # a W3C press held this long or longer is a long press
_SWIPE_MIN_POINTS = 10.0
#: A swipe's direction, as WDA names it, to the phone's op.
_DIRECTIONS = {"up": Op.SWIPE_UP, "down": Op.SWIPE_DOWN, "left": Op.SWIPE_LEFT, "right": Op.SWIPE_RIGHT}

ROUTES = Routes()


@ROUTES.serves("POST", "/actions")
async def _w3c_actions(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    gesture = _read_pointer(body.get("actions"))
    if gesture is None:
        return None  # no pointer: nothing to do
    (x0, y0), (x1, y1), held_ms = gesture
    if math.hypot(x1 - x0, y1 - y0) >= _SWIPE_MIN_POINTS:
        await _swipe(wda, x0, y0, x1, y1)
    else:
        await _tap(wda, x0, y0, Op.LONG_PRESS if held_ms >= _LONG_PRESS_MS else Op.TAP)


@ROUTES.serves("POST", "/wda/keys")
async def _wda_keys(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    value = body.get("value")
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        text = "".join(value)
    else:
        raise WdaFailure(400, "invalid argument", "'value' must be a list of strings")
    await _type(wda, text)


@ROUTES.acts_on("POST", "/element/:uuid/click")
async def _element_click(wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    await _tap(wda, *target.centre, Op.TAP)


@ROUTES.acts_on("POST", "/element/:uuid/value")
async def _element_value(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    value = body.get("value", body.get("text"))
    if value is None:  # FBElementCommands.m:196-237
        raise WdaFailure(400, "invalid argument", "Neither 'value' nor 'text' parameter is provided")
    text = "".join(str(v) for v in value) if isinstance(value, list) else str(value)
    _focus_on(wda, target)
    await _type(wda, text)


@ROUTES.acts_on("POST", "/element/:uuid/clear")
async def _element_clear(wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    element = _typing_target(target)
    try:
        await wda.phone.clear(element)
    except DeviceError as exc:
        raise WdaFailure(400, "invalid element state", str(exc)) from exc


@ROUTES.acts_on("POST", "/wda/element/:uuid/keyboardInput")
async def _keyboard_input(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    keys = body.get("keys")
    if not isinstance(keys, list):  # FBCustomCommands.m:601-645
        raise WdaFailure(400, "invalid argument", "The 'keys' argument must be an array")
    text = ""
    for item in keys:
        key = item.get("key") if isinstance(item, dict) else item
        if not isinstance(key, str):
            raise WdaFailure(
                400, "invalid argument", "All items of the 'keys' array must be either dictionaries or strings"
            )
        text += key
    if target.uuid is not None:
        _focus_on(wda, target)
    await _type(wda, text)


@ROUTES.acts_on("POST", "/wda/tap", "/wda/element/:uuid/tap")
@ROUTES.acts_on("POST", "/wda/doubleTap", "/wda/element/:uuid/doubleTap")
async def _gesture_tap(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await _tap(wda, *_point(target, body), Op.TAP)  # a double tap is one tap to the scripted phone


@ROUTES.acts_on("POST", "/wda/twoFingerTap", "/wda/element/:uuid/twoFingerTap")
async def _two_finger_tap(wda: Wda, target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    await _tap(wda, *target.centre, Op.TAP)


@ROUTES.acts_on("POST", "/wda/tapWithNumberOfTaps", "/wda/element/:uuid/tapWithNumberOfTaps")
async def _numbered_tap(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if body.get("numberOfTaps") is None or body.get("numberOfTouches") is None:
        raise WdaFailure(
            400, "invalid argument", "Both 'numberOfTaps' and 'numberOfTouches' arguments must be provided"
        )
    await _tap(wda, *target.centre, Op.TAP)


@ROUTES.acts_on("POST", "/wda/touchAndHold", "/wda/element/:uuid/touchAndHold")
@ROUTES.acts_on("POST", "/wda/forceTouch", "/wda/element/:uuid/forceTouch")
async def _gesture_hold(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await _tap(wda, *_point(target, body), Op.LONG_PRESS)


@ROUTES.acts_on("POST", "/wda/dragfromtoforduration", "/wda/element/:uuid/dragfromtoforduration")
@ROUTES.acts_on("POST", "/wda/pressAndDragWithVelocity")
async def _gesture_drag(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    x, y, _, _ = target.rect
    fx, fy = _xy(body, "fromX", "fromY")
    tx, ty = _xy(body, "toX", "toY")
    await _swipe(wda, x + fx, y + fy, x + tx, y + ty)


@ROUTES.acts_on("POST", "/wda/element/:uuid/pressAndDragWithVelocity")
async def _drag_to_element(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    to = body.get("toElement")
    destination = wda.resolve(to if isinstance(to, str) else "")
    await _swipe(wda, *target.centre, *destination.centre)


@ROUTES.acts_on("POST", "/wda/swipe", "/wda/element/:uuid/swipe")
async def _gesture_swipe(wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    direction = body.get("direction")
    if not isinstance(direction, str):  # FBElementCommands.m:462-481
        raise WdaFailure(400, "invalid argument", "Missing 'direction' parameter")
    if direction.lower() not in _DIRECTIONS:
        raise WdaFailure(
            400,
            "invalid argument",
            f"Unsupported swipe direction '{direction}'. Only the following directions are supported: "
            "(\n    up,\n    down,\n    left,\n    right\n)",
        )
    _point(target, body)  # x and y come together, or not at all
    await wda.act(Action(_DIRECTIONS[direction.lower()]))


@ROUTES.acts_on("POST", "/wda/scroll", "/wda/element/:uuid/scroll")
async def _gesture_scroll(wda: Wda, _target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    direction = body.get("direction")
    if isinstance(direction, str):  # content scrolls down: the finger swipes up
        swipe = {"up": "down", "down": "up", "left": "right", "right": "left"}.get(direction)
        if swipe is not None:
            await wda.act(Action(_DIRECTIONS[swipe]))
        return
    if any(key in body for key in ("name", "predicateString", "toVisible")):
        return  # the scripted phone's elements are all on its screen: nothing to scroll to
    raise WdaFailure(400, "invalid argument", "Unsupported scroll type")


@ROUTES.acts_on("POST", "/wda/element/:uuid/scrollTo")
@ROUTES.acts_on("POST", "/wda/pinch", "/wda/element/:uuid/pinch")
@ROUTES.acts_on("POST", "/wda/rotate", "/wda/element/:uuid/rotate")
async def _gesture_nothing_follows(_wda: Wda, _target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None  # carried out; no screen of an app script answers a pinch, a rotation or a scroll


@ROUTES.acts_on("POST", "/wda/pickerwheel/:uuid/select")
async def _picker_select(_wda: Wda, target: Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
    kind = PREFIX + str(target.node["type"])
    if kind != "XCUIElementTypePickerWheel":  # FBElementCommands.m:620-624
        raise WdaFailure(
            400,
            "invalid argument",
            f"The element is expected to be a valid Picker Wheel control. '{kind}' was given instead",
        )
    order = str(body.get("order", "")).lower()
    if order not in ("next", "previous"):
        raise WdaFailure(
            400,
            "invalid argument",
            f"Only 'previous' and 'next' order values are supported. '{body.get('order')}' was given instead",
        )
    raise WdaFailure(400, "invalid element state", "The scripted phone's picker wheels have one value")


def _hit(wda: Wda, x: float, y: float) -> tuple[Element, Any] | None:
    screen, nodes = wda.now_screen()
    width, height = wda.script.size
    px, py = x / width, y / height
    hits: list[tuple[Element, Any]] = []
    for element, node in zip(screen.elements, nodes, strict=False):
        fx, fy, fw, fh = element.frame
        if element.visible and fw > 0 and fh > 0 and fx <= px <= fx + fw and fy <= py <= fy + fh:
            hits.append((element, node))
    if not hits:
        return None
    for element, node in reversed(hits):
        scripted = node.scripted
        if node.opens is not None or (scripted is not None and (scripted.tap is not None or scripted.takes_typing)):
            return element, node
    return hits[-1]


async def _tap(wda: Wda, x: float, y: float, op: Op) -> None:
    hit = _hit(wda, x, y)
    if hit is None:
        wda.unfocus()
        return  # a tap on nothing changes nothing
    element, node = hit
    scripted = node.scripted
    if op is Op.TAP and scripted is not None and scripted.takes_typing:
        wda.focus_on(element)
    elif op is Op.TAP:
        wda.unfocus()
    await wda.act(Action(op, element=element))


async def _type(wda: Wda, text: str) -> None:
    submits = len(text) - len(text.rstrip("\n"))
    text = text.rstrip("\n")
    if text:
        field = wda.focused_field()
        if field is not None:
            await wda.act(Action(Op.TYPE, element=field, text=text))
    for _ in range(submits):
        await wda.act(Action(Op.SUBMIT))


async def _swipe(wda: Wda, fx: float, fy: float, tx: float, ty: float) -> None:
    dx, dy = tx - fx, ty - fy
    if math.hypot(dx, dy) < _SWIPE_MIN_POINTS:
        raise WdaFailure(400, "invalid argument", "a drag needs two different points")
    if abs(dy) >= abs(dx):
        op = Op.SWIPE_UP if dy < 0 else Op.SWIPE_DOWN
    else:
        op = Op.SWIPE_LEFT if dx < 0 else Op.SWIPE_RIGHT
    await wda.act(Action(op))


def _focus_on(wda: Wda, target: Target) -> None:
    """WDA's typing into an element first gives it the keyboard focus (``fb_typeText``)."""
    wda.focus_on(_typing_target(target))


def _typing_target(target: Target) -> Element:
    element = target.element
    roles = sorted(TEXT_INPUTS)
    if element is None or element.role not in TEXT_INPUTS:
        kind = PREFIX + str(target.node["type"])
        raise WdaFailure(
            400,
            "invalid element state",
            f"Error Domain=com.facebook.WebDriverAgent Code=1 \"The element '{kind}' is not ready to accept text "
            f"input: it can't get the keyboard focus (only {', '.join(roles)} can)\"",
        )
    return element


def _point(target: Target, body: Mapping[str, Any]) -> tuple[float, float]:
    """Where a gesture lands: ``x``/``y`` from the target's top-left, else its middle (``FBElementCommands``)."""
    if "x" not in body and "y" not in body:
        return target.centre
    if "x" not in body or "y" not in body:
        raise WdaFailure(400, "invalid argument", "Both x and y coordinates must be provided")
    x, y = _xy(body)
    left, top, _, _ = target.rect
    return left + x, top + y


def _xy(body: Mapping[str, Any], x: str = "x", y: str = "y") -> tuple[float, float]:
    vx, vy = body.get(x), body.get(y)
    if isinstance(vx, int | float) and isinstance(vy, int | float) and is_number(vx) and is_number(vy):
        return float(vx), float(vy)
    raise WdaFailure(400, "invalid argument", f"'{x}' and '{y}' must be numbers")


def _read_pointer(actions: Any) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """The first pointer's gesture: where it went down, where it came up, how long it was down."""
    if not isinstance(actions, list):
        raise WdaFailure(400, "invalid argument", "'actions' must be a list of input sources")
    for source in actions:
        if not isinstance(source, Mapping) or source.get("type") != "pointer":
            continue
        steps = source.get("actions")
        if not isinstance(steps, list):
            raise WdaFailure(400, "invalid argument", "a pointer's 'actions' must be a list")
        return _gesture(steps)
    return None


def _gesture(steps: Sequence[Any]) -> tuple[tuple[float, float], tuple[float, float], float]:
    position: tuple[float, float] | None = None
    down: tuple[float, float] | None = None
    up: tuple[float, float] | None = None
    held = 0.0
    for step in steps:
        if not isinstance(step, Mapping):
            raise WdaFailure(400, "invalid argument", "each pointer action must be an object")
        kind = step.get("type")
        duration = step.get("duration", 0)
        if kind == "pointerMove":
            position = _xy(step)
            if down is not None and is_number(duration):
                held += float(duration)
        elif kind == "pointerDown":
            if position is None:
                raise WdaFailure(400, "invalid argument", "pointerDown before any pointerMove")
            down = position
        elif kind == "pause":
            if down is not None and is_number(duration):
                held += float(duration)
        elif kind == "pointerUp":
            up = position
            break
        else:
            raise WdaFailure(400, "invalid argument", f"unknown pointer action type {kind!r}")
    if down is None or up is None:
        raise WdaFailure(400, "invalid argument", "a pointer gesture needs a pointerDown and a pointerUp")
    return down, up, held
