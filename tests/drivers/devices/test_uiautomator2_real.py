"""Our Appium driver on Android: through a real Appium 3.8 + UiAutomator2 8.7 server, and through our fake, alike.

Each test runs twice: against :class:`~mobster_drivers.testing.appium.FakeAppium` serving the
device as the UiAutomator2 driver does (``_appium_android``), and against the real server
(``tests/real_appium.py``, installed by ``scripts/install-appium.sh``; skipped with the install's
reason where npm can't be had) in front of the same kind of device: a
:class:`~mobster_drivers.testing.uiautomator2.FakeUiAutomator2` reached through a
:class:`~mobster_drivers.testing.adb.FakeAdb`, as appium-adb reaches a phone (``ANDROID_HOME``'s
``platform-tools/adb``). Both must give the same answers, and the device the same commands: that
is what holds the fake Appium, and the fake adb's session-start commands, to the real driver
(issue 41's list).

One real server serves the module (it starts in 3-10 s); each test gets its own device and fake
adb, which the server reaches through a module-wide ``ANDROID_HOME`` whose ``adb`` runs the
test's (the server's environment is fixed when it starts). A session names its ``systemPort``
(a free one), as parallel sessions on a shared host must. What the real driver needs and can't
have here (an emulator, the server's APKs installed by adb, a web context's chromedriver) is
never asked for: the caps skip the server's installation and the device's initialisation, as a
device farm's do for a phone it prepared.
"""

from __future__ import annotations

import asyncio
import json
import re
import stat
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import attrs
import pytest

import mobster_core as mc
from mobster_core import Action, LaunchOptions, Op
from mobster_core.protocols import Platform
from mobster_core.testing import check_device
from mobster_drivers.devices.appium import AppiumCaps, AppiumDevice, AppiumTimeouts
from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing._uia2.state import AndroidState
from mobster_drivers.testing.adb import FakeAdb
from mobster_drivers.testing.appium import FakeAppium
from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2
from tests.loopback import closed_port
from tests.real_appium import RealAppium, installed, request
from tests.real_clock import ManualClock, mobster
from tests.samples import DEVICE_CHECKS, SIGNUP_BY_BUNDLE

APP = "com.example.yourapp"
SERIAL = "emulator-5554"
T = TypeVar("T")
_EXITED = "[Instrumentation] The process has exited"


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


# -- the servers -------------------------------------------------------------------------------


@attrs.define
class Real:
    """The module's real Appium, and the file that names the adb its ``ANDROID_HOME`` runs."""

    appium: RealAppium
    current: Path

    def use(self, adb: FakeAdb) -> None:
        self.current.write_text(str(adb.executable))


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Real]:
    why = installed()
    if why is not None:
        pytest.skip(why)
    folder = tmp_path_factory.mktemp("appium-android")
    current = folder / "adb-path"
    shim = folder / "sdk" / "platform-tools" / "adb"
    shim.parent.mkdir(parents=True)
    shim.write_text(f'#!/bin/sh\nexec "$(cat {current})" "$@"\n')
    shim.chmod(stat.S_IRWXU)
    appium = RealAppium(
        folder / "appium.log", android_home=folder / "sdk", args=("--allow-insecure", "*:session_discovery")
    )
    try:
        appium.start()
        yield Real(appium, current)
    finally:
        appium.stop()


@attrs.define
class Rig:
    """One server under test, fake or real, with the Android device behind it: what each test is given."""

    kind: str
    url: str
    server: FakeUiAutomator2
    close: Callable[[], None]
    swap: Callable[[str], None]  # the device replaced by one running another app script (a rebuild)
    appium: RealAppium | None = None
    port: int = attrs.field(factory=closed_port)
    before: frozenset[str] = frozenset()

    def caps(self, **more: Any) -> dict[str, Any]:
        """A caps file for a phone a farm prepared: its serial, a free systemPort, no installs."""
        caps: dict[str, Any] = {
            "platformName": "Android",
            "appium:udid": self.server.serial,
            "appium:systemPort": self.port,
            "appium:skipServerInstallation": True,
            "appium:skipDeviceInitialization": True,
            "appium:skipLogcatCapture": True,
            "appium:skipUnlock": True,
        }
        return {**caps, **more}

    def device(self, *, caps: dict[str, Any] | None = None, **options: Any) -> AppiumDevice:
        return AppiumDevice(self.url, AppiumCaps.from_mapping(caps or self.caps()), bundle=APP, **options)

    def stop_server(self) -> None:
        """The device's UiAutomator2 server dies (its am instrument ends); wait until the driver has seen it."""
        seen = self.appium.output().count(_EXITED) if self.appium is not None else 0
        self.server.on_loop(AndroidState.stop_server)
        if self.appium is not None:  # the real driver hears it when its adb process ends
            assert self.appium.wait_for_more(_EXITED, seen, 30), "the driver never saw am instrument end"

    def adb(self) -> list[list[str]]:
        """The device-shell commands the device received, in order."""
        return list(self.server.on_loop(lambda state: [list(c) for c in state.commands]))

    def listed(self) -> list[str]:
        status, body = request("GET", f"{self.url}/appium/sessions")
        assert status == 200, body
        return [s["id"] for s in body["value"] if s["id"] not in self.before]

    def create(self, **more: Any) -> tuple[int, Any]:
        always = {"appium:automationName": "UiAutomator2", "appium:noReset": True, **self.caps(), **more}
        always = {k: v for k, v in always.items() if v is not None}
        return request("POST", f"{self.url}/session", {"capabilities": {"alwaysMatch": always, "firstMatch": [{}]}})

    def call(self, sid: str, method: str, route: str, body: Any = None) -> tuple[int, Any]:
        return request(method, f"{self.url}/session/{sid}{route}", body)

    def mobile(self, sid: str, name: str, args: dict[str, Any] | None = None) -> tuple[int, Any]:
        return self.call(sid, "POST", "/execute/sync", {"script": f"mobile: {name}", "args": [args or {}]})


def _device(app: str) -> tuple[FakeUiAutomator2, FakeAdb]:
    server = FakeUiAutomator2(sample_path(app), serial=SERIAL, lifetime=600).start()
    return server, FakeAdb([server], lifetime=600).start()


def _fake_rig(app: str) -> Rig:
    held: list[Any] = []

    def start(name: str) -> None:
        for one in held:
            one.stop()
        server, adb = _device(name)
        fake = FakeAppium(uia2=server, lifetime=600, session_discovery=True, clock=ManualClock()).start()
        held[:] = [fake, adb, server]
        made.url, made.server = fake.url, server

    def close() -> None:
        for one in held:
            one.stop()

    made = Rig("fake", "", None, close, start)  # type: ignore[arg-type]
    start(app)
    return made


def _real_rig(real: Real, app: str) -> Rig:
    held: list[Any] = []

    def start(name: str) -> None:
        for one in held:
            one.stop()
        server, adb = _device(name)
        real.use(adb)
        held[:] = [adb, server]
        made.server = server

    def close() -> None:
        for sid in made.listed():
            request("DELETE", f"{real.appium.url}/session/{sid}")
        for one in held:
            one.stop()

    made = Rig("real", real.appium.url, None, close, start, real.appium)  # type: ignore[arg-type]
    start(app)
    made.before = frozenset(made.listed())
    return made


def _rig(request: pytest.FixtureRequest, app: str) -> Iterator[Rig]:
    made = _real_rig(request.getfixturevalue("real"), app) if request.param == "real" else _fake_rig(app)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(params=["fake", "real"])
def rig(request: pytest.FixtureRequest) -> Iterator[Rig]:
    yield from _rig(request, "yourapp-android")


@pytest.fixture(params=["fake", "real"])
def asking(request: pytest.FixtureRequest) -> Iterator[Rig]:
    """The app that asks for the camera, raises the chooser and shows the keyboard."""
    yield from _rig(request, "yourapp-android-permissions")


def error(reply: Any) -> tuple[str, str]:
    value = reply["value"]
    return value["error"], value["message"]


# -- the driver end to end -------------------------------------------------------------------------


def test_check_device_passes(rig: Rig) -> None:
    made: list[AppiumDevice] = []

    def factory() -> AppiumDevice:
        # One device, one session, for every check: the real driver takes seconds to start a
        # session (am instrument, the server's /status polled each second), and each check
        # launches the app first. Sessions that end and start again are the tests below.
        if not made:
            made.append(rig.device())
        return made[0]

    try:
        ran = run(
            check_device(
                factory,
                app=APP,
                tap=("Button", "Sign up"),
                field=("TextField", "Email"),
                link="yourapp://signup",
            )
        )
    finally:
        for device in made:
            device.close()
    assert ran == [*DEVICE_CHECKS, "back", "evidence read", "target check", "check reports"]
    assert rig.listed() == []


def test_what_the_device_is_comes_from_the_session(rig: Rig) -> None:
    device = rig.device()
    try:
        info = run(device.info())
        app = run(device.app_info(APP))
    finally:
        device.close()
    assert (info.name, info.ios, info.release, info.kind, info.udid) == (
        "Scripted Pixel",
        "34",
        "14",
        mc.DeviceKind.EMULATOR,
        SERIAL,
    )
    assert (info.platform, info.locale, info.appearance) == (Platform.ANDROID, "en_US", "light")
    assert (app.version, app.build) == (None, "1")  # the versionCode; the versionName needs adb shell


def test_a_check_records_replays_at_no_cost_and_heals(rig: Rig, project: Path) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    caps = project / "caps.json"
    caps.write_text(json.dumps(rig.caps()))
    first = mobster("test", "--appium", rig.url, "--caps", str(caps), "--model", "scripted")
    assert first.exit_code == 0, first.output
    assert "✓ passed  A new user signs up  on Scripted Pixel, Android 14 (API 34)" in first.output
    second = mobster("test", "--appium", rig.url, "--caps", str(caps), "--json")
    assert second.exit_code == 0, second.output
    (check,) = json.loads(second.stdout)["checks"]
    assert (check["mode"], check["model_calls"], check["cost_usd"], check["path"]["used"]) == ("replay", 0, 0.0, True)
    assert (check["device"]["platform"], check["device"]["kind"], check["device"]["ios"]) == (
        "android",
        "emulator",
        "34",
    )
    keys = [r.body for r in rig.server.requests if r.route == "/keys"]
    assert keys == [{"text": "ada@example.com", "replace": False}] * 2  # once a run, appended to the field
    # The rebuild renames "Continue" to "Next": the step heals with the model, for that step only.
    rig.swap("yourapp-android-renamed")
    healed = mobster("test", "--appium", rig.url, "--caps", str(caps), "--model", "scripted")
    assert healed.exit_code == 0, healed.output
    assert 'healed step 3: Tap "Continue" → Tap "Next"' in healed.output
    assert rig.listed() == []  # every session the runs made was ended


def test_every_action_reaches_the_device_once(rig: Rig) -> None:
    device = rig.device()
    try:
        screen = run(_every_action(device))
    finally:
        device.close()
    assert screen.app == APP
    taps = [r.body for r in rig.server.requests if r.route == "/actions"]
    assert len(taps) == 4  # Sign up, the field before typing, the long press, the swipe: each once
    keys = [r.body["keycode"] for r in rig.server.requests if r.route == "/appium/device/press_keycode"]
    assert keys == [66, 3, 4]  # SUBMIT (Enter), HOME, BACK: mobile: pressKey
    assert [r.body for r in rig.server.requests if r.route == "/keys"] == [
        {"text": "ada@example.com", "replace": False}
    ]
    sent = rig.adb()
    launcher = ["am", "start-activity", "-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER"]
    assert [*launcher, "-f", "0x10200000", "-n", f"{APP}/.MainActivity"] in sent  # mobile: activateApp
    assert ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", "yourapp://signup"] in sent  # deepLink
    assert ["dumpsys", "input_method"] in sent  # mobile: hideKeyboard asks whether it shows
    assert not [c for c in sent if c[:1] == ["sh"] or "shell" in c]  # never mobile: shell


async def _every_action(device: AppiumDevice) -> mc.Screen:
    await device.launch(APP, LaunchOptions())
    await device.act(Action(Op.TAP, element=(await device.read()).find("Button", "Sign up")[0]))
    email = await _until(device, lambda s: s.find("TextField", "Email"))
    await device.act(Action(Op.TYPE, element=email.find("TextField", "Email")[0], text="ada@example.com"))
    typed = await _until(device, lambda s: any(e.value == "ada@example.com" for e in s.find("TextField", "Email")))
    await device.act(Action(Op.SUBMIT))
    await device.act(Action(Op.LONG_PRESS, element=typed.find("TextField", "Email")[0]))
    await device.act(Action(Op.SWIPE_UP))
    await device.act(Action(Op.DISMISS_KEYBOARD))
    await device.act(Action(Op.HOME))
    assert (await device.read()).app == "com.android.launcher3"
    await device.act(Action(Op.BACK))
    await device.act(Action(Op.LAUNCH_APP, text=APP))
    await device.act(Action(Op.OPEN_URL, text="yourapp://signup"))
    return await device.read()


async def _until(device: AppiumDevice, ok: Callable[[mc.Screen], Any]) -> mc.Screen:
    for _ in range(50):
        screen = await device.read()
        if ok(screen):
            return screen
        await asyncio.sleep(0.05)
    raise AssertionError("the screen never came")


def test_a_launch_sends_the_commands_appium_adb_sends(rig: Rig) -> None:
    device = rig.device()
    try:
        run(device.info())
        before = len(rig.adb())
        run(device.launch(APP, LaunchOptions()))
        run(device.launch(APP, LaunchOptions(reset=mc.Reset.DATA, url="yourapp://signup")))
        assert run(device.read()).find("StaticText", "Create your account")
    finally:
        device.close()
    assert rig.adb()[before:][:8] == [
        ["cmd", "package", "list", "packages", "--show-versioncode"],  # mobile: isAppInstalled
        ["dumpsys", "activity", "processes"],  # mobile: terminateApp: not running, nothing to stop
        ["cmd", "package", "resolve-activity", "--brief", APP],  # mobile: activateApp
        [*["am", "start-activity", "-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER"], "-f",
         "0x10200000", "-n", f"{APP}/.MainActivity"],
        ["cmd", "package", "list", "packages", "--show-versioncode"],
        ["pm", "clear", APP],  # reset: data is mobile: clearApp
        ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", "yourapp://signup", APP],  # deepLink, named
        ["ps", "--help"],  # the session ends: the driver's deleteSession
    ]  # fmt: skip


def test_permissions_are_granted_before_the_launch_and_a_refused_one_goes_on(asking: Rig) -> None:
    device = asking.device()
    try:
        run(device.launch(APP, LaunchOptions(permissions={"camera": True, "contacts": True})))
        screen = run(device.read())
        run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
        after = run(_until(device, lambda s: s.find("StaticText", "Create your account")))
    finally:
        device.close()
    assert after.app == APP  # no permission dialog: the camera was granted
    # One mobile: changePermissions: appium-adb's one line; the app requests no contacts, which
    # pm refuses, and the launch goes on (the policy answers a prompt as it shows).
    grants = [c for c in asking.adb() if c[:2] == ["pm", "grant"]]
    assert grants == [
        ["pm", "grant", APP, "android.permission.CAMERA"],
        ["pm", "grant", APP, "android.permission.READ_CONTACTS"],
        ["pm", "grant", APP, "android.permission.WRITE_CONTACTS"],
    ]
    assert asking.server.on_loop(lambda state: state.grants[APP]) == {"android.permission.CAMERA"}


def test_the_keyboard_shows_in_the_read_and_hides_with_escape_then_back_goes_back(asking: Rig) -> None:
    device = asking.device()
    try:
        run(device.launch(APP, LaunchOptions(permissions={"camera": True})))
        run(device.act(Action(Op.TAP, element=run(device.read()).find("Button", "Sign up")[0])))
        form = run(_until(device, lambda s: s.find("TextField", "Email")))
        run(device.act(Action(Op.TYPE, element=form.find("TextField", "Email")[0], text="ada@example.com")))
        typed = run(device.read())
        assert typed.find("Keyboard", "")  # the input method's window, from mobile: listWindows
        run(device.act(Action(Op.DISMISS_KEYBOARD)))
        assert not run(device.read()).find("Keyboard", "")
        run(device.act(Action(Op.BACK)))
        back = run(_until(device, lambda s: s.find("Button", "Sign up")))
    finally:
        device.close()
    assert back.app == APP
    assert ["input", "keyevent", "111"] in asking.adb()  # hideKeyboard: ESC, by adb
    assert next(r.body for r in asking.server.requests if r.route == "/appium/list_windows") == {
        "filters": {"type": 2},
        "skipScreenshots": True,
    }
    assert 4 in [r.body["keycode"] for r in asking.server.requests if r.route == "/appium/device/press_keycode"]


# -- sessions: never lost, never leaked -------------------------------------------------------------


def test_a_second_session_on_one_device_ends_the_first(rig: Rig) -> None:
    _, a = rig.create()
    _, b = rig.create()
    first, second = a["value"]["sessionId"], b["value"]["sessionId"]
    assert first != second
    status, reply = rig.call(first, "GET", "/source")
    assert (status, error(reply)) == (404, ("invalid session id", "A session is either terminated or not started"))
    assert rig.call(second, "GET", "/source")[0] == 200
    assert rig.call(first, "DELETE", "")[0] == 404
    assert set(rig.listed()) == {first, second}  # Appium keeps the claimed one in its list
    assert rig.call(second, "DELETE", "")[0] == 200


def test_a_pool_of_two_devices_on_one_phone_is_one_phone(rig: Rig) -> None:
    one, two = rig.device(), rig.device()
    try:
        assert one.start_session_sync() == SERIAL
        assert two.start_session_sync() == SERIAL  # the pool merges them, saying so (pool Rule 6)
        claimed = one.session_id
        assert not one.session_alive_sync()  # the second claimed the phone
    finally:
        one.close()
        two.close()
    assert rig.listed() == [claimed]  # both deleted; Appium keeps the claimed one in its list


def test_a_stopped_uiautomator2_server_ends_the_session_and_the_next_launch_starts_another(rig: Rig) -> None:
    device = rig.device()
    try:
        run(device.launch(APP, LaunchOptions()))
        abandoned = device.session_id
        rig.stop_server()  # the device's server dies: am instrument ends
        with pytest.raises(mc.DeviceError, match="says the UiAutomator2 server on the device stopped"):
            run(device.read())
        assert abandoned not in rig.listed()  # given up on, and deleted
        run(device.launch(APP, LaunchOptions()))  # the next check starts a new session: the server again
        assert device.session_id not in (None, abandoned)
        assert run(device.read()).find("Button", "Sign up")
    finally:
        device.close()
    assert rig.listed() == []


def test_a_stalled_reply_is_an_unknown_outcome_sent_once(rig: Rig) -> None:
    device = rig.device(timeouts=AppiumTimeouts(action=0.5))
    try:
        run(device.launch(APP, LaunchOptions()))
        screen = run(device.read())
        rig.server.stall_next_reply(2.0)  # the device holds the tap's reply; the driver waits for it (240 s)
        with pytest.raises(mc.UnknownOutcome, match=r"no complete reply to POST /actions \(no reply within 0.5 s\)"):
            run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
        assert [r.route for r in rig.server.requests].count("/actions") == 1  # sent once, never again
    finally:
        device.close()


# -- what real Appium answers, and the fake too ----------------------------------------------------


def test_refused_sessions(rig: Rig) -> None:
    status, reply = rig.create(**{"appium:udid": "emulator-5556"})
    assert (status, error(reply)) == (
        500,
        ("unknown error", "Device emulator-5556 was not in the list of connected devices"),
    )
    status, reply = rig.create(**{"appium:automationName": None})
    assert (status, error(reply)) == (400, ("invalid argument", "'automationName' is required to be present"))
    status, reply = rig.create(**{"appium:automationName": "Espresso"})
    assert status == 500
    assert error(reply)[1].startswith(
        "Could not find a driver for automationName 'Espresso' and platformName 'Android'. Have you installed a "
        "driver that supports those capabilities?"
    )
    device = rig.device(caps=rig.caps(**{"appium:udid": "emulator-5556"}))
    try:
        with pytest.raises(mc.DeviceError, match=r"refused a new session: .*emulator-5556 was not in the list"):
            run(device.info())
    finally:
        device.close()
    assert rig.listed() == []


def test_the_capabilities_answered_and_kept(rig: Rig) -> None:
    status, reply = rig.create()
    assert status == 200
    sid, caps = reply["value"]["sessionId"], reply["value"]["capabilities"]
    try:
        assert list(caps)[:4] == ["platformName", "automationName", "noReset", "udid"]  # W3C's first, unprefixed
        assert caps["platform"] == "LINUX"
        assert (caps["deviceName"], caps["deviceUDID"], caps["udid"]) == (SERIAL, SERIAL, SERIAL)
        assert (caps["deviceApiLevel"], caps["platformVersion"], caps["pixelRatio"]) == (34, "14", "3")
        assert (caps["deviceModel"], caps["deviceScreenSize"], caps["deviceScreenDensity"]) == (
            "Scripted Pixel",
            "1080x2400",
            480,
        )
        assert caps["viewportRect"] == {"left": 0, "top": caps["statBarHeight"], "width": 1080, "height": 2400 - 72}
        assert caps["desired"]["udid"] == SERIAL
        assert "appium:udid" not in caps["desired"]
        status, kept = rig.call(sid, "GET", "")
        assert status == 200
        assert kept["value"]["alwaysMatch"] == {}
        assert kept["value"]["firstMatch"][0]["deviceUDID"] == SERIAL
    finally:
        rig.call(sid, "DELETE", "")


def test_unknown_methods_refused_features_and_routes(rig: Rig) -> None:
    _, reply = rig.create()
    sid = reply["value"]["sessionId"]
    try:
        status, reply = rig.mobile(sid, "nosuch")
        assert (status, error(reply)[0]) == (500, "unsupported operation")
        assert error(reply)[1].startswith(
            "Unsupported execute method 'mobile: nosuch'. Make sure the installed AndroidUiautomator2Driver is "
            "up-to-date. Execute methods available in the current driver version are: mobile: lock, mobile: nfc, "
        )
        status, reply = rig.mobile(sid, "shell", {"command": "echo"})
        assert (status, error(reply)[0]) == (500, "unknown error")
        assert error(reply)[1].startswith("Potentially insecure feature 'adb_shell' has not been enabled.")
        status, reply = rig.mobile(sid, "pressKey")
        assert (status, error(reply)) == (
            400,
            (
                "invalid argument",
                (
                    'The following required parameter is missing: ["keycode"]\nKnown required parameters are: '
                    '["keycode"]\nKnown optional parameters are: ["metastate","flags","isLongPress","source"]\n'
                    "You have provided none"
                ),
            ),
        )
        status, reply = rig.call(sid, "POST", "/execute/sync", {"script": "nosuch()", "args": []})
        assert (status, error(reply)) == (405, ("unknown method", "Method is not implemented"))
        status, reply = rig.call(sid, "POST", "/element", {"using": "name", "value": "Sign up"})
        assert (status, error(reply)) == (
            400,
            ("invalid selector", "Locator Strategy 'name' is not supported for this session"),
        )
        status, reply = rig.call(sid, "POST", "/element", {"using": "accessibility id", "value": "nothing"})
        assert (status, error(reply)) == (
            404,
            ("no such element", "An element could not be located on the page using the given search parameters."),
        )
        assert rig.call(sid, "POST", "/elements", {"using": "accessibility id", "value": "nothing"}) == (
            200,
            {"value": []},
        )
        status, reply = rig.call(sid, "GET", "/nosuch")
        assert (status, error(reply)[0]) == (404, "unknown command")
        assert rig.call(sid, "GET", "/window/rect") == (200, {"value": {"width": 1080, "height": 2400, "x": 0, "y": 0}})
        assert rig.mobile(sid, "isAppInstalled", {"appId": "com.nope"}) == (200, {"value": False})
        status, reply = rig.mobile(sid, "activateApp", {"appId": "com.nope"})
        assert (status, error(reply)) == (
            500,
            (
                "unknown error",
                "Unable to resolve the launchable activity of 'com.nope'. Original error: No activity found",
            ),
        )
        assert rig.mobile(sid, "hideKeyboard") == (200, {"value": False})  # nothing showed
        assert rig.mobile(sid, "getUiMode", {"mode": "night"}) == (200, {"value": "no"})
    finally:
        rig.call(sid, "DELETE", "")


def test_a_stopped_server_answers_every_proxied_command_with_the_drivers_words(rig: Rig) -> None:
    _, reply = rig.create()
    sid = reply["value"]["sessionId"]
    try:
        rig.stop_server()
        status, reply = rig.call(sid, "GET", "/source")
        assert (status, error(reply)[0]) == (500, "unknown error")
        assert error(reply)[1] == (
            f"'GET /session/{sid}/source' cannot be proxied to UiAutomator2 server because the instrumentation "
            "process is not running (probably crashed). Check the server log and/or the logcat output for more details"
        )
        status, reply = rig.mobile(sid, "deviceInfo")
        assert re.match(r"'GET /appium/device/info' cannot be proxied", error(reply)[1]), reply
        assert rig.mobile(sid, "terminateApp", {"appId": APP}) == (200, {"value": False})  # adb still answers
    finally:
        assert rig.call(sid, "DELETE", "")[0] == 200
