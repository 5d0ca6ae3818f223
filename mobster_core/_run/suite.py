"""Running a suite of checks: devices in parallel, sharding, ``results.json`` and ``junit.xml``.

Rule 1: checks run on N devices at once, each device running one check at a time; each check's
        result is written once, by the run that ran it.
Rule 2: ``--shard I/N`` keeps every N-th check of the sorted list, starting at the I-th (from 1).
Rule 3: the suite writes ``.mobster/test-results/<suite_id>/results.json`` (the stable
        ``mobster.test/1`` contract, also what ``--json`` prints) and ``junit.xml`` (one testcase
        per check and device; failure, error and skipped elements; heals in ``system-out``).
        ``junit.xml`` stays well-formed whatever a label or a check name holds: characters XML 1.0
        forbids are removed (``_text.xml_text``). Beside them, ``index.html``: the suite's page, a
        checks-by-devices matrix linking to each run's ``report.html``.
Rule 4: a suite exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs
        review, else 0.
Rule 5: a suite stopped from outside (Ctrl+C, SIGTERM) lets each check in flight write its
        ``stopped`` result, starts no other, writes its files, and raises :class:`SuiteStopped`.
Rule 6: a check file that can't be loaded is that check's result: ``couldnt_run``, class ``usage``.
Rule 7: a suite starts by deleting the temporary files a killed writer left in the replay cache,
        the heal states and the checks folder (older than a minute before the suite started).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from mobster_core._clock import utc_now
from mobster_core._rules.cost import Cost
from mobster_core._rules.text import utf8, valid_text
from mobster_core._rules.verdict import FailureClass, Outcome, Verdict
from mobster_core._store.checks import CheckError, load_check, project_of
from mobster_core._store.evidence import write_index
from mobster_core._store.fsutil import (
    MOBSTER_DIR,
    atomic_write,
    ensure_gitignore,
    remove_stale_temps,
)
from mobster_core._store.runs import run_id
from mobster_core.exceptions import MobsterError
from mobster_core.protocols import Clock, Device, Model

from .check import RunOptions, RunStopped, run_check
from .results import CheckResult, Mode, SuiteResult, junit_xml

__all__ = ["ModelFactory", "SuiteStopped", "parse_shard", "run_suite", "shard"]

#: Makes a model for one check run (the scripted model keeps state per run), or None: no model.
ModelFactory = Callable[[], Model | None]


class SuiteStopped(Exception):
    """The suite was stopped from outside; ``suite`` holds what ran, already written to disk."""

    def __init__(self, suite: SuiteResult) -> None:
        super().__init__("the suite was stopped")
        self.suite = suite


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a ValueError says what to write instead."""
    try:
        i, n = (int(p) for p in text.split("/", 1))
    except ValueError:
        raise ValueError(f"--shard takes I/N such as 1/4, not {text!r}") from None
    if not 1 <= i <= n:
        raise ValueError(f"--shard {text}: I must be between 1 and N")
    return i, n


def shard(items: Sequence[Path], index: int, total: int) -> list[Path]:
    """Rule 2."""
    return [p for k, p in enumerate(sorted(items)) if k % total == index - 1]


def _no_model() -> Model | None:
    return None


async def run_suite(
    files: Sequence[Path],
    devices: Sequence[Device],
    clock: Clock,
    *,
    models: ModelFactory = _no_model,
    options: RunOptions | None = None,
) -> SuiteResult:
    """Run the check ``files`` on ``devices`` (Rule 1) and write the suite's files (Rule 3).

    ``models`` makes a model for each check run (none by default); ``options.root`` is the
    project (by default the one holding the first check file).
    """
    if not devices:
        raise MobsterError("a suite needs at least one device")
    options = options or RunOptions()
    root = options.root or (project_of(files[0]) if files else Path.cwd())
    options = attrs.evolve(options, root=root)
    started = utc_now()
    for folder in ("cache/replay", "cache/heals", "checks"):
        remove_stale_temps(root / MOBSTER_DIR / folder, started_at=started)  # Rule 7
    began = clock.now()
    results, stopped = await _run_all(files, devices, clock, models, options)
    suite_id = run_id(started)
    suite = SuiteResult(
        suite_id=suite_id,
        started_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        seconds=clock.now() - began,
        checks=results,
        folder=root / MOBSTER_DIR / "test-results" / suite_id,
    )
    ensure_gitignore(root)
    data = suite.to_dict()
    atomic_write(suite.folder / "results.json", utf8(json.dumps(data, indent=2, ensure_ascii=False)))
    atomic_write(suite.folder / "junit.xml", junit_xml(suite))
    write_index(suite.folder, data)
    if stopped:
        raise SuiteStopped(suite)
    return suite


async def _run_all(
    files: Sequence[Path], devices: Sequence[Device], clock: Clock, models: ModelFactory, options: RunOptions
) -> tuple[tuple[CheckResult, ...], bool]:
    """Rules 1 and 5: each device runs the next check until none is left; True when stopped."""
    queue: asyncio.Queue[tuple[int, Path]] = asyncio.Queue()
    for item in enumerate(files):
        queue.put_nowait(item)
    results: dict[int, CheckResult] = {}

    async def worker(device: Device) -> None:
        while not queue.empty():
            n, file = queue.get_nowait()
            try:
                results[n] = await _one(file, device, clock, models(), options)
            except RunStopped as exc:
                results[n] = exc.result
                return

    workers = [asyncio.ensure_future(worker(d)) for d in devices]
    stopped = False
    try:
        await asyncio.gather(*workers)
    except asyncio.CancelledError:
        # Rule 5: let every check in flight write its stopped result, then write the suite's.
        stopped = True
        await asyncio.gather(*workers, return_exceptions=True)
    return tuple(results[k] for k in sorted(results)), stopped


async def _one(file: Path, device: Device, clock: Clock, model: Model | None, options: RunOptions) -> CheckResult:
    try:
        check = load_check(file)
    except (CheckError, MobsterError, OSError) as exc:
        result = _usage_result(file, options.root or file.parent, str(exc))
        if options.on_result is not None:
            options.on_result(result)
        return result
    return await run_check(check, device, clock, model=model, options=options)


def _usage_result(file: Path, root: Path, message: str) -> CheckResult:
    """Rule 6."""
    try:
        shown = str(file.resolve().relative_to(root.resolve()))
    except ValueError:
        shown = str(file)
    return CheckResult(
        name=valid_text(file.stem),
        file=shown,
        device=None,
        app=None,
        outcome=Outcome(Verdict.COULDNT_RUN, FailureClass.USAGE, message),
        mode=Mode.LAUNCH,
        seconds=0.0,
        cost=Cost(),
        model_calls=0,
        identity=None,
        env=None,
        path_used=False,
        path_why=None,
        steps=(),
        heals=(),
        assertions=(),
        run_dir="",
    )
