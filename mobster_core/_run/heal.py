"""The heal (SPEC §10): a drifted step is healed by the model for that step only.

Rule 1: the model gets the check's own request, is told which recorded step changed and why (the
        matcher's reason), and sees the replayed steps as its history.
Rule 2: after each of its actions the screen is compared with the drifted step and the next four
        (the matcher, with the settle state). At the first match the model is cancelled, a call
        in flight included, and replay takes over from the matched step.
Rule 3: the next model turn and the screen comparison run concurrently: a match that appears
        while the model is thinking wins at once. Before the model's first action only the
        drifted step itself is watched (a later step's screen must not skip the drifted one).
Rule 4: the breaker is checked before every model action (the caller checks it before the heal).
Rule 5: the model saying done drops the remaining steps (the verdict decides); blocked fails the
        check with class ``drift``; an unknown outcome ends the run.
Rule 6: when the drifted step is the last one (no recorded step is left to match after it), the
        comparison after the model has acted is also the check's own expectations on a settled
        read (two reads in a row agree): once they all hold, the model is cancelled (a call in
        flight included) and the heal ends with no "done" call. The tree decides, never the model.
        The drifted step itself is still watched (a popup dismissed before it lets it replay).
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Sequence

import attrs

from mobster_core._rules.breaker import Breaker
from mobster_core._rules.matcher import match_step
from mobster_core._rules.model import Decision, DecisionKind
from mobster_core._rules.screen import Screen
from mobster_core._rules.settle import Sighting, WatchWait
from mobster_core._rules.steps import Step
from mobster_core.exceptions import ModelError

from .agent import Agent
from .dispatch import DispatchFailed, Failure
from .wait import drive

__all__ = ["LOOKAHEAD", "HealEnd", "HealOutcome", "heal_step"]

#: Rule 2: how many steps after the drifted one the screen is compared with.
LOOKAHEAD = 4
_HELD = "the check's expectations hold on a settled read"


class HealEnd(enum.StrEnum):
    """How a heal ended."""

    RESUMED = "resumed"
    EXPECTED = "expected"
    DONE = "done"
    BLOCKED = "blocked"
    HEAL_LIMIT = "heal_limit"
    MODEL = "model"
    UNKNOWN_OUTCOME = "unknown_outcome"
    DEVICE = "device"


@attrs.frozen
class HealOutcome:
    """The end of one heal.

    ``resume_at`` is where replay resumes (0-based; the number of steps when the expectations
    held after a heal of the last step, Rule 6), ``new`` the steps the model took, ``old`` the
    recorded steps they replace, ``breaker`` the breaker after the heal.
    """

    end: HealEnd
    step: int
    new: tuple[Step, ...]
    old: tuple[Step, ...]
    breaker: Breaker
    resume_at: int | None = None
    message: str = ""


def heal_request(request: str, step: int, drifted: Step, why: str) -> str:
    """Rule 1: the check's request, plus which recorded step changed and why."""
    return (
        f"{request}\n\nThis check passed before. Its recorded step {step} ({drifted.describe()}) can't run "
        f"now: {why}. Do what that step was for, on the screen as it is now, so the check can go on. "
        "Take one action at a time."
    )


async def heal_step(
    agent: Agent,
    steps: Sequence[Step],
    *,
    index: int,
    why: str,
    screen: Screen,
    breaker: Breaker,
    expectations: Callable[[Screen], bool] | None = None,
) -> HealOutcome:
    """Heal ``steps[index]`` (0-based) with the agent's model (see the module rules).

    ``expectations`` says whether the check's expectations all hold on a screen (Rule 6); None
    when the check has none (the model's "done" then ends a heal of the last step).
    """
    step_no = index + 1
    drifted = steps[index]
    request = heal_request(agent.request, step_no, drifted, why)
    recorded = tuple(steps[index:])
    first_new = len(agent.path)
    expect = expectations if index == len(steps) - 1 else None

    def outcome(end: HealEnd, *, resume_at: int | None = None, message: str = "") -> HealOutcome:
        new = tuple(agent.path[first_new:])
        upto = len(steps) if resume_at is None else resume_at
        old = tuple(steps[index:upto])
        return HealOutcome(end, step_no, new, old, breaker, resume_at, message)

    try:
        while True:
            acted = len(agent.path) > first_new
            watch = range(index, min(len(steps), index + LOOKAHEAD + 1)) if acted else range(index, index + 1)
            if acted:
                # The screen after an action is settled (or gave up settling): check it at once,
                # so a match costs no model call at all.
                for j in watch:
                    if match_step(steps[j], screen, settled=True).ok:
                        return outcome(HealEnd.RESUMED, resume_at=j)
                if expect is not None:
                    # Rule 6: one more read; when it agrees with the last, the read is settled.
                    again = await agent.dispatch.read()
                    if again.fingerprint == screen.fingerprint and expect(again):
                        return outcome(HealEnd.EXPECTED, resume_at=len(steps), message=_HELD)
                    screen = again
            turn = asyncio.ensure_future(agent.ask(screen, recorded=recorded, request=request))
            latest = [screen]  # the watcher's newest read, for the action the model decides on
            watcher = asyncio.ensure_future(
                _watch(agent, steps, watch, screen, latest, expect=expect if acted else None)
            )
            try:
                done, _pending = await asyncio.wait({turn, watcher}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (turn, watcher):
                    if not task.done():
                        task.cancel()
                await asyncio.gather(turn, watcher, return_exceptions=True)
            if watcher in done and not watcher.cancelled() and watcher.exception() is None:
                resume_at, _seen = watcher.result()
                if resume_at == len(steps):
                    return outcome(HealEnd.EXPECTED, resume_at=resume_at, message=_HELD)
                return outcome(HealEnd.RESUMED, resume_at=resume_at)
            decision: Decision = turn.result()
            if decision.kind is DecisionKind.DONE:
                return outcome(HealEnd.DONE, message=decision.reason)
            if decision.kind is DecisionKind.BLOCKED:
                reason = decision.reason or "the model is blocked"
                return outcome(
                    HealEnd.BLOCKED, message=f"step {step_no} ({drifted.describe()}) drifted: {why}; {reason}"
                )
            if not breaker.allows_one_more():
                return outcome(HealEnd.HEAL_LIMIT, message=breaker.message(step_no))
            before = len(agent.path)
            screen = await agent.act_turn(screen, decision.actions[:1], latest=latest[-1])
            breaker = breaker.record(len(agent.path) - before)
    except ModelError as exc:
        return outcome(HealEnd.MODEL, message=f"healing step {step_no}: {exc}")
    except DispatchFailed as exc:
        end = HealEnd.UNKNOWN_OUTCOME if exc.failure is Failure.UNKNOWN_OUTCOME else HealEnd.DEVICE
        return outcome(end, message=exc.message)


async def _watch(
    agent: Agent,
    steps: Sequence[Step],
    watch: Sequence[int],
    screen: Screen,
    latest: list[Screen],
    *,
    expect: Callable[[Screen], bool] | None,
) -> tuple[int, Screen]:
    """Rule 2: poll the screen until one of the watched steps matches; return its index.

    With ``expect`` (Rule 6), a settled read on which the expectations hold ends it too: the index
    returned is then the number of steps.
    """

    def answer(seen: Sighting) -> int | None:
        for j in watch:
            if match_step(steps[j], seen.screen, settled=seen.settled).ok:
                return j
        if expect is not None and seen.settled and expect(seen.screen):
            return len(steps)
        return None

    async def read() -> Screen:
        latest[:] = [await agent.dispatch.read()]
        return latest[0]

    clock = agent.clock
    j = await drive(WatchWait(Sighting.first(clock.now(), screen), answer, agent.policy), clock, read)
    return j, latest[-1]
