"""Merging shards' results (``_store/merge.py``): every entry kept with its device, the summary recomputed."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from mobster_core import CheckResult, DeviceInfo, DeviceKind, FailureClass, Outcome, Verdict
from mobster_core.results import Cost, HealEntry, Mode
from mobster_report._merge import MergeError, merge_documents, merge_suites


def entry(name: str, device: str, verdict: str, run: str, **more: Any) -> dict[str, Any]:
    """A check's entry as a run writes it; ``heals`` gives each heal's number of actions."""
    healed = tuple(
        HealEntry(n + 1, 'Tap "A"', 'Tap "B"', '"A" isn\'t on the screen', ({"op": "TAP"},), ({"op": "TAP"},) * actions)
        for n, actions in enumerate(more.get("heals", ()))
    )
    return CheckResult(
        name=name, file=f".mobster/checks/{name}.yaml", device=DeviceInfo(device, "26.4", DeviceKind.SIMULATOR),
        app=None, outcome=Outcome(Verdict(verdict), None if verdict == "passed" else FailureClass.ASSERTION),
        mode=Mode.REPLAY, seconds=1.0, cost=Cost(more.get("cost", 0.0), more.get("estimated", False)),
        model_calls=more.get("calls", 0), identity=None, env=None, path_used=True, path_why=None, steps=(),
        heals=healed, assertions=(), run_dir=f".mobster/runs/{run}", stable=True,
    ).to_dict()  # fmt: skip


def doc(suite_id: str, *checks: dict[str, Any], seconds: float = 10.0) -> dict[str, Any]:
    return {"schema": "mobster.test/1", "suite_id": suite_id, "started_at": f"2026-12-01T0{suite_id}:00:00Z",
            "seconds": seconds, "checks": list(checks)}  # fmt: skip


def test_each_run_keeps_its_device_and_the_summary_is_recomputed() -> None:
    one = doc("1", entry("signup", "iPhone 17", "passed", "a"), entry("signup", "iPhone SE", "failed", "b"))
    two = doc("2", entry("paywall", "iPhone 17", "passed", "c", calls=1, cost=0.002, estimated=True,
                         heals=[2]), seconds=5.0)  # fmt: skip
    merged = merge_documents([two, one])
    assert [(c["name"], c["device"]["name"]) for c in merged["checks"]] == [
        ("paywall", "iPhone 17"), ("signup", "iPhone 17"), ("signup", "iPhone SE"),
    ]  # fmt: skip
    assert merged["summary"] == {
        "passed": 2, "failed": 1, "needs_review": 0, "couldnt_run": 0,
        "healed_steps": 2, "model_calls": 1, "cost_usd": 0.002, "cost_estimated": True,
        "replayed_with_no_model": 2,  # the two signup runs; paywall's heal called the model
        "flaky": 0,
    }  # fmt: skip
    assert (merged["exit_code"], merged["seconds"], merged["started_at"]) == (1, 15.0, "2026-12-01T01:00:00Z")
    assert merged["merged_from"] == ["2", "1"]


def test_the_same_run_twice_is_refused() -> None:
    one = doc("1", entry("signup", "iPhone 17", "passed", "a"))
    with pytest.raises(MergeError, match=r"second: the run \.mobster/runs/a is also in first; merge each shard once"):
        merge_documents([one, one], ["first", "second"])


def test_junit_keeps_one_testcase_per_check_and_device(tmp_path: Path) -> None:
    for n, devices in ((1, ["iPhone 17", "iPhone SE"]), (2, ["iPhone 17"])):
        folder = tmp_path / f"shard{n}" / ".mobster" / "test-results" / f"s{n}"
        folder.mkdir(parents=True)
        checks = [entry(f"c{n}", d, "passed", f"r{n}{d[-2:]}") for d in devices]
        (folder / "results.json").write_text(json.dumps(doc(str(n), *checks)))
        cases = "".join(f'<testcase classname="c{n}" name="c{n} on {d}" time="1.000"/>' for d in devices)
        (folder / "junit.xml").write_text(
            f'<?xml version="1.0"?><testsuites><testsuite name="mobster test" tests="{len(devices)}" failures="0" '
            f'errors="0" skipped="0" time="2.000" timestamp="2026-12-01T0{n}:00:00">{cases}</testsuite></testsuites>'
        )
    merged = merge_suites([tmp_path / "shard1", tmp_path / "shard2"], tmp_path / "out")
    assert len(merged["checks"]) == 3
    suite = ET.fromstring((tmp_path / "out" / "junit.xml").read_bytes()).find("testsuite")
    assert suite is not None
    assert [c.get("name") for c in suite.findall("testcase")] == [
        "c1 on iPhone 17",
        "c1 on iPhone SE",
        "c2 on iPhone 17",
    ]
    assert (suite.get("tests"), suite.get("time"), suite.get("timestamp")) == ("3", "4.000", "2026-12-01T01:00:00")
    index = (tmp_path / "out" / "index.html").read_text()
    assert 'href="../shard1/.mobster/runs/r117/report.html"' in index
    assert 'href="../shard2/.mobster/runs/r217/report.html"' in index


def test_a_shard_whose_entry_holds_a_wrong_type_is_refused_naming_the_file_and_the_key(tmp_path: Path) -> None:
    bad = entry("signup", "iPhone 17", "passed", "a")
    bad["steps"] = "none"  # a hand-edited or truncated file: it would add up to a wrong summary
    folder = tmp_path / "shard"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(doc("1", entry("paywall", "iPhone 17", "passed", "b"), bad)))
    with pytest.raises(MergeError, match=r"shard/results\.json: checks\[1\]\.steps: expected a list, got 'none'"):
        merge_suites([folder], tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing is written


def test_an_entry_a_later_version_wrote_merges_unchanged() -> None:
    later = {**entry("signup", "iPhone 17", "passed", "a"), "coverage": {"screens": 3}}
    merged = merge_documents([doc("1", later)])
    assert merged["checks"] == [later]
    assert merged["summary"]["passed"] == 1
