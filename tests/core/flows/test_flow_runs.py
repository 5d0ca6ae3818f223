"""Flows on the scripted phone: a segment recorded once, replayed by every check, healed once (issue 39)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.flows.apps import SECRETS, own_check, shop, shop_project


def run(file: Path, app: str, *, model: bool = True, **options: Any) -> tuple[mc.CheckResult, ScriptedPhone]:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock)
    scripted = ScriptedModel(clock=clock) if model else None
    root = file.parent.parent.parent
    check = load_check(file)
    result = clock.run(
        run_check(check, phone, clock, model=scripted, options=RunOptions(root=root, secrets=SECRETS, **options))
    )
    return result, phone


def test_the_second_check_replays_the_login_another_check_recorded_at_no_cost(tmp_path: Path) -> None:
    files = shop_project(
        tmp_path,
        {"settings": own_check("Save settings", "Settings", "Settings saved"),
         "orders": own_check("Refresh orders", "Orders", "Orders refreshed")},
    )  # fmt: skip
    first, _ = run(files["settings"], shop())
    assert (first.verdict, first.mode, first.outcome.message) == (mc.Verdict.PASSED, "smart", "")
    assert first.model_calls == 7  # 3 login steps + done, 2 own steps + done
    second, _ = run(files["orders"], shop())
    assert (second.verdict, second.mode) == (mc.Verdict.PASSED, "smart")
    assert second.model_calls == 3  # the login replayed: only its own 2 steps + done
    assert [s.source.value for s in second.steps][:3] == ["replay"] * 3
    again, _ = run(files["orders"], shop(), model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)
