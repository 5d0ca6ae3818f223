"""Checks run end to end through the Android driver, the fake adb and the fake UiAutomator2 server.

A permission dialog, BACK, the keyboard (the input method's window), a deep link and a destructive
button on a real device, each under the core's own rules, on the real clock with short polls.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core.checks import load_check_text
from mobster_drivers.devices.android import AndroidDevice
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.drivers.devices.android_fakes import Android
from tests.real_clock import QUICK_POLICY

APP = "com.example.yourapp"


@pytest.fixture
def android_app() -> Path:
    return sample_path("yourapp-android-permissions")


def run(android: Android, root: Path, check: str, *, model: bool = True) -> mc.CheckResult:
    loaded = load_check_text(check, str(root / ".mobster" / "checks" / "check.yaml"))
    clock = mc.SystemClock()
    device: AndroidDevice = android.device()
    options = mc.RunOptions(root=root, policy=QUICK_POLICY)
    scripted = ScriptedModel() if model else None
    return asyncio.run(mc.run_check(loaded, device, clock, model=scripted, options=options))


def check(steps: str, expect: str, extra: str = "") -> str:
    return f"version: 1\nname: a check\napp: {{bundle: {APP}}}\n{extra}steps:\n{steps}expect:\n{expect}"


SIGNUP = check('  - Tap "Sign up"\n', "  - text: Create your account\n")


def test_a_permission_the_policy_allows_is_granted_before_the_launch(android: Android, tmp_path: Path) -> None:
    result = run(
        android,
        tmp_path,
        check('  - Tap "Sign up"\n', "  - text: Create your account\n", "alerts: {allow: [camera]}\n"),
    )
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    assert ["pm", "grant", APP, "android.permission.CAMERA"] in android.adb.commands(android.server.serial)
    assert android.server.phone.alert_answers == []  # the dialog never showed


def test_a_permission_dialog_is_answered_by_the_policy_with_androids_button(android: Android, tmp_path: Path) -> None:
    result = run(android, tmp_path, check('  - Tap "Sign up"\n', "  - text: Create your account\n", "alerts: accept\n"))
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    assert not [c for c in android.adb.commands(android.server.serial) if c[:2] == ["pm", "grant"]]
    taps = [r.body for r in android.server.requests if r.route == "/actions"]
    assert taps  # the dialog's "While using the app", tapped where the read showed it
    assert android.server.on_loop(lambda s: s.phone.screen_name(APP)) == "signup"


def test_a_permission_dialog_the_policy_doesnt_answer_fails_the_check(android: Android, tmp_path: Path) -> None:
    result = run(android, tmp_path, SIGNUP)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert "a system alert is in the way: “Allow YourApp to take pictures and record video?”" in result.outcome.message


BACK = check(
    '  - Tap "Sign up"\n  - Tap "Continue"\n  - Go back\n',
    "  - text: Create your account\n",
    "alerts: {allow: [camera]}\n",
)


def test_back_records_and_replays_through_the_server(android: Android, tmp_path: Path) -> None:
    first = run(android, tmp_path, BACK)
    assert first.verdict is mc.Verdict.PASSED, first.outcome
    assert [s.op for s in first.steps] == [mc.Op.TAP, mc.Op.TAP, mc.Op.BACK]
    before = len(android.server.requests)
    again = run(android, tmp_path, BACK, model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0), again.outcome
    assert [r.route for r in android.server.requests[before:] if r.route == "/back"] == ["/back"]


TYPING = check(
    '  - Tap "Sign up"\n  - Type "ada@example.com" into "Email"\n  - Dismiss the keyboard\n  - Tap "Continue"\n',
    "  - text: Welcome aboard\n",
    "alerts: {allow: [camera]}\n",
)


def test_the_keyboard_window_is_read_and_dismissed_with_escape(android: Android, tmp_path: Path) -> None:
    first = run(android, tmp_path, TYPING)
    assert first.verdict is mc.Verdict.PASSED, first.outcome
    windows = [r.body for r in android.server.requests if r.route == "/appium/list_windows"]
    assert windows
    assert windows[0] == {"filters": {"type": 2}, "skipScreenshots": True}
    keys = [r.body for r in android.server.requests if r.route == "/appium/device/press_keycode"]
    assert {"keycode": 111} in keys  # Escape hides the input method
    again = run(android, tmp_path, TYPING, model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0), again.outcome


def test_a_field_under_the_keyboard_is_covered_until_it_is_dismissed(android: Android, tmp_path: Path) -> None:
    device = android.device()

    async def go() -> tuple[mc.Screen, mc.Screen]:
        await device.launch(APP, mc.LaunchOptions(permissions={"camera": True}))
        screen = await device.read()
        await device.act(mc.Action(mc.Op.TAP, element=screen.find("Button", "Sign up")[0]))
        await asyncio.sleep(0.05)
        screen = await device.read()
        await device.act(mc.Action(mc.Op.TYPE, element=screen.find("TextField", "Email")[0], text="a@b.c"))
        typed = await device.read()
        await device.act(mc.Action(mc.Op.DISMISS_KEYBOARD))
        return typed, await device.read()

    from mobster_core._rules.device.keyboard import covered_by_keyboard

    typed, dismissed = asyncio.run(go())
    (cont,) = typed.find("Button", "Continue")
    assert covered_by_keyboard(typed, cont)
    assert not [e for e in dismissed.elements if e.role == "Keyboard"]


def test_a_launch_link_opens_its_screen_with_no_chooser(android: Android, tmp_path: Path) -> None:
    linked = check(
        '  - Tap "Continue"\n',
        "  - text: Welcome aboard\n",
        'alerts: {allow: [camera]}\nlaunch: {url: "yourapp://signup"}\n',
    )
    result = run(android, tmp_path, linked)
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    starts = [c for c in android.adb.commands(android.server.serial) if c[:2] == ["am", "start"]]
    assert starts[0][-1] == APP  # the package named: Android asks no one


def test_a_link_that_names_no_package_raises_the_chooser_which_the_policy_refuses(
    android: Android, tmp_path: Path
) -> None:
    opened = check(
        '  - Open link "yourapp://signup"\n', "  - text: Create your account\n", "alerts: {allow: [camera]}\n"
    )
    result = run(android, tmp_path, opened)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT), result.outcome
    assert "“Open with YourApp”" in result.outcome.message
    assert "accepted only right after the check's launch.url" in result.outcome.message


DELETE = check(
    '  - Tap "Settings"\n  - Tap "Delete account"\n', "  - text: Account deleted\n", "alerts: {allow: [camera]}\n"
)


ON_A_PHONE = AppScript.from_text(
    sample_path("yourapp-android-permissions").read_text().replace("kind: emulator", "kind: device"), "phone.yaml"
)


@pytest.mark.parametrize(("android_app", "android_serial"), [(ON_A_PHONE, "R58M123ABC")])
def test_a_destructive_button_is_refused_on_a_real_device(android: Android, tmp_path: Path) -> None:
    result = run(android, tmp_path, DELETE)
    assert result.device is not None
    assert result.device.kind is mc.DeviceKind.DEVICE  # ro.kernel.qemu is empty on a phone
    assert result.outcome.failure_class is mc.FailureClass.REFUSED, result.outcome
    assert "a delete is refused on a real Android device" in result.outcome.message
    taps = len([r for r in android.server.requests if r.route == "/actions"])
    assert taps == 1  # Settings only: the delete was never sent


def test_the_same_button_is_pressed_on_an_emulator(android: Android, tmp_path: Path) -> None:
    result = run(android, tmp_path, DELETE)
    assert result.device is not None
    assert result.device.kind is mc.DeviceKind.EMULATOR
    assert result.verdict is mc.Verdict.PASSED, result.outcome  # a delete is refused on a device, not on an emulator
    assert len([r for r in android.server.requests if r.route == "/actions"]) == 2
