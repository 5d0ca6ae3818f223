"""The system clock: the one module of the core that imports ``time``.

``work_seconds`` is not a clock for waiting: it measures CPU time spent on bounded work (a
check's regexes on one read), so the work can stop at its budget whatever the injected clock says.
"""

from __future__ import annotations

import asyncio
import time

__all__ = ["SystemClock", "work_seconds"]


def work_seconds() -> float:
    """CPU seconds this process has used (``time.process_time``): to bound work, never to wait."""
    return time.process_time()


class SystemClock:
    """The real monotonic clock (``time.monotonic``); sleeping is ``asyncio.sleep``."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` for real."""
        await asyncio.sleep(max(0.0, seconds))
