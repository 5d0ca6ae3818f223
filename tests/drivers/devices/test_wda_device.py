"""The WebDriverAgent device against the fake WDA server: conformance, requests, action-once, errors."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

import mobster_core as mc
from mobster_core import Action, DeviceKind, LaunchOptions, Op, Reset
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.replay import Replayed, Replayer
from mobster_core.testing import SPRINGBOARD, MemoryJournal, check_device
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.devices.wda import SESSION_SETTINGS, SOURCE_PATH, WdaDevice, WdaErrorReply, WdaReply, WdaTimeouts
from mobster_drivers.testing.wda import FakeWda
from tests.core.helpers import step_on
from tests.drivers.devices.held import every_read_times_out_saying_what_to_do
from tests.loopback import closed_port
from tests.samples import DEVICE_CHECKS

YOURAPP = "com.example.yourapp"
ALL_CHECKS = [*DEVICE_CHECKS, "evidence read", "target check"]
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def script(kind: str = "simulator", extra: str = "") -> AppScript:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", f"kind: {kind}")
    return AppScript.from_text(text + extra, "test.yaml")


@pytest.fixture
def wda() -> Iterator[FakeWda]:
    with FakeWda(sample_path("yourapp"), lifetime=60) as fake:
        yield fake


def posts(fake: FakeWda) -> list[str]:
    return [r.route for r in fake.requests if r.method == "POST"]


async def launched(device: WdaDevice) -> mc.Screen:
    await device.launch(YOURAPP, LaunchOptions())
    return await device.read()


async def tap(device: WdaDevice, label: str) -> None:
    screen = await device.read()
    (element,) = screen.find("Button", label)
    await device.act(Action(Op.TAP, element=element))


# -- conformance -------------------------------------------------------------------------------


def test_the_wda_device_passes_check_device_on_an_iphone() -> None:
    with FakeWda(script("iphone"), lifetime=60) as fake:
        ran = run(
            check_device(
                lambda: WdaDevice(fake.url),
                app=YOURAPP,
                tap=("Button", "Sign up"),
                field=("TextField", "Email"),
                link="yourapp://signup",
            )
        )
    assert ran == ALL_CHECKS


def test_the_wda_device_passes_check_device_when_told_the_kind(wda: FakeWda) -> None:
    ran = run(check_device(lambda: WdaDevice(wda.url, kind=DeviceKind.IPHONE), app=YOURAPP, tap=("Button", "Sign up")))
    assert ran == [*ALL_CHECKS[:7], "screenshot", "evidence read", "target check"]


def test_it_is_a_device_with_screenshots(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    assert isinstance(device, mc.Device)
    assert isinstance(device, mc.EvidenceReads)
    assert isinstance(device, mc.TargetChecks)
    assert isinstance(device, mc.Screenshots)


# -- info --------------------------------------------------------------------------------------


def test_info_reads_the_name_version_and_kind_from_wda(wda: FakeWda) -> None:
    info = run(WdaDevice(wda.url).info())
    assert info == mc.DeviceInfo(
        name="Scripted iPhone", ios="26.4", kind=DeviceKind.SIMULATOR, locale="en_US", appearance="light"
    )


def test_an_iphone_is_told_apart_by_status_and_device_info() -> None:
    with FakeWda(script("iphone"), lifetime=60) as fake:
        assert run(WdaDevice(fake.url).info()).kind is DeviceKind.IPHONE


def test_what_the_caller_says_wins(wda: FakeWda) -> None:
    device = WdaDevice(wda.url, kind=DeviceKind.IPHONE, name="Lab 7", ios="18.6", udid="u-1")
    assert run(device.info()) == mc.DeviceInfo(
        name="Lab 7", ios="18.6", kind=DeviceKind.IPHONE, udid="u-1", locale="en_US", appearance="light"
    )
    run(device.info())
    # the name and kind are the caller's; the locale and appearance are asked of WDA, once
    assert len([r for r in wda.requests if r.route == "/wda/device/info"]) == 1


def test_app_info_has_no_version_but_knows_what_is_installed(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    assert run(device.app_info(YOURAPP)) == mc.AppInfo(YOURAPP, None, None)
    with pytest.raises(mc.DeviceError, match=r"com\.example\.nope is not installed on Scripted iPhone"):
        run(device.app_info("com.example.nope"))


# -- the session -------------------------------------------------------------------------------


def test_the_session_does_not_wait_for_quiescence_and_gets_the_settings(wda: FakeWda) -> None:
    run(WdaDevice(wda.url).read())
    (create,) = [r for r in wda.requests if r.route == "/session" and r.method == "POST"]
    caps = create.body["capabilities"]["alwaysMatch"]
    assert caps["shouldWaitForQuiescence"] is False
    assert caps["waitForIdleTimeout"] == 0
    (settings,) = [r for r in wda.requests if r.route == "/appium/settings"]
    assert settings.body["settings"] == {**SESSION_SETTINGS, "activeAppDetectionPoint": "201,437"}
    assert settings.session == wda.session_id


def test_one_session_serves_every_call(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)

    async def scenario() -> None:
        await launched(device)
        await tap(device, "Sign up")
        await device.read()

    run(scenario())
    assert len([r for r in wda.requests if r.route == "/session"]) == 1
    assert {r.session for r in wda.requests if r.session} == {device.session_id}


# -- reading -----------------------------------------------------------------------------------


def test_a_read_is_the_app_in_front_and_the_fast_source(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    screen = run(launched(device))
    assert screen.app == YOURAPP
    assert screen.size == (402, 874)
    assert [(e.role, e.label, e.path) for e in screen.elements] == [
        ("StaticText", "Welcome", "/0/0"),
        ("Button", "Sign up", "/0/1"),
        ("Button", "Settings", "/0/2"),
    ]
    phone = run(_phone_read(wda))
    # WDA's rects are whole points: a frame comes back within half a point on each edge.
    for mine, theirs in zip(screen.elements, phone.elements, strict=True):
        assert mine.frame == pytest.approx(theirs.frame, abs=1 / 402)
    sources = [r.path for r in wda.requests if r.route == "/source"]
    assert sources == [f"/session/{device.session_id}{SOURCE_PATH}"]


async def _phone_read(fake: FakeWda) -> mc.Screen:
    return fake.phone.peek()[0]


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
        - {role: Button, label: Gone, frame: [0.0, 0.0, 0.0, 0.0]}
        - {role: Switch, label: Wifi, value: "1", enabled: false}
"""


def test_a_fast_read_cant_see_a_lone_hidden_view_the_evidence_read_and_the_target_check_can() -> None:
    # Real WDA keeps a hidden view's full frame; without `visible` nothing in the reply tells it
    # apart (../shared/wda-trees/README.md). So the fast read shows Ghost, and the two reads that
    # ask WDA (the verdict's evidence read, the check before a tap) don't.
    with FakeWda(script(extra=HIDDEN), lifetime=60) as fake:
        device = WdaDevice(fake.url)

        async def scenario() -> tuple[mc.Screen, mc.Screen, bool, bool]:
            await device.launch("com.example.hidden", LaunchOptions())
            fast = await device.read()
            ghost, shown = fast.find("Button", "Ghost")[0], fast.find("Button", "Below")[0]
            return (
                fast,
                await device.read_evidence(),
                await device.check_target(ghost),
                await device.check_target(shown),
            )

        fast, evidence, ghost_ok, below_ok = run(scenario())
    seen = {e.label: e for e in fast.elements}
    assert seen["Shown"].visible
    assert seen["Shown"].identifier == "shown"
    assert seen["Ghost"].visible  # the fast read can't tell
    assert seen["Ghost"].frame == pytest.approx((0.06, 0.18, 0.88, 0.06), abs=1 / 402)  # a full frame
    assert seen["Below"].visible
    assert seen["Below"].frame == pytest.approx((0.1, 0.9, 0.8, 0.1), abs=1 / 402)
    assert not seen["Gone"].visible
    assert seen["Wifi"].value == "1"
    assert not seen["Wifi"].enabled
    assert evidence.signature == [["Button", "Below"], ["StaticText", "Shown"], ["Switch", "Wifi"]]
    assert (ghost_ok, below_ok) == (False, True)
    queries = [r.body["value"] for r in fake.requests if r.route == "/elements"]
    assert queries == [
        'type == "XCUIElementTypeButton" AND label == "Ghost" AND visible == 1',
        'type == "XCUIElementTypeButton" AND label == "Below" AND visible == 1',
    ]


def test_the_home_screen_reads_as_springboard(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    screen = run(device.read())
    assert screen.app == SPRINGBOARD
    assert [e.label for e in screen.elements] == ["YourApp"]


def test_a_failed_read_is_a_device_error(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(device.read())
    wda.fail_next_read()
    with pytest.raises(mc.DeviceError, match=r"GET /source failed") as caught:
        run(device.read())
    assert not isinstance(caught.value, mc.UnknownOutcome)
    assert run(device.read()).app == SPRINGBOARD


# -- actions: what is sent ---------------------------------------------------------------------


def test_a_tap_is_one_w3c_action_at_the_elements_centre_in_points(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    screen = run(launched(device))
    (button,) = screen.find("Button", "Sign up")
    before = len(wda.requests)
    run(device.act(Action(Op.TAP, element=button)))
    (sent,) = wda.requests[before:]
    assert sent.route == "/actions"
    steps = sent.body["actions"][0]["actions"]
    x, y, w, h = button.frame
    assert steps[0] == {
        "type": "pointerMove",
        "duration": 0,
        "x": 201.0,
        "y": pytest.approx((y + h / 2) * 874, abs=0.5),
    }
    assert [s["type"] for s in steps] == ["pointerMove", "pointerDown", "pause", "pointerUp"]
    assert x + w / 2 == pytest.approx(0.5, abs=1 / 402)  # whole points, as WDA's rects
    assert wda.phone.screen_name(YOURAPP) == "signup"


def test_typing_taps_the_field_then_sends_the_keys(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)

    async def scenario() -> mc.Screen:
        await launched(device)
        await tap(device, "Sign up")
        (field,) = (await device.read()).find("TextField", "Email")
        await device.act(Action(Op.TYPE, element=field, text="ada@example.com"))
        await device.act(Action(Op.SUBMIT))
        return await device.read()

    screen = run(scenario())
    assert screen.find("TextField", "Email")[0].value == "ada@example.com"
    assert posts(wda)[-3:] == ["/actions", "/wda/keys", "/wda/keys"]
    keys = [r.body["value"] for r in wda.requests if r.route == "/wda/keys"]
    assert keys == [list("ada@example.com"), ["\n"]]
    assert [a.op for a in wda.phone.actions][-3:] == [Op.TAP, Op.TYPE, Op.SUBMIT]


def test_a_secure_field_shows_bullets(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)

    async def scenario() -> str:
        await launched(device)
        await tap(device, "Sign up")
        (field,) = (await device.read()).find("SecureTextField", "Password")
        await device.act(Action(Op.TYPE, element=field, text="hunter2"))
        return (await device.read()).find("SecureTextField", "Password")[0].value

    assert run(scenario()) == "\u2022" * 7


def test_long_press_holds_and_swipes_drag(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)

    async def scenario() -> None:
        screen = await launched(device)
        (welcome,) = screen.find("StaticText", "Welcome")
        await device.act(Action(Op.LONG_PRESS, element=welcome))
        await device.act(Action(Op.SWIPE_UP))
        await device.act(Action(Op.SWIPE_LEFT, element=welcome))

    run(scenario())
    press = next(r for r in wda.requests if r.route == "/actions")
    assert press.body["actions"][0]["actions"][2] == {"type": "pause", "duration": 1000}
    drags = [r.body for r in wda.requests if r.route == "/wda/dragfromtoforduration"]
    assert drags[0] == {"fromX": 201.0, "fromY": 655.5, "toX": 201.0, "toY": 218.5, "duration": 0.1}
    assert drags[1]["fromX"] > drags[1]["toX"]
    assert drags[1]["fromY"] == drags[1]["toY"]
    assert [a.op for a in wda.phone.actions] == [Op.LONG_PRESS, Op.SWIPE_UP, Op.SWIPE_LEFT]


def test_home_launch_app_and_open_url(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)

    async def scenario() -> list[str]:
        await launched(device)
        await device.act(Action(Op.HOME))
        apps = [(await device.read()).app]
        await device.act(Action(Op.LAUNCH_APP, text=YOURAPP))
        apps.append((await device.read()).app)
        await device.act(Action(Op.OPEN_URL, text="yourapp://signup"))
        apps.append(wda.phone.screen_name(YOURAPP) or "")
        await device.act(Action(Op.LAUNCH_APP, text=SPRINGBOARD))
        apps.append((await device.read()).app)
        return apps

    assert run(scenario()) == [SPRINGBOARD, YOURAPP, "signup", SPRINGBOARD]
    assert [r for r in posts(wda) if r != "/appium/settings"][-4:] == [
        "/wda/homescreen",
        "/wda/apps/activate",
        "/url",
        "/wda/homescreen",
    ]


def test_launch_sends_arguments_and_environment_and_opens_the_link(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    options = LaunchOptions(args=["-UITests"], env={"API": "http://127.0.0.1:9"}, url="yourapp://signup")
    run(device.launch(YOURAPP, options))
    (launch,) = [r.body for r in wda.requests if r.route == "/wda/apps/launch"]
    assert launch == {
        "bundleId": YOURAPP,
        "arguments": ["-UITests"],
        "environment": {"API": "http://127.0.0.1:9"},
        "shouldWaitForQuiescence": False,
    }
    assert wda.phone.screen_name(YOURAPP) == "signup"
    assert wda.phone.launches[-1][1].env == {"API": "http://127.0.0.1:9"}


def test_a_reset_relaunches_the_app_as_it_is(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(device.launch(YOURAPP, LaunchOptions(reset=Reset.REINSTALL)))
    assert wda.phone.front == YOURAPP


def test_launching_an_app_that_is_not_installed_sends_nothing(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    with pytest.raises(mc.DeviceError, match=r"launch: com\.example\.nope is not installed"):
        run(device.launch("com.example.nope", LaunchOptions()))
    assert "/wda/apps/launch" not in posts(wda)


def test_terminate(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(device.launch(YOURAPP, LaunchOptions()))
    assert run(device.terminate(YOURAPP)) is True
    assert run(device.terminate(YOURAPP)) is False
    assert wda.phone.front == SPRINGBOARD


def test_a_screenshot_is_a_png(wda: FakeWda) -> None:
    png = run(WdaDevice(wda.url).screenshot())
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


# -- action-once and the mapping of failures ---------------------------------------------------


def test_a_tap_whose_reply_times_out_is_an_unknown_outcome_sent_once(wda: FakeWda) -> None:
    device = WdaDevice(wda.url, timeouts=WdaTimeouts(action=0.25))
    screen = run(launched(device))
    wda.fail_next_action(applied=True, stall=3.0)
    before = len(wda.requests)
    with pytest.raises(mc.UnknownOutcome, match=r"POST /actions .*no reply within 0\.25 s.*not sent again"):
        run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
    assert [r.route for r in wda.requests[before:]] == ["/actions"]
    assert wda.phone.screen_name(YOURAPP) == "signup"  # it had landed


def test_a_dropped_reply_is_an_unknown_outcome_too(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(launched(device))
    wda.fail_next_action()
    before = len(wda.requests)
    with pytest.raises(mc.UnknownOutcome) as caught:
        run(device.act(Action(Op.HOME)))
    assert [r.route for r in wda.requests[before:]] == ["/wda/homescreen"]
    assert caught.value.__cause__ is not None
    assert wda.phone.front == YOURAPP  # not applied


def test_an_action_wda_refuses_is_a_device_error(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    with pytest.raises(mc.DeviceError, match=r"refused POST /wda/apps/activate") as caught:
        run(device.act(Action(Op.LAUNCH_APP, text="com.example.nope")))
    assert not isinstance(caught.value, mc.UnknownOutcome)


def test_a_stale_session_is_replaced_and_the_action_happens_once(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(launched(device))
    first = device.session_id
    wda.restart()
    before, taps = len(wda.requests), len(wda.phone.actions)
    run(tap(device, "Sign up"))
    assert device.session_id != first
    routes = [(r.route, r.session == first) for r in wda.requests[before:] if r.route != "/wda/activeAppInfo"]
    assert routes == [
        ("/source", True),  # refused: invalid session id
        ("/session", False),
        ("/appium/settings", False),  # the screen size is known from the first read
        ("/source", False),
        ("/actions", False),
    ]
    assert len(wda.phone.actions) == taps + 1
    assert wda.phone.screen_name(YOURAPP) == "signup"


def test_a_stale_session_on_an_action_is_refused_before_it_happens(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    screen = run(launched(device))
    wda.restart()
    run(device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0])))
    actions = [r for r in wda.requests if r.route == "/actions"]
    assert len(actions) == 2
    assert len(wda.phone.actions) == 1  # the stale one never reached the phone


def test_a_garbage_reply_to_a_read_is_a_device_error_naming_the_endpoint(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(device.read())
    wda.garbage_next_reply()
    with pytest.raises(mc.DeviceError, match=r"sent a bad reply to GET /wda/activeAppInfo") as caught:
        run(device.read())
    assert not isinstance(caught.value, mc.UnknownOutcome)


def test_a_garbage_reply_to_an_action_is_an_unknown_outcome(wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    run(device.read())
    wda.garbage_next_reply()
    with pytest.raises(mc.UnknownOutcome, match=r"a bad reply to POST /wda/homescreen"):
        run(device.act(Action(Op.HOME)))


def test_an_unreachable_wda_sends_nothing() -> None:
    device = WdaDevice(f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(mc.DeviceError, match=r"isn't answering .*is WebDriverAgent running there") as read:
        run(device.read())
    assert not isinstance(read.value, mc.UnknownOutcome)
    with pytest.raises(mc.DeviceError, match=r"HOME: nothing was sent") as act:
        run(device.act(Action(Op.HOME)))
    assert not isinstance(act.value, mc.UnknownOutcome)
    with pytest.raises(mc.DeviceError, match="isn't answering"):
        device.status_sync()


def test_a_slow_read_is_a_device_error(wda: FakeWda) -> None:
    device = WdaDevice(wda.url, timeouts=WdaTimeouts(read=0.25))
    run(device.read())
    wda.stall_next_reply(3.0)
    with pytest.raises(mc.DeviceError, match=r"didn't answer GET /wda/activeAppInfo: no reply within 0\.25 s") as e:
        run(device.read())
    assert not isinstance(e.value, mc.UnknownOutcome)


def test_a_reply_held_forever_makes_every_later_call_time_out_saying_what_to_do(wda: FakeWda) -> None:
    # WDA serves one request at a time (the fake's default): a command that never ends holds every
    # later request, the status probe included. Each call ends at its own timeout, never a hang.
    device = WdaDevice(wda.url, timeouts=WdaTimeouts(read=0.25, status=0.25))
    run(device.read())
    wda.stall_next_reply(600.0)
    start = f"WebDriverAgent at {wda.url} didn't answer GET /wda/activeAppInfo"
    every_read_times_out_saying_what_to_do(device.read, start, "restart WebDriverAgent")
    with pytest.raises(mc.DeviceError, match=r"didn't answer GET /status: no reply within 0\.25 s: WebDriverAgent"):
        device.status_sync()
    # The first read's and the held one's: the reads and the probe queued behind it never began.
    assert [r.route for r in wda.requests].count("/wda/activeAppInfo") == 2


def test_a_bad_url_is_refused() -> None:
    with pytest.raises(ValueError, match="WebDriverAgent URL"):
        WdaDevice("ftp://example.com")


def test_the_scripts_on_disk_work_too(tmp_path: Path) -> None:
    path = tmp_path / "app.yaml"
    path.write_text(sample_path("yourapp-renamed").read_text("utf-8"))
    with FakeWda(path, lifetime=60) as fake:
        screen = run(_launch_and_tap(WdaDevice(fake.url)))
    assert screen.find("Button", "Next")


async def _launch_and_tap(device: WdaDevice) -> mc.Screen:
    await launched(device)
    await tap(device, "Sign up")
    return await device.read()


class _Scripted:
    """A transport that answers from a table, to reach what the fake server never sends."""

    url = "http://127.0.0.1:1"

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.sent: list[str] = []

    def request(self, method: str, path: str, body: Any = None, *, timeout: float) -> WdaReply:
        self.sent.append(f"{method} {path}")
        route = path.removeprefix("/session/S").split("?", 1)[0] or "/session"
        if route in self.answers:
            return WdaReply(self.answers[route], "S")
        raise WdaErrorReply(method, path, "unknown command", "not in the table")

    def close(self) -> None:
        pass


def test_a_tree_that_cannot_be_read_is_a_device_error() -> None:
    transport = _Scripted(
        {
            "/session": {"sessionId": "S"},
            "/wda/activeAppInfo": {"bundleId": YOURAPP},
            "/window/size": {"width": 0, "height": 0},
            "/source": {"type": "Application", "children": []},
            "/appium/settings": {},
        }
    )
    with pytest.raises(mc.DeviceError, match="sent a window size that is not a size"):
        run(WdaDevice(transport).read())


def test_wda_without_device_info_or_version() -> None:
    transport = _Scripted({"/status": {"os": {"version": "26.4"}}, "/session": {"sessionId": "S"}})
    info = run(WdaDevice(transport).info())
    assert info.name == "WebDriverAgent at 127.0.0.1:1"
    assert info.kind is DeviceKind.SIMULATOR
    with pytest.raises(mc.DeviceError, match="doesn't say its iOS version"):
        run(WdaDevice(_Scripted({"/status": {"os": {}}})).info())


def test_a_replayed_tap_on_a_lone_hidden_button_drifts_and_is_never_sent() -> None:
    with FakeWda(script(extra=HIDDEN), lifetime=60) as fake:
        device = WdaDevice(fake.url)
        quick = mc.PollPolicy(interval=0.01, drift_after=0.05, give_up_after=0.5)
        dispatch = Dispatcher(device, mc.SystemClock(), MemoryJournal())
        replayer = Replayer(dispatch, DeviceKind.SIMULATOR, Provenance(), timing=quick)

        async def go() -> Replayed:
            await device.launch("com.example.hidden", LaunchOptions())
            recorded = await device.read()  # the fast read shows Ghost: a step can be recorded on it
            step = step_on(recorded, label="Ghost")
            return await replayer.run([step])

        result = run(go())
        sent = posts(fake)
    assert result.drift is not None
    assert result.message.endswith('"Ghost" is in the tree but hidden: the device says it isn\'t visible')
    assert "/actions" not in sent


# -- a poll that saw nothing new (Rule 5c) ---------------------------------------------------------


def test_a_source_equal_to_the_one_before_is_not_read_again(wda: FakeWda, monkeypatch: pytest.MonkeyPatch) -> None:
    import mobster_drivers.devices.wda._device as device_module
    from mobster_drivers._xcuitest.visibility import read_tree as real

    parsed: list[str] = []

    def counting(tree: Any, bundle: str, **kwargs: Any) -> Any:
        parsed.append(bundle)
        return real(tree, bundle, **kwargs)

    monkeypatch.setattr(device_module, "read_tree", counting)
    device = WdaDevice(wda.url)

    async def scenario() -> tuple[mc.Screen, mc.Screen, mc.Screen, mc.Screen]:
        first = await launched(device)
        again = await device.read()
        evidence = await device.read_evidence()  # another source: read as it comes
        await tap(device, "Settings")
        await asyncio.sleep(0.05)
        return first, again, evidence, await device.read()

    first, again, evidence, after = run(scenario())
    assert again is first  # the same screen, its fingerprint, signature and hash computed once
    assert evidence is not first
    assert after.find("StaticText", "Settings")  # a changed source is read as it comes
    assert after.fingerprint != first.fingerprint
    # launched's read (not the one again), the evidence read, tap's read (the read before it was the
    # evidence read's other source), and the read after the tap
    assert len(parsed) == 4
