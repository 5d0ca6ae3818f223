"""The simulator's device controls and video through the fake ``xcrun simctl``: the real tool's arguments."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import DeviceError, FailureClass, Verdict
from mobster_core.checks import load_check_text
from mobster_core.exceptions import CheckError
from mobster_core.protocols import Appearance, DeviceControls, DeviceSettings, Recordings
from mobster_core.results import VideoMode
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.devices.simulator import MAX_PUSH_BYTES, SimulatorDevice
from mobster_drivers.testing.wda import FakeWda
from mobster_drivers.testing.xcrun import VIDEO_HEAD, VIDEO_TAIL, FakeSimctl
from tests.real_clock import QUICK_POLICY

APP = "com.example.yourapp"
PRO = "5A1F0C2E-9B7D-4E3A-A6F1-2D8C0B4E7F13"

CHECK = """\
version: 1
name: Welcome in the dark
app: {bundle: com.example.yourapp}
device:
  name: iPhone 17 Pro
  location: [52.52, 13.405]
  appearance: dark
  content_size: accessibility-extra-large
  biometrics: {enrolled: true}
expect:
  - text: Welcome
"""


def _device(simctl: FakeSimctl, wda: FakeWda) -> SimulatorDevice:
    return SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)


def _run(tmp_path: Path, device: SimulatorDevice, check: str, **options: object) -> mc.CheckResult:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "check.yaml").write_text(check)
    run = mc.RunOptions(root=tmp_path, policy=QUICK_POLICY, **options)  # type: ignore[arg-type]
    clock = mc.SystemClock()
    return asyncio.run(mc.run_check(mc.load_check(folder / "check.yaml"), device, clock, options=run))


def test_device_settings_reach_simctl_with_its_own_arguments(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    device = _device(simctl, wda)
    assert isinstance(device, DeviceControls)
    result = _run(tmp_path, device, CHECK)
    assert result.verdict is Verdict.PASSED, result.outcome.message
    sent = [c.args for c in simctl.calls if c.command in ("location", "ui", "spawn")]
    assert sent == [
        ("location", PRO, "set", "52.520000,13.405000"),
        ("ui", PRO, "appearance", "dark"),
        ("ui", PRO, "content_size", "accessibility-extra-large"),
        (
            "spawn", PRO, "notifyutil",
            "-s", "com.apple.BiometricKit.enrollmentChanged", "1", "-p", "com.apple.BiometricKit.enrollmentChanged",
        ),
    ]  # fmt: skip
    controls = simctl.controls_of(PRO)
    assert (controls.location, controls.appearance, controls.content_size, controls.enrolled) == (
        (52.52, 13.405),
        "dark",
        "accessibility-extra-large",
        True,
    )
    first_launch = next(i for i, c in enumerate(simctl.calls) if c.command == "launch")
    assert max(i for i, c in enumerate(simctl.calls) if c.command in ("location", "ui")) < first_launch


def test_a_setting_simctl_refuses_is_the_device_s_failure(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    simctl.fail_next("ui", code=64, stderr="Invalid value for appearance\n")
    result = _run(tmp_path, _device(simctl, wda), CHECK)
    assert result.verdict is Verdict.COULDNT_RUN
    assert result.outcome.failure_class is FailureClass.DEVICE
    assert "simctl ui failed (exit 64): Invalid value for appearance" in result.outcome.message
    assert not simctl.calls_of("launch")


def test_a_match_and_a_failed_match_post_biometrickits_notifications(simctl: FakeSimctl, wda: FakeWda) -> None:
    device = _device(simctl, wda)
    asyncio.run(device.biometric_match(match=True))
    asyncio.run(device.biometric_match(match=False, sensor="touchId"))
    assert [c.args[2:] for c in simctl.calls_of("spawn")] == [
        ("notifyutil", "-p", "com.apple.BiometricKit_Sim.pearl.match"),
        ("notifyutil", "-p", "com.apple.BiometricKit_Sim.fingerTouch.nomatch"),
    ]
    assert simctl.controls_of(PRO).matches == [("pearl", True), ("fingerTouch", False)]


def test_a_push_goes_to_simctl_push_from_a_private_copy(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    payload = tmp_path / "payload.json"
    payload.write_text('{"aps": {"alert": "Your order shipped"}}')
    asyncio.run(_device(simctl, wda).push_notification(APP, payload))
    [call] = simctl.calls_of("push")
    assert call.args[:3] == ("push", PRO, APP)
    assert simctl.controls_of(PRO).pushes == [(APP, {"aps": {"alert": "Your order shipped"}})]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[1, 2]", 'a JSON object with an "aps" object'),
        ('{"alert": "no aps"}', 'a JSON object with an "aps" object'),
        ("{not json", "a push payload is JSON"),
        ("x" * (10 * 1024 * 1024), "give a JSON file of at most 4 KB"),
    ],
)
def test_a_bad_push_payload_is_refused_before_simctl(
    tmp_path: Path, simctl: FakeSimctl, wda: FakeWda, content: str, problem: str
) -> None:
    payload = tmp_path / "payload.json"
    payload.write_text(content)
    with pytest.raises(DeviceError, match="payload") as caught:
        asyncio.run(_device(simctl, wda).push_notification(APP, payload))
    assert problem in str(caught.value)
    assert not simctl.calls_of("push")
    assert MAX_PUSH_BYTES == 4096


def test_a_fifo_push_payload_is_refused_without_blocking(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    fifo = tmp_path / "payload.json"
    os.mkfifo(fifo)
    with pytest.raises(DeviceError, match="not a regular file"):
        asyncio.run(_device(simctl, wda).push_notification(APP, fifo))


def test_recordvideo_is_finalized_by_sigint_and_kept_private(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    device = _device(simctl, wda)
    assert isinstance(device, Recordings)
    target = tmp_path / "video.mp4"
    asyncio.run(device.start_recording(target))
    [started] = simctl.recordings
    assert started.file.name == ".video.partial.mp4"
    assert started.file.read_bytes() == VIDEO_HEAD  # not playable until interrupted
    assert not target.exists()
    recording = asyncio.run(device.stop_recording())
    assert recording.file == str(target)
    assert target.read_bytes() == VIDEO_HEAD + VIDEO_TAIL
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert not started.file.exists()
    call = next(c for c in simctl.calls if c.args[:1] == ("io",))
    assert call.args == ("io", PRO, "recordVideo", "--codec=h264", "--force", str(started.file))


def test_video_retain_on_failure_keeps_a_failed_checks_video(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    failing = CHECK.replace("text: Welcome", "text: Nowhere to be seen")
    result = _run(tmp_path, _device(simctl, wda), failing, video=VideoMode.RETAIN_ON_FAILURE)
    assert result.verdict is Verdict.FAILED
    assert result.video == "video.mp4"
    video = tmp_path / result.run_dir / "video.mp4"
    assert video.read_bytes().endswith(VIDEO_TAIL)
    assert result.to_dict()["video"] == "video.mp4"


def test_video_retain_on_failure_deletes_a_passing_checks_video(
    tmp_path: Path, simctl: FakeSimctl, wda: FakeWda
) -> None:
    result = _run(tmp_path, _device(simctl, wda), CHECK, video="retain-on-failure")
    assert result.verdict is Verdict.PASSED
    assert result.video is None
    assert simctl.recordings  # it was recorded, then deleted
    assert not list((tmp_path / result.run_dir).glob("*.mp4"))


def test_a_recording_that_cant_start_is_no_outcome(tmp_path: Path, simctl: FakeSimctl, wda: FakeWda) -> None:
    simctl.fail_next("recordVideo", code=1, stderr="no display")
    result = _run(tmp_path, _device(simctl, wda), CHECK, video=VideoMode.ON)
    assert result.verdict is Verdict.PASSED
    assert result.video is None


def test_a_bad_device_block_is_refused_with_its_key(tmp_path: Path) -> None:
    for bad, problem in [
        ("content_size: huge", "device.content_size: unknown content size 'huge'"),
        ("content_size: larg", "(did you mean 'large'?)"),
        ("location: [91, 0]", "device.location[0]: a latitude is from -90 to 90 degrees, got 91"),
        ("location: [0, 180.5]", "device.location[1]: a longitude is from -180 to 180 degrees"),
        ("location: [1]", "expected [latitude, longitude], two numbers"),
        ('location: ["52", 13]', "expected [latitude, longitude], two numbers"),
        ("appearance: night", "device.appearance: expected light or dark"),
        ("biometrics: {enrolled: yes}", "device.biometrics.enrolled: expected true or false"),
        ("biometric: {enrolled: true}", "unknown key 'biometric' (did you mean 'biometrics'?)"),
    ]:
        text = f"app: {{bundle: {APP}}}\ndevice:\n  {bad}\n"
        with pytest.raises(CheckError) as caught:
            load_check_text(text, "bad.yaml")
        assert problem in str(caught.value), bad


def test_an_iphone_refuses_device_settings_before_anything_is_sent(tmp_path: Path) -> None:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True)
    (folder / "check.yaml").write_text(CHECK)
    clock = FakeClock()
    script = sample_path("yourapp").read_text().replace("kind: simulator", "kind: iphone")
    phone = ScriptedPhone.from_text(script, clock=clock)
    check = mc.load_check(folder / "check.yaml")
    result = clock.run(mc.run_check(check, phone, clock, options=mc.RunOptions(root=tmp_path)))
    assert result.verdict is Verdict.COULDNT_RUN
    assert result.outcome.failure_class is FailureClass.ENVIRONMENT
    assert "need a simulator" in result.outcome.message
    assert not phone.launches
    assert not phone.settings


def test_the_scripted_simulator_keeps_the_settings(tmp_path: Path) -> None:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True)
    (folder / "check.yaml").write_text(CHECK)
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    check = mc.load_check(folder / "check.yaml")
    result = clock.run(mc.run_check(check, phone, clock, options=mc.RunOptions(root=tmp_path)))
    assert result.verdict is Verdict.PASSED
    assert phone.settings == [
        DeviceSettings(
            location=(52.52, 13.405),
            appearance=Appearance.DARK,
            content_size="accessibility-extra-large",
            biometrics_enrolled=True,
        )
    ]
