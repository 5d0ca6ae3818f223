"""The system clock: the one module of the core that imports ``time``."""

from __future__ import annotations

import asyncio
import time

__all__ = ["SystemClock"]


class SystemClock:
    """The real monotonic clock (``time.monotonic``); sleeping is ``asyncio.sleep``."""

    def now(self) -> float:
        """Seconds on the monotonic clock."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` for real."""
        await asyncio.sleep(max(0.0, seconds))
