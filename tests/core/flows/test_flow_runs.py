"""Flows on the scripted phone: a segment recorded once, replayed by every check, healed once (issue 39)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core import RunOptions, heals, load_check, run_check
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.flows.apps import SECRETS, own_check, shop, shop_project


def run(file: Path, app: str, *, model: bool = True, **options: Any) -> tuple[mc.CheckResult, ScriptedPhone]:
    return run_instance(load_check(file), app, model=model, **options)


def run_instance(
    check: mc.Check, app: str, *, model: bool = True, **options: Any
) -> tuple[mc.CheckResult, ScriptedPhone]:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock)
    scripted = ScriptedModel(clock=clock) if model else None
    root = check.file.parent.parent.parent
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


def test_a_renamed_button_in_the_login_heals_once_into_the_flow_s_heal_file_for_every_check(tmp_path: Path) -> None:
    files = shop_project(
        tmp_path,
        {"settings": own_check("Save settings", "Settings", "Settings saved"),
         "orders": own_check("Refresh orders", "Orders", "Orders refreshed")},
    )  # fmt: skip
    for file in files.values():
        assert run(file, shop())[0].verdict is mc.Verdict.PASSED
    healed, _ = run(files["settings"], shop("Log in"))
    assert (healed.verdict, healed.model_calls) == (mc.Verdict.PASSED, 1), healed.outcome.message
    flow_heals = tmp_path / ".mobster" / "flows" / "login.heal.yaml"
    assert flow_heals.is_file()
    assert not (tmp_path / ".mobster" / "checks" / "settings.heal.yaml").exists()
    text = flow_heals.read_text()
    assert "step: 3" in text
    assert 'to: Tap "Log in"' in text
    # The other check replays the healed segment: no model, no second heal, no second entry.
    other, _ = run(files["orders"], shop("Log in"), model=False, no_heal=True)
    assert (other.verdict, other.model_calls, other.heals) == (mc.Verdict.PASSED, 0, ())
    assert flow_heals.read_text() == text


def heal_the_login(tmp_path: Path) -> dict[str, Path]:
    files = shop_project(
        tmp_path,
        {"settings": own_check("Save settings", "Settings", "Settings saved"),
         "orders": own_check("Refresh orders", "Orders", "Orders refreshed")},
    )  # fmt: skip
    for file in files.values():
        assert run(file, shop())[0].verdict is mc.Verdict.PASSED
    assert run(files["settings"], shop("Log in"))[0].heals
    return files


def test_accepting_the_flow_s_heal_makes_it_every_check_s_recorded_segment(tmp_path: Path) -> None:
    files = heal_the_login(tmp_path)
    flow = tmp_path / ".mobster" / "flows" / "login.yaml"
    assert heals.accept_flow_heals(flow, tmp_path) == 1
    assert not (tmp_path / ".mobster" / "flows" / "login.heal.yaml").exists()
    for file in files.values():
        again, _ = run(file, shop("Log in"), model=False, no_heal=True)
        assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)


def test_rejecting_the_flow_s_heal_makes_every_check_that_uses_it_keep_failing(tmp_path: Path) -> None:
    files = heal_the_login(tmp_path)
    flow = tmp_path / ".mobster" / "flows" / "login.yaml"
    assert heals.reject_flow_heals(flow, tmp_path) == 1
    for file in files.values():
        again, _ = run(file, shop("Log in"))
        assert (again.verdict, again.outcome.failure_class, again.model_calls) == (
            mc.Verdict.FAILED, mc.FailureClass.DRIFT, 0,
        ), again.outcome.message  # fmt: skip
        assert again.outcome.step == 3


def test_a_flow_s_steps_carry_their_breadcrumbs_into_the_results_json_and_junit(tmp_path: Path) -> None:
    from mobster_core._results.documents import read_check
    from mobster_core._results.junit import _step_line

    files = shop_project(tmp_path, {"settings": own_check("Save settings", "Settings", "Settings saved")})
    result, _ = run(files["settings"], shop())
    data = result.to_dict()
    crumbs = [(s.get("flow"), s.get("flow_step")) for s in data["steps"]]
    assert crumbs == [("login", 1), ("login", 2), ("login", 3), (None, None), (None, None)]
    assert "flow" not in data["steps"][3]  # a check's own step reads as before
    assert [s.crumb for s in read_check(data)["steps"]][2] == 'login \u203a step 3 (Tap "Sign in")'
    assert _step_line(result.steps[2]).startswith("step 3 (login \u203a step 3) Smart: Tap")
    # An older results.json (no flow keys) reads as it did.
    old = {**data, "steps": [{k: v for k, v in s.items() if k not in ("flow", "flow_step")} for s in data["steps"]]}
    assert [s.flow for s in read_check(old)["steps"]] == [None] * 5


def test_what_a_flow_expects_is_judged_where_it_ends_naming_the_flow(tmp_path: Path) -> None:
    from tests.core.flows.apps import LOGIN

    expecting = LOGIN + "expect:\n  - text: Welcome back\n"
    files = shop_project(tmp_path, {"orders": own_check("Refresh orders", "Orders", "Orders refreshed")},
                         {"login": expecting})  # fmt: skip
    recorded, _ = run(files["orders"], shop())
    assert recorded.verdict is mc.Verdict.PASSED, recorded.outcome.message
    assert run(files["orders"], shop(), model=False)[0].verdict is mc.Verdict.PASSED
    # The flow now expects what its end doesn't show: the replay fails there, before the check's own steps.
    (tmp_path / ".mobster" / "flows" / "login.yaml").write_text(LOGIN + "expect:\n  - text: Welcome home\n")
    failed, phone = run(files["orders"], shop(), model=False)
    assert (failed.verdict, failed.outcome.failure_class, failed.outcome.step) == (
        mc.Verdict.FAILED, mc.FailureClass.ASSERTION, 3,
    )  # fmt: skip
    assert failed.outcome.message.startswith("the flow login ended (step 3), and what it expects doesn't hold: ")
    assert phone.screen_name("com.example.shop") == "start"  # nothing after the flow ran
    # Recording, too: Smart stops where the flow ends.
    fresh, _ = run(files["orders"], shop(), fresh=True)
    assert (fresh.verdict, fresh.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.ASSERTION)
