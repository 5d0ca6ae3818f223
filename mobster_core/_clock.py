"""The system clocks: the one module of the core that reads the time of day.

Rule 1: :class:`SystemClock` is the real monotonic clock (``time.monotonic``) and sleeps with
        ``asyncio.sleep``; every wait of a run goes through it (or a fake clock in tests).
Rule 2: :func:`utc_now` is the one reading of the wall clock: for timestamps written into files
        (``recorded_at``, ``started_at``), run ids, and the age of the temporary files a killed
        writer left. It never decides what a run does (an AST test holds it to this module).
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

__all__ = ["SystemClock", "utc_now"]


def utc_now() -> datetime:
    """The wall clock, timezone-aware in UTC (Rule 2)."""
    return datetime.now(UTC)


class SystemClock:
    """The real monotonic clock (``time.monotonic``); sleeping is ``asyncio.sleep``."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` for real."""
        await asyncio.sleep(max(0.0, seconds))
