"""From a check's result to what pytest shows: the exception, the file and line, the detail lines.

Rule 1: a passed result raises nothing. ``failed`` and ``needs_review`` are :class:`CheckFailed`;
        ``couldnt_run`` is :class:`CheckCouldntRun`, except class ``unknown_outcome``, which is
        :class:`CheckOutcomeUnknown` (``_errors``' rules say why the three are apart).
Rule 2: the line is that of what failed, in the check file: the step the outcome ended at (its
        ``step``, or the step that drifted), the first failed assertion (its ``line``), the bad key
        of a check file that doesn't load; else the first line. A check built in code has no file
        to point at: the fixture gives it the line that built it (:func:`located`, ``_fixture``'s
        Rule 3). Every part of it comes from the result's fields, never from its message.
Rule 3: text from outside (a label, a check's name, a message) is shown with its control
        characters as escapes, so nothing a device or a file holds can recolour the terminal or
        forge a line of pytest's report.
Rule 4: the message is the core's, then its fix spelled with the plugin's options (``_fixes``).
"""

from __future__ import annotations

from pathlib import Path

from mobster_core import CheckResult, FailureClass, Verdict
from mobster_core.checks import Check
from mobster_core.exceptions import CheckError, UnsafeFile
from mobster_core.files import MOBSTER_DIR, read_user_file
from mobster_core.text import escape_controls
from mobster_core.yaml import MAX_YAML_BYTES, YamlProblem, load_yaml

from ._errors import CheckCouldntRun, CheckFailed, CheckNotPassed, CheckOutcomeUnknown
from ._fixes import said

__all__ = ["couldnt", "exception_for", "failed_step", "located", "shown_path", "usage_error"]

#: Classes of a failed verdict whose line is the first failed assertion's.
_ASSERTION_CLASSES = frozenset({FailureClass.ASSERTION, FailureClass.REFUSED, FailureClass.BLOCKED})
#: The most assertion lines the failure shows; the run folder's result.json has them all.
MAX_ASSERTION_LINES = 5


def shown_path(path: Path, rootdir: Path) -> str:
    """``path`` as pytest shows node ids: relative to the root folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(rootdir.resolve()))
    except (ValueError, OSError):
        return str(path)


def _exception_type(verdict: Verdict, failure_class: FailureClass | None) -> type[CheckNotPassed]:
    if verdict is Verdict.COULDNT_RUN:
        return CheckOutcomeUnknown if failure_class is FailureClass.UNKNOWN_OUTCOME else CheckCouldntRun
    return CheckFailed


def exception_for(result: CheckResult, check: Check, *, root: Path, rootdir: Path) -> CheckNotPassed | None:
    """Rule 1's exception for ``result`` (None when it passed), located by Rule 2.

    ``root`` is the project the check ran in (its run folder is relative to it); ``rootdir``
    pytest's root folder, which the paths shown are relative to.
    """
    outcome = result.outcome
    if outcome.verdict is Verdict.PASSED or outcome.failure_class is None:
        return None
    cls = _exception_type(outcome.verdict, outcome.failure_class)
    return cls(
        outcome.verdict.value,
        outcome.failure_class.value,
        escape_controls(said(outcome)),
        where=_where(result, check, rootdir),
        result=result,
        details=tuple(_details(result, root, rootdir)),
    )


def couldnt(failure_class: FailureClass, message: str, *, where: str | None = None) -> CheckNotPassed:
    """A check that couldn't start (no device, no model): no result, no run folder."""
    cls = _exception_type(Verdict.COULDNT_RUN, failure_class)
    return cls(Verdict.COULDNT_RUN.value, failure_class.value, escape_controls(message), where=where)


def located(error: CheckNotPassed, where: str) -> CheckNotPassed:
    """``error`` again, at ``where`` (``file:line``): the same type, verdict, class, message, result and details."""
    return type(error)(
        error.verdict, error.failure_class, error.message, where=where, result=error.result, details=error.details
    )


def usage_error(exc: CheckError, path: Path, rootdir: Path) -> CheckNotPassed:
    """A check file that doesn't load: ``couldnt_run``, class ``usage``, at the bad key's line."""
    shown = shown_path(path, rootdir)
    where = shown if exc.line is None else f"{shown}:{exc.line}"
    # The headline says the file and line once: the message is the loader's without them.
    return couldnt(FailureClass.USAGE, exc.detail, where=where)


def _where(result: CheckResult, check: Check, rootdir: Path) -> str | None:
    """Rule 2: ``file:line`` of what failed."""
    path = check.file
    if not path.is_file():
        return None  # a check built in code
    shown = shown_path(path, rootdir)
    line = _failed_line(result, check)
    return f"{shown}:{line or 1}"


def _failed_line(result: CheckResult, check: Check) -> int | None:
    failed = [a for a in result.assertions if not a.ok and a.error is None]
    if result.outcome.failure_class in _ASSERTION_CLASSES and failed and failed[0].line is not None:
        return failed[0].line
    step = failed_step(result)
    if step is None:
        return None
    try:  # read again as the loader read it: a regular file, bounded, never waiting on a FIFO swapped in
        raw = read_user_file(check.file, max_bytes=MAX_YAML_BYTES, follow=MOBSTER_DIR not in check.file.parts)
        doc = load_yaml(raw, str(check.file))
    except (OSError, UnsafeFile, YamlProblem):
        return None
    if isinstance(doc.data, dict) and isinstance(doc.data.get("steps"), list):
        return doc.line(("steps", step - 1))
    return doc.line(("steps",))


def failed_step(result: CheckResult) -> int | None:
    """The step the run ended at (``Outcome.step``), else the step that drifted; None when neither."""
    if result.outcome.step is not None:
        return result.outcome.step
    for report in reversed(result.steps):
        if report.reason is not None:
            return report.index
    return None


def _details(result: CheckResult, root: Path, rootdir: Path) -> list[str]:
    """The lines under the headline: the device and the run, failed assertions, heals."""
    v = escape_controls
    lines = []
    device = "no device" if result.device is None else f"{v(result.device.name)}, {v(result.device.os_text)}"
    mode = "none (no step ran)" if result.mode is None else result.mode.value
    lines.append(
        f"on {device}; mode {mode}; {result.model_calls} model "
        f"call{'s' if result.model_calls != 1 else ''}, {result.cost_text}"
    )
    failed = [a for a in result.assertions if not a.ok]
    lines += [f"{'could not evaluate' if a.error else 'failed'}: {v(a.text)}: {v(a.observed)}" for a in failed][
        :MAX_ASSERTION_LINES
    ]
    lines += [f"healed step {h.step}: {v(h.from_)} -> {v(h.to)}" for h in result.heals]
    if result.run_dir:
        lines.append(f"run folder: {v(shown_path(root / result.run_dir, rootdir))}")
    return lines
