"""The Appium device with the real Appium-Python-Client against the fake Appium server.

Conformance, what each call sends (once), the mapping of failures, sessions, secrets, providers.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import plistlib
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

import mobster_core as mc
from mobster_core import Action, DeviceKind, LaunchOptions, Op
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.replay import Replayed, Replayer
from mobster_core.testing import SPRINGBOARD, MemoryJournal, check_device
from mobster_drivers.devices.appium import (
    SOURCE_ARGS,
    AppiumCaps,
    AppiumDevice,
    AppiumErrorReply,
    AppiumTimeouts,
    Provider,
    appium_device,
)
from mobster_drivers.devices.appium._device import _refused
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.devices.wda import SourceRead, read_source
from mobster_drivers.testing import _appium_mobile as appium_mobile
from mobster_drivers.testing.appium import FakeAppium
from tests.core.helpers import step_on
from tests.drivers.devices.held import every_read_times_out_saying_what_to_do
from tests.loopback import closed_port
from tests.real_clock import ManualClock
from tests.samples import DEVICE_CHECKS

YOURAPP = "com.example.yourapp"
ALL_CHECKS = [*DEVICE_CHECKS, "evidence read", "target check", "check reports"]
SECRET = "k3y-Very-Secret-0042"
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def script(kind: str = "iphone") -> AppScript:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", f"kind: {kind}")
    return AppScript.from_text(text, "test.yaml")


@pytest.fixture
def appium() -> Iterator[FakeAppium]:
    with FakeAppium(script(), lifetime=60) as fake:
        yield fake


@pytest.fixture
def make() -> Iterator[Callable[..., AppiumDevice]]:
    """Makes devices and closes them all at the end (a fake serves one session at a time)."""
    made: list[AppiumDevice] = []

    def factory(url: str, caps: AppiumCaps | dict[str, Any] | None = None, **options: Any) -> AppiumDevice:
        if not isinstance(caps, AppiumCaps):
            caps = AppiumCaps.from_mapping(caps or {})
        options.setdefault("bundle", YOURAPP)
        clock = options.pop("clock", mc.SystemClock())
        device = appium_device(url, caps, clock, **options)
        made.append(device)
        return device

    yield factory
    for device in made:
        device.close()


def session_of(device: AppiumDevice) -> str | None:
    return device.session_id


def commands(fake: FakeAppium, since: int = 0) -> list[str]:
    return [r.command for r in fake.requests[since:]]


async def launched(device: AppiumDevice) -> mc.Screen:
    await device.launch(YOURAPP, LaunchOptions())
    return await device.read()


async def tap(device: AppiumDevice, label: str) -> None:
    screen = await device.read()
    (element,) = screen.find("Button", label)
    await device.act(Action(Op.TAP, element=element))


# -- conformance -------------------------------------------------------------------------------


def _one_at_a_time(
    make: Callable[..., AppiumDevice], url: str, caps: dict[str, Any] | None = None, **options: Any
) -> Callable[[], AppiumDevice]:
    last: list[AppiumDevice] = []

    def factory() -> AppiumDevice:
        while last:
            last.pop().close()  # one phone: the previous check's session ends first
        device = make(url, caps, **options)
        last.append(device)
        return device

    return factory


def test_the_appium_device_passes_check_device_on_an_iphone(appium: FakeAppium, make: Any) -> None:
    ran = run(
        check_device(
            _one_at_a_time(make, appium.url),
            app=YOURAPP,
            tap=("Button", "Sign up"),
            field=("TextField", "Email"),
            link="yourapp://signup",
        )
    )
    assert ran == ALL_CHECKS


def test_on_a_simulator_the_version_comes_from_the_app_file(tmp_path: Path, make: Any) -> None:
    app = tmp_path / "YourApp.app"
    app.mkdir()
    info = {"CFBundleIdentifier": YOURAPP, "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1"}
    (app / "Info.plist").write_bytes(plistlib.dumps(info))
    with FakeAppium(script("simulator"), lifetime=60) as fake:
        # A simulator has no lockdown values: the iOS version is the caps' (Appium echoes only those).
        caps = {"appium:platformVersion": "26.4"}
        ran = run(
            check_device(
                _one_at_a_time(make, fake.url, caps, app_files=[app]),
                app=YOURAPP,
                tap=("Button", "Sign up"),
                field=("TextField", "Email"),
                link="yourapp://signup",
            )
        )
        assert ran == ALL_CHECKS
        assert "mobile: listApps" not in fake.commands  # the XCUITest driver refuses it on a simulator


def test_it_is_a_device_with_screenshots(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    assert isinstance(device, mc.Device)
    assert isinstance(device, mc.Screenshots)
    assert isinstance(device, mc.protocols.CheckReports)


# -- info and app info -------------------------------------------------------------------------


def test_info_comes_from_the_session_and_device_info(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    info = run(device.info())
    assert (info.name, info.ios, info.kind) == ("Scripted iPhone", "26.4", DeviceKind.IPHONE)
    assert info.udid.startswith("00008110-")
    assert commands(appium) == ["POST /session", "mobile: deviceInfo"]


def test_a_simulator_is_told_by_device_info(make: Any) -> None:
    with FakeAppium(script("simulator"), lifetime=60) as fake:
        device = make(fake.url, {"appium:platformVersion": "26.4"})
        assert run(device.info()).kind is DeviceKind.SIMULATOR
        assert run(device.app_info(YOURAPP)) == mc.AppInfo(YOURAPP)  # no .app given: unknown version


def test_on_an_iphone_the_version_comes_from_list_apps(appium: FakeAppium, make: Any) -> None:
    assert run(make(appium.url).app_info(YOURAPP)) == mc.AppInfo(YOURAPP, "1.0", "1")


def test_what_the_caller_says_wins(appium: FakeAppium) -> None:
    device = AppiumDevice(appium.url, {}, bundle=YOURAPP, name="Lab 7", kind=DeviceKind.SIMULATOR, ios="26.1")
    try:
        info = run(device.info())
    finally:
        device.close()
    assert (info.name, info.ios, info.kind) == ("Lab 7", "26.1", DeviceKind.SIMULATOR)


# -- the session -------------------------------------------------------------------------------


def test_the_session_carries_mobsters_capabilities_and_the_users(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url, {"appium:deviceName": "iPhone 15", "appium:newCommandTimeout": 3600})
    run(device.info())
    create = appium.requests[0]
    assert create.body == {
        "capabilities": {
            "firstMatch": [{}],
            "alwaysMatch": {
                "appium:deviceName": "iPhone 15",
                "appium:newCommandTimeout": 3600,
                "platformName": "iOS",
                "appium:automationName": "XCUITest",
                "appium:noReset": True,
                "appium:autoLaunch": False,
            },
        }
    }
    assert "appium:bundleId" not in create.body["capabilities"]["alwaysMatch"]  # the caps didn't ask for it
    assert create.headers["x-idempotency-key"]
    assert appium.wda.phone.front == SPRINGBOARD  # autoLaunch false: the session launched nothing


def test_one_session_serves_every_call_and_each_create_has_its_own_key(make: Any) -> None:
    with FakeAppium(script(), lifetime=60, devices=2) as fake:  # two phones: two sessions at once
        first, second = make(fake.url), make(fake.url)
        run(launched(first))
        run(launched(first))
        run(second.info())
        creates = [r for r in fake.requests if r.command == "POST /session"]
        assert len(creates) == 2
        assert creates[0].headers["x-idempotency-key"] != creates[1].headers["x-idempotency-key"]
        assert first.session_id != second.session_id
        assert {r.session for r in fake.requests if r.session} == {first.session_id, second.session_id}


def test_end_session_deletes_it_and_the_next_call_starts_another(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(device.info())
    first = device.session_id
    run(device.end_session())
    assert device.session_id is None
    assert appium.sessions == {}
    run(launched(device))
    assert session_of(device) not in (None, first)
    assert commands(appium).count("POST /session") == 2
    assert commands(appium).count("DELETE /session/{id}") == 1


# -- reads -------------------------------------------------------------------------------------


def test_a_read_is_the_app_in_front_and_the_fast_json_source(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(device.launch(YOURAPP, LaunchOptions()))
    before, wda_before = len(appium.requests), len(appium.wda.requests)
    screen = run(device.read())
    assert commands(appium, before) == ["mobile: activeAppInfo", "mobile: source"]
    assert appium.requests[before + 1].body == {"script": "mobile: source", "args": [dict(SOURCE_ARGS)]}
    (source,) = [r for r in appium.wda.requests[wda_before:] if r.route == "/source"]
    assert "format=json" in source.path
    assert "excluded_attributes=visible%2Caccessible" in source.path
    assert screen.app == YOURAPP
    assert set(screen.signature_pairs) == {("StaticText", "Welcome"), ("Button", "Sign up"), ("Button", "Settings")}
    assert screen.size == appium.script.size


def test_the_window_rect_is_asked_once_when_a_root_has_no_rect(
    appium: FakeAppium, make: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = make(appium.url)
    run(device.launch(YOURAPP, LaunchOptions()))

    def rootless(tree: Any, app: str, *, size: tuple[float, float] | None = None) -> SourceRead:
        return read_source({k: v for k, v in tree.items() if k not in ("rect", "frame")}, app, size=size)

    monkeypatch.setattr("mobster_drivers._xcuitest.visibility.read_source", rootless)
    run(device.read())
    run(device.read())
    assert commands(appium).count("GET /window/rect") == 1


def test_a_failed_read_is_a_device_error(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(device.launch(YOURAPP, LaunchOptions()))
    appium.wda.fail_next_read()
    with pytest.raises(mc.DeviceError, match=r"mobile: source failed: HTTP 500 'unknown error'") as caught:
        run(device.read())
    assert not isinstance(caught.value, mc.UnknownOutcome)


HIDDEN = """
  com.example.hidden:
    name: Hidden
    version: "1"
    build: "1"
    launch: main
    screens:
      main:
        - {role: StaticText, label: Shown, id: shown}
        - {role: Button, label: Ghost, visible: false}
        - {role: Button, label: Below, frame: [0.1, 0.9, 0.8, 0.1]}
"""


def test_a_lone_hidden_button_fools_the_fast_read_only_and_a_replayed_tap_on_it_drifts(make: Any) -> None:
    # Real WDA keeps a hidden view's full frame: without `visible` nothing tells it apart. The
    # evidence read and the check before a tap ask WDA (through Appium), so the verdict never
    # counts it and the replay never taps it.
    text = sample_path("yourapp").read_text("utf-8") + HIDDEN
    with FakeAppium(AppScript.from_text(text, "hidden.yaml"), lifetime=60) as fake:
        device = make(fake.url, bundle="com.example.hidden")
        dispatch = Dispatcher(device, mc.SystemClock(), MemoryJournal())
        quick = mc.PollPolicy(interval=0.01, drift_after=0.05, give_up_after=0.5)
        replayer = Replayer(dispatch, DeviceKind.SIMULATOR, Provenance(), timing=quick)

        async def go() -> tuple[mc.Screen, mc.Screen, bool, bool, Replayed]:
            await device.launch("com.example.hidden", LaunchOptions())
            fast = await device.read()  # shows Ghost: a step can be recorded on it
            ghost, below = fast.find("Button", "Ghost")[0], fast.find("Button", "Below")[0]
            checks = await device.check_target(ghost), await device.check_target(below)
            replayed = await replayer.run([step_on(fast, label="Ghost")])
            return fast, await device.read_evidence(), *checks, replayed

        fast, evidence, ghost_ok, below_ok, result = run(go())
        sent = fake.commands
    assert ("Button", "Ghost") in fast.signature_pairs
    assert ("Button", "Ghost") not in evidence.signature_pairs
    assert (ghost_ok, below_ok) == (False, True)
    assert result.drift is not None
    assert result.message.endswith('"Ghost" is in the tree but hidden: the device says it isn\'t visible')
    assert "mobile: tap" not in sent


# -- actions, each sent once -------------------------------------------------------------------


def test_a_tap_is_one_mobile_tap_at_the_centre_in_points(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    screen = run(launched(device))
    (button,) = screen.find("Button", "Sign up")
    before, taps = len(appium.requests), len(appium.wda.phone.actions)
    run(device.act(Action(Op.TAP, element=button)))
    (request,) = appium.requests[before:]
    width, height = appium.script.size
    x, y, w, h = button.frame
    assert request.command == "mobile: tap"
    assert request.body["args"] == [
        {"x": pytest.approx((x + w / 2) * width, abs=0.5), "y": pytest.approx((y + h / 2) * height, abs=0.5)}
    ]
    assert len(appium.wda.phone.actions) == taps + 1
    assert not [r for r in appium.wda.requests if r.route == "/actions"]  # no W3C pointer travel
    assert appium.wda.phone.screen_name(YOURAPP) == "signup"


def test_typing_taps_the_field_then_types_into_the_focused_element(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    run(tap(device, "Sign up"))
    screen = run(device.read())
    (field,) = screen.find("TextField", "Email")
    before = len(appium.requests)
    run(device.act(Action(Op.TYPE, element=field, text="ada@example.com")))
    assert commands(appium, before) == ["mobile: tap", "GET /element/active", "POST /element/{id}/value"]
    value = appium.requests[-1].body
    assert value["text"] == "ada@example.com"
    assert value["value"] == list("ada@example.com")
    after = run(device.read())
    assert [e.value for e in after.find("TextField", "Email")] == ["ada@example.com"]
    before = len(appium.requests)
    run(device.act(Action(Op.SUBMIT)))
    assert commands(appium, before) == ["GET /element/active", "POST /element/{id}/value"]
    assert appium.requests[-1].body["text"] == "\n"


def test_typing_with_nothing_focused_types_nothing(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    screen = run(launched(device))
    (label,) = screen.find("StaticText", "Welcome")
    with pytest.raises(mc.DeviceError, match="no element has the keyboard focus; nothing was typed") as caught:
        run(device.act(Action(Op.TYPE, element=label, text="x")))
    assert not isinstance(caught.value, mc.UnknownOutcome)
    assert "POST /element/{id}/value" not in appium.commands


def test_long_press_holds_and_swipes_drag(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    screen = run(launched(device))
    (button,) = screen.find("Button", "Settings")
    before = len(appium.requests)
    run(device.act(Action(Op.LONG_PRESS, element=button)))
    run(device.act(Action(Op.SWIPE_UP)))
    hold, swipe = appium.requests[before:]
    assert hold.command == "mobile: touchAndHold"
    assert hold.body["args"][0]["duration"] == 1.0
    assert swipe.command == "mobile: dragFromToForDuration"
    width, height = appium.script.size
    assert swipe.body["args"] == [
        {"fromX": width / 2, "fromY": 0.75 * height, "toX": width / 2, "toY": 0.25 * height, "duration": 0.1}
    ]
    assert [a.op for a in appium.wda.phone.actions[-2:]] == [Op.LONG_PRESS, Op.SWIPE_UP]


def test_home_launch_app_and_open_url(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    before = len(appium.requests)
    run(device.act(Action(Op.HOME)))
    assert run(device.read()).app == SPRINGBOARD
    run(device.act(Action(Op.LAUNCH_APP, text=YOURAPP)))
    assert run(device.read()).app == YOURAPP
    run(device.act(Action(Op.LAUNCH_APP, text=SPRINGBOARD)))
    run(device.act(Action(Op.OPEN_URL, text="yourapp://signup")))
    screen = run(device.read())
    assert screen.find("StaticText", "Create your account")
    sent = [c for c in commands(appium, before) if c not in ("mobile: activeAppInfo", "mobile: source")]
    assert sent == ["mobile: pressButton", "mobile: activateApp", "mobile: pressButton", "mobile: deepLink"]
    assert appium.requests[-3].body["args"] == [{"url": "yourapp://signup"}]


def test_launch_terminates_then_launches_with_arguments_environment_and_link(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    run(tap(device, "Sign up"))
    before = len(appium.requests)
    options = LaunchOptions(args=["-UITests"], env={"STAGE": "ci"}, url="yourapp://signup")
    run(device.launch(YOURAPP, options))
    assert commands(appium, before) == [
        "mobile: isAppInstalled",
        "mobile: terminateApp",
        "mobile: launchApp",
        "mobile: deepLink",
    ]
    launch = appium.requests[before + 2].body["args"][0]
    assert launch == {"bundleId": YOURAPP, "arguments": ["-UITests"], "environment": {"STAGE": "ci"}}
    (wda_launch,) = [r for r in appium.wda.requests if r.route == "/wda/apps/launch"][-1:]
    assert wda_launch.body["arguments"] == ["-UITests"]  # the app was not running: the arguments arrived
    assert appium.wda.phone.screen_name(YOURAPP) == "signup"


def test_launching_an_app_that_is_not_installed_sends_nothing(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(device.info())  # a run asks first; the name is the phone's (Appium echoes no deviceName)
    before = len(appium.requests)
    with pytest.raises(mc.DeviceError, match=r"com\.example\.nope is not installed on Scripted iPhone"):
        run(device.launch("com.example.nope", LaunchOptions()))
    assert commands(appium, before) == ["mobile: isAppInstalled"]


def test_a_screenshot_is_a_png(appium: FakeAppium, make: Any) -> None:
    png = run(make(appium.url).screenshot())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


# -- the mapping of failures -------------------------------------------------------------------


def test_a_tap_whose_reply_times_out_is_an_unknown_outcome_sent_once(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url, timeouts=AppiumTimeouts(action=0.25))
    screen = run(launched(device))
    appium.stall_next_reply(3.0)
    before = len(appium.requests)
    with pytest.raises(mc.UnknownOutcome, match=r"mobile: tap .*no reply within 0\.25 s.*not sent again"):
        run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
    assert commands(appium, before) == ["mobile: tap"]
    assert appium.wda.phone.screen_name(YOURAPP) == "signup"  # it had landed


def test_a_wda_reply_held_forever_makes_every_later_read_time_out_saying_what_to_do(
    appium: FakeAppium, make: Any
) -> None:
    # The WDA behind Appium serves one request at a time (the fake's default, as WDA's main queue):
    # a command that never ends there holds the next one too. Each read ends at its own timeout.
    device = make(appium.url, timeouts=AppiumTimeouts(read=0.25))
    run(launched(device))
    appium.wda.stall_next_reply(600.0)
    every_read_times_out_saying_what_to_do(device.read, f"Appium at {appium.url}", "restart the session")


def test_a_5xx_on_an_action_is_an_unknown_outcome_sent_once(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    appium.wda.fail_next_action()  # WDA loses the reply: Appium answers 500 'unknown error'
    before = len(appium.requests)
    with pytest.raises(mc.UnknownOutcome, match=r"HOME: Appium at .* sent an error to mobile: pressButton .*500") as e:
        run(device.act(Action(Op.HOME)))
    assert commands(appium, before) == ["mobile: pressButton"]
    assert isinstance(e.value.__cause__, AppiumErrorReply)
    assert appium.wda.phone.front == YOURAPP  # not applied, and not sent again


def test_a_refused_5xx_is_a_device_error(appium: FakeAppium, make: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(_wda: Any, _params: Any) -> Any:  # an XCUITest driver older than 4.17 answered so
        raise appium_mobile.Failure(500, "unsupported operation", "Unsupported execute method 'mobile: deepLink'")

    monkeypatch.setitem(appium_mobile.MOBILE, "deepLink", (("url",), refused))
    device = make(appium.url)
    run(launched(device))
    with pytest.raises(mc.DeviceError, match=r"refused mobile: deepLink: HTTP 500 'unsupported operation'") as caught:
        run(device.act(Action(Op.OPEN_URL, text="yourapp://signup")))
    assert not isinstance(caught.value, mc.UnknownOutcome)


def test_which_error_replies_are_refusals() -> None:
    def reply(error: str, status: int | None) -> AppiumErrorReply:
        return AppiumErrorReply("mobile: tap", error, "", status)

    assert _refused(reply("invalid argument", 400))
    assert _refused(reply("unsupported operation", 500))
    assert _refused(reply("some cloud error", 403))
    assert not _refused(reply("unknown error", 500))
    assert not _refused(reply("timeout", 500))
    assert not _refused(reply("javascript error", 500))
    assert not _refused(reply("unknown error", None))


def test_a_stale_session_mid_check_is_refused_and_the_next_launch_recovers(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    screen = run(launched(device))
    appium.end_sessions()
    actions = len(appium.wda.phone.actions)
    with pytest.raises(mc.DeviceError, match=r"no longer knows the session .*nothing was done") as caught:
        run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
    assert not isinstance(caught.value, mc.UnknownOutcome)
    assert len(appium.wda.phone.actions) == actions
    before = len(appium.requests)
    run(device.launch(YOURAPP, LaunchOptions()))
    assert commands(appium, before)[:2] == ["POST /session", "mobile: isAppInstalled"]
    assert run(device.read()).app == YOURAPP


def test_a_stale_session_at_launch_is_replaced_and_sent_once_more(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(device.info())
    old = device.session_id
    appium.end_sessions()
    before = len(appium.requests)
    run(device.launch(YOURAPP, LaunchOptions()))
    sent = [(r.command, r.session == old) for r in appium.requests[before:]]
    assert sent == [
        ("mobile: isAppInstalled", True),  # refused: invalid session id
        ("DELETE /session/{id}", True),  # given up on, deleted: a server that still holds it lets it go
        ("POST /session", False),
        ("mobile: isAppInstalled", False),
        ("mobile: terminateApp", False),
        ("mobile: launchApp", False),
    ]


def test_an_idle_session_ends_after_the_providers_timeout(make: Any) -> None:
    clock = ManualClock()
    with FakeAppium(script(), lifetime=60, idle_timeout=300, clock=clock) as fake:
        device = make(fake.url, clock=clock)
        run(launched(device))
        clock.t += 301
        with pytest.raises(
            mc.DeviceError, match=r"'invalid session id', 301 s after the last command; newCommandTimeout is 600 s"
        ):
            run(device.read())
        assert fake.sessions == {}
        run(launched(device))  # the next check starts a new session


def test_appium_ends_a_session_after_its_new_command_timeout(make: Any) -> None:
    clock = ManualClock()
    with FakeAppium(script(), lifetime=60, clock=clock) as fake:
        device = make(fake.url, clock=clock)
        run(launched(device))
        clock.t += 599
        run(device.read())  # newCommandTimeout is 600 s: still alive
        clock.t += 601
        with pytest.raises(mc.DeviceError, match="no longer knows the session"):
            run(device.read())


def test_garbage_from_a_load_balancer(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    appium.garbage_next_reply()
    with pytest.raises(mc.DeviceError, match=r"sent a bad reply to mobile: activeAppInfo: HTTP 502") as read:
        run(device.read())
    assert not isinstance(read.value, mc.UnknownOutcome)
    appium.garbage_next_reply(200)
    with pytest.raises(mc.UnknownOutcome, match=r"a bad reply to mobile: pressButton .*not JSON"):
        run(device.act(Action(Op.HOME)))


def test_a_slow_read_is_a_device_error(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url, timeouts=AppiumTimeouts(read=0.25))
    run(device.info())
    appium.stall_next_reply(3.0)
    with pytest.raises(mc.DeviceError, match=r"didn't answer mobile: activeAppInfo: no reply within 0\.25 s") as e:
        run(device.read())
    assert not isinstance(e.value, mc.UnknownOutcome)


def test_an_unreachable_server_sends_nothing(make: Any) -> None:
    device = make(f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(mc.DeviceError, match=r"isn't answering .*is the Appium server running there") as read:
        run(device.read())
    assert not isinstance(read.value, mc.UnknownOutcome)


def test_an_unreachable_server_mid_check_sends_no_action(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    appium.stop()
    with pytest.raises(mc.DeviceError, match=r"HOME: nothing was sent|HOME: .*no complete reply") as act:
        run(device.act(Action(Op.HOME)))
    # A pooled keep-alive connection the server closed may still take the request: then the
    # outcome is unknown. A refused connection is a DeviceError with nothing sent.
    assert isinstance(act.value, mc.DeviceError)


def test_a_refused_session_create(appium: FakeAppium, make: Any) -> None:
    appium.fail_next_session()
    with pytest.raises(mc.DeviceError, match=r"refused a new session: HTTP 500 'session not created'"):
        run(make(appium.url).info())
    appium.fail_next_session(502, html=True)
    with pytest.raises(mc.DeviceError, match=r"a bad reply to POST /session \(HTTP 502 with a body that is not JSON"):
        run(make(appium.url).info())


@pytest.mark.parametrize(
    ("caps", "fix"),
    [
        ({}, "set appium:platformVersion in "),
        ({"appium:platformVersion": "26.4", "appium:bundleId": YOURAPP}, "remove appium:bundleId in "),
        ({"appium:bundleId": YOURAPP}, "set appium:platformVersion and remove appium:bundleId in "),
    ],
)
def test_a_session_refused_for_want_of_usbmuxd_says_what_to_change(make: Any, caps: dict[str, Any], fix: str) -> None:
    # A Linux Appium in front of a networked WDA: what XCUITest would ask the phone's lockdown refuses the session.
    with FakeAppium(script(), lifetime=60, usbmuxd=False) as fake:
        with pytest.raises(mc.DeviceError, match="usbmuxd socket path") as refused:
            run(make(fake.url, caps).info())
        assert fix in str(refused.value)
        assert "docs/drivers.md#appium-on-linux-and-usbmuxd" in str(refused.value)


def test_a_busy_cloud_refuses_a_second_session(make: Any) -> None:
    with FakeAppium(script(), lifetime=60, max_sessions=1) as cloud:  # a plan with one parallel session
        run(make(cloud.url).info())
        with pytest.raises(mc.DeviceError, match="maximum number of sessions"):
            run(make(cloud.url).info())


# -- secrets -----------------------------------------------------------------------------------


BSTACK = {"bstack:options": {"userName": "ada", "accessKey": "${BROWSERSTACK_ACCESS_KEY}"}}


def _caps(monkeypatch: pytest.MonkeyPatch, key: str = SECRET) -> AppiumCaps:
    monkeypatch.setenv("BROWSERSTACK_ACCESS_KEY", key)
    return AppiumCaps.from_mapping(BSTACK)


def _chain(exc: BaseException) -> str:
    text = []
    seen: BaseException | None = exc
    while seen is not None:
        text.append(f"{type(seen).__name__}: {seen} {seen.args!r}")
        seen = seen.__cause__ or seen.__context__
    return "\n".join(text)


def test_a_refused_key_is_never_printed_or_logged(
    make: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    require: dict[str, dict[str, str | None]] = {"bstack:options": {"userName": None, "accessKey": "the-right-key"}}
    with FakeAppium(script(), lifetime=60, require=require) as fake:
        device = make(fake.url, _caps(monkeypatch))
        with pytest.raises(mc.DeviceError, match=r"refused a new session: .*accessKey '\*\*\*'") as caught:
            run(device.info())
        assert SECRET in fake.requests[0].path + str(fake.requests[0].body)  # it was sent (to the server)
    assert SECRET not in _chain(caught.value)
    assert SECRET not in caplog.text
    assert "***" in caplog.text  # Selenium logged the capabilities; the filter scrubbed them


def test_an_accepted_key_stays_out_of_the_logs_too(
    make: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    require: dict[str, dict[str, str | None]] = {"bstack:options": {"userName": None, "accessKey": SECRET}}
    with FakeAppium(script(), lifetime=60, require=require) as fake:
        device = make(fake.url, _caps(monkeypatch))
        run(launched(device))
        assert fake.sessions[device.session_id or ""]["bstack:options"]["accessKey"] == SECRET  # echoed back
    assert SECRET not in caplog.text
    assert "***" in caplog.text


def test_missing_credentials_say_what_to_check(make: Any) -> None:
    require: dict[str, dict[str, str | None]] = {"bstack:options": {"userName": None, "accessKey": None}}
    with FakeAppium(script(), lifetime=60, require=require) as fake:
        with pytest.raises(
            mc.DeviceError, match=r"HTTP 401 .*check the user name and access key in the capabilities given"
        ):
            run(make(fake.url).info())


def test_a_url_with_user_info_sends_basic_auth_and_never_shows_the_key(
    appium: FakeAppium, make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = appium.url.replace("http://", f"http://ada:{SECRET}@")
    device = make(url)
    assert SECRET not in device.url
    run(device.info())
    auth = appium.requests[0].headers["authorization"]
    assert base64.b64decode(auth.removeprefix("Basic ")).decode() == f"ada:{SECRET}"
    assert all(SECRET not in r.path for r in appium.requests)
    appium.stop()
    with pytest.raises(mc.DeviceError) as caught:
        run(device.read())
    assert SECRET not in _chain(caught.value)
    assert SECRET not in caplog.text


# -- telling the provider ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "caps", "expected"),
    [
        (
            "browserstack",
            {"bstack:options": {"userName": "ada"}},
            [
                ("browserstack", {"action": "setSessionName", "arguments": {"name": "A new user signs up"}}),
                (
                    "browserstack",
                    {"action": "setSessionStatus", "arguments": {"status": "failed", "reason": "text not shown"}},
                ),
            ],
        ),
        (
            "sauce",
            {"sauce:options": {"name": "x"}},
            [("sauce", "job-name=A new user signs up"), ("sauce", "job-result=failed")],
        ),
        (
            "lambdatest",
            {"lt:options": {"w3c": True}},
            [
                ("lambdatest", "name=A new user signs up"),
                (
                    "lambdatest",
                    {"action": "setTestStatus", "arguments": {"status": "failed", "remark": "text not shown"}},
                ),
            ],
        ),
    ],
)
def test_the_provider_is_told_the_name_and_verdict(
    make: Any, provider: str, caps: dict[str, Any], expected: list[tuple[str, Any]]
) -> None:
    with FakeAppium(script(), lifetime=60, provider=provider) as fake:
        device = make(fake.url, caps)
        assert device.provider is Provider(provider)
        run(launched(device))
        assert run(device.report("A new user signs up", mc.Verdict.FAILED, "text not shown")) is True
        assert fake.annotations == expected


def test_no_provider_no_session_or_a_refusal_reports_nothing_and_never_raises(appium: FakeAppium, make: Any) -> None:
    plain = make(appium.url)
    run(launched(plain))
    assert run(plain.report("x", "passed")) is False
    assert not [c for c in appium.commands if not c.startswith(("mobile:", "POST /session", "GET ", "DELETE"))]
    plain.close()
    sauce = make(appium.url, {"sauce:options": {}})
    assert run(sauce.report("x", mc.Verdict.PASSED)) is False  # no session yet
    run(launched(sauce))
    assert run(sauce.report("x", mc.Verdict.PASSED)) is False  # this server is no Sauce: 405, logged
    assert appium.annotations == []


# -- bad input ---------------------------------------------------------------------------------


def test_bad_urls_caps_and_app_files_fail_when_the_device_is_made(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Appium server URL"):
        AppiumDevice("ftp://example.com")
    with pytest.raises(ValueError, match="platformName is 'Windows'"):
        AppiumDevice("http://127.0.0.1:4723", {"platformName": "Windows"})
    with pytest.raises(ValueError, match=r"neither a \.app folder nor an \.ipa"):
        AppiumDevice("http://127.0.0.1:4723", {}, app_files=[tmp_path / "nope.zip"])


def test_a_per_session_endpoint_token_never_shows(make: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    token = "Zq8vTOKENa1b2c3d4e5f6g7h8"
    with FakeAppium(script(), lifetime=60, base_path=f"/remote-endpoint/{token}/wd/hub") as fake:
        device = make(fake.url)
        run(launched(device))
        fake.stop()
        with pytest.raises(mc.DeviceError) as caught:
            run(device.read())
    assert token not in _chain(caught.value)
    assert "***" in str(caught.value)
    assert token not in caplog.text


def test_terminate_and_app_state(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    assert run(device.app_state(YOURAPP)) == 4
    assert run(device.terminate(YOURAPP)) is True
    assert run(device.app_state(YOURAPP)) == 1
    assert run(device.terminate(YOURAPP)) is False
    assert commands(appium)[-4:] == [
        "mobile: queryAppState",
        "mobile: terminateApp",
        "mobile: queryAppState",
        "mobile: terminateApp",
    ]


def test_a_dropped_reply_is_never_sent_again_whatever_the_method(appium: FakeAppium, make: Any) -> None:
    device = make(appium.url)
    run(launched(device))
    appium.drop_next_reply()
    before = len(appium.requests)
    with pytest.raises(mc.UnknownOutcome, match=r"HOME: .*no complete reply to mobile: pressButton .*not sent again"):
        run(device.act(Action(Op.HOME)))
    assert commands(appium, before) == ["mobile: pressButton"]
    assert appium.wda.phone.front == SPRINGBOARD  # it had landed
    appium.drop_next_reply()
    before = len(appium.requests)
    with pytest.raises(mc.DeviceError, match=r"didn't answer GET /screenshot") as caught:
        run(device.screenshot())  # a GET: urllib3's default retries would have sent it 4 times
    assert not isinstance(caught.value, mc.UnknownOutcome)
    assert commands(appium, before) == ["GET /screenshot"]
