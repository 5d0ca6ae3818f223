"""The Android driver against the fake UiAutomator2 server and the fake adb: check_device, and what it sends."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

import mobster_core as mc
from mobster_core import Action, DeviceError, DeviceKind, LaunchOptions, Op, Reset
from mobster_core.protocols import Appearance
from mobster_core.testing import check_device
from tests.drivers.devices.android_fakes import Android
from tests.samples import DEVICE_CHECKS

APP = "com.example.yourapp"
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def test_the_android_driver_passes_check_device_against_the_fakes(android: Android) -> None:
    ran = run(
        check_device(
            android.device,
            app=APP,
            tap=("Button", "Sign up"),
            field=("TextField", "Email"),
            link="yourapp://signup",
        )
    )
    assert ran == [*DEVICE_CHECKS, "back"]


def test_it_reads_what_it_is_from_the_server_and_adb(android: Android) -> None:
    info = run(android.device().info())
    assert (info.name, info.ios, info.release, info.kind) == ("Scripted Pixel", "34", "14", DeviceKind.EMULATOR)
    assert (info.udid, info.locale, info.appearance) == ("emulator-5554", "en_US", Appearance.LIGHT)


def test_it_opens_as_the_research_found_a_driver_must(android: Android) -> None:
    device = android.device()
    run(device.info())
    argv = [r.argv for r in android.adb.requests]
    assert ("devices",) in argv
    assert ("-s", "emulator-5554", "forward", "tcp:0", "tcp:6790") in argv
    instrument = [a for a in argv if a[-1].startswith("am instrument -w")]
    assert instrument == [("-s", "emulator-5554", "shell", instrument[0][-1])]
    assert "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner" in instrument[0][-1]
    routes = [(r.method, r.route) for r in android.server.requests]
    assert routes[:2] == [("GET", "/status"), ("POST", "/session")] or ("POST", "/session") in routes
    device.close()
    assert not android.adb.forwards  # the forward goes with it


def test_a_launch_force_stops_grants_and_starts_the_launcher_activity(android: Android) -> None:
    device = android.device()
    run(device.launch(APP, LaunchOptions(permissions={"camera": True, "tracking": False}, env={"API": "staging"})))
    commands = android.adb.commands(android.server.serial)
    assert ["am", "force-stop", APP] in commands
    start = [c for c in commands if c[:2] == ["am", "start-activity"]]
    assert start
    assert start[-1][:4] == ["am", "start-activity", "-W", "-n"]
    assert start[-1][5:8] == ["--es", "API", "staging"]
    # camera is a permission yourapp-android doesn't request: pm grant was tried and skipped
    assert ["pm", "grant", APP, "android.permission.CAMERA"] in commands
    assert not [c for c in commands if c[:2] == ["pm", "revoke"]]  # tracking has no Android permission
    screen = run(device.read())
    assert screen.app == APP
    assert ("StaticText", "Welcome") in screen.signature_pairs


def test_a_reset_is_pm_clear_and_launch_args_are_refused(android: Android) -> None:
    device = android.device()
    for reset in (Reset.DATA, Reset.REINSTALL):
        run(device.launch(APP, LaunchOptions(reset=reset)))
    clears = [c for c in android.adb.commands(android.server.serial) if c == ["pm", "clear", APP]]
    assert len(clears) == 2
    with pytest.raises(DeviceError, match=r"launch\.args are iOS process arguments"):
        run(device.launch(APP, LaunchOptions(args=("-uitest",))))


def test_a_launch_link_names_the_package_so_no_one_is_asked(android: Android) -> None:
    device = android.device()
    run(device.launch(APP, LaunchOptions(url="yourapp://signup")))
    commands = android.adb.commands(android.server.serial)
    link = [c for c in commands if c[:2] == ["am", "start"]][-1]
    assert link == ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", "yourapp://signup", APP]
    screen = run(device.read())
    assert ("StaticText", "Create your account") in screen.signature_pairs


def test_an_app_that_isnt_installed_is_a_device_error_and_nothing_is_started(android: Android) -> None:
    device = android.device()
    with pytest.raises(DeviceError, match=r"com\.example\.nope is not installed on emulator-5554"):
        run(device.launch("com.example.nope", LaunchOptions()))
    started = [
        c for c in android.adb.commands(android.server.serial) if c[:2] in (["am", "start"], ["am", "start-activity"])
    ]
    assert not started


def test_an_unknown_serial_says_which_are_attached(android: Android) -> None:
    with pytest.raises(DeviceError, match=r"the Android device R58M123 isn't attached \(adb devices: emulator-5554\)"):
        run(android.device("R58M123").info())


def test_a_server_that_isnt_installed_says_how_to_install_it(android: Android) -> None:
    android.server.on_loop(lambda state: setattr(state, "installed_server", False))
    with pytest.raises(DeviceError, match="the UiAutomator2 server isn't installed on emulator-5554: install Appium"):
        run(android.device().info())


def test_typing_taps_the_field_then_sends_the_text_to_it(android: Android) -> None:
    device = android.device()

    async def go() -> mc.Screen:
        await device.launch(APP, LaunchOptions())
        screen = await device.read()
        await device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0]))
        await asyncio.sleep(0)
        screen = await device.read()
        await device.act(Action(Op.TYPE, element=screen.find("TextField", "Email")[0], text="ada@example.com"))
        await device.act(Action(Op.TYPE, element=(await device.read()).find("TextField", "Email")[0], text=".uk"))
        return await device.read()

    screen = run(go())
    (email,) = screen.find("TextField", "Email")
    assert email.value == "ada@example.com.uk"  # the server appends (SendKeysToElement.java)
    keys = [r.body for r in android.server.requests if r.route == "/keys"]
    assert keys == [{"text": "ada@example.com", "replace": False}, {"text": ".uk", "replace": False}]


def test_a_password_is_read_as_bullets_and_never_in_clear(android: Android) -> None:
    device = android.device()

    async def go() -> mc.Screen:
        await device.launch(APP, LaunchOptions())
        screen = await device.read()
        await device.act(Action(Op.TAP, element=screen.find("Button", "Sign up")[0]))
        screen = await device.read()
        await device.act(Action(Op.TYPE, element=screen.find("SecureTextField", "Password")[0], text="hunter22"))
        return await device.read()

    screen = run(go())
    (field,) = screen.find("SecureTextField", "Password")
    assert field.value == "\u2022" * 8
    assert not any("hunter22" in v for e in screen.elements for v in (e.label, e.value, e.placeholder))
    with pytest.raises(DeviceError, match="the password field already holds text"):
        run(device.act(Action(Op.TYPE, element=field, text="more")))


def test_an_iphone_only_op_is_refused_before_anything_is_sent(android: Android) -> None:
    device = android.device()
    run(device.launch(APP, LaunchOptions()))
    before = len(android.server.requests)
    with pytest.raises(DeviceError, match="not something the Android driver does"):
        run(device.act(Action(Op.BIOMETRIC_MATCH)))
    assert len(android.server.requests) == before
