"""What the fake Appium's XCUITest driver does with a ``mobile:`` command, and Appium's error replies.

Rule 1: an error reply is :class:`Failure`: its W3C code, HTTP status and message, and the
        ``stacktrace`` Appium fills in (its error class and where it was raised); a WDA error
        passed through keeps WDA's code, status and message and gets the proxy's stack, as
        Appium's ``JWProxy`` gives it (WDA's own ``traceback`` is dropped).
Rule 2: ``mobile:`` commands check the XCUITest driver's required arguments (400 ``invalid
        argument``, naming the required and the optional ones: :data:`OPTIONAL`) and map to WDA as
        the driver does: ``source`` → ``GET /source`` (with
        ``excluded_attributes``, also for JSON), ``activeAppInfo`` → ``/wda/activeAppInfo``,
        ``deviceInfo`` → ``/wda/device/info`` plus the phone's ``lockdownInfo`` (through
        usbmuxd), ``tap`` → ``/wda/tap``, ``doubleTap`` → ``/wda/doubleTap``, ``touchAndHold``
        → ``/wda/touchAndHold``, ``dragFromToForDuration`` → ``/wda/dragfromtoforduration``,
        ``swipe`` → ``/wda/swipe``, ``launchApp`` → ``/wda/apps/launch`` with the arguments and
        environment whenever given (WDA itself only activates an app that is running),
        ``activateApp``, ``terminateApp``, ``queryAppState`` → ``/wda/apps/*``, ``deepLink``
        → ``/url`` (the url as given: WDA judges it), ``pressButton`` → ``/wda/pressButton`` (the
        name as given: WDA lowercases it; ``durationSeconds`` as ``duration``), ``keys`` →
        ``/wda/element/0/keyboardInput``, ``hideKeyboard`` → ``/wda/keyboard/dismiss``, ``alert``
        → ``/alert/accept|dismiss`` (``buttonLabel`` as ``name``) or ``/wda/alert/buttons`` (another
        action: 500 "… 'nope' is provided instead."). ``isAppInstalled`` and ``listApps`` ask the phone's
        installation proxy (the app script's apps); ``listApps`` works on an iPhone only.
Rule 3: on a Linux host without usbmuxd (``usbmuxd`` off) what goes through it fails as XCUITest
        12.13 fails there: ``isAppInstalled``, ``listApps``, ``appium:bundleId`` at session start
        and a session without ``appium:platformVersion`` on an iPhone (``_appium_caps`` Rule 4)
        answer 500 ``unknown error`` "The usbmuxd socket path '/var/run/usbmuxd' does not exist or
        is not accessible"; ``deviceInfo`` answers that too, or the tunnel's 500 when the
        session's platformVersion is 18 or later (XCUITest picks its lockdown route by the
        session's version, not the phone's). With usbmuxd, ``deviceInfo``'s ``lockdownInfo`` on an
        iPhone is the phone's whole lockdownd dictionary (``_lockdown.lockdown_values``, what the
        fake usbmuxd's phones answer too); a simulator's ``deviceInfo`` is WDA's alone.
Rule 4: another ``mobile:`` name, and a script that isn't ``mobile:`` in the native context, is
        405 ``unknown method`` "Method is not implemented".
Rule 5: the device controls, the video and the audit, as XCUITest's execute-method map names them:
        ``performAccessibilityAudit`` (``auditTypes``) → ``/wda/performAccessibilityAudit``;
        ``startXCTestScreenRecording`` (``fps``, ``codec``) → ``/wda/video/start`` (on an iPhone
        only with the insecure feature ``xctest_screen_record``: a real device without a RemoteXPC
        tunnel to delete the video after, as every phone of the fake, else 500 "Potentially
        insecure feature 'xctest_screen_record' has not been enabled. …"), and
        ``stopXCTestScreenRecording`` → ``GET /wda/video`` (none: 500 "There is no active screen
        recording. Did you start one beforehand?"), ``POST /wda/video/stop``, then the recording's
        info with the video's bytes as base64 ``payload`` (XCUITest pulls the file: from a
        simulator's folder, from an iPhone with Xcode's ``devicectl``, which a Linux host hasn't:
        there 500 "Unable to locate XCTest screen recording identified by '<uuid>' for the device
        <udid>"); ``setSimulatedLocation`` (``latitude``, ``longitude``) → ``/wda/simulatedLocation``;
        ``setAppearance`` (``style``, ``light`` or ``dark`` in any case, else 500) is simctl's on a
        simulator (kept in :attr:`Phone.controls`) and WDA's sessionless ``/wda/device/appearance``
        ``{name}`` on an iPhone; ``getAppearance`` is the simulator's (the last one set) or WDA's
        ``userInterfaceStyle``; ``enrollBiometric`` (``isEnabled``), ``sendBiometricMatch``
        (``type``, ``match``) and ``pushNotification`` (``bundleId``, ``payload``) are kept in
        :attr:`Phone.controls` on a simulator (the last two also reach the scripted phone,
        :attr:`Phone.events`) and refused on an iPhone with XCUITest's words (500 "Biometric
        enrollment can only be performed on Simulator", …). Not checked: the keys of
        ``stopXCTestScreenRecording``'s reply beyond ``payload`` where a pull succeeds (a Mac).
Rule 6: ``setPermission`` (``bundleId``, ``access``: a map of service to status) as XCUITest 12.13
        with appium-ios-simulator 10.1 does it (read from their installed sources): on an iPhone
        500 "Setting permissions can only be performed on Simulator"; ``access`` not a map: 500
        "The 'access' option is expected to be a map". ``location`` and ``location-always`` go
        through ``xcrun simctl privacy`` (``yes``, ``no``, ``unset`` in any case; another status is
        500 "<service> does not support <status>. Please specify 'yes', 'no' or 'unset'."), the
        rest through the simulator's TCC database, which knows :data:`TCC_SERVICES` only (another
        name, ``notifications`` among them, is 500 "'<name>' is unknown. Only the following
        service names are supported: [...]"; a status other than ``yes``, ``no``, ``unset``, or
        ``limited`` for ``photos``, is 500 too). The simctl ones are set before the TCC ones are
        looked at, as the real code does, so a refused TCC name leaves location set (the TCC ones
        of that call are all refused here; the real code sets them concurrently, so which of them
        are set before the refusal is not checked). Each set
        permission reaches the scripted phone (its prompt counts as answered, as
        ``simctl privacy`` makes it) and :attr:`Phone.controls`. Not modelled: that ``simctl
        privacy`` kills the app's process (Mobster sets them before it launches the app).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

import attrs

from mobster_core import DeviceKind, Op
from mobster_core.protocols import DeviceEvent
from mobster_drivers.devices.scripted import AppScript

from ._lockdown import lockdown_values

__all__ = [
    "LOCATOR_STRATEGIES",
    "MOBILE",
    "NO_USBMUXD",
    "OPTIONAL",
    "VIDEO_BYTES",
    "Failure",
    "Phone",
    "Proxy",
    "insecure",
    "lookup",
    "not_implemented",
    "provider_note",
    "proxy_failure",
]

#: The XCUITest driver's native locator strategies (the fake's Rule 4a).
LOCATOR_STRATEGIES = frozenset(
    {
        "xpath",
        "id",
        "name",
        "class name",
        "-ios predicate string",
        "-ios class chain",
        "accessibility id",
        "css selector",
    }
)
#: What XCUITest answers on Linux when a command needs usbmuxd and there is none (Rule 3).
NO_USBMUXD = "The usbmuxd socket path '/var/run/usbmuxd' does not exist or is not accessible"
_WDA_STRATEGY = {"-ios predicate string": "predicate string", "-ios class chain": "class chain"}
_PREFIX = "XCUIElementType"
#: Appium's error class for each W3C code (``@appium/base-driver``'s ``errors.ts``), for stack traces.
_ERROR_CLASSES = {
    "invalid session id": "NoSuchDriverError",
    "unknown command": "UnknownCommandError",
    "unknown method": "NotImplementedError",
    "invalid argument": "InvalidArgumentError",
    "invalid selector": "InvalidSelectorError",
    "no such element": "NoSuchElementError",
    "stale element reference": "StaleElementReferenceError",
    "session not created": "SessionNotCreatedError",
    "unsupported operation": "UnsupportedOperationError",
    "timeout": "TimeoutError",
    "unauthorized": "UnauthorizedError",
}


class Failure(Exception):
    """An Appium error reply (Rule 1); ``proxied`` when it is WDA's, passed through."""

    def __init__(self, status: int, error: str, message: str, *, proxied: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message
        self.proxied = proxied

    @property
    def stacktrace(self) -> str:
        """The stack Appium sends with the error (Rule 1)."""
        if self.proxied:
            return (
                f"ProxyRequestError: Request failed with status code {self.status}\n"
                "    at JWProxy.proxy (@appium/base-driver/lib/jsonwp-proxy/proxy.ts)\n"
                "    at XCUITestDriver.proxyCommand (appium-xcuitest-driver/lib/commands/proxy-helper.ts)"
            )
        name = _ERROR_CLASSES.get(self.error, "UnknownError")
        return f"{name}: {self.message}\n    at FakeAppium (mobster_drivers/testing/appium.py)"


def proxy_failure(original: str) -> Failure:
    """What Appium answers when its call to WDA failed: 500 ``unknown error``."""
    return Failure(500, "unknown error", f"Could not proxy command to the remote server. Original error: {original}")


def not_implemented() -> Failure:
    """Rule 4's reply."""
    return Failure(405, "unknown method", "Method is not implemented")


@attrs.frozen
class Phone:
    """What a ``mobile:`` handler knows of the phone behind the session (its script and usbmuxd)."""

    script: AppScript
    udid: str
    usbmuxd: bool
    #: Rule 5: every device control the phone was given, ``(mobile: name, its arguments)``.
    controls: list[tuple[str, dict[str, Any]]] = attrs.field(factory=list, eq=False)
    #: Rule 6: sets a permission on the phone, ``(bundle, service, allow)`` (None: reset), as simctl would.
    privacy: Callable[[str, str, bool | None], None] | None = attrs.field(default=None, eq=False)
    #: Rule 5: a biometric match or a push reaching the scripted phone (its Rule 15), None: nowhere.
    events: Callable[[DeviceEvent], None] | None = attrs.field(default=None, eq=False)

    #: The session's platformVersion (``_appium_caps`` Rule 4): what XCUITest decides its lockdown route by.
    platform_version: str | None = None
    #: The host the server runs on (``_appium_caps`` Rule 4a): ``mac`` or ``linux``.
    host: str = "mac"
    #: The insecure features the server allows (``--allow-insecure``): ``xctest_screen_record``.
    features: frozenset[str] = frozenset()

    @property
    def simulator(self) -> bool:
        """Whether the phone is a simulator."""
        return self.script.device.kind is DeviceKind.SIMULATOR

    def lockdown(self) -> dict[str, Any]:
        """The phone's lockdown values, as ``mobile: deviceInfo`` adds them (``lockdownInfo``, ``_lockdown`` Rule 1)."""
        device = self.script.device
        return lockdown_values(self.udid, device.name, device.ios)


@attrs.frozen
class Proxy:
    """What a ``mobile:`` handler may do: proxy to WDA in its session, as XCUITest does, and know the phone."""

    send: Callable[[str, str, Mapping[str, Any] | None], Any]
    phone: Phone
    #: A request to WDA outside the session (``proxyCommand(…, false)``), None where there is none.
    send_bare: Callable[[str, str, Mapping[str, Any] | None], Any] | None = None

    def call(self, method: str, route: str, body: Mapping[str, Any] | None = None) -> Any:
        """One proxied WDA request in the session: its value, or Appium's error for its failure."""
        return self.send(method, route, body)

    def call_bare(self, method: str, route: str, body: Mapping[str, Any] | None = None) -> Any:
        """One proxied WDA request outside the session (WDA's sessionless routes)."""
        if self.send_bare is None:
            raise Failure(
                500, "unknown error", f"Could not proxy {method} {route}: no WebDriverAgent outside a session"
            )
        return self.send_bare(method, route, body)

    def through_usbmuxd(self) -> None:
        """Rule 3: the phone's own services are out of reach without usbmuxd."""
        if not self.phone.usbmuxd:
            raise Failure(500, "unknown error", NO_USBMUXD)


MobileHandler = Callable[[Proxy, dict[str, Any]], Any]


def lookup(body: Mapping[str, Any]) -> dict[str, str]:
    """A find's body as WDA's lookup: the strategy checked and rewritten, the selector checked."""
    missing = [k for k in ("using", "value") if k not in body]
    if missing:
        raise Failure(
            400,
            "invalid argument",
            f"Parameters were incorrect. We wanted {{'required': ['using', 'value']}}; no {', '.join(missing)}",
        )
    using, selector = body["using"], body["value"]
    if not isinstance(using, str) or using not in LOCATOR_STRATEGIES:
        raise Failure(400, "invalid selector", f"Locator Strategy '{using}' is not supported for this session")
    if not isinstance(selector, str) or not selector:
        raise Failure(400, "invalid selector", "Must provide a selector when finding elements")
    strategy = _WDA_STRATEGY.get(using, using)
    if strategy == "class name" and not selector.startswith(_PREFIX):
        selector = _PREFIX + selector.removeprefix("UIA")
    return {"using": strategy, "value": selector}


def provider_note(script: str) -> tuple[str | None, Any]:
    """Which provider's executor convention ``script`` follows, and what it says."""
    for prefix, provider in (("browserstack_executor:", "browserstack"), ("lambda-hook:", "lambdatest")):
        if script.startswith(prefix):
            try:
                command = json.loads(script[len(prefix) :])
            except ValueError as exc:
                raise Failure(400, "invalid argument", f"{prefix} wants JSON: {exc}") from exc
            if not isinstance(command, dict) or not isinstance(command.get("action"), str):
                raise Failure(400, "invalid argument", f"{prefix} wants {{'action': …, 'arguments': …}}")
            status = command.get("arguments", {}).get("status") if isinstance(command.get("arguments"), dict) else None
            if command["action"] in ("setSessionStatus", "setTestStatus") and status not in ("passed", "failed"):
                raise Failure(400, "invalid argument", f"status must be passed or failed, got {status!r}")
            return provider, command
    for prefix, provider in (("sauce:", "sauce"), ("lambda-", "lambdatest")):
        if script.startswith(prefix) and "=" in script:
            note = script[len(prefix) :]
            if note.startswith("job-result=") and note.split("=", 1)[1] not in ("passed", "failed", "true", "false"):
                raise Failure(400, "invalid argument", f"job-result is passed, failed, true or false: {note!r}")
            return provider, note
    return None, None


# -- the handlers (Rule 2) ----------------------------------------------------------------------


def _number(params: Mapping[str, Any], *names: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for name in names:
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise Failure(400, "invalid argument", f"'{name}' must be a number, got {value!r}")
        out[name] = float(value)
    return out


def _bundle(params: Mapping[str, Any]) -> str:
    bundle = params.get("bundleId")
    if not isinstance(bundle, str) or not bundle:
        raise Failure(400, "invalid argument", "'bundleId' must be a non-empty string")
    return bundle


def _element_route(params: Mapping[str, Any], route: str) -> str:
    """``/wda/<route>``, or ``/wda/element/<id>/<route>`` with an ``elementId``, as XCUITest sends it."""
    element = params.get("elementId")
    return f"/wda/element/{element}/{route}" if isinstance(element, str) and element else f"/wda/{route}"


def _source(wda: Proxy, params: dict[str, Any]) -> Any:
    fmt = params.get("format", "xml")
    query = f"format={quote(str(fmt))}&scope=AppiumAUT"
    excluded = params.get("excludedAttributes")
    if isinstance(excluded, str) and excluded:
        query += f"&excluded_attributes={quote(excluded)}"
    return wda.call("GET", f"/source?{query}")


def _tap(wda: Proxy, params: dict[str, Any]) -> Any:
    return wda.call("POST", _element_route(params, "tap"), _number(params, "x", "y"))


def _double_tap(wda: Proxy, params: dict[str, Any]) -> Any:
    body = _number(params, "x", "y") if "x" in params or "y" in params else {}
    return wda.call("POST", _element_route(params, "doubleTap"), body)


def _touch_and_hold(wda: Proxy, params: dict[str, Any]) -> Any:
    body = _number(params, "duration", *(("x", "y") if "x" in params or "y" in params else ()))
    return wda.call("POST", _element_route(params, "touchAndHold"), body)


def _drag(wda: Proxy, params: dict[str, Any]) -> Any:
    body = _number(params, "duration", "fromX", "fromY", "toX", "toY")
    return wda.call("POST", _element_route(params, "dragfromtoforduration"), body)


def _swipe(wda: Proxy, params: dict[str, Any]) -> Any:
    direction = params.get("direction")
    if not isinstance(direction, str):
        raise Failure(400, "invalid argument", "'direction' must be up, down, left or right")
    body: dict[str, Any] = {"direction": direction}
    if params.get("velocity") is not None:
        body["velocity"] = params["velocity"]
    return wda.call("POST", _element_route(params, "swipe"), body)


def _launch_app(wda: Proxy, params: dict[str, Any]) -> Any:
    body: dict[str, Any] = {"bundleId": _bundle(params)}
    for key in ("arguments", "environment"):  # app-management.ts:110-127: sent whenever given
        if key in params:
            value = params[key]
            body[key] = value if key == "environment" or isinstance(value, list) else [value]
    return wda.call("POST", "/wda/apps/launch", body)


def _app_route(route: str) -> MobileHandler:
    def handler(wda: Proxy, params: dict[str, Any]) -> Any:
        return wda.call("POST", route, {"bundleId": _bundle(params)})

    return handler


def _is_installed(wda: Proxy, params: dict[str, Any]) -> Any:
    bundle = _bundle(params)
    wda.through_usbmuxd()
    return bundle in wda.phone.script.apps


def _list_apps(wda: Proxy, params: dict[str, Any]) -> Any:
    if wda.phone.script.device.kind is DeviceKind.SIMULATOR:
        raise Failure(500, "unknown error", "Listing apps can only be performed on a real device")
    wda.through_usbmuxd()
    if params.get("applicationType", "User") == "System":
        return {}
    return {
        bundle: {
            "ApplicationType": "User",
            "CFBundleIdentifier": bundle,
            "CFBundleName": app.name,
            "CFBundleShortVersionString": app.version,
            "CFBundleVersion": app.build,
        }
        for bundle, app in wda.phone.script.apps.items()
    }


def _device_info(wda: Proxy, _params: dict[str, Any]) -> Any:
    info = wda.call("GET", "/wda/device/info")
    if wda.phone.script.device.kind is DeviceKind.SIMULATOR:
        return info
    if not wda.phone.usbmuxd:
        # RemoteXPCFacade.eligible: iOS 18 and later by the session's platformVersion, not the phone's
        major = (wda.phone.platform_version or wda.phone.script.device.ios).split(".", 1)[0]
        if major.isdigit() and int(major) >= 18:
            raise Failure(
                500,
                "unknown error",
                f"Tunnel lockdown failed for '{wda.phone.udid}' (Tunnel registry port not found. Please run the "
                "tunnel creation script first See https://appium.github.io/appium-xcuitest-driver/latest/guides/"
                "remotexpc-tunnels-real-devices/)",
            )
        raise Failure(500, "unknown error", NO_USBMUXD)
    return {**info, "lockdownInfo": wda.phone.lockdown()} if isinstance(info, dict) else info


def _deep_link(wda: Proxy, params: dict[str, Any]) -> Any:
    # navigation.ts: passed to WDA as given (WDA answers for a bad url); JSON drops an undefined bundleId
    body: dict[str, Any] = {"url": params["url"]}
    if params.get("bundleId") is not None:
        body["bundleId"] = params["bundleId"]
    return wda.call("POST", "/url", body)


def _press_button(wda: Proxy, params: dict[str, Any]) -> Any:
    # general.ts:219-230: the name as given (WDA lowercases it); durationSeconds as WDA's duration
    name, seconds = params.get("name"), params.get("durationSeconds")
    if not name:
        raise Failure(400, "invalid argument", "Button name is mandatory")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)):
        raise Failure(400, "invalid argument", "durationSeconds should be a number")
    body: dict[str, Any] = {"name": name}
    if seconds is not None:
        body["duration"] = seconds
    return wda.call("POST", "/wda/pressButton", body)


def _keys(wda: Proxy, params: dict[str, Any]) -> Any:
    keys = params.get("keys")
    if not isinstance(keys, list):
        raise Failure(400, "invalid argument", "'keys' must be an array")
    element = params.get("elementId") or "0"
    return wda.call("POST", f"/wda/element/{element}/keyboardInput", {"keys": keys})


def _hide_keyboard(wda: Proxy, params: dict[str, Any]) -> Any:
    names = params.get("keys") or ["done"]
    return wda.call("POST", "/wda/keyboard/dismiss", {"keyNames": names})


def _alert(wda: Proxy, params: dict[str, Any]) -> Any:
    # XCUITest's mobile: alert (commands/alert.js): accept and dismiss with an optional buttonLabel,
    # proxied as WDA's {"name"}; getButtons is WDA's /wda/alert/buttons.
    action, label = params.get("action"), params.get("buttonLabel")
    if action == "getButtons":
        return wda.call("GET", "/wda/alert/buttons")
    if action not in ("accept", "dismiss"):
        raise Failure(
            500,
            "unknown error",
            f"The 'action' value should be either 'accept', 'dismiss' or 'getButtons'. '{_js_text(action)}' is "
            "provided instead.",
        )
    return wda.call("POST", f"/alert/{action}", {} if label is None else {"name": label})


def _js_text(value: Any) -> str:
    """``${value}`` in JavaScript, for the JSON values a request carries."""
    if value is None:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _wda_get(route: str) -> MobileHandler:
    def handler(wda: Proxy, _params: dict[str, Any]) -> Any:
        return wda.call("GET", route)

    return handler


#: Rule 5: the bytes a recording holds in the fake (an MP4's ``ftyp`` box and an empty ``moov``).
VIDEO_BYTES = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\x00\x00\x00\x08moov"


def _audit(wda: Proxy, params: dict[str, Any]) -> Any:
    return wda.call("POST", "/wda/performAccessibilityAudit", {"auditTypes": params.get("auditTypes", [])})


def _start_video(wda: Proxy, params: dict[str, Any]) -> Any:
    if not wda.phone.simulator and "xctest_screen_record" not in wda.phone.features:
        # xctest-record-screen.ts: on a real device, unless a RemoteXPC tunnel can delete the video after
        # (iOS 18+ with a tunnel, which the fake's phones have none of), the feature must be allowed.
        raise insecure("xctest_screen_record")
    body: dict[str, Any] = {k: params[k] for k in ("fps", "codec") if isinstance(params.get(k), int)}
    return wda.call("POST", "/wda/video/start", body)


def _stop_video(wda: Proxy, _params: dict[str, Any]) -> Any:
    info = wda.call("GET", "/wda/video")
    if not isinstance(info, dict):
        raise Failure(500, "unknown error", "There is no active screen recording. Did you start one beforehand?")
    wda.call("POST", "/wda/video/stop", {})
    if not wda.phone.simulator and wda.phone.host == "linux":
        # The video is pulled from the device with Xcode's devicectl, which a Linux host hasn't.
        where = f"the device {wda.phone.udid}"
        raise Failure(
            500,
            "unknown error",
            f"Unable to locate XCTest screen recording identified by '{info.get('uuid')}' for {where}",
        )
    return {**info, "payload": base64.b64encode(VIDEO_BYTES).decode("ascii")}


def insecure(feature: str) -> Failure:
    """Appium's refusal of an insecure feature the server wasn't started with (``--allow-insecure``)."""
    return Failure(
        500,
        "unknown error",
        f"Potentially insecure feature '{feature}' has not been enabled. If you want to enable this feature and accept "
        "the security ramifications, please do so by following the documented instructions at "
        "http://appium.io/docs/en/latest/guides/security/",
    )


def _location(wda: Proxy, params: dict[str, Any]) -> Any:
    return wda.call(
        "POST", "/wda/simulatedLocation", {"latitude": params["latitude"], "longitude": params["longitude"]}
    )


#: Rule 5: XCUITest's words for a simulator-only command on a real device (``biometric.ts``, ``notifications.ts``).
_SIMULATOR_ONLY = {
    "enrollBiometric": "Biometric enrollment can only be performed on Simulator",
    "sendBiometricMatch": "Sending biometric match can only be performed on Simulator",
    "pushNotification": "Push notification can only be performed on Simulator",
}


def _on_simulator(name: str) -> MobileHandler:
    def handler(wda: Proxy, params: dict[str, Any]) -> Any:
        if not wda.phone.simulator:
            raise Failure(500, "unknown error", _SIMULATOR_ONLY[name])
        wda.phone.controls.append((name, dict(params)))
        event = _event_of(name, params)
        if event is not None and wda.phone.events is not None:
            wda.phone.events(event)

    return handler


def _set_appearance(wda: Proxy, params: dict[str, Any]) -> Any:
    """``appearance.ts``: simctl on a simulator, WDA's sessionless ``/wda/device/appearance`` on an iPhone."""
    style = params.get("style")
    if str(style).lower() not in ("light", "dark"):
        raise Failure(500, "unknown error", "The 'style' value is expected to equal either 'light' or 'dark'")
    if _before_ios_12(wda.phone):
        raise Failure(500, "unknown error", "Changing appearance is only supported since iOS 12")
    if wda.phone.simulator:
        wda.phone.controls.append(("setAppearance", dict(params)))
        return None
    return wda.call_bare("POST", "/wda/device/appearance", {"name": style})


def _get_appearance(wda: Proxy, _params: dict[str, Any]) -> Any:
    """``appearance.ts``: the simulator's (the last one set, here), else WDA's ``userInterfaceStyle``."""
    if _before_ios_12(wda.phone):
        return {"style": "unsupported"}
    if wda.phone.simulator:
        told = [c for name, c in wda.phone.controls if name == "setAppearance"]
        if told:
            return {"style": str(told[-1]["style"]).lower()}
    info = wda.call("GET", "/wda/device/info")
    style = info.get("userInterfaceStyle") if isinstance(info, dict) else None
    return {"style": style or "unknown"}


def _before_ios_12(phone: Phone) -> bool:
    major = (phone.platform_version or phone.script.device.ios).split(".", 1)[0]
    return major.isdigit() and int(major) < 12


#: Rule 6: the services appium-ios-simulator 10.1 sets in the simulator's TCC database (its ``SERVICES``).
TCC_SERVICES = (
    "calendar", "camera", "contacts", "faceid", "health", "homekit", "medialibrary", "microphone", "motion",
    "photos", "reminders", "siri", "speech", "usertracking",
)  # fmt: skip
_SIMCTL_PRIVACY = ("location", "location-always")
#: The scripted phone's name of a TCC service, where it isn't XCUITest's.
_PHONE_NAMES = {"medialibrary": "media-library", "usertracking": "tracking"}
_STATUS = {"yes": True, "no": False, "unset": None}


def _set_permission(wda: Proxy, params: dict[str, Any]) -> Any:
    if wda.phone.script.device.kind is not DeviceKind.SIMULATOR:
        raise Failure(500, "unknown error", "Setting permissions can only be performed on Simulator")
    bundle, access = _bundle(params), params["access"]
    if not isinstance(access, dict):
        raise Failure(500, "unknown error", "The 'access' option is expected to be a map")
    # simctl's first, as setAccess runs them before it looks at the TCC ones
    _apply(wda, bundle, [(k, _simctl_status(k, v)) for k, v in access.items() if k in _SIMCTL_PRIVACY])
    native = [_tcc_status(k, v) for k, v in access.items() if k not in _SIMCTL_PRIVACY]
    _apply(wda, bundle, native)
    return True


def _simctl_status(service: str, status: Any) -> bool | None:
    word = status.lower() if isinstance(status, str) else status
    if not isinstance(word, str) or word not in _STATUS:
        raise Failure(
            500, "unknown error", f"{service} does not support {status}. Please specify 'yes', 'no' or 'unset'."
        )
    return _STATUS[word]


def _tcc_status(service: str, status: Any) -> tuple[str, bool | None]:
    name = service.lower()
    if name not in TCC_SERVICES:
        known = json.dumps(list(TCC_SERVICES), separators=(",", ":"))
        message = f"'{service}' is unknown. Only the following service names are supported: {known}"
        raise Failure(500, "unknown error", message)
    word = status.lower() if isinstance(status, str) else status
    if word == "limited" and name == "photos":
        word = "yes"
    if not isinstance(word, str) or word not in _STATUS:
        raise Failure(500, "unknown error", f"'{status}' is not a supported value for '{service}'")
    return _PHONE_NAMES.get(name, name), _STATUS[word]


def _apply(wda: Proxy, bundle: str, chosen: list[tuple[str, bool | None]]) -> None:
    for service, allow in chosen:
        wda.phone.controls.append(("setPermission", {"bundleId": bundle, "service": service, "allow": allow}))
        if wda.phone.privacy is not None:
            wda.phone.privacy(bundle, service, allow)


def _event_of(name: str, params: dict[str, Any]) -> DeviceEvent | None:
    """Rule 5: the device step a ``sendBiometricMatch`` or ``pushNotification`` is, for the scripted phone."""
    try:
        if name == "sendBiometricMatch":
            op = Op.BIOMETRIC_MATCH if params.get("match", True) else Op.BIOMETRIC_FAIL
            return DeviceEvent(op, sensor=str(params.get("type", "faceId")))
        if name == "pushNotification":
            payload = json.dumps(params["payload"]).encode()
            return DeviceEvent(Op.PUSH, file="payload.json", payload=payload, bundle=str(params["bundleId"]))
    except (ValueError, TypeError):
        return None  # what XCUITest would pass on and the phone can't read: kept in controls only
    return None


#: ``mobile:`` name → its optional arguments (XCUITest's ``execute-method-map.ts``): what a refusal names.
OPTIONAL: dict[str, tuple[str, ...]] = {
    "source": ("format", "excludedAttributes"),
    "tap": ("elementId",),
    "doubleTap": ("elementId", "x", "y"),
    "touchAndHold": ("x", "y", "elementId"),
    "dragFromToForDuration": ("elementId",),
    "swipe": ("velocity", "elementId"),
    "launchApp": ("arguments", "environment"),
    "listApps": ("applicationType", "returnAttributes"),
    "deepLink": ("bundleId",),
    "pressButton": ("durationSeconds",),
    "keys": ("elementId",),
    "hideKeyboard": ("keys",),
    "alert": ("buttonLabel",),
    "performAccessibilityAudit": ("auditTypes",),
    "startXCTestScreenRecording": ("fps", "codec"),
    "stopXCTestScreenRecording": ("remotePath", "user", "pass", "headers", "fileFieldName", "formFields", "method"),
    "enrollBiometric": ("isEnabled",),
    "sendBiometricMatch": ("type", "match"),
}
#: ``mobile:`` name → (required arguments, handler), XCUITest's argument names (Rule 2).
MOBILE: dict[str, tuple[tuple[str, ...], MobileHandler]] = {
    "source": ((), _source),
    "activeAppInfo": ((), _wda_get("/wda/activeAppInfo")),
    "deviceInfo": ((), _device_info),
    "deviceScreenInfo": ((), _wda_get("/wda/screen")),
    "tap": (("x", "y"), _tap),
    "doubleTap": ((), _double_tap),
    "touchAndHold": (("duration",), _touch_and_hold),
    "dragFromToForDuration": (("duration", "fromX", "fromY", "toX", "toY"), _drag),
    "swipe": (("direction",), _swipe),
    "launchApp": (("bundleId",), _launch_app),
    "activateApp": (("bundleId",), _app_route("/wda/apps/activate")),
    "terminateApp": (("bundleId",), _app_route("/wda/apps/terminate")),
    "queryAppState": (("bundleId",), _app_route("/wda/apps/state")),
    "isAppInstalled": (("bundleId",), _is_installed),
    "listApps": ((), _list_apps),
    "deepLink": (("url",), _deep_link),
    "pressButton": (("name",), _press_button),
    "keys": (("keys",), _keys),
    "hideKeyboard": ((), _hide_keyboard),
    "alert": (("action",), _alert),
    # Rule 5
    "performAccessibilityAudit": ((), _audit),
    "startXCTestScreenRecording": ((), _start_video),
    "stopXCTestScreenRecording": ((), _stop_video),
    "setSimulatedLocation": (("latitude", "longitude"), _location),
    "setAppearance": (("style",), _set_appearance),
    "getAppearance": ((), _get_appearance),
    "enrollBiometric": ((), _on_simulator("enrollBiometric")),
    "sendBiometricMatch": ((), _on_simulator("sendBiometricMatch")),
    "pushNotification": (("bundleId", "payload"), _on_simulator("pushNotification")),
    # Rule 6
    "setPermission": (("access", "bundleId"), _set_permission),
}
