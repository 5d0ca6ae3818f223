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
"""

from __future__ import annotations

import enum
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import attrs

from mobster_core._rules.assertions import AssertionResult
from mobster_core._rules.cost import Cost
from mobster_core._rules.device import AppInfo, DeviceInfo
from mobster_core._rules.screen import Element
from mobster_core._rules.steps import Op, Target
from mobster_core._rules.text import xml_text
from mobster_core._rules.verdict import Outcome, Verdict, suite_exit_code
from mobster_core._store.healfile import HealEntry

__all__ = ["SCHEMA", "CheckResult", "Mode", "StepReport", "StepSource", "SuiteResult", "junit_xml", "recorded_element"]

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
    #: The run's video in its folder (``video.mp4``), when one was recorded and kept (``--video``).
    video: str | None = None
    #: A cloud's own video of the session (a link the provider names), when it names one.
    video_url: str | None = None

    @property
    def verdict(self) -> Verdict:
        """The verdict."""
        return self.outcome.verdict

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
            "device": None
            if self.device is None
            else {"name": self.device.name, "kind": self.device.kind.value, "ios": self.device.ios},
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
            "video": self.video,
            "video_url": self.video_url,
            # Rule 4, for readers of the file (recomputed, never read back):
            "healed_steps": self.healed_steps,
            "replayed_with_no_model": self.replayed_with_no_model,
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
            },
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
    device = "no device" if c.device is None else f"{c.device.name}, iOS {c.device.ios}"
    if c.device_label is not None:  # one testcase per check and device: the pool's name tells them apart
        device = c.device_label if c.device is None else f"{c.device_label} ({device})"
    case = ET.SubElement(
        suite, "testcase", classname=x(c.file), name=x(f"{c.name} on {device}"), time=f"{c.seconds:.3f}"
    )
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
