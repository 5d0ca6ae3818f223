"""Results stay data: read back typed, derived facts defined once, where and what to do as fields."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings

import mobster_core as mc
from mobster_core.exceptions import ResultsError
from mobster_core.results import (
    AssertionResult,
    Cost,
    Fix,
    FixCode,
    HealEntry,
    Mode,
    StepReport,
    StepSource,
    junit_xml,
)
from tests.strategies import check_results, examples

# -- reading results.json back --------------------------------------------------------------------


@settings(max_examples=examples(200))
@given(check_results())
def test_a_result_reads_back_as_the_same_value(result: mc.CheckResult) -> None:
    assert mc.CheckResult.from_dict(result.to_dict()) == result
    assert mc.CheckResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result  # through the file


@settings(max_examples=examples(50))
@given(check_results(), check_results())
def test_a_suite_reads_back_as_the_same_value(one: mc.CheckResult, two: mc.CheckResult) -> None:
    suite = mc.SuiteResult("20261130T120000Z-abc123", "2026-11-30T12:00:00Z", 12.5, (one, two), Path("out"))
    assert mc.SuiteResult.from_dict(json.loads(json.dumps(suite.to_dict())), Path("out")) == suite


def passed(**changes: Any) -> mc.CheckResult:
    base = mc.CheckResult(
        name="A new user signs up", file=".mobster/checks/signup.yaml",
        device=mc.DeviceInfo("iPhone 17 Pro", "26.4", mc.DeviceKind.SIMULATOR), app=mc.AppInfo("com.example.yourapp"),
        outcome=mc.Outcome(mc.Verdict.PASSED), mode=Mode.REPLAY, seconds=3.25, cost=Cost(), model_calls=0,
        identity="88f236e640540034", env="a9424b38a97d", path_used=True, path_why=None, steps=(), heals=(),
        assertions=(), run_dir=".mobster/runs/20261130T120000Z-abc123", stable=True,
    )  # fmt: skip
    return attrs.evolve(base, **changes)


def drifted() -> mc.CheckResult:
    outcome = mc.Outcome(
        mc.Verdict.FAILED, mc.FailureClass.DRIFT, 'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen',
        step=3, fix=Fix(FixCode.GIVE_MODEL),
    )  # fmt: skip
    return passed(outcome=outcome, stable=None)


def set_in(doc: dict[str, Any], path: tuple[str | int, ...], value: object) -> None:
    for key in path[:-1]:
        doc = doc[key]  # type: ignore[index]
    doc[path[-1]] = value  # type: ignore[index]


@pytest.mark.parametrize(
    ("path", "value", "said"),
    [
        (("seconds",), "3", "seconds: expected a number, got '3'"),
        (("model_calls",), True, "model_calls: expected a whole number, got True"),
        (("verdict",), "fine", "verdict: expected one of passed, failed, needs_review, couldnt_run; got 'fine'"),
        (("mode",), "record", "mode: expected one of launch, smart, replay; got 'record'"),
        (("steps",), "", "steps: expected a list, got ''"),
        (("steps",), {}, "steps: expected a list, got {}"),
        (("device",), "iPhone", "device: expected a mapping, got 'iPhone'"),
        (("device", "ios"), "soon", "device.ios: ios is a version such as '26.4', got 'soon'"),
        (("path", "used"), "yes", "path.used: expected true or false, got 'yes'"),
        (("class",), None, "class: a passed outcome has no failure class, and every other outcome has one"),
        (("fix", "code"), "try_again", "fix.code: expected one of record_again, give_model, run_without_no_heal"),
        (("fix", "args"), {"name": "X"}, "fix.args: the fix give_model takes the text arguments: none"),
        (("step",), 0, "step: a step is counted from 1, got 0"),
        (("heals", 0, "from"), 3, "heals[0].from: expected a string, got 3"),
        (("steps", 0, "target", "frame"), [0.1, 0.2], "steps[0].target.frame: expected [x, y, w, h], four numbers"),
        (("assertions", 0, "line"), "9", "assertions[0].line: expected a whole number, got '9'"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_its_key(
    path: tuple[str | int, ...], value: object, said: str
) -> None:
    step = StepReport(
        1,
        mc.Op.TAP,
        'Tap "Continue"',
        StepSource.REPLAY,
        1.0,
        0.5,
        True,
        "gone",
        mc.Element("Button", "Continue", path="/0/3"),
    )
    heal = HealEntry(3, 'Tap "Continue"', 'Tap "Next"', "gone", ({"op": "TAP"},), ({"op": "TAP"},))
    check = AssertionResult('text "Welcome"', True, "found", line=9)
    doc = json.loads(json.dumps(attrs.evolve(drifted(), steps=(step,), heals=(heal,), assertions=(check,)).to_dict()))
    set_in(doc, path, value)
    with pytest.raises(ResultsError) as refused:
        mc.CheckResult.from_dict(doc)
    assert str(refused.value).startswith(said), str(refused.value)
    assert refused.value.key == said.split(":", 1)[0]


def test_a_missing_promised_key_is_named() -> None:
    doc = passed().to_dict()
    del doc["name"]
    with pytest.raises(ResultsError, match=r"^name: key 'name' is missing$"):
        mc.CheckResult.from_dict(doc)
    with pytest.raises(ResultsError, match=r"^the document: expected a mapping, got"):
        mc.CheckResult.from_dict([])


def test_keys_added_later_are_ignored_and_keys_added_since_the_first_version_may_be_missing() -> None:
    doc = drifted().to_dict()
    later = {**doc, "coverage": {"screens": 4}, "steps": [{**s, "more": 1} for s in doc["steps"]]}
    assert mc.CheckResult.from_dict(later) == drifted()
    # An older file: no step, no fix, no device label, no final frame, no stable, no carried_from.
    older = {k: v for k, v in doc.items() if k not in ("step", "fix", "device_label", "final_frame", "stable")}
    older["path"] = {k: v for k, v in doc["path"].items() if k != "carried_from"}
    older["message"] = 'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen (no model to heal it)'
    read = mc.CheckResult.from_dict(older)
    assert (read.outcome.step, read.outcome.fix, read.stable) == (None, None, None)
    assert read.outcome.message == older["message"]  # no fix to take off: the message is kept whole


def test_the_message_is_the_cores_and_the_fixs_neutral_sentence() -> None:
    doc = drifted().to_dict()
    assert doc["message"] == (
        'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen; '
        "give the run a model (a model key, or the scripted model)"
    )
    assert (doc["step"], doc["fix"]) == (3, {"code": "give_model", "args": {}})
    # Read back, the message is the core's again; an edited one that lost the sentence stays whole.
    assert mc.CheckResult.from_dict(doc).outcome == drifted().outcome
    edited = {**doc, "message": "someone rewrote this"}
    assert mc.CheckResult.from_dict(edited).outcome.message == "someone rewrote this"


def test_a_suites_document_is_checked_as_a_whole() -> None:
    suite = mc.SuiteResult("s", "2026-11-30T12:00:00Z", 3.0, (passed(), drifted()), Path())
    doc = suite.to_dict()
    doc["checks"][1]["seconds"] = "1"
    with pytest.raises(ResultsError, match=r"^checks\[1\]\.seconds: expected a number, got '1'$"):
        mc.SuiteResult.from_dict(doc, Path())
    with pytest.raises(ResultsError, match=r"^schema: expected 'mobster\.test/1', got 'mobster\.test/9'$"):
        mc.SuiteResult.from_dict({**suite.to_dict(), "schema": "mobster.test/9"}, Path())


# -- what is derived, defined once --------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "replayed"),
    [
        (passed, True),
        (lambda: passed(outcome=mc.Outcome(mc.Verdict.FAILED, mc.FailureClass.ASSERTION, "x")), True),
        (drifted, False),  # its steps didn't all run
        (lambda: passed(outcome=mc.Outcome(mc.Verdict.COULDNT_RUN, mc.FailureClass.DEVICE, "x"), stable=None), False),
        (lambda: passed(mode=None, stable=None, path_used=False), False),  # never started
        (lambda: passed(mode=Mode.SMART, path_used=False, model_calls=4), False),
        (lambda: passed(model_calls=1), False),  # healed, or a live step typed by the model
        (lambda: passed(mode=Mode.LAUNCH), False),  # nothing to replay
        (lambda: passed(outcome=mc.Outcome(mc.Verdict.NEEDS_REVIEW, mc.FailureClass.HELD_BEFORE_FLOW, "x")), False),
    ],
)
def test_replayed_with_no_model_means_the_recorded_path_replayed_to_the_verdict(
    make: Callable[[], mc.CheckResult], replayed: bool
) -> None:
    result = make()
    assert result.replayed_with_no_model is replayed
    assert result.to_dict()["replayed_with_no_model"] is replayed
    suite = mc.SuiteResult("s", "", 1.0, (result, result), Path())
    assert suite.replayed_with_no_model == (2 if replayed else 0)
    assert suite.to_dict()["summary"]["replayed_with_no_model"] == suite.replayed_with_no_model


def test_healed_steps_count_the_models_actions_in_the_heals() -> None:
    heals = (
        HealEntry(2, "a", "b, then c", "gone", ({"op": "TAP"},), ({"op": "TAP"}, {"op": "TAP"})),
        HealEntry(4, "d", "e", "gone", ({"op": "TAP"},), ({"op": "TAP"},)),
    )
    result = passed(heals=heals, model_calls=3)
    assert (result.healed_steps, result.to_dict()["healed_steps"]) == (3, 3)
    assert mc.SuiteResult("s", "", 1.0, (result, passed()), Path()).healed_steps == 3


def test_the_cost_says_when_it_is_estimated_whatever_the_amount() -> None:
    assert passed().cost_text == "$0.00"
    assert passed(cost=Cost(0.0, estimated=True)).cost_text == "~$0.00"  # the scripted model's estimated usage
    assert passed(cost=Cost(0.0164, estimated=True)).cost_text == "~$0.02"
    assert passed(cost=Cost(0.0164)).cost_text == "$0.02"
    suite = mc.SuiteResult("s", "", 1.0, (passed(), passed(cost=Cost(0.004, estimated=True))), Path())
    assert suite.cost_text == "~$0.00"
    assert Cost(0.0132, estimated=True).text(4) == "~$0.0132"


def test_junit_says_a_run_that_never_started_has_no_mode_and_an_estimated_cost(tmp_path: Path) -> None:
    never = passed(
        mode=None, stable=None, path_used=False, steps=(), cost=Cost(0.0123, estimated=True),
        outcome=mc.Outcome(mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL, "no model", fix=Fix(FixCode.GIVE_MODEL)),
    )  # fmt: skip
    text = junit_xml(mc.SuiteResult("s", "2026-11-30T12:00:00Z", 1.0, (never,), tmp_path)).decode()
    assert "mode: none (no step ran), model calls: 0, cost: ~$0.0123" in text
    assert 'message="no model; give the run a model (a model key, or the scripted model)"' in text
