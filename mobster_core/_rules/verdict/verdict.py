"""The verdict: the settled read, and how a run's observations become passed, failed, or neither.

Rule 1: the verdict comes from assertions on one settled read of the accessibility tree, never
        from a model; what a model says about its own run is never an input.
Rule 2: the read that decides is a settled read (the timing is ``_rules/replay/settle``'s Rule 5;
        the runner takes it with the device's evidence read when it has one). A settled read
        decides early only when every assertion holds on it (Mobster's "a settled read that
        satisfies every assertion"): a slow screen may still finish loading. The baseline (only
        for a check with steps) counts as taken only when it settled.
Rule 5: :func:`decide` picks the outcome, first matching rule wins: ``failed``
        ``app_not_running`` (the app under test is not in front at the end); ``failed``
        ``assertion`` (an assertion failed), or ``refused`` when Smart had an action refused by
        the safety rules, or ``blocked`` when Smart said it was blocked (what Smart said picks the
        class and leads the message; it never decides the verdict); ``couldnt_run`` ``usage``
        (an assertion couldn't be evaluated, and none failed for sure); ``failed``
        ``steps_skipped`` (the check asks for all its steps and the run ended before its last
        one, the expectations holding: ``Grounds.skipped`` says which); ``needs_review``
        ``no_assertions``; ``needs_review`` ``held_before_flow`` (every assertion already held on
        the baseline); else ``passed``. Classes that come before these (``usage``, ``model``,
        ``device``, ``drift``, …) end a run before it asks for a verdict, where they happen.
        An assertion the device can't serve (an ``accessibility_audit`` where it can't audit) is
        ``couldnt_run`` ``environment`` after ``usage``, and never a pass.
Rule 6: exit codes: ``passed`` 0, ``failed`` 1, ``needs_review`` 2, ``couldnt_run`` 3. A suite
        exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs review, else 0.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

import attrs

from mobster_core._rules.assertions import Assertion, AssertionResult

from .fixes import Fix, joined

__all__ = ["FailureClass", "Grounds", "Outcome", "SmartNote", "Verdict", "decide", "suite_exit_code"]


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
    #: The check asks for all its steps (``all_steps: true``) and the run ended before its last one.
    STEPS_SKIPPED = "steps_skipped"
    # the check, the run, the machine
    USAGE = "usage"
    DEVICE = "device"
    BUSY = "busy"
    ENVIRONMENT = "environment"
    STOPPED = "stopped"
    INTERNAL = "internal"


@attrs.frozen
class Outcome:
    """A check's verdict, its failure class (None exactly when it passed) and a one-line message.

    ``step`` is the step (from 1, as the result's ``steps[].index`` counts them) the run ended at,
    when it ended at one: the step that drifted, was refused, or whose action failed; None when
    it ended elsewhere (before the steps, in a model turn, at the verdict). ``fix`` is what to do
    about it (``_rules/verdict/fixes``), which each front end spells with its own options; the message
    never names one.
    """

    verdict: Verdict = attrs.field(converter=Verdict)
    failure_class: FailureClass | None = None
    message: str = ""
    step: int | None = attrs.field(default=None, kw_only=True)
    fix: Fix | None = attrs.field(default=None, kw_only=True)

    def __attrs_post_init__(self) -> None:
        if (self.verdict is Verdict.PASSED) != (self.failure_class is None):
            raise ValueError("a passed outcome has no failure class, and every other outcome has one")
        if self.step is not None and self.step < 1:
            raise ValueError(f"a step is counted from 1, got {self.step}")

    @property
    def sentence(self) -> str:
        """The message with the fix's neutral sentence (``fixes`` Rule 3): ``results.json``'s ``message``."""
        return joined(self.message, None if self.fix is None else self.fix.sentence)

    @property
    def exit_code(self) -> int:
        """The verdict's exit code (Rule 6)."""
        return self.verdict.exit_code


@attrs.frozen
class SmartNote:
    """What Smart said of its run that picks the class of a failed verdict (Rule 5).

    ``failure_class`` is ``refused`` or ``blocked``; ``message`` says why (``Tap "Buy" was
    refused: …``, ``the model was blocked: …``).
    """

    failure_class: FailureClass
    message: str


@attrs.frozen
class Grounds:
    """What a verdict is decided on (Rule 5).

    ``results`` are the assertions evaluated on the settled read, in order; ``app_in_front`` the
    bundle id in front at the end; ``baseline`` the same assertions evaluated on the baseline, or
    None when the check has no steps or no baseline was taken; ``smart`` what Smart said, when it
    ran and said something that picks the class.
    """

    results: tuple[AssertionResult, ...]
    app_in_front: str
    baseline: tuple[AssertionResult, ...] | None = None
    smart: SmartNote | None = None
    #: The steps not performed, in words, when the check asks for all of them (``all_steps``).
    skipped: str | None = None


def decide(assertions: Sequence[Assertion], grounds: Grounds, app_bundle: str) -> Outcome:
    """The outcome of a run whose steps all ran (Rule 5); ``app_bundle`` is the app under test."""
    results = grounds.results
    if len(results) != len(assertions):
        raise ValueError(f"{len(results)} results for {len(assertions)} assertions: evaluate every assertion")
    if grounds.app_in_front != app_bundle:
        return Outcome(
            Verdict.FAILED,
            FailureClass.APP_NOT_RUNNING,
            f"{grounds.app_in_front} is in front, not {app_bundle}: the app crashed or the flow left it",
        )
    # An assertion that couldn't be evaluated (its regex hit a time limit) is no failure of the
    # app: a check with one fails only when another assertion failed for sure, else it couldn't run.
    failures = [r for r in results if not r.ok and r.error is None and r.unavailable is None]
    unevaluated = [r for r in results if r.error is not None]
    unavailable = [r for r in results if r.unavailable is not None]
    if failures:
        return _failed(failures, unevaluated, grounds.smart)
    if unevaluated or unavailable:
        return _not_judged(unevaluated, unavailable)
    return _unfailed(assertions, grounds)


def _unfailed(assertions: Sequence[Assertion], grounds: Grounds) -> Outcome:
    """Rule 5, once no assertion failed and each was evaluated: steps skipped, nothing decided, or passed."""
    if grounds.skipped is not None:
        return Outcome(Verdict.FAILED, FailureClass.STEPS_SKIPPED, grounds.skipped)
    if not assertions:
        return Outcome(
            Verdict.NEEDS_REVIEW,
            FailureClass.NO_ASSERTIONS,
            "the check has no expectations, so nothing decides it; add an expect list",
        )
    if grounds.baseline and all(r.ok for r in grounds.baseline):
        return Outcome(
            Verdict.NEEDS_REVIEW,
            FailureClass.HELD_BEFORE_FLOW,
            f"all {len(assertions)} expectations already held before the first step, so the run shows "
            "nothing the steps did; add an expectation that only holds after them",
        )
    return Outcome(Verdict.PASSED)


def _not_judged(unevaluated: Sequence[AssertionResult], unavailable: Sequence[AssertionResult]) -> Outcome:
    """``couldnt_run``: ``usage`` for an assertion that couldn't be evaluated, else ``environment``."""
    if unevaluated:
        return Outcome(Verdict.COULDNT_RUN, FailureClass.USAGE, str(unevaluated[0].error))
    first = unavailable[0]
    return Outcome(Verdict.COULDNT_RUN, FailureClass.ENVIRONMENT, f"{first.text} can't run here: {first.unavailable}")


def _failed(
    failures: Sequence[AssertionResult], unevaluated: Sequence[AssertionResult], smart: SmartNote | None
) -> Outcome:
    first = failures[0]
    more = f" (and {len(failures) - 1} more failed)" if len(failures) > 1 else ""
    if unevaluated:
        more += f" ({len(unevaluated)} couldn't be evaluated)"
    message = f"{first.text} failed: {first.observed}{more}"
    if smart is None:
        return Outcome(Verdict.FAILED, FailureClass.ASSERTION, message)
    return Outcome(Verdict.FAILED, smart.failure_class, f"{smart.message}; {message}")


def suite_exit_code(verdicts: Iterable[Verdict]) -> int:
    """1 if any check failed, else 3 if any couldn't run, else 2 if any needs review, else 0."""
    seen = set(verdicts)
    for verdict in (Verdict.FAILED, Verdict.COULDNT_RUN, Verdict.NEEDS_REVIEW):
        if verdict in seen:
            return verdict.exit_code
    return 0
