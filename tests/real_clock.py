"""Runs on the real clock, for tests whose phone sits behind a fake server on real sockets.

A fake clock can't drive them (it would jump past a reply still on its way), so they run on the
system clock with short polls: the same waits (a step settles, a drift is declared, a heal ends)
in a fraction of the time.
"""

from __future__ import annotations

from click.testing import CliRunner, Result

from mobster_cli.main import cli
from mobster_core import PollPolicy

#: The short polls, for ``run_check`` and ``run_suite``.
QUICK_POLICY = PollPolicy(interval=0.03, drift_after=0.2, give_up_after=0.6)
#: The same, as ``mobster test`` options.
QUICK_OPTIONS = (
    "--poll-interval", f"{QUICK_POLICY.interval:g}",
    "--drift-after", f"{QUICK_POLICY.drift_after:g}",
    "--give-up-after", f"{QUICK_POLICY.give_up_after:g}",
)  # fmt: skip


def mobster(*args: str) -> Result:
    """``mobster ARGS`` in-process on the real clock; ``mobster test`` runs with the short polls."""
    timing = QUICK_OPTIONS if args[:1] == ("test",) and args[1:2] != ("heal",) else ()
    return CliRunner().invoke(cli, [*args, *timing], catch_exceptions=False)


class ManualClock:
    """A clock the test moves by hand: what a fake server measures idle time on."""

    def __init__(self) -> None:
        self.t = 1000.0

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)
