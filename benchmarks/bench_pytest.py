"""Checks under pytest on two scripted phones with ``-n 2`` against one phone without xdist.

The plugin's promise: ``pytest -n 2 --mobster-scripted A --mobster-scripted B`` runs a suite on two
phones at once, worker k on device k, in about half the time of one phone. This measures it the way
a user runs it: ``pytest`` as a process of its own (plugins autoloaded), on the **real clock**,
with a USB iPhone's latencies (``usb-iphone``: the scripted phone waits them out for real), the
checks replaying recorded paths (no model). The wall time of each pytest process is taken,
start-up included (xdist's workers start once per run): the ratio is what a CI job would see.

The project: ``--checks N`` copies of the demo's two checks (sign up, 3 steps; Settings offers
Pro, 2 steps), each with an identity of its own (its launch environment names it), recorded
first on the simulated clock with the scripted model (not timed).

Usage::

    python benchmarks/bench_pytest.py [--checks 8] [--runs 1] [--scale 1] [--json FILE] [--keep DIR]

``--scale F`` multiplies every latency of the phone (0.1 for a quick look; the SDK's own poll and
settle waits are not scaled, so only 1 gives the figure docs/pytest.md quotes).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from mobster_drivers.devices.scripted import PROFILES, sample_path

SIGNUP = """\
version: 1
name: A new user signs up {n}
app: {{bundle: com.example.yourapp}}
launch: {{env: {{COPY: "{n}"}}}}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""

PAYWALL = """\
version: 1
name: Settings offers Pro {n}
app: {{bundle: com.example.yourapp}}
launch: {{env: {{COPY: "{n}"}}}}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
"""


def write_project(root: Path, checks: int, scale: float) -> None:
    """Two app scripts (Phone A, Phone B) with scaled ``usb-iphone`` latencies, and ``checks`` checks."""
    latency = {k: round(v * scale, 6) for k, v in attrs.asdict(PROFILES["usb-iphone"]).items()}
    text = sample_path("yourapp").read_text()
    mapping = "latency: {" + ", ".join(f"{k}: {v}" for k, v in latency.items()) + "}"
    text = text.replace("latency: zero", mapping)
    (root / "apps").mkdir(parents=True)
    for name in ("A", "B"):
        phone = text.replace("name: Scripted iPhone", f"name: Phone {name}")
        (root / "apps" / f"{name.lower()}.yaml").write_text(phone)
    folder = root / ".mobster" / "checks"
    folder.mkdir(parents=True)
    for n in range(checks):
        template = SIGNUP if n % 2 == 0 else PAYWALL
        (folder / f"check{n:02d}.yaml").write_text(template.format(n=n))


def pytest_run(root: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run pytest in ``root``; its wall time in seconds and the process."""
    # Bytecode caching on, as on a user's machine (a start-up that compiles every module is not pytest's).
    unset = ("PYTEST_ADDOPTS", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pytest {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return elapsed, done


def summary(done: subprocess.CompletedProcess[str]) -> str:
    """The plugin's summary line of a run."""
    return next((line for line in done.stdout.splitlines() if line.startswith("mobster: ")), "")


def session_seconds(done: subprocess.CompletedProcess[str]) -> float:
    """pytest's own time (``8 passed in 39.80s``): from the session's start, after the imports."""
    found = re.search(r" in ([0-9.]+)s", done.stdout.strip().splitlines()[-1])
    return float(found.group(1)) if found else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=8)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-pytest-"))
    try:
        write_project(root, args.checks, args.scale)
        a, b = "apps/a.yaml", "apps/b.yaml"
        pytest_run(root, "--mobster-scripted", a, "--mobster-model", "scripted", "--mobster-clock", "simulated")
        one: list[float] = []
        two: list[float] = []
        sessions: list[tuple[float, float]] = []
        for _ in range(args.runs):
            t1, d1 = pytest_run(root, "--mobster-scripted", a, "--mobster-no-heal")
            t2, d2 = pytest_run(root, "-n", "2", "--mobster-scripted", a, "--mobster-scripted", b, "--mobster-no-heal")
            one.append(t1)
            two.append(t2)
            sessions.append((session_seconds(d1), session_seconds(d2)))
            print(f"one phone, no xdist: {t1:6.1f} s (pytest says {sessions[-1][0]:.1f} s)   {summary(d1)}")
            print(f"-n 2, two phones:    {t2:6.1f} s (pytest says {sessions[-1][1]:.1f} s)   {summary(d2)}")
        best1, best2 = min(one), min(two)
        ratio = best2 / best1
        print(f"\n{args.checks} checks, latency usb-iphone x{args.scale:g}, best of {args.runs}:")
        print(f"  one phone {best1:.1f} s, two phones with -n 2 {best2:.1f} s: ratio {ratio:.2f} (wall, with start-up)")
        if args.json:
            out = {
                "checks": args.checks,
                "scale": args.scale,
                "runs": args.runs,
                "one_phone_s": one,
                "two_phones_n2_s": two,
                "pytest_session_s": sessions,
                "ratio": ratio,
                "python": platform.python_version(),
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
            }
            args.json.write_text(json.dumps(out, indent=2) + "\n")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
