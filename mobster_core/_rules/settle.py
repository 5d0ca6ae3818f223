"""Waiting for a step's screen: poll and drift (SPEC §5). A pure policy: no clock, no device.

Rule 1: reads start ``interval`` (0.15 s) apart: the next read starts 0.15 s after the previous one
        started, or at once if that read took longer.
Rule 2: the screen is *settled* when the last two reads agree (equal read fingerprints).
Rule 3: a step whose match never comes has *drifted* once the screen is settled and
        ``drift_after`` (1.0 s) has passed since the wait for this step began, or once
        ``give_up_after`` (3.0 s) has passed (a screen that never stops changing).
Rule 4: waiting longer changes nothing, so the policy never waits past the moment Rule 3 decides.

The runner calls :meth:`PollPolicy.next` before each read: it answers ``read now``, ``sleep until t``
or ``drifted``. After each read it calls :meth:`WaitState.observe` and asks the matcher.
"""

from __future__ import annotations

import enum
import math

import attrs

__all__ = ["DEFAULT_POLICY", "PollDecision", "PollPolicy", "PollVerdict", "WaitState"]

_SLACK = 1e-9


class PollVerdict(enum.StrEnum):
    """What the runner does next."""

    READ = "read"
    SLEEP = "sleep"
    DRIFTED = "drifted"


@attrs.frozen
class PollDecision:
    """``READ`` now; ``SLEEP`` until ``until`` (clock seconds); or ``DRIFTED`` with a reason."""

    verdict: PollVerdict
    until: float = 0.0
    why: str = ""


@attrs.frozen
class WaitState:
    """What the wait for one step has seen so far. Immutable: ``observe`` returns a new state."""

    began: float
    reads: int = 0
    last_read_started: float | None = None
    last_fingerprint: str | None = None
    settled: bool = False

    def observe(self, *, started: float, fingerprint: str) -> WaitState:
        """Fold in one read that started at ``started`` (clock seconds)."""
        return WaitState(
            began=self.began,
            reads=self.reads + 1,
            last_read_started=started,
            last_fingerprint=fingerprint,
            settled=self.last_fingerprint == fingerprint,
        )


@attrs.frozen
class PollPolicy:
    """The timing of the wait for a step, in seconds. The defaults are SPEC §5's."""

    interval: float = attrs.field(default=0.15, validator=attrs.validators.gt(0))
    drift_after: float = attrs.field(default=1.0, validator=attrs.validators.ge(0))
    give_up_after: float = attrs.field(default=3.0, validator=attrs.validators.ge(0))

    def start(self, now: float) -> WaitState:
        """A new wait that begins at ``now``."""
        return WaitState(began=now)

    def next(self, state: WaitState, now: float) -> PollDecision:
        """Decide what to do before the next read (Rules 1, 3, 4).

        Times are compared with a nanosecond of slack, so a wake-up scheduled for a deadline is at
        that deadline even when float arithmetic lands a hair before it.
        """
        settled_deadline = state.began + self.drift_after if state.settled else math.inf
        give_up_deadline = state.began + self.give_up_after if state.reads > 0 else math.inf
        if now + _SLACK >= settled_deadline:
            return PollDecision(PollVerdict.DRIFTED, why=f"the screen settled and {self.drift_after:g} s passed")
        if now + _SLACK >= give_up_deadline:
            return PollDecision(PollVerdict.DRIFTED, why=f"the screen kept changing for {self.give_up_after:g} s")
        if state.last_read_started is None:
            return PollDecision(PollVerdict.READ)
        next_read = state.last_read_started + self.interval
        if next_read <= now + _SLACK:
            return PollDecision(PollVerdict.READ)
        return PollDecision(PollVerdict.SLEEP, until=min(next_read, settled_deadline, give_up_deadline))


DEFAULT_POLICY = PollPolicy()
