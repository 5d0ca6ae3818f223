"""What runs return: a check's result, a suite's, and their stable forms.

Rule 1: :meth:`CheckResult.to_dict` is a check's entry of ``results.json`` (the ``mobster.test/1``
        contract, also each run's ``result.json``); :meth:`SuiteResult.to_dict` the whole document.
        Keys are never renamed or removed; new keys may be added (documented in ``docs/cli.md``).
        ``from_dict`` reads them back, typed (``_run/documents``): ``from_dict(r.to_dict()) == r``.
Rule 2: ``junit.xml`` has one testcase per check and device: a failure, error or skipped element
        by verdict, whose text names the step where it stopped; ``system-out`` lists every step
        with who did it (replayed, healed, Smart, live) and the heals, the assertions, and the
        run's ``report.html`` as ``[[ATTACHMENT|.mobster/runs/<run_id>/report.html]]`` (the
        form Jenkins' JUnit attachments and GitLab read; the path is relative to the project).
        It stays well-formed whatever a label or a check name holds: characters XML 1.0 forbids
        are removed (``_rules/text.xml_text``).
Rule 3: a suite exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs
        review, else 0.
Rule 4: what is derived from a result is defined here once, as a property, and every front end,
        report and file uses it: :attr:`CheckResult.replayed_with_no_model` (a check whose
        recorded path replayed to its verdict, passed or failed, with no model call: never one
        that drifted, couldn't run, was stopped or never started, nor one the model recorded,
        healed or typed in), :attr:`CheckResult.healed_steps` (the model's actions in its heals)
        and the cost in words (``cost_text``: ``$0.00``, ``~$0.02`` when estimated).
Rule 5: ``mode`` is how the steps ran, None until they did: a run that ended before its steps
        (no device, no model to record, a launch that failed) has no mode; a launch-only check
        that launched is ``launch``.
Rule 6: a run that passed (or failed only for it, class ``steps_skipped``) with fewer actions than
        the check has steps says so (:class:`FinishedEarly`, ``finished_early`` in
        ``results.json``): Smart ended after step 1 of 3 because the model was blocked or said it
        was done, and the expectations held; or the recorded path replayed holds 1 action for a
        check of 3 steps. A step is counted as one action: the scripted model takes one a step.
Rule 7: a check is retried (``RunOptions.retries``) only when it ended ``couldnt_run`` for a
        class of the machine it ran on (:data:`RETRYABLE`: ``device``, ``busy``, ``environment``):
        never a drift, a failed assertion, an unknown outcome, a usage problem, the model, the
        budget or a stop. A retried check's result is its last attempt's, with ``attempts`` (every
        attempt, in order: verdict, class, message, run folder, device) and the cost, model calls
        and seconds of all its attempts summed (:func:`with_attempts`); it is ``flaky`` when it
        passed on a retry.
Rule 8: with ``RunOptions.repeat`` K > 1 each check runs K times, each run its own result
        (``repeat``: run i of K); :attr:`SuiteResult.pass_rates` groups them by check and device.
"""

from __future__ import annotations

import enum
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from mobster_core._rules.assertions import AssertionResult
from mobster_core._rules.cost import Cost
from mobster_core._rules.device import AppInfo, DeviceInfo, Platform
from mobster_core._rules.screen import Element
from mobster_core._rules.steps import Op, Target
from mobster_core._rules.text import xml_text
from mobster_core._rules.verdict import FailureClass, Outcome, Verdict, suite_exit_code
from mobster_core._store.healfile import HealEntry

__all__ = [
    "RETRYABLE",
    "SCHEMA",
    "Attempt",
    "CheckResult",
    "FinishedEarly",
    "Mode",
    "PassRate",
    "StepReport",
    "StepSource",
    "SuiteResult",
    "junit_xml",
    "recorded_element",
    "retryable",
    "with_attempts",
]

#: The schema of ``results.json``.
SCHEMA = "mobster.test/1"


class Mode(enum.StrEnum):
    """How a check's steps ran: ``launch`` (no steps), ``smart`` (the model) or ``replay``."""

    LAUNCH = "launch"
    SMART = "smart"
    REPLAY = "replay"


class StepSource(enum.StrEnum):
    """Who did a step: the replay, the model for a live step, a heal, or Smart recording."""

    REPLAY = "replay"
    LIVE = "live"
    HEALED = "healed"
    SMART = "smart"


def recorded_element(target: Target) -> Element:
    """A recorded step's target as an element (its label, role, tree path and recorded frame)."""
    return Element(role=target.role, label=target.label, path=target.id, frame=target.frame)


def _element_dict(e: Element) -> dict[str, Any]:
    return {"label": e.label, "role": e.role, "frame": [round(v, 6) for v in e.frame]}


@attrs.frozen
class StepReport:
    """What happened to one step (``steps`` of ``results.json``). ``index`` counts from 1; ``waited_s`` is seconds.

    ``target`` is the element the action was sent to (its frame as it was then), or for a step
    that drifted its recorded target; None for a global action. ``frame`` is the file, in the
    run folder, of the screen the action was sent on or the step drifted on
    (``frames/step-002-before.png``, see ``_rules/frames``), None when the run took none.
    """

    index: int
    op: Op
    text: str
    source: StepSource
    waited_s: float
    similarity: float | None
    settled: bool
    reason: str | None = None
    target: Element | None = None
    frame: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The step as ``results.json`` shows it."""
        return {
            "index": self.index,
            "op": self.op.value,
            "text": self.text,
            "source": self.source.value,
            "waited_s": round(self.waited_s, 3),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "settled": self.settled,
            "reason": self.reason,
            "target": None if self.target is None else {**_element_dict(self.target), "id": self.target.path},
            "frame": self.frame,
        }


#: Rule 7: the classes of a check that couldn't run because of the machine, not the check or the app.
RETRYABLE = frozenset({FailureClass.DEVICE, FailureClass.BUSY, FailureClass.ENVIRONMENT})


@attrs.frozen
class Attempt:
    """One attempt of a retried check (Rule 7): how it ended, its run folder and the device it ran on."""

    verdict: Verdict
    failure_class: FailureClass | None
    message: str
    run_dir: str
    device_label: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The attempt as ``results.json`` shows it (``checks[].attempts[]``)."""
        return {
            "verdict": self.verdict.value,
            "class": None if self.failure_class is None else self.failure_class.value,
            "message": self.message,
            "run_dir": self.run_dir,
            "device_label": self.device_label,
            "seconds": round(self.seconds, 3),
        }


@attrs.frozen
class FinishedEarly:
    """Rule 6: the steps ended before the check's last one, and the expectations decided.

    ``after_step`` is how many actions ran (Smart's, or the recorded path's), ``of`` how many
    steps the check has, ``by`` who ran them (``smart`` or ``replay``), ``why`` what Smart said
    when it stopped (``the model was blocked: …``), None for a replay.
    """

    after_step: int
    of: int
    by: Mode
    why: str | None = None

    @property
    def text(self) -> str:
        """``Smart finished after step 1 of 3``; ``the recorded path covers 1 of 3 steps``."""
        if self.by is Mode.REPLAY:
            return f"the recorded path covers {self.after_step} of {self.of} steps"
        if self.after_step < self.of:
            return f"Smart finished after step {self.after_step} of {self.of}"
        # the model stopped, blocked, after as many actions as steps or more
        return f"Smart stopped before the end, after {self.after_step} actions for {self.of} steps"

    @property
    def because(self) -> str:
        """What Smart said, in brackets (`` (the model was blocked: …)``); empty for a replay."""
        return "" if self.why is None else f" ({self.why})"

    @property
    def held(self) -> str:
        """A run that passed so: ``Smart finished after step 1 of 3: the expectations held (the model …)``."""
        return f"{self.text}: the expectations held{self.because}"

    def to_dict(self) -> dict[str, Any]:
        """``finished_early`` of ``results.json``."""
        return {"after_step": self.after_step, "of": self.of, "by": self.by.value, "why": self.why}


@attrs.frozen
class CheckResult:
    """One check's result: a ``checks`` entry of ``results.json`` (:meth:`to_dict`).

    ``seconds`` is the run's time on its clock; ``identity`` and ``env`` are the path's keys
    (None when the run stopped before they were known); ``path_used`` says a recorded path was
    replayed, ``path_why`` why one wasn't (or what happened to it); ``run_dir`` is the run's
    folder, relative to the project root; ``final_frame`` the file, in it, of the screen at the
    end of the run (``frames/final.png``), None when the run took none.
    """

    name: str
    file: str
    device: DeviceInfo | None
    app: AppInfo | None
    outcome: Outcome
    mode: Mode | None
    seconds: float
    cost: Cost
    model_calls: int
    identity: str | None
    env: str | None
    path_used: bool
    path_why: str | None
    steps: tuple[StepReport, ...]
    heals: tuple[HealEntry, ...]
    assertions: tuple[AssertionResult, ...]
    run_dir: str
    stable: bool | None = None
    #: The env the path was carried from (``1.0 (1)``), when a path was carried.
    carried_from: str | None = None
    #: The pool's name for the device the check ran on (``sim-2``), None outside a pool.
    device_label: str | None = None
    final_frame: str | None = None
    #: Rule 6: the steps ended before the check's last one and the expectations decided, else None.
    finished_early: FinishedEarly | None = None
    #: Rule 7: every attempt of a retried check, in order (the last is this result's); empty: it ran once.
    attempts: tuple[Attempt, ...] = ()
    #: Rule 8: ``(i, k)``: run i (from 1) of the k runs ``--repeat`` asked for; None: it ran once.
    repeat: tuple[int, int] | None = None
    #: The run's video in its folder (``video.mp4``), when one was recorded and kept (``--video``).
    video: str | None = None
    #: A cloud's own video of the session (a link the provider names), when it names one.
    video_url: str | None = None

    @property
    def verdict(self) -> Verdict:
        """The verdict."""
        return self.outcome.verdict

    @property
    def flaky(self) -> bool:
        """Rule 7: it passed on a retry (an earlier attempt couldn't run for a class of the machine)."""
        return self.verdict is Verdict.PASSED and len(self.attempts) > 1

    def as_attempt(self) -> Attempt:
        """This run as one attempt of a retried check (Rule 7)."""
        o = self.outcome
        return Attempt(o.verdict, o.failure_class, o.sentence, self.run_dir, self.device_label, self.seconds)

    @property
    def healed_steps(self) -> int:
        """Rule 4: the steps this run healed (the model's actions in its heals; they wait for review)."""
        return sum(len(h.new) for h in self.heals)

    @property
    def replayed_with_no_model(self) -> bool:
        """Rule 4: the recorded path replayed to the verdict, ``passed`` or ``failed``, with no model call.

        Every step ran by replay (``mode`` is replay and the verdict's read was taken, so no step
        drifted and none stopped the run), nothing healed and nothing was typed live (no model
        call), and the verdict judged the run on its settled read.
        """
        judged = self.stable is not None  # the verdict's read was taken only after every step ran
        return (
            self.mode is Mode.REPLAY
            and judged
            and self.model_calls == 0
            and self.verdict in (Verdict.PASSED, Verdict.FAILED)
        )

    @property
    def cost_text(self) -> str:
        """Rule 4: ``$0.00``, ``~$0.02`` when estimated."""
        return self.cost.text()

    @classmethod
    def from_dict(cls, data: Any) -> CheckResult:
        """A check's ``result.json`` (an entry of ``results.json``) read back, typed (Rule 1).

        Keys added to ``mobster.test/1`` after this version are ignored; a key this version
        knows is read strictly: a value of the wrong type raises
        :class:`~mobster_core.exceptions.ResultsError` naming the key.
        """
        from .documents import read_check

        return read_check(data)

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape (Rule 1)."""
        outcome = self.outcome
        return {
            "name": self.name,
            "file": self.file,
            "device": None if self.device is None else _device_dict(self.device),
            "device_label": self.device_label,
            "app": None
            if self.app is None
            else {"bundle": self.app.bundle, "version": self.app.version, "build": self.app.build},
            "verdict": outcome.verdict.value,
            "class": None if outcome.failure_class is None else outcome.failure_class.value,
            "message": outcome.sentence,
            "step": outcome.step,
            "fix": None if outcome.fix is None else {"code": outcome.fix.code.value, "args": dict(outcome.fix.args)},
            "mode": None if self.mode is None else self.mode.value,
            "seconds": round(self.seconds, 3),
            "cost_usd": round(self.cost.usd, 6),
            "cost_estimated": self.cost.estimated,
            "model_calls": self.model_calls,
            "path": {
                "identity": self.identity,
                "env": self.env,
                "used": self.path_used,
                "why": self.path_why,
                "carried_from": self.carried_from,
            },
            "steps": [r.to_dict() for r in self.steps],
            "heals": [h.to_dict() for h in self.heals],
            "assertions": [
                {
                    "text": a.text,
                    "ok": a.ok,
                    "observed": a.observed,
                    "matches": [_element_dict(e) for e in a.matches],
                    "name": a.name,
                    "error": a.error,
                    "line": a.line,
                    # Only where a device couldn't serve the assertion, so other results read as before.
                    **({"unavailable": a.unavailable} if a.unavailable is not None else {}),
                }
                for a in self.assertions
            ],
            "stable": self.stable,
            "run_dir": self.run_dir,
            "final_frame": self.final_frame,
            "finished_early": None if self.finished_early is None else self.finished_early.to_dict(),
            "attempts": [a.to_dict() for a in self.attempts],
            "repeat": None if self.repeat is None else {"run": self.repeat[0], "of": self.repeat[1]},
            "video": self.video,
            "video_url": self.video_url,
            # Rule 4, for readers of the file (recomputed, never read back):
            "healed_steps": self.healed_steps,
            "replayed_with_no_model": self.replayed_with_no_model,
            "flaky": self.flaky,
        }


def retryable(result: CheckResult) -> bool:
    """Rule 7: whether a run that ended so may be tried again (``couldnt_run`` for a class of the machine)."""
    return result.verdict is Verdict.COULDNT_RUN and result.outcome.failure_class in RETRYABLE


def with_attempts(runs: Sequence[CheckResult]) -> CheckResult:
    """Rule 7: the result of a check tried ``runs`` times: the last run's, its attempts and sums."""
    last = runs[-1]
    if len(runs) == 1:
        return last
    cost = Cost()
    for r in runs:
        cost = cost + r.cost
    return attrs.evolve(
        last,
        attempts=tuple(r.as_attempt() for r in runs),
        cost=cost,
        model_calls=sum(r.model_calls for r in runs),
        seconds=sum(r.seconds for r in runs),
    )


@attrs.frozen
class PassRate:
    """Rule 8: how often one check passed on one device over its repeated runs."""

    name: str
    file: str
    device_label: str | None
    passed: int
    runs: int

    @property
    def rate(self) -> float:
        """The share of runs that passed, 0 to 1."""
        return self.passed / self.runs if self.runs else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The pass rate as ``results.json``'s ``pass_rates[]`` shows it."""
        return {
            "name": self.name,
            "file": self.file,
            "device_label": self.device_label,
            "passed": self.passed,
            "runs": self.runs,
            "rate": round(self.rate, 4),
        }


@attrs.frozen
class SuiteResult:
    """A suite's results: ``results.json`` (:meth:`to_dict`); ``folder`` holds it and ``junit.xml``."""

    suite_id: str
    started_at: str
    seconds: float
    checks: tuple[CheckResult, ...]
    folder: Path

    @property
    def exit_code(self) -> int:
        """Rule 3."""
        return suite_exit_code(c.verdict for c in self.checks)

    @property
    def healed_steps(self) -> int:
        """Rule 4: steps healed in this suite."""
        return sum(c.healed_steps for c in self.checks)

    @property
    def replayed_with_no_model(self) -> int:
        """Rule 4: how many checks replayed their recorded path to the verdict with no model call."""
        return sum(1 for c in self.checks if c.replayed_with_no_model)

    @property
    def flaky(self) -> int:
        """Rule 7: how many checks passed only on a retry."""
        return sum(1 for c in self.checks if c.flaky)

    @property
    def pass_rates(self) -> tuple[PassRate, ...]:
        """Rule 8: each repeated check's pass rate, by check and device, in the order they first ran."""
        groups: dict[tuple[str, str, str | None], list[CheckResult]] = {}
        for c in self.checks:
            if c.repeat is not None:
                groups.setdefault((c.file, c.name, c.device_label), []).append(c)
        return tuple(
            PassRate(name, file, label, sum(1 for c in runs if c.verdict is Verdict.PASSED), len(runs))
            for (file, name, label), runs in groups.items()
        )

    @property
    def model_calls(self) -> int:
        """Model calls in this suite."""
        return sum(c.model_calls for c in self.checks)

    @property
    def cost(self) -> Cost:
        """What the model calls cost."""
        total = Cost()
        for c in self.checks:
            total = total + c.cost
        return total

    @property
    def cost_text(self) -> str:
        """Rule 4: ``$0.00``, ``~$0.02`` when estimated."""
        return self.cost.text()

    @classmethod
    def from_dict(cls, data: Any, folder: Path) -> SuiteResult:
        """A ``results.json`` read back, typed (Rule 1); ``folder`` is where it is (its ``junit.xml`` beside it).

        Raises :class:`~mobster_core.exceptions.ResultsError` naming the key of a value that is
        wrong; keys added later are ignored (see :meth:`CheckResult.from_dict`).
        """
        from .documents import read_suite

        return read_suite(data, folder)

    def to_dict(self) -> dict[str, Any]:
        """The ``mobster.test/1`` document."""
        counts = {v.value: sum(1 for c in self.checks if c.verdict is v) for v in Verdict}
        return {
            "schema": SCHEMA,
            "suite_id": self.suite_id,
            "started_at": self.started_at,
            "seconds": round(self.seconds, 3),
            "exit_code": self.exit_code,
            "summary": {
                **counts,
                "healed_steps": self.healed_steps,
                "model_calls": self.model_calls,
                "cost_usd": round(self.cost.usd, 6),
                "cost_estimated": self.cost.estimated,
                "replayed_with_no_model": self.replayed_with_no_model,
                "flaky": self.flaky,
            },
            "pass_rates": [p.to_dict() for p in self.pass_rates],
            "checks": [c.to_dict() for c in self.checks],
        }


def junit_xml(suite: SuiteResult) -> bytes:
    """Rule 2's ``junit.xml``: valid JUnit, one testcase per check and device."""
    counts = {v: sum(1 for c in suite.checks if c.verdict is v) for v in Verdict}
    root = ET.Element("testsuites", name="mobster", tests=str(len(suite.checks)), time=f"{suite.seconds:.3f}")
    ts = ET.SubElement(
        root,
        "testsuite",
        name="mobster test",
        tests=str(len(suite.checks)),
        failures=str(counts[Verdict.FAILED]),
        errors=str(counts[Verdict.COULDNT_RUN]),
        skipped=str(counts[Verdict.NEEDS_REVIEW]),
        time=f"{suite.seconds:.3f}",
        timestamp=suite.started_at.removesuffix("Z"),
    )
    for c in suite.checks:
        _testcase(ts, c)
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))


def _testcase(suite: ET.Element, c: CheckResult) -> None:
    x = xml_text
    device = "no device" if c.device is None else f"{c.device.name}, {c.device.os_text}"
    if c.device_label is not None:  # one testcase per check and device: the pool's name tells them apart
        device = c.device_label if c.device is None else f"{c.device_label} ({device})"
    run = "" if c.repeat is None else f" (run {c.repeat[0]} of {c.repeat[1]})"
    case = ET.SubElement(
        suite, "testcase", classname=x(c.file), name=x(f"{c.name} on {device}{run}"), time=f"{c.seconds:.3f}"
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
    lines = [f"mode: {mode}, model calls: {c.model_calls}, cost: {c.cost.text(4)}"]
    if c.carried_from is not None:
        lines.append(f"carried the path from {c.carried_from}")
    lines += [_step_line(s) for s in c.steps]
    lines += [f"healed step {h.step}: {h.from_} -> {h.to} ({h.why})" for h in c.heals]
    lines += [f"{'ok' if a.ok else 'FAILED'}: {a.text}: {a.observed}" for a in c.assertions]
    if c.run_dir:
        lines.append(f"[[ATTACHMENT|{c.run_dir}/report.html]]")
    ET.SubElement(case, "system-out").text = x("\n".join(lines))


def _attempts(case: ET.Element, c: CheckResult) -> None:
    """Rule 7 in JUnit, as Maven Surefire writes its reruns.

    A ``mobster.flaky`` property, then each earlier attempt as ``<flakyError>`` (the check passed
    on a retry) or ``<rerunError>`` (it never passed), with its message and class, its run's
    report in ``system-out``.

    An attempt that couldn't run is a JUnit error (Rule 2), so Surefire's ``flaky``/``rerun``
    *Error* element is the one that says it (``flakyFailure``/``rerunFailure`` would be a failed
    assertion, which is never retried).
    """
    if not c.attempts:
        return
    x = xml_text
    props = ET.SubElement(case, "properties")
    ET.SubElement(props, "property", name="mobster.flaky", value="true" if c.flaky else "false")
    ET.SubElement(props, "property", name="mobster.attempts", value=str(len(c.attempts)))
    tag = "flakyError" if c.flaky else "rerunError"
    for n, a in enumerate(c.attempts[:-1], start=1):
        cls = "" if a.failure_class is None else a.failure_class.value
        element = ET.SubElement(case, tag, message=x(a.message), type=cls)
        where = f" on {a.device_label}" if a.device_label else ""
        ET.SubElement(element, "stackTrace").text = x(f"attempt {n} of {len(c.attempts)}{where}: {a.message}")
        if a.run_dir:
            ET.SubElement(element, "system-out").text = x(f"[[ATTACHMENT|{a.run_dir}/report.html]]")


_SAID = {StepSource.REPLAY: "replayed", StepSource.HEALED: "healed", StepSource.SMART: "Smart", StepSource.LIVE: "live"}


def _step_line(s: StepReport) -> str:
    """``step 2 replayed: Tap "Next" (waited 0.23 s, 100% alike)``; a drifted step says why."""
    if s.reason is not None:
        return f"step {s.index} drifted: {s.text}: {s.reason}"
    alike = "" if s.similarity is None else f", {int(s.similarity * 100 + 1e-9)}% alike"
    return f"step {s.index} {_SAID[s.source]}: {s.text} (waited {s.waited_s:.2f} s{alike})"


def _where(c: CheckResult) -> str:
    """Rule 2: the step where a run that didn't pass stopped, in words ("" when no step ran)."""
    drifted = [s for s in c.steps if s.reason is not None]
    if drifted:
        s = drifted[-1]
        return f"stopped at step {s.index} ({s.text}): {s.reason}"
    if c.steps:
        s = c.steps[-1]
        return f"after step {s.index} ({s.text}), the last that ran"
    return "before the first step"


def _device_dict(device: DeviceInfo) -> dict[str, Any]:
    """A result's device: its name, kind and OS (``ios``: iOS's version, or Android's API level).

    An Android device adds ``platform: android`` and its ``release`` (when read); an iOS device's
    entry reads as it did before Android.
    """
    out: dict[str, Any] = {"name": device.name, "kind": device.kind.value, "ios": device.ios}
    if device.platform is Platform.ANDROID:
        out["platform"] = device.platform.value
        out["release"] = device.release
    return out
