"""The replayer: runs a recorded path on a device, step by step (read, match, act).

This is the one small loop of the replay that talks to the device and the clock; every decision
comes from pure rules: the matcher (§4), the poll policy (§5), the typing rules (§7) and safety
(§8). The journal and the effect ledger (§9) see every action before it is sent.

Rule 1: a step acts on the element found on the current screen (its current frame), never on
        the recorded coordinates.
Rule 2: an action is journaled before it is sent; a step is dispatched at most once per run.
Rule 3: an action that raises, a typed field that doesn't show its text, or a read after an action
        that fails twice, ends the replay with an unknown outcome: nothing more is sent.
Rule 4: a refused action is never sent; the replay ends there.
Rule 5: a live step (text the model writes each run, masked text) is done by the live-step
        handler, the model; with none, the replay ends asking for a model.
Rule 6: a read that fails is tried once more (reads are safe to repeat; actions are not).
Rule 7: a step whose target matched is acted on only when the device confirms the target is shown
        (``TargetChecks``); a target the device says is hidden counts as no match on that read, so
        the replay keeps waiting and the step drifts if it stays hidden. It is never tapped.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Sequence
from typing import NoReturn

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.device import Action, DeviceKind, LaunchOptions
from mobster_core._rules.matcher import Match
from mobster_core._rules.safety import check_commit, classify, strictest
from mobster_core._rules.screen import Element, Screen
from mobster_core._rules.settle import DEFAULT_POLICY, Drifted, PollPolicy, StepWait
from mobster_core._rules.steps import Op, Step
from mobster_core._rules.typing_rules import SEARCH_ROLES, Provenance
from mobster_core._store.journal import EffectLedger, Journal
from mobster_core.exceptions import DeviceError, ModelError
from mobster_core.protocols import Clock, Device

from .dispatch import Dispatcher, DispatchFailed, Failure, unknown_message
from .wait import drive

__all__ = ["LiveStep", "ReplayResult", "Replayer", "StepReport", "StepSource", "Stop"]

log = get_logger(__name__)


class StepSource(enum.StrEnum):
    """Who did a step: the replay, the model for a live step, a heal, or Smart recording."""

    REPLAY = "replay"
    LIVE = "live"
    HEALED = "healed"
    SMART = "smart"


class Stop(enum.StrEnum):
    """How a replay ended."""

    COMPLETED = "completed"
    DRIFTED = "drifted"
    REFUSED = "refused"
    UNKNOWN_OUTCOME = "unknown_outcome"
    MODEL = "model"
    DEVICE = "device"


@attrs.frozen
class StepReport:
    """What happened to one step (SPEC §12 ``steps``). ``index`` counts from 1."""

    index: int
    op: Op
    text: str
    source: StepSource
    waited_s: float
    similarity: float | None
    settled: bool
    reason: str | None = None


@attrs.frozen
class ReplayResult:
    """The end of a replay: how it stopped, at which step (from 1), and why, in words."""

    stop: Stop
    steps: tuple[StepReport, ...]
    at: int | None = None
    message: str = ""
    match: Match | None = None
    screen: Screen | None = None


#: Does one live step with the model (the agent provides it): called with the step's index (from
#: 1), the step and the screen it matched on. Raises ``UnknownOutcome`` when an action it sent has
#: an unknown outcome and ``ModelError`` when the model can't do the step.
LiveStep = Callable[[int, Step, Screen], Awaitable[None]]


class _Ended(Exception):
    def __init__(self, result: ReplayResult) -> None:
        super().__init__(result.message)
        self.result = result


_FAILURE_STOP = {Failure.UNKNOWN_OUTCOME: Stop.UNKNOWN_OUTCOME, Failure.DEVICE: Stop.DEVICE}


class Replayer:
    """Replays steps on one device. One instance per run: it owns the run's effect ledger."""

    def __init__(
        self,
        device: Device,
        clock: Clock,
        *,
        kind: DeviceKind,
        provenance: Provenance,
        policy: PollPolicy = DEFAULT_POLICY,
        journal: Journal | None = None,
        ledger: EffectLedger | None = None,
        live: LiveStep | None = None,
        dispatcher: Dispatcher | None = None,
    ) -> None:
        self.clock = clock
        self.kind = kind
        self.provenance = provenance
        self.policy = policy
        self.live = live
        self.dispatch = dispatcher or Dispatcher(device, clock, journal=journal, ledger=ledger, policy=policy)
        self._reports: list[StepReport] = []

    # -- public --------------------------------------------------------------------------

    async def launch(self, bundle: str, options: LaunchOptions) -> ReplayResult | None:
        """Launch the app under test as the check says; None when it launched."""
        try:
            await self.dispatch.launch(bundle, options)
        except DispatchFailed as exc:
            return self._result(_FAILURE_STOP[exc.failure], None, exc.message)
        return None

    async def run(self, steps: Sequence[Step], *, start: int = 0) -> ReplayResult:
        """Replay ``steps[start:]``; stop at the first step that can't run."""
        for i in range(start, len(steps)):
            try:
                await self._step(i + 1, steps[i])
            except _Ended as ended:
                return ended.result
            except DispatchFailed as exc:
                return self._result(_FAILURE_STOP[exc.failure], i + 1, exc.message)
        return ReplayResult(Stop.COMPLETED, tuple(self._reports))

    @property
    def reports(self) -> tuple[StepReport, ...]:
        """The reports of the steps done so far."""
        return tuple(self._reports)

    # -- one step ------------------------------------------------------------------------

    async def _step(self, index: int, step: Step) -> None:
        screen, match, waited, settled = await self._wait_for(index, step)
        what = f"step {index} ({step.describe()})"

        target = step.target
        # The recorded commit and today's label may disagree (an older classifier, an edited path):
        # the stricter one counts.
        commit = strictest(step.commit, classify(target.label, target.role) if target is not None else None)
        safety = check_commit(commit, self.kind)
        if not safety.allowed:
            self.dispatch.refused(f"step-{index}", f"{step.describe()}: {safety.rule}")
            self._fail(Stop.REFUSED, index, f"{what} was refused: {safety.rule}")

        source = StepSource.REPLAY
        if step.op is Op.TYPE and self._needs_model(step):
            await self._live(index, step, screen)
            source = StepSource.LIVE
        else:
            action = _action_for(step, match.element)
            info = {"step": index, "source": StepSource.REPLAY.value}
            await self.dispatch.send(f"step-{index}", what, action, info)
        self._reports.append(StepReport(index, step.op, step.describe(), source, waited, match.similarity, settled))

    async def _wait_for(self, index: int, step: Step) -> tuple[Screen, Match, float, bool]:
        """Poll until the matcher says ``ok`` or the step drifts (the step's wait of ``_rules/settle``)."""
        what = f"step {index}"
        end = await drive(
            StepWait(step, self.policy),
            self.clock,
            lambda: self.dispatch.read(what),
            lambda element: self.dispatch.target_shown(element, what),
        )
        if isinstance(end, Drifted):
            report = StepReport(
                index, step.op, step.describe(), StepSource.REPLAY, end.waited, end.match.similarity, end.settled,
                end.reason,
            )  # fmt: skip
            self._reports.append(report)
            message = f"step {index} ({step.describe()}) drifted: {end.reason}"
            raise _Ended(ReplayResult(Stop.DRIFTED, tuple(self._reports), index, message, end.match, end.screen))
        return end.screen, end.match, end.waited, end.settled

    def _needs_model(self, step: Step) -> bool:
        if step.live or step.text is None or step.target is None:
            return True
        return step.target.role not in SEARCH_ROLES and not self.provenance.allows(step.text)

    async def _live(self, index: int, step: Step, screen: Screen) -> None:
        what = f"step {index} ({step.describe()})"
        if self.live is None:
            self._fail(
                Stop.MODEL,
                index,
                f"{what} is typed by the model on every run, and there is no model: set "
                "ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --model",
            )
        try:
            await self.live(index, step, screen)
        except ModelError as exc:
            self._fail(Stop.MODEL, index, f"{what}: {exc}", exc)
        except DeviceError as exc:
            self._fail(Stop.UNKNOWN_OUTCOME, index, unknown_message(what, exc), exc)
        self.dispatch.sent_any = True

    def _result(self, stop: Stop, index: int | None, message: str) -> ReplayResult:
        return ReplayResult(stop, tuple(self._reports), at=index, message=message)

    def _fail(self, stop: Stop, index: int | None, message: str, cause: BaseException | None = None) -> NoReturn:
        raise _Ended(self._result(stop, index, message)) from cause


def _action_for(step: Step, element: Element | None) -> Action:
    if step.op.is_global:
        return Action(step.op, text=step.text)
    return Action(step.op, element=element, text=step.text if step.op is Op.TYPE else None)
