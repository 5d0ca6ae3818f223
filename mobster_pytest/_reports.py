"""What a check run adds to pytest's reports: its facts (in JUnit too), Allure steps, pytest-html extras.

Rule 1: each run's facts (:func:`run_facts`) are ``check``, ``verdict``, ``class``, ``mode`` (empty
        for a run whose steps never ran), ``model_calls``, ``cost_usd``, ``cost_estimated``,
        ``healed_steps``, ``replayed_with_no_model``, ``device``, ``run_dir``, ``flaky`` (it passed
        on a retry), ``attempts`` (1 when it wasn't retried) and ``run`` (``2/3`` under
        ``--mobster-repeat``, else empty), in that order, each from the result's own field or
        property. The test's call report carries them as ``mobster_runs`` (a list, one mapping a
        run: a test that runs two checks has two), which xdist sends to the controller as it is.
        A rerun starts from none: the runs of an attempt are forgotten once its report is made.
Rule 4: JUnit (``--junitxml``) gets each run's facts as ``mobster.<fact>: <value>`` lines
        (:func:`facts_text`) in a ``<system-out>`` of the test's testcase, and the session's totals
        as ``mobster.*`` properties of the testsuite (:func:`suite_facts`): both where Jenkins'
        ``junit-10.xsd`` allows them. They were ``<property>`` entries inside each testcase
        (``user_properties``), which that schema, and the CI systems that validate against it,
        refuse. A value's control characters are shown as escapes, so no value forges a line.
Rule 2: Allure (``--alluredir``) gets one step per step the run sent an action for, titled
        ``step 2 (Tap "Sign up")`` and holding the frame it acted on, then the final frame; the
        step that drifted or failed, and an action whose outcome is unknown, are marked broken.
        pytest-html (``--html``) gets the final frame and the step frames as image extras. Both
        are soft: without allure-pytest or pytest-html installed (or with them off) nothing is
        imported. The frames are the run's own files: each step's ``frame`` (the largest picture
        of it the run kept), the run's ``final_frame``, and for an action whose outcome is
        unknown (it has no step) the frame its journal entry names. Which step a frame is of, and
        which one is broken, come from the result's fields (:class:`StepFrame`, ``Outcome.step``).
Rule 3: the session's totals (runs, replayed with no model, healed steps, model calls, cost, the
        flaky checks, each repeated check's passes of its runs) are
        added up from the reports' ``mobster_runs``, so they hold under xdist (the controller sees every
        worker's reports) and count a rerun's model calls too: they were paid for. "Replayed with
        no model" counts the runs whose result says so (``CheckResult.replayed_with_no_model``),
        and the cost is said as results say it (``Cost.text``: ``~`` when any part is estimated).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._state import StepFrame

if TYPE_CHECKING:
    from mobster_core import CheckResult

    from ._state import RunRecord

__all__ = [
    "PREFIX",
    "UNFINISHED",
    "StepFrame",
    "Totals",
    "allure_steps",
    "facts_text",
    "html_extras",
    "run_facts",
    "step_frames",
    "suite_facts",
]

PREFIX = "mobster."
#: What Allure calls an action whose outcome is unknown (its frame is the last).
UNFINISHED = "the last action (it didn't complete)"


def run_facts(record: RunRecord, rootdir: Path) -> dict[str, object]:
    """Rule 1: one run's facts, in their order."""
    from ._outcomes import shown_path

    r = record.result
    device = "" if r.device is None else f"{r.device.name}, {r.device.os_text} ({r.device.kind.value})"
    cls = r.outcome.failure_class
    return {
        "check": r.name,
        "verdict": r.verdict.value,
        "class": "" if cls is None else cls.value,
        "mode": "" if r.mode is None else r.mode.value,
        "model_calls": r.model_calls,
        "cost_usd": round(r.cost.usd, 6),
        "cost_estimated": r.cost.estimated,
        "healed_steps": r.healed_steps,
        "replayed_with_no_model": r.replayed_with_no_model,
        "device": device,
        "run_dir": shown_path(record.root / r.run_dir, rootdir) if r.run_dir else "",
        "flaky": r.flaky,
        "attempts": len(r.attempts) or 1,
        "run": "" if r.repeat is None else f"{r.repeat[0]}/{r.repeat[1]}",
    }


def facts_text(runs: Iterable[Mapping[str, object]]) -> str:
    """Rule 4: the runs' facts as a testcase's ``system-out``: ``mobster.check: Sign up``, a line a fact."""
    from mobster_core.text import escape_controls

    return "\n".join(f"{PREFIX}{key}: {escape_controls(str(value))}" for run in runs for key, value in run.items())


def suite_facts(totals: Totals) -> list[tuple[str, object]]:
    """Rule 4: the session's totals as the testsuite's properties (Rule 3's sums, the flaky checks' names)."""
    return [
        (f"{PREFIX}check_runs", totals.runs),
        (f"{PREFIX}replayed_with_no_model", totals.replayed_free),
        (f"{PREFIX}healed_steps", totals.healed_steps),
        (f"{PREFIX}model_calls", totals.model_calls),
        (f"{PREFIX}cost_usd", round(totals.cost_usd, 6)),
        (f"{PREFIX}cost_estimated", totals.estimated),
        (f"{PREFIX}flaky", ", ".join(totals.flaky)),
    ]


def step_frames(result: CheckResult, root: Path) -> tuple[StepFrame, ...]:
    """Rule 2: a :class:`StepFrame` per action the run sent, then the unfinished one's (its outcome unknown)."""
    from mobster_core import FailureClass

    if not result.run_dir:
        return ()
    folder = root / result.run_dir
    found = []
    for s in result.steps:
        file = _largest(folder, s.frame)
        if s.reason is None and file is not None:  # a drifted step sent nothing
            found.append(StepFrame(f"step {s.index} ({s.text})", file, s.index))
    if result.outcome.failure_class is FailureClass.UNKNOWN_OUTCOME:
        file = _largest(folder, _unfinished_frame(folder))
        if file is not None:
            found.append(StepFrame(UNFINISHED, file, None))
    return tuple(found)


def _unfinished_frame(folder: Path) -> str | None:
    """The frame of the last action whose outcome the journal says is unknown."""
    from mobster_core.exceptions import JournalError
    from mobster_core.results import read_journal

    try:
        entries = read_journal(folder / "journal.jsonl")
    except (JournalError, OSError):
        return None
    unknown = {e.get("key") for e in entries if e.get("event") == "outcome" and e.get("outcome") == "unknown"}
    frames = [e.get("frame") for e in entries if e.get("event") == "intent" and e.get("key") in unknown]
    last = frames[-1] if frames else None
    return last if isinstance(last, str) else None


def _largest(folder: Path, frame: str | None) -> Path | None:
    """The largest picture kept of ``frame`` (``frames/step-001-before.png``): itself, its view, its thumbnail."""
    if frame is None or not frame.startswith("frames/") or not frame.endswith(".png") or ".." in frame:
        return None
    stem = frame.removesuffix(".png")
    for name in (frame, f"{stem}.view.png", f"{stem}.view.jpg", f"{stem}.thumb.png", f"{stem}.thumb.jpg"):
        if (folder / name).is_file():
            return folder / name
    return None


#: A frame read back for the report: the report package's own limit for a picture file.
_MAX_PICTURE_BYTES = 32 * 1024 * 1024


def _picture(file: Path) -> bytes | None:
    """A frame of the run's own folder, read as every file under ``.mobster/`` (a private regular file)."""
    from mobster_core.exceptions import UnsafeFile
    from mobster_core.files import read_private

    try:
        return read_private(file, max_bytes=_MAX_PICTURE_BYTES)
    except (OSError, UnsafeFile):
        return None


def _final_frame(record: RunRecord) -> bytes | None:
    result = record.result
    file = _largest(record.root / result.run_dir, result.final_frame) if result.run_dir else None
    return None if file is None else _picture(file)


def _is_png(data: bytes) -> bool:
    return data.startswith(b"\x89PNG")


def _failed_step(record: RunRecord) -> int | None:
    from ._outcomes import failed_step

    return failed_step(record.result) if record.result.outcome.failure_class is not None else None


def allure_steps(record: RunRecord) -> None:
    """Rule 2: Allure's steps for one run (call it only with allure-pytest on)."""
    import allure

    from ._fixes import said

    failed = _failed_step(record)
    for frame in record.frames:
        png = _picture(frame.file)
        if png is None:
            continue
        step: Any = allure.step(frame.what)  # entered and left by hand: its status is set below
        step.__enter__()
        kind = allure.attachment_type.PNG if _is_png(png) else allure.attachment_type.JPG
        allure.attach(png, name="frame", attachment_type=kind)
        # The step the check stopped at, or an action whose outcome is unknown (its frame is last).
        broken = frame.step is None or (failed is not None and frame.step == failed)
        # A step's status comes from the exception its block ends with: the failing one ends broken.
        error = _StepFailed(said(record.result.outcome)) if broken else None
        step.__exit__(None if error is None else _StepFailed, error, None)
    final = _final_frame(record)
    if final is not None:
        allure.attach(final, name=f"{record.result.name}: final frame", attachment_type=allure.attachment_type.PNG)


class _StepFailed(Exception):
    """How Allure is told a step is where the check stopped."""


def html_extras(records: Sequence[RunRecord]) -> list[dict[str, Any]]:
    """Rule 2: pytest-html's extras for a test's runs (call it only with pytest-html on)."""
    from pytest_html import extras

    out: list[dict[str, Any]] = []
    for record in records:
        final = _final_frame(record)
        if final is not None:
            out.append(extras.png(base64.b64encode(final).decode("ascii"), name=f"{record.result.name}: final frame"))
        for frame in record.frames:
            picture = _picture(frame.file)
            if picture is not None:
                make = extras.png if _is_png(picture) else extras.jpg
                out.append(make(base64.b64encode(picture).decode("ascii"), name=frame.what))
    return out


@dataclass
class Totals:
    """Rule 3: the session's runs, healed steps, model calls and cost, from the reports' runs."""

    runs: int = 0
    replayed_free: int = 0
    healed_steps: int = 0
    model_calls: int = 0
    cost_usd: float = 0.0
    estimated: bool = False
    #: The checks that passed on a retry, by name, in the order they ran.
    flaky: list[str] = field(default_factory=list)
    #: ``--mobster-repeat``: each check's runs that passed, and its runs.
    rates: dict[str, list[int]] = field(default_factory=dict)

    def add(self, runs: Iterable[Mapping[str, object]]) -> None:
        """Add the runs a report carries (``mobster_runs``: Rule 1's facts, a mapping a run)."""
        for run in runs:
            self._add_run(run)

    def _add_run(self, run: Mapping[str, object]) -> None:
        self.runs += 1
        self.model_calls += _int(run.get("model_calls"))
        self.healed_steps += _int(run.get("healed_steps"))
        self.cost_usd += _float(run.get("cost_usd"))
        self.estimated = self.estimated or run.get("cost_estimated") is True
        if run.get("replayed_with_no_model") is True:  # the result's own property, never re-derived
            self.replayed_free += 1
        name = str(run.get("check", ""))
        if run.get("flaky") is True:
            self.flaky.append(name)
        if run.get("run"):
            rate = self.rates.setdefault(name, [0, 0])
            rate[0] += run.get("verdict") == "passed"
            rate[1] += 1

    def lines(self) -> list[str]:
        """The flaky checks and the pass rates, before :meth:`line`: ``mobster: flaky (passed on a retry): signup``."""
        out = []
        if self.flaky:
            out.append(f"mobster: flaky (passed on a retry): {', '.join(self.flaky)}")
        for name, (passed, runs) in self.rates.items():
            out.append(f"mobster: pass rate: {name} {passed}/{runs} ({round(100 * passed / runs)}%)")
        return out

    def line(self) -> str:
        """``mobster: 2 check runs (2 replayed with no model), 0 healed steps, 0 model calls, $0.00``."""
        from mobster_core.results import Cost

        money = Cost(self.cost_usd, self.estimated).text()
        s = _plural
        said = [f"{self.replayed_free} replayed with no model"] if self.replayed_free else []
        said += [f"{len(self.flaky)} flaky"] if self.flaky else []
        replayed = f" ({', '.join(said)})" if said else ""
        return (
            f"mobster: {s(self.runs, 'check run')}{replayed}, {s(self.healed_steps, 'healed step')}, "
            f"{s(self.model_calls, 'model call')}, {money}"
        )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
