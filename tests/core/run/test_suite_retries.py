"""Retries that label flakes, and repeats with a pass rate (suite Rules 12, 13; results Rules 6, 7).

The devices are scripted phones on one ``FakeClock``, wrapped to die or to drop actions, with the
scripted phone's own faults (``fail_next_read``, ``fail_next_action``); the model is the scripted one.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core.results import RETRYABLE, Attempt, retryable, with_attempts
from mobster_core.testing import FakeClock
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.run.test_suite_pool import Wrapped
from tests.samples import SIGNUP_BY_BUNDLE

CHECK = SIGNUP_BY_BUNDLE


class FaultyPhone(Wrapped):
    """A scripted phone that can die while launching the app, fail its next launches, or drop one run's actions."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.dies_at_launch = False  # its next launch fails, and it never answers again
        self.failing_launches = 0  # its next launches fail; it answers reads
        self.drop_run: int | None = None  # the launch (from 1) whose actions change nothing
        self.launches = 0

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        self._check()
        self.launches += 1
        if self.dies_at_launch:
            self.dead = True
            raise mc.DeviceError("launch: the phone stopped answering (connection reset)")
        if self.failing_launches:
            self.failing_launches -= 1
            raise mc.DeviceError("launch: SpringBoard refused the launch (busy)")
        await self.phone.launch(bundle, options)

    async def act(self, action: mc.Action) -> None:
        if self.launches == self.drop_run:
            self._check()
            self.acts += 1
            return  # the action "landed" and changed nothing: the next step drifts
        await super().act(action)


def suite(project: Path, clock: FakeClock, devices: Any, text: str = CHECK, **options: Any) -> mc.SuiteResult:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(text)
    opts = mc.RunOptions(root=project, screenshots=False, **options)
    files = mc.find_checks(project)
    return clock.run(mc.run_suite(files, devices, clock, models=lambda: ScriptedModel(clock=clock), options=opts))


def record_path(project: Path, clock: FakeClock, text: str = CHECK) -> None:
    """Smart records the check's path once, so later runs replay it."""
    assert suite(project, clock, [FaultyPhone(clock)], text).exit_code == 0


def test_the_retryable_classes_are_the_machines(project: Path) -> None:
    assert {c.value for c in RETRYABLE} == {"device", "busy", "environment"}


def test_a_device_that_dies_launching_is_retried_on_the_other_device_and_is_flaky(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    dying, good = FaultyPhone(clock), FaultyPhone(clock)
    dying.dies_at_launch = True
    result = suite(project, clock, {"dying": dying, "good": good}, retries=1)
    (check,) = result.checks
    assert check.verdict is mc.Verdict.PASSED
    assert check.flaky
    assert result.flaky == 1
    assert check.device_label == "good"
    first, second = check.attempts
    assert (first.verdict, first.failure_class, first.device_label) == (
        mc.Verdict.COULDNT_RUN,
        mc.FailureClass.DEVICE,
        "dying",
    )
    assert "out of the pool" in first.message
    assert (second.verdict, second.device_label, second.run_dir) == (mc.Verdict.PASSED, "good", check.run_dir)
    assert first.run_dir != second.run_dir  # each attempt its own run folder
    assert (project / first.run_dir / "result.json").is_file()
    assert result.exit_code == 0

    doc = json.loads((result.folder / "results.json").read_text())
    entry = doc["checks"][0]
    assert entry["flaky"] is True
    assert [a["class"] for a in entry["attempts"]] == ["device", None]
    assert [a["run_dir"] for a in entry["attempts"]] == [first.run_dir, check.run_dir]
    assert doc["summary"]["flaky"] == 1
    back = mc.SuiteResult.from_dict(doc, result.folder)  # read back, typed
    assert [a.to_dict() for a in back.checks[0].attempts] == entry["attempts"]
    assert back.flaky == 1

    junit = ET.fromstring((result.folder / "junit.xml").read_bytes())
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert props == {"mobster.flaky": "1", "mobster.retried": "1"}  # the suite's: a testcase holds none
    case = next(junit.iter("testcase"))
    assert case.find("properties") is None
    assert "attempts: 2 (flaky: passed on a retry)" in (case.findtext("system-out") or "")
    (flaky,) = case.findall("flakyError")
    assert flaky.get("type") == "device"
    assert "out of the pool" in (flaky.get("message") or "")
    assert "attempt 1 of 2 on dying" in (flaky.findtext("stackTrace") or "")
    assert f"[[ATTACHMENT|{first.run_dir}/report.html]]" == flaky.findtext("system-out")
    assert case.find("error") is None
    assert case.find("failure") is None  # a flaky check passed


def test_without_retries_the_same_fault_couldnt_run(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    dying, good = FaultyPhone(clock), FaultyPhone(clock)
    dying.dies_at_launch = True
    result = suite(project, clock, {"dying": dying, "good": good})
    (check,) = result.checks
    assert (check.verdict, check.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.DEVICE)
    assert check.attempts == ()
    assert not check.flaky
    assert result.exit_code == 3


def test_a_launch_that_fails_on_a_lone_device_is_retried_on_it(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.failing_launches = 2  # the device still answers: it stays in the pool
    result = suite(project, clock, [phone], retries=2)
    (check,) = result.checks
    assert [a.failure_class for a in check.attempts] == [mc.FailureClass.DEVICE, mc.FailureClass.DEVICE, None]
    assert check.verdict is mc.Verdict.PASSED
    assert check.flaky
    assert len({a.run_dir for a in check.attempts}) == 3
    assert phone.launches == 3


def test_a_drift_is_never_retried(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.drop_run = 1  # its actions change nothing: step 2 drifts
    result = suite(project, clock, [phone], retries=3, no_heal=True)
    (check,) = result.checks
    assert (check.verdict, check.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert check.attempts == ()
    assert phone.launches == 1


def test_an_unknown_outcome_is_never_retried(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.phone.fail_next_action()
    result = suite(project, clock, [phone], retries=3)
    (check,) = result.checks
    assert check.outcome.failure_class is mc.FailureClass.UNKNOWN_OUTCOME
    assert check.attempts == ()
    assert phone.launches == 1


def test_a_device_lost_after_an_action_is_never_retried(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    dying, good = FaultyPhone(clock), FaultyPhone(clock)

    async def act(action: mc.Action) -> None:
        dying.dead = True  # the tap went out; the reads after it fail: its outcome is unknown
        await dying.phone.act(action)

    dying.act = act  # type: ignore[method-assign]
    result = suite(project, clock, {"dying": dying, "good": good}, retries=3)
    (check,) = result.checks
    assert (check.verdict, check.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.DEVICE)
    assert "unknown" in check.outcome.message
    assert check.attempts == ()
    assert good.launches == 0


def test_a_check_that_never_passes_keeps_every_attempt_as_reruns(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.failing_launches = 10
    result = suite(project, clock, [phone], retries=2)
    (check,) = result.checks
    assert check.verdict is mc.Verdict.COULDNT_RUN
    assert len(check.attempts) == 3
    assert not check.flaky
    junit = ET.fromstring((result.folder / "junit.xml").read_bytes())
    case = next(junit.iter("testcase"))
    assert len(case.findall("rerunError")) == 2
    assert case.find("error") is not None
    assert {p.get("name"): p.get("value") for p in junit.iter("property")}["mobster.flaky"] == "0"
    assert "attempts: 3 (never passed)" in (case.findtext("system-out") or "")


def test_attempts_sum_cost_model_calls_and_seconds() -> None:
    def run(n: int, verdict: mc.Verdict, cls: mc.FailureClass | None) -> mc.CheckResult:
        return mc.CheckResult(
            name="c", file="c.yaml", device=None, app=None, outcome=mc.Outcome(verdict, cls, "said"), mode=None,
            seconds=1.5, cost=mc.results.Cost(0.01 * n, estimated=n == 2), model_calls=n, identity=None, env=None,
            path_used=False, path_why=None, steps=(), heals=(), assertions=(), run_dir=f"runs/{n}",
        )  # fmt: skip

    first = run(1, mc.Verdict.COULDNT_RUN, mc.FailureClass.BUSY)
    last = run(2, mc.Verdict.PASSED, None)
    assert retryable(first)
    assert not retryable(last)
    both = with_attempts([first, last])
    assert both.model_calls == 3
    assert both.cost.usd == pytest.approx(0.03)
    assert both.cost.estimated
    assert both.seconds == 3.0
    assert both.attempts == (
        Attempt(mc.Verdict.COULDNT_RUN, mc.FailureClass.BUSY, "said", "runs/1", None, 1.5),
        Attempt(mc.Verdict.PASSED, None, "said", "runs/2", None, 1.5),
    )
    assert both.flaky
    assert with_attempts([last]) is last


@pytest.mark.parametrize("cls", [c for c in mc.FailureClass if c not in RETRYABLE])
def test_no_other_class_is_retryable(cls: mc.FailureClass) -> None:
    verdict = mc.Verdict.COULDNT_RUN
    result = mc.CheckResult(
        name="c", file="c.yaml", device=None, app=None, outcome=mc.Outcome(verdict, cls, "said"), mode=None,
        seconds=0, cost=mc.results.Cost(), model_calls=0, identity=None, env=None, path_used=False, path_why=None,
        steps=(), heals=(), assertions=(), run_dir="",
    )  # fmt: skip
    assert not retryable(result)


def test_repeat_runs_each_check_k_times_and_gives_its_pass_rate(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.drop_run = 2  # the second of three runs drifts
    result = suite(project, clock, [phone], repeat=3, no_heal=True)
    assert [c.repeat for c in result.checks] == [(1, 3), (2, 3), (3, 3)]
    assert [c.verdict for c in result.checks] == [mc.Verdict.PASSED, mc.Verdict.FAILED, mc.Verdict.PASSED]
    (rate,) = result.pass_rates
    assert (rate.name, rate.passed, rate.runs) == ("A new user signs up", 2, 3)
    assert rate.rate == pytest.approx(2 / 3)
    assert result.exit_code == 1  # the worst of all runs
    doc = json.loads((result.folder / "results.json").read_text())
    assert doc["pass_rates"] == [
        {"name": "A new user signs up", "file": ".mobster/checks/signup.yaml", "device_label": None,
         "passed": 2, "runs": 3, "rate": 0.6667}
    ]  # fmt: skip
    assert [c["repeat"] for c in doc["checks"]] == [{"run": n, "of": 3} for n in (1, 2, 3)]
    assert mc.SuiteResult.from_dict(doc, result.folder).pass_rates == result.pass_rates
    names = [c.get("name") for c in ET.fromstring((result.folder / "junit.xml").read_bytes()).iter("testcase")]
    assert len(set(names)) == 3
    assert (names[1] or "").endswith("(run 2 of 3)")


def test_repeat_on_each_device_gives_a_rate_per_device(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    result = suite(project, clock, {"a": FaultyPhone(clock), "b": FaultyPhone(clock)}, repeat=2, each_device=True)
    assert {(r.device_label, r.passed, r.runs) for r in result.pass_rates} == {("a", 2, 2), ("b", 2, 2)}


def test_options_refuse_a_negative_retry_and_a_zero_repeat() -> None:
    with pytest.raises(ValueError, match="retries"):
        mc.RunOptions(retries=-1)
    with pytest.raises(ValueError, match="repeat"):
        mc.RunOptions(repeat=0)


def test_an_attempts_hostile_message_keeps_junit_well_formed(tmp_path: Path) -> None:
    def run(message: str, verdict: mc.Verdict, cls: mc.FailureClass | None) -> mc.CheckResult:
        return mc.CheckResult(
            name="c\x00", file="c.yaml", device=None, app=None, outcome=mc.Outcome(verdict, cls, message), mode=None,
            seconds=1.0, cost=mc.results.Cost(), model_calls=0, identity=None, env=None, path_used=False,
            path_why=None, steps=(), heals=(), assertions=(), run_dir="runs/x\x1b]8;;",
        )  # fmt: skip

    both = with_attempts(
        [run("a\x00b\x1b[31m</x>", mc.Verdict.COULDNT_RUN, mc.FailureClass.DEVICE), run("", mc.Verdict.PASSED, None)]
    )
    suite = mc.SuiteResult("s", "2026-12-01T00:00:00Z", 2.0, (both,), tmp_path)
    case = next(ET.fromstring(mc.results.junit_xml(suite)).iter("testcase"))
    (flaky,) = case.findall("flakyError")
    assert flaky.get("message") == "ab\x1b[31m</x>".replace("\x1b", "")  # XML 1.0 forbids NUL and ESC


def test_a_retry_goes_to_another_device_even_when_the_first_still_answers(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    refusing, other = FaultyPhone(clock), FaultyPhone(clock)
    refusing.failing_launches = 1  # it answers reads: it stays in the pool
    result = suite(project, clock, {"refusing": refusing, "other": other}, retries=1)
    (check,) = result.checks
    assert [a.device_label for a in check.attempts] == ["refusing", "other"]
    assert check.flaky


def test_with_each_device_a_retry_stays_on_its_device(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    a, b = FaultyPhone(clock), FaultyPhone(clock)
    b.failing_launches = 1
    result = suite(project, clock, {"a": a, "b": b}, retries=1, each_device=True)
    assert [(c.device_label, c.flaky) for c in result.checks] == [("a", False), ("b", True)]
    assert [x.device_label for x in result.checks[1].attempts] == ["b", "b"]
    assert (a.launches, b.launches) == (1, 2)
