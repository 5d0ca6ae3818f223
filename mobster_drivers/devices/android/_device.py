"""An Android phone or emulator, driven through the UiAutomator2 server and ``adb`` (``Device`` and its abilities).

Rule 1 (two channels): the UiAutomator2 server (appium/appium-uiautomator2-server, the APKs the
        Appium UiAutomator2 driver installs) answers what it can, over HTTP through ``adb forward
        tcp:N tcp:6790`` (the source, taps and keys, typing, back, windows, screenshots, the
        device's facts); ``adb`` does what the server can't (``AppiumServlet.java`` has no launch,
        deep link, permission or package route): launching, deep links, ``pm grant``, app
        versions, languages, the appearance (``_adb`` Rule 1 says why the executable).
Rule 2 (opening, once, on the first call): the device is the serial given, else the only one
        ``adb devices`` lists; a forward to its port 6790 on a free local port; if the server
        doesn't answer ``/status`` there, ``am instrument -w`` of its test package starts it and
        keeps running (it is stopped at :meth:`AndroidDevice.close`), and ``/status`` is polled
        until it answers (``AndroidTimeouts.server_start``); then ``POST /session``. A server
        that isn't installed is a ``DeviceError`` that says how to install it.
Rule 3 (what it is): the name is the model, the OS the API level with the release beside it (the
        server's ``/appium/device/info``), the kind an ``emulator`` when ``ro.kernel.qemu`` is
        ``1`` (a networked emulator's serial isn't ``emulator-N``) else a ``device``, the locale
        the server's, the appearance ``cmd uimode night``.
Rule 4 (a read): ``GET /source`` read by ``_uiautomator/tree`` with the display's size; when a text
        input has the focus, the server is asked which windows show (``POST /appium/list_windows``
        with the input method's type, 2) and the keyboard's window joins the read (the tree's Rule
        13). The server leaves hidden views out, so the read is the phone's own account: no
        evidence read, no target check.
Rule 5 (actions, each sent once with an explicit timeout): a tap and a long press are W3C pointer
        actions at the element's centre (the latest read's frame, in pixels); ``TYPE`` taps the
        field (the input method comes up, as on iOS) then sends the text to the focused field
        (``POST /keys``, which appends, ``SendKeysToElement.java``); typing into a password field
        that already holds text is refused before anything is sent (the server would set it to its
        bullets and the text); ``SUBMIT`` is the Enter key (66); ``DISMISS_KEYBOARD`` is the Escape
        key (111) while the input method shows, then Back (4) if it still does (as Appium's
        ``hideKeyboard``), nothing when it doesn't; ``BACK`` is ``POST /back``; ``HOME`` the Home
        key (3); a swipe a W3C pointer from a point of the element (or the screen) in the swipe's
        direction; ``LAUNCH_APP`` ``am start-activity`` of the app's launcher activity (the
        launcher: ``HOME``); ``OPEN_URL`` ``am start -W -a android.intent.action.VIEW -d URL``
        with no package: the system chooses, and may ask "Open with" (an alert: ``alerts`` Rule 9).
Rule 6 (errors, mapped here): nothing sent (adb or the server unreachable, no session, an app that
        isn't installed, an action refused before sending) is a ``DeviceError``; an action whose
        reply never came, or that timed out, is an ``UnknownOutcome``; an action the server
        answered with an error reply is a ``DeviceError`` (it says it didn't do it). A read that
        fails is a ``DeviceError``. The original is the ``__cause__``.
Rule 7 (a launch): ``am force-stop`` (``reset: data`` and ``reset: reinstall``: ``pm clear``, which
        wipes the app's data, cache and runtime permissions: the driver installs no APK, so a
        reinstall keeps the installed build), then the permissions the check's policy
        names (``pm grant``/``pm revoke`` of each service's permissions, ``_uiautomator/
        permissions``; one the app doesn't request is skipped), the app's language from API 33
        (``cmd locale set-app-locales``), then the launch: ``am start -W -a android.intent.action.
        VIEW -d URL PKG`` for ``launch.url`` (the package named, so Android asks no one), else
        ``am start-activity -W -n PKG/ACT`` of its launcher activity; ``launch.env`` goes as the
        intent's string extras (``--es``); ``launch.args`` are iOS's and refused. An ``Error:``
        in ``am``'s output (printed with status 0) is a ``DeviceError``.
Rule 8 (an app's version): ``dumpsys package PKG``'s ``versionName`` and ``versionCode``, whole; an
        app that isn't installed is a ``DeviceError``.
Rule 9 (an alert's answer): the button of that label on the latest read, tapped at its centre
        (any dialog: the server's ``/alert/accept`` knows only an ``alertTitle`` or a permission
        dialog, not the chooser).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from mobster_core import (
    Action,
    AppInfo,
    DeviceError,
    DeviceInfo,
    DeviceKind,
    Element,
    LaunchOptions,
    Op,
    Reset,
    UnknownOutcome,
)
from mobster_core import Screen as CoreScreen
from mobster_core.protocols import HOME_SCREENS
from mobster_core.text import normal_locale
from mobster_drivers._uiautomator.gestures import pixels, pointer
from mobster_drivers._uiautomator.permissions import permissions_for
from mobster_drivers._uiautomator.tree import read_source

from ._adb import Adb, AdbFailed, AdbResult, find_adb, package_version, parse_devices, resolved_activity, start_error
from ._http import Uia2Error, Uia2ErrorReply, Uia2Http, Uia2NoReply, Uia2Unreachable

__all__ = ["AndroidDevice", "AndroidTimeouts"]

_log = logging.getLogger("mobster.drivers.android")

SERVER_PORT = 6790
INSTRUMENTATION = "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner"
_LAUNCHER_FLAGS = "0x10200000"
_KEY = {"enter": 66, "home": 3, "back": 4, "escape": 111}
_INPUT_METHOD = 2  # AccessibilityWindowInfo.TYPE_INPUT_METHOD
_TAP_MS, _LONG_PRESS_MS, _SWIPE_MS = 50, 1000, 300
_MAIN = ["-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER", "-f", "0x10200000"]
_INSTALL_HINT = (
    "the UiAutomator2 server isn't installed on {serial}: install Appium's UiAutomator2 driver and run one "
    "session (it installs io.appium.uiautomator2.server and its test package), or adb install the two APKs of "
    "the npm package appium-uiautomator2-server (docs/android.md)"
)


@attrs.frozen
class AndroidTimeouts:
    """How long each kind of call may take, in seconds."""

    adb: float = 30.0
    launch: float = 60.0
    read: float = 30.0
    action: float = 30.0
    server_start: float = 30.0


class AndroidDevice:
    """An Android phone or emulator (the module rules): ``Device``, ``Screenshots``, ``AlertAnswers``, locales.

    ``serial`` names the device to adb (None: the only one attached); ``adb`` is the executable
    (None: ``_adb`` Rule 1 finds it). Blocking calls run in a worker thread; call :meth:`close`
    when done (it stops what :meth:`open` started).
    """

    def __init__(
        self, serial: str | None = None, *, adb: str | Path | None = None, timeouts: AndroidTimeouts | None = None
    ) -> None:
        found = Path(adb) if adb is not None else find_adb()
        self._executable = found
        self._serial = serial
        self._timeouts = timeouts or AndroidTimeouts()
        self._lock = threading.RLock()
        self._adb: Adb | None = None
        self._http: Uia2Http | None = None
        self._session: str | None = None
        self._instrument: subprocess.Popen[bytes] | None = None
        self._port: int | None = None
        self._size: tuple[int, int] = (1080, 2400)
        self._info: DeviceInfo | None = None
        self._latest: CoreScreen | None = None

    @property
    def serial(self) -> str | None:
        """The device's serial (known once it is open)."""
        return self._serial

    # -- Device ----------------------------------------------------------------------------------

    async def info(self) -> DeviceInfo:
        """Rule 3."""
        return await asyncio.to_thread(self._info_sync)

    async def app_info(self, bundle: str) -> AppInfo:
        """Rule 8."""
        return await asyncio.to_thread(self._app_info_sync, bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """Rule 7."""
        await asyncio.to_thread(self._launch_sync, bundle, options)

    async def read(self) -> CoreScreen:
        """Rule 4."""
        return await asyncio.to_thread(self._read_sync)

    async def act(self, action: Action) -> None:
        """Rule 5: one action, sent once."""
        await asyncio.to_thread(self._act_sync, action)

    async def screenshot(self) -> bytes:
        """``GET /screenshot``: the server's PNG of the display."""
        return await asyncio.to_thread(self._screenshot_sync)

    async def answer_alert(self, button: str) -> None:
        """Rule 9."""
        await asyncio.to_thread(self._answer_sync, button)

    def launches_in_locale(self) -> bool:
        """Android launches an app in a language of its own from API 33 (Rule 7; ``protocols.LocaleLaunches``)."""
        info = self._info
        return info is not None and info.ios_major >= 33

    def open_sync(self) -> None:
        """Rule 2, now (a pool opens its devices before the checks): ``DeviceError`` when it can't."""
        self._open()

    def close(self) -> None:
        """End the session (the server stops itself), stop ``am instrument``, remove the forward."""
        with self._lock:
            http, session, instrument, adb, port = self._http, self._session, self._instrument, self._adb, self._port
            self._http = self._session = self._instrument = self._adb = self._port = None
        if http is not None and session is not None:
            with contextlib.suppress(Uia2Error):
                http.request("DELETE", f"/session/{session}", timeout=5.0)
        if http is not None:
            http.close()
        if instrument is not None:
            instrument.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                instrument.wait(5)
        if adb is not None and port is not None:
            with contextlib.suppress(AdbFailed):
                adb.run(["forward", "--remove", f"tcp:{port}"], timeout=self._timeouts.adb)

    # -- opening (Rule 2) --------------------------------------------------------------------------

    def _open(self) -> tuple[Adb, Uia2Http, str]:
        with self._lock:
            if self._adb is not None and self._http is not None and self._session is not None:
                return self._adb, self._http, self._session
            if self._executable is None:
                raise DeviceError(
                    "no adb: install Android's platform-tools (Debian: apt-get install adb) or set ANDROID_HOME"
                )
            adb = Adb(self._executable, self._serial)
            serial = self._choose(adb)
            adb = Adb(self._executable, serial)
            self._serial = serial
            port = self._forward(adb)
            http = Uia2Http(port)
            self._adb, self._http, self._port = adb, http, port
            if not self._status(http):
                self._start_server(adb, http)
            session = self._new_session(http)
            self._session = session
            size = self._call("GET", f"/session/{session}/window/current/size", timeout=self._timeouts.read)
            if isinstance(size, Mapping) and isinstance(size.get("width"), int) and isinstance(size.get("height"), int):
                self._size = (int(size["width"]), int(size["height"]))
            return adb, http, session

    def _adb_run(self, adb: Adb, args: list[str], *, timeout: float | None = None) -> AdbResult:
        try:
            return adb.run(args, timeout=self._timeouts.adb if timeout is None else timeout)
        except AdbFailed as exc:
            raise DeviceError(f"Android device {adb.serial or ''}: {exc}") from exc

    def _choose(self, adb: Adb) -> str:
        listed = parse_devices(self._adb_run(Adb(adb.executable), ["devices"]).text)
        ready = [s for s, state in listed.items() if state == "device"]
        if self._serial is not None:
            state = listed.get(self._serial)
            if state != "device":
                said = "isn't attached" if state is None else f"is {state}"
                attached = ", ".join(listed) or "none"
                raise DeviceError(f"the Android device {self._serial} {said} (adb devices: {attached})")
            return self._serial
        if len(ready) != 1:
            which = "no Android device is attached" if not ready else f"{len(ready)} are attached ({', '.join(ready)})"
            raise DeviceError(f"{which}: name one with its serial (adb devices lists them)")
        return ready[0]

    def _forward(self, adb: Adb) -> int:
        done = self._adb_run(adb, ["forward", "tcp:0", f"tcp:{SERVER_PORT}"])
        text = done.text.strip()
        if done.code != 0 or not text.isdigit():
            raise DeviceError(f"adb forward to the device's port {SERVER_PORT} failed: {done.stderr.strip() or text}")
        return int(text)

    def _status(self, http: Uia2Http) -> bool:
        try:
            http.request("GET", "/status", timeout=5.0)
        except Uia2Error:
            return False
        return True

    def _start_server(self, adb: Adb, http: Uia2Http) -> None:
        listed = self._adb_run(adb, ["shell", "pm list instrumentation"]).text
        if INSTRUMENTATION not in listed:
            raise DeviceError(_INSTALL_HINT.format(serial=adb.serial))
        try:
            self._instrument = adb.spawn(["shell", f"am instrument -w -e disableAnalytics true {INSTRUMENTATION}"])
        except AdbFailed as exc:
            raise DeviceError(str(exc)) from exc
        deadline = time.monotonic() + self._timeouts.server_start
        while time.monotonic() < deadline:
            if self._status(http):
                return
            if self._instrument.poll() is not None:
                raise DeviceError(
                    f"the UiAutomator2 server on {adb.serial} stopped as it started (am instrument exited)"
                )
            time.sleep(0.05)
        raise DeviceError(
            f"the UiAutomator2 server on {adb.serial} didn't answer within {self._timeouts.server_start:g} s"
        )

    def _new_session(self, http: Uia2Http) -> str:
        try:
            value = http.request("POST", "/session", {"capabilities": {}}, timeout=self._timeouts.read)
        except Uia2Error as exc:
            raise DeviceError(f"the UiAutomator2 server refused a session: {exc}") from exc
        session = value.get("sessionId") if isinstance(value, Mapping) else None
        if not isinstance(session, str) or not session:
            raise DeviceError(f"the UiAutomator2 server's new session has no id: {value!r:.80}")
        return session

    # -- calls -------------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Any = None, *, timeout: float, action: str | None = None) -> Any:
        """One request (Rule 6 maps its failure: ``action`` names an action, else it is a read)."""
        http = self._http
        if http is None:
            raise DeviceError("the Android device isn't open")
        try:
            return http.request(method, path, body, timeout=timeout)
        except Uia2Unreachable as exc:
            raise DeviceError(f"the UiAutomator2 server on {self._serial} doesn't answer: {exc}") from exc
        except Uia2ErrorReply as exc:
            raise DeviceError(f"{action or path}: the UiAutomator2 server said {exc.error}: {exc.message}") from exc
        except Uia2NoReply as exc:
            if action is not None:
                raise UnknownOutcome(f"{action}: {exc}") from exc
            raise DeviceError(str(exc)) from exc
        except Uia2Error as exc:
            if action is not None:
                raise UnknownOutcome(f"{action}: {exc}") from exc
            raise DeviceError(str(exc)) from exc

    def _session_path(self, route: str) -> str:
        _adb, _http, session = self._open()
        return f"/session/{session}{route}"

    # -- Rule 3 ------------------------------------------------------------------------------------

    def _info_sync(self) -> DeviceInfo:
        if self._info is not None:
            return self._info
        adb, _http, _session = self._open()
        info = self._call("GET", self._session_path("/appium/device/info"), timeout=self._timeouts.read)
        if not isinstance(info, Mapping):
            raise DeviceError(f"the UiAutomator2 server's device info is not an object: {info!r:.80}")
        api = str(info.get("apiVersion", ""))
        if not api.isdigit():
            raise DeviceError(f"the UiAutomator2 server doesn't say the API level (apiVersion: {api!r})")
        facts = self._adb_run(adb, ["shell", "getprop ro.kernel.qemu; cmd uimode night"]).text.splitlines()
        kind = DeviceKind.EMULATOR if facts[:1] == ["1"] else DeviceKind.DEVICE
        night = next((line for line in facts if line.startswith("Night mode:")), "")
        locale = None
        with contextlib.suppress(ValueError, TypeError):
            locale = normal_locale(str(info.get("locale", "")))
        appearance = "dark" if night.endswith("yes") else "light" if night.endswith("no") else None
        self._info = DeviceInfo(
            name=str(info.get("model") or self._serial),
            ios=api,
            kind=kind,
            udid=self._serial or "",
            locale=locale,
            appearance=appearance,
            release=str(info.get("platformVersion") or "") or None,
        )
        return self._info

    # -- Rules 7, 8 --------------------------------------------------------------------------------

    def _app_info_sync(self, bundle: str) -> AppInfo:
        adb, _http, _session = self._open()
        found = package_version(self._adb_run(adb, ["shell", f"dumpsys package {bundle}"]).text, bundle)
        if found is None:
            raise DeviceError(f"{bundle} is not installed on {self._serial}")
        return AppInfo(bundle, found[0], found[1])

    def _launch_sync(self, bundle: str, options: LaunchOptions) -> None:
        adb, _http, _session = self._open()
        if options.args:
            raise DeviceError("launch.args are iOS process arguments; on Android give launch.env (string extras)")
        # One process: is it installed (its version), stop it (or clear its data), its launcher activity.
        # reset: data and reinstall are pm clear (data, cache, runtime permissions): no APK is installed here.
        stop = ["am", "force-stop", bundle] if options.reset is Reset.NONE else ["pm", "clear", bundle]
        asked = [["dumpsys", "package", bundle], stop]
        if options.url is None:
            asked.append(["cmd", "package", "resolve-activity", "--brief", bundle])
        facts = self._shell_line(adb, asked).text
        if package_version(facts, bundle) is None:
            raise DeviceError(f"{bundle} is not installed on {self._serial}")
        self._prepare(adb, bundle, options)
        extras = [w for k, v in options.env.items() for w in ("--es", k, v)]
        if options.url is not None:
            args = ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", options.url, *extras, bundle]
        else:
            activity = resolved_activity(facts)
            if activity is None:
                raise DeviceError(f"{bundle} has no launcher activity on {self._serial}")
            args = ["am", "start-activity", "-W", "-n", activity, *extras]
            args += [
                "-a",
                "android.intent.action.MAIN",
                "-c",
                "android.intent.category.LAUNCHER",
                "-f",
                _LAUNCHER_FLAGS,
            ]
        done = self._shell(adb, args, timeout=self._timeouts.launch)
        failed = start_error(done.text)
        if failed is not None or done.code != 0:
            raise DeviceError(f"launching {bundle}: {failed or done.stderr.strip() or 'am start failed'}")

    def _prepare(self, adb: Adb, bundle: str, options: LaunchOptions) -> None:
        """Rule 7: the permissions and the language, in one process (one the app doesn't request fails alone)."""
        api = self._info_sync().ios_major
        asked = [
            ["pm", "grant" if allow else "revoke", bundle, permission]
            for service, allow in options.permissions.items()
            for permission in permissions_for(service, api)
        ]
        if options.locale is not None and self.launches_in_locale():
            tag = options.locale.replace("_", "-")
            asked.append(["cmd", "locale", "set-app-locales", bundle, "--user", "0", "--locales", tag])
        if asked:
            done = self._shell_line(adb, asked)
            if done.stderr.strip():  # a permission the app doesn't request: nothing to grant, its prompt never shows
                _log.debug("preparing %s: %s", bundle, done.stderr.strip())

    def _shell_line(self, adb: Adb, commands: list[list[str]]) -> AdbResult:
        try:
            return adb.shell(*commands, timeout=self._timeouts.adb)
        except AdbFailed as exc:
            raise DeviceError(f"Android device {adb.serial}: {exc}") from exc

    def _shell(self, adb: Adb, words: list[str], *, timeout: float | None = None) -> AdbResult:
        try:
            return adb.shell(words, timeout=self._timeouts.adb if timeout is None else timeout)
        except AdbFailed as exc:
            raise DeviceError(f"Android device {adb.serial}: {exc}") from exc

    def _activity(self, adb: Adb, bundle: str) -> str:
        found = resolved_activity(self._adb_run(adb, ["shell", f"cmd package resolve-activity --brief {bundle}"]).text)
        if found is None:
            raise DeviceError(f"{bundle} has no launcher activity on {self._serial}")
        return found

    # -- Rule 4 ------------------------------------------------------------------------------------

    def _read_sync(self) -> CoreScreen:
        source = self._call("GET", self._session_path("/source"), timeout=self._timeouts.read)
        if not isinstance(source, str):
            raise DeviceError(f"the UiAutomator2 server's source is not text: {source!r:.80}")
        try:
            read = read_source(source, size=self._size)
            if read.focused_input:
                keyboard = self._keyboard()
                if keyboard is not None:
                    read = read_source(source, size=self._size, keyboard=keyboard)
        except ValueError as exc:
            raise DeviceError(f"the UiAutomator2 server's source can't be read: {exc}") from exc
        self._latest = read.screen
        return read.screen

    def _keyboard(self) -> tuple[int, int, int, int] | None:
        """Rule 4: the input method's window's bounds, when it shows."""
        body = {"filters": {"type": _INPUT_METHOD}, "skipScreenshots": True}
        windows = self._call("POST", self._session_path("/appium/list_windows"), body, timeout=self._timeouts.read)
        for window in windows if isinstance(windows, list) else []:
            rect = window.get("rect") if isinstance(window, Mapping) else None
            if isinstance(rect, Mapping) and all(isinstance(rect.get(k), int) for k in ("x", "y", "width", "height")):
                x, y, w, h = (int(rect[k]) for k in ("x", "y", "width", "height"))
                if w > 0 and h > 0:
                    return (x, y, x + w, y + h)
        return None

    # -- Rule 5 ------------------------------------------------------------------------------------

    def _act_sync(self, action: Action) -> None:
        op, element = action.op, action.element
        what = f"{op.value}" + ("" if element is None else f" on {element.role} {element.label!r}")
        if op in (Op.TAP, Op.LONG_PRESS) and element is not None:
            hold = _LONG_PRESS_MS if op is Op.LONG_PRESS else _TAP_MS
            self._actions(pointer(pixels(element, self._size), pixels(element, self._size), hold), what)
        elif op is Op.TYPE and element is not None:
            self._type(element, action.text or "", what)
        elif op.is_swipe:
            self._swipe(op, element, what)
        elif op in (Op.SUBMIT, Op.HOME):
            self._key(_KEY["enter" if op is Op.SUBMIT else "home"], what)
        elif op is Op.DISMISS_KEYBOARD:
            self._dismiss_keyboard(what)
        elif op is Op.BACK:
            self._call("POST", self._session_path("/back"), {}, timeout=self._timeouts.action, action=what)
        elif op is Op.LAUNCH_APP:
            self._activate(action.text or "", what)
        elif op is Op.OPEN_URL:
            self._open_url(action.text or "", what)
        else:
            raise DeviceError(f"{op} is not something the Android driver does: nothing was sent")

    def _actions(self, body: dict[str, Any], what: str) -> None:
        self._call("POST", self._session_path("/actions"), body, timeout=self._timeouts.action, action=what)

    def _key(self, code: int, what: str) -> None:
        body = {"keycode": code}
        self._call(
            "POST", self._session_path("/appium/device/press_keycode"), body, timeout=self._timeouts.action, action=what
        )

    def _type(self, element: Element, text: str, what: str) -> None:
        if element.role == "SecureTextField" and element.value:
            raise DeviceError(
                f"{what}: the password field already holds text; Android's UiAutomator2 server would set it to its "
                "bullets and the new text: clear it first (nothing was sent)"
            )
        point = pixels(element, self._size)
        self._actions(pointer(point, point, _TAP_MS), f"focusing {element.role} {element.label!r} to type")
        body = {"text": text, "replace": False}
        self._call("POST", self._session_path("/keys"), body, timeout=self._timeouts.action, action=what)

    def _swipe(self, op: Op, element: Element | None, what: str) -> None:
        width, height = self._size
        cx, cy = pixels(element, self._size) if element is not None else (width // 2, height // 2)
        dx, dy = {
            Op.SWIPE_UP: (0, -height // 4),
            Op.SWIPE_DOWN: (0, height // 4),
            Op.SWIPE_LEFT: (-width // 3, 0),
            Op.SWIPE_RIGHT: (width // 3, 0),
        }[op]
        end = (min(max(cx + dx, 1), width - 1), min(max(cy + dy, 1), height - 1))
        self._actions(pointer((cx, cy), end, _SWIPE_MS), what)

    def _dismiss_keyboard(self, what: str) -> None:
        if self._keyboard() is None:
            return  # no keyboard shows: nothing to hide, nothing sent
        self._key(_KEY["escape"], what)
        if self._keyboard() is not None:
            self._key(_KEY["back"], what)

    def _activate(self, bundle: str, what: str) -> None:
        if bundle in HOME_SCREENS:
            self._key(_KEY["home"], what)
            return
        adb, _http, _session = self._open()
        args = ["am", "start-activity", "-n", self._activity(adb, bundle), "-a", "android.intent.action.MAIN"]
        args += ["-c", "android.intent.category.LAUNCHER", "-f", _LAUNCHER_FLAGS]
        self._start(adb, args, what)

    def _open_url(self, url: str, what: str) -> None:
        adb, _http, _session = self._open()
        self._start(adb, ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", url], what)

    def _start(self, adb: Adb, args: list[str], what: str) -> None:
        try:
            done = adb.shell(args, timeout=self._timeouts.launch)
        except AdbFailed as exc:
            if exc.started:
                raise UnknownOutcome(f"{what}: {exc}") from exc
            raise DeviceError(f"{what}: {exc}") from exc
        failed = start_error(done.text)
        if failed is not None or done.code != 0:
            raise DeviceError(f"{what}: {failed or done.stderr.strip() or 'am start failed'}")

    # -- screenshots and alerts --------------------------------------------------------------------

    def _screenshot_sync(self) -> bytes:
        value = self._call("GET", self._session_path("/screenshot"), timeout=self._timeouts.read)
        try:
            png = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
        except (binascii.Error, ValueError) as exc:
            raise DeviceError("the UiAutomator2 server's screenshot is not base64") from exc
        if not png.startswith(b"\x89PNG\r\n\x1a\n"):
            raise DeviceError("the UiAutomator2 server's screenshot is not a PNG")
        return png

    def _answer_sync(self, button: str) -> None:
        screen = self._latest or self._read_sync()
        found = [e for e in screen.shown if e.role == "Button" and e.label == button]
        if not found:
            raise DeviceError(f"no button “{button}” on the alert shown: nothing was tapped")
        point = pixels(found[0], self._size)
        self._actions(pointer(point, point, _TAP_MS), f"tapping “{button}” on the alert")
