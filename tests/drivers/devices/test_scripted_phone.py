"""The scripted phone: conformance, latency on the fake clock, the simulation, and faults."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

import mobster_core as mc
from mobster_core import Action, LaunchOptions, Op, Reset
from mobster_core.exceptions import ScriptError
from mobster_core.testing import SPRINGBOARD, FakeClock, check_device
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from tests.samples import DEVICE_CHECKS

YOURAPP = "com.example.yourapp"
A = "com.example.a"
B = "com.example.b"

SCRIPT = """\
version: 1
device: {name: Test Phone, ios: "26.4", kind: simulator}
latency: LATENCY
apps:
  com.example.a:
    name: Alpha
    version: "2.0"
    build: "7"
    launch: start
    links: {"alpha://form": form, "alpha://later": later}
    screens:
      start:
        - {role: StaticText, label: Start}
        - {role: Button, label: Form, tap: form}
        - {role: Button, label: Go home, tap: home}
        - {role: Button, label: Open Beta, tap: {open: com.example.b}}
        - {role: Button, label: Disabled, enabled: false, tap: form}
        - {role: Button, label: Hidden, visible: false, tap: form}
        - {role: Button, label: Inert}
      form:
        - {role: TextField, label: Name, value: "Hi "}
        - {role: SecureTextField, label: Password}
        - {role: SearchField, label: Search, enabled: false}
        - {role: Button, label: Back, tap: start}
      later:
        - {role: StaticText, label: Soon, after: 1.0}
        - {role: StaticText, label: Gone, until: 2.0}
        - {role: StaticText, label: Clock, value: "t", ticks: 0.25}
        - role: Cell
          label: Row
          children: [{role: StaticText, label: Inner}, {role: Button, label: Act, after: 1.0}]
        - {role: Button, label: Last}
  com.example.b:
    name: Beta
    version: "1.0"
    build: "1"
    launch: main
    links: {"beta://main": main}
    screens:
      main:
        - {role: StaticText, label: Beta home}
        - {role: Button, label: Back to Alpha, tap: {open: com.example.a}}
"""


def make(clock: FakeClock, latency: str = "zero", kind: str = "simulator") -> ScriptedPhone:
    text = SCRIPT.replace("LATENCY", latency).replace("kind: simulator", f"kind: {kind}")
    return ScriptedPhone.from_text(text, "test.yaml", clock=clock)


def run(clock: FakeClock, scenario: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        await scenario()

    clock.run(main())


async def tap(phone: ScriptedPhone, label: str, role: str = "Button") -> None:
    screen = await phone.read()
    found = screen.find(role, label)
    assert len(found) == 1, (label, screen.signature)
    await phone.act(Action(Op.TAP, element=found[0]))


async def labels(phone: ScriptedPhone) -> list[str]:
    return [e.label for e in (await phone.read()).elements]


async def value_of(phone: ScriptedPhone, role: str, label: str) -> str:
    return (await phone.read()).find(role, label)[0].value


# -- conformance -----------------------------------------------------------------------------

ALL_CHECKS = DEVICE_CHECKS


@pytest.mark.parametrize("sample", ["yourapp", "yourapp-renamed"])
def test_the_sample_phone_passes_check_device(sample: str) -> None:
    clock = FakeClock()
    ran = clock.run(
        check_device(
            lambda: ScriptedPhone.from_file(sample_path(sample), clock=clock),
            app=YOURAPP,
            tap=("Button", "Sign up"),
            field=("TextField", "Email"),
            link="yourapp://signup",
        )
    )
    assert ran == ALL_CHECKS


@pytest.mark.parametrize("latency", ["zero", "usb-iphone"])
def test_an_iphone_variant_passes_check_device(latency: str) -> None:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    text = text.replace("latency: zero", f"latency: {latency}")
    clock = FakeClock()

    def factory() -> ScriptedPhone:
        phone = ScriptedPhone.from_text(text, "iphone.yaml", clock=clock)
        assert phone.script.device.kind is mc.DeviceKind.IPHONE
        return phone

    ran = clock.run(
        check_device(
            factory,
            app=YOURAPP,
            tap=("Button", "Sign up"),
            field=("TextField", "Email"),
            link="yourapp://signup",
        )
    )
    assert ran == ALL_CHECKS


def test_it_is_a_device_with_screenshots() -> None:
    phone = make(FakeClock())
    assert isinstance(phone, mc.Device)
    assert isinstance(phone, mc.Screenshots)


# -- info ------------------------------------------------------------------------------------


def test_info_and_app_info_on_a_simulator_and_an_iphone() -> None:
    clock = FakeClock()

    async def scenario() -> None:
        sim, iphone = make(clock), make(clock, kind="iphone")
        assert await sim.info() == mc.DeviceInfo(
            name="Test Phone", ios="26.4", kind=mc.DeviceKind.SIMULATOR, locale="en_US", appearance="light"
        )
        assert await sim.app_info(A) == mc.AppInfo(A, "2.0", "7")
        assert (await iphone.info()).kind is mc.DeviceKind.IPHONE
        assert await iphone.app_info(A) == mc.AppInfo(A)
        with pytest.raises(mc.DeviceError, match=r"app_info: com\.example\.zzz is not installed on Test Phone"):
            await sim.app_info("com.example.zzz")

    run(clock, scenario)
    assert clock.now() == 0.0


def test_script_and_clock_are_reachable() -> None:
    clock = FakeClock()
    phone = make(clock)
    assert phone.clock is clock
    assert phone.script.source == "test.yaml"


# -- latency, observed exactly on the fake clock ---------------------------------------------


def test_every_latency_figure_is_slept_on_the_clock() -> None:
    clock = FakeClock()
    phone = make(clock, latency="usb-iphone")
    spent: dict[str, float] = {}

    async def timed(name: str, call: Awaitable[object]) -> None:
        start = clock.now()
        await call
        spent[name] = clock.now() - start

    async def scenario() -> None:
        await timed("launch", phone.launch(A, LaunchOptions()))
        await timed("read", phone.read())
        screen = await phone.read()
        await timed("long press", phone.act(Action(Op.LONG_PRESS, element=screen.find("Button", "Inert")[0])))
        await timed("tap", phone.act(Action(Op.TAP, element=screen.find("Button", "Inert")[0])))
        await timed("submit", phone.act(Action(Op.SUBMIT)))
        await timed("swipe", phone.act(Action(Op.SWIPE_UP)))
        await timed("home", phone.act(Action(Op.HOME)))
        await timed("launch app", phone.act(Action(Op.LAUNCH_APP, text=A)))
        await timed("open url", phone.act(Action(Op.OPEN_URL, text="alpha://form")))
        field = (await phone.read()).find("TextField", "Name")[0]
        await timed("type 4 chars", phone.act(Action(Op.TYPE, element=field, text="abcd")))
        await timed("screenshot", phone.screenshot())
        await timed("info", phone.info())

    run(clock, scenario)
    assert spent == {
        "launch": pytest.approx(2.6),
        "read": pytest.approx(0.234),
        "long press": pytest.approx(0.478),
        "tap": pytest.approx(0.478),
        "submit": pytest.approx(0.478),
        "swipe": pytest.approx(0.7),
        "home": pytest.approx(0.5),
        "launch app": pytest.approx(2.6),
        "open url": pytest.approx(2.6),
        "type 4 chars": pytest.approx(4 * 0.0175),
        "screenshot": pytest.approx(0.234),
        "info": 0.0,
    }


# -- one request at a time (Rule 10) and a screenshot's cost (Rule 11) ------------------------


def test_a_read_sent_while_a_screenshot_is_taken_waits_for_it() -> None:
    clock = FakeClock()
    phone = make(clock, latency="usb-iphone")
    ended: dict[str, float] = {}

    async def timed(name: str, call: Awaitable[object]) -> None:
        await call
        ended[name] = clock.now()

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        start = clock.now()
        await asyncio.gather(timed("screenshot", phone.screenshot()), timed("read", phone.read()))
        for name in ended:
            ended[name] -= start

    run(clock, scenario)
    assert ended == {"screenshot": pytest.approx(0.234), "read": pytest.approx(0.468)}  # in the order they came


def test_one_at_a_time_false_answers_each_request_at_once() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(SCRIPT.replace("LATENCY", "usb-iphone"), clock=clock, one_at_a_time=False)

    async def scenario() -> float:
        await phone.launch(A, LaunchOptions())
        start = clock.now()
        await asyncio.gather(phone.screenshot(), phone.read(), phone.read())
        return clock.now() - start

    assert clock.run(scenario()) == pytest.approx(0.234)


def test_a_request_given_up_on_still_holds_the_phone_until_its_time_is_up() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{read: 1.0}")

    async def scenario() -> float:
        await phone.launch(A, LaunchOptions())
        start = clock.now()
        first = asyncio.ensure_future(phone.read())
        await clock.sleep(0.25)
        first.cancel()  # the caller stopped waiting; the phone goes on reading, as WDA does
        await asyncio.gather(first, return_exceptions=True)
        await phone.read()
        return clock.now() - start

    assert clock.run(scenario()) == pytest.approx(2.0)


def test_screenshots_by_a_channel_of_their_own_run_beside_reads_and_one_at_a_time_there() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(SCRIPT.replace("LATENCY", "usb-iphone"), clock=clock, separate_screenshots=True)
    assert phone.separate_screenshots
    assert isinstance(phone, mc.protocols.ScreenshotChannel)
    ended: list[tuple[str, float]] = []

    async def timed(name: str, call: Awaitable[object]) -> None:
        await call
        ended.append((name, clock.now()))

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        start = clock.now()
        await asyncio.gather(timed("shot 1", phone.screenshot()), timed("shot 2", phone.screenshot()),
                             timed("read", phone.read()))  # fmt: skip
        ended[:] = [(n, t - start) for n, t in ended]

    run(clock, scenario)
    assert [n for n, _ in ended] == ["shot 1", "read", "shot 2"]
    assert [t for _, t in ended] == pytest.approx([0.234, 0.234, 0.468])


@pytest.mark.parametrize(("scale", "seconds"), [(1, 0.234), (2, 0.51), (3, 1.0)])
def test_a_screenshot_costs_more_with_more_pixels(scale: int, seconds: float) -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(SCRIPT.replace("LATENCY", "usb-iphone"), clock=clock, screenshot_scale=scale)
    assert phone.screenshot_s == pytest.approx(seconds, abs=0.015)

    async def scenario() -> float:
        await phone.launch(A, LaunchOptions())
        start = clock.now()
        await phone.screenshot()
        return clock.now() - start

    assert clock.run(scenario()) == pytest.approx(phone.screenshot_s)


def test_a_script_may_give_the_screenshot_its_own_latency() -> None:
    clock = FakeClock()
    assert make(clock, latency="{read: 0.25, screenshot: 0.5}").screenshot_s == pytest.approx(0.5)
    assert make(clock, latency="{read: 0.25}").screenshot_s == pytest.approx(0.25)  # a read's, when it doesn't say


def test_the_next_screen_appears_transition_seconds_after_the_tap_returns() -> None:
    clock = FakeClock()
    phone = make(clock, latency="usb-iphone")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        await tap(phone, "Form")
        returned = clock.now()
        seen = await phone.read()  # ends 0.234 s after the tap returned
        assert seen.find("StaticText", "Start")
        await clock.sleep(1.247 - 0.234 - 0.001)
        assert phone.screen_name(A) == "start"
        assert phone.front == A
        await clock.sleep(0.002)
        assert phone.screen_name(A) == "form"
        assert clock.now() - returned == pytest.approx(1.248)
        assert "Name" in await labels(phone)

    run(clock, scenario)


def test_a_read_shows_the_screen_at_its_end() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{read: 1.0, tap: 0.5, transition: 0.75}")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        await tap(phone, "Form")  # the read before it took 1 s; the tap returns at 1.5
        assert phone.screen_name(A) == "start"
        assert "Name" in await labels(phone)  # the read ends at 2.5, past 2.25

    run(clock, scenario)


# -- the home screen -------------------------------------------------------------------------


def test_the_phone_starts_on_the_home_screen_with_one_button_per_app() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        assert phone.front == SPRINGBOARD
        home = await phone.read()
        assert home.app == SPRINGBOARD
        assert [(e.role, e.label, e.identifier, e.path) for e in home.elements] == [
            ("Button", "Alpha", A, "/0/0"),
            ("Button", "Beta", B, "/0/1"),
        ]
        assert phone.screen_name(A) is None
        await tap(phone, "Beta")
        assert phone.front == B
        assert await labels(phone) == ["Beta home", "Back to Alpha"]

    run(clock, scenario)


def test_an_icon_tap_brings_the_app_to_front_launch_seconds_after_the_tap() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{tap: 0.5, launch: 2.0, transition: 9}")

    async def scenario() -> None:
        await tap(phone, "Alpha")
        assert clock.now() == pytest.approx(0.5)
        assert phone.front == SPRINGBOARD
        await clock.sleep(1.999)
        assert phone.front == SPRINGBOARD
        await clock.sleep(0.002)
        assert phone.front == A
        assert phone.screen_name(A) == "start"

    run(clock, scenario)


def test_many_apps_fit_on_the_home_screen() -> None:
    apps = "".join(
        f"  com.example.app{i}: {{name: App {i}, version: '1', build: '1', launch: w, screens: {{w: []}}}}\n"
        for i in range(30)
    )
    clock = FakeClock()
    phone = ScriptedPhone.from_text(f"version: 1\napps:\n{apps}", clock=clock)

    async def scenario() -> None:
        home = await phone.read()
        assert len(home.elements) == 30
        assert all(0.0 <= v <= 1.0 for e in home.elements for v in e.frame)
        assert all(e.frame[1] + e.frame[3] <= 1.0 and e.frame[0] + e.frame[2] <= 1.0 for e in home.elements)

    run(clock, scenario)


def test_many_apps_and_the_default_source_name() -> None:
    clock = FakeClock()
    with pytest.raises(ScriptError, match=r"^<script>: "):
        ScriptedPhone.from_text("version: 2\n", clock=clock)


# -- launching -------------------------------------------------------------------------------


def test_launch_is_recorded_and_opens_the_launch_screen_or_the_url() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        assert await labels(phone) == ["Start", "Form", "Go home", "Open Beta", "Disabled", "Hidden", "Inert"]
        with_url = LaunchOptions(url="alpha://form", env={"K": "V"})
        await phone.launch(A, with_url)
        assert phone.screen_name(A) == "form"
        with pytest.raises(mc.DeviceError, match=r"launch: com\.example\.zzz is not installed"):
            await phone.launch("com.example.zzz", LaunchOptions())
        with pytest.raises(mc.DeviceError, match=r"launch: com\.example\.a opens no link 'beta://main' \(its links:"):
            await phone.launch(A, LaunchOptions(url="beta://main"))
        assert phone.launches == [
            (A, LaunchOptions()),
            (A, with_url),
            ("com.example.zzz", LaunchOptions()),
            (A, LaunchOptions(url="beta://main")),
        ]
        assert phone.screen_name(A) == "form"

    run(clock, scenario)


def test_an_app_without_links_says_none() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(
        "version: 1\napps:\n  com.example.a: {name: A, version: '1', build: '1', launch: w, screens: {w: []}}\n",
        clock=clock,
    )

    async def scenario() -> None:
        with pytest.raises(mc.DeviceError, match=r"its links: none"):
            await phone.launch(A, LaunchOptions(url="a://x"))
        with pytest.raises(mc.DeviceError, match=r"OPEN_URL: no app opens 'a://x' \(links: none\)"):
            await phone.act(Action(Op.OPEN_URL, text="a://x"))

    run(clock, scenario)


@pytest.mark.parametrize("reset", list(Reset))
def test_a_launch_starts_over_and_forgets_typing(reset: Reset) -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions(url="alpha://form"))
        field = (await phone.read()).find("TextField", "Name")[0]
        await phone.act(Action(Op.TYPE, element=field, text="Ada"))
        assert await value_of(phone, "TextField", "Name") == "Hi Ada"
        await tap(phone, "Back")
        await phone.launch(A, LaunchOptions(reset=reset))
        assert phone.screen_name(A) == "start"
        await tap(phone, "Form")
        assert await value_of(phone, "TextField", "Name") == "Hi "

    run(clock, scenario)


def test_a_relaunch_cancels_a_transition_still_pending() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{transition: 1.0, launch: 0.25}")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        await tap(phone, "Form")
        await phone.launch(A, LaunchOptions())
        await clock.sleep(5)
        assert phone.screen_name(A) == "start"

    run(clock, scenario)


# -- the app: taps, typing, links ------------------------------------------------------------


def test_typing_appends_and_a_secure_field_shows_bullets() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions(url="alpha://form"))
        screen = await phone.read()
        await phone.act(Action(Op.TYPE, element=screen.find("TextField", "Name")[0], text="Ada"))
        await phone.act(Action(Op.TYPE, element=screen.find("TextField", "Name")[0], text=" L"))
        await phone.act(Action(Op.TYPE, element=screen.find("SecureTextField", "Password")[0], text="hunter2"))
        await phone.act(Action(Op.SUBMIT))
        after = await phone.read()
        assert after.find("TextField", "Name")[0].value == "Hi Ada L"
        assert after.find("SecureTextField", "Password")[0].value == "\u2022" * 7
        assert all("hunter2" not in e.value for e in after.elements)

    run(clock, scenario)


def test_typing_persists_while_the_app_runs() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        await tap(phone, "Form")
        field = (await phone.read()).find("TextField", "Name")[0]
        await phone.act(Action(Op.TYPE, element=field, text="Ada"))
        await tap(phone, "Back")
        await phone.act(Action(Op.HOME))
        await phone.act(Action(Op.LAUNCH_APP, text=A))
        assert phone.screen_name(A) == "start"  # LAUNCH_APP brings it back where it was
        await tap(phone, "Form")
        assert await value_of(phone, "TextField", "Name") == "Hi Ada"
        await phone.act(Action(Op.OPEN_URL, text="alpha://later"))
        await phone.act(Action(Op.OPEN_URL, text="alpha://form"))  # a link keeps the app running
        assert await value_of(phone, "TextField", "Name") == "Hi Ada"

    run(clock, scenario)


def test_only_fields_take_typing_and_a_disabled_field_ignores_it() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions(url="alpha://form"))
        screen = await phone.read()
        with pytest.raises(mc.DeviceError, match=r"can't type into Button 'Back' at /0/3: only SearchField, "):
            await phone.act(Action(Op.TYPE, element=screen.find("Button", "Back")[0], text="x"))
        await phone.act(Action(Op.TYPE, element=screen.find("SearchField", "Search")[0], text="x"))
        assert await value_of(phone, "SearchField", "Search") == ""
        await phone.act(Action(Op.HOME))
        icon = (await phone.read()).find("Button", "Alpha")[0]
        with pytest.raises(mc.DeviceError, match="can't type into Button 'Alpha'"):
            await phone.act(Action(Op.TYPE, element=icon, text="x"))

    run(clock, scenario)


def test_an_action_on_an_element_not_on_the_screen_is_refused_before_sending() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        start = await phone.read()
        renamed = mc.Element(role="Button", label="Continue", path="/0/1")
        with pytest.raises(mc.DeviceError) as info:
            await phone.act(Action(Op.TAP, element=renamed))
        assert str(info.value) == (
            "nothing at /0/1 labelled 'Continue' (Button) on com.example.a's screen 'start'; "
            "at /0/1 there is Button 'Form'; read the screen again"
        )
        beyond = mc.Element(role="Button", label="Form", path="/0/9")
        with pytest.raises(mc.DeviceError, match=r"nothing at /0/9 .* the screen has 7 elements"):
            await phone.act(Action(Op.SWIPE_UP, element=beyond))
        await phone.act(Action(Op.HOME))
        with pytest.raises(mc.DeviceError, match="on the home screen"):
            await phone.act(Action(Op.TAP, element=start.find("Button", "Form")[0]))
        assert [a.op for a in phone.actions] == [Op.TAP, Op.SWIPE_UP, Op.HOME, Op.TAP]

    run(clock, scenario)


def test_taps_that_lead_nowhere_change_nothing() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        before = await phone.read()
        # Screen.find skips invisible elements, so the hidden button is picked by its label.
        for element in (
            before.find("Button", "Disabled")[0],
            _hidden(before),
            before.find("Button", "Inert")[0],
        ):
            await phone.act(Action(Op.TAP, element=element))
        await phone.act(Action(Op.LONG_PRESS, element=before.find("Button", "Form")[0]))
        await phone.act(Action(Op.SWIPE_LEFT, element=before.find("Button", "Form")[0]))
        await phone.act(Action(Op.SWIPE_DOWN))
        await clock.sleep(10)
        assert (await phone.read()).fingerprint == before.fingerprint

    run(clock, scenario)


def _hidden(screen: mc.Screen) -> mc.Element:
    return next(e for e in screen.elements if e.label == "Hidden")


def test_tap_home_and_tap_open() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{transition: 0.5}")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        await tap(phone, "Open Beta")
        assert phone.front == A
        await clock.sleep(0.5)
        assert phone.front == B
        assert phone.screen_name(B) == "main"  # not running: opened on its launch screen
        await tap(phone, "Back to Alpha")
        await clock.sleep(0.5)
        assert phone.front == A
        assert phone.screen_name(A) == "start"
        await tap(phone, "Go home")
        await clock.sleep(0.5)
        assert phone.front == SPRINGBOARD
        assert phone.screen_name(A) == "start"

    run(clock, scenario)


def test_links_and_launch_app() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.act(Action(Op.OPEN_URL, text="beta://main"))
        assert (phone.front, phone.screen_name(B)) == (B, "main")
        await phone.act(Action(Op.OPEN_URL, text="alpha://form"))
        assert (phone.front, phone.screen_name(A)) == (A, "form")
        await phone.act(Action(Op.LAUNCH_APP, text=B))
        assert phone.front == B
        await phone.act(Action(Op.LAUNCH_APP, text=SPRINGBOARD))
        assert phone.front == SPRINGBOARD
        with pytest.raises(mc.DeviceError, match=r"OPEN_URL: no app opens 'gamma://x' \(links: alpha://form, "):
            await phone.act(Action(Op.OPEN_URL, text="gamma://x"))
        with pytest.raises(mc.DeviceError, match=r"LAUNCH_APP: com\.example\.zzz is not installed \(installed: "):
            await phone.act(Action(Op.LAUNCH_APP, text="com.example.zzz"))
        await phone.act(Action(Op.LAUNCH_APP, text=A))
        assert phone.screen_name(A) == "form"

    run(clock, scenario)


# -- after, until, ticks, paths --------------------------------------------------------------


def test_after_until_and_ticks_follow_the_time_on_the_screen() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions(url="alpha://later"))
        first = await phone.read()
        assert [(e.label, e.path) for e in first.elements] == [
            ("Gone", "/0/0"),
            ("Clock", "/0/1"),
            ("Row", "/0/2"),
            ("Inner", "/0/2/0"),
            ("Last", "/0/3"),
        ]
        assert first.find("StaticText", "Clock")[0].value == "t0"
        await clock.sleep(0.5)
        assert (await phone.read()).find("StaticText", "Clock")[0].value == "t2"
        await clock.sleep(0.5)
        later = await phone.read()
        assert [(e.label, e.path) for e in later.elements] == [
            ("Soon", "/0/0"),
            ("Gone", "/0/1"),
            ("Clock", "/0/2"),
            ("Row", "/0/3"),
            ("Inner", "/0/3/0"),
            ("Act", "/0/3/1"),
            ("Last", "/0/4"),
        ]
        assert later.find("StaticText", "Clock")[0].value == "t4"
        await clock.sleep(1.0)
        last = await phone.read()
        assert [e.path for e in last.elements if e.label in ("Soon", "Clock", "Last")] == [
            "/0/0",
            "/0/1",
            "/0/3",
        ]
        assert not last.find("StaticText", "Gone")

    run(clock, scenario)


def test_a_ticking_screen_never_settles_and_a_still_one_does() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{read: 0.25}")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions(url="alpha://later"))
        await clock.sleep(3)
        a, b = await phone.read(), await phone.read()
        assert a.fingerprint != b.fingerprint
        assert a.hash == b.hash
        await phone.launch(A, LaunchOptions())
        c, d = await phone.read(), await phone.read()
        assert c.fingerprint == d.fingerprint

    run(clock, scenario)


def test_the_screen_time_restarts_when_a_screen_is_entered() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{transition: 0.5}")

    async def scenario() -> None:
        await phone.act(Action(Op.OPEN_URL, text="alpha://later"))
        await clock.sleep(5)
        await phone.act(Action(Op.OPEN_URL, text="alpha://later"))
        assert "Soon" not in await labels(phone)
        await phone.act(Action(Op.OPEN_URL, text="alpha://form"))
        await tap(phone, "Back")
        await clock.sleep(0.25)
        assert phone.screen_name(A) == "form"
        await clock.sleep(0.25)
        assert phone.screen_name(A) == "start"

    run(clock, scenario)


# -- faults ----------------------------------------------------------------------------------


def test_a_lost_action_raises_unknown_outcome_and_changes_nothing() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{tap: 0.5, transition: 0.5}")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        phone.fail_next_action()
        form = (await phone.read()).find("Button", "Form")[0]
        with pytest.raises(mc.UnknownOutcome, match=r"TAP: the reply was lost \(injected by fail_next_action\)"):
            await phone.act(Action(Op.TAP, element=form))
        assert clock.now() == pytest.approx(0.5)
        await clock.sleep(5)
        assert phone.screen_name(A) == "start"
        await phone.act(Action(Op.TAP, element=form))  # consumed once
        await clock.sleep(0.5)
        assert phone.screen_name(A) == "form"
        assert len(phone.actions) == 2

    run(clock, scenario)


def test_an_applied_lost_action_happens_and_still_raises() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{transition: 0.5}")

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        phone.fail_next_action(applied=True)
        with pytest.raises(mc.UnknownOutcome, match="after it landed"):
            await tap(phone, "Form")
        await clock.sleep(0.5)
        assert phone.screen_name(A) == "form"

    run(clock, scenario)


def test_a_refused_action_does_not_use_up_the_fault() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions())
        phone.fail_next_action()
        with pytest.raises(mc.DeviceError) as refused:
            await phone.act(Action(Op.TAP, element=mc.Element(role="Button", label="Nope", path="/0/1")))
        assert not isinstance(refused.value, mc.UnknownOutcome)
        with pytest.raises(mc.UnknownOutcome):
            await phone.act(Action(Op.HOME))
        assert phone.front == A
        assert [a.op for a in phone.actions] == [Op.TAP, Op.HOME]

    run(clock, scenario)


def test_failed_reads() -> None:
    clock = FakeClock()
    phone = make(clock, latency="{read: 0.25}")

    async def scenario() -> None:
        phone.fail_next_read(2)
        for _ in range(2):
            with pytest.raises(
                mc.DeviceError, match=r"read: the tree could not be read \(injected by fail_next_read\)"
            ):
                await phone.read()
        assert clock.now() == pytest.approx(0.5)
        assert (await phone.read()).app == SPRINGBOARD
        with pytest.raises(ValueError, match="1 or more"):
            phone.fail_next_read(0)

    run(clock, scenario)


def test_dropped_typing_until_restored() -> None:
    clock = FakeClock()
    phone = make(clock)

    async def scenario() -> None:
        await phone.launch(A, LaunchOptions(url="alpha://form"))
        field = (await phone.read()).find("TextField", "Name")[0]
        phone.drop_typing()
        await phone.act(Action(Op.TYPE, element=field, text="Ada"))
        await phone.act(Action(Op.TYPE, element=field, text="Ada"))
        assert await value_of(phone, "TextField", "Name") == "Hi "
        phone.restore_typing()
        await phone.act(Action(Op.TYPE, element=field, text="Bo"))
        assert await value_of(phone, "TextField", "Name") == "Hi Bo"

    run(clock, scenario)


def test_on_the_system_clock_with_zero_latency_nothing_waits() -> None:
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=mc.SystemClock())

    async def scenario() -> mc.Screen:
        await phone.launch(YOURAPP, LaunchOptions())
        await tap(phone, "Sign up")
        return await phone.read()

    assert asyncio.run(scenario()).find("TextField", "Email")
