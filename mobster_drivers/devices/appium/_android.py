r"""An Android session through Appium's UiAutomator2 driver: the calls that differ from XCUITest's.

The Appium device (``_device``) is one driver for both platforms: the session, the wire, the
errors and their mapping (its Rules 1-3, 8) are the same; what a read, an action, a launch and
the device's facts are on Android is here. Only commands the UiAutomator2 driver 8.x exposes are
sent: W3C routes and the ``mobile:`` methods of ``appium-uiautomator2-driver/lib/execute-method-map.ts``
and ``appium-android-driver/lib/execute-method-map.ts`` (``mobile: shell`` is off on a server
without ``--allow-insecure uiautomator2:adb_shell``, so it is never sent).

Rule 1 (the platform): a session is Android when the capabilities the server answered it with
        say ``platformName`` ``Android`` (any case), else when those asked for do; never from
        the URL.
Rule 2 (what it is): the API level is ``deviceApiLevel`` of the session's capabilities (the
        driver reads ``getprop ro.build.version.sdk``), else ``mobile: deviceInfo``'s
        ``apiVersion``; the release ``platformVersion`` (the driver fills it), else deviceInfo's;
        the name deviceInfo's ``model`` (the session's ``deviceModel``), the UDID the session's
        ``udid``/``deviceUDID`` (the adb serial); the locale deviceInfo's ``locale``. The kind:
        an ``emulator`` when the serial is ``emulator-N`` (Appium's own rule,
        ``appium-android-driver/lib/driver.ts``), or the model is a Google SDK image
        (``sdk_gphone…``, ``Android SDK built for …``); else a real ``device``, held to the
        stricter safety rules (``ro.kernel.qemu`` needs ``mobile: shell``). The appearance is
        ``mobile: getUiMode {mode: "night"}`` (``yes``/``no``); a server that refuses it leaves
        it unknown.
Rule 3 (a read): ``GET /source`` (the server's XML) read by ``_uiautomator/tree`` with the window's
        size (``GET /window/rect``, once a session); the app in front is the tree's (its Rule
        3). When a text input has the focus, ``mobile: listWindows`` with the input method's
        type (2) says whether the keyboard shows and where (the tree's Rule 13); a server that
        refuses it reads without the keyboard. The server leaves hidden views out, so the read
        is the phone's own account: the evidence read is the same read, and a target check is
        always "visible".
Rule 4 (actions, each one command sent once): a tap and a long press are W3C pointer actions
        (``POST /actions``, the server's ``W3CActions``) at the element's centre in pixels;
        ``TYPE`` taps the field, then sends the text to the focused element (``POST /keys``,
        the driver's ``keys``: the server's ``/keys`` with ``replace: false``, so it appends,
        ``SendKeysToElement.java``: one command where ``/element/active`` and its ``/value`` are two),
        and a password field that
        already holds text is refused before anything is sent; ``SUBMIT``, ``HOME`` and ``BACK``
        are ``mobile: pressKey`` with Android's key codes (66, 3, 4); ``DISMISS_KEYBOARD`` is
        ``mobile: hideKeyboard`` (ESC, then BACK, by adb; it answers false when nothing showed);
        a swipe is a W3C pointer from the element (or the screen's centre) in the swipe's
        direction; ``LAUNCH_APP`` is ``mobile: activateApp {appId}`` (a launcher: ``HOME``);
        ``OPEN_URL`` is ``mobile: deepLink {url}`` with no package: the system chooses, and may
        ask "Open with" (an alert).
Rule 5 (a launch): ``mobile: isAppInstalled {appId}`` (not installed: a ``DeviceError``, nothing
        sent), ``mobile: terminateApp`` (``reset: data``/``reinstall``: ``mobile: clearApp``,
        which wipes its data and runtime permissions; no APK is installed), the permissions the
        check's policy names (``mobile: changePermissions`` of their runtime permissions,
        ``_uiautomator/permissions``: one call to grant, one to revoke; a refusal, such as a
        permission the app doesn't request, is logged and the prompts are answered as they
        show), then ``mobile: deepLink {url, package}`` for ``options.url`` (the package named,
        so Android asks no one), else ``mobile: activateApp``. ``launch.env`` goes as the
        intent's string extras of ``mobile: startActivity {component, extras, wait}``, which
        needs the app's activity: ``appium:appActivity`` in the caps (else a ``DeviceError``
        saying so); ``launch.args`` are iOS's and refused. The commands share the launch's time.
Rule 6 (an app's version): ``mobile: listApps`` gives the ``versionCode`` (the build); the
        ``versionName`` needs ``dumpsys package`` (``mobile: shell``), so it is unknown here.
Rule 7 (an alert's answer): the button of that label on the latest read, tapped at its centre
        (any dialog: the server's ``alert/accept`` knows only an ``alertTitle`` or a permission
        dialog, not the chooser).
Rule 8 (a server that stopped): when the device's UiAutomator2 server stops (its ``am instrument``
        ended: a crash, another UiAutomation client, a reboot), the driver answers every command
        it proxies with 500 "… cannot be proxied to UiAutomator2 server because the
        instrumentation process is not running"; the session is then as good as gone: it is
        ended and deleted as a stale one is (``_device`` Rule 3): a check's first command starts
        a new one (the driver starts the server again), a command in the middle of a check is a
        ``DeviceError``. Commands the driver does through adb still answer, so a launch may pass
        before the first read finds it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from mobster_core import Action, AppInfo, DeviceError, Element, LaunchOptions, Op, Reset, Screen
from mobster_core.protocols import HOME_SCREENS
from mobster_drivers._uiautomator.gestures import pixels, pointer
from mobster_drivers._uiautomator.permissions import permissions_for
from mobster_drivers._uiautomator.tree import read_source

from ._wire import AppiumErrorReply

__all__ = ["ANDROID", "KEYCODES", "AndroidCalls", "emulator_of", "is_android", "pointer"]

_log = logging.getLogger("mobster.drivers.appium")

ANDROID = "android"
#: Rule 4: Android's key codes (``KeyEvent.KEYCODE_*``).
KEYCODES: Mapping[str, int] = {"enter": 66, "home": 3, "back": 4}
_INPUT_METHOD = 2  # AccessibilityWindowInfo.TYPE_INPUT_METHOD
_TAP_MS, _LONG_PRESS_MS, _SWIPE_MS = 50, 1000, 300
_EMULATOR_SERIAL = re.compile(r"emulator-\d+")
_SDK_MODEL = re.compile(r"(sdk_gphone|sdk_g?phone|Android SDK built for|generic_x86|google_sdk)", re.IGNORECASE)


class Mobile(Protocol):
    """The device's ``mobile:`` command (``_device``'s ``_mobile``)."""

    def __call__(
        self, name: str, args: Mapping[str, Any], *, timeout: float, action: str | None = None, begin: bool = False
    ) -> Any: ...


class Command(Protocol):
    """The device's W3C command (``_device``'s ``_call``), never a check's first."""

    def __call__(
        self,
        command: str,
        params: Mapping[str, Any] | None = None,
        *,
        what: str,
        timeout: float,
        action: str | None = None,
    ) -> Any: ...


class Timeouts(Protocol):
    """The device's timeouts (``AppiumTimeouts``) the calls here use."""

    @property
    def read(self) -> float: ...
    @property
    def action(self) -> float: ...
    @property
    def launch(self) -> float: ...


def is_android(answered: Mapping[str, Any], asked: Mapping[str, Any]) -> bool:
    """Rule 1: the session's platform, from the server's answer first."""
    said = answered.get("platformName")
    if not isinstance(said, str) or not said.strip():
        said = asked.get("platformName")
    return isinstance(said, str) and said.strip().lower() == ANDROID


def emulator_of(udid: str, model: str) -> bool:
    """Rule 2: an emulator by its serial or its model."""
    return bool(_EMULATOR_SERIAL.fullmatch(udid) or _SDK_MODEL.search(model))


class AndroidCalls:
    """Rules 3-7 over one Appium device's commands; ``size`` is the window's size in pixels, asked once."""

    def __init__(
        self,
        mobile: Mobile,
        command: Command,
        window_size: Callable[[], tuple[int, int]],
        *,
        where: str,
        timeouts: Timeouts,
    ) -> None:
        self._mobile = mobile
        self._command = command
        self._where = where
        self._read_timeout = timeouts.read
        self._action_timeout = timeouts.action
        self._launch_timeout = timeouts.launch
        self._window_size = window_size  # in pixels, asked once a session
        self.latest: Screen | None = None
        self._no_windows = False  # Rule 3: the server refused mobile: listWindows

    # -- Rule 3 --------------------------------------------------------------------------------

    def read(self) -> Screen:
        source = self._command("getPageSource", what="GET /source", timeout=self._read_timeout)
        if not isinstance(source, str):
            raise DeviceError(f"{self._where} sent a page source that is not text (a {type(source).__name__})")
        size = self._window_size()
        try:
            read = read_source(source, size=size)
            if read.focused_input:
                keyboard = self._keyboard()
                if keyboard is not None:
                    read = read_source(source, size=size, keyboard=keyboard)
        except ValueError as exc:
            raise DeviceError(f"{self._where} sent a page source that can't be read: {exc}") from exc
        self.latest = read.screen
        return read.screen

    def _keyboard(self) -> tuple[int, int, int, int] | None:
        """The input method's window's bounds, when it shows (Rule 3)."""
        if self._no_windows:
            return None
        args = {"filters": {"type": _INPUT_METHOD}, "skipScreenshots": True}
        try:
            windows = self._mobile("listWindows", args, timeout=self._read_timeout)
        except DeviceError as exc:
            if not _refusal(exc):
                raise
            self._no_windows = True
            _log.debug("%s refused mobile: listWindows; reads go on without the keyboard", self._where)
            return None
        for window in windows if isinstance(windows, list) else []:
            rect = window.get("rect") if isinstance(window, Mapping) else None
            if isinstance(rect, Mapping) and all(_int(rect.get(k)) for k in ("x", "y", "width", "height")):
                x, y, w, h = (int(rect[k]) for k in ("x", "y", "width", "height"))
                if w > 0 and h > 0:
                    return (x, y, x + w, y + h)
        return None

    # -- Rule 4 --------------------------------------------------------------------------------

    def act(self, action: Action) -> None:
        op, element = action.op, action.element
        what = f"{op.value}" + ("" if element is None else f" on {element.role} {element.label!r}")
        timeout = self._action_timeout
        if op in (Op.TAP, Op.LONG_PRESS) and element is not None:
            point = self._px(element)
            hold = _LONG_PRESS_MS if op is Op.LONG_PRESS else _TAP_MS
            self._actions(pointer(point, point, hold), what)
        elif op is Op.TYPE and element is not None:
            self._type(element, action.text or "", what)
        elif op.is_swipe:
            self._swipe(op, element, what)
        elif op in (Op.SUBMIT, Op.HOME, Op.BACK):
            key = {Op.SUBMIT: "enter", Op.HOME: "home", Op.BACK: "back"}[op]
            self._mobile("pressKey", {"keycode": KEYCODES[key]}, timeout=timeout, action=what)
        elif op is Op.DISMISS_KEYBOARD:
            self._mobile("hideKeyboard", {}, timeout=timeout, action=what)
        elif op is Op.LAUNCH_APP:
            target = action.text or ""
            if target in HOME_SCREENS:
                self._mobile("pressKey", {"keycode": KEYCODES["home"]}, timeout=timeout, action=what)
            else:
                self._mobile("activateApp", {"appId": target}, timeout=self._launch_timeout, action=what)
        elif op is Op.OPEN_URL:
            self._mobile("deepLink", {"url": action.text or ""}, timeout=self._launch_timeout, action=what)
        else:
            raise DeviceError(f"{op} is not something the Appium device does on Android: nothing was sent")

    def answer_alert(self, button: str) -> None:
        """Rule 7."""
        screen = self.latest or self.read()
        found = [e for e in screen.shown if e.role == "Button" and e.label == button]
        if not found:
            raise DeviceError(f"no button “{button}” on the alert shown: nothing was tapped")
        point = self._px(found[0])
        self._actions(pointer(point, point, _TAP_MS), f"tapping “{button}” on the alert")

    def _px(self, element: Element) -> tuple[int, int]:
        return pixels(element, self._window_size())

    def _actions(self, body: dict[str, Any], what: str) -> None:
        self._command("actions", body, what="POST /actions", timeout=self._action_timeout, action=what)

    def _type(self, element: Element, text: str, what: str) -> None:
        if element.role == "SecureTextField" and element.value:
            raise DeviceError(
                f"{what}: the password field already holds text; Android's UiAutomator2 server would set it to its "
                "bullets and the new text: clear it first (nothing was sent)"
            )
        point = self._px(element)
        self._actions(pointer(point, point, _TAP_MS), f"focusing {element.role} {element.label!r} to type")
        self._command(
            "sendKeysToActive", {"value": list(text)}, what="POST /keys", timeout=self._action_timeout, action=what
        )

    def _swipe(self, op: Op, element: Element | None, what: str) -> None:
        width, height = self._window_size()
        cx, cy = self._px(element) if element is not None else (width // 2, height // 2)
        dx, dy = {
            Op.SWIPE_UP: (0, -height // 4),
            Op.SWIPE_DOWN: (0, height // 4),
            Op.SWIPE_LEFT: (-width // 3, 0),
            Op.SWIPE_RIGHT: (width // 3, 0),
        }[op]
        end = (min(max(cx + dx, 1), width - 1), min(max(cy + dy, 1), height - 1))
        self._actions(pointer((cx, cy), end, _SWIPE_MS), what)

    # -- Rules 5, 6 ----------------------------------------------------------------------------

    def installed(self, bundle: str, timeout: float) -> bool:
        value = self._mobile("isAppInstalled", {"appId": bundle}, timeout=timeout, begin=True)
        if not isinstance(value, bool):
            raise DeviceError(f"{self._where} sent an answer to mobile: isAppInstalled that is not true or false")
        return value

    def app_info(self, bundle: str) -> AppInfo:
        """Rule 6 (the caller has checked it is installed)."""
        try:
            listed = self._mobile("listApps", {}, timeout=self._read_timeout, begin=True)
        except DeviceError as exc:
            if not _refusal(exc):
                raise
            return AppInfo(bundle)
        entry = listed.get(bundle) if isinstance(listed, Mapping) else None
        code = entry.get("versionCode") if isinstance(entry, Mapping) else None
        build = str(code) if isinstance(code, int) and not isinstance(code, bool) else None
        return AppInfo(bundle, None, build)

    def launch(self, bundle: str, options: LaunchOptions, *, api: int, activity: str | None, left: Any) -> None:
        """Rule 5 after the install check; ``left()`` is what remains of the launch's time."""
        if options.args:
            raise DeviceError("launch.args are iOS process arguments; on Android give launch.env (string extras)")
        if options.env and not activity and options.url is None:
            raise DeviceError(
                "launch.env goes as the intent's extras, which needs the app's activity: set appium:appActivity "
                "in the caps file (nothing was sent)"
            )
        if options.reset is Reset.NONE:
            self._mobile("terminateApp", {"appId": bundle}, timeout=left(), action=f"terminating {bundle}", begin=True)
        else:
            self._mobile("clearApp", {"appId": bundle}, timeout=left(), action=f"clearing {bundle}'s data", begin=True)
        self._permissions(bundle, options.permissions, api, left)
        if options.url is not None:
            args = {"url": options.url, "package": bundle, "waitForLaunch": True}
            self._mobile("deepLink", args, timeout=left(), action=f"opening {options.url}", begin=True)
        elif options.env and activity:
            component = activity if "/" in activity else f"{bundle}/{activity}"
            extras = [["s", key, value] for key, value in options.env.items()]
            args = {"component": component, "extras": extras, "wait": True}
            self._mobile("startActivity", args, timeout=left(), action=f"launching {bundle}", begin=True)
        else:
            self._mobile("activateApp", {"appId": bundle}, timeout=left(), action=f"launching {bundle}", begin=True)

    def _permissions(self, bundle: str, permissions: Mapping[str, bool], api: int, left: Any) -> None:
        for allow in (True, False):
            names = [p for service, a in permissions.items() if a is allow for p in permissions_for(service, api)]
            if not names:
                continue
            args = {"permissions": names, "appPackage": bundle, "action": "grant" if allow else "revoke"}
            try:
                self._mobile("changePermissions", args, timeout=left(), begin=True)
            except DeviceError as exc:
                if not _refusal(exc):
                    raise
                _log.debug("%s; the check's alerts policy answers the permission prompts as they show", exc)


def _refusal(exc: DeviceError) -> bool:
    """An error reply from the server (not a lost one, not a stale session): it said no."""
    cause = exc.__cause__
    return isinstance(cause, AppiumErrorReply) and cause.error != "invalid session id"


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
