"""What recorded paths that travel save in CI: a new machine per job, paths committed or cached, or neither.

The series is ``bench_builds``' (the same app, ten checks, one seeded change a build, the same oracle
model at 2.5 s and $2/$10 per million tokens, the scripted phone at zero latency on a FakeClock).
Every build bumps the version and build number, as simulator builds do in CI, so every mode runs
with ``--carry`` (``RunOptions(carry=True)``), the documented CI setting (``docs/ci.md``). Heals are
accepted after each build, as a team merging the heal pull request would.

Four ways to run the same 30 builds:

- **long-lived**: one machine, its private ``local`` store kept from build to build (the
  reference a travelling path must match);
- **committed**: each build runs on **3 runners that start empty** (``--shard 1/3`` … ``3/3``): a
  fresh checkout that holds the checks and ``.mobster/paths/`` (the ``committed`` store, files
  0644 as a checkout brings them); what a build recorded or healed is committed back, so the next
  build's checkout has it;
- **cache**: 3 runners that start empty, with the ``local`` store travelling through a CI cache:
  each runner restores the bundle (``mobster paths import``), runs its shard, and exports
  (``mobster paths export``); the three bundles are joined (imported into one project and
  exported again, so a newer path wins) and saved as the next build's cache;
- **neither**: 3 runners that start empty and have no path at all: every check records afresh with
  Smart on every build. This is also the **fresh recording** the other modes' verdicts are
  compared with.

Printed per build: model calls and cost per mode; then totals, the cache-hit rate (check runs of
builds 2..N with zero model calls), and the verdicts that differ from the fresh recording's. The
claim it checks: with travelling paths, a new CI machine per build costs no more model calls than
one long-lived machine (exit 1 when it doesn't, or when a verdict differs).

Usage::

    python benchmarks/bench_ci.py [--builds 30] [--checks 10] [--runners 3] [--seed 13] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import mobster_core as mc  # noqa: E402
from benchmarks import bench_builds as series  # noqa: E402 - a sibling script, found from the project root
from mobster_core.heals import accept_heals  # noqa: E402
from mobster_core.paths import export_paths, import_paths  # noqa: E402
from mobster_core.testing import FakeClock  # noqa: E402
from mobster_drivers.devices.scripted import ScriptedPhone  # noqa: E402

MODES = ("long-lived", "committed", "cache", "neither")


@attrs.frozen
class Run:
    """One check on one build in one mode."""

    build: int
    check: str
    mode: str
    runner: int
    verdict: str
    model_calls: int
    cost_usd: float
    path_mode: str | None


def checkout(folder: Path, plans: Sequence[series.CheckPlan]) -> Path:
    """A fresh runner's project: the checks (as a CI checkout brings them)."""
    root: Path = series.project(folder, plans)
    return root


def shard_of(plans: Sequence[series.CheckPlan], runner: int, runners: int) -> list[series.CheckPlan]:
    """``--shard runner/runners`` of the checks sorted by file name (the suite's Rule 2)."""
    ordered = sorted(plans, key=lambda p: p.file.name)
    return [p for k, p in enumerate(ordered) if k % runners == runner - 1]


def run_check(root: Path, build: series.Build, plan: series.CheckPlan, *, paths: str) -> mc.CheckResult:
    clock = FakeClock()
    phone = series.LoggedPhone(ScriptedPhone(build.app, clock=clock))
    model = series.Oracle(clock, phone, build.intents[plan.name])
    options = mc.RunOptions(carry=True, screenshots=False, prices=series.PRICES, root=root, paths=paths)
    check = mc.load_check(root / ".mobster" / "checks" / plan.file.name)
    result = clock.run(mc.run_check(check, phone, clock, model=model, options=options))
    if result.heals and result.identity is not None:
        accept_heals(check, root, paths=paths)  # the heal pull request, merged
    return result


def summarize(build: series.Build, plan: series.CheckPlan, mode: str, runner: int, result: mc.CheckResult) -> Run:
    mode_of = None if result.mode is None else str(result.mode)
    return Run(
        build.number, plan.name, mode, runner, result.verdict.value, result.model_calls, result.cost.usd, mode_of
    )


def run_shard(
    root: Path, build: series.Build, plans: Sequence[series.CheckPlan], where: tuple[str, int], *, paths: str
) -> list[Run]:
    """One runner's checks of one build: ``where`` is the mode and the runner."""
    mode, runner = where
    return [summarize(build, plan, mode, runner, run_check(root, build, plan, paths=paths)) for plan in plans]


def checks_of(root: Path) -> list[mc.Check]:
    return [mc.load_check(f) for f in mc.find_checks(root)]


def as_checked_out(folder: Path) -> None:
    """Files as a checkout or an artifact brings them: 0644 (git and uploads keep no other modes)."""
    for file in folder.rglob("*.json"):
        file.chmod(0o644)


def run_long_lived(builds: Sequence[series.Build], plans: Sequence[series.CheckPlan], work: Path) -> list[Run]:
    machine = checkout(work / "long-lived", plans)
    return [summarize(b, p, "long-lived", 1, run_check(machine, b, p, paths="local")) for b in builds for p in plans]


def run_committed(
    builds: Sequence[series.Build], plans: Sequence[series.CheckPlan], work: Path, runners: int
) -> list[Run]:
    repo = work / "repo-paths"  # the committed .mobster/paths/ on the main branch
    repo.mkdir()
    runs: list[Run] = []
    for build in builds:
        recorded: list[Path] = []
        for runner in range(1, runners + 1):
            root = checkout(work / f"committed-{build.number}-{runner}", plans)
            shutil.copytree(repo, root / ".mobster" / "paths")
            as_checked_out(root / ".mobster" / "paths")
            runs += run_shard(root, build, shard_of(plans, runner, runners), ("committed", runner), paths="committed")
            recorded.append(root / ".mobster" / "paths")
        for store in recorded:  # what the build recorded and healed is committed back
            for file in store.glob("*.json"):
                shutil.copyfile(file, repo / file.name)
        for file in repo.glob("*.json"):
            if not any((store / file.name).exists() for store in recorded):
                file.unlink()  # a runner's store dropped it (an env beyond the four kept)
    return runs


def run_cache(builds: Sequence[series.Build], plans: Sequence[series.CheckPlan], work: Path, runners: int) -> list[Run]:
    cache: Path | None = None  # the CI cache: the bundle saved by the previous build
    runs: list[Run] = []
    now = datetime(2026, 12, 1, tzinfo=UTC)
    for build in builds:
        bundles: list[Path] = []
        for runner in range(1, runners + 1):
            root = checkout(work / f"cache-{build.number}-{runner}", plans)
            if cache is not None:
                restored = root / "restored.json"
                shutil.copyfile(cache, restored)
                restored.chmod(0o644)
                import_paths(root, restored, checks_of(root))
            runs += run_shard(root, build, shard_of(plans, runner, runners), ("cache", runner), paths="local")
            bundle = work / f"bundle-{build.number}-{runner}.json"
            bundle.write_bytes(export_paths(root, now=now))
            bundles.append(bundle)
        joined = checkout(work / f"cache-{build.number}-join", plans)
        for bundle in bundles:
            import_paths(joined, bundle, checks_of(joined))
        cache = work / f"cache-{build.number}.json"
        cache.write_bytes(export_paths(joined, now=now))
    return runs


def run_neither(
    builds: Sequence[series.Build], plans: Sequence[series.CheckPlan], work: Path, runners: int
) -> list[Run]:
    runs: list[Run] = []
    for build in builds:
        for runner in range(1, runners + 1):
            root = checkout(work / f"neither-{build.number}-{runner}", plans)
            runs += run_shard(root, build, shard_of(plans, runner, runners), ("neither", runner), paths="local")
    return runs


def tally(runs: Sequence[Run]) -> dict[str, Any]:
    return {
        "model_calls": sum(r.model_calls for r in runs),
        "cost_usd": round(sum(r.cost_usd for r in runs), 6),
        "passed": sum(1 for r in runs if r.verdict == "passed"),
        "no_model": sum(1 for r in runs if r.model_calls == 0),
    }


def summary(builds: Sequence[series.Build], runs: Sequence[Run]) -> dict[str, Any]:
    fresh = {(r.build, r.check): r for r in runs if r.mode == "neither"}
    doc: dict[str, Any] = {"builds": len(builds), "checks": len({r.check for r in runs}), "modes": {}}
    for mode in MODES:
        mine = [r for r in runs if r.mode == mode]
        later = [r for r in mine if r.build > 1]
        doc["modes"][mode] = {
            **tally(mine),
            "cache_hit_rate": round(sum(1 for r in later if r.model_calls == 0) / len(later), 4) if later else None,
            "verdicts_differ": sum(1 for r in mine if r.verdict != fresh[(r.build, r.check)].verdict),
            "per_build": [tally([r for r in mine if r.build == b.number])["model_calls"] for b in builds],
        }
    reference = doc["modes"]["long-lived"]["model_calls"]
    doc["travelling_within_long_lived"] = all(
        doc["modes"][m]["model_calls"] <= reference for m in ("committed", "cache")
    )
    return doc


def render(builds: Sequence[series.Build], doc: dict[str, Any], runners: int, seed: int) -> str:
    modes = doc["modes"]
    out = [
        (
            f"{len(builds)} builds (seed {seed}), {doc['checks']} checks, {runners} runners that start empty each "
            "build (committed, cache, neither) against one long-lived machine; --carry, heals accepted after "
            "each build."
        ),
        "",
        f"{'build':>5}  {'change':<14}" + "".join(f" {m:>11}" for m in MODES) + "   (model calls)",
    ]
    for n, build in enumerate(builds):
        out.append(f"{build.number:>5}  {build.kind:<14}" + "".join(f" {modes[m]['per_build'][n]:>11}" for m in MODES))
    out.append("")
    out.append(f"{'':>21}" + "".join(f" {m:>11}" for m in MODES))
    for key, label in (("model_calls", "model calls"), ("cost_usd", "cost $"), ("passed", "passed")):
        out.append(f"{label:>21}" + "".join(f" {modes[m][key]:>11}" for m in MODES))
    out.append(f"{'cache-hit rate 2..N':>21}" + "".join(f" {modes[m]['cache_hit_rate']:>11.1%}" for m in MODES))
    out.append(f"{'verdicts differ':>21}" + "".join(f" {modes[m]['verdicts_differ']:>11}" for m in MODES))
    out.append("")
    verdict = "holds" if doc["travelling_within_long_lived"] else "does NOT hold"
    out.append(
        "A new machine per build costs no more model calls than one long-lived machine, with paths committed or "
        f"cached: {verdict} ({modes['committed']['model_calls']} and {modes['cache']['model_calls']} against "
        f"{modes['long-lived']['model_calls']}; with neither, {modes['neither']['model_calls']})."
    )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--builds", type=int, default=30, help="builds in the series (default 30)")
    parser.add_argument("--checks", type=int, default=10, help="how many of the checks run (default all 10)")
    parser.add_argument("--runners", type=int, default=3, help="CI runners per build (default 3)")
    parser.add_argument("--seed", type=int, default=13, help="the series' seed (default 13)")
    parser.add_argument("--quick", action="store_true", help="5 builds and 4 checks: a look in seconds")
    parser.add_argument("--json", type=Path, help="write the totals and every run here")
    args = parser.parse_args(argv)
    count, checks = (5, 4) if args.quick else (args.builds, args.checks)
    if count < 2 or checks < 1 or args.runners < 1:
        parser.error("--builds is 2 or more, --checks and --runners 1 or more")
    builds, plans = series.make_builds(count, series.DEFAULT_MIX, args.seed, checks)
    with tempfile.TemporaryDirectory(prefix="mobster-ci-") as tmp:
        work = Path(tmp)
        old = os.umask(0o022)  # a checkout's modes, whatever the shell's umask
        try:
            runs = [
                *run_long_lived(builds, plans, work),
                *run_committed(builds, plans, work, args.runners),
                *run_cache(builds, plans, work, args.runners),
                *run_neither(builds, plans, work, args.runners),
            ]
        finally:
            os.umask(old)
    doc = summary(builds, runs)
    print(render(builds, doc, args.runners, args.seed))
    if args.json is not None:
        payload = {"seed": args.seed, "runners": args.runners, **doc, "runs": [attrs.asdict(r) for r in runs]}
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    bad = not doc["travelling_within_long_lived"] or any(
        doc["modes"][m]["verdicts_differ"] for m in ("long-lived", "committed", "cache")
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
