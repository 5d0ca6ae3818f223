"""The settled read: the verdict's and the baseline's (``settle``'s Rules 5 and 5a)."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from mobster_core._rules.vocabulary.screen import Screen

from .moves import READ, SLACK, Done, Move, NoChecks, Sighting, read_at, sighted
from .step import DEFAULT_POLICY, PollPolicy

__all__ = [
    "BASELINE_POLICY",
    "DEFAULT_READ_POLICY",
    "Opening",
    "ReadPolicy",
    "ReadState",
    "SettledRead",
    "SettledReadWait",
]


@attrs.frozen
class ReadPolicy:
    """The timing of a settled read, in seconds (Rule 5). The defaults: 0.3, 0.5 and 5 s."""

    settle_gap: float = attrs.field(default=0.3, validator=attrs.validators.gt(0))
    interval: float = attrs.field(default=0.5, validator=attrs.validators.gt(0))
    timeout: float = attrs.field(default=5.0, validator=attrs.validators.ge(0))


#: The settled read after the steps: 0.3 s to settle, then every 0.5 s up to 5 s.
DEFAULT_READ_POLICY = ReadPolicy()
#: The baseline before the first step: every 0.3 s for at most 3 s.
BASELINE_POLICY = ReadPolicy(settle_gap=0.3, interval=0.3, timeout=3.0)


@attrs.frozen
class SettledRead:
    """The read that decides: the screen, whether it was settled, how many reads, how long (s).

    ``sighting`` is the last read as a sighting, for a wait that starts on it.
    """

    screen: Screen
    stable: bool
    reads: int
    seconds: float
    sighting: Sighting


@attrs.frozen
class Opening:
    """How a settled read opens (Rule 5a): after an action no read has seen yet, or on a read that decides alone.

    ``after`` is the read fingerprint of the screen the last action was sent on: reads come at
    ``poll``'s cadence (its ``interval``, 0.15 s) while they still show it.
    ``alone`` says of a first read that it decides alone (the baseline: the app in front and an
    expectation that fails on it).
    """

    after: str | None = None
    poll: PollPolicy = DEFAULT_POLICY
    alone: Callable[[Screen], bool] | None = attrs.field(default=None, eq=False)


_PLAIN_OPENING = Opening()


@attrs.frozen
class ReadState:
    """A settled read so far.

    ``began`` is when the wait began; ``first`` when Rule 5's timeout starts counting (None while
    Rule 5a's fast reads go on); ``changed`` when the first read that showed a screen other than the
    one the last action was sent on started (Rule 5a); ``reads`` the reads Rule 5 counts,
    ``total`` all of them; ``alone`` that the first read decides alone.
    """

    began: float
    reads: int = 0
    sighting: Sighting | None = None
    accepted: bool = False
    first: float | None = None
    total: int = 0
    alone: bool = False
    changed: float | None = None


@attrs.frozen
class SettledReadWait(NoChecks):
    """Rules 5 and 5a: the settled read, with ``policy``'s timing, the caller's ``accept`` and its ``opening``."""

    policy: ReadPolicy = DEFAULT_READ_POLICY
    accept: Callable[[Screen], bool] | None = attrs.field(default=None, eq=False)
    opening: Opening = _PLAIN_OPENING

    def start(self, now: float) -> ReadState:
        """A settled read that begins at ``now``."""
        return ReadState(began=now, first=None if self.opening.after is not None else now)

    def next(self, state: ReadState, now: float) -> Move[SettledRead]:
        """Read, sleep, or decide (Rules 5 and 5a)."""
        seen = state.sighting
        if seen is None:
            return READ
        if state.alone:
            return self._done(state, now, stable=False)
        if state.first is None:  # Rule 5a: the action's effect isn't on the screen yet
            return self._opening_next(state, seen, now)
        if seen.settled and state.accepted:
            return self._done(state, now, stable=True)
        deadline = state.first + self.policy.timeout
        if state.reads >= 2 and seen.started + SLACK >= deadline:
            return self._done(state, now, stable=seen.settled)
        if state.reads == 1:
            at = seen.started + self.policy.settle_gap
        else:  # the last read is taken at the deadline, not after it
            at = min(seen.started + self.policy.interval, deadline)
        return read_at(at, now)

    def _opening_next(self, state: ReadState, seen: Sighting, now: float) -> Move[SettledRead]:
        """Rule 5a: the next fast read, or the timeout (counted from the first read of another screen)."""
        if state.changed is not None and seen.started + SLACK >= state.changed + self.policy.timeout:
            return self._done(state, now, stable=seen.settled)
        return read_at(seen.started + self.opening.poll.interval, now)

    def saw(self, state: ReadState, started: float, screen: Screen) -> ReadState:
        """Fold in a read; ``accept`` is asked of every read."""
        accepted = True if self.accept is None else self.accept(screen)
        opening = self.opening
        total = state.total + 1
        if state.first is None:
            seen = sighted(state.sighting, started, screen)
            changed = state.changed
            if changed is None and screen.fingerprint != opening.after:
                changed = started  # Rule 5a: the first read of another screen; the timeout counts from it
            if changed is not None and accepted:  # Rule 5 starts on this read
                sighting = Sighting.first(started, screen)
                return ReadState(state.began, 1, sighting, accepted, changed, total, changed=changed)
            if seen.started - seen.since + SLACK >= self.policy.settle_gap:
                # Nothing changed, or another screen settled without ``accept``: Rule 5's two that agree.
                first = seen.since if changed is None else changed
                return ReadState(state.began, 2, seen, accepted, first, total, changed=changed)
            return attrs.evolve(state, sighting=seen, accepted=accepted, total=total, changed=changed)
        alone = state.reads == 0 and opening.alone is not None and opening.alone(screen)
        sighting = sighted(state.sighting, started, screen)
        return ReadState(state.began, state.reads + 1, sighting, accepted, state.first, total, alone)

    @staticmethod
    def _done(state: ReadState, now: float, *, stable: bool) -> Done[SettledRead]:
        seen = state.sighting
        assert seen is not None
        return Done(SettledRead(seen.screen, stable, state.total, now - state.began, seen))
