"""`mobster test --android [SERIAL]`, the config's ``android`` and the plugin's ``--mobster-android``.

Through the fake adb (on ``ANDROID_HOME``) and the fake UiAutomator2 server, on the real clock.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.adb import FakeAdb
from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2
from tests.real_clock import mobster
from tests.samples import SIGNUP


@pytest.fixture
def project(project: Path, private_locks: Path) -> Path:
    """The sign-up check, and locks of the test's own."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    return project


@pytest.fixture
def adb(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAdb]:
    with (
        FakeUiAutomator2(sample_path("yourapp-android"), lifetime=120) as server,
        FakeAdb([server], lifetime=120) as fake,
    ):
        monkeypatch.setenv("ANDROID_HOME", str(fake.android_home))
        monkeypatch.delenv("ANDROID_SDK_ROOT", raising=False)
        yield fake


def test_record_then_replay_on_an_android_device_by_its_serial_and_alone(project: Path, adb: FakeAdb) -> None:
    first = mobster("test", "--android", "emulator-5554", "--model", "scripted")
    assert first.exit_code == 0, first.output
    assert "✓ passed  A new user signs up  on Scripted Pixel, Android 14 (API 34)" in first.output
    second = mobster("test", "--android", "--json")  # no serial: the only device adb lists
    assert second.exit_code == 0, second.output
    check = json.loads(second.stdout)["checks"][0]
    assert (check["mode"], check["path"]["used"], check["model_calls"]) == ("replay", True, 0)
    assert check["device"] == {
        "name": "Scripted Pixel",
        "kind": "emulator",
        "ios": "34",
        "platform": "android",
        "release": "14",
    }
    assert check["app"] == {"bundle": "com.example.yourapp", "version": "1.0", "build": "1"}


def test_the_config_names_the_android_device(project: Path, adb: FakeAdb) -> None:
    (project / "mobster.toml").write_text('android = ["emulator-5554"]\nmodel = "scripted"\n')
    result = mobster("test")
    assert result.exit_code == 0, result.output
    assert "on Scripted Pixel, Android 14 (API 34)" in result.output


def test_an_android_device_that_isnt_attached_says_which_are(project: Path, adb: FakeAdb) -> None:
    result = mobster("test", "--android", "R58M123", "--model", "scripted")
    assert result.exit_code == 3, result.output
    assert "--android R58M123: the Android device R58M123 isn't attached (adb devices: emulator-5554)" in result.output


def test_android_and_another_device_option_are_one_kind_too_many(project: Path, adb: FakeAdb) -> None:
    result = mobster("test", "--android", "--scripted", str(sample_path("yourapp")))
    assert result.exit_code == 3, result.output
    assert "choose one device option, not --scripted and --android" in result.output
