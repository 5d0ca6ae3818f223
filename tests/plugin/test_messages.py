"""Under pytest every message names pytest's options, and only a run that replayed counts as replayed."""

from __future__ import annotations

import re

import pytest

from .helpers import SIGNUP, Project, record

pytest_plugins = ["pytester"]

#: An option of the ``mobster`` command (``--model``, ``--no-heal``, ``--fresh``, ``--env-file``),
#: never one of pytest's own ``--mobster-...`` options.
CLI_OPTION = re.compile(r"(?<![\w-])--(model|no-heal|fresh|env-file)\b")


def test_a_new_check_with_no_model_says_to_pass_mobster_model(project: Project) -> None:
    project.check("fresh", SIGNUP.replace("A new user signs up", "A new user signs up again"))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "-k", "fresh")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            (
                "*.mobster/checks/fresh.yaml:1: couldnt_run (model): no recorded path yet, and there is no model to "
                "record one; set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --mobster-model scripted"
            ),
            "    on Phone A, iOS 26.4; mode none (no step ran); 0 model calls, $0.00",
        ]
    )
    text = result.stdout.str()
    assert CLI_OPTION.findall(text) == []
    # A run that never started is counted as a run, never as replayed.
    result.stdout.fnmatch_lines(["mobster: 1 check run, 0 healed steps, 0 model calls, $0.00"])
    assert "replayed" not in text


def test_under_no_heal_it_says_to_run_without_mobster_no_heal(project: Project) -> None:
    project.check("fresh", SIGNUP.replace("A new user signs up", "A new user signs up again"))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-no-heal", "-k", "fresh")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            (
                "*couldnt_run (model): no recorded path yet, and there is no model to record one: healing is off; "
                "run it without --mobster-no-heal (nor mobster_no_heal in the ini), or with --mobster-fresh to "
                "record it again"
            ),
        ]
    )
    assert CLI_OPTION.findall(result.stdout.str()) == []


def test_a_heal_past_the_limit_says_to_record_again_with_mobster_fresh(project: Project) -> None:
    record(project)
    changed = project.app("changed.yaml", renamed=True)  # Continue is Next, and Sign up is Join
    changed.write_text(changed.read_text().replace("label: Sign up,", "label: Join,"))
    result, cases = project.junit(
        "--mobster-scripted", "apps/changed.yaml", "--mobster-model", "scripted", "-k", "signup"
    )
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*.mobster/checks/signup.yaml:8: failed (heal_limit): healing step 3 would make 2 of 3 recorded steps "
                "healed; the most a heal may change is half of a check; run it with --mobster-fresh to record it again"
            ),
        ]
    )
    assert CLI_OPTION.findall(result.stdout.str()) == []
    (case,) = cases
    assert (case.prop("mobster.healed_steps"), case.prop("mobster.replayed_with_no_model")) == ("1", "False")


@pytest.mark.parametrize("flag", ["--mobster-no-heal", "--mobster-fresh"])
def test_the_footer_counts_no_run_that_drifted_or_recorded_as_replayed(project: Project, flag: str) -> None:
    record(project)
    args = ("--mobster-model", "scripted") if flag == "--mobster-fresh" else ()
    project.app("yourapp-renamed.yaml", renamed=True)
    result = project.run("--mobster-scripted", "apps/yourapp-renamed.yaml", flag, *args, "-k", "signup")
    # Drifted under --mobster-no-heal; under --mobster-fresh Smart ran it (and the scripted model, told to
    # tap "Continue", is blocked on the renamed app): neither replayed.
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(["mobster: 1 check run, 0 healed steps, *"])  # no "(1 replayed with no model)"
