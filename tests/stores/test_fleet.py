"""The fleet benchmark, small, in the suite: 3 machines (processes) at once on 3 unrecorded checks.

``benchmarks/bench_fleet.py --quick`` against the session's real PostgreSQL and S3 API server:
each check is recorded exactly once, the fleet's model calls are one machine's, every other run
replays at $0, every path in the store is its recorder's (no lost update), and a recorder
killed mid-record (SIGKILL) has its lease taken over within the lease's expiry. The figures of
the full size (8 machines, 10 checks) are in docs/benchmarks.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mobster_drivers.testing.stores import PostgresServer, S3Server
from tests.stores.conftest import BUCKET
from tests.test_benchmarks_smoke import load

ROOT = Path(__file__).resolve().parents[2]


def environment() -> dict[str, str]:
    env = {**os.environ, **S3Server.ENVIRONMENT}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def check_figures(result: dict[str, Any]) -> None:
    assert result["each_check_recorded_once"], result["recorded_per_check"]
    assert result["fleet_model_calls"] == result["baseline_model_calls"] > 0
    assert (result["other_runs"], result["other_runs_model_calls"]) == (6, 0)
    assert result["no_lost_update"]
    assert result["verdicts"] == [["passed", 9]] or result["verdicts"] == [("passed", 9)]
    assert result["lease_waits"] >= 1  # the others waited for the recorder, and the wait was measured
    killed = result["killed"]
    assert (killed["next_mode"], killed["next_verdict"], killed["within_expiry"]) == ("smart", "passed", True), killed
    bench = load("bench_fleet")
    assert bench.holds(result)


def test_the_fleet_records_each_check_once_on_postgres(postgres_server: PostgresServer) -> None:
    bench = load("bench_fleet")
    args = bench.options(["--quick"])
    check_figures(
        bench.measure("postgres", 3, 3, args, ({"kind": "postgres", "url": postgres_server.url}, environment()))
    )


def test_the_fleet_records_each_check_once_on_s3(s3_server: S3Server) -> None:
    bench = load("bench_fleet")
    args = bench.options(["--quick"])
    base = {"kind": "s3", "endpoint": s3_server.endpoint, "bucket": BUCKET}
    check_figures(bench.measure("s3", 3, 3, args, (base, environment())))


def test_a_fleet_that_loses_an_update_fails_the_figures() -> None:
    bench = load("bench_fleet")
    good = {
        "each_check_recorded_once": True, "no_lost_update": True, "fleet_model_calls": 12, "baseline_model_calls": 12,
        "other_runs_model_calls": 0, "killed": {"within_expiry": True, "next_mode": "smart"},
    }  # fmt: skip
    assert bench.holds(good)
    for broken in ({"no_lost_update": False}, {"fleet_model_calls": 24}, {"each_check_recorded_once": False}):
        assert not bench.holds({**good, **broken})
    with pytest.raises(KeyError):
        bench.holds({})
