"""A check's device steps through the drivers: the fake ``xcrun simctl``, the fake Appium, a USB iPhone.

The same check (``tests.samples.FACE_ID_CHECK``) passes on the simulator driver and on Appium's
simulator session, the real tools' commands reaching the fakes, and replays with no model; a USB
iPhone and an Appium session on an iPhone refuse it before anything is sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import FailureClass, Verdict
from mobster_core.checks import load_check
from mobster_drivers.devices.appium import AppiumCaps, appium_device
from mobster_drivers.devices.scripted import AppScript
from mobster_drivers.devices.simulator import SimulatorDevice
from mobster_drivers.devices.usb import UsbIphone
from mobster_drivers.devices.wda import WdaDevice
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.appium import FakeAppium
from mobster_drivers.testing.usbmuxd import FakeIphone, FakeUsbmuxd
from mobster_drivers.testing.wda import FakeWda
from mobster_drivers.testing.xcrun import FakeSimctl
from tests.real_clock import QUICK_POLICY
from tests.samples import APP, FACE_ID_APP, FACE_ID_CHECK, PUSH_PAYLOAD

#: The check's settings: left out where a test wants the device step to be what is refused.
ENROLLED = "device: {biometrics: {enrolled: true}}\n"
PRO = "5A1F0C2E-9B7D-4E3A-A6F1-2D8C0B4E7F13"
CAPS = AppiumCaps.from_mapping({"appium:platformVersion": "26.4"})
PUSH_CHECK = FACE_ID_CHECK.replace("  - biometric: match\n", "  - biometric: match\n  - push: payload.json\n").replace(
    "text: Welcome back", "text: Your order shipped"
)
FAIL_CHECK = FACE_ID_CHECK.replace("- biometric: match", "- biometric: fail").replace(
    "text: Welcome back", "text: Face ID didn't match"
)


def _script(kind: str = "simulator") -> AppScript:
    return AppScript.from_text(FACE_ID_APP.replace("kind: simulator", f"kind: {kind}"), "faceid.yaml")


@pytest.fixture
def wda() -> Iterator[FakeWda]:
    with FakeWda(_script(), lifetime=60) as fake:
        yield fake


def _check(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "payload.json").write_text(PUSH_PAYLOAD)
    (folder / "check.yaml").write_text(text)
    return folder / "check.yaml"


def _run(tmp_path: Path, device: mc.Device, file: Path, *, model: bool = True) -> mc.CheckResult:
    options = mc.RunOptions(root=tmp_path, policy=QUICK_POLICY)
    clock = mc.SystemClock()
    scripted = ScriptedModel() if model else None
    return asyncio.run(mc.run_check(load_check(file), device, clock, model=scripted, options=options))


def _notified(simctl: FakeSimctl) -> list[tuple[str, ...]]:
    return [c.args for c in simctl.calls_of("spawn") if "-p" in c.args and "BiometricKit_Sim" in c.args[-1]]


def test_a_face_id_match_is_biometrickits_notification_through_simctl_and_replays(tmp_path: Path, wda: FakeWda) -> None:
    simctl = FakeSimctl(tmp_path, wda=wda)
    device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)
    file = _check(tmp_path, FACE_ID_CHECK)
    first = _run(tmp_path, device, file)
    assert first.verdict is Verdict.PASSED, first.outcome.message
    assert _notified(simctl) == [("spawn", PRO, "notifyutil", "-p", "com.apple.BiometricKit_Sim.pearl.match")]
    second = _run(tmp_path, device, file, model=False)
    assert (second.verdict, second.mode, second.model_calls) == (Verdict.PASSED, "replay", 0)
    assert len(_notified(simctl)) == 2
    assert simctl.controls_of(PRO).matches == [("pearl", True), ("pearl", True)]


def test_a_failed_match_through_simctl_reaches_the_failure_screen(tmp_path: Path, wda: FakeWda) -> None:
    simctl = FakeSimctl(tmp_path, wda=wda)
    device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)
    result = _run(tmp_path, device, _check(tmp_path, FAIL_CHECK))
    assert result.verdict is Verdict.PASSED, result.outcome.message
    assert _notified(simctl) == [("spawn", PRO, "notifyutil", "-p", "com.apple.BiometricKit_Sim.pearl.nomatch")]


def test_a_push_step_is_simctl_push_of_the_check_s_payload(tmp_path: Path, wda: FakeWda) -> None:
    simctl = FakeSimctl(tmp_path, wda=wda)
    device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)
    result = _run(tmp_path, device, _check(tmp_path, PUSH_CHECK))
    assert result.verdict is Verdict.PASSED, result.outcome.message
    [call] = simctl.calls_of("push")
    assert call.args[:3] == ("push", PRO, APP)
    assert Path(call.args[3]).name == "payload.json"
    assert not Path(call.args[3]).exists()  # a private copy, gone after the push
    assert simctl.controls_of(PRO).pushes == [(APP, json.loads(PUSH_PAYLOAD))]


def test_appium_sends_sendbiometricmatch_and_pushnotification_on_a_simulator_session(tmp_path: Path) -> None:
    with FakeAppium(_script(), lifetime=60) as fake:
        device = appium_device(fake.url, CAPS, mc.SystemClock(), bundle=APP)
        try:
            first = _run(tmp_path, device, _check(tmp_path, PUSH_CHECK))
            assert first.verdict is Verdict.PASSED, first.outcome.message
            second = _run(tmp_path, device, _check(tmp_path, PUSH_CHECK), model=False)
            assert (second.verdict, second.model_calls) == (Verdict.PASSED, 0)
        finally:
            device.close()
        sent = [c for c in fake.controls if c[0] in ("sendBiometricMatch", "pushNotification")]
        push = ("pushNotification", {"bundleId": APP, "payload": json.loads(PUSH_PAYLOAD)})
        assert sent == [("sendBiometricMatch", {"type": "faceId", "match": True}), push] * 2


def test_an_appium_session_on_an_iphone_refuses_the_device_step_before_anything_is_sent(tmp_path: Path) -> None:
    with FakeAppium(_script("iphone"), lifetime=60) as fake:
        device = appium_device(fake.url, CAPS, mc.SystemClock(), bundle=APP)
        try:
            result = _run(tmp_path, device, _check(tmp_path, FACE_ID_CHECK.replace(ENROLLED, "")))
        finally:
            device.close()
        assert (result.verdict, result.outcome.failure_class) == (Verdict.COULDNT_RUN, FailureClass.ENVIRONMENT)
        assert "step 2 (Match the Face ID prompt) needs a simulator" in result.outcome.message
        assert "is not on a simulator" in result.outcome.message
        assert not [r for r in fake.requests if r.command == "mobile: launchApp"]
        assert fake.controls == []


@pytest.mark.parametrize(
    ("check", "says"),
    [
        (FACE_ID_CHECK, "iOS can't fake a face or a fingerprint on one"),
        (PUSH_CHECK.replace("  - biometric: match\n", ""), "a push reaches a real iPhone only through APNs"),
    ],
)
def test_a_usb_iphone_refuses_the_device_steps_with_its_reason(tmp_path: Path, check: str, says: str) -> None:
    with FakeWda(_script("iphone"), lifetime=60) as fake:
        iphone = FakeIphone(udid="00008140-001A2B3C4D5E801E", name="Lab iPhone", ios="26.4", ports={8100: fake.port})
        with FakeUsbmuxd([iphone]) as mux:
            device = UsbIphone.connect("Lab iPhone", usbmux_address=mux.address, lockdown=mux.lockdown())
            try:
                result = _run(tmp_path, device, _check(tmp_path, check.replace(ENROLLED, "")))
            finally:
                device.close()
        assert (result.verdict, result.outcome.failure_class) == (Verdict.COULDNT_RUN, FailureClass.ENVIRONMENT)
        assert f"Lab iPhone is a USB iPhone: {says}" in result.outcome.message
        assert fake.phone.launches == []
        assert fake.phone.events == []


def test_a_push_simctl_refuses_ends_the_run_as_the_device_s_failure_journaled_not_sent(
    tmp_path: Path, wda: FakeWda
) -> None:
    simctl = FakeSimctl(tmp_path, wda=wda)
    device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)
    simctl.fail_next("push", code=1, stderr="Unable to deliver the notification\n")
    result = _run(tmp_path, device, _check(tmp_path, PUSH_CHECK))
    assert (result.verdict, result.outcome.failure_class) == (Verdict.COULDNT_RUN, FailureClass.DEVICE)
    assert result.outcome.message.startswith("step 3 (Send the push notification in payload.json) couldn't be sent")
    assert "Unable to deliver the notification" in result.outcome.message
    journal = [json.loads(line) for line in (tmp_path / result.run_dir / "journal.jsonl").read_text().splitlines()]
    pushed = [e for e in journal if e.get("key") == "smart-3"]
    assert [(e["event"], e.get("op"), e.get("outcome")) for e in pushed] == [
        ("intent", "PUSH", None),
        ("outcome", None, "not_sent"),
    ]


def test_a_bare_wda_has_no_device_steps_and_says_so_before_anything_is_sent(tmp_path: Path, wda: FakeWda) -> None:
    device = WdaDevice(wda.url)
    try:
        result = _run(tmp_path, device, _check(tmp_path, FACE_ID_CHECK.replace(ENROLLED, "")))
    finally:
        device.close()
    assert (result.verdict, result.outcome.failure_class) == (Verdict.COULDNT_RUN, FailureClass.ENVIRONMENT)
    assert result.outcome.message.endswith(
        "step 2 (Match the Face ID prompt) needs a simulator: this driver can't match a Face ID / Touch ID prompt "
        "or send a push notification"
    )
    assert wda.phone.launches == []
