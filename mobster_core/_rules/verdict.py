"""The verdict: the settled read, and how a run's observations become passed, failed, or neither.

Rule 1: the verdict comes from assertions on one settled read of the accessibility tree, never
        from a model; what a model says about its own run is never an input.
Rule 2: the settled read: read, wait ``settle_gap`` (0.3 s), read again. When two reads in a row
        agree (equal read fingerprints) the screen is settled, and that read decides
        (``stable: true``). Otherwise read every ``interval`` (0.5 s) until ``timeout`` (5 s) after
        the first read; the last read, taken at the timeout, decides, and ``stable`` says whether it
        agreed with the one before. Reads start ``interval`` after the previous read *started*, or
        at once when that read took longer.
Rule 3: a caller may pass ``accept``: then a settled read decides early only when ``accept`` holds
        on it (Mobster's "a settled read that satisfies every assertion"); a settled read on which
        it fails keeps the reads going, because a slow screen may still finish loading.
Rule 4: the baseline (only for a check with steps) is the same read with ``BASELINE_POLICY``: every
        0.3 s for at most 3 s. It counts as taken only when it settled.
Rule 4a: every read of a settled read is the device's *evidence read* when it has one
        (``EvidenceReads``: the read that keeps the phone's own visibility of each element, which
        a fast read may leave out), else its ``read``. What counts as shown is decided on it.
Rule 5: :func:`decide` picks the outcome, first matching rule wins: ``failed``
        ``app_not_running`` (the app under test is not in front at the end); ``failed``
        ``assertion`` (an assertion failed); ``needs_review`` ``no_assertions``; ``needs_review``
        ``held_before_flow`` (every assertion already held on the baseline); else ``passed``.
        Classes that come before these (``usage``, ``model``, ``device``, ``drift``, …) are decided
        by the runner before it asks for a verdict.
Rule 6: exit codes: ``passed`` 0, ``failed`` 1, ``needs_review`` 2, ``couldnt_run`` 3. A suite
        exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs review, else 0.

The read policy is pure (like ``_settle.py``): given the reads and ``now`` it answers read now,
sleep until t, or done. :func:`settled_read` is the only code here that awaits.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence

import attrs

from mobster_core.protocols import Clock, Device, EvidenceReads

from .assertions import Assertion, AssertionResult
from .screen import Screen

__all__ = [
    "BASELINE_POLICY",
    "DEFAULT_READ_POLICY",
    "FailureClass",
    "Outcome",
    "ReadAction",
    "ReadDecision",
    "ReadPolicy",
    "ReadState",
    "SettledRead",
    "Verdict",
    "decide",
    "settled_read",
    "suite_exit_code",
]

# A wake-up scheduled for a deadline may land a hair before it in float arithmetic.
_SLACK = 1e-9


class Verdict(enum.StrEnum):
    """How a check ended (Rule 6 gives the exit codes)."""

    PASSED = "passed"
    FAILED = "failed"
    NEEDS_REVIEW = "needs_review"
    COULDNT_RUN = "couldnt_run"

    @property
    def exit_code(self) -> int:
        """0 passed, 1 failed, 2 needs review, 3 couldn't run."""
        return _EXIT_CODES[self]


_EXIT_CODES = {Verdict.PASSED: 0, Verdict.FAILED: 1, Verdict.NEEDS_REVIEW: 2, Verdict.COULDNT_RUN: 3}


class FailureClass(enum.StrEnum):
    """Why a check did not pass: a stable value for the results and for CI to branch on."""

    # decided by the verdict (Rule 5)
    ASSERTION = "assertion"
    APP_NOT_RUNNING = "app_not_running"
    NO_ASSERTIONS = "no_assertions"
    HELD_BEFORE_FLOW = "held_before_flow"
    # the replay and the heal
    DRIFT = "drift"
    HEAL_LIMIT = "heal_limit"
    UNKNOWN_OUTCOME = "unknown_outcome"
    REFUSED = "refused"
    # Smart and the model
    MODEL = "model"
    BUDGET = "budget"
    BLOCKED = "blocked"
    # the check, the run, the machine
    USAGE = "usage"
    DEVICE = "device"
    STOPPED = "stopped"
    INTERNAL = "internal"
    ENVIRONMENT = "environment"
    SIMULATOR = "simulator"
    WDA = "wda"
    INSTALL = "install"
    LAUNCH = "launch"
    BUSY = "busy"


@attrs.frozen
class Outcome:
    """A check's verdict, its failure class (None exactly when it passed) and a one-line message."""

    verdict: Verdict = attrs.field(converter=Verdict)
    failure_class: FailureClass | None = None
    message: str = ""

    def __attrs_post_init__(self) -> None:
        if (self.verdict is Verdict.PASSED) != (self.failure_class is None):
            raise ValueError("a passed outcome has no failure class, and every other outcome has one")

    @property
    def exit_code(self) -> int:
        """The verdict's exit code (Rule 6)."""
        return self.verdict.exit_code


def decide(
    *,
    assertions: Sequence[Assertion],
    results: Sequence[AssertionResult],
    baseline_results: Sequence[AssertionResult] | None,
    app_in_front: str,
    app_bundle: str,
) -> Outcome:
    """The outcome of a run whose steps all ran (Rule 5).

    ``results`` are the assertions evaluated on the settled read, in order. ``baseline_results``
    are the same assertions evaluated on the baseline, or None when the check has no steps or no
    baseline was taken. ``app_in_front`` is the bundle id in front at the end.
    """
    if len(results) != len(assertions):
        raise ValueError(f"{len(results)} results for {len(assertions)} assertions: evaluate every assertion")
    if app_in_front != app_bundle:
        return Outcome(
            Verdict.FAILED,
            FailureClass.APP_NOT_RUNNING,
            f"{app_in_front} is in front, not {app_bundle}: the app crashed or the flow left it",
        )
    # An assertion that couldn't be evaluated (its regex hit a time limit) is no failure of the
    # app: a check with one fails only when another assertion failed for sure, else it couldn't run.
    failures = [r for r in results if not r.ok and r.error is None]
    unevaluated = [r for r in results if r.error is not None]
    if failures:
        first = failures[0]
        more = f" (and {len(failures) - 1} more failed)" if len(failures) > 1 else ""
        if unevaluated:
            more += f" ({len(unevaluated)} couldn't be evaluated)"
        return Outcome(Verdict.FAILED, FailureClass.ASSERTION, f"{first.text} failed: {first.observed}{more}")
    if unevaluated:
        return Outcome(Verdict.COULDNT_RUN, FailureClass.USAGE, str(unevaluated[0].error))
    if not assertions:
        return Outcome(
            Verdict.NEEDS_REVIEW,
            FailureClass.NO_ASSERTIONS,
            "the check has no expectations, so nothing decides it; add an expect list",
        )
    if baseline_results and all(r.ok for r in baseline_results):
        return Outcome(
            Verdict.NEEDS_REVIEW,
            FailureClass.HELD_BEFORE_FLOW,
            f"all {len(assertions)} expectations already held before the first step, so the run shows "
            "nothing the steps did; add an expectation that only holds after them",
        )
    return Outcome(Verdict.PASSED)


def suite_exit_code(verdicts: Iterable[Verdict]) -> int:
    """1 if any check failed, else 3 if any couldn't run, else 2 if any needs review, else 0."""
    seen = set(verdicts)
    for verdict in (Verdict.FAILED, Verdict.COULDNT_RUN, Verdict.NEEDS_REVIEW):
        if verdict in seen:
            return verdict.exit_code
    return 0


# -- the settled read (Rules 2-4) -----------------------------------------------------------


class ReadAction(enum.StrEnum):
    """What the runner does next: read now, sleep until a time, or stop (the last read decides)."""

    READ = "read"
    SLEEP = "sleep"
    DONE = "done"


@attrs.frozen
class ReadDecision:
    """``READ`` now; ``SLEEP`` until ``until`` (clock seconds); or ``DONE``, with ``stable``."""

    action: ReadAction
    until: float = 0.0
    stable: bool = False


@attrs.frozen
class ReadState:
    """What the settled read has seen so far. Immutable: :meth:`observe` returns a new state.

    ``settled`` says the last two reads agreed; ``accepted`` that the caller's ``accept`` held on
    the last read (always true without one).
    """

    began: float
    reads: int = 0
    last_started: float = 0.0
    last_fingerprint: str | None = None
    settled: bool = False
    accepted: bool = False

    def observe(self, *, started: float, fingerprint: str, accepted: bool = True) -> ReadState:
        """Fold in one read that started at ``started`` (clock seconds)."""
        return ReadState(
            began=self.began,
            reads=self.reads + 1,
            last_started=started,
            last_fingerprint=fingerprint,
            settled=self.last_fingerprint == fingerprint,
            accepted=accepted,
        )


@attrs.frozen
class ReadPolicy:
    """The timing of a settled read, in seconds (Rule 2). The defaults are SPEC §11's."""

    settle_gap: float = attrs.field(default=0.3, validator=attrs.validators.gt(0))
    interval: float = attrs.field(default=0.5, validator=attrs.validators.gt(0))
    timeout: float = attrs.field(default=5.0, validator=attrs.validators.ge(0))

    def start(self, now: float) -> ReadState:
        """A new settled read that begins at ``now``."""
        return ReadState(began=now)

    def next(self, state: ReadState, now: float) -> ReadDecision:
        """Decide what to do after the reads in ``state`` (Rules 2 and 3)."""
        if state.reads == 0:
            return ReadDecision(ReadAction.READ)
        if state.settled and state.accepted:
            return ReadDecision(ReadAction.DONE, stable=True)
        deadline = state.began + self.timeout
        if state.reads >= 2 and state.last_started + _SLACK >= deadline:
            return ReadDecision(ReadAction.DONE, stable=state.settled)
        if state.reads == 1:
            at = state.last_started + self.settle_gap
        else:  # the last read is taken at the deadline, not after it
            at = min(state.last_started + self.interval, deadline)
        if at <= now + _SLACK:
            return ReadDecision(ReadAction.READ)
        return ReadDecision(ReadAction.SLEEP, until=at)


#: The settled read after the steps: 0.3 s to settle, then every 0.5 s up to 5 s.
DEFAULT_READ_POLICY = ReadPolicy()
#: The baseline before the first step: every 0.3 s for at most 3 s (Rule 4).
BASELINE_POLICY = ReadPolicy(settle_gap=0.3, interval=0.3, timeout=3.0)


@attrs.frozen
class SettledRead:
    """The read that decides: the screen, whether it was settled, how many reads, how long (s)."""

    screen: Screen
    stable: bool
    reads: int
    seconds: float


async def settled_read(
    device: Device,
    clock: Clock,
    policy: ReadPolicy = DEFAULT_READ_POLICY,
    *,
    accept: Callable[[Screen], bool] | None = None,
) -> SettledRead:
    """Read the screen until it settles or the policy's timeout passes (Rules 2, 3 and 4a).

    A read that fails raises the device's error (``DeviceError``); nothing is retried here.
    """
    read = device.read_evidence if isinstance(device, EvidenceReads) else device.read
    began = clock.now()
    state = policy.start(began)
    screen = await read()
    state = state.observe(started=began, fingerprint=screen.fingerprint, accepted=_holds(accept, screen))
    while (decision := policy.next(state, clock.now())).action is not ReadAction.DONE:
        if decision.action is ReadAction.SLEEP:
            await clock.sleep(decision.until - clock.now())
            continue
        started = clock.now()
        screen = await read()
        state = state.observe(started=started, fingerprint=screen.fingerprint, accepted=_holds(accept, screen))
    return SettledRead(screen=screen, stable=decision.stable, reads=state.reads, seconds=clock.now() - began)


def _holds(accept: Callable[[Screen], bool] | None, screen: Screen) -> bool:
    return True if accept is None else accept(screen)
