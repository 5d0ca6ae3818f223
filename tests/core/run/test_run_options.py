"""RunOptions' timing (issue 36: ``RunOptions.policy`` is now ``timing``, as ``Dispatcher(timing=)`` calls it).

The old name is a deprecated alias: given, it is the timing (it wins, so ``attrs.evolve(options,
policy=...)`` written before still works); read, it reads the timing; it is never kept beside it.
"""

from __future__ import annotations

from pathlib import Path

import attrs

import mobster_core as mc
from mobster_drivers.devices.scripted import sample_path
from tests.core.run.test_run import project, run
from tests.samples import SIGNUP_WITH_PASSWORD

SLOW = mc.PollPolicy(interval=0.25, drift_after=2.5, give_up_after=6.0)


def test_the_old_name_sets_the_timing_and_reads_it_back() -> None:
    options = mc.RunOptions(policy=SLOW)
    assert options.timing == SLOW
    assert options.policy == SLOW
    assert options == mc.RunOptions(timing=SLOW)
    assert mc.RunOptions().policy == mc.RunOptions().timing == mc.PollPolicy()
    assert "policy" not in repr(options)  # one field, said once


def test_evolve_takes_the_old_name_and_keeps_the_timing_otherwise() -> None:
    options = mc.RunOptions(timing=SLOW)
    quick = mc.PollPolicy(interval=0.125)
    assert attrs.evolve(options, policy=quick).timing == quick
    assert attrs.evolve(options, device_label="sim-2").timing == SLOW
    assert attrs.evolve(options, timing=quick).policy == quick


def test_the_old_name_wins_over_the_new_one_when_both_are_given() -> None:
    # attrs.evolve(options, policy=...) passes the timing it had beside the old name: the old name must win.
    assert mc.RunOptions(timing=mc.PollPolicy(), policy=SLOW).timing == SLOW


def test_a_drift_waits_as_long_as_the_old_name_says(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP_WITH_PASSWORD.replace('  - Type "hunter22" into "Password"\n', ""))
    run(check, sample_path("yourapp"))
    by_old, _, _ = run(check, sample_path("yourapp-renamed"), model=False, no_heal=True, policy=SLOW)
    by_new, _, _ = run(check, sample_path("yourapp-renamed"), model=False, no_heal=True, timing=SLOW)
    default, _, _ = run(check, sample_path("yourapp-renamed"), model=False, no_heal=True)
    assert by_old.outcome.failure_class is mc.FailureClass.DRIFT
    waited = [r.steps[-1].waited_s for r in (by_old, by_new, default)]
    assert waited[0] == waited[1] >= SLOW.drift_after
    assert waited[2] < SLOW.drift_after
