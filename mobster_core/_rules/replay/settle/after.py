"""After an action: Smart's settled screen, the wait for a change, typed text (``settle``'s Rules 6 to 8)."""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs

from mobster_core._rules.vocabulary.screen import Element, Screen

from .moves import READ, SLACK, Done, Move, NoChecks, Sighting, Sleep, Watch, read_at, sighted
from .step import DEFAULT_POLICY, Pace, PollPolicy, PollState

__all__ = ["BULLET", "ChangeState", "ChangeWait", "Changed", "SettleState", "SettleWait", "TypingState", "TypingWait"]

#: What a secure field shows for each typed character.
BULLET = "\u2022"

R = TypeVar("R")


@attrs.frozen
class SettleState:
    """Smart's waits so far: the timing state and the last sighting."""

    timing: PollState
    sighting: Sighting | None = None


@attrs.frozen
class SettleWait(NoChecks):
    """Rule 6: read until two reads agree, or ``give_up_after`` passed (the last read wins).

    ``seed`` is a read to start on: a settled one ends the wait at once.
    """

    policy: PollPolicy = DEFAULT_POLICY
    seed: Sighting | None = None

    def start(self, now: float) -> SettleState:
        """A wait that begins at ``now``, on the seed's read when there is one."""
        return SettleState(self.policy.start(now, self.seed), self.seed)

    def next(self, state: SettleState, now: float) -> Move[Sighting]:
        """Stop on a settled screen, or when the policy gives up; else poll (Rule 1)."""
        seen = state.sighting
        if seen is not None and seen.settled:
            return Done(seen)
        decision = self.policy.next(state.timing, now)
        if decision.verdict is Pace.DRIFTED and seen is not None:
            return Done(seen)
        if decision.verdict is Pace.SLEEP:
            return Sleep(decision.until)
        return READ

    def saw(self, state: SettleState, started: float, screen: Screen) -> SettleState:
        """Fold in a read."""
        timing = state.timing.observe(started=started, fingerprint=screen.fingerprint)
        return SettleState(timing, sighted(state.sighting, started, screen))


@attrs.frozen
class ChangeState(Generic[R]):
    """The wait after an action: when it began, the last read, the settle wait once it began, and an answer."""

    began: float
    sighting: Sighting | None = None
    settle: SettleState | None = None
    answer: R | None = None


@attrs.frozen
class Changed(Generic[R]):
    """The end of the wait after an action: the last read, and the watch's answer when it gave one."""

    sighting: Sighting
    answer: R | None = None


@attrs.frozen
class ChangeWait(NoChecks, Generic[R]):
    """Rule 7: wait for the screen to leave ``before`` (a read fingerprint; bounded), then to settle.

    The settle wait starts on the first changed read (or, when nothing changed, on the last read).
    With ``watch``, every read from there on is given to it first, with its settle state; the
    first answer that isn't None ends the wait.
    """

    before: str
    policy: PollPolicy = DEFAULT_POLICY
    watch: Watch[R] | None = attrs.field(default=None, eq=False)

    def start(self, now: float) -> ChangeState[R]:
        """The wait after an action that returned at ``now``."""
        return ChangeState(began=now)

    def next(self, state: ChangeState[R], now: float) -> Move[Changed[R]]:
        """Read until the screen changed (Rule 7), then until it settles (Rule 6)."""
        seen = state.sighting
        if state.answer is not None and seen is not None:
            return Done(Changed(seen, state.answer))
        if state.settle is not None:
            move = SettleWait(self.policy).next(state.settle, now)
            return Done(Changed(move.result)) if isinstance(move, Done) else move
        return READ if seen is None else read_at(seen.started + self.policy.interval, now)

    def saw(self, state: ChangeState[R], started: float, screen: Screen) -> ChangeState[R]:
        """Fold in a read: of the wait for a change while the screen is unchanged and time is left."""
        seen = sighted(state.sighting, started, screen)
        settle = state.settle
        if settle is None:
            unchanged = screen.fingerprint == self.before
            if unchanged and started - state.began < self.policy.give_up_after - SLACK:
                return attrs.evolve(state, sighting=seen)
            # The change came (or never will): the settle wait starts on this read.
            seen = seen if unchanged else Sighting.first(started, screen)
            settle = SettleWait(self.policy, seen).start(started)
        else:
            settle = SettleWait(self.policy).saw(settle, started, screen)
            assert settle.sighting is not None
            seen = settle.sighting
        answer = None if self.watch is None else self.watch(seen)
        return ChangeState(state.began, seen, settle, answer)


# -- typing (Rule 8) -----------------------------------------------------------------------------


@attrs.frozen
class TypingState:
    """The wait for typed text: when it began, when the last read ended, what the field shows."""

    began: float
    last_started: float | None = None
    shown: str | None = None
    holds: bool = False


@attrs.frozen
class TypingWait(NoChecks):
    """Rule 8: wait for ``field`` (as it was before typing) to hold ``text``."""

    field: Element
    text: str
    policy: PollPolicy = DEFAULT_POLICY

    def start(self, now: float) -> TypingState:
        """A wait that begins at ``now`` (when the typing returned)."""
        return TypingState(began=now)

    def next(self, state: TypingState, now: float) -> Move[str | None]:
        """None when the field holds the text; else what it shows, once ``drift_after`` passed."""
        if state.holds:
            return Done(None)
        if state.last_started is None:
            return READ
        if now - state.began >= self.policy.drift_after - SLACK:
            return Done(state.shown or "no such field")
        return read_at(state.last_started + self.policy.interval, now)

    def saw(self, state: TypingState, started: float, screen: Screen) -> TypingState:
        """Read the field back: what it shows, and whether it holds the text."""
        field = self.field
        now_field = screen.element_at(field.path)
        value = now_field.value if now_field is not None and now_field.role == field.role else None
        secure = field.role == "SecureTextField"
        if value is None:
            return attrs.evolve(state, last_started=started, shown=None, holds=False)
        bullets = value.count(BULLET)
        holds = bullets - field.value.count(BULLET) == len(self.text) if secure else self.text in value
        shown = f"{bullets} bullets" if secure else repr(value)
        return attrs.evolve(state, last_started=started, shown=shown, holds=holds)
