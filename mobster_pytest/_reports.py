"""What a check run adds to pytest's reports: JUnit properties, Allure steps, pytest-html extras.

Rule 1: each run adds ``mobster.*`` entries to the test's ``user_properties`` (JUnit writes them as
        ``<property>``): ``check``, ``verdict``, ``class``, ``mode``, ``model_calls``, ``cost_usd``,
        ``cost_estimated``, ``healed_steps``, ``device`` and ``run_dir``, in that order, once per run
        (a test that runs two checks has two of each). A rerun starts from none: the entries of an
        earlier attempt are removed when the next one starts, so no run is counted twice.
Rule 2: Allure (``--alluredir``) gets one step per step the run sent an action for, titled
        ``step 2 (Tap "Sign up")`` and holding the frame it acted on, then the final frame; the
        step that drifted or failed, and an action whose outcome is unknown, are marked broken.
        pytest-html (``--html``) gets the final frame and the step frames as image extras. Both
        are soft: without allure-pytest or pytest-html installed (or with them off) nothing is
        imported.
Rule 3: the session's totals (runs, healed steps, model calls, cost) are added up from the
        reports' properties, so they hold under xdist (the controller sees every worker's
        reports) and count a rerun's model calls too: they were paid for.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._session import RunRecord

__all__ = ["PREFIX", "Totals", "add_properties", "allure_steps", "html_extras", "strip_properties"]

PREFIX = "mobster."
_STEP = re.compile(r"^step ([0-9]+) ")
FINAL_FRAME = "frame-final.png"


def strip_properties(properties: MutableSequence[tuple[str, object]]) -> None:
    """Rule 1: remove an earlier attempt's ``mobster.*`` entries."""
    properties[:] = [p for p in properties if not str(p[0]).startswith(PREFIX)]


def add_properties(properties: MutableSequence[tuple[str, object]], record: RunRecord, rootdir: Path) -> None:
    """Rule 1: one run's entries."""
    from ._outcomes import shown_path

    r = record.result
    device = "" if r.device is None else f"{r.device.name}, iOS {r.device.ios} ({r.device.kind.value})"
    cls = r.outcome.failure_class
    properties.extend(
        [
            (f"{PREFIX}check", r.name),
            (f"{PREFIX}verdict", r.verdict.value),
            (f"{PREFIX}class", "" if cls is None else cls.value),
            (f"{PREFIX}mode", r.mode.value),
            (f"{PREFIX}model_calls", r.model_calls),
            (f"{PREFIX}cost_usd", round(r.cost.usd, 6)),
            (f"{PREFIX}cost_estimated", r.cost.estimated),
            (f"{PREFIX}healed_steps", sum(len(h.new) for h in r.heals)),
            (f"{PREFIX}device", device),
            (f"{PREFIX}run_dir", shown_path(record.root / r.run_dir, rootdir) if r.run_dir else ""),
        ]
    )


def _final_frame(record: RunRecord) -> bytes | None:
    if not record.result.run_dir:
        return None
    try:
        return (record.root / record.result.run_dir / FINAL_FRAME).read_bytes()
    except OSError:
        return None


def _failed_step(record: RunRecord) -> int | None:
    from ._outcomes import failed_step

    return failed_step(record.result) if record.result.outcome.failure_class is not None else None


def allure_steps(record: RunRecord) -> None:
    """Rule 2: Allure's steps for one run (call it only with allure-pytest on)."""
    import allure

    from ._frames import UNFINISHED

    failed = _failed_step(record)
    for what, png in record.frames:
        step: Any = allure.step(what)  # entered and left by hand: its status is set below
        step.__enter__()
        allure.attach(png, name="frame", attachment_type=allure.attachment_type.PNG)
        found = _STEP.match(what)
        # The step the check stopped at, or an action whose outcome is unknown (its frame is last).
        broken = what == UNFINISHED or (failed is not None and found is not None and int(found.group(1)) == failed)
        # A step's status comes from the exception its block ends with: the failing one ends broken.
        error = _StepFailed(record.result.outcome.message) if broken else None
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
        out.extend(extras.png(base64.b64encode(png).decode("ascii"), name=what) for what, png in record.frames)
    return out


@dataclass
class Totals:
    """Rule 3: the session's runs, healed steps, model calls and cost, from reports' properties."""

    runs: int = 0
    replayed_free: int = 0
    healed_steps: int = 0
    model_calls: int = 0
    cost_usd: float = 0.0
    estimated: bool = False

    def add(self, properties: Iterable[tuple[str, object]]) -> None:
        """Add the runs a report's properties describe (one ``mobster.check`` starts each)."""
        run: dict[str, object] = {}
        for name, value in properties:
            key = str(name)
            if not key.startswith(PREFIX):
                continue
            key = key.removeprefix(PREFIX)
            if key == "check" and run:
                self._add_run(run)
                run = {}
            run[key] = value
        if run:
            self._add_run(run)

    def _add_run(self, run: dict[str, object]) -> None:
        calls = _int(run.get("model_calls"))
        self.runs += 1
        self.model_calls += calls
        self.healed_steps += _int(run.get("healed_steps"))
        self.cost_usd += _float(run.get("cost_usd"))
        self.estimated = self.estimated or run.get("cost_estimated") is True
        if run.get("mode") == "replay" and calls == 0:
            self.replayed_free += 1

    def line(self) -> str:
        """``mobster: 2 check runs (2 replayed with no model), 0 healed steps, 0 model calls, $0.00``."""
        money = f"{'~' if self.estimated and self.cost_usd > 0 else ''}${self.cost_usd:.2f}"
        s = _plural
        replayed = f" ({self.replayed_free} replayed with no model)" if self.replayed_free else ""
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
