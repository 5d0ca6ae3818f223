"""``benchmarks/bench_wda_reads.py --quick``: the shape of what it writes, never a timing.

It drives the real WDA device through the fake WDA (and the Appium device through the fake Appium
server in front of it) on the real clock (about 3 s: the reads are real HTTP requests, held as the
cost model says, scaled down 20 times).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_wda_reads.py"


def test_bench_wda_reads_quick(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("_bench_wda_reads", BENCHMARK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_bench_wda_reads"] = module
    spec.loader.exec_module(module)
    out = tmp_path / "reads.json"
    assert module.main(["--quick", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc) == {"meta", "reads", "appium_reads", "replay", "verdict", "trees"}
    assert doc["reads"]["nodes"] == doc["appium_reads"]["nodes"] == 152
    for key in ("fast_read_s", "fast_read_and_query_s", "evidence_read_s", "target_check_s"):
        assert doc["appium_reads"][key] > 0
    assert [s["scenario"] for s in doc["replay"]] == ["plain", "stacked"]
    for scenario in doc["replay"]:
        assert scenario["nodes"] == 151
        assert [r["step"] for r in scenario["per_step"]] == [1, 2]
        assert all(r["polls"] >= 1 for r in scenario["per_step"])
        assert scenario["floor_s"] > 0
    plain, stacked = doc["replay"]
    assert plain["queries_last_run"] == 0  # nothing stacked: the fast read never asks WDA
    assert stacked["queries_last_run"] >= 2  # one question per new screen with a hidden page on it
    assert plain["checks_last_run"] == stacked["checks_last_run"] == 2  # one check before each tap
    assert doc["verdict"]["reads"] >= 2
    if doc["trees"]:
        for tree in doc["trees"]:
            assert tree["ways"]["rules + WDA's answer"]["false_shown"] == 0
            assert tree["ways"]["evidence read"] == {
                **tree["ways"]["evidence read"],
                "false_shown": 0,
                "false_hidden": 0,
            }
        hidden_pages = next(t for t in doc["trees"] if t["tree"] == "hidden-pages.xml")
        assert hidden_pages["ways"]["geometry only"]["false_shown"] == 4  # the bug this benchmark measures
    assert "Replayed steps" in capsys.readouterr().out
