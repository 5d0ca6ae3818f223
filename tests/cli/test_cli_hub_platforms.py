"""Issue 41's done-when: `mobster test --appium URL` against the fake hub of two iPhones and two Android phones.

The suite (two plain checks, the demo's before they shared a flow) runs on all four phones (the
hub's URL named once per platform, each with its caps file, ``--sessions 2``): each check once on
each platform, a path per platform, and a second run replays on both at $0. The Android phones are
each an Appium server of their own behind the hub (``_appium_hub.appium_node``): the fake Appium's
Android sessions (``mobster_drivers/testing/_appium_android.py``) driven by the Appium device's
UiAutomator2 sessions.
"""

from __future__ import annotations

import json
from pathlib import Path

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.appium import FakeAppium
from tests.real_clock import mobster
from tests.samples import PAYWALL, SIGNUP

ANDROID = {"platformName": "Android", "appium:automationName": "UiAutomator2"}


def test_a_suite_on_a_hub_of_two_iphones_and_two_android_phones_runs_on_all_four_and_replays_at_no_cost(
    project: Path,
) -> None:
    for name, text in {"signup.yaml": SIGNUP, "paywall.yaml": PAYWALL}.items():
        (project / ".mobster" / "checks" / name).write_text(text)
    with FakeAppium(
        sample_path("yourapp"), lifetime=240, devices=2, android_devices=2, android_app=sample_path("yourapp-android")
    ) as hub:
        # One URL named once per platform, each with its caps file: two sessions of each.
        (project / "ios.json").write_text("{}")
        (project / "android.json").write_text(json.dumps(ANDROID))
        ios, android = ("--appium", hub.url, "--caps", "ios.json"), ("--appium", hub.url, "--caps", "android.json")
        pool = [*ios, *android, "--sessions", "2"]
        first = mobster("test", *pool, "--model", "scripted", "--json")
        assert first.exit_code == 0, first.output
        checks = json.loads(first.stdout)["checks"]
        assert sorted((c["name"], c["platform"]) for c in checks) == sorted(
            (name, platform)
            for name in ("A new user signs up", "Settings offers Pro")
            for platform in ("ios", "android")
        )
        assert all(c["mode"] == "smart" for c in checks)
        stored = (project / ".mobster" / "cache" / "replay").glob("*.json")
        assert sorted(json.loads(p.read_text())["env"].get("platform", "ios") for p in stored) == [
            "android",
            "android",
            "ios",
            "ios",
        ]  # each check's path per platform
        again = mobster("test", *pool, "--json")
        assert again.exit_code == 0, again.output
        replayed = json.loads(again.stdout)["checks"]
        assert len(replayed) == 4
        assert all((c["mode"], c["model_calls"], c["cost_usd"]) == ("replay", 0, 0.0) for c in replayed)
        assert {c["platform"] for c in replayed} == {"ios", "android"}
