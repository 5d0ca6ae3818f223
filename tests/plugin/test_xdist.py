"""xdist: worker k runs on device k of the pool, and four workers recording and healing at once
in one project lose nothing under ``.mobster/``."""

from __future__ import annotations

import json

import pytest

from mobster_core import load_check, recorded_paths
from mobster_core.heals import pending_heals

from .helpers import PAYWALL, SIGNUP, XDIST, Project

pytest_plugins = ["pytester"]

pytest.importorskip("xdist")


def test_worker_k_runs_on_device_k_of_the_pool_and_n_auto_is_one_worker_per_device(project: Project) -> None:
    project.app("b.yaml", device="Phone B")
    for n in range(4):
        project.check(f"paywall{n}", PAYWALL.replace("Settings offers Pro", f"Settings offers Pro {n}"))
    result, cases = project.junit(
        *XDIST, "-n", "auto", "--mobster-scripted", "apps/yourapp.yaml", "--mobster-scripted", "apps/b.yaml",
        "--mobster-model", "scripted",
    )  # fmt: skip
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["created: 2/2 workers"])
    devices = {c.prop("mobster.device") for c in cases}
    assert devices == {"Phone A, iOS 26.4 (simulator)", "Phone B, iOS 26.4 (simulator)"}
    # The controller adds up every worker's runs.
    result.stdout.fnmatch_lines(["mobster: 6 check runs*, 0 healed steps, * model calls, ~$0.00"])


def _copy(text: str, stem: str) -> str:
    """A copy of a check with an identity of its own: its launch environment names it."""
    return text.replace("tags:", f"launch: {{env: {{COPY: {stem}}}}}\ntags:")


def test_four_workers_recording_and_healing_at_once_lose_nothing(project: Project) -> None:
    signups = [f"signup{n}" for n in range(4)]
    for stem in signups:
        project.check(stem, _copy(SIGNUP, stem))
    project.run(
        "--mobster-scripted", "apps/yourapp.yaml", "--mobster-model", "scripted", "-k", "signup"
    ).assert_outcomes(passed=5)
    cache = project.root / ".mobster" / "cache" / "replay"
    recorded = {p.name for p in cache.iterdir()}
    # Now at once, on four workers: four signups heal their renamed step, four new checks record.
    project.app("renamed.yaml", renamed=True)
    news = [f"new{n}" for n in range(4)]
    for stem in news:
        project.check(stem, _copy(PAYWALL, stem))
    result, cases = project.junit(
        *XDIST, "-n", "4", "--mobster-scripted", "apps/renamed.yaml", "--mobster-model", "scripted",
        "-k", "signup or new",
    )  # fmt: skip
    result.assert_outcomes(passed=9)
    result.stdout.fnmatch_lines(["mobster: 9 check runs, 5 healed steps, * model calls, ~$0.00"])
    # Every heal file is whole and holds its one heal, kept with its healed path; the recorded
    # path waits for the review (a heal never overwrites it); no temp file is left.
    checks = project.root / ".mobster" / "checks"
    for stem in ["signup", *signups]:
        check = load_check(checks / f"{stem}.yaml")
        pending = pending_heals(check)
        assert [p.entry.step for p in pending] == [3], stem
        assert all(p.in_use for p in pending), stem
        labels = [s.target.label for s in recorded_paths(check)[0].steps if s.target is not None]
        assert "Continue" in labels, (stem, labels)
    for stem in news:
        assert len(recorded_paths(load_check(checks / f"{stem}.yaml"))) == 1, stem
    stored = {p.name for p in cache.iterdir()}
    assert recorded <= stored
    assert len(stored - recorded) == 4  # the new checks' paths (a heal never writes the shared one)
    assert not list((project.root / ".mobster").rglob(".tmp-*"))
    runs = sorted((project.root / ".mobster" / "runs").iterdir())
    assert len(runs) == 5 + 9
    for run in runs:
        assert json.loads((run / "result.json").read_text())["verdict"] == "passed"
    assert {c.prop("mobster.run_dir") for c in cases} == {f".mobster/runs/{r.name}" for r in runs[5:]}
    # Each heal's path replays: with no model, the renamed step passes on its check's healed path.
    again = project.run("--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal", "-k", "signup")
    again.assert_outcomes(passed=5)


def test_more_workers_than_a_pool_of_real_devices_is_refused_before_any_starts(project: Project) -> None:
    pool = ("--mobster-wda", "http://127.0.0.1:9", "--mobster-wda", "http://127.0.0.1:10")
    result = project.pytester.runpytest("-p", "mobster_pytest.plugin", *XDIST, "-n", "3", *pool)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: mobster: -n 3 starts 3 workers and the pool has 2 devices*run -n 2 (or -n auto)*"]
    )
