"""The one wait loop: it drives any pure wait against a clock and a read.

The waits are ``_rules/replay/settle``'s (they read the screen) and ``_store/lease.py``'s recording
lease (it reads the path store): the loop is the same, only what a read returns differs.

Rule 1: the loop decides nothing. It asks the wait what to do, does it (sleep on the clock, read,
        or ask the device whether a target is shown), and gives the wait what it saw.
Rule 2: a read's start is the clock's time just before the read is sent; the wait spaces reads by
        it (the next read starts an interval after the previous one started).
Rule 3: a device that can't check targets answers that every target is shown.
Rule 4 (a late wake-up): a sleep that ends more than :data:`LATE_S` (0.1 s) after it was due (the
        event loop was held up: a blocked loop, a slow thread, a suspended machine) is followed by
        a fresh read before the wait decides anything, so no decision (a drift at its deadline, a
        verdict at its timeout) is made on a read older than the delay.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from mobster_core._rules.replay.settle import CheckTarget, Done, Move, Sleep
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core.protocols import Clock

__all__ = ["LATE_S", "Checker", "Drivable", "Reader", "drive"]

S = TypeVar("S")
R = TypeVar("R")
Seen = TypeVar("Seen")
S_ = TypeVar("S_")
O_contra = TypeVar("O_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)


class Drivable(Protocol[S_, O_contra, R_co]):
    """**Protocol:** a pure wait the loop drives, reading ``O`` (``_rules/replay/settle``'s ``Wait`` reads a Screen)."""

    def start(self, now: float, /) -> S_:
        """The state of a wait that begins at ``now``."""
        ...

    def next(self, state: S_, now: float, /) -> Move[R_co]:
        """What to do now."""
        ...

    def saw(self, state: S_, started: float, seen: O_contra, /) -> S_:
        """Fold in a read that started at ``started``."""
        ...

    def checked(self, state: S_, shown: bool, /) -> S_:
        """Fold in the device's answer to the last check of a target."""
        ...


#: Reads the screen (the run's read path: a failed read is tried once more).
Reader = Callable[[], Awaitable[Screen]]
#: Is this element of the latest read shown, by the device's own account?
Checker = Callable[[Element], Awaitable[bool]]
#: Rule 4: how late a wake-up may be (seconds after it was due) before the screen is read again.
LATE_S = 0.1


async def drive(
    wait: Drivable[S, Seen, R], clock: Clock, read: Callable[[], Awaitable[Seen]], check: Checker | None = None
) -> R:
    """Run ``wait`` to its end and return its result (see the module rules)."""
    state = wait.start(clock.now())
    while True:
        now = clock.now()
        move = wait.next(state, now)
        if isinstance(move, Done):
            return move.result
        if isinstance(move, Sleep):
            await clock.sleep(move.until - now)
            if clock.now() - move.until > LATE_S:  # Rule 4: decide on the screen as it is now
                started = clock.now()
                state = wait.saw(state, started, await read())
        elif isinstance(move, CheckTarget):
            state = wait.checked(state, True if check is None else await check(move.element))
        else:
            started = clock.now()
            state = wait.saw(state, started, await read())
