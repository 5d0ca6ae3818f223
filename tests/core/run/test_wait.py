"""The one wait loop (``_run/wait.py``): a late wake-up takes a fresh read before the wait decides (Rule 4)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import mobster_core as mc
from mobster_core._rules.replay.settle import Drifted, Found, StepWait
from mobster_core._run.wait import LATE_S, drive
from tests.core.helpers import screen, step_on

SHOWN = [{"role": "StaticText", "label": "Welcome"}, {"role": "Button", "label": "Continue"}]
BEFORE = screen([{"role": "StaticText", "label": "Loading"}])
AFTER = screen(SHOWN)


class LateClock:
    """A clock on which one sleep ends ``late`` seconds after it was due (a loop held up), the others on time."""

    def __init__(self, late_from: float, late: float) -> None:
        self.t = 0.0
        self.late_from, self.late = late_from, late
        self.sleeps: list[tuple[float, float]] = []  # (due, woke)

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        due = self.t + seconds
        self.t = due + (self.late if self.late_from <= self.t < self.late_from + 0.15 else 0.0)
        self.sleeps.append((due, self.t))
        await asyncio.sleep(0)


def reads(clock: LateClock, appears_at: float) -> tuple[list[float], Callable[[], Awaitable[mc.Screen]]]:
    """A reader whose screen becomes ``AFTER`` at ``appears_at``, noting when each read starts."""
    started: list[float] = []

    async def read() -> mc.Screen:
        started.append(clock.now())
        return AFTER if clock.now() >= appears_at else BEFORE

    return started, read


def test_a_wake_up_later_than_due_reads_the_screen_before_deciding() -> None:
    step = step_on(AFTER)
    clock = LateClock(late_from=0.15, late=2.0)  # the sleep after the second read ends 2 s late
    started, read = reads(clock, appears_at=1.5)
    result = asyncio.run(drive(StepWait(step), clock, read))
    # Without a fresh read the step would drift at once: its screen was settled and 1 s had passed.
    assert isinstance(result, Found)
    assert started[-1] == clock.sleeps[1][1]  # the read taken on waking, at 2.3 s
    assert clock.sleeps[1][1] - clock.sleeps[1][0] > LATE_S


def test_a_wake_up_on_time_decides_without_another_read() -> None:
    step = step_on(AFTER)
    clock = LateClock(late_from=99.0, late=0.0)
    started, read = reads(clock, appears_at=99.0)
    result = asyncio.run(drive(StepWait(step), clock, read))
    assert isinstance(result, Drifted)
    # a read before each sleep, none after the last: it ends at the drift's second, which decides
    assert len(started) == len(clock.sleeps)
    assert clock.sleeps[-1][1] == 1.0  # drift_after after the wait began, after the last read (0.9 s)
