"""The parts of a check's result: how its steps ran, each step's report, and its attempts.

Numbered as the results' rules (``results``): ``mode`` (:class:`Mode`, Rule 5), a run that ended
before the check's last step (:class:`FinishedEarly`, Rule 6), and a retried check's attempts and
the classes that are retried (:class:`Attempt`, :data:`RETRYABLE`, Rule 7); each step's report,
and ``results.json``'s schema. They are values with their ``to_dict``: ``documents`` reads them
back without knowing the results that hold them.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from mobster_core._rules.verdict.verdict import FailureClass, Verdict
from mobster_core._rules.vocabulary.screen import Element
from mobster_core._rules.vocabulary.steps import Op, Target

__all__ = [
    "RETRYABLE",
    "SCHEMA",
    "Attempt",
    "FinishedEarly",
    "Mode",
    "StepReport",
    "StepSource",
    "element_dict",
    "recorded_element",
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


def element_dict(e: Element) -> dict[str, Any]:
    return {"label": e.label, "role": e.role, "frame": [round(v, 6) for v in e.frame]}


@attrs.frozen
class StepReport:
    """What happened to one step (``steps`` of ``results.json``). ``index`` counts from 1; ``waited_s`` is seconds.

    ``target`` is the element the action was sent to (its frame as it was then), or for a step
    that drifted its recorded target; None for a global action. ``frame`` is the file, in the
    run folder, of the screen the action was sent on or the step drifted on
    (``frames/step-002-before.png``, see ``_results/frames``), None when the run took none.
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
    #: The flow the action is of (``login``, ``onboarding › login``), None for the check's own steps.
    flow: str | None = None
    #: The flow's step it is (from 1), when the flow's actions are one a step; else None.
    flow_step: int | None = None

    @property
    def crumb(self) -> str:
        """The step as people follow it: ``login › step 2 (Tap "Sign in")``, or ``step 5 (Tap "Buy")``."""
        if self.flow is None:
            return f"step {self.index} ({self.text})"
        at = "" if self.flow_step is None else f"step {self.flow_step} "
        return f"{self.flow} \u203a {at}({self.text})"

    def to_dict(self) -> dict[str, Any]:
        """The step as ``results.json`` shows it (``flow`` and ``flow_step`` only for a flow's step)."""
        crumbs = {} if self.flow is None else {"flow": self.flow, "flow_step": self.flow_step}
        return {**self._dict(), **crumbs}

    def _dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "op": self.op.value,
            "text": self.text,
            "source": self.source.value,
            "waited_s": round(self.waited_s, 3),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "settled": self.settled,
            "reason": self.reason,
            "target": None if self.target is None else {**element_dict(self.target), "id": self.target.path},
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
