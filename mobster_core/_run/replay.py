"""The replayer: runs a recorded path on a device, step by step (read, match, act).

This is the one small loop of the replay that talks to the device and the clock; every decision
comes from pure rules: the matcher, the step's wait, the typing rules and safety. The
journal and the effect ledger see every action before it is sent.

Rule 1: a step acts on the element found on the current screen (its current frame), never on
        the recorded coordinates.
Rule 2: an action is journaled before it is sent; a step is dispatched at most once per run.
Rule 3: an action that raises, a typed field that doesn't show its text, or a read after an action
        that fails twice, ends the replay with an unknown outcome: nothing more is sent.
Rule 4: a refused action is never sent; the replay ends there (``couldnt_run``, class
        ``refused``).
Rule 5: a live step (text the model writes each run, masked text) is done by the live-step
        handler, the model; with none, the replay ends asking for a model (class ``model``).
Rule 6: a read that fails is tried once more (reads are safe to repeat; actions are not).
Rule 7: a step whose target matched is acted on only when the device confirms the target is shown
        (``TargetChecks``); a target the device says is hidden counts as no match on that read, so
        the replay keeps waiting and the step drifts if it stays hidden. It is never tapped.
Rule 9: a device step (``BIOMETRIC_MATCH``, ``BIOMETRIC_FAIL``, ``PUSH``: the check's, ``_rules/device/controls``
        Rule 5) waits for its recorded screen like any step with no target (the app, the screen
        rules), then is sent by the dispatcher with no model. A push sends the check's payload file
        as it is today (:class:`FromCheck`): a file changed since the recording is sent as it is
        now, and the log says so; a push the check no longer names can't run (class ``usage``).
Rule 8: :meth:`Replayer.run` returns what that call did: the reports of the steps it ran, and how
        it ended: all steps done, a step that drifted (:class:`Drift`, not a failure: the caller
        may heal it), or a failure (the outcome the check reports).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType

import attrs

from mobster_core._log import get_logger
from mobster_core._results.results import StepReport, StepSource, recorded_element
from mobster_core._rules.device.controls import DeviceEvent
from mobster_core._rules.device.device import Action, DeviceKind
from mobster_core._rules.replay.matcher import Match
from mobster_core._rules.replay.settle import DEFAULT_POLICY, Drifted, Found, PollPolicy, Sighting, StepWait
from mobster_core._rules.replay.typing_rules import SEARCH_ROLES, Provenance
from mobster_core._rules.safety.safety import check_commit, classify, classify_press, strictest
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._rules.verdict.verdict import FailureClass, Outcome
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Op, Step, push_text

from .dispatch import Dispatcher
from .ended import Ended, couldnt
from .wait import drive

__all__ = ["Drift", "FromCheck", "LiveStep", "Replayed", "Replayer"]

log = get_logger(__name__)

#: Does one live step with the model: called with the step's index (from 1), the step and the
#: screen it matched on; returns the frame its action was sent on (or None). Raises ``Ended`` when
#: the model can't do it or its action failed.
LiveStep = Callable[[int, Step, Screen], Awaitable[str | None]]


def _events_view(value: Mapping[str, DeviceEvent]) -> Mapping[str, DeviceEvent]:
    return MappingProxyType(dict(value))


@attrs.frozen
class FromCheck:
    """What a replay takes from the check beyond the path (Rules 5, 9).

    ``live`` types a live step (the model); ``events`` are the check's pushes by file, as they are
    sent today (to the app under test).
    """

    live: LiveStep | None = None
    events: Mapping[str, DeviceEvent] = attrs.field(factory=dict, converter=_events_view, hash=False)


@attrs.frozen
class Drift:
    """A step that didn't match: which (``at``, from 1), the last read and match, and its report."""

    at: int
    step: Step
    screen: Screen
    match: Match
    report: StepReport

    @property
    def why(self) -> str:
        """The matcher's reason."""
        return self.match.reason or "the screen changed"

    @property
    def message(self) -> str:
        """``step 3 (Tap "Continue") drifted: "Continue" isn't on the screen``."""
        return f"step {self.at} ({self.step.describe()}) drifted: {self.report.reason}"


@attrs.frozen
class Replayed:
    """What one :meth:`Replayer.run` did: its steps' reports, and a drift or a failure (Rule 8)."""

    reports: tuple[StepReport, ...]
    drift: Drift | None = None
    failure: Outcome | None = None

    @property
    def completed(self) -> bool:
        """Every step ran."""
        return self.drift is None and self.failure is None

    @property
    def steps(self) -> tuple[StepReport, ...]:
        """The reports of the steps this call ran, the drifted step's included."""
        return self.reports if self.drift is None else (*self.reports, self.drift.report)

    @property
    def message(self) -> str:
        """How it ended, in words ("" when every step ran)."""
        if self.drift is not None:
            return self.drift.message
        return "" if self.failure is None else self.failure.message


class Replayer:
    """Replays steps through one run's dispatcher (see the module rules)."""

    def __init__(
        self,
        dispatch: Dispatcher,
        kind: DeviceKind,
        provenance: Provenance,
        *,
        timing: PollPolicy = DEFAULT_POLICY,
        check: FromCheck | None = None,
    ) -> None:
        self.dispatch = dispatch
        self.kind = kind
        self.provenance = provenance
        self.timing = timing
        self.check = check or FromCheck()

    async def run(
        self, steps: Sequence[Step], *, start: int = 0, seed: Sighting | None = None, stop: int | None = None
    ) -> Replayed:
        """Replay ``steps[start:stop]``; stop at the first step that can't run (Rule 8).

        ``seed`` is a read taken just before (the baseline's last, or the read a heal ended on):
        the first step's wait starts on it instead of reading again. ``stop`` (0-based, exclusive)
        stops before the end of the path (where a flow ends and its expectations are judged).
        """
        reports: list[StepReport] = []
        try:
            for i in range(start, len(steps) if stop is None else min(stop, len(steps))):
                step = steps[i]
                end = await self._wait_for(i + 1, step, seed if i == start else None)
                if isinstance(end, Drifted):
                    return Replayed(tuple(reports), drift=await self._drift(i + 1, step, end))
                reports.append(await self._act(i + 1, step, end))
        except Ended as ended:
            return Replayed(tuple(reports), failure=ended.outcome)
        return Replayed(tuple(reports))

    # -- one step ------------------------------------------------------------------------

    async def _wait_for(self, index: int, step: Step, seed: Sighting | None) -> Found | Drifted:
        """Poll until the matcher says ``ok`` or the step drifts (the step's wait of ``_rules/replay/settle``)."""
        what = f"step {index}"
        dispatch = self.dispatch
        return await drive(
            StepWait(step, self.timing, seed),
            dispatch.clock,
            lambda: dispatch.read(what, step=index),
            lambda element: dispatch.target_shown(element, what, step=index),
        )

    async def _act(self, index: int, step: Step, found: Found) -> StepReport:
        """Rules 1-5: act on the matched element, unless safety refuses or the model types it."""
        what = f"step {index} ({step.describe()})"
        target = step.target
        # The recorded commit and today's label may disagree (an older classifier, an edited path):
        # the stricter one counts.
        now = found.match.element
        pressed = classify_press(found.screen, now, step.op) if now is not None else None  # safety Rule 10
        commit = strictest(step.commit, classify(target.label, target.role) if target is not None else None, pressed)
        safety = check_commit(commit, self.kind)
        if not safety.allowed:
            self.dispatch.refused(f"step-{index}", f"{step.describe()}: {safety.rule}")
            raise couldnt(FailureClass.REFUSED, f"{what} was refused: {safety.rule}", step=index)
        source = StepSource.REPLAY
        live = self.check.live
        if step.op.is_device:
            info = {"step": index, "source": source.value}
            frame = await self.dispatch.send_event(f"step-{index}", what, self._event(index, step), info, step=index)
        elif step.op is Op.TYPE and self._needs_model(step):
            if live is None:
                raise couldnt(
                    FailureClass.MODEL,
                    f"{what} is typed by the model on every run, and there is no model to type it",
                    step=index,
                    fix=Fix(FixCode.GIVE_MODEL),
                )
            frame = await live(index, step, found.screen)
            source = StepSource.LIVE
        else:
            action = _action_for(step, found.match.element)
            info = {"step": index, "source": source.value}
            frame = await self.dispatch.send(f"step-{index}", what, action, info, step=index)
        match = found.match
        return StepReport(
            index, step.op, step.describe(), source, found.waited, match.similarity, found.settled, None, match.element,
            frame,
        )  # fmt: skip

    async def _drift(self, index: int, step: Step, end: Drifted) -> Drift:
        target = None if step.target is None else recorded_element(step.target)
        frame = await self.dispatch.drifted(end.screen)
        report = StepReport(
            index, step.op, step.describe(), StepSource.REPLAY, end.waited, end.match.similarity, end.settled,
            end.reason, target, frame,
        )  # fmt: skip
        return Drift(index, step, end.screen, end.match, report)

    def _event(self, index: int, step: Step) -> DeviceEvent:
        """Rule 9: the device step as it is sent today."""
        if step.op is not Op.PUSH:
            return DeviceEvent(step.op, sensor=step.text or "faceId")
        recorded = push_text(step.text or "")
        assert recorded is not None  # the path's loader checked it (``steps`` Rule 4)
        file, digest = recorded
        event = self.check.events.get(file)
        if event is None:
            raise couldnt(
                FailureClass.USAGE,
                f"step {index} ({step.describe()}): the check no longer pushes {file}; record the check again",
                step=index,
                fix=Fix(FixCode.RECORD_AGAIN),
            )
        if event.digest != digest:
            log.warning("the push payload changed since the recording; sending it as it is now", file=file, step=index)
        return event

    def _needs_model(self, step: Step) -> bool:
        if step.live or step.text is None or step.target is None:
            return True
        return step.target.role not in SEARCH_ROLES and not self.provenance.allows(step.text)


def _action_for(step: Step, element: Element | None) -> Action:
    if step.op.is_global:
        return Action(step.op, text=step.text)
    return Action(step.op, element=element, text=step.text if step.op is Op.TYPE else None)
