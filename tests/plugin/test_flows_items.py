"""A check with rows is one pytest item a row; a flow is never an item (issue 39)."""

from __future__ import annotations

import pytest

from .helpers import Project

pytest_plugins = ["pytester"]

ROWS = """\
version: 1
name: Open a screen
app: {bundle: com.example.yourapp}
rows:
  - {button: Sign up, shown: Create your account}
  - {button: Settings, shown: Notifications}
steps:
  - use: start
  - Tap "${button}"
expect:
  - text: ${shown}
"""


def test_each_row_is_an_item_named_by_its_label_and_flows_are_not_collected(project: Project) -> None:
    project.check("open", ROWS)
    flows = project.root / ".mobster" / "flows"
    flows.mkdir()
    (flows / "start.yaml").write_text("steps:\n  - Swipe up\n")
    result = project.run("--collect-only", "-q")
    assert result.ret == 0
    collected = sorted(line for line in result.outlines if "open.yaml" in line)
    assert collected == [".mobster/checks/open.yaml::open[Settings]", ".mobster/checks/open.yaml::open[Sign up]"]
    assert not [line for line in result.outlines if "flows" in line]


@pytest.mark.parametrize("row", ["Sign up", "Settings"])
def test_a_row_s_item_runs_that_row_and_passes_on_its_own_expectation(project: Project, row: str) -> None:
    project.check("open", ROWS.replace("  - use: start\n", ""))
    picked = f"open and {row.split(maxsplit=1)[0]}"
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-model", "scripted", "-k", picked, "-v")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines([f"*open.yaml::open[[]{row}[]] PASSED*"])
