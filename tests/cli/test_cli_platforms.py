"""A pool of an iPhone and an Android phone: `mobster test --wda URL --android SERIAL`, and `--platform`.

The iPhone is the fake WDA, the Android phone the fake UiAutomator2 server behind the fake adb (on
``ANDROID_HOME``), on the real clock: each check runs once on each platform, keeps a path per
platform, and replays on both at $0.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.adb import FakeAdb
from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2
from mobster_drivers.testing.wda import FakeWda
from tests.real_clock import mobster
from tests.samples import SIGNUP


@pytest.fixture
def project(project: Path, private_locks: Path) -> Path:
    """The sign-up check, and locks of the test's own."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    return project


@pytest.fixture
def phones(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An iPhone's WDA (its URL) and an Android emulator behind adb."""
    with (
        FakeWda(sample_path("yourapp"), lifetime=120) as wda,
        FakeUiAutomator2(sample_path("yourapp-android"), lifetime=120) as server,
        FakeAdb([server], lifetime=120) as adb,
    ):
        monkeypatch.setenv("ANDROID_HOME", str(adb.android_home))
        monkeypatch.delenv("ANDROID_SDK_ROOT", raising=False)
        yield wda.url


def _checks(output: str) -> list[dict[str, object]]:
    checks: list[dict[str, object]] = json.loads(output)["checks"]
    return checks


def test_a_pool_of_an_iphone_and_an_android_phone_runs_each_check_on_both_and_replays_at_no_cost(
    project: Path, phones: str
) -> None:
    pool = ("--wda", phones, "--android", "emulator-5554")
    first = mobster("test", *pool, "--model", "scripted", "--json")
    assert first.exit_code == 0, first.output
    assert [(c["platform"], c["mode"]) for c in _checks(first.stdout)] == [("ios", "smart"), ("android", "smart")]
    again = mobster("test", *pool, "--json")
    assert again.exit_code == 0, again.output
    checks = _checks(again.stdout)
    assert [(c["platform"], c["mode"], c["model_calls"], c["cost_usd"]) for c in checks] == [
        ("ios", "replay", 0, 0.0),
        ("android", "replay", 0, 0.0),
    ]
    envs = {
        json.loads(p.read_text())["env"].get("platform", "ios")
        for p in (project / ".mobster/cache/replay").glob("*.json")
    }
    assert envs == {"ios", "android"}  # a path per platform
    page = next((project / ".mobster" / "test-results").glob("*/index.html")).read_text()
    assert ">iOS</th>" in page
    assert ">Android</th>" in page


def test_platform_selects_one_platform_of_the_pool_and_a_pool_without_it_is_a_usage_problem(
    project: Path, phones: str
) -> None:
    pool = ("--wda", phones, "--android", "emulator-5554")
    only = mobster("test", *pool, "--model", "scripted", "--platform", "android", "--json")
    assert only.exit_code == 0, only.output
    assert [c["platform"] for c in _checks(only.stdout)] == ["android"]
    (project / "mobster.toml").write_text('platform = "ios"\n')
    configured = mobster("test", *pool, "--model", "scripted", "--json")
    assert [c["platform"] for c in _checks(configured.stdout)] == ["ios"]
    lacking = mobster("test", "--android", "emulator-5554", "--json")  # the config's ios, and only Android
    assert lacking.exit_code == 3
    check = _checks(lacking.stdout)[0]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "usage")
    assert check["message"] == (
        "no device of the pool runs iOS, the platform this run selects: the pool holds Android devices"
    )


def test_an_android_pool_beside_two_kinds_of_ios_device_is_refused_saying_what_mixes(project: Path) -> None:
    result = mobster("test", "--sim", "iPhone 17", "--wda", "http://127.0.0.1:1", "--android", "x")
    assert result.exit_code == 3
    assert "a pool holds devices of one kind, or Android devices (--android) beside one kind of iOS device" in (
        result.output
    )
