"""The heal's watch (``settle``'s Rule 9)."""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs

from mobster_core._rules.vocabulary.screen import Screen

from .moves import Done, Move, NoChecks, Sighting, Watch, read_at
from .step import DEFAULT_POLICY, PollPolicy

__all__ = ["WATCH_SLOWEST", "WatchState", "WatchWait"]

R = TypeVar("R")


#: Rule 9: the longest gap between two of the heal's watch reads of a screen that stays the same, seconds.
WATCH_SLOWEST = 1.0


@attrs.frozen
class WatchState(Generic[R]):
    """The watch so far: the last sighting, the answer once ``watch`` gave one, the gap to the next read."""

    sighting: Sighting
    answer: R | None = None
    gap: float = 0.0


@attrs.frozen
class WatchWait(NoChecks, Generic[R]):
    """Rule 9: read from ``sighting`` on until ``watch`` answers: every ``interval``, or slower up to ``slowest``.

    ``slowest`` None reads every ``interval`` whatever the screen does (Rule 1).
    """

    sighting: Sighting
    watch: Watch[R] = attrs.field(eq=False)
    policy: PollPolicy = DEFAULT_POLICY
    slowest: float | None = None

    def start(self, _now: float) -> WatchState[R]:
        """The watch starts on the screen the model was given: its answer comes first."""
        return WatchState(self.sighting, self.watch(self.sighting), self.policy.interval)

    def next(self, state: WatchState[R], now: float) -> Move[tuple[R, Sighting]]:
        """Stop at the first answer, with the read it came on; else read when the gap has passed."""
        if state.answer is not None:
            return Done((state.answer, state.sighting))
        return read_at(state.sighting.started + state.gap, now)

    def saw(self, state: WatchState[R], started: float, screen: Screen) -> WatchState[R]:
        """Fold in a read and ask ``watch``; a read that agrees with the one before doubles the gap (Rule 9)."""
        seen = state.sighting.then(started, screen)
        interval = self.policy.interval
        slower = self.slowest is not None and seen.settled
        gap = min(max(self.slowest or interval, interval), state.gap * 2) if slower else interval
        return WatchState(seen, self.watch(seen), gap)
