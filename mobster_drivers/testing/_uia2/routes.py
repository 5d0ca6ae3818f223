r"""The UiAutomator2 server's routes, on a scripted phone (``AppiumServlet.java:114-191``, 10.6.2).

Every route the server registers is matched here as it matches them: by the number of path
segments and their literal parts, ``:name`` matching any one, the query ignored, ``/wd/hub`` taken
off (``AppiumServlet.java:198-250``, ``ServerHandler.java:43,70-72``); no match is 404
``unknown command``. A session route first checks the session (404 ``invalid session id``,
``SafeRequestHandler.java:48-56``).

Rule 1 (served): ``/status``, ``/sessions``, ``/session`` (new, details, delete), ``source``,
        ``element(s)`` (``id``, ``accessibility id``, ``class name``, ``xpath`` as ElementTree
        reads it, ``-android uiautomator`` for ``text``, ``description``, ``resourceId`` and
        ``className`` selectors), an element's ``click``, ``value``, ``clear``, ``text``,
        ``attribute/:name``, ``rect``, ``size``, ``location``, ``name``; ``keys``; ``actions``
        (a pointer's tap, long press and swipe); ``back``; ``press_keycode`` and
        ``long_press_keycode`` (4 back, 3 home, 66 enter, 111 escape); ``screenshot``; the
        device's ``info``, ``pixel_ratio``, ``system_bars``, ``display_density``; the window's
        size; ``alert/accept``, ``alert/dismiss``, ``alert/text``; ``appium/settings``;
        ``appium/list_windows``; ``orientation``.
Rule 2 (not modelled): the other routes the server registers (gestures, clipboard, rotation,
        notifications, scheduled actions, …) answer 500 ``unknown error`` saying the fake
        doesn't model them: a client sees they exist, and a test sees what the fake can't do.
Rule 3 (typing, ``SendKeysToElement.java:46-117``): ``value`` and ``keys`` take ``text`` (``value``
        is ignored); without ``replace: true`` a field that holds text is cleared and set to its
        old text and the new (a password's old text is its bullets, so it is set to them and the
        new); a trailing ``\n`` (a backslash and an ``n``) presses Enter after. An element that
        takes no text is 400 ``invalid element state``. ``keys`` types into the focused field.
Rule 4 (taps): a click presses the element's bounds' centre; an action's pointer presses where it
        goes down; what is pressed is the deepest shown element there that does something.
Rule 5 (alerts, ``AlertHelpers.java:43-214``): an alert is a window holding an
        ``…:id/alertTitle`` or ``…:id/custom`` (regular) or ``…:id/permission_message``
        (permission); else 404 ``no such alert``. Accept takes the ``buttonLabel`` given, else a
        permission's first button whose id has ``allow`` as a word (else its second), a regular
        one's lowest ``button<N>``; dismiss a permission's first ``deny`` (else its first), a
        regular one's next. No such button: 400 ``invalid element state``.
Rule 6 (windows, ``ListWindows.java``): the app's window (type 1, active and focused) and, while
        the keyboard shows, the input method's (type 2, package ``com.google.android.inputmethod.
        latin``, the bottom of the screen), filtered by ``filters`` (``type``, ``packageName`` with
        ``*`` globs, ``isActive``, ``isFocused``).
"""

from __future__ import annotations

import base64
import fnmatch
import re
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs

from mobster_core import Action, DeviceError, Element, Op
from mobster_drivers.devices.scripted import ScriptedPhone

from .render import Rendered, RenderedNode
from .state import AndroidState
from .wire import Uia2Failure

__all__ = ["KEYBOARD_PACKAGE", "Call", "handle"]

KEYBOARD_PACKAGE = "com.google.android.inputmethod.latin"
_KEYBOARD_HEIGHT = 0.4  # the scripted phone's (the script's Rule 9)
_STRATEGIES = ("id", "xpath", "accessibility id", "class name", "-android uiautomator")
_UISELECTOR = re.compile(r'\.?(text|description|resourceId|className)\("((?:[^"\\]|\\.)*)"\)')
_NOT_FOUND = "An element could not be located on the page using the given search parameters"
_ALIASES = {"name": "text", "contentDescription": "content-desc", "resourceId": "resource-id", "className": "class"}


@attrs.frozen
class Call:
    """One request: its method, its path's segments (no ``/wd/hub``), its session, its JSON body."""

    method: str
    segments: tuple[str, ...]
    body: Any


Handler = Callable[[AndroidState, Call, dict[str, str]], Awaitable[Any]]
_ROUTES: list[tuple[str, tuple[str, ...], Handler | None]] = []


def _route(method: str, path: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        _ROUTES.append((method, tuple(path.strip("/").split("/")), handler))
        return handler

    return register


def _match(method: str, segments: tuple[str, ...]) -> tuple[Handler | None, dict[str, str]] | None:
    for m, pattern, handler in _ROUTES:
        if m != method or len(pattern) != len(segments):
            continue
        params: dict[str, str] = {}
        for want, got in zip(pattern, segments, strict=True):
            if want.startswith(":"):
                params[want[1:]] = got
            elif want != got:
                break
        else:
            return handler, params
    return None


async def handle(state: AndroidState, call: Call) -> Any:
    """The value of ``call``'s reply; :class:`Uia2Failure` for an error reply."""
    found = _match(call.method, call.segments)
    if found is None:
        raise Uia2Failure(
            "unknown command",
            "The requested resource could not be found, or a request was received using an HTTP method that is "
            "not supported by the mapped resource",
        )
    handler, params = found
    if "sessionId" in params and params["sessionId"] != state.session:
        raise Uia2Failure("invalid session id", f"The session identified by {params['sessionId']} is not known")
    if handler is None:  # Rule 2
        route = "/" + "/".join(call.segments[2:] if call.segments[:1] == ("session",) else call.segments)
        raise Uia2Failure("unknown error", f"the fake UiAutomator2 server does not model {call.method} {route}")
    return await handler(state, call, params)


# -- sessions and the device ---------------------------------------------------------------------


@_route("GET", "/status")
async def _status(_state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return {
        "ready": True,
        "message": "UiAutomator2 Server is ready to accept commands",
        "build": {"version": "10.6.2", "versionCode": 274},
    }


@_route("GET", "/sessions")
async def _sessions(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    if state.session is None:
        return []
    return [{"id": state.session, "sessionId": state.session, "capabilities": {}}]


@_route("POST", "/session")
async def _new_session(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    body = call.body
    if not isinstance(body, Mapping) or not isinstance(body.get("capabilities"), Mapping):
        raise Uia2Failure("invalid argument", "'capabilities' are mandatory for session creation")
    state.new_session()
    state.capabilities = dict(body["capabilities"])
    return {"sessionId": state.session, "capabilities": state.capabilities}


@_route("DELETE", "/session/:sessionId")
async def _delete_session(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    state.stopping = True  # the server stops itself after this reply (``state`` Rule 2)
    return None


@_route("GET", "/session/:sessionId")
async def _session(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return dict(state.capabilities)


@_route("GET", "/session/:sessionId/appium/device/info")
async def _device_info(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    device, props = state.script.device, state.props()
    width, height = state.size_px
    return {
        "androidId": f"{abs(hash(state.serial)) % (1 << 64):016x}",
        "manufacturer": props["ro.product.manufacturer"],
        "model": device.name,
        "brand": props["ro.product.brand"],
        "apiVersion": device.ios,
        "platformVersion": props["ro.build.version.release"],
        "carrierName": "T-Mobile" if not state.emulator else "Android",
        "realDisplaySize": f"{width}x{height}",
        "displayDensity": round(state.density * 160),
        "networks": [],
        "locale": device.locale or "en_US",
        "timeZone": "UTC",
        "bluetooth": {"state": "OFF"},
    }


@_route("GET", "/session/:sessionId/appium/device/pixel_ratio")
async def _pixel_ratio(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return state.density


@_route("GET", "/session/:sessionId/appium/device/display_density")
async def _density(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return round(state.density * 160)


@_route("GET", "/session/:sessionId/appium/device/system_bars")
async def _bars(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return {"statusBar": round(24 * state.density)}


@_route("GET", "/session/:sessionId/window/:windowHandle/size")
async def _window_size(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    width, height = state.size_px
    return {"width": width, "height": height}


@_route("GET", "/session/:sessionId/orientation")
async def _orientation(_state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return "PORTRAIT"


@_route("GET", "/session/:sessionId/appium/settings")
async def _get_settings(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return dict(state.settings)


@_route("POST", "/session/:sessionId/appium/settings")
async def _update_settings(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    given = call.body.get("settings") if isinstance(call.body, Mapping) else None
    if not isinstance(given, Mapping):
        raise Uia2Failure("invalid argument", "'settings' are mandatory")
    state.settings.update({k: v for k, v in given.items() if k in state.settings})  # unknown names skipped
    return None


@_route("GET", "/session/:sessionId/screenshot")
async def _screenshot(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    png = await state.phone.screenshot()
    return base64.b64encode(png).decode("ascii")


# -- the source and elements ---------------------------------------------------------------------


async def _read(state: AndroidState) -> Rendered:
    """A read of the phone (its latency, its injected faults), as the server's source."""
    try:
        screen = await state.phone.read()
    except DeviceError as exc:
        raise Uia2Failure("unknown error", f"Could not get the root node of the active window: {exc}") from exc
    return state.rendered(screen)


@_route("GET", "/session/:sessionId/source")
async def _source(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    return (await _read(state)).xml


def _find(state: AndroidState, rendered: Rendered, body: Any) -> list[RenderedNode]:
    if not isinstance(body, Mapping) or not isinstance(body.get("strategy"), str) or "selector" not in body:
        raise Uia2Failure("invalid argument", "'strategy' and 'selector' are mandatory")
    strategy, selector = body["strategy"], body["selector"]
    if strategy not in _STRATEGIES:
        raise Uia2Failure(
            "invalid selector",
            f"Selector strategy '{strategy}' is not supported. Only the following selector strategies are "
            f"supported: [{', '.join(_STRATEGIES)}]",
        )
    if not isinstance(selector, str):
        raise Uia2Failure("invalid argument", "'selector' is a string")
    nodes = [n for n in rendered.nodes if n.element is not None and n.bounds[2] > n.bounds[0]]
    if strategy == "id":
        package = state.capabilities.get("appPackage") or "io.appium.uiautomator2.server"
        wanted = selector if ":id/" in selector else f"{package}:id/{selector}"
        return [n for n in nodes if n.get("resource-id") == wanted]
    if strategy == "accessibility id":
        return [n for n in nodes if n.get("content-desc") == selector]
    if strategy == "class name":
        return [n for n in nodes if n.cls == selector]
    if strategy == "xpath":
        return _xpath(rendered, nodes, selector)
    return _uiselector(nodes, selector)


def _xpath(rendered: Rendered, nodes: list[RenderedNode], selector: str) -> list[RenderedNode]:
    """Rule 1: the XPath ElementTree reads (``//tag[@attr='v']``, positions); anything else is refused."""
    root = ET.fromstring(rendered.xml.split("\n", 1)[1])  # noqa: S314 - the fake's own source, never a client's
    path = "." + selector if selector.startswith("/") else selector
    try:
        found = root.findall(path)
    except (SyntaxError, KeyError) as exc:
        raise Uia2Failure("invalid selector", f"Unable to locate an element with the xpath {selector!r}") from exc
    order = [e for e in root.iter() if e is not root]
    by_position = {id(e): i for i, e in enumerate(order)}
    kept = {id(n): n for n in nodes}
    return [
        rendered.nodes[by_position[id(e)]]
        for e in found
        if id(e) in by_position and id(rendered.nodes[by_position[id(e)]]) in kept
    ]


def _uiselector(nodes: list[RenderedNode], selector: str) -> list[RenderedNode]:
    """Rule 1: ``new UiSelector().text("…")`` and its ``description``, ``resourceId``, ``className``."""
    body = selector.strip().removeprefix("new UiSelector()")
    parts = _UISELECTOR.findall(body)
    if not parts or _UISELECTOR.sub("", body).strip(" ;"):
        what = "UiSelector text/description/resourceId/className"
        raise Uia2Failure("invalid selector", f"the fake models {what} only: {selector!r}")
    names = {"text": "text", "description": "content-desc", "resourceId": "resource-id", "className": "class"}
    return [n for n in nodes if all(n.get(names[k]) == v.replace('\\"', '"') for k, v in parts)]


def _element_value(node: RenderedNode) -> dict[str, str]:
    return {"ELEMENT": node.element_id, "element-6066-11e4-a52e-4f735466cecf": node.element_id}


@_route("POST", "/session/:sessionId/element")
async def _find_element(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    found = _find(state, state.rendered(), call.body)
    if not found:
        raise Uia2Failure("no such element", _NOT_FOUND)
    return _element_value(found[0])


@_route("POST", "/session/:sessionId/elements")
async def _find_elements(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    return [_element_value(n) for n in _find(state, state.rendered(), call.body)]


def _node(state: AndroidState, element_id: str) -> RenderedNode:
    for node in state.rendered().nodes:
        if node.element_id == element_id and node.element is not None:
            return node
    raise Uia2Failure("stale element reference", "The referenced element is no longer attached to the DOM")


_ATTRIBUTES = (
    "text", "content-desc", "resource-id", "class", "package", "checkable", "checked", "clickable", "enabled",
    "focusable", "focused", "long-clickable", "password", "scrollable", "selected", "bounds", "displayed", "hint",
)  # fmt: skip


@_route("GET", "/session/:sessionId/element/:id/attribute/:name")
async def _attribute(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    node = _node(state, p["id"])
    name = _ALIASES.get(p["name"], p["name"])
    if name not in _ATTRIBUTES:
        raise Uia2Failure("unknown command", f"The '{p['name']}' attribute is unknown")
    return dict(node.attributes).get(name)


@_route("GET", "/session/:sessionId/element/:id/text")
async def _text(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    return _node(state, p["id"]).get("text")


@_route("GET", "/session/:sessionId/element/:id/name")
async def _name(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    node = _node(state, p["id"])
    return node.get("content-desc") or node.get("text")


def _rect(node: RenderedNode) -> dict[str, int]:
    x1, y1, x2, y2 = node.bounds
    return {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1}


@_route("GET", "/session/:sessionId/element/:id/rect")
async def _element_rect(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    return _rect(_node(state, p["id"]))


@_route("GET", "/session/:sessionId/element/:id/size")
async def _element_size(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    rect = _rect(_node(state, p["id"]))
    return {"width": rect["width"], "height": rect["height"]}


@_route("GET", "/session/:sessionId/element/:id/location")
async def _element_location(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    rect = _rect(_node(state, p["id"]))
    return {"x": rect["x"], "y": rect["y"]}


# -- acting ----------------------------------------------------------------------------------------


def _hit(state: AndroidState, x: float, y: float) -> Element | None:
    """Rule 4: the deepest shown element at the point (pixels) that does something, else the deepest there."""
    screen, nodes = state.phone.peek()
    width, height = state.size_px
    px, py = x / width, y / height
    hits = []
    for element, node in zip(screen.elements, nodes, strict=False):
        fx, fy, fw, fh = element.frame
        if element.visible and fw > 0 and fh > 0 and fx <= px <= fx + fw and fy <= py <= fy + fh:
            hits.append((element, node))
    for element, node in reversed(hits):
        scripted = node.scripted
        acts = node.opens is not None or node.answers is not None or node.hides_keyboard
        if acts or (scripted is not None and (scripted.tap is not None or scripted.takes_typing)):
            return element
    return hits[-1][0] if hits else None


async def _act(phone: ScriptedPhone, action: Action) -> None:
    try:
        await phone.act(action)
    except DeviceError as exc:
        raise Uia2Failure("invalid element state", str(exc)) from exc


async def _press(state: AndroidState, x: float, y: float, op: Op) -> None:
    element = _hit(state, x, y)
    if element is not None:
        await _act(state.phone, Action(op, element=element))


async def tap_at(state: AndroidState, x: float, y: float) -> None:
    """Rule 4: a tap at a point in pixels (``adb shell input tap``'s too)."""
    await _press(state, x, y, Op.TAP)


@_route("POST", "/session/:sessionId/element/:id/click")
async def _click(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    x1, y1, x2, y2 = _node(state, p["id"]).bounds
    await _press(state, (x1 + x2) / 2, (y1 + y2) / 2, Op.TAP)
    return None


async def _type(state: AndroidState, node: RenderedNode, body: Any) -> None:
    """Rule 3."""
    text = body.get("text") if isinstance(body, Mapping) else None
    if not isinstance(text, str):
        raise Uia2Failure("invalid argument", "'text' is mandatory")
    element = node.element
    assert element is not None
    enter = text.endswith("\\n")
    if enter:
        text = text[:-2]
    refused = Uia2Failure(
        "invalid element state",
        f"Cannot set the element to '{body['text']}'. Did you interact with the correct element?",
    )
    if element.role not in ("TextField", "SecureTextField", "SearchField", "TextView"):
        raise refused
    phone = state.phone
    old = "" if node.get("showing-hint") == "true" else node.get("text")
    if body.get("replace") is True or (old and element.role == "SecureTextField"):
        await phone.clear(element)
        text = text if body.get("replace") is True else old + text  # a password is set to its bullets and the text
    if text:
        await _act(phone, Action(Op.TYPE, element=element, text=text))
    if enter:
        await _act(phone, Action(Op.SUBMIT))


@_route("POST", "/session/:sessionId/element/:id/value")
async def _value(state: AndroidState, call: Call, p: dict[str, str]) -> Any:
    await _type(state, _node(state, p["id"]), call.body)
    return None


@_route("POST", "/session/:sessionId/keys")
async def _keys(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    rendered = state.rendered()
    focused = [n for n in rendered.nodes if n.get("focused") == "true"]
    if not focused:
        raise Uia2Failure("no such element", _NOT_FOUND)
    await _type(state, focused[0], call.body)
    return None


@_route("POST", "/session/:sessionId/element/:id/clear")
async def _clear(state: AndroidState, _call: Call, p: dict[str, str]) -> Any:
    element = _node(state, p["id"]).element
    assert element is not None
    try:
        await state.phone.clear(element)
    except DeviceError as exc:
        raise Uia2Failure("invalid element state", str(exc)) from exc
    return None


def _pointer(actions: Any) -> tuple[tuple[float, float], tuple[float, float], float]:
    """A pointer's start, end and how long it was down (ms), from a W3C actions body."""
    sequences = actions.get("actions") if isinstance(actions, Mapping) else None
    pointers = [s for s in sequences or [] if isinstance(s, Mapping) and s.get("type") == "pointer"]
    if len(pointers) != 1 or not isinstance(pointers[0].get("actions"), list):
        raise Uia2Failure("invalid argument", "the fake models one pointer's actions")
    at: tuple[float, float] | None = None
    start: tuple[float, float] | None = None
    held, down = 0.0, False
    for step in pointers[0]["actions"]:
        kind = step.get("type") if isinstance(step, Mapping) else None
        if kind == "pointerMove":
            at = (float(step.get("x", 0)), float(step.get("y", 0)))
            held += float(step.get("duration", 0) or 0) if down else 0.0
        elif kind == "pointerDown":
            down, start = True, at
        elif kind == "pause" and down:
            held += float(step.get("duration", 0) or 0)
        elif kind == "pointerUp":
            break
    if start is None or at is None:
        raise Uia2Failure("invalid element state", "Unable to perform W3C actions: the pointer never went down")
    return start, at, held


@_route("POST", "/session/:sessionId/actions")
async def _actions(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    (x1, y1), (x2, y2), held = _pointer(call.body)
    dx, dy = x2 - x1, y2 - y1
    if abs(dx) < 10 and abs(dy) < 10:
        await _press(state, x1, y1, Op.LONG_PRESS if held >= 500 else Op.TAP)
        return None
    if abs(dy) >= abs(dx):
        op = Op.SWIPE_UP if dy < 0 else Op.SWIPE_DOWN
    else:
        op = Op.SWIPE_LEFT if dx < 0 else Op.SWIPE_RIGHT
    await _act(state.phone, Action(op))
    return None


_KEYS = {4: Op.BACK, 3: Op.HOME, 66: Op.SUBMIT}


async def _keycode(state: AndroidState, call: Call) -> None:
    code = call.body.get("keycode") if isinstance(call.body, Mapping) else None
    if isinstance(code, bool) or not isinstance(code, int):
        raise Uia2Failure("invalid argument", "'keycode' is mandatory")
    if code == 111:
        if state.phone.keyboard_shown():
            await _act(state.phone, Action(Op.DISMISS_KEYBOARD))
        return
    op = _KEYS.get(code)
    if op is not None:
        await _act(state.phone, Action(op))


@_route("POST", "/session/:sessionId/appium/device/press_keycode")
async def _press_keycode(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    await _keycode(state, call)
    return None


@_route("POST", "/session/:sessionId/appium/device/long_press_keycode")
async def _long_press_keycode(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    await _keycode(state, call)
    return None


@_route("POST", "/session/:sessionId/back")
async def _back(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    await _act(state.phone, Action(Op.BACK))
    return None  # always null, whatever UiDevice says (PressBack.java)


# -- alerts and windows ----------------------------------------------------------------------------


def _alert(rendered: Rendered) -> tuple[str, list[RenderedNode]]:
    """Rule 5: ``("permission" | "regular", buttons)``, or 404 ``no such alert``."""
    ids = [n.get("resource-id") for n in rendered.nodes]
    if any(re.fullmatch(r".+:id/permission_message", i) for i in ids):
        return "permission", [
            n for n in rendered.nodes if re.fullmatch(r".+:id/permission_\w+_button", n.get("resource-id"))
        ]
    if any(re.fullmatch(r".+:id/(alertTitle|custom)", i) for i in ids):
        return "regular", [n for n in rendered.nodes if re.fullmatch(r"android:id/button\d", n.get("resource-id"))]
    raise Uia2Failure("no such alert", "No alert is present on the screen")


def _button(kind: str, buttons: list[RenderedNode], body: Any, *, accept: bool) -> RenderedNode:
    label = body.get("buttonLabel") if isinstance(body, Mapping) else None
    chosen: RenderedNode | None = None
    if isinstance(label, str):
        chosen = next((b for b in buttons if b.get("text") == label), None)
    elif kind == "permission":
        word = "allow" if accept else "deny"
        chosen = next((b for b in buttons if word in b.get("resource-id").split(":id/")[-1].split("_")), None)
        if chosen is None and buttons:
            chosen = buttons[1] if accept and len(buttons) > 1 else buttons[0]
    else:
        ordered = sorted(buttons, key=lambda b: b.get("resource-id"))
        index = 0 if accept else 1
        chosen = ordered[min(index, len(ordered) - 1)] if ordered else None
    if chosen is None:
        raise Uia2Failure("invalid element state", "The expected button cannot be detected on the alert")
    return chosen


async def _answer(state: AndroidState, call: Call, *, accept: bool) -> None:
    kind, buttons = _alert(state.rendered())
    button = _button(kind, buttons, call.body, accept=accept)
    try:
        await state.phone.answer_alert(button.get("text"))
    except DeviceError as exc:
        raise Uia2Failure("invalid element state", str(exc)) from exc


@_route("POST", "/session/:sessionId/alert/accept")
async def _accept(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    await _answer(state, call, accept=True)
    return None


@_route("POST", "/session/:sessionId/alert/dismiss")
async def _dismiss(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    await _answer(state, call, accept=False)
    return None


@_route("GET", "/session/:sessionId/alert/text")
async def _alert_text(state: AndroidState, _call: Call, _p: dict[str, str]) -> Any:
    rendered = state.rendered()
    _alert(rendered)
    texts = [
        n.get("text") for n in rendered.nodes if ":id/" in n.get("resource-id") and n.cls != "android.widget.Button"
    ]
    return "\n".join(t for t in texts if t)


def _windows(state: AndroidState) -> list[dict[str, Any]]:
    """Rule 6."""
    width, height = state.size_px
    screen = state.screen()

    def window(wid: int, kind: int, package: str, rect: tuple[int, int, int, int], *, active: bool) -> dict[str, Any]:
        return {
            "windowId": wid, "displayId": 0, "physicalDisplayId": "4619827259835644672", "virtualDisplayId": None,
            "rect": {"x": rect[0], "y": rect[1], "width": rect[2], "height": rect[3]}, "packageName": package,
            "screenshot": None, "type": kind, "title": package, "layer": wid, "isAccessibilityFocused": False,
            "isActive": active, "isFocused": active, "isInPictureInPictureMode": False,
        }  # fmt: skip

    out = [window(1, 1, screen.app, (0, 0, width, height), active=True)]
    if state.phone.keyboard_shown():
        top = round(height * (1 - _KEYBOARD_HEIGHT))
        out.append(window(2, 2, KEYBOARD_PACKAGE, (0, top, width, height - top), active=False))
    return out


def _matches(window: Mapping[str, Any], filters: Mapping[str, Any]) -> bool:
    for key, want in filters.items():
        if want is None:
            continue
        got = window.get(key)
        if key in ("packageName", "title"):
            if not isinstance(got, str) or not fnmatch.fnmatchcase(got, str(want)):
                return False
        elif key in window and got != want:
            return False
    return True


@_route("POST", "/session/:sessionId/appium/list_windows")
async def _list_windows(state: AndroidState, call: Call, _p: dict[str, str]) -> Any:
    filters = call.body.get("filters") if isinstance(call.body, Mapping) else None
    windows = _windows(state)
    return [w for w in windows if not isinstance(filters, Mapping) or _matches(w, filters)]


# -- Rule 2: the rest of what AppiumServlet registers ---------------------------------------------

_NOT_MODELLED = (
    ("POST", "/session/:sessionId/orientation"),
    ("POST", "/session/:sessionId/rotation"),
    ("GET", "/session/:sessionId/rotation"),
    ("POST", "/session/:sessionId/appium/device/open_notifications"),
    ("POST", "/session/:sessionId/network_connection"),
    ("POST", "/session/:sessionId/appium/device/get_clipboard"),
    ("POST", "/session/:sessionId/appium/device/set_clipboard"),
    ("POST", "/session/:sessionId/appium/reset_ax_cache"),
    ("POST", "/session/:sessionId/appium/list_displays"),
    ("POST", "/session/:sessionId/appium/gestures/drag"),
    ("POST", "/session/:sessionId/appium/gestures/fling"),
    ("POST", "/session/:sessionId/appium/gestures/click"),
    ("POST", "/session/:sessionId/appium/gestures/long_click"),
    ("POST", "/session/:sessionId/appium/gestures/double_click"),
    ("POST", "/session/:sessionId/appium/gestures/pinch_close"),
    ("POST", "/session/:sessionId/appium/gestures/pinch_open"),
    ("POST", "/session/:sessionId/appium/gestures/scroll"),
    ("POST", "/session/:sessionId/appium/gestures/swipe"),
    ("POST", "/session/:sessionId/gestures/scroll_to"),
    ("POST", "/session/:sessionId/appium/element/:id/scroll_to/:id2"),
    ("POST", "/session/:sessionId/appium/schedule_action"),
    ("POST", "/session/:sessionId/appium/action_history"),
    ("POST", "/session/:sessionId/appium/unschedule_action"),
    ("GET", "/appium/device/apps"),
    ("GET", "/session/:sessionId/appium/device/apps"),
    ("GET", "/session/:sessionId/element/active"),
    ("GET", "/session/:sessionId/element/:id/screenshot"),
    ("GET", "/session/:sessionId/screenshot/:id"),
    ("GET", "/session/:sessionId/appium/device/battery_info"),
    ("GET", "/session/:sessionId/appium/element/:id/first_visible"),
    ("GET", "/session/:sessionId/appium/device/declared_orientation"),
)
for _method, _path in _NOT_MODELLED:
    _ROUTES.append((_method, tuple(_path.strip("/").split("/")), None))
