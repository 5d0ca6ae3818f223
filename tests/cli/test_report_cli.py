"""`mobster report merge` and `mobster report open`, and the pages `mobster test` writes (on a fake clock)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import sample_path
from tests.cli.test_cli import mobster
from tests.samples import SIGNUP

PAYWALL = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
"""

BROKEN = """\
version: 1
name: Settings offers a thing that isn't there
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
expect:
  - text: Nothing like this
"""


@pytest.fixture
def project(project: Path) -> Path:
    """Three checks (one that fails) and the sample app."""
    checks = project / ".mobster" / "checks"
    (checks / "signup.yaml").write_text(SIGNUP)
    (checks / "paywall.yaml").write_text(PAYWALL)
    (checks / "broken.yaml").write_text(BROKEN)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    return project


def _suite(output: str) -> Path:
    line = next(x for x in output.splitlines() if x.startswith("report: "))
    return Path(line.removeprefix("report: ")).parent


def test_a_run_writes_its_report_and_the_suite_its_index(project: Path) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    folder = _suite(result.output)
    index = (folder / "index.html").read_text()
    doc = json.loads((folder / "results.json").read_text())
    for check in doc["checks"]:
        page = project / check["run_dir"] / "report.html"
        assert page.is_file(), check["name"]
        assert f"../../runs/{Path(check['run_dir']).name}/report.html" in index
    failed = next(c for c in doc["checks"] if c["verdict"] == "failed")
    assert failed["assertions"][0]["matches"] == []  # nothing on the screen said it
    assert all(s["target"] is not None for c in doc["checks"] for s in c["steps"])


def test_merging_two_shards_gives_the_summary_of_one_unsharded_run(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")  # record the paths
    whole = _suite(mobster("test", "--scripted", "app.yaml").output)
    one = _suite(mobster("test", "--scripted", "app.yaml", "--shard", "1/2").output)
    two = _suite(mobster("test", "--scripted", "app.yaml", "--shard", "2/2").output)
    merged = mobster("report", "merge", str(one), str(two), "--out", "merged")
    assert merged.exit_code == 0, merged.output
    assert "merged 2 shards: 2 passed, 0 failed, 0 need review, 1 couldn't run" in merged.output
    doc = json.loads((project / "merged" / "results.json").read_text())
    unsharded = json.loads((whole / "results.json").read_text())
    assert doc["summary"] == unsharded["summary"]
    assert doc["exit_code"] == unsharded["exit_code"] == 3  # the broken check has no path and no model
    key = [(c["file"], c["device"], c["verdict"]) for c in unsharded["checks"]]
    assert sorted(key, key=str) == sorted([(c["file"], c["device"], c["verdict"]) for c in doc["checks"]], key=str)
    junit = ET.fromstring((project / "merged" / "junit.xml").read_bytes())
    suite = junit.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("errors"), len(suite.findall("testcase"))) == ("3", "1", 3)
    index = (project / "merged" / "index.html").read_text()
    for c in doc["checks"]:
        assert f"../.mobster/runs/{Path(c['run_dir']).name}/report.html" in index


def test_merge_refuses_what_isnt_a_suite_and_the_same_shard_twice(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    suite = _suite(mobster("test", "--scripted", "app.yaml").output)
    twice = mobster("report", "merge", str(suite), str(suite), "--out", "merged")
    assert twice.exit_code != 0
    assert "is also in" in twice.output
    assert "merge each shard once" in twice.output
    (project / "empty").mkdir()
    nothing = mobster("report", "merge", "empty")
    assert nothing.exit_code != 0
    assert "no results.json here" in nothing.output
    (project / "bad").mkdir()
    (project / "bad" / "results.json").write_text('{"schema": "other"}')
    bad = mobster("report", "merge", "bad")
    assert "not a mobster.test/1 document" in bad.output
    assert not (project / "merged").exists()


def test_report_open_prints_the_newest_page(project: Path) -> None:
    assert "no report in" in mobster("report", "open").output
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    second = _suite(mobster("test", "--scripted", "app.yaml").output)
    shown = mobster("report", "open")
    assert shown.exit_code == 0
    assert shown.output.strip() == str(second / "index.html")
    run = mobster("report", "open", "--run").output.strip()
    assert run.startswith(".mobster/runs/")
    assert run.endswith("/report.html")


def test_junit_lists_the_steps_names_where_it_stopped_and_attaches_the_report(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    result = mobster("test", "signup.yaml", "--scripted", "renamed.yaml", "--no-heal", "--junit", "out.xml")
    assert result.exit_code == 1
    case = ET.fromstring((project / "out.xml").read_bytes()).find("testsuite/testcase")
    assert case is not None
    failure, out = case.find("failure"), case.findtext("system-out") or ""
    assert failure is not None
    assert failure.get("type") == "drift"
    assert (failure.text or "").endswith('stopped at step 3 (Tap "Continue"): "Continue" isn\'t on the screen')
    lines = out.splitlines()
    assert lines[1:4] == [
        'step 1 replayed: Tap "Sign up" (waited 0.00 s, 100% alike)',
        'step 2 replayed: Type "ada@example.com" into "Email" (waited 0.15 s, 60% alike)',
        'step 3 drifted: Tap "Continue": "Continue" isn\'t on the screen',
    ]
    doc = json.loads((_suite(result.output) / "results.json").read_text())
    attachment = f"[[ATTACHMENT|{doc['checks'][0]['run_dir']}/report.html]]"
    assert lines[-1] == attachment
    assert (project / doc["checks"][0]["run_dir"] / "report.html").is_file()
