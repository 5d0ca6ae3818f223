"""The heal: a drifted step is healed by the model for that step only.

Rule 1: the model gets the check's own request, is told which recorded step changed and why (the
        matcher's reason), and sees the replayed steps as its history.
Rule 2: after each of its actions the screen is compared with the drifted step and the next four
        (the matcher, with the settle state), on every read from the first one that shows the
        action's effect. At the first match the model is cancelled, a call in flight included,
        and replay takes over from the matched step, on the read that matched. When nothing
        matches, the model is asked again once the screen has settled.
Rule 3: the next model turn and the screen comparison run concurrently: a match that appears
        while the model is thinking wins as soon as a read sees it. Those reads come every 0.15 s
        while the screen changes and less often while it stays the same, down to one a second
        (settle Rule 9: a read in flight when the model answers delays the healed action on a
        phone that serves one request at a time). Before the model's first action only the
        drifted step itself is watched (a later step's screen must not skip the drifted one).
Rule 4: the breaker is checked before every model action, and before the heal (:func:`refusal`).
Rule 5: the model saying done drops the remaining steps (the verdict decides); blocked fails the
        check, class ``blocked``, saying why; an unknown outcome ends the run.
Rule 6: when the drifted step is the last one (no recorded step is left to match after it), the
        comparison after the model has acted is also the check's own expectations on a settled
        read (two reads in a row agree): once they all hold, the model is cancelled (a call in
        flight included) and the heal ends with no "done" call. The tree decides, never the model.
        The drifted step itself is still watched (a popup dismissed before it lets it replay).
Rule 7: a drifted step is healed only when nothing rules it out (:func:`refusal`), in this order:
        the app under test is gone (the home screen in front: ``failed``, ``app_not_running``, a
        heal would hide a crash); the user chose to keep the step failing (``drift``); no heal
        (``RunOptions.no_heal``) or no model (``drift``, with the fix that gives it one); the
        breaker (``heal_limit``, fixed by recording the check again). Each outcome names the
        drifted step.
Rule 9: a heal never passes a check's device step (a biometric answer, a push: the runner's,
        never the model's): the steps watched end at the first device step after the drifted one,
        so the replay resumes there at the latest, and sends it. The model saying done while a
        device step is left fails the check (class ``drift``, naming the step): Rule 5's "done"
        may drop the model's steps, never the check's own.
Rule 8: a heal returns its own steps: the healed path, where the replay resumes, the reports and
        the heal file's entry of the steps the model took, or the failure that ended it.
Rule 10: a heal keeps what the check says to type (``typing_rules`` Rule 5): when the model's
        steps don't type what the recorded steps they stand in for typed (nothing, other text,
        another field of the recorded screen, a field that shows a hidden text), the heal fails
        the step, class ``drift``, saying what it lost (``the healed step no longer types
        ${LOGIN_PASSWORD}``: the reference, never a value), and leaves nothing to review. It is
        judged once, where the heal ends (a match further on, the expectations, the model's done).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import attrs

from mobster_core._results.results import StepReport, StepSource, recorded_element
from mobster_core._rules.device.device import HOME_SCREENS
from mobster_core._rules.model.model import Decision, DecisionKind
from mobster_core._rules.replay.breaker import Breaker
from mobster_core._rules.replay.matcher import MatchRule, match_step
from mobster_core._rules.replay.settle import WATCH_SLOWEST, ChangeWait, Sighting, WatchWait
from mobster_core._rules.replay.typing_rules import lost_typing
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, Verdict
from mobster_core._rules.vocabulary.screen import Screen
from mobster_core._rules.vocabulary.steps import Step
from mobster_core._store.healfile import HealEntry

from .agent import Agent
from .ended import Ended
from .replay import Drift
from .wait import drive

__all__ = ["LOOKAHEAD", "HealJob", "Healed", "heal_limit", "heal_request", "heal_step", "refusal"]

#: Rule 2: how many steps after the drifted one the screen is compared with.
LOOKAHEAD = 4


@attrs.frozen
class HealJob:
    """What a heal is asked to do: the path, the drift in it, the breaker, and the expectations.

    ``expect`` says whether the check's expectations all hold on a screen (Rule 6); None when the
    check has none (the model's "done" then ends a heal of the last step).
    """

    steps: tuple[Step, ...]
    drift: Drift
    breaker: Breaker
    expect: Callable[[Screen], bool] | None = attrs.field(default=None, eq=False)
    #: The run folder the heal entry names (``.mobster/runs/<run_id>``), None when there is none.
    run_dir: str | None = None


@attrs.frozen
class Healed:
    """What a heal did (Rule 8).

    ``steps`` is the path as it now runs; ``resume_at`` the step (0-based) the replay resumes at,
    None when the heal ended the steps (the expectations held, or the model said done);
    ``entry`` is None when the screen came right by itself (nothing to review).
    """

    steps: tuple[Step, ...]
    resume_at: int | None
    reports: tuple[StepReport, ...]
    entry: HealEntry | None
    breaker: Breaker
    failure: Outcome | None = None
    #: The read the heal ended on: the replay's wait for the step it resumes at starts there.
    seen: Sighting | None = None


def refusal(
    drift: Drift, *, keep_failing: frozenset[int], no_heal: bool, model: bool, breaker: Breaker
) -> Outcome | None:
    """Rule 7: why ``drift`` is not healed, as the outcome of the check; None when it may be."""
    at = drift.at
    if drift.match.rule is MatchRule.APP and drift.screen.app in HOME_SCREENS:
        # The app under test is gone (it crashed, or the flow left it): a heal would hide it.
        message = f"{drift.message}: the app crashed or the flow left it"
        return Outcome(Verdict.FAILED, FailureClass.APP_NOT_RUNNING, message, step=at)
    why, fix = None, None
    if at in keep_failing:
        why = "you chose to keep this step failing"
    elif no_heal:
        why, fix = "healing is off", Fix(FixCode.RUN_WITHOUT_NO_HEAL)
    elif not model:
        why, fix = "no model to heal it", Fix(FixCode.GIVE_MODEL)
    if why is not None:
        return Outcome(Verdict.FAILED, FailureClass.DRIFT, f"{drift.message} ({why})", step=at, fix=fix)
    if not breaker.allows_one_more():
        return heal_limit(breaker, at)
    return None


def heal_limit(breaker: Breaker, step: int) -> Outcome:
    """Rule 4: the breaker stops a heal at ``step``; recording the check again is the fix."""
    return Outcome(
        Verdict.FAILED, FailureClass.HEAL_LIMIT, breaker.message(step), step=step, fix=Fix(FixCode.RECORD_AGAIN)
    )


def heal_request(request: str, step: int, drifted: Step, why: str) -> str:
    """Rule 1: the check's request, plus which recorded step changed and why."""
    return (
        f"{request}\n\nThis check passed before. Its recorded step {step} ({drifted.describe()}) can't run "
        f"now: {why}. Do what that step was for, on the screen as it is now, so the check can go on. "
        "Take one action at a time."
    )


async def heal_step(agent: Agent, job: HealJob) -> Healed:
    """Heal the drifted step of ``job`` with the agent's model (see the module rules)."""
    heal = _Heal(agent, job)
    try:
        return await heal.run()
    except Ended as ended:
        return heal.healed(None, failure=ended.outcome)


class _Heal:
    """One heal's loop (Rules 2-6); :meth:`healed` turns where it ended into a :class:`Healed`."""

    def __init__(self, agent: Agent, job: HealJob) -> None:
        self.agent = agent
        self.job = job
        self.index = job.drift.at - 1
        self.breaker = job.breaker
        steps = job.steps
        self.expect = job.expect if self.index == len(steps) - 1 else None
        self.request = heal_request(agent.brief.request, job.drift.at, job.drift.step, job.drift.why)
        at = job.drift.at
        #: The heal's reads: one that fails ends the run at the healed step.
        self.read: Callable[[], Awaitable[Screen]] = lambda: agent.dispatch.read(step=at)

    async def run(self) -> Healed:
        agent, drift = self.agent, self.job.drift
        dispatch = agent.dispatch
        seen = Sighting(drift.screen, dispatch.clock.now(), dispatch.clock.now(), drift.report.settled)
        acted = False
        while True:
            answer = self._answer(acted)
            found, decision = await self._race(seen, answer)
            if found is not None:
                return self.healed(found[0], seen=found[1])
            assert decision is not None
            if decision.kind is DecisionKind.DONE:
                return self.healed(None, failure=self._device_step_left())
            if decision.kind is DecisionKind.BLOCKED:
                reason = decision.reason or "it gave no reason"
                message = f"{drift.message}; the model was blocked: {reason}"
                blocked = Outcome(Verdict.FAILED, FailureClass.BLOCKED, message, step=drift.at)
                return self.healed(None, failure=blocked)
            if not self.breaker.allows_one_more():
                raise Ended(heal_limit(self.breaker, drift.at))
            sent_on = await agent.act_one(seen.screen, decision.actions[0])
            if sent_on is None:  # not sent: the model is told why and asked again
                seen = Sighting.first(dispatch.clock.now(), dispatch.latest or seen.screen)
                continue
            self.breaker = self.breaker.record(1)
            acted = True
            wait = ChangeWait(sent_on.fingerprint, agent.brief.timing, self._answer(acted))
            changed = await drive(wait, dispatch.clock, self.read)
            if changed.answer is not None:
                return self.healed(changed.answer, seen=changed.sighting)
            seen = changed.sighting

    def _device_step_left(self) -> Outcome | None:
        """Rule 9: the first device step the model's "done" would drop, as the failure it is; else None."""
        steps, drift = self.job.steps, self.job.drift
        left = next((j for j in range(self.index, len(steps)) if steps[j].op.is_device), None)
        if left is None:
            return None
        message = (
            f"{drift.message}; the model said the check was done, but step {left + 1} "
            f"({steps[left].describe()}) is the check's own and was not sent"
        )
        return Outcome(Verdict.FAILED, FailureClass.DRIFT, message, step=drift.at)

    def _lost_typing(self, old: tuple[Step, ...], new: tuple[Step, ...]) -> Outcome | None:
        """Rule 10: the failure of a heal whose steps ``new`` don't type what ``old`` typed; else None."""
        lost = lost_typing(old, new)
        if lost is None:
            return None
        drift = self.job.drift
        healed_as = ", then ".join(s.describe() for s in new) or "nothing"
        message = f"{drift.message}; the healed step {lost} (healed as {healed_as})"
        return Outcome(Verdict.FAILED, FailureClass.DRIFT, message, step=drift.at, fix=Fix(FixCode.RECORD_AGAIN))

    def _answer(self, acted: bool) -> Callable[[Sighting], int | None]:
        """Rules 2, 3 and 6: which watched step a read matches (0-based), with its settle state.

        Before the model's first action only the drifted step is watched; after it, the next four
        too, and (for a heal of the last step) the expectations on a settled read, whose answer is
        the number of steps. None when nothing matches.
        """
        steps, index = self.job.steps, self.index
        end = min(len(steps), index + LOOKAHEAD + 1)
        # Rule 9: up to the first device step after the drifted one, that one included.
        end = next((j + 1 for j in range(index + 1, end) if steps[j].op.is_device), end)
        watch = range(index, end) if acted else range(index, index + 1)
        expect = self.expect if acted else None

        def answer(seen: Sighting) -> int | None:
            for j in watch:
                if match_step(steps[j], seen.screen, settled=seen.settled).ok:
                    return j
            if expect is not None and seen.settled and expect(seen.screen):
                return len(steps)
            return None

        return answer

    async def _race(
        self, seen: Sighting, answer: Callable[[Sighting], int | None]
    ) -> tuple[tuple[int, Sighting] | None, Decision | None]:
        """Rule 3: the model's turn against the watch; the first to answer wins, the other is cancelled."""
        agent = self.agent
        recorded = self.job.steps[self.index :]
        turn = asyncio.ensure_future(agent.ask(seen.screen, recorded=recorded, request=self.request))
        dispatch = agent.dispatch
        watch = WatchWait(seen, answer, agent.brief.timing, slowest=WATCH_SLOWEST)
        watcher = asyncio.ensure_future(drive(watch, dispatch.clock, self.read))
        try:
            done, _pending = await asyncio.wait({turn, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (turn, watcher):
                if not task.done():
                    task.cancel()
            await asyncio.gather(turn, watcher, return_exceptions=True)
        if watcher in done:
            return watcher.result(), None  # a failed read of the watcher ends the heal too
        return None, turn.result()

    def healed(self, resume_at: int | None, *, failure: Outcome | None = None, seen: Sighting | None = None) -> Healed:
        """Where the heal ended: ``resume_at`` a step (0-based), the number of steps or None (done).

        ``seen`` is the read the heal ended on, where the replay's wait for the next step starts.
        """
        steps, index = self.job.steps, self.index
        new = tuple(self.agent.path)
        reports = tuple(
            StepReport(
                index + n + 1,
                s.op,
                s.describe(),
                StepSource.HEALED,
                0.0,
                None,
                settled=True,
                target=None if s.target is None else recorded_element(s.target),
                frame=self.agent.reports[n].frame,  # the agent reports each step of its path, in order
            )
            for n, s in enumerate(new)
        )
        upto = len(steps) if resume_at is None else resume_at
        old = steps[index:upto]
        if failure is None:
            failure = self._lost_typing(old, new)
        entry = None
        if failure is None and (new or resume_at != index):
            # A step whose screen came right while the model thought took no heal: nothing to review.
            entry = HealEntry.of(self.job.drift.at, self.job.drift.why, old, new, run_dir=self.job.run_dir)
        path = (*steps[:index], *new, *steps[upto:])
        resume = None if resume_at is None or resume_at == len(steps) else index + len(new)
        return Healed(path, resume, reports, entry, self.breaker, failure, seen)
