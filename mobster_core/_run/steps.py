"""A check's steps: launch, the baseline, then replay (healing what drifted) or Smart.

Rule 1: the app is launched as the check says (with the permissions its alert policy names,
        ``_rules/device/alerts`` Rule 8), journaled as an action; the baseline follows. The
        first step's wait (or Smart's first turn) starts on the baseline's last read, and the
        step a heal resumes at on the read the heal ended on: neither reads the screen again.
Rule 2: a recorded path replays with no model; a drifted step is healed by the model for that
        step only, when nothing rules it out (``heal.refusal``), and replay resumes where the heal
        says. With no path, Smart performs the steps and records one.
Rule 3: a live step (text the model writes on every run) is typed by the model through a fresh
        agent told to do only that step. Its action types as the step did (``typing_rules`` Rule
        5: a typing action, into that field or one not on the recorded screen, that hides what is
        typed when the field did); one that doesn't fails the step, class ``drift``, saying so.
Rule 4 (carry): a carried path that stops before the verdict for a reason a recording may not have
        (drift, the breaker, the app gone, a refusal) falls back: the app is launched again
        (journaled as ``relaunch``) and Smart records afresh in the same run, its actions keyed
        ``fresh-N``; the carried attempt's steps and model calls count, its heals are dropped, and
        the path's ``why`` says what happened. It never falls back after an unknown outcome, a
        device or model failure, or when the carried attempt sent an action that commits something
        (a send, post, delete or purchase that a recording would repeat).
Rule 9 (device steps, ``_rules/device/controls`` Rule 5): a check's biometric answer or push is the
        runner's, never the model's. Smart performs the plain steps before one with the model
        (an agent told to do only those, then say done), then the runner sends the device step on
        the settled screen (recorded as a step of the path, journaled first, the screen awaited
        after it), then the next steps; the budgets are the whole Smart run's. A replay sends it
        at its place with no model (``replay`` Rule 9); a heal never passes it (``heal`` Rule 9).
        A path whose device steps aren't the check's (``_rules/device/controls`` Rule 6) isn't replayed:
        ``couldnt_run``, class ``usage``, record the check again; nothing is sent.
Rule 5: every phase returns a value: what it did and, when it failed, the outcome; nothing here
        writes another object's state.
Rule 6: a step of the path that is the first action of a heal this check's review rejected (the
        path is shared with another check that accepted it) fails the check there, class
        ``drift``, after the steps before it replayed: it keeps failing, as a rejected heal does.
Rule 7: when the breaker refuses to heal a step of a path whose heals wait for review (the path
        replayed is the healed one), the outcome says so: the drifted step, the heal file and its
        heals, and the fix is to review them (``FixCode.REVIEW_HEAL``), not only to record again.
Rule 10: a heal waiting for review is never replaced (the heal file's Rule 9). A step that drifts
        where the replayed healed path holds a heal that waits for review (its actions, as this run
        numbers them), or at the step of a heal that waits in another env's heal state (a heal here
        would take its place in the heal file), is not healed: the check fails there, class
        ``drift``, naming the heal and its heal file, with the fix to settle it
        (``FixCode.SETTLE_HEAL``: accept or reject it). With or without a model, and whatever else
        would have stopped the heal (no model, healing off, the breaker), but an app that is gone.
Rule 11: a step that fails because this check's review rejected its heal (a keep-failing step
        that drifted, or Rule 6's step) says how to undo that: the fix is ``FixCode.UNDO_REJECT``
        (undo the reject, then a run with a model heals it; or record again), never to heal it
        with a model, which a reject refuses.
Rule 8: the steps that ended before the check's last one with no failure say so
        (``Executed.early``): Smart blocked, or done after fewer actions than the check has
        steps; a replayed path with fewer actions than steps. The verdict still decides; a check
        with ``all_steps: true`` fails then (:func:`skipped` says what was left undone).
Rule 11: a replay asked to stop after step ``until`` (a live session reaching a screen:
        ``sessions``) replays the path's first ``until`` steps under every rule above (the device
        steps are judged against the whole path) and stops there: what the check would do next is
        not sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from mobster_core._log import get_logger
from mobster_core._results.results import FinishedEarly, Mode, StepReport
from mobster_core._rules.assertions import evaluate
from mobster_core._rules.device.alerts import AlertPolicy, permissions_of
from mobster_core._rules.device.controls import DeviceEvent, device_misfit
from mobster_core._rules.device.device import LaunchOptions
from mobster_core._rules.replay.breaker import Breaker
from mobster_core._rules.replay.settle import Sighting
from mobster_core._rules.replay.typing_rules import lost_typing
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, SmartNote, Verdict
from mobster_core._rules.vocabulary.screen import Screen
from mobster_core._rules.vocabulary.steps import Step
from mobster_core._store.healfile import HealEntry, compact, heal_file_for, moved

from .agent import Agent, Brief, Limits, ModelCalls, Recorded
from .context import Run
from .controls import device_event
from .ended import Ended, couldnt, failed
from .heal import HealJob, heal_step, refusal
from .judge import Baseline, take_baseline
from .plan import Plan, Prepared, no_model
from .replay import Drift, FromCheck, LiveStep, Replayer

__all__ = ["Executed", "execute"]

log = get_logger(__name__)

#: Rule 4: how a carried path may stop and still fall back to a recording in the same run.
_CARRY_FALLS_BACK = frozenset(
    {FailureClass.DRIFT, FailureClass.HEAL_LIMIT, FailureClass.APP_NOT_RUNNING, FailureClass.REFUSED}
)


@attrs.frozen
class Executed:
    """What a check's steps did (Rule 5).

    ``ran`` is the path as it ran (what a passing verdict stores); ``plan`` the plan as it ended
    (a carried path that fell back is recorded afresh); ``smart`` what Smart said that picks the
    class of a failed verdict; ``failure`` how the steps failed, when they did.
    """

    mode: Mode
    plan: Plan
    baseline: Baseline | None
    ran: tuple[Step, ...] = ()
    reports: tuple[StepReport, ...] = ()
    heals: tuple[HealEntry, ...] = ()
    smart: SmartNote | None = None
    failure: Outcome | None = None
    #: Rule 8: the steps ended before the check's last one (the verdict then decides), else None.
    early: FinishedEarly | None = None


async def execute(run: Run, prepared: Prepared, plan: Plan, *, until: int | None = None) -> Executed:
    """Rules 1, 2 and 4: launch, the baseline, then the steps (a replay up to step ``until`` only: Rule 11)."""
    run.dispatch.watch_alerts(_alerts(run), prepared.info.kind)
    await run.dispatch.launch(run.bundle, _launch(run, prepared))
    baseline = await take_baseline(run)
    if run.check.launch_only:
        return Executed(Mode.LAUNCH, plan, baseline)
    if plan.path is None:
        return await _smart(run, prepared, Executed(Mode.SMART, plan, baseline))
    replayed = await _replay(run, prepared, Executed(Mode.REPLAY, plan, baseline), plan.path, until)
    if plan.carried is not None and replayed.failure is not None:
        return await _fall_back(run, prepared, replayed)
    of = len(run.check.steps)
    if replayed.failure is None and len(replayed.ran) < of:
        return attrs.evolve(replayed, early=FinishedEarly(len(replayed.ran), of, Mode.REPLAY))
    return replayed


def _alerts(run: Run) -> AlertPolicy:
    """The run's alert policy: the options' over the check's (``docs/alerts.md``)."""
    return run.options.alerts or run.check.alerts


def _launch(run: Run, prepared: Prepared) -> LaunchOptions:
    """The launch, with the permissions the alert policy sets before it (``_rules/device/alerts`` Rule 8)."""
    permissions = permissions_of(_alerts(run))
    return attrs.evolve(prepared.launch, permissions=permissions) if permissions else prepared.launch


async def _smart(run: Run, prepared: Prepared, executed: Executed, key_prefix: str = "smart") -> Executed:
    """Smart performs the steps and records the path (Rule 2)."""
    assert run.calls is not None  # plan.require_model saw to it
    if run.check.device_steps:
        recorded = await _smart_with_device_steps(run, prepared, executed, key_prefix)
    else:
        agent = Agent(run.calls, run.dispatch, brief(run, prepared, key_prefix=key_prefix))
        recorded = await agent.run(_seed(executed.baseline))
    return attrs.evolve(
        executed,
        mode=Mode.SMART,
        ran=recorded.path,
        reports=executed.reports + recorded.reports,
        smart=_note(recorded),
        failure=recorded.failure,
        early=_early(run, recorded),
    )


@attrs.frozen
class _Part:
    """Rule 9: the plain steps ``first``..``last`` (from 1; none when ``last < first``), then ``event``."""

    first: int
    last: int
    event: DeviceEvent | None


def _parts(run: Run) -> list[_Part]:
    """Rule 9: the check's steps cut at each device step."""
    parts, first = [], 1
    for number, event in run.check.device_steps:
        parts.append(_Part(first, number - 1, device_event(run, event)))
        first = number + 1
    if first <= len(run.check.steps):
        parts.append(_Part(first, len(run.check.steps), None))
    return parts


def _part_request(run: Run, part: _Part) -> str:
    """Rule 9: what the model is told to do of the check now: these steps only, and what follows."""
    span = f"step {part.first}" if part.first == part.last else f"steps {part.first} to {part.last}"
    notes = ["The steps before are done."] if part.first > 1 else []
    if part.event is None:
        notes.append("The check ends there.")
    else:
        notes.append(f"Step {part.last + 1}, {part.event.show()}, comes next: the SDK does it itself.")
    return f"{run.check.request_text()}\n\nDo only {span} now, then say done. {' '.join(notes)}"


async def _smart_with_device_steps(run: Run, prepared: Prepared, executed: Executed, key_prefix: str) -> Recorded:
    """Rule 9: one agent does the plain steps part by part; the runner sends each device step between them."""
    assert run.calls is not None
    agent = Agent(run.calls, run.dispatch, brief(run, prepared, key_prefix=key_prefix))
    began, seed, steps = run.dispatch.clock.now(), _seed(executed.baseline), run.check.steps
    for part in _parts(run):
        if part.last >= part.first:
            agent.narrow(steps[part.first - 1 : part.last], _part_request(run, part))
            recorded = await agent.run(seed, began=began)
            if recorded.failure is not None or recorded.blocked is not None:
                return recorded
            seed = None
        if part.event is not None:
            try:
                await agent.device_step(await agent.settled_screen(seed), part.event)
            except Ended as ended:
                return agent.recorded(failure=ended.outcome)
            seed = None
    return agent.recorded()


def _early(run: Run, recorded: Recorded) -> FinishedEarly | None:
    """Rule 8: Smart ended before the check's last step (blocked, or done after fewer actions than steps)."""
    of = len(run.check.steps)
    if recorded.failure is not None or (len(recorded.path) >= of and recorded.blocked is None):
        return None
    blocked = recorded.blocked
    why = "the model said the check was done" if blocked is None else f"the model was blocked: {blocked}"
    return FinishedEarly(len(recorded.path), of, Mode.SMART, why)


def skipped(run: Run, early: FinishedEarly | None) -> str | None:
    """Rule 8: what the steps left undone, in words, when the check asks for all of them (else None)."""
    if early is None or not run.check.all_steps:
        return None
    steps = run.check.steps
    left = [f"step {n} ({steps[n - 1]})" for n in range(early.after_step + 1, early.of + 1)]
    undone = f"{', '.join(left)} {'was' if len(left) == 1 else 'were'} not performed" if left else "it stopped early"
    return f"{early.text}{early.because}: {undone}, and the check asks for all its steps (all_steps: true)"


def _seed(baseline: Baseline | None) -> Sighting | None:
    """The baseline's last read: the first step (or Smart's first turn) starts on it."""
    return None if baseline is None else baseline.read.sighting


def _note(recorded: Recorded) -> SmartNote | None:
    """What Smart said that picks the class of a failed verdict: a refusal, else being blocked."""
    if recorded.refusals:
        return SmartNote(FailureClass.REFUSED, recorded.refusals[0])
    if recorded.blocked is not None:
        return SmartNote(FailureClass.BLOCKED, f"the model was blocked: {recorded.blocked}")
    return None


async def _replay(
    run: Run, prepared: Prepared, executed: Executed, path: tuple[Step, ...], until: int | None = None
) -> Executed:
    """Replay ``path``, healing drifted steps (Rule 2), up to a step this check's review rejected (Rule 6).

    With ``until``, only the first ``until`` steps of it (Rule 11).
    """
    misfit = device_misfit(path, [event for _n, event in run.check.device_steps])
    if misfit is not None:  # Rule 9: never send a device step the check doesn't say
        message = f"{misfit}: the path isn't this check's; record the check again"
        return attrs.evolve(
            executed, failure=Outcome(Verdict.COULDNT_RUN, FailureClass.USAGE, message, fix=Fix(FixCode.RECORD_AGAIN))
        )
    path = path if until is None else path[:until]
    refused = rejected_at(path, executed.plan.state.rejected)
    if refused is None:
        return await _replay_steps(run, prepared, executed, path)
    index, entry = refused
    done = await _replay_steps(run, prepared, executed, path[: index - 1])
    if done.failure is not None:
        return done
    heal = heal_file_for(run.check.file).name
    message = (
        f"step {index} ({entry.to}) is a heal this check's review rejected ({heal}), and the recorded path "
        "holds it (another check with the same steps accepted it): it keeps failing"
    )
    failure = Outcome(Verdict.FAILED, FailureClass.DRIFT, message, step=index, fix=_undo_reject(run))
    return attrs.evolve(done, ran=path, failure=failure)


def rejected_at(path: Sequence[Step], rejected: Sequence[HealEntry]) -> tuple[int, HealEntry] | None:
    """Rule 6: the first step of ``path`` that is the first action of a heal this check rejected."""
    for entry in rejected:
        if 1 <= entry.step <= len(path) and entry.new and compact(path[entry.step - 1]) == dict(entry.new[0]):
            return entry.step, entry
    return None


async def _replay_steps(run: Run, prepared: Prepared, executed: Executed, path: tuple[Step, ...]) -> Executed:
    """Replay ``path``, healing drifted steps (Rule 2); return the path as it ran."""
    replayer = Replayer(
        run.dispatch,
        prepared.info.kind,
        run.provenance,
        timing=run.options.timing,
        check=FromCheck(live=_live_step(run, prepared), events=_events(run)),
    )
    plan = executed.plan
    steps, start, seed = path, 0, _seed(executed.baseline)
    breaker = Breaker(recorded=len(path), pending=plan.pending)
    reports, heals = list(executed.reports), list(executed.heals)
    while True:
        replayed = await replayer.run(steps, start=start, seed=seed)
        reports += replayed.reports
        drift = replayed.drift
        failure = replayed.failure
        if drift is not None:
            failure = refusal(
                drift, keep_failing=plan.state.keep_failing, no_heal=run.options.no_heal, model=run.calls is not None,
                breaker=breaker,
            )  # fmt: skip
            failure = _rejected(run, plan, drift, failure)
            failure = _waiting(run, plan, drift, failure)
            failure = _settle_first(run, plan, drift, failure, heals)
        if drift is None or failure is not None:
            reports += [drift.report] if drift is not None else []
            return attrs.evolve(executed, ran=steps, reports=tuple(reports), heals=tuple(heals), failure=failure)
        job = HealJob(steps, drift, breaker, _expect(run), run_dir=run.run_dir)
        healed = await heal_step(_healer(run, prepared, drift, reports), job)
        reports += healed.reports
        # The heal file's Rule 1: an entry that changed nothing (its lines read the same) is no heal.
        heals += [healed.entry] if healed.entry is not None and healed.entry.changed else []
        steps, breaker = healed.steps, healed.breaker
        if healed.failure is not None or healed.resume_at is None:
            return attrs.evolve(executed, ran=steps, reports=tuple(reports), heals=tuple(heals), failure=healed.failure)
        start, seed = healed.resume_at, healed.seen


def _events(run: Run) -> dict[str, DeviceEvent]:
    """Rule 9: the check's pushes by file, as a replay sends them (today's content, to the app under test)."""
    return {file: device_event(run, event) for file, event in run.check.payloads.items()}


def _undo_reject(run: Run) -> Fix:
    """Rule 11: undo the reject kept beside the check's heal file."""
    shown = _relative(heal_file_for(run.check.file), run.root)
    return Fix(FixCode.UNDO_REJECT, {"heal_file": shown, "check": run.check.file.name})


def _rejected(run: Run, plan: Plan, drift: Drift, failure: Outcome | None) -> Outcome | None:
    """Rule 11: a keep-failing step that drifted fails with the fix to undo its reject; else ``failure`` as it was."""
    if failure is None or failure.fix is not None or failure.failure_class is not FailureClass.DRIFT:
        return failure
    if drift.at not in plan.state.keep_failing:
        return failure
    return attrs.evolve(failure, fix=_undo_reject(run))


def _waiting(run: Run, plan: Plan, drift: Drift, failure: Outcome | None) -> Outcome | None:
    """Rule 7: the breaker refused a heal of a path whose heals wait for review: say so, and how to review them."""
    if failure is None or failure.failure_class is not FailureClass.HEAL_LIMIT or not plan.state.adopts:
        return failure
    file = heal_file_for(run.check.file)
    shown = _relative(file, run.root)
    waiting = "; ".join(f"step {e.step}, {e.from_} -> {e.to}" for e in plan.state.adopts)
    healed_here = any(e.step <= drift.at < e.step + len(e.new) for e in plan.state.adopts)
    what = f"step {drift.at} is" if healed_here else "the path replayed holds"
    message = (
        f"{drift.message}; {what} a heal that waits for review in {shown} ({waiting}), and it doesn't fit "
        f"this build: {failure.message}"
    )
    fix = Fix(FixCode.REVIEW_HEAL, {"heal_file": shown, "check": run.check.file.name})
    return attrs.evolve(failure, message=message, fix=fix)


def _settle_first(
    run: Run, plan: Plan, drift: Drift, failure: Outcome | None, heals: Sequence[HealEntry]
) -> Outcome | None:
    """Rule 10: a drift on a step whose heal waits for review fails there, naming it; else ``failure`` as it was."""
    if failure is not None and failure.failure_class is FailureClass.APP_NOT_RUNNING:
        return failure
    entry = waiting_at(plan, drift.at, heals)
    if entry is None:
        return failure
    file = heal_file_for(run.check.file)
    shown = _relative(file, run.root)
    message = (
        f"{drift.message}; step {drift.at} is a heal that waits for review in {shown} (step {entry.step}, "
        f"{entry.from_} -> {entry.to}), and this build doesn't fit it: a heal waiting for review is never "
        "healed over"
    )
    fix = Fix(FixCode.SETTLE_HEAL, {"heal_file": shown, "check": run.check.file.name})
    return Outcome(Verdict.FAILED, FailureClass.DRIFT, message, step=drift.at, fix=fix)


def waiting_at(plan: Plan, at: int, heals: Sequence[HealEntry] = ()) -> HealEntry | None:
    """Rule 10: the heal waiting for review that step ``at`` (from 1, as this run numbers it) is, or would replace.

    ``heals`` are this run's heals so far: each moved the steps after it by the actions it added
    or took away, so the replayed path's own waiting heals are looked for where they are now.
    """
    if plan.adopted:
        for entry, start in moved(plan.state.adopts, heals):
            if start <= at < start + max(1, len(entry.new)):
                return entry
    return next((e for e in plan.waiting if e.step == at), None)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _healer(run: Run, prepared: Prepared, drift: Drift, reports: list[StepReport]) -> Agent:
    """The agent of one heal: told what was done, its actions named for the step they heal."""
    assert run.calls is not None  # heal.refusal saw to it
    done = tuple(f"{r.text}: done" for r in reports if r.reason is None)
    changes = {"first_index": drift.at, "history": done, "purpose": f"healing step {drift.at}"}
    return Agent(run.calls, run.dispatch, brief(run, prepared, **changes))


def _expect(run: Run) -> Callable[[Screen], bool] | None:
    """Whether the check's expectations all hold on a screen, for a heal of the last step."""
    expect = run.check.expect
    if not expect:
        return None
    return lambda screen: all(r.ok for r in evaluate(expect, screen))


def _live_step(run: Run, prepared: Prepared) -> LiveStep:
    """Rule 3: the model types a live step (with no model, the step can't run, and says why)."""
    calls: ModelCalls | None = run.calls
    if calls is None:

        async def no_live(index: int, step: Step, _screen: Screen) -> str | None:
            what = f"step {index} ({step.describe()})"
            none, fix = no_model(run.options, "type it")
            raise couldnt(
                FailureClass.MODEL, f"{what} is typed by the model on every run, and {none}", step=index, fix=fix
            )

        return no_live

    async def live(index: int, step: Step, screen: Screen) -> str | None:
        what = f"step {index} ({step.describe()})"
        agent = Agent(calls, run.dispatch, brief(run, prepared, first_index=index, purpose=what))
        request = (
            f"{run.check.request_text()}\n\nDo only step {index} now ({step.describe()}): its text is "
            "written by you on every run."
        )
        decision = await agent.ask(screen, recorded=(step,), request=request)
        if not decision.actions:
            raise couldnt(
                FailureClass.MODEL,
                f"{what}: the model didn't do the live step: {decision.reason or decision.kind}",
                step=index,
            )
        await agent.act_turn(screen, decision.actions[:1])
        if len(agent.path) != 1:
            raise couldnt(FailureClass.MODEL, f"{what}: the model's action for the live step was not sent", step=index)
        lost = lost_typing((step,), agent.path)  # Rule 3: it types as the step did
        if lost is not None:
            said = f"{what}: the model's action for this live step {lost} (it did {agent.path[0].describe()})"
            raise failed(FailureClass.DRIFT, said, step=index)
        return agent.reports[0].frame

    return live


def brief(run: Run, prepared: Prepared, **changes: Any) -> Brief:
    """What every agent of this run is told, with ``changes`` (a heal's first index, …)."""
    check, options = run.check, run.options
    budget = check.budget
    max_usd = budget.max_usd if options.max_usd is None else min(budget.max_usd, options.max_usd)
    defaults: dict[str, Any] = {
        "request": check.request_text(),
        "steps": check.steps,
        "limits": Limits(max_usd=max_usd, max_seconds=budget.max_seconds),
    }
    return Brief(
        kind=prepared.info.kind,
        provenance=run.provenance,
        screenshots=options.screenshots,
        timing=options.timing,
        **{**defaults, **changes},
    )


async def _fall_back(run: Run, prepared: Prepared, carried: Executed) -> Executed:
    """Rule 4: the carried path stopped; record afresh in the same run, or say why it can't."""
    outcome = carried.failure
    assert outcome is not None
    if outcome.failure_class not in _CARRY_FALLS_BACK:
        return carried
    plan = carried.plan
    # The outcome's own fix (the breaker's: record again) is what happens next: it is not said.
    said = f"the path carried from {plan.carried_from} stopped: {outcome.message}"
    committed = run.dispatch.first_commit()
    if committed is not None:
        why = (
            f"{said}. It isn't recorded afresh in this run: {committed} was sent and commits something a "
            "recording would do again. Look at the app before recording it again"
        )
        again = Fix(FixCode.RECORD_AGAIN)
        return attrs.evolve(carried, failure=attrs.evolve(outcome, message=why, fix=again))
    if run.calls is None:
        none, fix = no_model(run.options, "record a new path")
        failure = Outcome(Verdict.COULDNT_RUN, FailureClass.MODEL, f"{said}; {none}", step=outcome.step, fix=fix)
        return attrs.evolve(carried, failure=failure)
    dropped = len(carried.heals)
    note = f" ({dropped} heal{'s' if dropped != 1 else ''} dropped)" if dropped else ""
    plan = attrs.evolve(plan, used=False, carried=None, why=f"{plan.why}; {said}{note}; recorded afresh")
    log.info("carried path stopped; recording afresh", reason=outcome.message)
    restart = attrs.evolve(carried, plan=plan, heals=(), failure=None)
    try:
        await run.dispatch.launch(run.bundle, _launch(run, prepared), key="relaunch")
        restart = attrs.evolve(restart, baseline=await take_baseline(run))
    except Ended as ended:
        return attrs.evolve(restart, failure=ended.outcome)
    return await _smart(run, prepared, restart, key_prefix="fresh")
