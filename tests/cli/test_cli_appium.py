"""``mobster test --appium URL`` against the fake Appium with caps that name no device: the demo's checks.

The fake answers as real XCUITest does (``mobster_drivers/testing/_appium_caps.py`` Rule 4): the
session's capabilities carry the iOS version the phone has (lockdown's on an iPhone, the
simulator's own on a simulator) and its UDID, so a caps file that says nothing about the device is
enough, as it is with a local Appium and one phone (issue 37, item 9).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing.appium import FakeAppium
from tests.real_clock import mobster
from tests.samples import PAYWALL, SIGNUP

DEMO = {"signup.yaml": SIGNUP, "paywall.yaml": PAYWALL}


def phone(kind: str) -> AppScript:
    """The demo's app (iOS 26.4.1, so the version the server answers shows) on a simulator or an iPhone."""
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", f"kind: {kind}")
    return AppScript.from_text(text.replace('ios: "26.4"', 'ios: "26.4.1"'), "yourapp.yaml")


@pytest.mark.parametrize("kind", ["simulator", "iphone"])
@pytest.mark.parametrize("caps", ["{}", None], ids=["empty caps file", "no caps file"])
def test_caps_that_name_no_device_record_and_replay_the_demo(project: Path, kind: str, caps: str | None) -> None:
    for name, text in DEMO.items():
        (project / ".mobster" / "checks" / name).write_text(text)
    given: tuple[str, ...] = ()
    if caps is not None:
        (project / "caps.json").write_text(caps)
        given = ("--caps", str(project / "caps.json"))
    with FakeAppium(phone(kind), lifetime=120) as fake:
        first = mobster("test", "--appium", fake.url, *given, "--model", "scripted", "--json")
        assert first.exit_code == 0, first.output
        checks = json.loads(first.stdout)["checks"]
        assert [(c["verdict"], c["mode"]) for c in checks] == [("passed", "smart")] * 2
        # The server's answer (26.4.1 as MAJOR.MINOR), and the kind from WDA's own flag.
        assert {(c["device"]["ios"], c["device"]["kind"]) for c in checks} == {("26.4", kind)}
        second = mobster("test", "--appium", fake.url, *given, "--json")  # no model at all
        assert second.exit_code == 0, second.output
        replayed = json.loads(second.stdout)["checks"]
        assert [(c["verdict"], c["mode"], c["model_calls"]) for c in replayed] == [("passed", "replay", 0)] * 2
