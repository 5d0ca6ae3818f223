"""The Appium device's Android rules (``devices/appium/_android``), against the fake Appium's UiAutomator2 driver.

What the real server also answers is compared in ``test_uiautomator2_real.py``; here are the
driver's own rules and the inputs it refuses, quickly, on the fake alone: the platform from the
session, the kind, what is refused before anything is sent, the chooser, the alert's answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

import mobster_core as mc
from mobster_core import Action, LaunchOptions, Op
from mobster_drivers.devices.appium import AppiumCaps, AppiumDevice, CapsError
from mobster_drivers.devices.appium._android import emulator_of, is_android
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing.appium import FakeAppium
from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2
from tests.real_clock import ManualClock

APP = "com.example.yourapp"
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture
def app() -> str:
    return "yourapp-android-permissions"


@pytest.fixture
def fake(app: str) -> Iterator[FakeAppium]:
    with FakeAppium(sample_path(app), lifetime=120, clock=ManualClock(), session_discovery=True) as served:
        yield served


def device(fake: FakeAppium, **caps: Any) -> AppiumDevice:
    asked = {"platformName": "Android", "appium:udid": fake.uia2.serial, **caps}
    return AppiumDevice(fake.url, AppiumCaps.from_mapping(asked), bundle=APP)


def adb(fake: FakeAppium) -> list[list[str]]:
    return list(fake.uia2.on_loop(lambda state: [list(c) for c in state.commands]))


def until(made: AppiumDevice, role: str, label: str) -> mc.Screen:
    """The first read that shows ``role`` ``label`` (the phone moves on its own time)."""
    for _ in range(100):
        screen = run(made.read())
        if screen.find(role, label):
            return screen
    raise AssertionError(f"{role} {label!r} never showed")


# -- the platform and the kind -----------------------------------------------------------------------


def test_the_platform_is_the_sessions_answer_first_then_the_request() -> None:
    assert is_android({"platformName": "Android"}, {"platformName": "iOS"})
    assert not is_android({"platformName": "iOS"}, {"platformName": "Android"})
    assert is_android({}, {"platformName": "ANDROID"})
    assert not is_android({"platformName": "  "}, {})  # no platform said: iOS, the default


@pytest.mark.parametrize(
    ("udid", "model", "emulator"),
    [
        ("emulator-5554", "Pixel 8", True),  # Appium's own rule: the serial
        ("127.0.0.1:5555", "sdk_gphone64_x86_64", True),  # a networked emulator: Google's SDK image
        ("localhost:5037", "Android SDK built for x86_64", True),
        ("R58M12ABCDE", "SM-G991B", False),  # a real phone on USB
        ("emulator-5554x", "SM-G991B", False),  # not the serial's whole shape
    ],
)
def test_an_emulator_by_its_serial_or_its_model(udid: str, model: str, emulator: bool) -> None:
    assert emulator_of(udid, model) is emulator


@pytest.mark.parametrize("app", ["yourapp-android"])
def test_a_caps_file_without_platformname_is_for_the_platform_the_device_is_made_for(fake: FakeAppium) -> None:
    made = AppiumDevice(fake.url, AppiumCaps.from_mapping({"appium:udid": fake.uia2.serial}), platform="android")
    try:
        info = run(made.info())
    finally:
        made.close()
    assert (info.platform.value, info.ios, made.reads_version_names()) == ("android", "34", True)  # session gone
    with pytest.raises(CapsError, match="platformName is 'iOS', but this device is for android"):
        AppiumDevice(fake.url, {"platformName": "iOS"}, platform="android")


def test_a_real_phones_serial_and_model_make_a_device_held_to_the_stricter_rules(app: str) -> None:
    text = sample_path(app).read_text("utf-8").replace("kind: emulator", "kind: device")
    script = AppScript.from_text(text, f"{app}.yaml")
    with (
        FakeUiAutomator2(script, serial="R58M12ABCDE", lifetime=60) as server,
        FakeAppium(uia2=server, lifetime=60) as served,
    ):
        made = AppiumDevice(served.url, {"platformName": "Android", "appium:udid": "R58M12ABCDE"}, bundle=APP)
        try:
            info = run(made.info())
        finally:
            made.close()
    assert (info.kind, info.udid, info.name) == (mc.DeviceKind.DEVICE, "R58M12ABCDE", "Scripted Pixel")


# -- refused before anything is sent ----------------------------------------------------------------


def test_what_a_launch_refuses_sends_nothing(fake: FakeAppium) -> None:
    made = device(fake)
    try:
        run(made.info())
        before = len(adb(fake))
        with pytest.raises(mc.DeviceError, match=r"launch\.args are iOS process arguments"):
            run(made.launch(APP, LaunchOptions(args=("-debug",))))
        with pytest.raises(mc.DeviceError, match="set appium:appActivity in the caps file"):
            run(made.launch(APP, LaunchOptions(env={"MODE": "test"})))
        assert [c for c in adb(fake)[before:] if c[:1] == ["am"]] == []  # nothing stopped, nothing started
        with pytest.raises(mc.DeviceError, match=r"com\.nope is not installed on Scripted Pixel"):
            run(made.launch("com.nope", LaunchOptions()))
        assert [c for c in adb(fake)[before:] if c[:1] == ["am"]] == []
    finally:
        made.close()


def test_launch_env_goes_as_string_extras_of_the_caps_activity(fake: FakeAppium) -> None:
    made = device(fake, **{"appium:appActivity": ".MainActivity"})
    try:
        run(made.launch(APP, LaunchOptions(env={"MODE": "test run"}, permissions={"camera": True})))
        assert run(made.read()).find("Button", "Sign up")
    finally:
        made.close()
    assert ["am", "start-activity", "-W", "-n", f"{APP}/.MainActivity", "--es", "MODE", "test run"] in adb(fake)


@pytest.mark.parametrize("app", ["yourapp-android"])
def test_typing_into_a_password_field_that_holds_text_is_refused_unsent(fake: FakeAppium) -> None:
    made = device(fake)
    try:
        run(made.launch(APP, LaunchOptions()))
        run(made.act(Action(Op.TAP, element=until(made, "Button", "Sign up").find("Button", "Sign up")[0])))
        form = until(made, "SecureTextField", "Password")
        password = form.find("SecureTextField", "Password")[0]
        run(made.act(Action(Op.TYPE, element=password, text="hunter22")))
        held = run(made.read()).find("SecureTextField", "Password")[0]
        assert held.value  # bullets: the text itself never leaves the reader
        keys = [r for r in fake.uia2.requests if r.route == "/keys"]
        with pytest.raises(mc.DeviceError, match="the password field already holds text"):
            run(made.act(Action(Op.TYPE, element=held, text="more")))
        assert [r for r in fake.uia2.requests if r.route == "/keys"] == keys  # nothing more was sent
    finally:
        made.close()


def test_a_permission_the_app_doesnt_request_is_logged_and_the_launch_goes_on(
    fake: FakeAppium, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mobster.drivers.appium")
    made = device(fake)
    try:
        run(made.launch(APP, LaunchOptions(permissions={"microphone": True, "camera": False})))
        screen = run(made.read())
    finally:
        made.close()
    assert screen.app in (APP, "com.google.android.permissioncontroller")  # launched; the camera's prompt may show
    assert ["pm", "grant", APP, "android.permission.RECORD_AUDIO"] in adb(fake)
    assert ["pm", "revoke", APP, "android.permission.CAMERA"] in adb(fake)
    assert "answers the permission prompts as they show" in caplog.text


# -- dialogs: the chooser, the permission prompt --------------------------------------------------


def test_a_link_without_a_package_raises_the_chooser_and_an_alert_is_answered_on_the_read(fake: FakeAppium) -> None:
    made = device(fake)
    try:
        run(made.launch(APP, LaunchOptions()))  # no permission set: the camera's prompt shows
        first = run(made.read())
        if first.find("Button", "Sign up"):
            run(made.act(Action(Op.TAP, element=first.find("Button", "Sign up")[0])))
        until(made, "Button", "While using the app")
        run(made.answer_alert("While using the app"))  # tapped where the read showed it
        assert any(run(made.read()).app == APP for _ in range(100)), "the prompt never went"
        run(made.act(Action(Op.OPEN_URL, text="yourapp://signup")))  # no package: Android asks who opens it
        chooser = run(made.read())
        assert chooser.app == "android", chooser.app
        with pytest.raises(mc.DeviceError, match="no button “Nope” on the alert shown: nothing was tapped"):
            run(made.answer_alert("Nope"))
    finally:
        made.close()


def test_video_and_audit_are_ioss_and_say_so_on_android(fake: FakeAppium, tmp_path: Any) -> None:
    made = device(fake)
    try:
        run(made.start_recording(tmp_path / "video.mp4"))
        assert run(made.stop_recording()) == mc.protocols.Recording()
        report = run(made.audit(()))
        assert report.unavailable == "the accessibility audit is XCTest's: an Android session has none"
        assert not made.reads_version_names()
    finally:
        made.close()
    assert not [r for r in fake.requests if "XCTest" in r.command or "Audit" in r.command]
