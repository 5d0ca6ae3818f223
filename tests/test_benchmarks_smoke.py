"""The benchmarks run at a tiny scale: the shape of what they write and their model-call counts.

Never a timing: the figures themselves are measured by running the benchmarks (docs/benchmarks.md).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
MODE_KEYS = {
    "mode", "runs", "steps_s", "run_s", "floor_s", "rule_wait_s", "ratio", "rule_ratio", "run_floor_s", "run_ratio",
    "model_calls", "cost_usd",
}  # fmt: skip


def load(name: str) -> ModuleType:
    """Import ``benchmarks/<name>.py`` (a folder of scripts, not a package)."""
    module_name = f"_bench_{name}"
    spec = importlib.util.spec_from_file_location(module_name, BENCHMARKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def run(name: str, *argv: str) -> int:
    code = load(name).main(list(argv))
    assert isinstance(code, int)
    return code


def read_json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def test_bench_replay_counts_model_calls_per_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replay.json"
    modes = "fresh,replay,heal,heal-first,heal-last"
    code = run("bench_replay", "--runs", "1", "--scale", "0.01", "--fake-clock", "--modes", modes, "--json", str(out))
    assert code == 0
    doc = read_json(out)
    assert [m["mode"] for m in doc["modes"]] == modes.split(",")
    for mode in doc["modes"]:
        assert set(mode) == MODE_KEYS
        assert mode["runs"] == 1
        assert mode["floor_s"] > 0
        assert mode["ratio"] > 0
        assert mode["run_floor_s"] > mode["floor_s"]
        assert mode["run_ratio"] > 0
        assert mode["rule_wait_s"] >= 0
        with_rule = mode["steps_s"] / (mode["floor_s"] + mode["rule_wait_s"])
        assert mode["rule_ratio"] == pytest.approx(with_rule, rel=1e-2)  # of a run's own, unrounded figures
    assert doc["meta"]["one_at_a_time"] is True  # every benchmark runs on the faithful model
    assert doc["meta"]["frames"] is True
    calls = {m["mode"]: m["model_calls"] for m in doc["modes"]}
    steps = doc["meta"]["steps"]
    assert steps == 6
    # fresh: one call a step and the one that says done; replay: none; heal: one for the renamed step,
    # wherever it is (after a renamed last step the check's expectations end the heal, no "done").
    assert calls == {"fresh": steps + 1, "replay": 0, "heal": 1, "heal-first": 1, "heal-last": 1}
    by_mode = {m["mode"]: m for m in doc["modes"]}
    assert by_mode["replay"]["cost_usd"] == 0
    assert by_mode["fresh"]["rule_wait_s"] == by_mode["replay"]["rule_wait_s"] == 0  # no step drifted
    assert by_mode["fresh"]["cost_usd"] > by_mode["heal"]["cost_usd"] > 0
    assert doc["detail"]["heal"]["sources"].count("healed") == 1
    assert doc["detail"]["replay"]["verdicts"] == ["passed"]
    printed = capsys.readouterr().out
    assert "fresh/replay" in printed
    assert "10.4 s / 3.3 s" in printed


def test_bench_replay_holds_every_heal_to_its_floor_with_the_drift_rule(tmp_path: Path) -> None:
    from mobster_core import RunOptions
    from mobster_drivers.devices.scripted import PROFILES

    bench = load("bench_replay")
    six, two = tmp_path / "six.json", tmp_path / "two.json"
    assert (
        bench.main(
            ["--runs", "1", "--fake-clock", "--quiet", "--modes", "heal,heal-first,heal-last", "--json", str(six)]
        )
        == 0
    )
    two_step = ["--app", "mobster_drivers/devices/scripted/samples/yourapp.yaml", "--rename", "Settings=Preferences"]
    two_step += ["--check", str(BENCHMARKS / "data" / "settings-offers-pro-2-steps.yaml")]
    assert bench.main(["--runs", "1", "--fake-clock", "--quiet", "--modes", "heal", *two_step, "--json", str(two)]) == 0
    modes = {f"{doc}-{m['mode']}": m for doc, path in (("six", six), ("two", two)) for m in read_json(path)["modes"]}
    for name, mode in modes.items():
        assert mode["rule_ratio"] <= bench.HELD_TO, name
    # A step 1 that drifts on the screen the launch left: the rule's second counts from the baseline read's
    # start, and the screen was seen settled two reads later (the baseline's, one more that agreed).
    read = PROFILES["usb-iphone"].read
    for name in ("two-heal", "six-heal-first"):
        assert modes[name]["rule_wait_s"] == pytest.approx(RunOptions().policy.drift_after - 2 * read, abs=1e-3), name
    # A middle or last step drifts after a screen transition longer than the rule's second: nothing left.
    assert modes["six-heal"]["rule_wait_s"] == modes["six-heal-last"]["rule_wait_s"] == 0


def test_bench_replay_runs_on_the_scripted_android_phone_within_its_floor(tmp_path: Path) -> None:
    bench = load("bench_replay")
    out = tmp_path / "android.json"
    assert (
        bench.main(
            ["--android", "--runs", "1", "--fake-clock", "--quiet", "--modes", "replay,heal", "--json", str(out)]
        )
        == 0
    )
    doc = read_json(out)
    assert (doc["meta"]["platform"], doc["meta"]["latency"], doc["meta"]["app"]) == (
        "android",
        "android",
        "settings-paywall-android.yaml",
    )
    modes = {m["mode"]: m for m in doc["modes"]}
    assert modes["replay"]["model_calls"] == 0
    assert modes["replay"]["ratio"] <= 1.0  # replay within its floor on Android too
    assert modes["heal"]["rule_ratio"] <= bench.HELD_TO


def test_a_drifts_rule_wait_is_what_remains_of_its_second_once_settled() -> None:
    bench = load("bench_replay")
    assert bench.DriftMark(began=2.5, settled=3.0, drift_after=1.0).rule_wait == pytest.approx(0.5)
    assert bench.DriftMark(began=2.5, settled=4.0, drift_after=1.0).rule_wait == 0  # settled after the second
    assert bench.DriftMark(began=2.5, settled=float("nan"), drift_after=1.0).rule_wait == 0  # never settled
    assert bench.DriftMark(began=0.0, settled=0.25, drift_after=2.0).rule_wait == pytest.approx(1.75)


def test_bench_replay_runs_on_the_real_clock(tmp_path: Path) -> None:
    out = tmp_path / "replay.json"
    code = run("bench_replay", "--runs", "1", "--scale", "0.01", "--modes", "replay", "--quiet", "--json", str(out))
    assert code == 0
    doc = read_json(out)
    (mode,) = doc["modes"]
    assert set(mode) == MODE_KEYS
    assert (mode["mode"], mode["model_calls"], mode["cost_usd"]) == ("replay", 0, 0)
    assert doc["meta"]["clock"] == "real"


def test_bench_replay_rejects_a_rename_of_nothing(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no element is labelled"):
        run("bench_replay", "--runs", "1", "--fake-clock", "--quiet", "--rename", "Nope=Yes")


def test_bench_policies_counts_calls_and_wrong_actions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "policies.json"
    names = [
        "unchanged",
        "renamed-button",
        "renamed-last",
        "inserted-popup",
        "small-banner",
        "duplicate-before",
        "duplicate-recorded-banner",
        "duplicate-recorded-shifted",
    ]
    assert run("bench_policies", "--only", ",".join(names), "--json", str(out)) == 0
    doc = read_json(out)
    by = {(o["scenario"], o["policy"]): o for o in doc["outcomes"]}
    assert set(by) == {(n, p) for n in names for p in doc["policies"]}
    for policy in ("ours", "ours+oracle"):
        calls = {n: by[(n, policy)]["model_calls"] for n in names}
        assert calls["unchanged"] == 0
        assert calls["renamed-button"] == 1  # one call per renamed step
        assert calls["renamed-last"] == 1  # the healed action; the expectations end the heal
        assert calls["inserted-popup"] == 1
        assert calls["duplicate-before"] == 1  # a copy above: a heal, never a tap on the copy
        assert calls["duplicate-recorded-banner"] == 0  # two when recorded, two now: the recorded one
        assert by[("unchanged", policy)]["replayed"] == 6
        assert all(by[(n, policy)]["wrong"] == 0 for n in names)
    assert all(by[(n, "ours+oracle")]["verdict"] == "passed" for n in names)
    # The scripted model says blocked between two cells of one label: no wrong tap, a failed check.
    assert by[("duplicate-before", "ours")]["verdict"] == "failed"
    assert by[("unchanged", "no-cache")]["model_calls"] == 7
    assert by[("unchanged", "exact-hash-step")]["model_calls"] == 0
    assert by[("small-banner", "path-replay")]["wrong"] > 0  # the detector sees a tap on a shifted path
    # The tie broken by the recorded path alone (the rule before duplicates were counted) taps the copy.
    assert by[("duplicate-recorded-shifted", "jaccard-0.8")]["wrong"] == 1
    assert set(doc["totals"]["ours"]) == {"model_calls", "replayed", "wrong", "passed", "failed", "seconds"}
    assert doc["findings"]
    assert "ours+oracle" in capsys.readouterr().out


def test_bench_policies_lists_about_twenty_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("bench_policies", "--list") == 0
    lines = capsys.readouterr().out.splitlines()
    assert 25 <= len(lines) <= 35


def test_bench_core_quick(tmp_path: Path) -> None:
    out = tmp_path / "core.json"
    assert run("bench_core", "--quick", "--json", str(out)) == 0
    doc = read_json(out)
    assert set(doc["per_read_ms"]) == {"50", "200", "1000"}
    for figures in doc["per_read_ms"].values():
        assert {"signature_ms", "hash_ms", "fingerprint_ms", "match_step_ms", "poll_decision_ms", "per_step_ms"} <= set(
            figures
        )
        assert 0 < figures["same_source_ms"] < figures["per_step_ms"]  # a poll that saw nothing new costs less
    assert [r["steps"] for r in doc["whole_replays"]] == [10, 100]
    assert set(doc["ledger_us_per_action"]) == {"10", "100"}
    assert doc["load_path_50_ms"] > 0
    assert set(doc["cache_lookup_us_per_check"]) == {"100", "200"}
    assert all(us > 0 for us in doc["cache_lookup_us_per_check"].values())


def test_bench_builds_quick(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "builds.json"
    assert run("bench_builds", "--quick", "--json", str(out)) == 0
    doc = read_json(out)
    assert (doc["builds"], doc["checks"]) == (8, 4)
    assert len(doc["series"]) == 8
    assert len(doc["runs"]) == 8 * 4 * 2
    assert doc["with_carry"]["wrong"] == 0
    assert doc["verdicts_differ"] == 0
    # Without carry every new build records afresh; with carry the first build alone records.
    first = [r for r in doc["runs"] if r["build"] == 1]
    assert {r["path_mode"] for r in first} == {"smart"}
    later_fresh = [r for r in doc["runs"] if r["build"] > 1 and r["mode"] == "fresh"]
    assert {r["path_mode"] for r in later_fresh} == {"smart"}
    assert doc["with_carry"]["model_calls"] < doc["without_carry"]["model_calls"]
    assert 0 < doc["cache_hit_rate"] <= doc["carried_rate"] <= 1
    assert "Cache-hit rate, builds 2..8" in capsys.readouterr().out


def test_bench_builds_every_kind_of_change_keeps_actions_right(tmp_path: Path) -> None:
    out = tmp_path / "builds.json"
    mix = "popup=1,new-screen=1,remove-step=1,duplicate=1,past-breaker=1,rename=1,bug=1"
    # Seed 21 draws a popup, a duplicate, a bug, a flow past the breaker, a rename and a removed level.
    assert run("bench_builds", "--builds", "7", "--checks", "3", "--seed", "21", "--mix", mix, "--json", str(out)) == 0
    doc = read_json(out)
    kinds = [s["kind"] for s in doc["series"]]
    assert kinds == ["first", "popup", "duplicate", "bug", "past-breaker", "rename", "remove-step"]
    assert not any(s["what"].startswith("nothing (") for s in doc["series"])
    assert doc["with_carry"]["not_passed"] == doc["without_carry"]["not_passed"] > 0  # the bug fails both
    assert doc["with_carry"]["wrong"] == 0
    assert doc["verdicts_differ"] == 0
    assert doc["with_carry"]["heals"] > 0


def test_bench_builds_rejects_an_unknown_change() -> None:
    with pytest.raises(SystemExit):
        run("bench_builds", "--quick", "--mix", "teleport=3")


def test_bench_screenshots_quick(tmp_path: Path) -> None:
    out = tmp_path / "pictures.json"
    assert run("bench_screenshots", "--quick", "--json", str(out)) == 0
    doc = read_json(out)
    assert {
        "home",
        "welcome",
        "signup",
        "signup typed",
        "settings",
        "paywall",
        "done",
        "150 elements",
        "hostile",
    } == set(doc["screens"])
    for figures in doc["screens"].values():
        assert {"cold_ms", "warm_ms", "draw_ms", "encode_ms", "cached_ms", "bytes"} <= set(figures)
        assert figures["bytes"] > 1000
    assert doc["screens"]["150 elements"]["elements"] == 150
    assert doc["toolkit"]["thumbnail_bytes"] > 0


def test_bench_ci_quick(tmp_path: Path) -> None:
    out = tmp_path / "ci.json"
    assert run("bench_ci", "--builds", "3", "--checks", "3", "--json", str(out)) == 0
    doc = read_json(out)
    modes = doc["modes"]
    assert set(modes) == {"long-lived", "committed", "cache", "neither"}
    assert doc["travelling_within_long_lived"] is True
    # a fresh runner with no path records every check on every build; travelling paths don't
    assert modes["neither"]["model_calls"] > modes["committed"]["model_calls"]
    assert modes["committed"]["model_calls"] <= modes["long-lived"]["model_calls"]
    assert modes["cache"]["model_calls"] <= modes["long-lived"]["model_calls"]
    assert all(m["verdicts_differ"] == 0 for m in modes.values())
    assert {r["runner"] for r in doc["runs"] if r["mode"] == "committed"} == {1, 2, 3}


def test_bench_flows_records_the_login_once_heals_it_once_and_rows_keep_two_paths(tmp_path: Path) -> None:
    out = tmp_path / "flows.json"
    assert run("bench_flows", "--checks", "3", "--json", str(out)) == 0
    doc = read_json(out)
    flow, copied, rows = doc["flow"], doc["copied"], doc["rows"]
    # The login is recorded by the first check only (3 steps and done), each check's own 2 steps and done.
    assert [flow[r]["model_calls"] for r in ("first", "second", "renamed")] == [4 + 3 * 3, 0, 1]
    assert [copied[r]["model_calls"] for r in ("first", "second", "renamed")] == [6 * 3, 0, 3]
    assert (flow["heal_entries"], copied["heal_entries"]) == (1, 3)
    assert flow["renamed"]["passed"] == copied["renamed"]["passed"] == 3
    assert rows["paths_of_the_rows"] == 2
    assert [r["verdicts"] for r in rows["runs"]] == [["right"] * 5] * 2
    assert [(r["wrong_taps"], r["model_calls"] == 0) for r in rows["runs"]] == [(0, False), (0, True)]
