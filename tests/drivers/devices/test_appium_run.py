"""A check records, replays and heals through the Appium device, driven by ``run_check``.

The real Appium-Python-Client talks to the fake Appium server, which drives a scripted phone
behind its fake WDA; the model is the scripted one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import mobster_core as mc
from mobster_core.checks import load_check_text
from mobster_drivers.devices.appium import AppiumCaps, AppiumDevice, appium_device
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.appium import FakeAppium
from tests.real_clock import QUICK_POLICY
from tests.samples import SIGNUP

#: What reaches the phone: one command per action, never a second one.
ACTIONS = ("mobile: tap", "mobile: touchAndHold", "mobile: dragFromToForDuration", "POST /element/{id}/value")


def _script(name: str) -> AppScript:
    text = sample_path(name).read_text("utf-8").replace("kind: simulator", "kind: iphone")
    return AppScript.from_text(text, f"{name}.yaml")


def _run(fake: FakeAppium, root: Path, *, model: ScriptedModel | None) -> mc.CheckResult:
    check = load_check_text(SIGNUP, str(root / ".mobster" / "checks" / "signup.yaml"))
    clock = mc.SystemClock()
    options = mc.RunOptions(root=root, policy=QUICK_POLICY)  # real sockets: the real clock, short polls
    device: AppiumDevice = appium_device(fake.url, AppiumCaps(), clock, bundle="com.example.yourapp")
    try:
        return asyncio.run(mc.run_check(check, device, clock, model=model, options=options))
    finally:
        device.close()


def test_record_replay_and_heal_through_appium(tmp_path: Path) -> None:
    with FakeAppium(_script("yourapp"), lifetime=60) as fake:
        first = _run(fake, tmp_path, model=ScriptedModel())
        assert first.verdict is mc.Verdict.PASSED, first.outcome
        assert first.mode == "smart"
        assert first.device is not None
        assert (first.device.name, first.device.ios, first.device.kind) == (
            "Scripted iPhone",
            "26.4",
            mc.DeviceKind.IPHONE,
        )
        assert first.app == mc.AppInfo("com.example.yourapp", "1.0", "1")  # from mobile: listApps

        before = len(fake.requests)
        second = _run(fake, tmp_path, model=None)
        assert second.verdict is mc.Verdict.PASSED, second.outcome
        assert (second.mode, second.path_used, second.model_calls) == ("replay", True, 0)
        assert [s.source.value for s in second.steps] == ["replay", "replay", "replay"]
        sent = [r.command for r in fake.requests[before:] if r.command in ACTIONS]
        assert sent == ["mobile: tap", "mobile: tap", "POST /element/{id}/value", "mobile: tap"]  # each once

    with FakeAppium(_script("yourapp-renamed"), lifetime=60) as renamed:
        strict = _run(renamed, tmp_path, model=None)  # no model: the changed step fails, no heal
        assert (strict.verdict, strict.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
        healed = _run(renamed, tmp_path, model=ScriptedModel())
        assert healed.verdict is mc.Verdict.PASSED, healed.outcome
        assert [(h.step, h.to) for h in healed.heals] == [(3, 'Tap "Next"')]
        assert renamed.wda.phone.screen_name("com.example.yourapp") == "done"
