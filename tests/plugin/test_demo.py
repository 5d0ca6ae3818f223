"""The demo project runs under pytest as it is: records both checks (their flow once), then replays them at $0."""

from __future__ import annotations

import shutil

from mobster_cli._demo import _write_project

from .helpers import Project

pytest_plugins = ["pytester"]


def test_the_demo_project_records_on_the_first_pytest_run_and_replays_at_no_cost_on_the_second(
    project: Project,
) -> None:
    _write_project(project.root)  # the demo's checks, apps and pytest.ini, and no recorded path
    plugin = ("-p", "no:cacheprovider", "-p", "mobster_pytest.plugin")  # nothing else: pytest.ini says it
    first = project.pytester.runpytest(*plugin)
    first.assert_outcomes(passed=2)
    # The check that runs the flow second replays the segment the first recorded, at $0.
    first.stdout.fnmatch_lines(
        ["mobster: 2 check runs (1 replayed with no model), 0 healed steps, 7 model calls, ~$0.00"]
    )
    second = project.pytester.runpytest(*plugin)
    second.assert_outcomes(passed=2)
    second.stdout.fnmatch_lines(
        ["mobster: 2 check runs (2 replayed with no model), 0 healed steps, 0 model calls, $0.00"]
    )


def test_after_mobster_demo_pytest_replays_its_checks_at_no_cost(project: Project) -> None:
    from mobster_cli._demo import run_demo

    # mobster demo takes only an empty folder or an earlier demo's: empty the project first.
    for child in project.root.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    assert run_demo(project.root) == 0  # its four runs, and a heal waiting for review
    result = project.pytester.runpytest("-p", "no:cacheprovider", "-p", "mobster_pytest.plugin")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["mobster: 2 check runs (2 replayed with no model), 0 healed steps, 0 model calls, $0.00"]
    )
