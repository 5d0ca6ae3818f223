"""The Appium device's device settings, video and audit, through the fake Appium in front of the fake WDA."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import DeviceError, FailureClass, Verdict
from mobster_core.checks import load_check_text
from mobster_core.results import VideoMode
from mobster_drivers.devices.appium import AppiumCaps, AppiumDevice, appium_device
from mobster_drivers.devices.appium._caps import Provider
from mobster_drivers.devices.appium._controls import video_link
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing._appium_mobile import VIDEO_BYTES
from mobster_drivers.testing.appium import FakeAppium
from mobster_report import HtmlReport
from tests.core.run.test_audit import AUDIT_CHECK, AUDITED_APP
from tests.real_clock import QUICK_POLICY

APP = "com.example.yourapp"
#: A simulator's session says its iOS version in its capabilities (no lockdown to ask).
CAPS = AppiumCaps.from_mapping({"appium:platformVersion": "26.4"})
CHECK = """\
version: 1
name: Welcome in the dark
app: {bundle: com.example.yourapp}
device: {location: [52.52, 13.405], appearance: dark, biometrics: {enrolled: true}}
expect:
  - text: Welcome
"""


def _script(kind: str = "simulator", text: str | None = None) -> AppScript:
    source = text if text is not None else sample_path("yourapp").read_text("utf-8")
    return AppScript.from_text(source.replace("kind: simulator", f"kind: {kind}"), "app.yaml")


def _run(fake: FakeAppium, root: Path, check: str, **options: object) -> mc.CheckResult:
    loaded = load_check_text(check, str(root / ".mobster" / "checks" / "check.yaml"))
    clock = mc.SystemClock()
    run = mc.RunOptions(root=root, policy=QUICK_POLICY, **options)  # type: ignore[arg-type]
    device: AppiumDevice = appium_device(fake.url, CAPS, clock, bundle=APP)
    try:
        return asyncio.run(mc.run_check(loaded, device, clock, options=run))
    finally:
        device.close()


def _sent(fake: FakeAppium) -> list[str]:
    return [r.command for r in fake.requests if r.command.startswith("mobile: ")]


def test_device_settings_are_xcuitests_mobile_commands_on_a_simulator(tmp_path: Path) -> None:
    with FakeAppium(_script(), lifetime=60) as fake:
        result = _run(fake, tmp_path, CHECK)
        assert result.verdict is Verdict.PASSED, result.outcome.message
        assert fake.controls == [("setAppearance", {"style": "dark"}), ("enrollBiometric", {"isEnabled": True})]
        sent = _sent(fake)
        assert (
            sent.index("mobile: setSimulatedLocation")
            < sent.index("mobile: setAppearance")
            < sent.index("mobile: launchApp")
        )
        wda_routes = [(r.method, r.route) for r in fake.wda.requests]
        assert ("POST", "/wda/simulatedLocation") in wda_routes


def test_an_iphone_session_refuses_device_settings_before_anything_is_sent(tmp_path: Path) -> None:
    with FakeAppium(_script("iphone"), lifetime=60) as fake:
        result = _run(fake, tmp_path, CHECK)
        assert result.verdict is Verdict.COULDNT_RUN
        assert result.outcome.failure_class is FailureClass.ENVIRONMENT
        assert "is not on a simulator" in result.outcome.message
        assert "mobile: setAppearance" not in _sent(fake)
        assert "mobile: launchApp" not in _sent(fake)


def test_content_size_is_refused_on_appium(tmp_path: Path) -> None:
    with FakeAppium(_script(), lifetime=60) as fake:
        result = _run(fake, tmp_path, CHECK.replace("appearance: dark", "content_size: large"))
        assert result.verdict is Verdict.COULDNT_RUN
        assert result.outcome.failure_class is FailureClass.ENVIRONMENT
        assert "no content-size command" in result.outcome.message


def test_video_retain_on_failure_keeps_a_failed_checks_video_linked_from_its_report(tmp_path: Path) -> None:
    failing = CHECK.replace("text: Welcome", "text: Nowhere to be seen")
    with FakeAppium(_script(), lifetime=60) as fake:
        result = _run(fake, tmp_path, failing, video=VideoMode.RETAIN_ON_FAILURE, reporter=HtmlReport())
        assert result.verdict is Verdict.FAILED
        assert result.video == "video.mp4"
        folder = tmp_path / result.run_dir
        assert (folder / "video.mp4").read_bytes() == VIDEO_BYTES
        assert stat.S_IMODE((folder / "video.mp4").stat().st_mode) == 0o600
        assert '<a href="video.mp4">video.mp4</a>' in (folder / "report.html").read_text("utf-8")
        sent = _sent(fake)
        assert "mobile: startXCTestScreenRecording" in sent
        assert "mobile: stopXCTestScreenRecording" in sent


def test_video_retain_on_failure_keeps_none_of_a_pass(tmp_path: Path) -> None:
    with FakeAppium(_script(), lifetime=60) as fake:
        result = _run(fake, tmp_path, CHECK, video="retain-on-failure", reporter=HtmlReport())
        assert result.verdict is Verdict.PASSED
        assert result.video is None
        folder = tmp_path / result.run_dir
        assert not (folder / "video.mp4").exists()
        assert "video.mp4" not in (folder / "report.html").read_text("utf-8")


def test_the_audit_through_appium_names_the_low_contrast_label(tmp_path: Path) -> None:
    with FakeAppium(_script(text=AUDITED_APP), lifetime=60) as fake:
        result = _run(fake, tmp_path, AUDIT_CHECK)
        assert result.verdict is Verdict.FAILED
        assert 'contrast on StaticText "Forgot password?" (id=forgot)' in result.assertions[1].observed
        assert "mobile: performAccessibilityAudit" in _sent(fake)


def test_push_and_biometric_match_need_a_simulator_session(tmp_path: Path) -> None:
    with FakeAppium(_script("iphone"), lifetime=60) as fake:
        device = appium_device(fake.url, CAPS, mc.SystemClock(), bundle=APP)
        try:
            asyncio.run(device.info())
            with pytest.raises(DeviceError, match="needs a simulator"):
                asyncio.run(device.biometric_match(match=True))
            with pytest.raises(DeviceError, match="needs a simulator"):
                asyncio.run(device.push_notification(APP, {"aps": {"alert": "Hi"}}))
        finally:
            device.close()
    with FakeAppium(_script(), lifetime=60) as fake:
        device = appium_device(fake.url, CAPS, mc.SystemClock(), bundle=APP)
        try:
            asyncio.run(device.info())
            asyncio.run(device.biometric_match(match=False))
            asyncio.run(device.push_notification(APP, {"aps": {"alert": "Hi"}}))
        finally:
            device.close()
        assert fake.controls == [
            ("sendBiometricMatch", {"type": "faceId", "match": False}),
            ("pushNotification", {"bundleId": APP, "payload": {"aps": {"alert": "Hi"}}}),
        ]


def test_a_clouds_video_is_a_link_to_its_session_page() -> None:
    sauce = video_link(Provider.SAUCE, "https://ondemand.eu-central-1.saucelabs.com/wd/hub", "abc-123")
    assert sauce == "https://app.eu-central-1.saucelabs.com/tests/abc-123"
    assert video_link(Provider.SAUCE, "https://ondemand.us-west-1.saucelabs.com", "s1") == (
        "https://app.saucelabs.com/tests/s1"
    )
    assert video_link(Provider.BROWSERSTACK, "https://hub.browserstack.com/wd/hub", "f00") == (
        "https://app-automate.browserstack.com/dashboard/v2/sessions/f00"
    )
    assert video_link(Provider.LAMBDATEST, "https://mobile-hub.lambdatest.com", "x") is None
    assert video_link(Provider.SAUCE, "https://ondemand.saucelabs.com", "../../evil") is None
