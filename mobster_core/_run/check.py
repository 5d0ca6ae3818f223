"""Running one check end to end: launch, baseline, replay or Smart, heal, verdict, files (SPEC §6-12).

Rule 1: the path for the check's identity and the device's env is replayed when there is one, with
        no model; Smart runs when there is none or with ``fresh`` (a model is needed), and the path
        is stored only when the verdict passes. A launch-only check (no steps) never needs a model.
Rule 2: a drifted step whose app is gone (the home screen in front) fails ``app_not_running``:
        a heal would hide a crash. Else it works down SPEC §10's list: keep-failing → ``failed drift``; no heal or no
        model → ``failed drift``; the breaker → ``failed heal_limit``; else the model heals that
        step only. A healed run that passes stores the healed path, keeps the recorded one for
        ``--reject``, and writes the heal file beside the check.
Rule 3: the verdict is a separate step: assertions on one settled read, never a model's word.
Rule 4: everything a run says is a result with a class and a message; each run writes
        ``.mobster/runs/<run_id>/`` (``result.json``, ``journal.jsonl``, frames when the driver
        gives screenshots).
Rule 5: a run cancelled from outside (Ctrl+C, SIGTERM) still writes its result, class ``stopped``,
        never updates the cache or the heal file, then raises :class:`RunStopped`.
Rule 6: with ``carry``, a check with no path for this env but one from another env replays the
        newest of them under the same matcher, heals and breaker (its keep-failing steps too).
        When it passes, the path as it ran (heals applied) is stored under this env, with the heal
        state its heals need for review; when its verdict fails, the check fails. When it stops
        before the verdict for a reason a recording may not have (drift, the breaker, the app gone,
        a refusal), the app is launched again (journaled as ``relaunch``) and Smart records afresh
        in the same run, its actions keyed ``fresh-N``; the cost of the carried attempt counts,
        its heals are dropped, and ``path.why`` says what happened. It never falls back after an
        unknown outcome, a device or model failure, or when the carried attempt sent an action
        that commits something (a send, post, delete or purchase that a recording would repeat).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.assertions import AssertionResult, evaluate
from mobster_core._rules.breaker import Breaker
from mobster_core._rules.cost import Cost, PriceTable
from mobster_core._rules.device import SPRINGBOARD, Action, AppInfo, DeviceInfo, DeviceKind
from mobster_core._rules.identity import Env, path_identity
from mobster_core._rules.safety import classify
from mobster_core._rules.screen import Screen
from mobster_core._rules.settle import BASELINE_POLICY, DEFAULT_POLICY, PollPolicy
from mobster_core._rules.steps import Step
from mobster_core._rules.text import utf8
from mobster_core._rules.typing_rules import Provenance
from mobster_core._rules.verdict import FailureClass, Outcome, Verdict, decide
from mobster_core._store.cache import ReplayCache, StoredPath
from mobster_core._store.checks import Check
from mobster_core._store.fsutil import MOBSTER_DIR, atomic_write, ensure_gitignore, private_dir, project_lock
from mobster_core._store.healfile import (
    HealEntry,
    HealFileError,
    HealState,
    heal_file_for,
    load_heal_state,
    merge_entries,
    read_heal_file,
    save_heal_state,
    write_heal_file,
)
from mobster_core._store.journal import Journal
from mobster_core.exceptions import DeviceError, MobsterError, ModelError
from mobster_core.protocols import Clock, Device, Model, Screenshots

from .agent import Agent, AgentStop
from .agent import Budget as AgentBudget
from .dispatch import Dispatcher, DispatchFailed
from .heal import HealEnd, heal_step
from .judge import settled_read
from .replay import Replayer, ReplayResult, StepReport, StepSource, Stop

__all__ = ["CheckResult", "Mode", "RunOptions", "RunStopped", "new_run_id", "run_check"]

log = get_logger(__name__)


class Mode:
    """How a check's steps ran: ``launch`` (no steps), ``smart`` (the model) or ``replay``."""

    LAUNCH = "launch"
    SMART = "smart"
    REPLAY = "replay"


@attrs.frozen
class RunOptions:
    """How to run: strict CI (``no_heal``), record again (``fresh``), carry paths, prices, budget caps."""

    no_heal: bool = False
    fresh: bool = False
    #: Replay the newest path of another env (a new build) when this env has none (Rule 6).
    carry: bool = False
    prices: PriceTable = attrs.field(factory=PriceTable)
    max_usd: float | None = None
    policy: PollPolicy = DEFAULT_POLICY
    screenshots: bool = True
    #: Called with a line per action sent (``step 2 (Tap "Sign up")``), for progress output.
    on_sent: Callable[[str], None] | None = attrs.field(default=None, eq=False)


@attrs.frozen
class CheckResult:
    """One check's result: SPEC §12's ``checks`` entry (:meth:`to_dict`)."""

    name: str
    file: str
    device: DeviceInfo | None
    app: AppInfo | None
    outcome: Outcome
    mode: str
    seconds: float
    cost: Cost
    model_calls: int
    identity: str | None
    env: str | None
    path_used: bool
    path_why: str | None
    steps: tuple[StepReport, ...]
    heals: tuple[HealEntry, ...]
    assertions: tuple[AssertionResult, ...]
    run_dir: str
    stable: bool | None = None
    #: The env the path was carried from (``1.0 (1)``), when a path was carried (Rule 6).
    carried_from: str | None = None

    @property
    def verdict(self) -> Verdict:
        """The verdict."""
        return self.outcome.verdict

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape of SPEC §12."""
        return {
            "name": self.name,
            "file": self.file,
            "device": None
            if self.device is None
            else {"name": self.device.name, "kind": self.device.kind.value, "ios": self.device.ios},
            "app": None
            if self.app is None
            else {"bundle": self.app.bundle, "version": self.app.version, "build": self.app.build},
            "verdict": self.outcome.verdict.value,
            "class": None if self.outcome.failure_class is None else self.outcome.failure_class.value,
            "message": self.outcome.message,
            "mode": self.mode,
            "seconds": round(self.seconds, 3),
            "cost_usd": round(self.cost.usd, 6),
            "cost_estimated": self.cost.estimated,
            "model_calls": self.model_calls,
            "path": {
                "identity": self.identity,
                "env": self.env,
                "used": self.path_used,
                "why": self.path_why,
                "carried_from": self.carried_from,
            },
            "steps": [
                {
                    "index": r.index,
                    "op": r.op.value,
                    "text": r.text,
                    "source": r.source.value,
                    "waited_s": round(r.waited_s, 3),
                    "similarity": None if r.similarity is None else round(r.similarity, 4),
                    "settled": r.settled,
                    "reason": r.reason,
                }
                for r in self.steps
            ],
            "heals": [h.to_dict() for h in self.heals],
            "assertions": [{"text": a.text, "ok": a.ok, "observed": a.observed} for a in self.assertions],
            "stable": self.stable,
            "run_dir": self.run_dir,
        }


class RunStopped(Exception):
    """A check run was stopped from outside (Ctrl+C, SIGTERM); ``result`` is what it wrote."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.outcome.message)
        self.result = result


def new_run_id(now: datetime | None = None) -> str:
    """A run id that sorts by time: ``20261130T051500Z-3f9a1c``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(3)}"


class _Stop(Exception):
    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def _couldnt(cls: FailureClass, message: str) -> _Stop:
    return _Stop(Outcome(Verdict.COULDNT_RUN, cls, message))


def _failed(cls: FailureClass, message: str) -> _Stop:
    return _Stop(Outcome(Verdict.FAILED, cls, message))


_REPLAY_STOPS = {
    Stop.REFUSED: FailureClass.REFUSED,
    Stop.UNKNOWN_OUTCOME: FailureClass.UNKNOWN_OUTCOME,
    Stop.MODEL: FailureClass.MODEL,
    Stop.DEVICE: FailureClass.DEVICE,
}
_HEAL_STOPS = {
    HealEnd.MODEL: FailureClass.MODEL,
    HealEnd.UNKNOWN_OUTCOME: FailureClass.UNKNOWN_OUTCOME,
    HealEnd.DEVICE: FailureClass.DEVICE,
}
#: Rule 6: how a carried path may stop and still fall back to a recording in the same run.
_CARRY_FALLS_BACK = frozenset(
    {FailureClass.DRIFT, FailureClass.HEAL_LIMIT, FailureClass.APP_NOT_RUNNING, FailureClass.REFUSED}
)


def _commits(action: Action) -> bool:
    e = action.element
    return e is not None and classify(e.label, e.role) is not None


_AGENT_STOPS = {
    AgentStop.BUDGET: FailureClass.BUDGET,
    AgentStop.MODEL: FailureClass.MODEL,
    AgentStop.UNKNOWN_OUTCOME: FailureClass.UNKNOWN_OUTCOME,
    AgentStop.DEVICE: FailureClass.DEVICE,
}


class _CheckRun:
    """The state of one check run; :func:`run_check` drives it."""

    def __init__(
        self, check: Check, device: Device, clock: Clock, *, root: Path, model: Model | None, options: RunOptions
    ) -> None:
        self.check = check
        self.device = device
        self.clock = clock
        self.root = root
        self.model = model
        self.options = options
        self.began = clock.now()
        self.info: DeviceInfo | None = None
        self.app: AppInfo | None = None
        self.identity: str | None = None
        self.env: Env | None = None
        self.mode = Mode.LAUNCH if check.launch_only else Mode.REPLAY
        self.path_used = False
        self.path_why: str | None = None
        self.carried_from: str | None = None
        self.reports: list[StepReport] = []
        self.heals: list[HealEntry] = []
        self.assertions: tuple[AssertionResult, ...] = ()
        self.stable: bool | None = None
        self.cost = Cost()
        self.calls = 0
        self.agent: Agent | None = None
        self.refusals: tuple[str, ...] = ()  # what Smart was refused, for the class of a failed run
        self.breaker = Breaker(recorded=0)  # replaced when a replay starts
        self.provenance = Provenance.of(
            steps=check.steps,
            launch_url=check.launch.url,
            launch_args=check.launch.args,
            launch_env=check.launch.env,
        )

    # -- the parts ---------------------------------------------------------------------------

    async def prepare(self) -> None:
        bundle = self.check.app.bundle
        if bundle is None:
            raise _couldnt(FailureClass.USAGE, f"{self.check.file}: app.bundle is needed to run this check")
        try:
            self.info = await self.device.info()
            self.app = await self.device.app_info(bundle)
        except DeviceError as exc:
            raise _couldnt(FailureClass.DEVICE, str(exc)) from exc
        self.identity = path_identity(
            steps=self.check.steps,
            bundle=bundle,
            app_path=self.check.app.path,
            launch_args=self.check.launch.args,
            launch_env=self.check.launch.env,
            launch_url=self.check.launch.url,
            reset=self.check.effective_reset,
        )
        self.env = Env.of(self.info, self.app)

    def make_agent(self, dispatch: Dispatcher, first_index: int = 1, key_prefix: str = "smart") -> Agent:
        assert self.model is not None
        budget = self.check.budget
        max_usd = budget.max_usd if self.options.max_usd is None else min(budget.max_usd, self.options.max_usd)
        return Agent(
            self.model,
            dispatch,
            self.clock,
            kind=self._kind(),
            provenance=self.provenance,
            request=self.check.request_text(),
            steps=self.check.steps,
            prices=self.options.prices,
            budget=AgentBudget(max_usd=max_usd, max_seconds=budget.max_seconds),
            policy=self.options.policy,
            screenshots=self.options.screenshots,
            first_index=first_index,
            key_prefix=key_prefix,
        )

    def account(self, agent: Agent) -> None:
        self.calls += agent.calls
        self.cost = self.cost + agent.cost

    async def smart(self, dispatch: Dispatcher, key_prefix: str = "smart") -> tuple[Step, ...]:
        self.mode = Mode.SMART
        agent = self.make_agent(dispatch, key_prefix=key_prefix)
        result = await agent.run()
        self.account(agent)
        self.reports.extend(result.reports)
        if result.stop in _AGENT_STOPS:
            raise _couldnt(_AGENT_STOPS[result.stop], result.message)
        self.refusals = result.refusals
        return result.path

    async def replay(
        self, dispatch: Dispatcher, path: Sequence[Step], state: HealState, pending: int
    ) -> tuple[Step, ...]:
        """Replay ``path``, healing drifted steps (Rule 2); return the path as it ran."""
        assert self.info is not None
        steps = list(path)
        replayer = Replayer(
            dispatch.device,
            self.clock,
            kind=self.info.kind,
            provenance=self.provenance,
            policy=self.options.policy,
            dispatcher=dispatch,
            live=self._live_handler(dispatch) if self.model is not None else None,
        )
        self.breaker = Breaker(recorded=len(path), pending=pending)
        start = 0
        seen = 0
        while True:
            result = await replayer.run(steps, start=start)
            self.reports.extend(result.steps[seen:])
            seen = len(result.steps)
            if result.stop is Stop.COMPLETED:
                return tuple(steps)
            if result.stop is not Stop.DRIFTED:
                raise _couldnt(_REPLAY_STOPS[result.stop], result.message)
            steps, start, done = await self._heal(dispatch, steps, result, state)
            if done:
                return tuple(steps)

    async def _heal(
        self, dispatch: Dispatcher, steps: list[Step], result: ReplayResult, state: HealState
    ) -> tuple[list[Step], int, bool]:
        assert result.at is not None
        assert result.match is not None
        assert result.screen is not None
        index = result.at - 1
        why = result.match.reason or "the screen changed"
        if result.match.rule == "app" and result.screen.app == SPRINGBOARD:
            # The app under test is gone (it crashed, or the flow left it): a heal would hide it.
            raise _failed(FailureClass.APP_NOT_RUNNING, f"{result.message}: the app crashed or the flow left it")
        if result.at in state.keep_failing:
            raise _failed(FailureClass.DRIFT, f"{result.message} (you chose to keep this step failing)")
        if self.options.no_heal or self.model is None:
            hint = "--no-heal" if self.options.no_heal else "no model to heal it"
            raise _failed(FailureClass.DRIFT, f"{result.message} ({hint})")
        if not self.breaker.allows_one_more():
            raise _failed(FailureClass.HEAL_LIMIT, self.breaker.message(result.at))
        if self.agent is None:
            self.agent = self.make_agent(dispatch, first_index=result.at)
            self.agent.history.extend(r.text + ": done" for r in self.reports if r.reason is None)
        agent = self.agent
        agent.renumber(result.at)  # the heal's actions are named for the step they heal
        calls_before, cost_before = agent.calls, agent.cost
        healed = await heal_step(
            agent,
            steps,
            index=index,
            why=why,
            screen=result.screen,
            breaker=self.breaker,
            expectations=self._expectations(),
        )
        self.calls += agent.calls - calls_before
        self.cost = self.cost + Cost(agent.cost.usd - cost_before.usd, agent.cost.estimated)
        self.breaker = healed.breaker
        if self.reports and self.reports[-1].reason is not None:
            self.reports.pop()  # the drifted step's report: the heal's steps stand in its place
        for n, step in enumerate(healed.new):
            self.reports.append(
                StepReport(index + n + 1, step.op, step.describe(), StepSource.HEALED, 0.0, None, settled=True)
            )
        if healed.end in _HEAL_STOPS:
            raise _couldnt(_HEAL_STOPS[healed.end], healed.message)
        if healed.end is HealEnd.HEAL_LIMIT:
            raise _failed(FailureClass.HEAL_LIMIT, healed.message)
        if healed.end is HealEnd.BLOCKED:
            raise _failed(FailureClass.DRIFT, healed.message)
        if healed.new or healed.resume_at != index:
            # A step whose screen came right while the model thought took no heal: nothing to review.
            self.heals.append(HealEntry.of(result.at, why, healed.old, healed.new))
        if healed.end is HealEnd.DONE:
            return [*steps[:index], *healed.new], index + len(healed.new), True
        assert healed.resume_at is not None
        spliced = [*steps[:index], *healed.new, *steps[healed.resume_at :]]
        return spliced, index + len(healed.new), False

    def _live_handler(self, dispatch: Dispatcher) -> Any:
        async def live(index: int, step: Step, screen: Screen) -> None:
            agent = self.make_agent(dispatch, first_index=index)
            try:
                request = (
                    f"{self.check.request_text()}\n\nDo only step {index} now ({step.describe()}): its text is "
                    "written by you on every run."
                )
                decision = await agent.ask(screen, recorded=(step,), request=request)
                if not decision.actions:
                    raise ModelError(f"the model didn't do the live step: {decision.reason or decision.kind}")
                await agent.act_turn(screen, decision.actions[:1])
            finally:
                self.account(agent)
            if len(agent.path) != 1:
                raise ModelError("the model's action for the live step was not sent")

        return live

    def _expectations(self) -> Callable[[Screen], bool] | None:
        """Whether the check's expectations all hold on a screen, for a heal of the last step."""
        expect = self.check.expect
        if not expect:
            return None
        return lambda screen: all(r.ok for r in evaluate(expect, screen))

    def give_up_carry(self, stop: _Stop, dispatch: Dispatcher) -> None:
        """Rule 6: the carried path stopped; return to record afresh, or raise why it can't."""
        outcome = stop.outcome
        if outcome.failure_class not in _CARRY_FALLS_BACK:
            raise stop
        # The breaker's advice to record again is what happens next: leave it out.
        message = outcome.message.removesuffix(". Record the check again with --fresh")
        said = f"the path carried from {self.carried_from} stopped: {message}"
        committed = [what for what, action in dispatch.sent if _commits(action)]
        if committed:
            raise _Stop(
                Outcome(
                    outcome.verdict,
                    outcome.failure_class,
                    f"{said}. It isn't recorded afresh in this run: {committed[0]} was sent and commits "
                    "something a recording would do again. Look at the app, then run with --fresh",
                )
            )
        if self.model is None:
            raise _couldnt(
                FailureClass.MODEL,
                f"{said}; there is no model to record a new path: set ANTHROPIC_API_KEY or OPENAI_API_KEY "
                "(or --env-file), or pass --model scripted",
            )
        dropped = len(self.heals)
        self.heals.clear()
        self.path_used = False
        self.agent = None
        note = f" ({dropped} heal{'s' if dropped != 1 else ''} dropped)" if dropped else ""
        self.path_why = f"{self.path_why}; {said}{note}; recorded afresh"
        log.info("carried path stopped; recording afresh", reason=outcome.message)

    async def verdict(self, baseline: tuple[AssertionResult, ...] | None) -> Outcome:
        try:
            expect = self.check.expect
            read = await settled_read(self.device, self.clock, accept=lambda s: all(r.ok for r in evaluate(expect, s)))
        except DeviceError as exc:
            raise _couldnt(FailureClass.DEVICE, f"couldn't read the screen for the verdict: {exc}") from exc
        self.stable = read.stable
        self.assertions = evaluate(self.check.expect, read.screen)
        bundle = self.check.app.bundle or ""
        return decide(
            assertions=self.check.expect,
            results=self.assertions,
            baseline_results=baseline,
            app_in_front=read.screen.app,
            app_bundle=bundle,
        )

    async def baseline(self) -> tuple[AssertionResult, ...] | None:
        if self.check.launch_only or not self.check.expect:
            return None
        read = await settled_read(self.device, self.clock, BASELINE_POLICY)
        return evaluate(self.check.expect, read.screen) if read.stable else None

    def _kind(self) -> DeviceKind:
        assert self.info is not None  # prepare() reads the device info before anything runs
        return self.info.kind


async def run_check(
    check: Check,
    device: Device,
    clock: Clock,
    *,
    root: Path,
    model: Model | None = None,
    options: RunOptions | None = None,
    run_id: str | None = None,
) -> CheckResult:
    """Run one check on one device (see the module rules) and write its run folder."""
    options = options or RunOptions()
    run = _CheckRun(check, device, clock, root=root, model=model, options=options)
    run_id = run_id or new_run_id()
    run_dir = root / MOBSTER_DIR / "runs" / run_id
    private_dir(run_dir)
    ensure_gitignore(root)
    journal = Journal(run_dir)
    stopped: asyncio.CancelledError | None = None
    try:
        outcome = await _run(run, journal)
    except _Stop as stop:
        outcome = stop.outcome
    except MobsterError as exc:
        outcome = Outcome(Verdict.COULDNT_RUN, FailureClass.DEVICE, str(exc))
    except asyncio.CancelledError as exc:
        # Rule 5: stopped from outside. The report is still written; the cache is not touched.
        stopped = exc
        outcome = Outcome(
            Verdict.COULDNT_RUN,
            FailureClass.STOPPED,
            "the run was stopped; an action in flight may or may not have happened (the journal says "
            "which). Look at the app before running again.",
        )
    finally:
        journal.close()
    if stopped is None and options.screenshots and isinstance(device, Screenshots):
        try:
            atomic_write(run_dir / "frame-final.png", await device.screenshot())
        except (DeviceError, OSError) as exc:
            log.debug("no final frame", error=str(exc))
    result = CheckResult(
        name=check.name,
        file=_relative(check.file, root),
        device=run.info,
        app=run.app,
        outcome=outcome,
        mode=run.mode,
        seconds=clock.now() - run.began,
        cost=run.cost,
        model_calls=run.calls,
        identity=run.identity,
        env=None if run.env is None else run.env.digest,
        path_used=run.path_used,
        path_why=run.path_why,
        steps=tuple(run.reports),
        heals=tuple(run.heals),
        assertions=run.assertions,
        run_dir=_relative(run_dir, root),
        stable=run.stable,
        carried_from=run.carried_from,
    )
    atomic_write(run_dir / "result.json", utf8(json.dumps(result.to_dict(), indent=2, ensure_ascii=False)))
    if stopped is not None:
        raise RunStopped(result) from stopped
    return result


async def _run(run: _CheckRun, journal: Journal) -> Outcome:
    await run.prepare()
    assert run.identity is not None
    assert run.env is not None
    check = run.check
    cache = ReplayCache(run.root)
    path: tuple[Step, ...] | None = None
    carried: StoredPath | None = None
    state = HealState()
    pending: list[HealEntry] = []
    if not check.launch_only:
        lookup = cache.lookup(run.identity, run.env)
        for dropped in lookup.dropped:
            log.warning("a cached path was dropped", message=dropped)
        if run.options.fresh:
            run.path_why = "--fresh: recording again"
        elif lookup.steps is not None:
            path, run.path_used = lookup.steps, True
        else:
            run.path_why = lookup.why
            if run.options.carry and lookup.carry is not None:
                carried = lookup.carry
                path, run.path_used = carried.steps, True
                run.carried_from = carried.stored.env.describe(run.env)
        try:
            state = load_heal_state(run.root, run.identity, run.env if carried is None else carried.stored.env)
            pending = read_heal_file(heal_file_for(check.file))
        except HealFileError as exc:
            raise _couldnt(FailureClass.USAGE, str(exc)) from exc
        if path is None and run.model is None:
            why = run.path_why or "no recorded path yet"
            raise _couldnt(
                FailureClass.MODEL,
                f"{why}, and there is no model to record one: set ANTHROPIC_API_KEY or OPENAI_API_KEY "
                "(or --env-file), or pass --model scripted",
            )

    dispatch = Dispatcher(
        run.device, run.clock, journal=journal, policy=run.options.policy, on_sent=run.options.on_sent
    )
    bundle = check.app.bundle or ""
    try:
        await dispatch.launch(bundle, check.launch_options())
        baseline = await run.baseline()
        ran: tuple[Step, ...] = ()
        if not check.launch_only:
            if path is None:
                ran = await run.smart(dispatch)
            elif carried is None:
                ran = await run.replay(dispatch, path, state, sum(len(e.new) for e in pending))
            else:
                try:
                    ran = await run.replay(dispatch, path, state, sum(len(e.new) for e in pending))
                except _Stop as stop:
                    # Rule 6: the carried path can't go on; record afresh from a new launch.
                    run.give_up_carry(stop, dispatch)
                    carried = None
                    await dispatch.launch(bundle, check.launch_options(), key="relaunch")
                    baseline = await run.baseline()
                    ran = await run.smart(dispatch, key_prefix="fresh")
    except DispatchFailed as exc:
        cls = FailureClass.UNKNOWN_OUTCOME if exc.failure.value == "unknown_outcome" else FailureClass.DEVICE
        raise _couldnt(cls, exc.message) from exc
    except DeviceError as exc:
        raise _couldnt(FailureClass.DEVICE, str(exc)) from exc

    outcome = await run.verdict(baseline)
    if outcome.verdict is not Verdict.PASSED:
        if run.refusals:
            return Outcome(outcome.verdict, FailureClass.REFUSED, f"{run.refusals[0]}; {outcome.message}")
        return outcome
    with project_lock(run.root):  # another mobster process may write the same files
        if run.mode == Mode.SMART:
            cache.store(run.identity, run.env, ran)
            save_heal_state(run.root, run.identity, run.env, HealState(None, frozenset()))
        elif carried is not None:
            # Rule 6: the carried path, as it ran, is this env's now; its heals wait for review
            # as usual, and the source's pending review and keep-failing steps come with it.
            source = load_heal_state(run.root, run.identity, carried.stored.env)
            original = source.original
            if original is None and run.heals:
                original = carried.steps
            save_heal_state(run.root, run.identity, run.env, HealState(original, source.keep_failing))
            cache.store(run.identity, run.env, ran)
            if run.heals:
                pending = read_heal_file(heal_file_for(check.file))
                write_heal_file(check.file, merge_entries(pending, run.heals))
        elif run.heals:
            state = load_heal_state(run.root, run.identity, run.env)
            if state.original is None:
                assert path is not None  # heals happen only in a replay
                state = HealState(path, state.keep_failing)
            save_heal_state(run.root, run.identity, run.env, state)
            cache.store(run.identity, run.env, ran)
            pending = read_heal_file(heal_file_for(check.file))  # again: it may have changed meanwhile
            write_heal_file(check.file, merge_entries(pending, run.heals))
    return outcome


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
