"""A CI fleet on one team store: 8 machines start at once on 10 unrecorded checks (issue 42).

Against each engine for real: a throwaway PostgreSQL 15 on a unix socket and moto's S3 API on
loopback (``mobster_drivers.testing.stores``). Each machine is its own process with its own
checkout of the project, one scripted phone and the scripted model (every call waits
``--model-delay`` seconds, as a model's round trip does), on the **real clock**, running the suite
with ``RunOptions(paths=<the store>, lease=LeasePolicy(...))`` as ``mobster test --paths URL`` does.
The processes are started, wait until each is ready, and are released at once.

Measured, per store:

1. ``baseline``: one machine alone records the suite on an empty store: its model calls;
2. ``fleet``: ``--processes`` machines at once on another empty store: how many times each check
   was recorded (exactly once), the fleet's model calls against the baseline's (equal), the model
   calls of every other machine's runs (0: they replay), the paths in the store (one per check,
   each holding what its recorder wrote: no lost update), and the seconds the fleet spent
   waiting for leases (each replay that waited, from the lease's log);
3. ``killed``: a machine takes the lease of one check and is killed (SIGKILL) while it records; a
   machine started then takes the lease over and records: the seconds from the kill to the
   takeover, against ``--lease-s`` (a killed recorder's lease expires within it).

Usage::

    python benchmarks/bench_fleet.py                       # 8 processes, 10 checks, both stores: ~2 min
    python benchmarks/bench_fleet.py --quick               # 3 processes, 3 checks (what the suite runs)
    python benchmarks/bench_fleet.py --stores postgres --processes 8 --checks 10 --json fleet.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CHECK = """\
version: 1
name: Sign up {n}
app: {{bundle: com.example.yourapp}}
steps:
  - Tap "Sign up"
  - Type "ada{n}@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
BUCKET = "mobster-fleet"
STORES = ("postgres", "s3")


def project(root: Path, checks: int) -> None:
    folder = root / ".mobster" / "checks"
    folder.mkdir(parents=True)
    for n in range(1, checks + 1):
        (folder / f"signup{n:02d}.yaml").write_text(CHECK.format(n=n))


# -- one machine (a process of its own) ----------------------------------------------------------------


class _Waits(logging.Handler):
    """The lease's log records of this machine: the seconds each run waited, and what it did then."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        waited = getattr(record, "waited_s", None)
        if waited is not None:
            self.seen.append({"event": record.getMessage(), "waited_s": float(waited)})


def _store(spec: dict[str, Any]) -> Any:
    from mobster_drivers.stores._postgres import PostgresPaths
    from mobster_drivers.stores._s3 import S3Paths

    if spec["kind"] == "postgres":
        return PostgresPaths(spec["url"], store=spec["name"], shown="postgresql://fleet")
    return S3Paths(spec["bucket"], spec["prefix"], endpoint=spec["endpoint"])


def machine(spec: dict[str, Any]) -> dict[str, Any]:
    """One machine's suite (its own checkout of the project): what each check did, and its lease waits."""
    import mobster_core as mc
    from mobster_core.paths import LeasePolicy, RecordedBy
    from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
    from mobster_drivers.models.scripted import ScriptedModel

    waits = _Waits()
    claim = logging.getLogger("mobster.core._run.claim")
    claim.setLevel(logging.DEBUG)
    claim.addHandler(waits)
    clock = mc.SystemClock()
    root = Path(spec["root"])
    models: list[ScriptedModel] = []

    def model() -> ScriptedModel:
        made = ScriptedModel(clock=clock, delay=spec["model_delay"])
        models.append(made)
        return made

    policy = LeasePolicy(lease_s=spec["lease_s"], wait_s=spec["wait_s"], poll_s=spec["poll_s"])
    options = mc.RunOptions(
        root=root, paths=_store(spec), lease=policy, recorder=RecordedBy(machine=spec["machine"]), screenshots=False
    )
    phone = ScriptedPhone.from_text(sample_path("yourapp").read_text(), clock=clock)
    files = mc.find_checks(root)[: spec.get("only") or None]
    began = time.perf_counter()
    suite = asyncio.run(mc.run_suite(files, [phone], clock, models=model, options=options))
    return {
        "machine": spec["machine"],
        "seconds": round(time.perf_counter() - began, 3),
        "checks": [
            {
                "name": c.name,
                "identity": c.identity,
                "env": c.env,
                "verdict": c.verdict.value,
                "mode": None if c.mode is None else c.mode.value,
                "model_calls": c.model_calls,
            }
            for c in suite.checks
        ],
        "waits": waits.seen,
    }


def _worker(raw: str) -> int:
    spec = json.loads(raw)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return 2
    print(json.dumps(machine(spec)), flush=True)
    return 0


# -- the fleet -----------------------------------------------------------------------------------------


def _start(spec: dict[str, Any], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=spec["root"],
    )


def _fleet(specs: list[dict[str, Any]], env: dict[str, str]) -> list[dict[str, Any]]:
    """Start every machine, wait until each is ready, release them at once, and collect what each did."""
    workers = [_start(s, env) for s in specs]
    try:
        for w in workers:
            assert w.stdout is not None
            if w.stdout.readline().strip() != "ready":
                raise RuntimeError("a machine did not start")
        for w in workers:
            assert w.stdin is not None
            w.stdin.write("go\n")
            w.stdin.flush()
        out = []
        for w in workers:
            assert w.stdout is not None
            line = w.stdout.readline()
            w.wait(600)
            if w.returncode != 0 or not line:
                raise RuntimeError(f"a machine failed (exit {w.returncode})")
            out.append(json.loads(line))
        return out
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()


@contextlib.contextmanager
def server(kind: str) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """The real server of ``kind``; the store spec's base and the machines' environment."""
    from mobster_drivers.testing.stores import PostgresServer, S3Server, postgres_unavailable, s3_unavailable

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    if kind == "postgres":
        why = postgres_unavailable()
        if why:
            raise RuntimeError(why)
        with PostgresServer() as pg:
            yield {"kind": "postgres", "url": pg.url}, env
        return
    why = s3_unavailable()
    if why:
        raise RuntimeError(why)
    os.environ.update(S3Server.ENVIRONMENT)
    env.update(S3Server.ENVIRONMENT)
    with S3Server() as s3:
        s3.bucket(BUCKET)
        yield {"kind": "s3", "endpoint": s3.endpoint, "bucket": BUCKET}, env


def _fresh(base: dict[str, Any]) -> dict[str, Any]:
    """An empty store on the server: a store name (PostgreSQL) or a prefix (S3) of its own."""
    name = f"fleet-{uuid.uuid4().hex[:10]}"
    return {**base, "name": name, "prefix": name}


def _checkout(template: Path, folder: Path) -> Path:
    shutil.copytree(template, folder)
    return folder


def measure(
    kind: str,
    processes: int,
    checks: int,
    args: argparse.Namespace,
    given: tuple[dict[str, Any], dict[str, str]] | None = None,
) -> dict[str, Any]:
    """Steps 1-3 of the module on ``kind``'s server (``given``: one already running, its base spec and environment)."""
    with contextlib.ExitStack() as stack:
        base, env = given if given is not None else stack.enter_context(server(kind))
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-fleet-"))
        template = Path(tmp) / "project"
        project(template, checks)
        timing = {
            "model_delay": args.model_delay,
            "lease_s": args.lease_s,
            "wait_s": args.wait_s,
            "poll_s": args.poll_s,
        }
        # 1. one machine alone: the model calls a recording of the suite costs
        alone = {**_fresh(base), **timing, "machine": "alone", "root": str(_checkout(template, Path(tmp) / "alone"))}
        [baseline] = _fleet([alone], env)
        # 2. the fleet on an empty store
        store = _fresh(base)
        specs = [
            {**store, **timing, "machine": f"ci-{n}", "root": str(_checkout(template, Path(tmp) / f"ci-{n}"))}
            for n in range(processes)
        ]
        began = time.perf_counter()
        machines = _fleet(specs, env)
        fleet_s = time.perf_counter() - began
        result = _judge(kind, store, baseline, machines, fleet_s, checks)
        # 3. a recorder killed mid-record
        result["killed"] = _killed(base, template, Path(tmp), env, args)
        return result


def _judge(
    kind: str, store: dict[str, Any], baseline: dict[str, Any], machines: list[dict[str, Any]], seconds: float,
    checks: int,
) -> dict[str, Any]:  # fmt: skip
    runs = [c for m in machines for c in m["checks"]]
    recorded = Counter(c["identity"] for c in runs if c["mode"] == "smart")
    recorders = {c["identity"]: m["machine"] for m in machines for c in m["checks"] if c["mode"] == "smart"}
    others = [c for c in runs if c["mode"] != "smart"]
    waits = [w["waited_s"] for m in machines for w in m["waits"] if "replaying" in w["event"]]
    kept = _kept(store)
    holders_match = all(kept.get(identity) == machine for identity, machine in recorders.items())
    return {
        "store": kind,
        "processes": len(machines),
        "checks": checks,
        "fleet_s": round(seconds, 2),
        "verdicts": sorted(Counter(c["verdict"] for c in runs).items()),
        "recorded_per_check": sorted(Counter(recorded.values()).items()),
        "each_check_recorded_once": len(recorded) == checks and set(recorded.values()) == {1},
        "baseline_model_calls": sum(c["model_calls"] for c in baseline["checks"]),
        "fleet_model_calls": sum(c["model_calls"] for c in runs),
        "other_runs": len(others),
        "other_runs_model_calls": sum(c["model_calls"] for c in others),
        "paths_in_store": len(kept),
        "no_lost_update": holders_match and len(kept) == checks,
        "lease_waits": len(waits),
        "lease_wait_total_s": round(sum(waits), 2),
        "lease_wait_max_s": round(max(waits, default=0.0), 2),
        "machine_seconds": sorted(m["seconds"] for m in machines),
    }


def _kept(spec: dict[str, Any]) -> dict[str, str | None]:
    """Each path in the store: which machine its ``recorded_by`` names."""
    store = _store(spec)
    kept = {}
    for identity, env in store.names():
        doc = json.loads(store.read(identity, env, max_bytes=8 << 20).data)
        kept[identity] = (doc.get("recorded_by") or {}).get("machine")
    return kept


def _killed(
    base: dict[str, Any], template: Path, tmp: Path, env: dict[str, str], args: argparse.Namespace
) -> dict[str, Any]:
    """Rule 3 of the module: a machine killed while it records; the next takes the lease over."""
    from mobster_core.paths import check_document_name

    store = _fresh(base)
    slow = {
        **store, "model_delay": 30.0, "lease_s": args.lease_s_killed, "wait_s": args.wait_s, "poll_s": args.poll_s,
        "machine": "doomed", "root": str(_checkout(template, tmp / "doomed")), "only": 1,
    }  # fmt: skip
    doomed = _start(slow, env)
    try:
        assert doomed.stdout is not None
        assert doomed.stdin is not None
        doomed.stdout.readline()
        doomed.stdin.write("go\n")
        doomed.stdin.flush()
        opened = _store(store)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not opened.documents("leases/"):
            time.sleep(0.05)  # the benchmark waits for a real process to take a real lease
        [lease] = opened.documents("leases/")
        check_document_name(lease)
    finally:
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
    killed_at = time.perf_counter()
    after = {**slow, "model_delay": args.model_delay, "machine": "next", "root": str(_checkout(template, tmp / "next"))}
    [nxt] = _fleet([after], env)
    took = [w["waited_s"] for w in nxt["waits"] if w["event"] == "recording lease taken"]
    return {
        "lease_s": args.lease_s_killed,
        "takeover_after_kill_s": round(took[0], 2) if took else None,
        "within_expiry": bool(took) and took[0] <= args.lease_s_killed + 2 * args.poll_s,
        "next_mode": nxt["checks"][0]["mode"],
        "next_verdict": nxt["checks"][0]["verdict"],
        "wall_s_from_kill": round(time.perf_counter() - killed_at, 2),
    }


def options(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--quick``'s sizes applied)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--stores", default=",".join(STORES), help="postgres,s3 (default both)")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--checks", type=int, default=10)
    parser.add_argument("--model-delay", type=float, default=0.25, help="seconds each model call takes")
    parser.add_argument("--lease-s", type=float, default=60.0)
    parser.add_argument("--lease-s-killed", type=float, default=3.0, help="the killed recorder's lease, seconds")
    parser.add_argument("--wait-s", type=float, default=300.0)
    parser.add_argument("--poll-s", type=float, default=0.25)
    parser.add_argument("--quick", action="store_true", help="3 processes, 3 checks, model calls of 0.05 s")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    if args.quick:
        args.processes, args.checks, args.model_delay, args.lease_s_killed, args.poll_s = 3, 3, 0.05, 2.0, 0.1
    return args


def holds(result: dict[str, Any]) -> bool:
    """The issue's figures: each check recorded once, one machine's model calls, the others at $0, no lost
    update, and the killed recorder's lease taken over within its expiry.
    """
    return bool(
        result["each_check_recorded_once"]
        and result["no_lost_update"]
        and result["fleet_model_calls"] == result["baseline_model_calls"]
        and result["other_runs_model_calls"] == 0
        and result["killed"]["within_expiry"]
        and result["killed"]["next_mode"] == "smart"
    )


def main(argv: list[str] | None = None) -> int:
    args = options(argv)
    if args.worker is not None:
        return _worker(args.worker)
    results = [measure(kind, args.processes, args.checks, args) for kind in args.stores.split(",") if kind]
    report = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "system": platform.platform()},
        "results": results,
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0 if all(holds(r) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
