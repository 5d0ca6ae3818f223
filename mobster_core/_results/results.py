"""What runs return: a check's result, a suite's, and their stable forms.

Rule 1: :meth:`CheckResult.to_dict` is a check's entry of ``results.json`` (the ``mobster.test/1``
        contract, also each run's ``result.json``); :meth:`SuiteResult.to_dict` the whole document.
        Keys are never renamed or removed; new keys may be added (documented in ``docs/cli.md``).
        ``from_dict`` reads them back, typed (``documents``): ``from_dict(r.to_dict()) == r``.
Rule 2 (``junit.xml``) is ``junit``'s; the values a result is made of are ``parts``' (its Rules 5 to 7).
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

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from mobster_core._rules.assertions import AssertionResult
from mobster_core._rules.device.device import AppInfo, DeviceInfo, Platform
from mobster_core._rules.model.cost import Cost
from mobster_core._rules.verdict.verdict import Outcome, Verdict, suite_exit_code
from mobster_core._store.healfile import HealEntry

from .documents import read_check, read_suite
from .parts import (
    RETRYABLE,
    SCHEMA,
    Attempt,
    FinishedEarly,
    Mode,
    StepReport,
    StepSource,
    element_dict,
    recorded_element,
)

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
    "recorded_element",
    "retryable",
    "with_attempts",
]


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
    def retried(self) -> bool:
        """Rule 7: it ran more than once (its earlier attempts couldn't run for a class of the machine)."""
        return len(self.attempts) > 1

    @property
    def flaky(self) -> bool:
        """Rule 7: it passed on a retry (an earlier attempt couldn't run for a class of the machine)."""
        return self.verdict is Verdict.PASSED and self.retried

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
        return cls(**read_check(data))

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON shape (Rule 1)."""
        outcome = self.outcome
        return {
            "name": self.name,
            "file": self.file,
            "device": None if self.device is None else _device_dict(self.device),
            "device_label": self.device_label,
            "platform": None if self.device is None else self.device.platform.value,
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
                    "matches": [element_dict(e) for e in a.matches],
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
        suite = read_suite(data)
        checks = tuple(CheckResult(**check) for check in suite["checks"])
        return cls(suite["suite_id"], suite["started_at"], suite["seconds"], checks, folder)

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
