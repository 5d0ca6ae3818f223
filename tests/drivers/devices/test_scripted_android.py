"""The scripted Android phone (``ScriptedPhone`` Rule 16, the script's Rule 12) on the fake clock."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest

import mobster_core as mc
from mobster_core import Action, DeviceError, DeviceKind, LaunchOptions, Op
from mobster_core.exceptions import ScriptError
from mobster_core.protocols import DeviceEvent, DeviceSettings, Platform
from mobster_core.testing import FakeClock, check_device
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from tests.samples import DEVICE_CHECKS

APP = "com.example.yourapp"
T = TypeVar("T")


def phone(name: str = "yourapp-android") -> tuple[ScriptedPhone, FakeClock]:
    clock = FakeClock()
    return ScriptedPhone.from_file(sample_path(name), clock=clock), clock


def on(clock: FakeClock, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return clock.run(work())


def labels(screen: mc.Screen) -> list[tuple[str, str]]:
    return [(e.role, e.label) for e in screen.elements]


def test_the_scripted_android_phone_passes_check_device() -> None:
    clock = FakeClock()
    ran = clock.run(
        check_device(
            lambda: ScriptedPhone.from_file(sample_path("yourapp-android"), clock=clock),
            app=APP,
            tap=("Button", "Sign up"),
            field=("TextField", "Email"),
            link="yourapp://signup",
        )
    )
    assert ran == [*DEVICE_CHECKS, "back"]


def test_it_says_it_is_an_android_emulator_with_its_api_level() -> None:
    p, clock = phone()
    info = on(clock, p.info)
    assert (info.kind, info.platform, info.ios, info.release) == (DeviceKind.EMULATOR, Platform.ANDROID, "34", "14")
    assert info.os_text == "Android 14 (API 34)"
    assert p.script.home == "com.android.launcher3"
    assert p.front == "com.android.launcher3"


def test_back_walks_the_apps_back_stack_then_leaves_it_running_for_home() -> None:
    p, clock = phone()

    async def walk() -> list[str]:
        await p.launch(APP, LaunchOptions())
        seen = []
        for label in ("Settings", "Upgrade to Pro"):
            screen = await p.read()
            await p.act(Action(Op.TAP, element=screen.find("Button", label)[0]))
        seen.append(p.screen_name(APP) or "")
        for _ in range(3):
            await p.act(Action(Op.BACK))
            seen.append(p.front if p.front != APP else p.screen_name(APP) or "")
        await p.act(Action(Op.LAUNCH_APP, text=APP))
        seen.append(p.screen_name(APP) or "")
        return seen

    assert on(clock, walk) == ["paywall", "settings", "welcome", "com.android.launcher3", "welcome"]


def test_back_closes_the_keyboard_before_it_goes_back() -> None:
    p, clock = phone("yourapp-android-permissions")

    async def walk() -> tuple[list[tuple[str, str]], list[tuple[str, str]], str | None]:
        await p.launch(APP, LaunchOptions(permissions={"camera": True}))
        screen = await p.read()
        await p.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0]))
        screen = await p.read()
        await p.act(Action(Op.TYPE, element=screen.find("TextField", "Email")[0], text="ada@example.com"))
        typed = labels(await p.read())
        await p.act(Action(Op.BACK))
        after = labels(await p.read())
        return typed, after, p.screen_name(APP)

    typed, after, screen = on(clock, walk)
    assert ("Keyboard", "") in typed  # the input method's window: no keys in the active window's tree
    assert ("Key", "return") not in typed
    assert ("Keyboard", "") not in after
    assert screen == "signup"


def test_the_permission_prompt_is_googles_dialog_and_back_declines_it() -> None:
    p, clock = phone("yourapp-android-permissions")

    async def walk() -> tuple[mc.Screen, str]:
        await p.launch(APP, LaunchOptions())
        prompt = await p.read()
        await p.act(Action(Op.BACK))
        return prompt, p.front

    prompt, front = on(clock, walk)
    assert prompt.app == "com.google.android.permissioncontroller"
    assert labels(prompt)[0] == ("Alert", "Allow YourApp to take pictures and record video?")
    assert [e.label for e in prompt.elements if e.role == "Button"] == [
        "While using the app",
        "Only this time",
        "Don\u2019t allow",
    ]
    assert front == APP


@pytest.mark.parametrize("kind", ["emulator", "device"])
def test_a_launchs_permissions_are_granted_first_on_any_android_phone(kind: str) -> None:
    text = sample_path("yourapp-android-permissions").read_text().replace("kind: emulator", f"kind: {kind}")
    clock = FakeClock()
    p = ScriptedPhone.from_text(text, clock=clock)

    async def walk() -> str:
        await p.launch(APP, LaunchOptions(permissions={"camera": True}))
        return (await p.read()).app

    assert on(clock, walk) == APP  # pm grant before the launch: no dialog


def test_a_link_without_a_package_asks_open_with_and_a_launch_link_does_not() -> None:
    p, clock = phone("yourapp-android-permissions")

    async def walk() -> tuple[mc.Screen, mc.Screen, str | None]:
        await p.launch(APP, LaunchOptions(url="yourapp://signup", permissions={"camera": True}))
        launched = await p.read()
        await p.act(Action(Op.HOME))
        await p.act(Action(Op.OPEN_URL, text="yourapp://signup"))
        chooser = await p.read()
        await p.answer_alert("Just once")
        return launched, chooser, p.screen_name(APP)

    launched, chooser, screen = on(clock, walk)
    assert launched.app == APP
    assert ("StaticText", "Create your account") in labels(launched)
    assert chooser.app == "android"
    assert labels(chooser)[0] == ("Alert", "Open with YourApp")
    assert screen == "signup"


def test_an_iphone_has_no_back_and_nothing_is_sent() -> None:
    clock = FakeClock()
    p = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

    async def walk() -> str | None:
        await p.launch(APP, LaunchOptions())
        screen = await p.read()
        await p.act(Action(Op.TAP, element=screen.find("Button", "Settings")[0]))
        with pytest.raises(DeviceError, match="BACK is Android's system back button; an iPhone has none"):
            await p.act(Action(Op.BACK))
        return p.screen_name(APP)

    assert on(clock, walk) == "settings"


def test_ios_abilities_are_refused_on_android() -> None:
    p, clock = phone()
    assert p.controls_refusal(DeviceSettings()) == (
        "Scripted Pixel is an Android phone: a check's device settings need an iOS simulator"
    )
    refusal = p.event_refusal(DeviceEvent(Op.BIOMETRIC_MATCH))
    assert refusal is not None
    assert "need a scripted iOS simulator" in refusal
    report = on(clock, lambda: p.audit(()))
    assert report.unavailable == "Apple's accessibility audit is iOS's: an Android phone has none"


@pytest.mark.parametrize(("api", "launches"), [(33, True), (32, False)])
def test_per_app_languages_come_with_api_33(api: int, launches: bool) -> None:
    text = sample_path("yourapp-android").read_text().replace("api: 34", f"api: {api}")
    p = ScriptedPhone.from_text(text, clock=FakeClock())
    assert p.launches_in_locale() is launches


def test_a_real_android_device_reads_the_apps_version() -> None:
    text = sample_path("yourapp-android").read_text().replace("kind: emulator", "kind: device")
    clock = FakeClock()
    p = ScriptedPhone.from_text(text, clock=clock)
    assert on(clock, lambda: p.app_info(APP)) == mc.AppInfo(APP, "1.0", "1")


HEAD = "version: 1\nplatform: android\n"
APPS = "apps:\n  com.example.a:\n    name: A\n    version: '1'\n    build: '1'\n    launch: main\n    screens:\n      main:\n        - {role: StaticText, label: Hi}\n"  # noqa: E501


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (HEAD + 'device: {ios: "26.4"}\n' + APPS, "device.ios: an Android device says its API level: write api: 34"),
        (HEAD + 'device: {api: "34"}\n' + APPS, "device.api: expected the API level, a whole number such as 34"),
        (HEAD + "device: {kind: simulator}\n" + APPS, "device.kind: expected emulator or device, got 'simulator'"),
        ("version: 1\ndevice: {kind: emulator}\n" + APPS, "platform: android at the top makes the phone Android"),
        ("version: 1\ndevice: {api: 34}\n" + APPS, "device.api: api is an Android device's: write platform: android"),
        ("version: 1\nplatform: windows\n" + APPS, "platform: expected ios or android, got 'windows'"),
        (HEAD + APPS.replace("com.example.a", "com.android.launcher3"), "com.android.launcher3 is the home screen"),
    ],
)
def test_an_android_script_is_read_strictly(text: str, said: str) -> None:
    with pytest.raises(ScriptError, match=said.replace("(", r"\(").replace(")", r"\)")):
        ScriptedPhone.from_text(text, "app.yaml", clock=FakeClock())
