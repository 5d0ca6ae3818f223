"""``--mobster-retries`` labels a device fault that passes on a retry flaky; ``--mobster-repeat`` gives pass rates;
tags are markers (``-m``) and ``--collect-only`` lists what ``-m`` selects."""

from __future__ import annotations

from .helpers import Project, record

pytest_plugins = ["pytester"]

FAULTS = """
ATTEMPTS = {"device": 0, "unknown": 0, "launch": 0}


def test_device_fault(mobster, mobster_device):
    ATTEMPTS["device"] += 1
    if ATTEMPTS["device"] == 1:
        mobster_device.fail_next_read(2)  # a read and its retry fail: the first attempt only
    mobster.run("signup")


def test_unknown_outcome(mobster, mobster_device):
    ATTEMPTS["unknown"] += 1
    mobster_device.fail_next_action()  # the first tap's reply is lost: did it land?
    mobster.run("paywall")


def test_attempts_were_counted():
    assert ATTEMPTS == {"device": 1, "unknown": 1, "launch": 0}  # one pytest test each: the retry is inside it
"""


def test_a_device_fault_that_passes_on_a_retry_is_flaky_and_an_unknown_outcome_is_never_retried(
    project: Project,
) -> None:
    record(project)
    project.pytester.makepyfile(test_faults=FAULTS)
    result, cases = project.junit("--mobster-scripted", "apps/yourapp.yaml", "--mobster-retries", "2", "-v")
    result.assert_outcomes(passed=4, failed=1)  # the two check items, the device fault, the count
    result.stdout.fnmatch_lines(["*test_faults.py::test_device_fault PASSED (flaky)*"])
    result.stdout.fnmatch_lines(["mobster: flaky (passed on a retry): A new user signs up"])
    # A retried check is one check run: its attempts' model calls and cost are summed into it.
    result.stdout.fnmatch_lines(["mobster: 4 check runs (3 replayed with no model, 1 flaky), 0 healed steps, *"])
    fault = next(c for c in cases if c.name == "test_device_fault")
    assert (fault.prop("mobster.flaky"), fault.prop("mobster.attempts")) == ("True", "2")
    assert fault.prop("mobster.verdict") == "passed"
    unknown = next(c for c in cases if c.name == "test_unknown_outcome")
    assert (unknown.prop("mobster.class"), unknown.prop("mobster.attempts")) == ("unknown_outcome", "1")
    assert unknown.prop("mobster.flaky") == "False"


def test_without_retries_the_device_fault_fails(project: Project) -> None:
    record(project)
    project.pytester.makepyfile(test_faults=FAULTS.replace('"device": 1,', '"device": 1,'))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "test_faults.py::test_device_fault")
    result.assert_outcomes(failed=1)
    assert "flaky" not in result.stdout.str()


def test_a_drift_is_never_retried(project: Project) -> None:
    record(project)
    project.app("renamed.yaml", renamed=True)
    result, cases = project.junit(
        "--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal", "--mobster-retries", "3"
    )
    result.assert_outcomes(passed=1, failed=1)
    signup = next(c for c in cases if c.prop("mobster.check") == "A new user signs up")
    assert (signup.prop("mobster.class"), signup.prop("mobster.attempts")) == ("drift", "1")
    assert len(list((project.root / ".mobster" / "runs").iterdir())) == 2  # each check ran once


def test_repeat_makes_k_items_of_each_check_and_gives_pass_rates(project: Project) -> None:
    record(project)
    result, cases = project.junit("--mobster-scripted", "apps/yourapp.yaml", "--mobster-repeat", "3", "-v")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["*signup.yaml::signup[[]1-3[]] PASSED*", "*signup.yaml::signup[[]3-3[]] PASSED*"])
    result.stdout.fnmatch_lines(
        ["mobster: pass rate: Settings offers Pro 3/3 (100%)", "mobster: pass rate: A new user signs up 3/3 (100%)"],
        consecutive=False,
    )
    assert sorted(c.prop("mobster.run") for c in cases if c.prop("mobster.check") == "A new user signs up") == [
        "1/3",
        "2/3",
        "3/3",
    ]


def test_a_pass_rate_counts_a_run_that_failed(project: Project) -> None:
    record(project)
    project.pytester.makeconftest(
        """
import pytest

RUNS = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    RUNS.append(item.name)
    if item.name == "signup[2-3]":
        from mobster_pytest._session import session_of

        session = session_of(item.config)
        session.device(session.slot(None)).device.drop_typing()  # run 2 types nothing: Continue leads nowhere
    elif item.name == "signup[3-3]":
        from mobster_pytest._session import session_of

        session = session_of(item.config)
        session.device(session.slot(None)).device.restore_typing()
"""
    )
    result = project.run(
        "--mobster-scripted", "apps/yourapp.yaml", "--mobster-repeat", "3", "--mobster-no-heal", "-k", "signup"
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["mobster: pass rate: A new user signs up 2/3 (67%)"])


def test_tags_select_with_m_and_collect_only_lists_them(project: Project) -> None:
    record(project)
    both = project.run("--mobster-scripted", "apps/yourapp.yaml", "-m", "smoke and signup", "--collect-only", "-q")
    both.stdout.fnmatch_lines(["*signup.yaml::signup", "1/2 tests collected (1 deselected)*"])
    excluded = project.run("--mobster-scripted", "apps/yourapp.yaml", "-m", "not paywall")
    excluded.assert_outcomes(passed=1, deselected=1)


def test_bad_counts_stop_pytest_naming_the_option(project: Project) -> None:
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-retries", "many")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--mobster-retries: 'many' is not a whole number from 0 to 10*"])
    zero = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-repeat", "0")
    zero.stderr.fnmatch_lines(["*--mobster-repeat: '0' is not a whole number from 1 to 1000*"])
