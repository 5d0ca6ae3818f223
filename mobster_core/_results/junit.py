"""``junit.xml``: a suite's results as JUnit (the results' Rule 2).

Rule 2: ``junit.xml`` has one testcase per check and device: a failure, error or skipped element
        by verdict, whose text names the step where it stopped; ``system-out`` lists every step
        with who did it (replayed, healed, Smart, live) and the heals, the assertions, and the
        run's ``report.html`` as ``[[ATTACHMENT|.mobster/runs/<run_id>/report.html]]`` (the
        form Jenkins' JUnit attachments and GitLab read; the path is relative to the project).
        It stays well-formed whatever a label or a check name holds: characters XML 1.0 forbids
        are removed (``_rules/formats/text.xml_text``); and valid against Jenkins' ``junit-10.xsd``, so a
        testcase holds only what that schema lets it (no ``<properties>``: the testsuite's hold
        the suite's facts, ``mobster.flaky`` and ``mobster.retried``, counts, always written;
        a time is a number of seconds, 0 or more, with three decimals).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from mobster_core._rules.formats.text import xml_text
from mobster_core._rules.verdict.verdict import Verdict

from .parts import StepReport, StepSource
from .results import CheckResult, SuiteResult

__all__ = ["junit_xml"]


def junit_xml(suite: SuiteResult) -> bytes:
    """Rule 2's ``junit.xml``: valid JUnit, one testcase per check and device."""
    counts = {v: sum(1 for c in suite.checks if c.verdict is v) for v in Verdict}
    root = ET.Element("testsuites", name="mobster", tests=str(len(suite.checks)), time=_time(suite.seconds))
    ts = ET.SubElement(
        root,
        "testsuite",
        name="mobster test",
        tests=str(len(suite.checks)),
        failures=str(counts[Verdict.FAILED]),
        errors=str(counts[Verdict.COULDNT_RUN]),
        skipped=str(counts[Verdict.NEEDS_REVIEW]),
        time=_time(suite.seconds),
        timestamp=xml_text(suite.started_at.removesuffix("Z")),
    )
    props = ET.SubElement(ts, "properties")
    ET.SubElement(props, "property", name="mobster.flaky", value=str(suite.flaky))
    ET.SubElement(props, "property", name="mobster.retried", value=str(sum(1 for c in suite.checks if c.retried)))
    for c in suite.checks:
        _testcase(ts, c)
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def _time(seconds: float) -> str:
    """Seconds as ``junit-10.xsd`` writes a time (``1.250``): a value that is no time (NaN, negative) is 0."""
    return f"{seconds:.3f}" if math.isfinite(seconds) and seconds > 0 else "0.000"  # never "-0.000"


def _testcase(suite: ET.Element, c: CheckResult) -> None:
    x = xml_text
    device = "no device" if c.device is None else f"{c.device.name}, {c.device.os_text}"
    if c.device_label is not None:  # one testcase per check and device: the pool's name tells them apart
        device = c.device_label if c.device is None else f"{c.device_label} ({device})"
    run = "" if c.repeat is None else f" (run {c.repeat[0]} of {c.repeat[1]})"
    case = ET.SubElement(
        suite, "testcase", classname=x(c.file), name=x(f"{c.name} on {device}{run}"), time=_time(c.seconds)
    )
    _attempts(case, c)
    cls = "" if c.outcome.failure_class is None else c.outcome.failure_class.value
    message = x(c.outcome.sentence)
    body = x(f"{message}\n{_where(c)}".rstrip())
    if c.verdict is Verdict.FAILED:
        ET.SubElement(case, "failure", message=message, type=cls).text = body
    elif c.verdict is Verdict.COULDNT_RUN:
        ET.SubElement(case, "error", message=message, type=cls).text = body
    elif c.verdict is Verdict.NEEDS_REVIEW:
        ET.SubElement(case, "skipped", message=f"needs review ({cls}): {message}")
    mode = "none (no step ran)" if c.mode is None else c.mode.value
    lines = [f"mode: {mode}, model calls: {c.model_calls}, cost: {c.cost.text(4)}", *_attempt_lines(c)]
    if c.carried_from is not None:
        lines.append(f"carried the path from {c.carried_from}")
    lines += [_step_line(s) for s in c.steps]
    lines += [f"healed step {h.step}: {h.from_} -> {h.to} ({h.why})" for h in c.heals]
    lines += [f"{'ok' if a.ok else 'FAILED'}: {a.text}: {a.observed}" for a in c.assertions]
    if c.run_dir:
        lines.append(f"[[ATTACHMENT|{c.run_dir}/report.html]]")
    ET.SubElement(case, "system-out").text = x("\n".join(lines))


def _attempts(case: ET.Element, c: CheckResult) -> None:
    """Rule 7 in JUnit, as Maven Surefire writes its reruns: each earlier attempt as an element of its own.

    ``<flakyError>`` when the check passed on a retry, ``<rerunError>`` when it never passed (the
    ``...Failure`` forms for an attempt that failed: an attempt that couldn't run is a JUnit error,
    Rule 2), with its message and class, a ``stackTrace`` saying which attempt and where, and its
    run's report in ``system-out``; ``junit-10.xsd`` allows these four inside a testcase. The
    testcase's own ``system-out`` says the same in words (:func:`_attempt_lines`), for the readers
    that know only ``system-out``.
    """
    if not c.retried:
        return
    x = xml_text
    kind = "flaky" if c.flaky else "rerun"
    for n, a in enumerate(c.attempts[:-1], start=1):
        cls = "" if a.failure_class is None else a.failure_class.value
        tag = kind + ("Failure" if a.verdict is Verdict.FAILED else "Error")
        element = ET.SubElement(case, tag, message=x(a.message), type=cls)
        where = f" on {a.device_label}" if a.device_label else ""
        ET.SubElement(element, "stackTrace").text = x(f"attempt {n} of {len(c.attempts)}{where}: {a.message}")
        if a.run_dir:
            ET.SubElement(element, "system-out").text = x(f"[[ATTACHMENT|{a.run_dir}/report.html]]")


def _attempt_lines(c: CheckResult) -> list[str]:
    """Rule 7 in a testcase's ``system-out``: how many attempts, flaky or never passed, then each earlier one."""
    if not c.retried:
        return []
    said = "flaky: passed on a retry" if c.flaky else "never passed"
    lines = [f"attempts: {len(c.attempts)} ({said})"]
    for n, a in enumerate(c.attempts[:-1], start=1):
        where = f" on {a.device_label}" if a.device_label else ""
        cls = "" if a.failure_class is None else f" ({a.failure_class.value})"
        lines.append(f"attempt {n} of {len(c.attempts)}{where}: {a.verdict.value}{cls}: {a.message}")
    return lines


_SAID = {StepSource.REPLAY: "replayed", StepSource.HEALED: "healed", StepSource.SMART: "Smart", StepSource.LIVE: "live"}


def _step_line(s: StepReport) -> str:
    """``step 2 replayed: Tap "Next" (waited 0.23 s, 100% alike)``; a drifted step says why."""
    if s.reason is not None:
        return f"{_named(s)} drifted: {s.text}: {s.reason}"
    alike = "" if s.similarity is None else f", {int(s.similarity * 100 + 1e-9)}% alike"
    return f"{_named(s)} {_SAID[s.source]}: {s.text} (waited {s.waited_s:.2f} s{alike})"


def _named(s: StepReport) -> str:
    """``step 4``; a flow's step with its breadcrumb: ``step 2 (login \u203a step 2)``."""
    if s.flow is None:
        return f"step {s.index}"
    return f"step {s.index} ({s.flow}" + ("" if s.flow_step is None else f" \u203a step {s.flow_step}") + ")"


def _where(c: CheckResult) -> str:
    """Rule 2: the step where a run that didn't pass stopped, in words ("" when no step ran)."""
    drifted = [s for s in c.steps if s.reason is not None]
    if drifted:
        s = drifted[-1]
        return f"stopped at {s.crumb}: {s.reason}"
    if c.steps:
        s = c.steps[-1]
        return f"after {s.crumb}, the last that ran"
    return "before the first step"
