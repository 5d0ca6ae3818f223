"""System alerts and the keyboard, end to end on the scripted phone, the scripted model and the fake clock."""

from __future__ import annotations

import json
from pathlib import Path

import mobster_core as mc
from mobster_core.checks import AlertMode, AlertPolicy
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.run.test_run import project, run
from tests.samples import LOCATION_TITLE as TITLE
from tests.samples import SIGNUP_PAST_THE_KEYBOARD

LOCATION_APP = sample_path("yourapp-location")

SIGNUP = SIGNUP_PAST_THE_KEYBOARD


IPHONE_APP = LOCATION_APP.read_text("utf-8").replace("kind: simulator", "kind: iphone")


def test_a_first_launch_location_prompt_is_allowed_by_the_policy_and_the_replay_answers_it_at_no_cost(
    tmp_path: Path,
) -> None:
    check = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: {allow: [location]}\n"))
    first, phone, model = run(check, IPHONE_APP)  # an iPhone can't grant before the launch: the prompt shows
    assert first.outcome.failure_class is None, first.outcome.message
    assert first.verdict is mc.Verdict.PASSED
    assert phone.alert_answers == ["Allow While Using App"]
    assert model is not None
    assert model.calls == 5  # the model never saw the alert: a call per step, and "done"
    second, phone, _ = run(check, IPHONE_APP, model=False)
    assert (second.verdict, second.mode, second.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert phone.alert_answers == ["Allow While Using App"]
    assert [a.op for a in phone.actions].count(mc.Op.DISMISS_KEYBOARD) == 1


def test_a_simulator_is_granted_the_allowed_services_before_the_launch(tmp_path: Path) -> None:
    check = project(
        tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: {allow: [location], deny: [camera]}\n")
    )
    result, phone, _ = run(check, LOCATION_APP)
    assert result.verdict is mc.Verdict.PASSED, result.outcome.message
    assert phone.alert_answers == []  # the prompt never showed
    assert [dict(o.permissions) for _, o in phone.launches] == [{"location": True, "camera": False}]
    journal = (tmp_path / result.run_dir / "journal.jsonl").read_text().splitlines()
    assert json.loads(journal[0])["permissions"] == {"location": True, "camera": False}


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
    result, phone, _ = run(denied, IPHONE_APP)
    assert result.verdict is mc.Verdict.PASSED
    assert phone.alert_answers == ["Don’t Allow"]
    other = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: {allow: [camera]}\n"), "other.yaml")
    result, phone, _ = run(other, LOCATION_APP)
    assert result.outcome.failure_class is mc.FailureClass.DRIFT
    assert "it asks for location; alerts: {allow: [camera]} doesn't name it" in result.outcome.message
    assert phone.alert_answers == []


def test_the_run_options_policy_overrides_the_checks(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP)
    result, phone, _ = run(check, IPHONE_APP, alerts=AlertPolicy(AlertMode.ACCEPT))
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


def _prompted(buttons: str, kind: str = "simulator") -> str:
    text = LOCATION_APP.read_text("utf-8").replace("kind: simulator", f"kind: {kind}")
    old = "        buttons: [Allow Once, Allow While Using App, Don’t Allow]\n"
    assert old in text
    return text.replace(old, f"        buttons: {buttons}\n")


def test_a_delete_button_under_accept_is_refused_on_an_iphone(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: accept\n"))
    result, phone, model = run(check, _prompted("[Cancel, Delete]", kind="iphone"))
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.REFUSED)
    assert "answering the alert “Allow “YourApp” to use your location?” with “Delete” was refused" in (
        result.outcome.message
    )
    assert phone.alert_answers == []
    assert model is not None
    assert model.calls == 0


class StubbornPhone(ScriptedPhone):
    """A phone whose alert comes back as soon as it is answered."""

    async def answer_alert(self, button: str) -> None:
        self.alert_answers.append(button)


def test_an_alert_that_comes_back_after_each_answer_is_answered_twice_then_fails(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: accept\n"))
    clock = FakeClock()
    phone = StubbornPhone.from_text(LOCATION_APP.read_text("utf-8"), clock=clock)
    options = mc.RunOptions(root=tmp_path)
    result = clock.run(
        mc.run_check(mc.load_check(check), phone, clock, model=ScriptedModel(clock=clock), options=options)
    )
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert "came back after it was answered 2 times" in result.outcome.message
    assert phone.alert_answers == ["Allow While Using App", "Allow While Using App"]


def test_a_deep_link_asks_open_in_which_only_the_checks_own_url_answers(tmp_path: Path) -> None:
    linked = SIGNUP.replace("reset: data\n", 'reset: data\nlaunch: {url: "yourapp://signup"}\nalerts: accept\n')
    linked = linked.replace('  - Tap "Sign up"\n', "")
    check = project(tmp_path, linked)
    result, phone, _ = run(check, LOCATION_APP)
    assert result.verdict is mc.Verdict.PASSED, result.outcome.message
    assert phone.alert_answers == ["Allow While Using App", "Open"]


def test_the_answer_shows_in_the_reports_journal(tmp_path: Path) -> None:
    from mobster_report import HtmlReport

    check = project(tmp_path, SIGNUP.replace("reset: data\n", "reset: data\nalerts: accept\n"))
    result, _, _ = run(check, IPHONE_APP, reporter=HtmlReport())
    assert result.verdict is mc.Verdict.PASSED
    page = (tmp_path / result.run_dir / "report.html").read_text("utf-8")
    assert "<code>alert-1</code>" in page
    assert "Allow While Using App" in page
    assert "to use your location?" in page


def test_open_in_after_a_link_the_steps_open_is_refused_even_under_accept(tmp_path: Path) -> None:
    steps = 'steps:\n  - Open link "yourapp://signup"\n  - Tap "Continue"\n'
    linked = SIGNUP.replace("reset: data\n", "reset: data\nalerts: accept\n")
    linked = linked[: linked.index("steps:")] + steps + linked[linked.index("expect:") :]
    check = project(tmp_path, linked)
    result, phone, _ = run(check, IPHONE_APP)
    assert result.outcome.failure_class is mc.FailureClass.DRIFT
    assert "an “Open in” prompt is accepted only right after the check's launch.url" in result.outcome.message
    assert phone.alert_answers == ["Allow While Using App"]  # the location prompt, never "Open"
