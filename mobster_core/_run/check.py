"""Running one check end to end: prepare, choose a path, the steps, the verdict, what it keeps.

Rule 1: the phases run in order and each returns a value: :func:`~.plan.prepare` (device, app,
        identity, env), :func:`~.plan.choose_path` (replay, record or carry, and why),
        :func:`~.steps.execute` (launch, baseline, replay and heals, or Smart), :func:`~.judge.judge`
        (the verdict on one settled read, never a model's word) and :func:`~.keep.keep` (a pass
        keeps the path and the heals). ``_rules``, ``_store`` and the phases' modules hold their
        rules.
Rule 2: a failure is the outcome the check reports, made where it happened; the first one ends the
        run. Everything a run says is a result with a class and a message.
Rule 3: each run writes ``.mobster/runs/<run_id>/``: ``result.json`` and ``journal.jsonl``; when
        it takes frames (``RunOptions.takes_frames``: a reporter, screenshots, ``--frames`` not
        ``none``), ``frames/``: the screen each action was sent on (taken with the read it was
        decided on, written as it arrives, named by its step's ``frame``) and the final one
        (``frames/final.png``, the verdict's read). Then the reporter (``RunOptions.reporter``)
        is given the result: its pages and pictures are made after ``result.json`` is written, in a
        worker thread (never on the event loop, which the other devices of a pool share), delay no
        step and no verdict, and an error there is logged, never the run's outcome.
Rule 4: a run cancelled from outside (Ctrl+C, SIGTERM) still writes its result, class ``stopped``,
        never updates the cache or the heal file, tells the reporter at once (no waiting for
        screenshots in flight), then raises :class:`RunStopped`. It keeps what the phases that
        ended before the stop returned; the journal lists every action.
Rule 5: the run's own files can't be written (the journal, ``.mobster/`` refused or full):
        ``couldnt_run``, class ``environment``. Anything unexpected is ``internal``: the message
        says what and where the traceback was written (``traceback.txt`` in the run folder).
Rule 6: a device with the optional ``CheckReports`` ability is told the check's name before the
        run's first call to it and the verdict once the result is written (not after a stop); an
        error there is logged, never the check's outcome (the verdict is already decided).
Rule 7: a check that names ``${NAME}`` secrets (``_rules/device/secrets.py``) gets their values from
        ``options.secrets`` (else the process environment) before anything is asked of the
        device; an unset or empty one is ``couldnt_run``, class ``usage``, naming it (every one of
        them, when several are unset or empty). Every message the run writes has the values scrubbed.
Rule 8: a check's ``device:`` settings are applied after ``prepare`` and before the steps launch the
        app (``_run/controls`` Rule 1); with ``options.video`` on, the screen is recorded from
        before the run's first call to the device until the verdict (Rule 2 there), and the
        result names the video (``video``, ``video_url``).
"""

from __future__ import annotations

import asyncio
import json
import os
import traceback
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import attrs

from mobster_core._clock import utc_now
from mobster_core._log import get_logger
from mobster_core._results.frames import FINAL_FRAME, FramesMode, is_drift_frame
from mobster_core._results.results import CheckResult, FinishedEarly, StepReport
from mobster_core._rules.device.device import DeviceInfo
from mobster_core._rules.device.secrets import MissingSecret, Secrets, references
from mobster_core._rules.formats.text import utf8
from mobster_core._rules.model.cost import Cost
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, Verdict
from mobster_core._store.checks import Check, project_of
from mobster_core._store.fsutil import UnsafeFile, atomic_write
from mobster_core._store.journal import Journal, JournalError
from mobster_core._store.runs import drop_frame, new_run_folder
from mobster_core.exceptions import PathError, os_error_message
from mobster_core.protocols import CheckReports, Clock, Device, Model, Reporter

from .agent import ModelCalls
from .claim import claim, holding
from .context import Run, RunOptions
from .controls import apply_settings, start_video, stop_video
from .dispatch import Dispatcher
from .ended import Ended
from .judge import Judged, judge
from .keep import keep
from .plan import Plan, Prepared, choose_path, prepare, read_device, require_model
from .steps import Executed, execute, skipped

__all__ = ["RunOptions", "RunStopped", "run_check"]

log = get_logger(__name__)

_STOPPED = Outcome(
    Verdict.COULDNT_RUN,
    FailureClass.STOPPED,
    "the run was stopped; an action in flight may or may not have happened (the journal says which). "
    "Look at the app before running again.",
)


class RunStopped(Exception):
    """A check run was stopped from outside (Ctrl+C, SIGTERM); ``result`` is what it wrote."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.outcome.message)
        self.result = result


@attrs.frozen
class _Story:
    """What a run found out, phase by phase: the values the phases returned, and how it ended."""

    info: DeviceInfo | None = None
    prepared: Prepared | None = None
    plan: Plan = attrs.field(factory=Plan)
    executed: Executed | None = None
    judged: Judged | None = None
    outcome: Outcome = attrs.field(factory=lambda: Outcome(Verdict.PASSED))


async def run_check(
    check: Check, device: Device, clock: Clock, *, model: Model | None = None, options: RunOptions | None = None
) -> CheckResult:
    """Run one check on one device (see the module rules) and write its run folder."""
    options = options or RunOptions()
    root = options.root or project_of(check.file)
    began = clock.now()
    folder = new_run_folder(root, utc_now())
    calls = None if model is None else ModelCalls(model, options.prices)
    secrets, missing = secrets_of(check, options)
    with Journal(folder) as journal:
        dispatch = Dispatcher(device, clock, journal, timing=options.timing, secrets=secrets)
        dispatch.on_sent, dispatch.on_sending = options.on_sent, options.on_sending
        run = Run(check, device, clock, root, options, dispatch, calls, run_dir=_relative(folder, root))
        if run.takes_frames:
            dispatch.keep_frames(folder)
        video = await start_video(device, options.video, folder)
        story, stopped = await _tell(run, folder, missing)
    if stopped is None:
        dispatch.final_frame()
    recording = await stop_video(device, video, options.video, passed=story.outcome.verdict is Verdict.PASSED)
    seconds = clock.now() - began
    frames = dispatch.drop_frames() if stopped is not None else await _frames(dispatch)
    result = attrs.evolve(
        _result(run, story, seconds=seconds, folder=folder, frames=frames),
        video=recording.file,
        video_url=recording.url,
    )
    _drop_unowned_drifts(folder, frames, result.steps)
    atomic_write(folder / "result.json", utf8(json.dumps(result.to_dict(), indent=2, ensure_ascii=False)))
    if options.reporter is not None:
        if stopped is not None:
            _report(options.reporter, result, folder, options.frames)  # at once: a stopped run's page has no pictures
        else:
            await asyncio.to_thread(_report, options.reporter, result, folder, options.frames)
    if stopped is not None:
        if options.on_result is not None:
            options.on_result(result)
        raise RunStopped(result) from stopped
    if isinstance(device, CheckReports):
        await _best_effort(device.check_ended(result.name, result.verdict, result.outcome.message), "check_ended")
    if options.on_result is not None:
        options.on_result(result)
    return result


async def _best_effort(call: Coroutine[Any, Any, None], what: str) -> None:
    """Rule 6: tell the device about the check; an error is logged, never the run's outcome."""
    try:
        await call
    except Exception as exc:  # noqa: BLE001 - best effort by contract: the verdict is already decided
        log.warning("the device wasn't told about the check", call=what, error=f"{type(exc).__name__}: {exc}")


def secrets_of(check: Check, options: RunOptions) -> tuple[Secrets, MissingSecret | None]:
    """Rule 7: the values of the secrets the check names, and every one that isn't set or is empty."""
    launch = check.launch
    names = references([*check.steps, *launch.args, *launch.env.values(), launch.url])
    if not names:
        return Secrets(), None
    try:
        return Secrets.of(names, os.environ if options.secrets is None else options.secrets), None
    except MissingSecret as exc:
        return Secrets(), exc


def missing_secret(check: Check, missing: MissingSecret) -> Outcome:
    """Rule 7: the usage problem of the secrets that aren't set, or are empty, each named in one line."""
    said, how = missing.words()
    unset, empties = missing.unset, missing.empties

    def them(names: tuple[str, ...]) -> str:  # named when the line says both kinds, else "it" or "them"
        if unset and empties:
            return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return "it" if len(names) == 1 else "them"

    fixes = []
    if unset:
        fixes.append(f"set {them(unset)} in the environment (or in an env file) and run again")
    if empties:
        steps = "the step" if len(empties) == 1 else "their steps"
        fixes.append(
            f"a check can't type nothing: set {them(empties)} to the text to type, or leave {steps} out of the check"
        )
    return Outcome(
        Verdict.COULDNT_RUN,
        FailureClass.USAGE,
        f"{check.file}: the check names {said}, and {how}: {'; '.join(fixes)}",
    )


async def _tell(run: Run, folder: Path, missing: MissingSecret | None) -> tuple[_Story, asyncio.CancelledError | None]:
    """Run the phases in order (Rule 1); the first failure ends the story (Rules 2, 4, 5, 7)."""
    story = _Story()
    if missing is not None:
        return attrs.evolve(story, outcome=missing_secret(run.check, missing)), None
    try:
        if isinstance(run.device, CheckReports):
            await _best_effort(run.device.check_started(run.check.name), "check_started")
        info = await read_device(run)
        story = attrs.evolve(story, info=info)
        prepared = await prepare(run, info)
        story = attrs.evolve(story, prepared=prepared)
        await apply_settings(run)
        plan, lease = await claim(run, prepared, choose_path(run, prepared))
        story = attrs.evolve(story, plan=plan)
        async with holding(run, lease):
            story = await _record_or_replay(run, prepared, story)
    except Ended as ended:
        return attrs.evolve(story, outcome=ended.outcome), None
    except asyncio.CancelledError as exc:
        return attrs.evolve(story, outcome=_STOPPED), exc
    except (JournalError, UnsafeFile, PathError, OSError) as exc:
        message = os_error_message(exc) if isinstance(exc, OSError) else str(exc)
        return attrs.evolve(story, outcome=Outcome(Verdict.COULDNT_RUN, FailureClass.ENVIRONMENT, message)), None
    except Exception as exc:  # noqa: BLE001 - Rule 5: whatever else went wrong is ours; say so, keep the trace
        return attrs.evolve(story, outcome=_internal(exc, folder, run.dispatch.secrets)), None
    return story, None


async def _record_or_replay(run: Run, prepared: Prepared, story: _Story) -> _Story:
    """Rule 1's steps, verdict and keep, on the plan chosen (a recording holds its lease meanwhile)."""
    plan = story.plan
    require_model(run, plan)
    executed = await execute(run, prepared, plan)
    story = attrs.evolve(story, executed=executed, outcome=executed.failure or story.outcome)
    if executed.failure is None:
        judged = await judge(run, executed.baseline, executed.smart, skipped(run, executed.early))
        story = attrs.evolve(story, judged=judged, outcome=judged.outcome)
        if judged.outcome.verdict is Verdict.PASSED:
            note = keep(run, prepared, executed)
            if note is not None:
                why = "; ".join(w for w in (executed.plan.why, note) if w)
                story = attrs.evolve(story, executed=attrs.evolve(executed, plan=attrs.evolve(executed.plan, why=why)))
    return story


def _internal(exc: Exception, folder: Path, secrets: Secrets) -> Outcome:
    """Rule 5: an unexpected error, with its traceback in the run folder (never on the terminal)."""
    file = folder / "traceback.txt"
    try:
        atomic_write(file, utf8(secrets.scrub("".join(traceback.format_exception(exc)))))
    except OSError:
        log.exception("the traceback couldn't be written", file=str(file))
    message = secrets.scrub(f"an unexpected error ({type(exc).__name__}: {exc}); the traceback is in {file}")
    return Outcome(Verdict.COULDNT_RUN, FailureClass.INTERNAL, message)


#: The longest a run waits, at its end, for the screenshots still arriving (seconds on its clock).
FRAMES_WAIT_S = 30.0


async def _frames(dispatch: Dispatcher) -> frozenset[str]:
    """Rule 3: the frames written, once those still arriving have come (or :data:`FRAMES_WAIT_S` passed)."""
    return await dispatch.settle_frames(FRAMES_WAIT_S)


def _drop_unowned_drifts(folder: Path, frames: frozenset[str], steps: tuple[StepReport, ...]) -> None:
    """Rule 3: the frame of a drift that a heal stood in for is no step's: it goes (the healed steps have theirs)."""
    owned = {r.frame for r in steps}
    for name in sorted(frames - owned):
        if is_drift_frame(name):
            drop_frame(folder, name)


def _report(reporter: Reporter, result: CheckResult, folder: Path, frames: FramesMode) -> None:
    """Rule 3: the reporter's turn, after ``result.json``; a failure here costs the run nothing."""
    try:
        reporter.check_ended(result, folder, frames)
    except Exception:  # the verdict is written: a page that can't be made is logged, not fatal
        log.exception("the run's reporter failed", folder=str(folder))


def _result(run: Run, story: _Story, *, seconds: float, folder: Path, frames: frozenset[str]) -> CheckResult:
    """The run's result; a step's frame that was never written (its screenshot failed) is None."""
    check, prepared, plan = run.check, story.prepared, story.plan
    executed, judged = story.executed, story.judged
    steps = tuple(
        r if r.frame is None or r.frame in frames else attrs.evolve(r, frame=None)
        for r in (() if executed is None else executed.reports)
    )
    return CheckResult(
        name=check.name,
        file=_relative(check.file, run.root),
        device=story.info,
        app=None if prepared is None else prepared.app,
        outcome=attrs.evolve(story.outcome, message=run.dispatch.secrets.scrub(story.outcome.message)),
        mode=None if executed is None else executed.mode,  # Rule 5 of the results: none until the steps ran
        seconds=seconds,
        cost=Cost() if run.calls is None else run.calls.cost,
        model_calls=0 if run.calls is None else run.calls.count,
        identity=None if prepared is None else prepared.identity,
        env=None if prepared is None else prepared.env.digest,
        path_used=(plan if executed is None else executed.plan).used,
        path_why=(plan if executed is None else executed.plan).why,
        steps=steps,
        heals=() if executed is None else executed.heals,
        assertions=() if judged is None else judged.assertions,
        run_dir=_relative(folder, run.root),
        device_label=run.options.device_label,
        stable=None if judged is None else judged.stable,
        carried_from=plan.carried_from,
        final_frame=FINAL_FRAME if FINAL_FRAME in frames else None,
        finished_early=_finished_early(story),
    )


def _finished_early(story: _Story) -> FinishedEarly | None:
    """The steps ended early and the expectations decided: the run passed, or failed for it alone."""
    early = None if story.executed is None else story.executed.early
    outcome = story.outcome
    decided = outcome.verdict is Verdict.PASSED or outcome.failure_class is FailureClass.STEPS_SKIPPED
    return early if decided else None


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
