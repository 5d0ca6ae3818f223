"""The settled reads a check is judged on: the baseline before the first step, and the verdict.

Rule 1: both are the settled read of ``_rules/settle.py`` (Rule 5), driven by the one wait loop:
        the verdict's with the default timing and ``accept`` (every assertion holds), the
        baseline's with ``BASELINE_POLICY``.
Rule 2: every read of them is the run's judging read (``Dispatcher.read_evidence``): the device's
        *evidence read* when it has one (``EvidenceReads``: the read that keeps the phone's own
        visibility of each element), tried once more when it fails, like every read of a run. A
        read that fails twice is ``couldnt_run``, class ``device``.
Rule 3: the baseline is taken only for a check with steps and expectations, and counts only when
        it settled. Its last read is where the first step's wait (or Smart's first turn) starts.
Rule 4: the verdict is :func:`~mobster_core._rules.verdict.decide` on the assertions evaluated on the
        verdict's read, never a model's word; what Smart said only picks the class of a failure.
Rule 5: a check with ``accessibility_audit`` assertions has the device audit the verdict's settled
        screen once, after the read (``protocols.Audits``; one call for every type any of them
        names): the assertions that need no audit decide when the read settles, the audit is a
        device fact about that screen. A device without the ability can't audit (the assertion
        can't run, class ``environment``); an audit that fails is ``couldnt_run``, class ``device``.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from mobster_core._rules.assertions import Assertion, AssertionResult, Kind, evaluate
from mobster_core._rules.controls import AuditReport
from mobster_core._rules.screen import Screen
from mobster_core._rules.settle import BASELINE_POLICY, DEFAULT_READ_POLICY, ReadPolicy, SettledRead, SettledReadWait
from mobster_core._rules.verdict import Evidence, FailureClass, Outcome, SmartNote, decide
from mobster_core.exceptions import DeviceError
from mobster_core.protocols import Audits, Clock

from .context import Run
from .ended import couldnt
from .wait import Reader, drive

__all__ = ["Baseline", "Judged", "judge", "settled_read", "take_baseline"]


@attrs.frozen
class Baseline:
    """The baseline (Rule 3): the assertions on it (None when it didn't settle), and its read."""

    results: tuple[AssertionResult, ...] | None
    read: SettledRead


@attrs.frozen
class Judged:
    """The verdict: the outcome, the assertions on the read that decided, and whether it settled."""

    outcome: Outcome
    assertions: tuple[AssertionResult, ...]
    stable: bool


async def settled_read(
    read: Reader,
    clock: Clock,
    policy: ReadPolicy = DEFAULT_READ_POLICY,
    *,
    accept: Callable[[Screen], bool] | None = None,
) -> SettledRead:
    """Read until the screen settles or the policy's timeout passes (Rule 1)."""
    return await drive(SettledReadWait(policy, accept), clock, read)


async def take_baseline(run: Run) -> Baseline | None:
    """Rule 3: the settled read before the first step, or None when the check needs none."""
    check = run.check
    if check.launch_only or not check.expect:
        return None
    read = await settled_read(lambda: run.dispatch.read_evidence("the baseline"), run.clock, BASELINE_POLICY)
    return Baseline(evaluate(check.expect, read.screen) if read.stable else None, read)


async def judge(run: Run, baseline: Baseline | None, smart: SmartNote | None) -> Judged:
    """Rules 1, 2 and 4: the verdict on one settled read."""
    expect = run.check.expect
    on_tree = tuple(a for a in expect if a.kind is not Kind.ACCESSIBILITY_AUDIT)
    read = await settled_read(
        lambda: run.dispatch.read_evidence("the verdict"),
        run.clock,
        accept=lambda s: all(r.ok for r in evaluate(on_tree, s)),
    )
    results = evaluate(expect, read.screen, await _audit(run, expect))
    evidence = Evidence(results, read.screen.app, None if baseline is None else baseline.results, smart)
    return Judged(decide(expect, evidence, run.bundle), results, read.stable)


#: Rule 5: what a device without the ``Audits`` ability says.
NO_AUDIT = "this device can't run Apple's accessibility audit (WebDriverAgent, Appium or the scripted phone can)"


async def _audit(run: Run, expect: tuple[Assertion, ...]) -> AuditReport | None:
    """Rule 5: the device's audit of the screen in front, once; None when no assertion needs one."""
    specs = [a.audit for a in expect if a.audit is not None]
    if not specs:
        return None
    if not isinstance(run.device, Audits):
        return AuditReport(unavailable=NO_AUDIT)
    types: tuple[str, ...] = ()
    if all(s.types for s in specs):
        types = tuple(dict.fromkeys(t for s in specs for t in s.types))
    try:
        return await run.device.audit(types)
    except DeviceError as exc:
        raise couldnt(FailureClass.DEVICE, f"the accessibility audit failed: {exc}") from exc
