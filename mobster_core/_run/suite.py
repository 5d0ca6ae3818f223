"""Running a suite of checks: devices in parallel, sharding, ``results.json`` and ``junit.xml``.

Rule 1: checks run on N devices at once, each device running one check at a time; each check's
        result is written once, by the run that ran it.
Rule 2: ``--shard I/N`` keeps every N-th check of the sorted list, starting at the I-th (from 1).
Rule 3: the suite writes ``.mobster/test-results/<suite_id>/results.json`` (the stable
        ``mobster.test/1`` contract, also what ``--json`` prints) and ``junit.xml`` (one testcase
        per check and device; failure, error and skipped elements; heals in ``system-out``).
        ``junit.xml`` stays well-formed whatever a label or a check name holds: characters XML 1.0
        forbids are removed (``_text.xml_text``). Then the reporter (``RunOptions.reporter``) is
        given the suite (``mobster_report`` writes ``index.html`` beside them); an error there is
        logged, never the suite's outcome.
Rule 4: a suite exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs
        review, else 0.
Rule 5: a suite stopped from outside (Ctrl+C, SIGTERM) lets each check in flight write its
        ``stopped`` result, starts no other, writes its files, and raises :class:`SuiteStopped`.
        A suite stopped before it began (while its devices were being opened) is written too
        (:func:`stopped_suite`): each check ``couldnt_run``, class ``stopped``, with the front
        end's words, so a stopped run always leaves ``results.json`` and ``junit.xml``.
Rule 6: a check file that can't be loaded is that check's result: ``couldnt_run``, class ``usage``;
        a run the machine stops (a refused or unwritable file or folder, a full disk) is
        ``couldnt_run``, class ``environment``, with the file and the fix, and the suite goes on.
Rule 7: a suite starts by deleting the temporary files (``.tmp-*``) a killed writer left in
        ``.mobster/``, the replay cache, the heal states, the committed paths and their heal
        states (``.mobster/paths/``, ``paths/heals/``), the checks folder and the folder of each
        check it runs (where heal files are written), when they are older than a minute before
        the suite started.
Rule 8: a device whose check ended with class ``device`` or ``unknown_outcome`` is asked whether
        it still answers (a read; failing that, ``info()`` and a read); when it doesn't, it is out
        of the pool for the rest of the suite and the other devices go on. Its check is
        ``couldnt_run``, class ``device``, and says the same thing wherever the device was lost
        (launching, the baseline, a step, a heal, the verdict's read): that device stopped
        answering, it is out of the pool, whether the rest of the suite goes on, then what the
        device said last (an action in flight said there). A device that never answered during
        the check (its first call failed) keeps its own message.
Rule 9: a lost device's check goes to another device only when its run failed before anything
        was sent (its first call, ``info()``, failed: no action, no launch, nothing in flight)
        and another device is left; otherwise it keeps its own result;
        a check that sent anything is never run again. The suite reports each result once, when
        it is final (``on_result``).
Rule 10: checks no device could run (every device was lost; with ``each_device``, a lost device's
        own) are ``couldnt_run``, class ``device``, with a message that says so.
Rule 11: with ``each_device``, every check runs on every device: one result per check and device,
        each device's checks in file order, each with its own cache env (the env comes from the
        device); results are ordered by file, then device.
Rule 14 (platforms): a pool of several devices, or a run that selects a platform
        (``options.platform``), first asks each device what it is (``info()``, in parallel): each
        check then runs once on each platform the pool holds (a lane of that platform's devices,
        work stealing inside it; with ``each_device`` a lane per device), results ordered by file,
        then platform in the order the pool first holds it. A device that can't say joins the first
        lane (its first check finds it: Rule 9). With a platform selected, the other platform's
        devices run nothing; when none is left, every check is ``couldnt_run``, class ``usage``,
        saying which platform was selected and what the pool holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

import attrs

from mobster_core._clock import utc_now
from mobster_core._log import get_logger
from mobster_core._results.junit import junit_xml
from mobster_core._results.results import CheckResult, SuiteResult, retryable, with_attempts
from mobster_core._rules.device.device import Platform
from mobster_core._rules.formats.text import utf8, valid_text
from mobster_core._rules.model.cost import Cost
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, Verdict
from mobster_core._store.checks import CheckError, load_check, project_of
from mobster_core._store.fsutil import (
    MOBSTER_DIR,
    atomic_write,
    ensure_gitignore,
    private_dir,
    remove_stale_temps,
)
from mobster_core._store.runs import run_id
from mobster_core.exceptions import JournalError, MobsterError, UnsafeFile, os_error_message
from mobster_core.protocols import Clock, Device, Model

from .check import RunOptions, RunStopped, run_check

__all__ = ["Devices", "ModelFactory", "SuiteStopped", "parse_shard", "run_suite", "shard", "stopped_suite"]

log = get_logger(__name__)

#: A suite's devices: a list, or a mapping of each device's name in the pool (``sim-2``) to it.
Devices = Sequence[Device] | Mapping[str, Device]
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
    devices: Devices,
    clock: Clock,
    *,
    models: ModelFactory = _no_model,
    options: RunOptions | None = None,
) -> SuiteResult:
    """Run the check ``files`` on ``devices`` (Rule 1) and write the suite's files (Rule 3).

    ``devices`` is a list, or a mapping of names to devices: each result then carries the name
    of the device it ran on (``device_label``). ``models`` makes a model for each check run (none
    by default); ``options.root`` is the project (by default the one holding the first check
    file); ``options.each_device`` runs every check on every device (Rule 11).
    """
    slots = list(devices.items()) if isinstance(devices, Mapping) else [(None, d) for d in devices]
    if not slots:
        raise MobsterError("a suite needs at least one device")
    options = options or RunOptions()
    root = options.root or (project_of(files[0]) if files else Path.cwd())
    options = attrs.evolve(options, root=root)
    started = utc_now()
    folders = {root / MOBSTER_DIR / f for f in ("", "cache/replay", "cache/heals", "paths", "paths/heals", "checks")}
    for folder in sorted(folders | {f.parent for f in files}):  # Rule 7, and each check's own folder
        remove_stale_temps(folder, started_at=started)
    # A results folder in the way (a file, a symlink, another user's) is refused before any check
    # runs, so no check does work whose results can't be written.
    private_dir(root / MOBSTER_DIR / "test-results")
    began = clock.now()
    results, stopped = await _run_all(files, slots, clock, models, options)
    suite = _written(results, started, clock.now() - began, options)
    if stopped:
        raise SuiteStopped(suite)
    return suite


def stopped_suite(files: Sequence[Path], message: str, *, options: RunOptions | None = None) -> SuiteResult:
    """Rule 5: the suite of ``files`` stopped before any check began: each ``couldnt_run``, class ``stopped``.

    ``message`` says what stopped it (``stopped by SIGINT while the devices were being opened``);
    the suite's files are written as :func:`run_suite` writes them, and the reporter is told.
    """
    options = options or RunOptions()
    root = options.root or (project_of(files[0]) if files else Path.cwd())
    options = attrs.evolve(options, root=root)
    private_dir(root / MOBSTER_DIR / "test-results")
    results = tuple(_not_run_result(f, root, FailureClass.STOPPED, message, None) for f in files)
    return _written(results, utc_now(), 0.0, options)


def _written(results: tuple[CheckResult, ...], started: datetime, seconds: float, options: RunOptions) -> SuiteResult:
    """Rule 3: the suite of ``results``, its ``results.json`` and ``junit.xml`` written, then its reporter told."""
    assert options.root is not None
    suite_id = run_id(started)
    suite = SuiteResult(
        suite_id=suite_id,
        started_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        seconds=seconds,
        checks=results,
        folder=options.root / MOBSTER_DIR / "test-results" / suite_id,
    )
    ensure_gitignore(options.root)
    data = suite.to_dict()
    atomic_write(suite.folder / "results.json", utf8(json.dumps(data, indent=2, ensure_ascii=False)))
    atomic_write(suite.folder / "junit.xml", junit_xml(suite))
    if options.reporter is not None:
        try:
            options.reporter.suite_ended(suite)
        except Exception:  # Rule 3: the results are written; a page that can't be made is logged, not fatal
            log.exception("the suite's reporter failed", folder=str(suite.folder))
    return suite


@attrs.frozen
class _Job:
    """One run to make: a check file, its key among the results, the attempts it already had (Rule 12).

    ``avoid`` is the slot whose device its last attempt couldn't run on (a retry goes to another
    device when there is one); ``run`` is ``(i, k)`` under ``repeat`` (Rule 13).
    """

    key: int
    file: Path
    run: tuple[int, int] | None = None
    tries: tuple[CheckResult, ...] = ()
    avoid: int | None = None

    def final(self, result: CheckResult) -> CheckResult:
        """The check's result once ``result`` is its last attempt: the attempts summed, its run of the repeat."""
        ended = with_attempts((*self.tries, result))
        return ended if self.run is None else attrs.evolve(ended, repeat=self.run)


def _jobs(files: Sequence[Path], repeat: int) -> list[tuple[int, Path, tuple[int, int] | None]]:
    """Rule 13: each file ``repeat`` times, its runs together; ``(position, file, run)``."""
    return [
        (n * repeat + r, f, None if repeat == 1 else (r + 1, repeat))
        for n, f in enumerate(files)
        for r in range(repeat)
    ]


class _Work:
    """The checks still to run, handed to the devices as they come free (Rules 1, 8, 9, 10, 12, 14).

    The devices stand in lanes (Rule 14): one lane of every device (work stealing: the next free
    device takes the next check), a lane per platform, or with ``each_device`` a lane per device.
    Each lane runs every check once from its own queue. A worker waits while others of its lane
    still run checks that may come back (Rules 9, 12); results are kept by key, in the order of the
    files (then the lanes). A retry is taken by a device other than the one it couldn't run on,
    unless no other is left in its lane.
    """

    def __init__(self, files: Sequence[Path], lanes: Sequence[Sequence[int]], *, repeat: int = 1) -> None:
        jobs = _jobs(files, repeat)
        self.lanes = [tuple(lane) for lane in lanes]
        self.lane_of = {slot: n for n, lane in enumerate(self.lanes) for slot in lane}
        count = len(self.lanes)
        self.queues = [deque(_Job(n * count + k, f, run) for n, f, run in jobs) for k in range(count)]
        self.results: dict[int, CheckResult] = {}
        self.lost: dict[int, str] = {}  # a device out of the pool (Rule 8): slot -> what it said
        self._gone: set[int] = set()  # workers that ended: lost, or nothing left for them
        self._busy = [0] * count
        self._changed = asyncio.Condition()

    def others(self, slot: int) -> int:
        """How many devices of ``slot``'s lane are left besides it (not lost)."""
        return sum(1 for k in self.lanes[self.lane_of[slot]] if k != slot and k not in self.lost)

    def in_pool(self, slot: int) -> int:
        """How many devices of the whole pool are left besides ``slot`` (not lost)."""
        return sum(1 for k in self.lane_of if k != slot and k not in self.lost)

    async def take(self, slot: int) -> _Job | None:
        """The next check for the device in ``slot``; None when there is none left for it."""
        lane = self.lane_of[slot]
        async with self._changed:
            while True:
                queue = self.queues[lane]
                job = self._pick(queue, slot)
                if job is not None:
                    self._busy[lane] += 1
                    return job
                if self._busy[lane] == 0 and not queue:
                    self._gone.add(slot)
                    self._changed.notify_all()
                    return None
                await self._changed.wait()

    def _pick(self, queue: deque[_Job], slot: int) -> _Job | None:
        """Rule 12: the first job this device may run: not a retry of its own while another device is left."""
        others = set(self.lanes[self.lane_of[slot]]) - {slot} - self._gone - set(self.lost)
        for n, job in enumerate(queue):
            if job.avoid != slot or not others:
                del queue[n]
                return job
        return None

    async def done(self, slot: int, key: int, result: CheckResult | None, *, back: _Job | None = None) -> None:
        """A check ended with ``result``; or, with ``back``, it goes back to its lane's queue (Rules 9, 12)."""
        lane = self.lane_of[slot]
        async with self._changed:
            self._busy[lane] -= 1
            if back is not None:
                self.queues[lane].appendleft(back)
            elif result is not None:
                self.results[key] = result
            self._changed.notify_all()

    async def lose(self, slot: int, message: str) -> None:
        """Rule 8: the device in ``slot`` is out of the pool; a worker waiting for it takes its retries."""
        async with self._changed:
            self.lost[slot] = message
            self._changed.notify_all()

    def left(self) -> list[tuple[_Job, int | None]]:
        """The checks no device ran (every device of a lane was lost): the job, and the slot of a lane of one."""
        rest: list[tuple[_Job, int | None]] = []
        for lane, queue in zip(self.lanes, self.queues, strict=True):
            rest += [(job, lane[0] if len(lane) == 1 and len(self.lanes) > 1 else None) for job in queue]
        return rest


#: The classes after which the runner asks the device whether it still answers (Rule 8).
_SUSPECT = frozenset({FailureClass.DEVICE, FailureClass.UNKNOWN_OUTCOME})


async def _run_all(
    files: Sequence[Path],
    slots: Sequence[tuple[str | None, Device]],
    clock: Clock,
    models: ModelFactory,
    options: RunOptions,
) -> tuple[tuple[CheckResult, ...], bool]:
    """Rules 1 and 5: each device runs the next check until none is left; True when stopped."""
    platforms = await _platforms(slots, options)
    lanes = lanes_of(platforms, each_device=options.each_device, selected=options.platform)
    if not lanes:
        return _none_of(files, platforms, options), False
    work = _Work(files, lanes, repeat=options.repeat)
    quiet = attrs.evolve(options, on_result=None)  # the suite tells each result once it is final (Rule 9)

    async def worker(slot: int) -> None:
        label, device = slots[slot]
        run_options = attrs.evolve(quiet, device_label=label)
        while (job := await work.take(slot)) is not None:
            try:
                result = await _one(job.file, device, clock, models(), run_options)
            except RunStopped as exc:
                await _record(work, slot, job.key, job.final(exc.result), options)
                return
            try:
                lost = result.outcome.failure_class in _SUSPECT and not await _answers(device)
            except asyncio.CancelledError:
                # stopped while asking: the result stands
                await _record(work, slot, job.key, job.final(result), options)
                raise
            if lost:
                await _lose(work, slot, job, result, options)
                return
            if _again(job, result, options):
                await work.done(slot, job.key, None, back=attrs.evolve(job, tries=(*job.tries, result), avoid=slot))
                continue
            await _record(work, slot, job.key, job.final(result), options)

    workers = [asyncio.ensure_future(worker(k)) for k in work.lane_of]
    stopped = False
    try:
        await asyncio.gather(*workers)
    except asyncio.CancelledError:
        # Rule 5: let every check in flight write its stopped result, then write the suite's.
        stopped = True
        await asyncio.gather(*workers, return_exceptions=True)
    if not stopped:
        _not_run(work, slots, options)
    return tuple(work.results[k] for k in sorted(work.results)), stopped


async def _platforms(slots: Sequence[tuple[str | None, Device]], options: RunOptions) -> list[Platform | None]:
    """Rule 14: each device's platform, asked only of a pool of several or when a platform is selected."""
    if len(slots) == 1 and options.platform is None:
        return [None]

    async def platform(device: Device) -> Platform | None:
        try:
            return (await device.info()).platform
        except Exception:  # noqa: BLE001 - a device that can't say is found by its first check (Rule 9)
            return None

    return list(await asyncio.gather(*(platform(device) for _, device in slots)))


def lanes_of(platforms: Sequence[Platform | None], *, each_device: bool, selected: Platform | None) -> list[list[int]]:
    """Rule 14, pure: the slots of each lane, from each device's platform (None: it couldn't say)."""
    kept = [k for k, p in enumerate(platforms) if selected is None or p in (selected, None)]
    if selected is not None and all(platforms[k] is None for k in kept):
        return []  # no device of the platform (one that couldn't say is no reason to run)
    if each_device:
        return [[k] for k in kept]
    order = list(dict.fromkeys(platforms[k] for k in kept if platforms[k] is not None))
    lanes: list[list[int]] = [[] for _ in order] or [[]]
    for k in kept:
        lanes[order.index(platforms[k]) if platforms[k] is not None else 0].append(k)
    return lanes


def _none_of(
    files: Sequence[Path], platforms: Sequence[Platform | None], options: RunOptions
) -> tuple[CheckResult, ...]:
    """Rule 14: no device of the selected platform: each check ``couldnt_run``, class ``usage``, saying so."""
    assert options.platform is not None
    held = sorted({p.written for p in platforms if p is not None})
    pool = f"the pool holds {' and '.join(held)} devices" if held else "no device of the pool said what it is"
    message = f"no device of the pool runs {options.platform.written}, the platform this run selects: {pool}"
    root = options.root or Path.cwd()
    results = tuple(_not_run_result(f, root, FailureClass.USAGE, message, None) for f in files)
    for result in results:
        if options.on_result is not None:
            options.on_result(result)
    return results


def _again(job: _Job, result: CheckResult, options: RunOptions) -> bool:
    """Rule 12: a run that couldn't run for a class of the machine is tried again while retries are left."""
    return len(job.tries) < options.retries and retryable(result)


async def _record(work: _Work, slot: int, key: int, result: CheckResult, options: RunOptions) -> None:
    await work.done(slot, key, result)
    if options.on_result is not None:
        options.on_result(result)


async def _answers(device: Device) -> bool:
    """Rule 8: whether a device that just failed a check still answers: a read, else a new start.

    A read is safe to repeat and always goes to the phone (a device may keep its ``info()``). A
    failed read is tried once more after ``info()``, which is where a driver replaces a session
    that ended under it (an idle cloud session): only a device that can't do that is lost.
    """
    error: Exception | None = None
    for fresh in (False, True):
        try:
            if fresh:
                await device.info()
            await device.read()
        except Exception as exc:  # noqa: BLE001 - any failure to answer takes the device out of the pool
            error = exc
        else:
            return True
    log.warning(
        "a device of the pool stopped answering; it is out of the pool", error=f"{type(error).__name__}: {error}"
    )
    return False


async def _lose(work: _Work, slot: int, job: _Job, result: CheckResult, options: RunOptions) -> None:
    """Rules 8, 9, 12: the device is out; its check goes to another device if nothing was sent, or as a retry."""
    await work.lose(slot, result.outcome.message)
    nothing_sent = result.device is None  # its first call (info, a read) failed: no action went out
    others = work.others(slot)
    if nothing_sent and others > 0:
        await work.done(slot, job.key, None, back=job)
        return
    if nothing_sent:  # it never answered during this check: what it said is the whole story
        await _record(work, slot, job.key, job.final(result), options)
        return
    left = work.in_pool(slot)
    lost = _device_lost(result, left, options, each_device=others == 0 and left > 0)
    if others > 0 and _again(job, result, options):  # Rule 12: never an unknown outcome
        await work.done(slot, job.key, None, back=attrs.evolve(job, tries=(*job.tries, lost), avoid=slot))
        return
    await _record(work, slot, job.key, job.final(lost), options)


def _device_lost(result: CheckResult, others: int, options: RunOptions, *, each_device: bool) -> CheckResult:
    """Rule 8: a check whose device was lost under it is ``couldnt_run``, class ``device``, saying so.

    The message is the same wherever the device was lost (which read or action failed is a matter
    of timing): the device, that it is out of the pool, what becomes of the rest of the suite
    (``others`` devices are left), then what the device said last, where an action in flight stays
    said (its outcome is unknown: the check is never run again). The run's ``result.json`` is
    rewritten to agree with the suite's.
    """
    device = f"the device {result.device_label}" if result.device_label else "the device"
    if others == 0:
        rest = "no device of the pool is left, so the checks not yet run won't run"
    else:
        rest = f"the other {others} device{'s go' if others > 1 else ' goes'} on with the suite"
        rest = f"its other checks won't run on it; {rest}" if each_device else rest
    message = (
        f"{device} stopped answering during this check and is out of the pool; {rest}. "
        f"What it said last: {result.outcome.message}"
    )
    ended = Outcome(Verdict.COULDNT_RUN, FailureClass.DEVICE, message, step=result.outcome.step)
    lost = attrs.evolve(result, outcome=ended)
    if result.run_dir and options.root is not None:
        with contextlib.suppress(OSError):
            data = utf8(json.dumps(lost.to_dict(), indent=2, ensure_ascii=False))
            atomic_write(options.root / result.run_dir / "result.json", data)
    return lost


def _not_run(work: _Work, slots: Sequence[tuple[str | None, Device]], options: RunOptions) -> None:
    """Rule 10: what no device ran is ``couldnt_run``, class ``device``, saying why."""
    root = options.root or Path.cwd()
    for job, slot in work.left():
        if slot is None:
            last = next(reversed(work.lost.values()), "")
            message = f"no device of the pool answers, so this check didn't run; the last one lost said: {last}"
        else:
            name = slots[slot][0] or f"device {slot + 1}"
            said = work.lost.get(slot, "")
            message = f"{name} stopped answering earlier in the suite, so this check didn't run on it ({said})"
        label = None if slot is None else slots[slot][0]
        result = job.final(_not_run_result(job.file, root, FailureClass.DEVICE, message, label))
        work.results[job.key] = result
        if options.on_result is not None:
            options.on_result(result)


async def _one(file: Path, device: Device, clock: Clock, model: Model | None, options: RunOptions) -> CheckResult:
    try:
        check = load_check(file)
    except (CheckError, MobsterError, OSError) as exc:
        return _not_run_result(file, options.root or file.parent, FailureClass.USAGE, str(exc), options.device_label)
    try:
        return await run_check(check, device, clock, model=model, options=options)
    except (UnsafeFile, JournalError, OSError) as exc:
        # The machine, not the check: a refused or unwritable run folder, a full disk. The check
        # ends couldnt_run, class environment, and the suite still writes its results (Rule 6).
        message = str(exc) if isinstance(exc, MobsterError) else os_error_message(exc)
        root = options.root or file.parent
        return _not_run_result(file, root, FailureClass.ENVIRONMENT, message, options.device_label)


def _not_run_result(
    file: Path, root: Path, failure_class: FailureClass, message: str, label: str | None
) -> CheckResult:
    """Rules 6 and 10: a check that didn't run (or that the machine stopped): its name, file, class and message."""
    try:
        shown = str(file.resolve().relative_to(root.resolve()))
    except ValueError:
        shown = str(file)
    name = file.stem
    if failure_class is not FailureClass.USAGE:
        with contextlib.suppress(CheckError, MobsterError, OSError):
            name = load_check(file).name
    return CheckResult(
        name=valid_text(name),
        file=shown,
        device=None,
        app=None,
        outcome=Outcome(Verdict.COULDNT_RUN, failure_class, message),
        mode=None,
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
        device_label=label,
    )
