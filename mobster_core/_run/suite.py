"""Running a suite of checks: devices in parallel, sharding, ``results.json`` and ``junit.xml`` (SPEC §12).

Rule 1: checks run on N devices at once, each device running one check at a time; each check's
        result is written once, by the run that ran it.
Rule 2: ``--shard I/N`` keeps every N-th check of the sorted list, starting at the I-th (from 1).
Rule 3: the suite writes ``.mobster/test-results/<suite_id>/results.json`` (the stable
        ``mobster.test/1`` contract, also what ``--json`` prints) and ``junit.xml`` (one testcase
        per check and device; failure, error and skipped elements; heals in ``system-out``).
        ``junit.xml`` stays well-formed whatever a label or a check name holds: characters XML 1.0
        forbids are removed (``_text.xml_text``).
Rule 4: a suite exits 1 if any check failed, else 3 if any couldn't run, else 2 if any needs
        review, else 0.
Rule 5: a suite stopped from outside (Ctrl+C, SIGTERM) lets each check in flight write its
        ``stopped`` result, starts no other, writes its files, and raises :class:`SuiteStopped`.
"""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from mobster_core._rules.cost import Cost
from mobster_core._rules.text import utf8, valid_text, xml_text
from mobster_core._rules.verdict import FailureClass, Outcome, Verdict, suite_exit_code
from mobster_core._store.checks import CheckError, load_check
from mobster_core._store.fsutil import MOBSTER_DIR, atomic_write, ensure_gitignore
from mobster_core.exceptions import MobsterError
from mobster_core.protocols import Clock, Device, Model

from .check import CheckResult, Mode, RunOptions, RunStopped, new_run_id, run_check

__all__ = ["SCHEMA", "SuiteResult", "SuiteStopped", "parse_shard", "run_suite", "shard"]

SCHEMA = "mobster.test/1"

#: Makes a model for one check run (the scripted model keeps state per run), or None: no model.
ModelFactory = Callable[[], Model | None]


@attrs.frozen
class SuiteResult:
    """A suite's results (SPEC §12's ``results.json``)."""

    suite_id: str
    started_at: str
    seconds: float
    checks: tuple[CheckResult, ...]
    folder: Path

    @property
    def exit_code(self) -> int:
        """Rule 4."""
        return suite_exit_code(c.verdict for c in self.checks)

    @property
    def healed_steps(self) -> int:
        """Steps healed in this suite."""
        return sum(len(h.new) for c in self.checks for h in c.heals)

    @property
    def cost(self) -> Cost:
        """What the model calls cost."""
        total = Cost()
        for c in self.checks:
            total = total + c.cost
        return total

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
                "model_calls": sum(c.model_calls for c in self.checks),
                "cost_usd": round(self.cost.usd, 6),
                "cost_estimated": self.cost.estimated,
            },
            "checks": [c.to_dict() for c in self.checks],
        }


class SuiteStopped(Exception):
    """The suite was stopped from outside; ``suite`` holds what ran, already written to disk."""

    def __init__(self, suite: SuiteResult) -> None:
        super().__init__("the suite was stopped")
        self.suite = suite


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``; a ValueError says what to write instead."""
    try:
        i, n = (int(p) for p in text.split("/", 1))
    except ValueError:
        raise ValueError(f"--shard takes I/N such as 1/4, not {text!r}") from None
    if not 1 <= i <= n:
        raise ValueError(f"--shard {text}: I must be between 1 and N")
    return i, n


def shard(items: Sequence[Path], index: int, total: int) -> list[Path]:
    """Rule 2."""
    return [p for k, p in enumerate(sorted(items)) if k % total == index - 1]


async def run_suite(
    files: Sequence[Path],
    devices: Sequence[Device],
    clock: Clock,
    *,
    root: Path,
    make_model: ModelFactory,
    options: RunOptions | None = None,
    on_result: Callable[[CheckResult], Awaitable[None] | None] | None = None,
) -> SuiteResult:
    """Run ``files`` on ``devices`` (Rule 1) and write the suite's files (Rule 3)."""
    if not devices:
        raise MobsterError("a suite needs at least one device")
    options = options or RunOptions()
    started = datetime.now(UTC)
    suite_id = new_run_id(started)
    began = clock.now()
    queue: asyncio.Queue[tuple[int, Path]] = asyncio.Queue()
    for item in enumerate(files):
        queue.put_nowait(item)
    results: dict[int, CheckResult] = {}

    async def worker(device: Device) -> None:
        while not queue.empty():
            n, file = queue.get_nowait()
            try:
                result = await _one(file, device, clock, root=root, model=make_model(), options=options)
            except RunStopped as exc:
                results[n] = exc.result
                return
            results[n] = result
            if on_result is not None:
                maybe = on_result(result)
                if maybe is not None:
                    await maybe

    workers = [asyncio.ensure_future(worker(d)) for d in devices]
    stopped = False
    try:
        await asyncio.gather(*workers)
    except asyncio.CancelledError:
        # Rule 5: let every check in flight write its stopped result, then write the suite's.
        stopped = True
        await asyncio.gather(*workers, return_exceptions=True)
    suite = SuiteResult(
        suite_id=suite_id,
        started_at=started.isoformat(timespec="seconds").replace("+00:00", "Z"),
        seconds=clock.now() - began,
        checks=tuple(results[k] for k in sorted(results)),
        folder=root / MOBSTER_DIR / "test-results" / suite_id,
    )
    ensure_gitignore(root)
    atomic_write(suite.folder / "results.json", utf8(json.dumps(suite.to_dict(), indent=2, ensure_ascii=False)))
    atomic_write(suite.folder / "junit.xml", junit_xml(suite))
    if stopped:
        raise SuiteStopped(suite)
    return suite


async def _one(
    file: Path, device: Device, clock: Clock, *, root: Path, model: Model | None, options: RunOptions
) -> CheckResult:
    try:
        check = load_check(file)
    except (CheckError, MobsterError, OSError) as exc:
        return _usage_result(file, root, str(exc))
    return await run_check(check, device, clock, root=root, model=model, options=options)


def _usage_result(file: Path, root: Path, message: str) -> CheckResult:
    try:
        shown = str(file.resolve().relative_to(root.resolve()))
    except ValueError:
        shown = str(file)
    return CheckResult(
        name=valid_text(file.stem),
        file=shown,
        device=None,
        app=None,
        outcome=Outcome(Verdict.COULDNT_RUN, FailureClass.USAGE, message),
        mode=Mode.LAUNCH,
        seconds=0.0,
        cost=Cost(),
        model_calls=0,
        identity=None,
        env=None,
        path_used=False,
        path_why=None,
        steps=(),
        heals=(),
        assertions=(),
        run_dir="",
    )


def junit_xml(suite: SuiteResult) -> bytes:
    """Rule 3's ``junit.xml``: valid JUnit, one testcase per check and device."""
    x = xml_text
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
        device = "no device" if c.device is None else f"{c.device.name}, iOS {c.device.ios}"
        case = ET.SubElement(
            ts, "testcase", classname=x(c.file), name=x(f"{c.name} on {device}"), time=f"{c.seconds:.3f}"
        )
        cls = "" if c.outcome.failure_class is None else c.outcome.failure_class.value
        message = x(c.outcome.message)
        if c.verdict is Verdict.FAILED:
            ET.SubElement(case, "failure", message=message, type=cls).text = message
        elif c.verdict is Verdict.COULDNT_RUN:
            ET.SubElement(case, "error", message=message, type=cls).text = message
        elif c.verdict is Verdict.NEEDS_REVIEW:
            ET.SubElement(case, "skipped", message=f"needs review ({cls}): {message}")
        lines = [f"mode: {c.mode}, model calls: {c.model_calls}, cost: ${c.cost.usd:.4f}"]
        if c.carried_from is not None:
            lines.append(f"carried the path from {c.carried_from}")
        lines += [f"healed step {h.step}: {h.from_} -> {h.to} ({h.why})" for h in c.heals]
        lines += [f"{'ok' if a.ok else 'FAILED'}: {a.text}: {a.observed}" for a in c.assertions]
        ET.SubElement(case, "system-out").text = x("\n".join(lines))
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))
