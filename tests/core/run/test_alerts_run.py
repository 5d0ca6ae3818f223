"""System alerts and the keyboard, end to end on the scripted phone, the scripted model and the fake clock."""

from __future__ import annotations

import json
from pathlib import Path

import mobster_core as mc
from mobster_core._rules.alerts import AlertMode
from mobster_core.checks import AlertPolicy
from mobster_drivers.devices.scripted import sample_path
from tests.core.run.test_run import project, run

LOCATION_APP = sample_path("yourapp-location")

SIGNUP = """\
version: 1
name: Sign up
app: {bundle: com.example.yourapp}
reset: data
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Dismiss the keyboard
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
TITLE = "Allow “YourApp” to use your location?"


def test_a_first_launch_location_prompt_is_allowed_by_the_policy_and_the_replay_answers_it_at_no_cost(
    tmp_path: Path,
) -> None:
    check = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: {allow: [location]}\n"))
    first, phone, model = run(check, LOCATION_APP)
    assert first.outcome.failure_class is None, first.outcome.message
    assert first.verdict is mc.Verdict.PASSED
    assert phone.alert_answers == ["Allow While Using App"]
    assert model is not None
    assert model.calls == 5  # the model never saw the alert: a call per step, and "done"
    second, phone, _ = run(check, LOCATION_APP, model=False)
    assert (second.verdict, second.mode, second.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert phone.alert_answers == ["Allow While Using App"]
    assert [a.op for a in phone.actions].count(mc.Op.DISMISS_KEYBOARD) == 1


def test_the_default_policy_fails_naming_the_alert_and_never_asks_the_model(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP)
    result, phone, model = run(check, LOCATION_APP)
    assert result.verdict is mc.Verdict.FAILED
    assert result.outcome.failure_class is mc.FailureClass.DRIFT
    assert f"a system alert is in the way: “{TITLE}”" in result.outcome.message
    assert phone.alert_answers == []
    assert not [a for a in phone.actions if a.op is mc.Op.TAP]  # nothing tapped: no "Allow" by a model
    assert model is not None
    assert model.calls == 0


def test_a_deny_policy_taps_dont_allow_and_an_unnamed_service_is_refused(tmp_path: Path) -> None:
    denied = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: {deny: [location]}\n"))
    result, phone, _ = run(denied, LOCATION_APP)
    assert result.verdict is mc.Verdict.PASSED
    assert phone.alert_answers == ["Don’t Allow"]
    other = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: {allow: [camera]}\n"), "other.yaml")
    result, phone, _ = run(other, LOCATION_APP)
    assert result.outcome.failure_class is mc.FailureClass.DRIFT
    assert "it asks for location; alerts: {allow: [camera]} doesn't name it" in result.outcome.message
    assert phone.alert_answers == []


def test_the_run_options_policy_overrides_the_checks(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP)
    result, phone, _ = run(check, LOCATION_APP, alerts=AlertPolicy(AlertMode.ACCEPT))
    assert result.verdict is mc.Verdict.PASSED
    assert phone.alert_answers == ["Allow While Using App"]


NO_DISMISS = SIGNUP.replace("  - Dismiss the keyboard\n", "")


def test_a_target_under_the_keyboard_drifts_with_that_reason(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: accept\n"))
    first, _, _ = run(check, LOCATION_APP)
    assert first.verdict is mc.Verdict.PASSED
    # The recorded path without its DISMISS_KEYBOARD: Continue is under the keyboard when replayed.
    paths = list((tmp_path / ".mobster" / "cache" / "replay").glob("*.json"))
    edited = 0
    for file in paths:
        text = file.read_text()
        if '"DISMISS_KEYBOARD"' in text:
            data = json.loads(text)
            data["steps"] = [s for s in data["steps"] if s["op"] != "DISMISS_KEYBOARD"]
            file.write_text(json.dumps(data))
            edited += 1
    assert edited == 1
    result, phone, _ = run(check, LOCATION_APP, model=False, no_heal=True)
    assert result.outcome.failure_class is mc.FailureClass.DRIFT
    assert "the keyboard covers “Continue”" in result.outcome.message
    assert [a.op for a in phone.actions if a.op is mc.Op.TAP] == [mc.Op.TAP]  # Sign up only, never Continue


def test_the_model_is_told_a_target_is_under_the_keyboard(tmp_path: Path) -> None:
    check = project(tmp_path, NO_DISMISS.replace("reset: data\n", "reset: data\nalerts: accept\n"))
    result, phone, _ = run(check, LOCATION_APP)
    assert result.verdict is not mc.Verdict.PASSED
    assert phone.screen_name("com.example.yourapp") == "signup"  # Continue was never tapped
