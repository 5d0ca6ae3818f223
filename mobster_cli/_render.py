r"""How results look in a terminal. Pure functions from results to lines of text.

Rule 1: text that comes from outside (a check's name, a label, a message, a file name, a heal's
        description) goes through ``visible`` before it is printed: control characters and escape
        sequences show as escapes (``\x1b``), newlines as ``\n``, so untrusted text can't
        recolour or move the terminal's cursor, nor forge a line of its own. Print the lines with
        rich's markup off (``markup=False``): a label may hold ``[bold]``.
Rule 2: JSON printed on the terminal (``--json``) escapes what ``json.dumps`` leaves raw and a
        terminal acts on (DEL, the C1 controls, line and paragraph separators, bidi controls)
        as ``\uXXXX``: the same JSON value, shown safely.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mobster_core import CheckResult, SuiteResult, Verdict
from mobster_core.results import Mode, StepReport
from mobster_core.text import escape_controls, valid_text

from ._fixes import said

__all__ = [
    "attempt_lines",
    "check_lines",
    "heal_listing",
    "json_text",
    "pass_rate_lines",
    "pending_line",
    "summary_line",
    "visible",
]

# Rule 2: what json.dumps(ensure_ascii=False) leaves raw that a terminal acts on.
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")

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


def visible(text: object) -> str:
    """``text`` safe to print (Rule 1): every control character shown as an escape, newlines too."""
    return escape_controls(str(text))


def json_text(text: str) -> str:
    """JSON text from ``json.dumps`` made safe to print (Rule 2); it parses to the same value."""
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", valid_text(text))


def _in_flow(step: StepReport | None) -> str:
    """`` (login › step 3)`` for a flow's step, else nothing."""
    if step is None or step.flow is None:
        return ""
    at = "" if step.flow_step is None else f" › step {step.flow_step}"
    return f" ({visible(step.flow)}{at})"


def check_lines(result: CheckResult) -> list[str]:
    """The check's line and what follows it: heals, and why it didn't pass."""
    v = visible
    device = "" if result.device is None else f"  on {v(result.device.name)}, {v(result.device.os_text)}"
    if result.device_label is not None:  # a pool: which of its devices
        device = f"  on {v(result.device_label)}" + ("" if result.device is None else f" ({device.strip()[3:]})")
    run = "" if result.repeat is None else f"  (run {result.repeat[0]} of {result.repeat[1]})"
    flaky = "  (flaky)" if result.flaky else ""
    lines = [f"{_MARK[result.verdict]}  {v(result.name)}{device}{run}{flaky}"]
    lines += attempt_lines(result)
    crumbs = {s.index: s for s in result.steps if s.flow is not None}  # a flow's steps (docs/flows.md)
    lines += [f"    healed step {h.step}{_in_flow(crumbs.get(h.step))}: {v(h.from_)} → {v(h.to)}" for h in result.heals]
    early = result.finished_early
    if early is not None and result.verdict is Verdict.PASSED:  # a steps_skipped failure says it in its message
        lines.append(f"    {v(early.held)}")
    if result.verdict is not Verdict.PASSED:
        cls = result.outcome.failure_class
        message = v(said(result.outcome))  # the core's message, then its fix with this command's options
        lines.append(f"    {cls}: {message}" if cls is not None else f"    {message}")
        at = crumbs.get(result.outcome.step) if result.outcome.step is not None else None
        if at is not None:
            lines.append(f"    at {v(at.crumb)}")
    if result.carried_from and result.mode is Mode.REPLAY:
        lines.append(f"    carried the path from {v(result.carried_from)}")
    if result.path_why and result.mode is Mode.SMART:
        # A path is stored only when the verdict passed: say so only then.
        if result.verdict is Verdict.PASSED:
            lines.append(f"    recorded a new path: {v(result.path_why)}")
        else:
            lines.append(f"    ran with Smart ({v(result.path_why)}); no path was stored: the check didn't pass")
    return lines


def attempt_lines(result: CheckResult) -> list[str]:
    """A retried check's earlier attempts: ``attempt 1 of 2 on sim-1: device: …`` (none when it ran once)."""
    v = visible
    lines = []
    for n, a in enumerate(result.attempts[:-1], start=1):
        where = f" on {v(a.device_label)}" if a.device_label else ""
        cls = "" if a.failure_class is None else f"{a.failure_class}: "
        lines.append(f"    attempt {n} of {len(result.attempts)}{where}: {cls}{v(a.message)}")
    return lines


def pass_rate_lines(suite: SuiteResult) -> list[str]:
    """``pass rate: Sign up 2/3 (67%)``, one line per repeated check (and device)."""
    v = visible
    lines = []
    for r in suite.pass_rates:
        device = f" on {v(r.device_label)}" if r.device_label else ""
        lines.append(f"pass rate: {v(r.name)}{device} {r.passed}/{r.runs} ({round(r.rate * 100)}%)")
    return lines


def summary_line(suite: SuiteResult) -> str:
    """``2 passed (1 flaky) in 12 s, ~$0.01, 1 replayed with no model, 4 model calls``.

    ``~`` marks a cost that is partly estimated (``SuiteResult.cost_text``); "replayed" counts the
    checks that replayed their recorded path to the verdict with no model call
    (``SuiteResult.replayed_with_no_model``); "flaky" the checks that passed on a retry.
    """
    counts = [(v, sum(1 for c in suite.checks if c.verdict is v)) for v in Verdict]
    flaky = suite.flaky
    parts = (
        ", ".join(
            f"{n} {v.value}" + (f" ({flaky} flaky)" if v is Verdict.PASSED and flaky else "") for v, n in counts if n
        )
        or "no checks"
    )
    replayed = suite.replayed_with_no_model
    line = f"{parts} in {round(suite.seconds)} s, {suite.cost_text}"
    if replayed:
        line += f", {replayed} replayed with no model"
    calls = suite.model_calls
    return line + f", {calls} model call{'' if calls == 1 else 's'}"


def pending_line(pending: int) -> str | None:
    """``1 healed step waits for review: mobster test heal``, or None."""
    if pending == 0:
        return None
    if pending == 1:
        return "1 healed step waits for review: mobster test heal"
    return f"{pending} healed steps wait for review: mobster test heal"


def heal_listing(name: str, entries: Sequence[tuple[int, str, str, str, list[str]]]) -> list[str]:
    """``mobster test heal``'s lines for one check: each heal with its screen difference."""
    v = visible
    lines = [f"{v(name)}:"]
    for step, before, after, why, diff in entries:
        lines.append(f"  step {step}: {v(before)} → {v(after)}")
        lines.append(f"    why: {v(why)}")
        lines.extend(f"    {v(d)}" for d in diff)
    return lines
