"""How results look in a terminal (SPEC §12). Pure functions from results to lines of text."""

from __future__ import annotations

from collections.abc import Sequence

from mobster_core import CheckResult, SuiteResult, Verdict

__all__ = ["check_lines", "pending_line", "summary_line"]

_MARK = {
    Verdict.PASSED: "✓ passed",
    Verdict.FAILED: "✗ failed",
    Verdict.NEEDS_REVIEW: "? needs_review",
    Verdict.COULDNT_RUN: "! couldnt_run",
}
STYLE = {
    Verdict.PASSED: "green",
    Verdict.FAILED: "red",
    Verdict.NEEDS_REVIEW: "yellow",
    Verdict.COULDNT_RUN: "magenta",
}


def check_lines(result: CheckResult) -> list[str]:
    """The check's line and what follows it: heals, and why it didn't pass."""
    device = "" if result.device is None else f"  on {result.device.name}, iOS {result.device.ios}"
    lines = [f"{_MARK[result.verdict]}  {result.name}{device}"]
    lines += [f"    healed step {h.step}: {h.from_} → {h.to}" for h in result.heals]
    if result.verdict is not Verdict.PASSED:
        cls = result.outcome.failure_class
        lines.append(f"    {cls}: {result.outcome.message}" if cls is not None else f"    {result.outcome.message}")
    if result.carried_from and result.mode == "replay":
        lines.append(f"    carried the path from {result.carried_from}")
    if result.path_why and result.mode == "smart":
        lines.append(f"    recorded a new path: {result.path_why}")
    return lines


def _money(usd: float, estimated: bool) -> str:
    return f"{'~' if estimated and usd > 0 else ''}${usd:.2f}"


def summary_line(suite: SuiteResult) -> str:
    """``1 passed in 12 s, $0.00, 1 replayed with no model``."""
    counts = [(v, sum(1 for c in suite.checks if c.verdict is v)) for v in Verdict]
    parts = ", ".join(f"{n} {v.value}" for v, n in counts if n) or "no checks"
    replayed = sum(1 for c in suite.checks if c.mode == "replay" and c.model_calls == 0)
    cost = suite.cost
    line = f"{parts} in {round(suite.seconds)} s, {_money(cost.usd, cost.estimated)}"
    if replayed:
        line += f", {replayed} replayed with no model"
    return line


def pending_line(pending: int) -> str | None:
    """``1 healed step waits for review: mobster test heal``, or None."""
    if pending == 0:
        return None
    if pending == 1:
        return "1 healed step waits for review: mobster test heal"
    return f"{pending} healed steps wait for review: mobster test heal"


def heal_listing(name: str, entries: Sequence[tuple[int, str, str, str, list[str]]]) -> list[str]:
    """``mobster test heal``'s lines for one check: each heal with its screen difference."""
    lines = [f"{name}:"]
    for step, before, after, why, diff in entries:
        lines.append(f"  step {step}: {before} → {after}")
        lines.append(f"    why: {why}")
        lines.extend(f"    {d}" for d in diff)
    return lines
