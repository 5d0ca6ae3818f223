"""Reruns: ``--reruns N --only-rerun CheckCouldntRun`` retries a device fault, never a drift or an
assertion, and an unknown outcome is never rerun, whatever the options."""

from __future__ import annotations

import pytest

from .helpers import RERUNS, Project, record

pytest_plugins = ["pytester"]

pytest.importorskip("pytest_rerunfailures")

ONLY_INFRA = (*RERUNS, "--reruns", "2", "--only-rerun", "CheckCouldntRun")

FAULTS = """
import pytest

ATTEMPTS = {"device": 0, "unknown": 0}


def test_device_fault(mobster, mobster_device):
    ATTEMPTS["device"] += 1
    if ATTEMPTS["device"] == 1:
        mobster_device.fail_next_read(2)  # a read and its retry fail: this attempt only
    mobster.run("signup")


def test_unknown_outcome(mobster, mobster_device):
    ATTEMPTS["unknown"] += 1
    mobster_device.fail_next_action()  # the first tap's reply is lost: did it land?
    mobster.run("paywall")
"""


def test_a_drift_under_no_heal_fails_once_and_is_not_rerun(project: Project) -> None:
    record(project)
    project.app("renamed.yaml", renamed=True)
    result = project.run("--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal", *ONLY_INFRA)
    result.assert_outcomes(passed=1, failed=1)
    assert "rerun" not in result.stdout.str().lower().split("short test summary")[-1]
    assert len(list((project.root / ".mobster" / "runs").iterdir())) == 2  # each check ran once


def test_a_device_fault_is_rerun_and_an_unknown_outcome_never_is(project: Project) -> None:
    record(project)
    project.pytester.makepyfile(test_faults=FAULTS)
    result, cases = project.junit("--mobster-scripted", "apps/yourapp.yaml", *ONLY_INFRA, "-rA", "test_faults.py")
    assert result.parseoutcomes() == {"passed": 1, "failed": 1, "rerun": 1}
    result.stdout.fnmatch_lines(
        [
            "test_faults.py R.F *",
            "PASSED test_faults.py::test_device_fault",
            "FAILED test_faults.py::test_unknown_outcome - mobster_pytest.CheckOutcomeUnkn*",
        ]
    )
    # JUnit gets a testcase per attempt, each with its own run only: a rerun starts from no runs.
    attempts = [c.props("mobster.verdict") for c in cases if c.name == "test_device_fault"]
    assert attempts == [["couldnt_run"], ["passed"]]
    # The summary counts every attempt's run: the failed one's model calls were paid for too. Only
    # the run that replayed to its verdict replayed with no model: not the device fault, nor the
    # unknown outcome (neither reached a verdict).
    result.stdout.fnmatch_lines(["mobster: 3 check runs (1 replayed with no model), *"])


def test_reruns_without_only_rerun_still_never_rerun_an_unknown_outcome(project: Project) -> None:
    record(project)
    project.pytester.makepyfile(test_faults=FAULTS)
    result = project.run(
        "--mobster-scripted", "apps/yourapp.yaml", *RERUNS, "--reruns", "3", "-k", "unknown", "test_faults.py"
    )
    assert result.parseoutcomes() == {"failed": 1, "deselected": 1}  # no "rerun"
