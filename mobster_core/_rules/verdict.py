"""The verdict: the settled read, and how a run's observations become passed, failed, or neither.

Rule 1: the verdict comes from assertions on one settled read of the accessibility tree, never
        from a model; what a model says about its own run is never an input.
Rule 2: the read that decides is a settled read (the timing is ``_rules/settle.py``'s Rule 5;
        the runner takes it with the device's evidence read when it has one). A settled read
        decides early only when every assertion holds on it (Mobster's "a settled read that
        satisfies every assertion"): a slow screen may still finish loading. The baseline (only
        for a check with steps) counts as taken only when it settled.
Rule 5: :func:`decide` picks the outcome, first matching rule wins: ``failed``
        ``app_not_running`` (the app under test is not in front at the end); ``failed``
        ``assertion`` (an assertion failed); ``needs_review`` ``no_assertions``; ``needs_review``
        ``held_before_flow`` (every assertion already held on the baseline); else ``passed``.
        Classes that come before these (``usage``, ``model``, ``device``, ``drift``, …) are decided
        by the runner before it asks for a verdict.
Rule 6: exit codes: ``passed`` 0, ``failed`` 1, ``needs_review`` 2, ``couldnt_run`` 3. A suite
        exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs review, else 0.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

import attrs

from .assertions import Assertion, AssertionResult

__all__ = ["FailureClass", "Outcome", "Verdict", "decide", "suite_exit_code"]


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
