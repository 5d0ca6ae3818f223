"""A step's wait: poll and drift (``settle``'s Rules 1, 3 and 4).

:class:`PollPolicy` paces the reads (Rule 1) and says when a step that never matches has drifted
(Rule 3); :class:`StepWait` waits for one step's match, checking a matched target with the device
and refusing one the keyboard covers.
"""

from __future__ import annotations

import enum
import math

import attrs

from mobster_core._rules.device.keyboard import covered_by_keyboard, covers_reason
from mobster_core._rules.replay.matcher import Match, MatchRule, match_step
from mobster_core._rules.vocabulary.screen import Screen
from mobster_core._rules.vocabulary.steps import Step

from .moves import READ, SLACK, CheckTarget, Done, Move, Sighting, Sleep

__all__ = [
    "DEFAULT_POLICY",
    "Drifted",
    "Found",
    "Pace",
    "Pacing",
    "PollPolicy",
    "PollState",
    "StepState",
    "StepWait",
    "uncovered",
]


class Pace(enum.StrEnum):
    """What the runner does next in a step's wait."""

    READ = "read"
    SLEEP = "sleep"
    DRIFTED = "drifted"


@attrs.frozen
class Pacing:
    """``READ`` now; ``SLEEP`` until ``until`` (clock seconds); or ``DRIFTED`` with a reason."""

    verdict: Pace
    until: float = 0.0
    why: str = ""


@attrs.frozen
class PollState:
    """What the wait for one step has seen so far. Immutable: ``observe`` returns a new state.

    ``since`` is when the first read of the screen in front (the last read's fingerprint) started.
    """

    began: float
    reads: int = 0
    last_read_started: float | None = None
    last_fingerprint: str | None = None
    settled: bool = False
    since: float | None = None

    @property
    def origin(self) -> float:
        """Where Rule 3's timer runs from: the wait's start, or when the screen in front appeared if earlier."""
        return self.began if self.since is None else min(self.began, self.since)

    def observe(self, *, started: float, fingerprint: str) -> PollState:
        """Fold in one read that started at ``started`` (clock seconds)."""
        same = self.last_fingerprint == fingerprint
        return PollState(
            began=self.began,
            reads=self.reads + 1,
            last_read_started=started,
            last_fingerprint=fingerprint,
            settled=same,
            since=self.since if same else started,
        )


@attrs.frozen
class PollPolicy:
    """The timing of a step's wait and of Smart's waits, in seconds. The defaults: 0.15, 1.0 and 3.0 s."""

    interval: float = attrs.field(default=0.15, validator=attrs.validators.gt(0))
    drift_after: float = attrs.field(default=1.0, validator=attrs.validators.ge(0))
    give_up_after: float = attrs.field(default=3.0, validator=attrs.validators.ge(0))

    def start(self, now: float, seed: Sighting | None = None) -> PollState:
        """A new wait that begins at ``now``; with ``seed``, on a read taken before it (Rule 3)."""
        if seed is None:
            return PollState(began=now)
        fingerprint = seed.screen.fingerprint
        return PollState(now, 1, seed.started, fingerprint, settled=seed.settled, since=seed.since)

    def next(self, state: PollState, now: float) -> Pacing:
        """Decide what to do before the next read (Rules 1, 3, 4, 10)."""
        origin = state.origin
        settled_deadline = origin + self.drift_after if state.settled else math.inf
        give_up_deadline = origin + self.give_up_after if state.reads > 0 else math.inf
        if now + SLACK >= settled_deadline:
            return Pacing(Pace.DRIFTED, why=f"the screen settled and {self.drift_after:g} s passed")
        if now + SLACK >= give_up_deadline:
            return Pacing(Pace.DRIFTED, why=f"the screen kept changing for {self.give_up_after:g} s")
        if state.last_read_started is None:
            return Pacing(Pace.READ)
        next_read = state.last_read_started + self.interval
        if next_read <= now + SLACK:
            return Pacing(Pace.READ)
        return Pacing(Pace.SLEEP, until=min(next_read, settled_deadline, give_up_deadline))


DEFAULT_POLICY = PollPolicy()


@attrs.frozen
class Found:
    """A step's match: act on ``match.element`` as it is on ``screen`` now."""

    screen: Screen
    match: Match
    waited: float
    settled: bool


@attrs.frozen
class Drifted:
    """A step that didn't match (Rule 3): the last read and why, in the matcher's words."""

    screen: Screen
    match: Match
    waited: float
    settled: bool

    @property
    def reason(self) -> str:
        """The matcher's reason for the last read."""
        return self.match.reason or "the step didn't match"


@attrs.frozen
class StepState:
    """A step's wait so far: the timing state, the last read and its match, a check in flight."""

    timing: PollState
    screen: Screen | None = None
    match: Match | None = None
    checking: bool = False


@attrs.frozen
class StepWait:
    """Rule 3: wait for ``step`` to match, with ``policy``'s timing; ``seed`` is a read to start on."""

    step: Step
    policy: PollPolicy = DEFAULT_POLICY
    seed: Sighting | None = None

    def start(self, now: float) -> StepState:
        """A wait that begins at ``now``, on the seed's read when there is one (matched at once)."""
        timing = self.policy.start(now, self.seed)
        if self.seed is None:
            return StepState(timing)
        match = uncovered(match_step(self.step, self.seed.screen, settled=self.seed.settled), self.seed.screen)
        return StepState(timing, self.seed.screen, match, checking=match.ok and match.element is not None)

    def next(self, state: StepState, now: float) -> Move[Found | Drifted]:
        """CheckTarget a matched target, act on a match, or poll (Rules 1, 3, 4)."""
        match, screen = state.match, state.screen
        if state.checking and match is not None and match.element is not None:
            return CheckTarget(match.element)
        waited = now - state.timing.began
        if match is not None and screen is not None and match.ok:
            return Done(Found(screen, match, waited, state.timing.settled))
        decision = self.policy.next(state.timing, now)
        if decision.verdict is Pace.DRIFTED:
            # A read always comes before a drift (the policy reads first), so both are set.
            assert match is not None
            assert screen is not None
            return Done(Drifted(screen, match, waited, state.timing.settled))
        if decision.verdict is Pace.SLEEP:
            return Sleep(decision.until)
        return READ

    def saw(self, state: StepState, started: float, screen: Screen) -> StepState:
        """Match the step on a new read (with the settle state)."""
        timing = state.timing.observe(started=started, fingerprint=screen.fingerprint)
        match = uncovered(match_step(self.step, screen, settled=timing.settled), screen)
        return StepState(timing, screen, match, checking=match.ok and match.element is not None)

    def checked(self, state: StepState, shown: bool) -> StepState:
        """Rule 3: a target the device says is hidden is no match on that read."""
        match = state.match
        assert match is not None
        if not shown and match.element is not None:
            element = match.element
            label = element.label or f"{element.role} at {element.path}"
            reason = f'"{label}" is in the tree but hidden: the device says it isn\'t visible'
            match = attrs.evolve(match, ok=False, reason=reason, rule=MatchRule.TARGET)
        return attrs.evolve(state, match=match, checking=False)


def uncovered(match: Match, screen: Screen) -> Match:
    """Rule 3: a match whose target the keyboard covers is no match (``_rules/device/keyboard``)."""
    element = match.element
    if not match.ok or element is None or not covered_by_keyboard(screen, element):
        return match
    return attrs.evolve(match, ok=False, reason=covers_reason(element), rule=MatchRule.TARGET)
