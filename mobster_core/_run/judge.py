"""The settled reads a check is judged on: the baseline before the first step, and the verdict.

Rule 1: both are the settled read of ``_rules/replay/settle`` (Rules 5 and 5a), driven by the one wait
        loop: the verdict's with the default timing and ``accept`` (every assertion holds), the
        baseline's with ``BASELINE_POLICY``.
Rule 2: they settle on the run's fast reads (``Dispatcher.read_to_judge``: the device's ``read``, the
        one every poll makes), tried once more when one fails; a read that fails twice is
        ``couldnt_run``, class ``device``. What is judged is then one *evidence read* on a device
        that has them (``EvidenceReads``: the read that keeps the phone's own visibility of each
        element, 0.7 s against 0.1 s on a 150-element WDA screen): the verdict's assertions are
        evaluated on it, and so are the baseline's when they all held on its settled read (the
        only baseline that can change a verdict). A device without evidence reads is judged on the
        settled read itself.
Rule 3: the baseline is taken only for a check with steps and expectations, and counts only when
        it settled. Its first read decides alone when it shows the app under test in front and an
        expectation fails on it (Rule 5a: no second read; the baseline then can't make the check
        ``needs_review``). Its last read is where the first step's wait (or Smart's first turn)
        starts.
Rule 4: the verdict is :func:`~mobster_core._rules.verdict.verdict.decide` on the assertions evaluated on the
        verdict's read, never a model's word; what Smart said only picks the class of a failure.
Rule 5: after an action no read has seen yet (a replay's last step), the verdict's reads come every
        0.15 s until one shows another screen on which every assertion holds (Rule 5a), then
        settle as Rule 1 says.
Rule 6: a check with ``accessibility_audit`` assertions has the device audit the verdict's settled
        screen once, after the read (``protocols.Audits``; one call for every type any of them
        names): the assertions that need no audit decide when the read settles, the audit is a
        device fact about that screen. A device without the ability can't audit (the assertion
        can't run, class ``environment``); an audit that fails is ``couldnt_run``, class ``device``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from mobster_core._rules.assertions import Assertion, AssertionResult, Kind, evaluate
from mobster_core._rules.device.controls import AuditReport
from mobster_core._rules.replay.settle import (
    BASELINE_POLICY,
    DEFAULT_READ_POLICY,
    Opening,
    ReadPolicy,
    SettledRead,
    SettledReadWait,
)
from mobster_core._rules.verdict.verdict import FailureClass, Grounds, Outcome, SmartNote, decide
from mobster_core._rules.vocabulary.screen import Screen
from mobster_core.exceptions import DeviceError
from mobster_core.protocols import Audits, Clock

from .context import Run
from .ended import couldnt
from .wait import Reader, drive

__all__ = ["Baseline", "Judged", "holds", "judge", "settled_read", "take_baseline"]


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
    opening: Opening | None = None,
) -> SettledRead:
    """Read until the screen settles or the policy's timeout passes (Rule 1; ``opening``: Rule 5a)."""
    return await drive(SettledReadWait(policy, accept, opening or Opening()), clock, read)


def holds(expect: Sequence[Assertion]) -> Callable[[Screen], bool]:
    """Whether every assertion on the tree holds on a read (an audit is asked once it settled, Rule 6)."""
    on_tree = tuple(a for a in expect if a.kind is not Kind.ACCESSIBILITY_AUDIT)
    return lambda screen: all(r.ok for r in evaluate(on_tree, screen))


async def take_baseline(run: Run) -> Baseline | None:
    """Rule 3: the settled read before the first step, or None when the check needs none."""
    check = run.check
    if check.launch_only or not check.expect:
        return None
    dispatch, bundle, held = run.dispatch, run.bundle, holds(check.expect)
    opening = Opening(alone=lambda screen: screen.app == bundle and not held(screen))
    read = await settled_read(
        lambda: dispatch.read_to_judge("the baseline"), run.clock, BASELINE_POLICY, opening=opening
    )
    if not read.stable:
        return Baseline(None, read)
    results = evaluate(check.expect, read.screen)
    if all(r.ok for r in results) and dispatch.has_evidence_reads:
        results = evaluate(check.expect, await dispatch.read_evidence("the baseline"))
    return Baseline(results, read)


async def judge(run: Run, baseline: Baseline | None, smart: SmartNote | None, skipped: str | None = None) -> Judged:
    """Rules 1, 2, 4, 5 and 6: the verdict on one settled read (an evidence read where the device has them).

    ``skipped``: the steps left undone, in words.
    """
    expect, dispatch = run.check.expect, run.dispatch
    opening = Opening(after=dispatch.acted_on, poll=run.options.timing)
    read = await settled_read(
        lambda: dispatch.read_to_judge("the verdict"), run.clock, accept=holds(expect), opening=opening
    )
    screen = await dispatch.read_evidence("the verdict") if dispatch.has_evidence_reads else read.screen
    results = evaluate(expect, screen, await _audit(run, expect))
    grounds = Grounds(results, screen.app, None if baseline is None else baseline.results, smart, skipped)
    return Judged(decide(expect, grounds, run.bundle), results, read.stable)


#: Rule 6: what a device without the ``Audits`` ability says.
NO_AUDIT = "this device can't run Apple's accessibility audit (WebDriverAgent, Appium or the scripted phone can)"


async def _audit(run: Run, expect: tuple[Assertion, ...]) -> AuditReport | None:
    """Rule 6: the device's audit of the screen in front, once; None when no assertion needs one."""
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
