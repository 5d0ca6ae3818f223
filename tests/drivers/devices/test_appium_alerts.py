"""A first-launch location prompt and the keyboard through the Appium device (fake Appium, its fake WDA)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import mobster_core as mc
from mobster_core.checks import load_check_text
from mobster_drivers.devices.appium import AppiumCaps, appium_device
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.appium import FakeAppium
from tests.real_clock import QUICK_POLICY
from tests.samples import SIGNUP_PAST_THE_KEYBOARD

CHECK = SIGNUP_PAST_THE_KEYBOARD.replace("reset: data\n", "reset: none\nalerts: {allow: [location]}\n")


def test_an_allowed_prompt_and_the_keyboard_through_appium(tmp_path: Path) -> None:
    text = sample_path("yourapp-location").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    with FakeAppium(AppScript.from_text(text, "yourapp-location.yaml"), lifetime=60) as fake:
        check = load_check_text(CHECK, str(tmp_path / ".mobster" / "checks" / "signup.yaml"))
        clock = mc.SystemClock()
        device = appium_device(fake.url, AppiumCaps(), clock, bundle="com.example.yourapp")
        options = mc.RunOptions(root=tmp_path, policy=QUICK_POLICY)
        try:
            result = asyncio.run(mc.run_check(check, device, clock, model=ScriptedModel(), options=options))
        finally:
            device.close()
        assert result.verdict is mc.Verdict.PASSED, result.outcome
        assert fake.wda.phone.alert_answers == ["Allow While Using App"]
        commands = [r.command for r in fake.requests if r.command in ("mobile: alert", "mobile: hideKeyboard")]
        assert commands == ["mobile: alert", "mobile: hideKeyboard"]
