r"""The fake Appium's Android sessions: Appium 3.8's UiAutomator2 driver 8.7 in front of a fake device.

An :class:`AndroidAppium` is what ``appium-uiautomator2-driver`` is to one Android device: it
starts the device's UiAutomator2 server (a :class:`~mobster_drivers.testing.uiautomator2.FakeUiAutomator2`)
as the driver does through adb, proxies the W3C routes to it over HTTP, and runs on the device's
shell (``_uia2/shell``, the fake ``adb``'s) the command lines appium-adb sends for the ``mobile:``
methods that are adb's. The fake Appium (``appium``) hands it every request of an Android session.

Rule 1 (a new session, ``appium/lib/appium.ts`` then the driver's ``createSession``): the merged
        capabilities must name ``UiAutomator2`` and ``Android`` (the fake Appium's Rule 3 refuses
        the rest); an ``appium:udid`` other than the device's serial is 500 ``unknown error``
        "Device X was not in the list of connected devices". One device, one session: a new one
        ends the live one (the driver's session claim, ``session-claim-handler.ts``), whose
        commands then get 404 ``invalid session id``. The device receives what the real driver
        sends at session start with ``skipServerInstallation``/``skipDeviceInitialization``
        (android-facts.md §3.2: the two ``getprop``\ s, the hidden-API ``settings put`` line,
        ``am force-stop`` of the server's two packages, ``am instrument``), then the server gets
        ``POST /session`` with the driver's ``firstMatch`` (the caps without ``appium:``, the
        legacy keys, ``desired``, ``deviceName``, ``deviceUDID``) and the four reads of
        ``driver.ts:461-484`` (pixel ratio, window size, system bars, device info). Ending a session
        deletes the server's, then sends what the driver's ``deleteSession`` sends (``ps``, ``am
        force-stop`` of the server's packages, the recorder's ``dumpsys``, the ``settings delete`` line).
Rule 2 (the reply's capabilities, measured against the real driver): the request's capabilities
        without ``appium:``, the W3C names first, each kind in the request's order, then
        ``platform: "LINUX"``, ``webStorageEnabled``,
        ``takesScreenshot``, ``javascriptEnabled``, ``databaseEnabled``,
        ``networkConnectionEnabled``, ``locationContextEnabled``, ``warnings``, ``desired``,
        ``deviceName`` and ``deviceUDID`` (the serial), ``pixelRatio`` (a string), ``statBarHeight``,
        ``viewportRect``, ``deviceApiLevel`` (a number), ``platformVersion``,
        ``deviceManufacturer``, ``deviceModel``, ``deviceScreenSize``, ``deviceScreenDensity``.
        ``GET /session/{id}`` answers the request's capabilities without ``appium:`` and the
        server's echo of its own request (``firstMatch``, ``alwaysMatch``), as the driver merges
        them; ``/appium/sessions`` lists the request's.
Rule 3 (W3C routes, the driver's ``NO_PROXY`` and its proxy): ``GET /source``, ``GET /screenshot``,
        ``POST /actions``, ``POST /back``, ``GET /element/active``, ``/element/{id}/…`` and the
        settings are passed to the server as they are; ``GET /window/rect`` is the server's
        ``/window/current/size`` with ``x``/``y`` 0; ``POST /keys`` is the server's ``/keys``
        ``{text, replace: false}`` (``keyboard.ts``' ``keys``); ``POST /element(s)`` takes the
        driver's strategies (another is 400 ``invalid selector`` "Locator Strategy 'X' is not
        supported for this session") and sends the server ``{strategy, selector, context,
        multiple}``; the server's 404 ``no such element`` to a find comes back with a trailing
        ``.``, ``elements`` as ``[]``; ``POST /timeouts`` is Appium's own. Anything else is 404
        ``unknown command``. A server error reply keeps its code, status and message.
Rule 4 (``mobile:`` methods, ``execute-method-map.ts`` of both packages: names, required and
        optional arguments, the missing-argument message): ``deviceInfo``, ``pressKey``,
        ``listWindows``, ``acceptAlert``/``dismissAlert`` go to the server; ``isAppInstalled``,
        ``listApps``, ``queryAppState``, ``activateApp``, ``terminateApp``, ``clearApp``,
        ``changePermissions``, ``startActivity``, ``deepLink``, ``hideKeyboard``,
        ``isKeyboardShown``, ``getCurrentPackage`` and ``getUiMode`` run appium-adb's command
        lines on the device and read their output as it does (the lines are those the real driver
        was seen to send through the fake adb); a failed adb command is 500 ``unknown error``
        "Error executing adbExec. …" with the device's output. ``shell`` is refused as Appium
        refuses an insecure feature that wasn't allowed; an unknown method is 500 ``unsupported
        operation`` with the driver's list; a script that isn't ``mobile:`` is 405.
Rule 5 (a server that stopped, ``uiautomator2-server/core.ts:59-76``, measured): while the
        device's ``am instrument`` isn't running, every command that would go to the server is
        500 ``unknown error`` "'GET /session/{id}/source' cannot be proxied to UiAutomator2
        server because the instrumentation process is not running (probably crashed). …" (a
        ``mobile:`` method names the server's route, ``'GET /appium/device/info'``); the adb
        methods still answer, and ``DELETE`` ends the session.

Not modelled: the waits appium-adb makes between polls (``hideKeyboard`` checks once after each
key; ``terminateApp`` doesn't poll), ``appium:app`` installs, the chromedriver and web contexts,
``mobile: shell`` with ``--allow-insecure``, which device a session without a UDID picks among
several (the fake has one), an ``X-Idempotency-Key`` and the fake Appium's ``max_sessions`` for an
Android session, and a connection through the forward dropped when the server stops (the real
driver notices the end of ``am instrument`` first; the fake answers at once as it would then).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from mobster_drivers.devices.scripted import AppScript

from ._appium_mobile import Failure
from ._uia2.shell import run_line
from ._uia2.state import SERVER_PACKAGE, TEST_PACKAGE, AndroidState
from .uiautomator2 import FakeUiAutomator2

__all__ = ["AndroidAppium", "is_uiautomator2"]

_INSTRUMENTATION = f"{TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner"
_LEGACY: Mapping[str, Any] = {
    "platform": "LINUX",
    "webStorageEnabled": False,
    "takesScreenshot": True,
    "javascriptEnabled": True,
    "databaseEnabled": False,
    "networkConnectionEnabled": True,
    "locationContextEnabled": False,
    "warnings": {},
}
_GONE = "A session is either terminated or not started"
_UNKNOWN_ROUTE = (
    "The requested resource could not be found, or a request was received using an HTTP method that is not "
    "supported by the mapped resource."
)
_NOT_FOUND = "An element could not be located on the page using the given search parameters"
_STRATEGIES = frozenset(
    {
        "xpath",
        "id",
        "class name",
        "accessibility id",
        "css selector",
        "-android uiautomator",
        "-android viewtag",
        "-android datamatcher",
        "-android viewmatcher",
    }
)
_INSECURE = (
    "Potentially insecure feature '{feature}' has not been enabled. If you want to enable this feature and accept "
    "the security ramifications, please do so by following the documented instructions at "
    "http://appium.io/docs/en/latest/guides/security/"
)
#: The execute methods the driver lists when one is unknown, in its order (measured, 8.7.0).
_LISTED = (  # noqa: SIM905 - the driver's list as it prints it, one string
    "lock nfc unlock listSms powerAc scroll shell type broadcast gsmCall gsmVoice isLocked listApps pressKey "
    "pushFile sendSms sensorSet bluetooth clearApp deepLink pullFile removeApp statusBar toggleGps deviceInfo "
    "deviceidle dragGesture flingGesture getUiMode gsmSignal installApp pullFolder setUiMode stopService "
    "clickGesture deleteFile fingerprint getContexts listWindows networkSpeed screenshots scrollBackTo "
    "scrollGesture swipeGesture viewportRect acceptAlert activateApp batteryInfo dismissAlert isGpsEnabled "
    "listDisplays powerCapacity startService terminateApp backgroundApp getClipboard getDeviceTime getGeolocation "
    "getSystemBars hideKeyboard refreshGpsCache scheduleAction setClipboard setGeolocation startActivity "
    "getAppStrings getConnectivity getPermissions isAppInstalled isKeyboardShown longClickGesture "
    "pinchCloseGesture pinchOpenGesture queryAppState sendTrimMemory setConnectivity unscheduleAction "
    "getActionHistory getNotifications openNotifications resetGeolocation stopLogsBroadcast changePermissions "
    "doubleClickGesture getCurrentPackage startLogsBroadcast viewportScreenshot getCurrentActivity "
    "getDisplayDensity getPerformanceData installMultipleApks performEditorAction stopScreenStreaming "
    "viewportElementRect replaceElementValue execEmuConsoleCommand setStylusHandwriting startScreenStreaming "
    "getChromeCapabilities resetAccessibilityCache getDeclaredOrientation getPerformanceDataTypes "
    "injectEmulatorCameraImage stopMediaProjectionRecording startMediaProjectionRecording "
    "isMediaProjectionRecordingRunning"
).split()
_INTENT = (
    "user",
    "intent",
    "action",
    "package",
    "uri",
    "mimeType",
    "identifier",
    "component",
    "categories",
    "extras",
    "flags",
)
#: Rule 4: each modelled method's required and optional arguments (``execute-method-map.ts``).
_ARGS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "deviceInfo": ((), ()),
    "pressKey": (("keycode",), ("metastate", "flags", "isLongPress", "source")),
    "listWindows": ((), ("filters", "skipScreenshots")),
    "acceptAlert": ((), ("buttonLabel",)),
    "dismissAlert": ((), ("buttonLabel",)),
    "isAppInstalled": (("appId",), ("user",)),
    "listApps": ((), ("user",)),
    "queryAppState": (("appId",), ()),
    "activateApp": (("appId",), ()),
    "terminateApp": (("appId",), ("timeout",)),
    "clearApp": (("appId",), ()),
    "changePermissions": (("permissions",), ("appPackage", "action", "target")),
    "startActivity": ((), ("wait", "stop", "windowingMode", "activityType", "display", *_INTENT)),
    "deepLink": (("url",), ("package", "waitForLaunch")),
    "hideKeyboard": ((), ()),
    "isKeyboardShown": ((), ()),
    "getCurrentPackage": ((), ()),
    "getUiMode": (("mode",), ()),
    "shell": (("command",), ("args", "timeout", "includeStderr")),
}
#: Rule 3: the routes passed to the server as they are.
_PASSED = frozenset(
    {
        ("GET", "/source"),
        ("GET", "/screenshot"),
        ("POST", "/actions"),
        ("POST", "/back"),
        ("GET", "/element/active"),
        ("GET", "/appium/settings"),
        ("POST", "/appium/settings"),
    }
)
_FIND = re.compile(r"^/element/[^/]+/(click|clear|text|rect|attribute/[^/]+|name|size|location)$")
_PROCESS = "ProcessRecord{{[0-9a-f]+ \\d+:{package}/"


def is_uiautomator2(caps: Mapping[str, Any]) -> bool:
    """Whether merged capabilities ask for the UiAutomator2 driver on Android (Rule 1)."""
    automation = caps.get("appium:automationName", caps.get("automationName"))
    platform = caps.get("platformName", caps.get("appium:platformName"))
    return (
        isinstance(automation, str)
        and automation.lower() == "uiautomator2"
        and isinstance(platform, str)
        and platform.lower() == "android"
    )


@attrs.define(eq=False)
class _Session:
    id: str
    requested: dict[str, Any]
    capabilities: dict[str, Any]
    kept: dict[str, Any]
    server_session: str
    idle_limit: float | None
    last: float
    lock: threading.Lock = attrs.field(factory=threading.Lock)


class AndroidAppium:
    """The UiAutomator2 driver in front of one fake Android device (the module rules).

    ``server`` is the device (started by the caller, or by :meth:`start` when it is made here from
    ``app``); ``now`` is the fake Appium's clock (idle limits); ``idle_timeout`` a provider's own limit.
    """

    def __init__(
        self,
        server: FakeUiAutomator2,
        *,
        now: Callable[[], float],
        idle_timeout: float | None = None,
        own: bool = False,
        script: AppScript,
    ) -> None:
        self.server = server
        self.script = script
        self._own = own
        self._now = now
        self._idle_timeout = idle_timeout
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self._claimed: dict[str, _Session] = {}

    # -- life ----------------------------------------------------------------------------------

    def start(self) -> None:
        if self._own:
            self.server.start()

    def stop(self) -> None:
        if self._own:
            self.server.stop()

    @property
    def serial(self) -> str:
        return self.server.serial

    def knows(self, sid: str) -> bool:
        with self._lock:
            return sid in self._sessions or sid in self._claimed

    def listed(self) -> list[dict[str, Any]]:
        """``/appium/sessions``' entries (Rule 2)."""
        with self._lock:
            listed = [*self._sessions.values(), *self._claimed.values()]
        mine = ("firstMatch", "alwaysMatch")  # the server's echo: GET /session/{id} only
        return [{"id": s.id, "capabilities": {k: v for k, v in s.kept.items() if k not in mine}} for s in listed]

    @property
    def sessions(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {sid: dict(s.requested) for sid, s in self._sessions.items()}

    def end_all(self) -> None:
        with self._lock:
            live = list(self._sessions.values())
        for session in live:
            self._end(session)

    # -- Rule 1 --------------------------------------------------------------------------------

    def create(self, caps: dict[str, Any], idle_limit: float | None) -> dict[str, Any]:
        udid = caps.get("appium:udid")
        if udid is not None and udid != self.serial:
            raise Failure(500, "unknown error", f"Device {udid} was not in the list of connected devices")
        with self._lock:
            live = list(self._sessions.values())
        for old in live:  # the driver's session claim
            self._end(old, claimed=True)
        self._adb(
            [
                "getprop ro.build.version.sdk",
                "getprop ro.build.version.release",
                (
                    "settings put global hidden_api_policy_pre_p_apps 1;settings put global hidden_api_policy_p_apps 1;"
                    "settings put global hidden_api_policy 1"
                ),
                f"am force-stop {TEST_PACKAGE}",
                f"am force-stop {SERVER_PACKAGE}",
            ]
        )
        self._instrument()
        kept, server_session, reply = self._server_session(caps)
        limits = [t for t in (idle_limit, self._idle_timeout) if t is not None]
        session = _Session(
            id=_uuid4(),
            requested=dict(caps),
            capabilities=reply,
            kept=kept,
            server_session=server_session,
            idle_limit=min(limits) if limits else None,
            last=self._now(),
        )
        with self._lock:
            self._sessions[session.id] = session
        return {"capabilities": dict(reply), "sessionId": session.id}

    def _server_session(self, caps: dict[str, Any]) -> tuple[dict[str, Any], str, dict[str, Any]]:
        """Rule 1's server session and Rule 2's capabilities: those kept, the server's session id, the reply's."""
        ordered = sorted(caps.items(), key=lambda item: item[0].startswith("appium:"))  # W3C names first (stable)
        bare = {k.removeprefix("appium:"): v for k, v in ordered}
        first = {**bare, **_LEGACY, "desired": dict(bare), "deviceName": self.serial, "deviceUDID": self.serial}
        asked = {"capabilities": {"firstMatch": [first], "alwaysMatch": {}}}
        made = self._server("POST", "/session", asked)
        server_session = made.get("sessionId") if isinstance(made, dict) else None
        if not isinstance(server_session, str):
            raise Failure(500, "unknown error", "The UiAutomator2 server created no session")
        base = f"/session/{server_session}"
        ratio = self._server("GET", f"{base}/appium/device/pixel_ratio")
        size = self._server("GET", f"{base}/window/current/size")
        bars = self._server("GET", f"{base}/appium/device/system_bars")
        info = self._server("GET", f"{base}/appium/device/info")
        top = int(bars.get("statusBar", 0)) if isinstance(bars, dict) else 0
        width, height = int(size["width"]), int(size["height"])
        reply = {
            **first,
            "pixelRatio": _number_text(ratio),
            "statBarHeight": top,
            "viewportRect": {"left": 0, "top": top, "width": width, "height": height - top},
            "deviceApiLevel": int(info["apiVersion"]),
            "platformVersion": info["platformVersion"],
            "deviceManufacturer": info["manufacturer"],
            "deviceModel": info["model"],
            "deviceScreenSize": info["realDisplaySize"],
            "deviceScreenDensity": info["displayDensity"],
        }
        return {**bare, "firstMatch": [first], "alwaysMatch": {}}, server_session, reply

    def _instrument(self) -> None:
        def start(state: AndroidState) -> None:
            state.commands.append(["am", "instrument", _INSTRUMENTATION])
            state.instrumented = True

        self.server.on_loop(start)

    def _end(self, session: _Session, *, claimed: bool = False) -> None:
        with self._lock:
            if self._sessions.pop(session.id, None) is None:
                return
            if claimed:
                self._claimed[session.id] = session
        with contextlib.suppress(Failure):
            self._server("DELETE", f"/session/{session.server_session}")
        with contextlib.suppress(Failure):  # the driver's deleteSession, in its order (measured)
            self._adb(
                [
                    "ps --help",
                    "ps -A",
                    f"am force-stop {SERVER_PACKAGE}",
                    f"am force-stop {TEST_PACKAGE}",
                    "dumpsys activity services io.appium.settings/.recorder.RecorderService",
                    (
                        "settings delete global hidden_api_policy_pre_p_apps;settings delete global "
                        "hidden_api_policy_p_apps;settings delete global hidden_api_policy"
                    ),
                ]
            )

    # -- a session's commands (Rules 3, 4) -----------------------------------------------------

    def command(self, sid: str, method: str, route: str, body: dict[str, Any]) -> Any:
        session = self._live(sid)
        with session.lock:
            try:
                return self._route(session, method, route, body)
            finally:
                session.last = self._now()

    def _live(self, sid: str) -> _Session:
        with self._lock:
            session = self._sessions.get(sid)
        if session is not None and session.idle_limit is not None and self._now() - session.last > session.idle_limit:
            self._end(session)
            session = None
        if session is None:
            raise Failure(404, "invalid session id", _GONE)
        return session

    def _route(self, session: _Session, method: str, route: str, body: dict[str, Any]) -> Any:
        base = f"/session/{session.server_session}"
        own = _OWN.get((method, route))
        if own is not None:
            return own(self, session, body)
        if method == "POST" and route in ("/element", "/elements"):
            return self._find(base, body, multiple=route == "/elements")
        if (method, route) in _PASSED or _FIND.match(route):
            shown = f"/session/{session.id}{route}"
            return self._server(method, f"{base}{route}", body if method == "POST" else None, shown=shown)
        raise Failure(404, "unknown command", _UNKNOWN_ROUTE)

    def _quit(self, session: _Session, _body: dict[str, Any]) -> Any:
        self._end(session)

    def _window_rect(self, session: _Session, _body: dict[str, Any]) -> Any:
        size = self._server("GET", f"/session/{session.server_session}/window/current/size")
        return {**size, "x": 0, "y": 0}

    def _keys(self, session: _Session, body: dict[str, Any]) -> Any:
        value = body.get("value", body.get("text"))
        text = "".join(str(v) for v in value) if isinstance(value, list) else value
        if not isinstance(text, str):
            raise Failure(400, "invalid argument", _missing(["value"], ("value",), list(body), ()))
        return self._server("POST", f"/session/{session.server_session}/keys", {"text": text, "replace": False})

    def _find(self, base: str, body: dict[str, Any], *, multiple: bool) -> Any:
        using, value = body.get("using"), body.get("value")
        if not isinstance(using, str) or not isinstance(value, str):
            raise Failure(400, "invalid argument", "'using' and 'value' are required")
        if using not in _STRATEGIES:
            raise Failure(400, "invalid selector", f"Locator Strategy '{using}' is not supported for this session")
        wanted = {"strategy": using, "selector": value, "context": "", "multiple": multiple}
        try:
            return self._server("POST", f"{base}/elements" if multiple else f"{base}/element", wanted)
        except Failure as failure:
            if failure.error == "no such element" and not multiple:
                raise Failure(404, "no such element", f"{_NOT_FOUND}.") from failure
            raise

    def _execute(self, session: _Session, body: dict[str, Any]) -> Any:
        script, args = body.get("script"), body.get("args", [])
        if not isinstance(script, str) or not script.strip().startswith("mobile:"):
            raise Failure(405, "unknown method", "Method is not implemented")
        name = script.strip().removeprefix("mobile:").strip()
        params = args[0] if isinstance(args, list) and args else {}
        if not isinstance(params, dict):
            raise Failure(400, "invalid argument", "The arguments of a mobile: method are one object")
        spec = _ARGS.get(name)
        if spec is None:
            listed = ", ".join(f"mobile: {n}" for n in _LISTED)
            raise Failure(
                500,
                "unsupported operation",
                f"Unsupported execute method '{script.strip()}'. Make sure the installed AndroidUiautomator2Driver "
                f"is up-to-date. Execute methods available in the current driver version are: {listed}",
            )
        required, optional = spec
        missing = [p for p in required if p not in params]
        if missing:
            raise Failure(400, "invalid argument", _missing(missing, required, list(params), optional))
        if name == "shell":
            raise Failure(500, "unknown error", _INSECURE.format(feature="adb_shell"))
        return _METHODS[name](self, f"/session/{session.server_session}", params)

    # -- the device: its server and its shell --------------------------------------------------

    def _server(self, method: str, path: str, body: Any = None, *, shown: str | None = None) -> Any:
        """One request to the device's UiAutomator2 server; its error reply as a ``Failure`` (Rule 3).

        While the device's ``am instrument`` isn't running (the server stopped) nothing is sent: the
        driver's words (Rule 5), naming ``shown`` (the client's route) or the server's route.
        """
        if not self.server.on_loop(lambda state: state.instrumented):
            named = shown or re.sub(r"^/session/[^/]+", "", path)
            raise Failure(
                500,
                "unknown error",
                f"'{method} {named}' cannot be proxied to UiAutomator2 server because the instrumentation process "
                "is not running (probably crashed). Check the server log and/or the logcat output for more details",
            )
        data = None if body is None else json.dumps(body).encode("utf-8")
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=240)
        try:
            connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
            reply = connection.getresponse()
            status, raw = reply.status, reply.read()
        except OSError as exc:
            raise Failure(
                500, "unknown error", f"Could not proxy command to the remote server. Original error: {exc}"
            ) from exc
        finally:
            connection.close()
        try:
            parsed = json.loads(raw)
        except ValueError as exc:
            raise Failure(500, "unknown error", "The UiAutomator2 server sent a reply that is not JSON") from exc
        value = parsed.get("value") if isinstance(parsed, dict) else None
        if status >= 400 and isinstance(value, dict):
            raise Failure(status, str(value.get("error", "unknown error")), str(value.get("message", "")))
        return value

    def _adb(self, lines: Sequence[str]) -> str:
        """Run each line on the device's shell (what ``adb shell`` gets); its output, or a ``Failure``."""
        out = []
        for line in lines:
            printed, err, code = self.server.run(run_line(self.server.state, line))
            text = printed.decode("utf-8", "replace")
            if code != 0:
                raise Failure(
                    500,
                    "unknown error",
                    f"Error executing adbExec. Original error: 'Command 'adb -P 5037 -s {self.serial} shell {line}' "
                    f"exited with code {code}'; Command output: {(text + err).strip()}",
                )
            out.append(text)
        return "".join(out)

    # -- Rule 4's adb methods (appium-adb's lines and parsing) ---------------------------------

    def _packages(self) -> dict[str, int | None]:
        text = self._adb(["cmd package list packages --show-versioncode"])
        found: dict[str, int | None] = {}
        for line in text.splitlines():
            match = re.match(r"package:(\S+)(?:\s+versionCode:(\d+))?", line.strip())
            if match:
                found[match.group(1)] = int(match.group(2)) if match.group(2) else None
        return found

    def _running(self, package: str) -> bool:
        return (
            re.search(_PROCESS.format(package=re.escape(package)), self._adb(["dumpsys activity processes"]))
            is not None
        )

    def _focused(self) -> str | None:
        text = self._adb(["dumpsys window displays"])
        match = re.search(r"mCurrentFocus=Window\{\S+ \S+ ([^/\s}]+)", text) or re.search(
            r"mFocusedApp=\S*Record\{\S+ \S+ ([^/\s}]+)", text
        )
        return match.group(1) if match else None

    def _keyboard(self) -> tuple[bool, bool]:
        text = self._adb(["dumpsys input_method"])
        shown = re.search(r"mInputShown=(\w+)", text)
        view = re.search(r"mIsInputViewShown=(\w+)", text)
        return (bool(shown and shown.group(1) == "true"), bool(view and view.group(1) == "true"))

    def _started(self, line: str) -> str:
        text = self._adb([line])
        if re.search(r"^error:", text, re.IGNORECASE | re.MULTILINE) or "unable to resolve intent" in text.lower():
            raise Failure(500, "unknown error", f"Cannot start the activity. Original error: {text.strip()}")
        return text


def _device_info(front: AndroidAppium, base: str, _p: dict[str, Any]) -> Any:
    return front._server("GET", f"{base}/appium/device/info")  # noqa: SLF001 - the module's own


def _press_key(front: AndroidAppium, base: str, p: dict[str, Any]) -> Any:
    route = "long_press_keycode" if p.get("isLongPress") else "press_keycode"
    body = {
        "keycode": p["keycode"],
        "metastate": p.get("metastate"),
        "flags": p.get("flags"),
        "source": p.get("source"),
    }
    return front._server("POST", f"{base}/appium/device/{route}", body)  # noqa: SLF001


def _list_windows(front: AndroidAppium, base: str, p: dict[str, Any]) -> Any:
    body = {"filters": p.get("filters"), "skipScreenshots": p.get("skipScreenshots")}
    return front._server("POST", f"{base}/appium/list_windows", body)  # noqa: SLF001


def _alert(action: str) -> Callable[[AndroidAppium, str, dict[str, Any]], Any]:
    def answer(front: AndroidAppium, base: str, p: dict[str, Any]) -> Any:
        return front._server("POST", f"{base}/alert/{action}", {"buttonLabel": p.get("buttonLabel")})  # noqa: SLF001

    return answer


def _installed(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    return str(p["appId"]) in front._packages()  # noqa: SLF001


def _list_apps(front: AndroidAppium, _base: str, _p: dict[str, Any]) -> Any:
    return {pkg: {"packageName": pkg, "versionCode": code} for pkg, code in front._packages().items()}  # noqa: SLF001


def _app_state(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    package = str(p["appId"])
    if package not in front._packages():  # noqa: SLF001
        return 0
    if not front._running(package):  # noqa: SLF001
        return 1
    return 4 if front._focused() == package else 3  # noqa: SLF001


def _activate(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    package = str(p["appId"])
    resolved = front._adb([f"cmd package resolve-activity --brief {package}"]).strip().splitlines()  # noqa: SLF001
    last = resolved[-1].strip() if resolved else ""
    if "/" not in last:
        raise Failure(
            500,
            "unknown error",
            f"Unable to resolve the launchable activity of '{package}'. Original error: No activity found",
        )
    front._started(  # noqa: SLF001
        f"am start-activity -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -f 0x10200000 -n {last}"
    )
    return None


def _terminate(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    package = str(p["appId"])
    if not front._running(package):  # noqa: SLF001
        return False
    front._adb([f"am force-stop {package}"])  # noqa: SLF001
    return True


def _clear(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    front._adb([f"pm clear {p['appId']}"])  # noqa: SLF001
    return None


def _permissions(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    package = p.get("appPackage")
    if not isinstance(package, str) or not package:
        raise Failure(400, "invalid argument", "A valid appPackage must be provided")
    action = str(p.get("action") or "grant").lower()
    if action not in ("grant", "revoke"):
        raise Failure(
            400, "invalid argument", f'Unknown action \'{action}\'. Only ["grant","revoke"] actions are supported'
        )
    given = p["permissions"]
    names = [given] if isinstance(given, str) else list(given)
    if not names:
        raise Failure(400, "invalid argument", "'permissions' argument must not be empty")
    try:
        if action == "grant":  # one line, each `pm grant … ;` (app-commands.ts:229-243)
            front._adb(["".join(f"pm grant {package} {name} ;" for name in names)])  # noqa: SLF001
        else:
            for name in names:
                front._adb([f"pm revoke {package} {name}"])  # noqa: SLF001
    except Failure as failure:
        if re.search(r"not a changeable permission type|Unknown permission", failure.message, re.IGNORECASE):
            return None  # IGNORED_PERM_ERRORS
        raise
    return None


def _start_activity(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    words = ["am start-activity"]
    words += ["-W"] if p.get("wait") else []
    words += ["-S"] if p.get("stop") else []
    if p.get("component"):
        words += ["-n", str(p["component"])]
    if p.get("action"):
        words += ["-a", str(p["action"])]
    for extra in p.get("extras") or []:
        if isinstance(extra, list) and len(extra) == 3 and extra[0] == "s":
            words += ["--es", str(extra[1]), _quoted(str(extra[2]))]
    return front._started(" ".join(words)).strip()  # noqa: SLF001


def _deep_link(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    url = str(p["url"]).replace("&", "\\&")
    package = p.get("package")
    line = f"am start -W -a android.intent.action.VIEW -d {_quoted(url)}" + (f" {package}" if package else "")
    front._started(line)  # noqa: SLF001
    return None


def _hide_keyboard(front: AndroidAppium, _base: str, _p: dict[str, Any]) -> Any:
    shown, closable = front._keyboard()  # noqa: SLF001
    if not shown:
        return False
    for key in (111, 4):  # ESC, then BACK (keyboard-commands.ts:19-43)
        if closable:
            front._adb([f"input keyevent {key}"])  # noqa: SLF001
        if not front._keyboard()[0]:  # noqa: SLF001
            return True
    raise Failure(500, "unknown error", "The software keyboard cannot be hidden")


def _keyboard_shown(front: AndroidAppium, _base: str, _p: dict[str, Any]) -> Any:
    return front._keyboard()[0]  # noqa: SLF001


def _current_package(front: AndroidAppium, _base: str, _p: dict[str, Any]) -> Any:
    return front._focused()  # noqa: SLF001


def _ui_mode(front: AndroidAppium, _base: str, p: dict[str, Any]) -> Any:
    text = front._adb([f"cmd uimode {p['mode']}"])  # noqa: SLF001
    match = re.search(r"\S+ mode: (\S+)", text)
    if match is None:
        raise Failure(500, "unknown error", f"Cannot parse the command response: {text}")
    return match.group(1)


#: Rule 3: the routes Appium and the driver answer themselves.
_OWN: Mapping[tuple[str, str], Callable[[AndroidAppium, _Session, dict[str, Any]], Any]] = {
    ("DELETE", "/"): AndroidAppium._quit,  # noqa: SLF001 - the class's own
    ("GET", "/"): lambda _front, session, _body: dict(session.kept),
    ("POST", "/execute/sync"): AndroidAppium._execute,  # noqa: SLF001
    ("GET", "/window/rect"): AndroidAppium._window_rect,  # noqa: SLF001
    ("POST", "/keys"): AndroidAppium._keys,  # noqa: SLF001
    ("POST", "/timeouts"): lambda _front, _session, _body: None,
}
_METHODS: Mapping[str, Callable[[AndroidAppium, str, dict[str, Any]], Any]] = {
    "deviceInfo": _device_info,
    "pressKey": _press_key,
    "listWindows": _list_windows,
    "acceptAlert": _alert("accept"),
    "dismissAlert": _alert("dismiss"),
    "isAppInstalled": _installed,
    "listApps": _list_apps,
    "queryAppState": _app_state,
    "activateApp": _activate,
    "terminateApp": _terminate,
    "clearApp": _clear,
    "changePermissions": _permissions,
    "startActivity": _start_activity,
    "deepLink": _deep_link,
    "hideKeyboard": _hide_keyboard,
    "isKeyboardShown": _keyboard_shown,
    "getCurrentPackage": _current_package,
    "getUiMode": _ui_mode,
}


def _quoted(text: str) -> str:
    return text if re.fullmatch(r"[\w:/.\\&=?%+-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def _number_text(value: Any) -> str:
    """The pixel ratio as the driver keeps it: a string, ``"3"`` for 3.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _uuid4() -> str:
    raw = secrets.token_hex(16)
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:32]}"


def _missing(missing: Sequence[str], required: Sequence[str], given: Sequence[str], optional: Sequence[str]) -> str:
    """Appium's words for missing parameters (``@appium/base-driver``'s ``checkParams``)."""

    def listed(names: Sequence[str]) -> str:
        return json.dumps(list(names), separators=(",", ":"))

    noun = "parameter is" if len(missing) == 1 else "parameters are"
    lines = [
        f"The following required {noun} missing: {listed(missing)}",
        f"Known required parameters are: {listed(required)}",
    ]
    if optional:
        lines.append(f"Known optional parameters are: {listed(optional)}")
    lines.append(f"You have provided: {listed(given)}" if given else "You have provided none")
    return "\n".join(lines)
