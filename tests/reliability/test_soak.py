"""Soak: 200 consecutive replays of the sample suite on the zero-latency scripted phone, with
faults injected at random. Every cached path still validates afterwards, no temporary file is
left, and the verdicts match the injected faults exactly."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.vocabulary.steps import dump_path
from mobster_core._store.cache import ReplayCache
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.samples import SIGNUP_BY_BUNDLE

# fault -> the class the run must end with (None: it passes)
FAULTS: dict[str, mc.FailureClass | None] = {
    "none": None,
    "lost_action": mc.FailureClass.UNKNOWN_OUTCOME,
    "one_bad_read": None,
    "reads_keep_failing": mc.FailureClass.UNKNOWN_OUTCOME,
    "dropped_typing": mc.FailureClass.UNKNOWN_OUTCOME,
    "crash": mc.FailureClass.APP_NOT_RUNNING,
}


def inject(phone: ScriptedPhone, fault: str) -> None:
    match fault:
        case "lost_action":
            phone.fail_next_action(applied=True)
        case "one_bad_read":
            phone.fail_next_read(1)
        case "reads_keep_failing":
            phone.fail_next_read(6)
        case "dropped_typing":
            phone.drop_typing()
        case "crash":
            phone.crash()


class AfterFirstAction:
    """The phone, with a fault injected right after the first action of the run."""

    def __init__(self, phone: ScriptedPhone, fault: str) -> None:
        self.phone = phone
        self.fault = fault

    async def info(self) -> mc.DeviceInfo:
        return await self.phone.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.phone.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        await self.phone.launch(bundle, options)

    async def read(self) -> mc.Screen:
        return await self.phone.read()

    async def act(self, action: mc.Action) -> None:
        await self.phone.act(action)
        if len(self.phone.actions) == 1:
            inject(self.phone, self.fault)


@pytest.mark.slow
def test_two_hundred_replays_with_random_faults(tmp_path: Path) -> None:
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    check = mc.load_check(checks / "signup.yaml")
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    first = clock.run(mc.run_check(check, phone, clock, model=ScriptedModel(), options=mc.RunOptions(root=tmp_path)))
    assert first.verdict is mc.Verdict.PASSED

    rnd = random.Random(20261130)
    injected: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for _ in range(200):
        fault = rnd.choice(list(FAULTS))
        injected[fault] += 1
        clock = FakeClock()
        device: Any = AfterFirstAction(ScriptedPhone.from_file(sample_path("yourapp"), clock=clock), fault)
        result = clock.run(mc.run_check(check, device, clock, options=mc.RunOptions(root=tmp_path)))
        expected = FAULTS[fault]
        got = result.outcome.failure_class
        assert got == expected, (fault, result.outcome)
        assert result.model_calls == 0
        assert len(device.phone.actions) <= 3  # never re-sent
        seen[fault] += 1
    assert seen == injected

    cache = ReplayCache(tmp_path)
    stored = list((tmp_path / ".mobster" / "cache" / "replay").glob("*.json"))
    assert len(stored) == 1
    for entry in cache.envs(first.identity or ""):
        lookup = cache.lookup(first.identity or "", entry.env)
        assert lookup.steps is not None
        mc.load_path(dump_path(lookup.steps))
    assert not list((tmp_path / ".mobster").rglob(".tmp-*"))
    runs = list((tmp_path / ".mobster" / "runs").glob("*/result.json"))
    assert len(runs) == 201
