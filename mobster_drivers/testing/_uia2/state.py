"""What one fake Android device keeps: its scripted phone, its properties, the UiAutomator2 session and adb's side.

Everything here lives on the phone's event loop (``FakeAndroid`` runs it in a thread); the
server's routes (``routes``) and the device shell (``shell``) are functions of this state, never
readers of another object's fields.

Rule 1 (the device): a serial, the properties ``getprop`` answers (``ro.build.version.sdk`` the
        script's API level, ``ro.build.version.release`` its release, ``ro.product.model`` its
        name, ``ro.kernel.qemu`` ``1`` on an emulator, nothing on a device, ``persist.sys.locale``
        its locale), a density (pixels a dp, 3 by default: 480 dpi) and the packages installed:
        the script's apps, the launcher, the PermissionController and, while it is installed,
        the UiAutomator2 server's two packages.
Rule 2 (the server's life): the UiAutomator2 server runs while an ``am instrument -w`` of its test
        package runs (the adb side starts and stops it); ``DELETE /session`` stops it shortly
        after its reply, as the server stops itself (``DeleteSession.java:42-62``), and so does
        ``am force-stop`` of either of its packages.
Rule 3 (the session): one session at a time; a new one replaces the old and resets the settings
        (``NewSession.java:45-65``); its id is a UUID.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from mobster_core import Screen
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone

from .render import Rendered, render

__all__ = ["DEFAULT_SETTINGS", "SERVER_PACKAGE", "TEST_PACKAGE", "AndroidState"]

SERVER_PACKAGE = "io.appium.uiautomator2.server"
TEST_PACKAGE = "io.appium.uiautomator2.server.test"
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"

#: Rule 3: the server's settings and their defaults (``model/settings/*.java``, 10.6.2).
DEFAULT_SETTINGS: dict[str, Any] = {
    "ignoreUnimportantViews": False,
    "allowInvisibleElements": False,
    "enableMultiWindows": False,
    "enableTopmostWindowFromActivePackage": False,
    "waitForIdleTimeout": 10000,
    "waitForSelectorTimeout": 10000,
    "actionAcknowledgmentTimeout": 3000,
    "scrollAcknowledgmentTimeout": 200,
    "keyInjectionDelay": 0,
    "normalizeTagNames": False,
    "enforceXPath1": False,
    "limitXPathContextScope": True,
    "disableIdLocatorAutocompletion": False,
    "shouldUseCompactResponses": True,
    "elementResponseAttributes": "name,text",
    "includeExtrasInPageSource": False,
    "includeA11yActionsInPageSource": False,
    "simpleBoundsCalculation": False,
    "snapshotMaxDepth": 70,
    "mapTestTagToResourceId": False,
    "trackScrollEvents": True,
    "enableNotificationListener": True,
    "serverPort": 6790,
    "mjpegServerPort": 7810,
}


class AndroidState:
    """One device's state (the module rules); ``serial`` names it to adb."""

    def __init__(self, script: AppScript, phone: ScriptedPhone, *, serial: str, density: float) -> None:
        self.script = script
        self.phone = phone
        self.serial = serial
        self.density = density
        self.session: str | None = None
        self.capabilities: dict[str, Any] = {}
        self.stopping = False  # Rule 2: a DELETE /session was answered; the server stops after its reply
        self.settings: dict[str, Any] = dict(DEFAULT_SETTINGS)
        self.installed_server = True
        self.instrumented = False
        self.on_stop: Callable[[], None] | None = None  # Rule 2: the adb side ends its am instrument
        self.grants: dict[str, set[str]] = {bundle: set() for bundle in script.apps}
        self.app_locales: dict[str, str] = {}
        self.settings_db: dict[tuple[str, str], str] = {}
        self.night = script.device.appearance is not None and script.device.appearance.value == "dark"
        self.commands: list[list[str]] = []  # every adb command the device received

    # -- Rule 1 ------------------------------------------------------------------------------

    @property
    def emulator(self) -> bool:
        """An emulator, by the script's kind."""
        return self.script.device.kind.value == "emulator"

    def props(self) -> dict[str, str]:
        """What ``getprop`` answers (Rule 1)."""
        device = self.script.device
        locale = (device.locale or "en_US").replace("_", "-")
        return {
            "ro.build.version.sdk": device.ios,
            "ro.build.version.release": device.release or "14",
            "ro.product.model": device.name,
            "ro.product.manufacturer": "Google" if self.emulator else "Mobster",
            "ro.product.brand": "google" if self.emulator else "mobster",
            "ro.kernel.qemu": "1" if self.emulator else "",
            "ro.boot.qemu": "1" if self.emulator else "",
            "persist.sys.locale": locale,
            "ro.product.locale": locale,
            "ro.build.characteristics": "emulator" if self.emulator else "default",
        }

    def packages(self) -> dict[str, tuple[str, str]]:
        """The installed packages and their ``(versionName, versionCode)`` (Rule 1)."""
        out = {bundle: (app.version, app.build) for bundle, app in self.script.apps.items()}
        out[self.script.home] = ("14", "34")
        out[PERMISSION_CONTROLLER] = ("34.1", "341000000")
        if self.installed_server:
            out[SERVER_PACKAGE] = ("10.6.2", "274")
            out[TEST_PACKAGE] = ("10.6.2", "274")
        return out

    @property
    def size_px(self) -> tuple[int, int]:
        """The display in pixels."""
        width, height = self.script.size
        return (round(width * self.density), round(height * self.density))

    # -- the screen ----------------------------------------------------------------------------

    def screen(self) -> Screen:
        """The screen as the phone shows it now (no read's latency: that is the route's)."""
        return self.phone.peek()[0]

    def rendered(self, screen: Screen | None = None) -> Rendered:
        """The page source of ``screen`` (now's by default), with the field that has the focus."""
        shown = screen if screen is not None else self.screen()
        return render(shown, density=self.density, focused=self.focused_path(shown))

    def focused_path(self, screen: Screen) -> str | None:
        """The path of the text field with the input focus (the phone's Rule 11), on ``screen``."""
        field = self.phone.focused()
        if field is None:
            return None
        same = screen.element_at(field.path)
        return field.path if same is not None and same.pair == field.pair else None

    # -- Rules 2, 3 ---------------------------------------------------------------------------

    def new_session(self) -> str:
        """Rule 3."""
        self.session = str(uuid.uuid4())
        self.settings = dict(DEFAULT_SETTINGS)
        return self.session

    def stop_server(self) -> None:
        """Rule 2: the server's process ends: no session, and the adb side's ``am instrument`` returns."""
        self.session = None
        self.stopping = False
        self.instrumented = False
        if self.on_stop is not None:
            self.on_stop()
