"""A run's evidence: pictures and ``report.html`` beside ``result.json``, ``index.html`` beside ``results.json``.

:class:`HtmlReport` is the reporter ``mobster test`` gives the runner
(``mobster_core.protocols.Reporter``): once a check's ``result.json`` is written it is told, and
it writes the run's pictures and page; once a suite's ``results.json`` is, the suite's page.

Rule 1: the frames are the core's: it wrote each as it arrived, named by its step (``frame``) and
        the run (``final_frame``). Which are kept at which size is ``_frames.plan_frames``'s
        decision on the finished result; this module makes the thumbnails and views it names
        (``_pictures``), deletes the full frames it doesn't keep, and touches nothing else: a
        file no step or run names is left as it is.
Rule 2: a frame whose picture can't be made (not a PNG Pillow reads) loses that picture only; the
        report says the picture is missing. A picture or a page that can't be written is logged
        and costs the run nothing: the verdict and ``result.json`` are already written. Without
        Pillow the page is written with no pictures and says so (and the log says so once).
Rule 3: a stopped run's page is written at once, with no pictures: no frame is read or made.
Rule 4: the pages are rendered by ``_run_page`` and ``_suite_page`` (self-contained, CSP-strict,
        every outside string escaped) and written atomically, 0600, like every file under
        ``.mobster/`` (``mobster_core.files``).
"""

from __future__ import annotations

import functools
import json
import logging
import shlex
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import attrs

from mobster_core import CheckResult, FailureClass, SuiteResult
from mobster_core.distribution import install_hint
from mobster_core.exceptions import JournalError, ResultsError, UnsafeFile
from mobster_core.files import atomic_write, read_private
from mobster_core.results import FramesMode, HealEntry, read_journal
from mobster_core.text import utf8

from ._frames import FrameLimits, base_of, frame_file, heal_frames, plan_frames, step_bases
from ._pictures import PictureError, make_pictures, pillow
from ._recorded import keep_recorded, recorded_base, recorded_for
from ._run_page import RunReport, render_run
from ._suite_page import render_suite

__all__ = [
    "HealFrames",
    "HtmlReport",
    "heal_evidence",
    "keep_frames",
    "newest_report",
    "no_pillow",
    "write_index",
    "write_report",
]

log = logging.getLogger("mobster.report")

#: The largest full frame read to make its pictures, in bytes.
MAX_FRAME_BYTES = 64 * 1024 * 1024


def no_pillow() -> str:
    """Rule 2: what a page without pictures says, when Pillow isn't installed (how to add it to this copy)."""
    return (
        f"No pictures: Pillow isn't installed ({install_hint('report')}). "
        "The full frames this run kept are in its frames/ folder."
    )


@attrs.frozen
class HtmlReport:
    """The pages and pictures of runs and suites (``mobster_core.protocols.Reporter``).

    ``RunOptions(reporter=HtmlReport())`` makes every check run write ``report.html`` (and its
    frames' thumbnails and views, by the run's ``--frames`` mode) and every suite ``index.html``.
    ``limits`` caps the full frames a run keeps (docs/reports.md).
    """

    limits: FrameLimits = attrs.field(factory=FrameLimits)
    #: The device options a check runs again with (``--scripted apps/yourapp.yaml``), by the
    #: result's ``device_label`` (``""`` for a run without one): the report's "Run it again" line.
    devices: Mapping[str, str] = attrs.field(factory=dict, hash=False)

    def rerun(self, result: CheckResult) -> str | None:
        """The command that runs ``result``'s check again on its device; None when its options aren't known."""
        options = self.devices.get(result.device_label or "")
        if options is None:
            return None
        return f"mobster test {shlex.quote(result.file)} {options}".rstrip()

    def check_ended(self, result: CheckResult, folder: Path, frames: FramesMode) -> None:
        """Rules 1-3: the run's pictures, then its ``report.html``."""
        data = result.to_dict()
        rerun = self.rerun(result)
        if result.outcome.failure_class is FailureClass.STOPPED:
            write_report(folder, data, {}, rerun=rerun)
            return
        if not pillow():
            _say_no_pillow()
        kept = keep_frames(folder, data, frames, self.limits)
        root = _project_of(folder, result.run_dir)
        if root is not None:
            keep_recorded(root, data, kept)
            kept = {**kept, **_recorded_pictures(root, data)}
        write_report(folder, data, kept, rerun=rerun, note=None if pillow() else no_pillow())

    def suite_ended(self, suite: SuiteResult) -> None:
        """Rule 4: the suite's ``index.html`` beside its ``results.json``."""
        write_index(suite.folder, suite.to_dict())


def _project_of(folder: Path, run_dir: str) -> Path | None:
    """The project a run folder is in: ``folder`` less its ``run_dir`` (``.mobster/runs/<id>``); None outside one."""
    if not _is_run_dir(run_dir):
        return None
    return folder.parent.parent.parent


def _recorded_pictures(root: Path, result: Mapping[str, Any]) -> dict[str, bytes | Path]:
    """The recorded screen of each healed step, among the run page's pictures (``_recorded`` Rule 2)."""
    pictures: dict[str, bytes | Path] = {}
    for heal in result.get("heals") or ():
        step = heal.get("step") if isinstance(heal, dict) else None
        file = recorded_for(root, result, step)
        if file is not None and isinstance(step, int):
            pictures[frame_file(recorded_base(step), "thumb", file.name.rsplit(".", 1)[-1])] = file
    return pictures


@functools.cache
def _say_no_pillow() -> None:
    log.warning("reports have no pictures: Pillow isn't installed (%s)", install_hint("report"))


def keep_frames(
    folder: Path, result: Mapping[str, Any], mode: FramesMode | str, limits: FrameLimits | None = None
) -> dict[str, bytes | Path]:
    """Rule 1: keep what the plan says of the frames the run took, in ``folder/frames``.

    Returns what the report embeds and links: each kept file's name (``frames/step-001-before.thumb.png``)
    mapped to its bytes (a picture) or its path (a full frame).
    """
    steps = result.get("steps")
    bases = step_bases([s if isinstance(s, Mapping) else {} for s in steps] if isinstance(steps, list) else [])
    named = [b for b in (*bases, base_of(result.get("final_frame"))) if b is not None]
    sizes = {b: size for b in dict.fromkeys(named) if (size := _size(folder / frame_file(b))) is not None}
    taken = {b: folder / frame_file(b) for b in sizes}
    plan = plan_frames(result, mode, sizes=sizes, limits=limits or FrameLimits())
    files: dict[str, bytes | Path] = {}
    for base, path in taken.items():
        wanted = [size for size, kept in (("thumb", plan.thumbs), ("view", plan.views)) if base in kept]
        for name, data in _pictures(path, wanted).items():
            try:
                atomic_write(folder / name, data)
            except (OSError, UnsafeFile) as exc:
                log.warning("a picture couldn't be written: %s (%s)", folder / name, exc)
                continue
            files[name] = data
        if base in plan.full:
            files[frame_file(base)] = path
        else:
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:  # Rule 2: a frame that can't go costs the page nothing
                log.warning("a frame the plan doesn't keep couldn't be deleted: %s (%s)", path, exc)
    return files


def _size(path: Path) -> int | None:
    """The bytes of a regular file, None when there is none (a frame whose screenshot never came)."""
    try:
        found = path.lstat()
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def _pictures(path: Path, sizes: list[str]) -> dict[str, bytes]:
    """Rule 2: the pictures of the frame at ``path``, by file name; none when they can't be made."""
    if not sizes or not pillow():
        return {}
    base = base_of(f"frames/{path.name}")
    assert base is not None  # the path was made from a base
    try:
        made = make_pictures(read_private(path, max_bytes=MAX_FRAME_BYTES), sizes)
    except (PictureError, OSError, UnsafeFile) as exc:
        log.debug("no picture of the frame %s: %s", base, exc)
        return {}
    return {frame_file(base, size, p.kind): p.data for size, p in made.items()}


def write_report(
    folder: Path,
    result: Mapping[str, Any],
    frames: Mapping[str, bytes | Path],
    *,
    rerun: str | None = None,
    note: str | None = None,
) -> Path | None:
    """Rule 4: ``folder/report.html`` for a finished run; its path, or None when it couldn't be written."""
    try:
        journal = read_journal(folder / "journal.jsonl")
    except (JournalError, OSError) as exc:
        log.debug("the report shows no journal: %s", exc)
        journal = []
    page = render_run(RunReport(result=result, journal=journal, frames=frames, rerun=rerun, note=note))
    file = folder / "report.html"
    try:
        atomic_write(file, utf8(page))
    except (OSError, UnsafeFile) as exc:
        log.warning("the report couldn't be written: %s (%s)", file, exc)
        return None
    return file


def write_index(folder: Path, results: Mapping[str, Any], *, here: str | None = None) -> Path | None:
    """Rule 4: ``folder/index.html`` for a suite's ``results.json`` (``here``: ``folder`` relative to the project)."""
    file = folder / "index.html"
    try:
        atomic_write(file, utf8(render_suite(results, here=here)))
    except (OSError, UnsafeFile) as exc:
        log.warning("the suite's page couldn't be written: %s (%s)", file, exc)
        return None
    return file


def newest_report(root: Path, *, runs: bool = False) -> Path | None:
    """The newest page under ``root/.mobster``: a suite's ``index.html`` (a run's ``report.html`` with ``runs``).

    Newest by the file's modification time; None when there is none.
    """
    pattern = "runs/*/report.html" if runs else "test-results/*/index.html"
    pages = [p for p in (root / ".mobster").glob(pattern) if p.is_file()]
    return max(pages, key=lambda p: p.stat().st_mtime, default=None)


#: How many of the newest runs ``heal_evidence`` looks through for a heal that names no run.
RUNS_SEARCHED = 500
#: The largest ``result.json`` read, in bytes.
MAX_RESULT_BYTES = 64 * 1024 * 1024


@attrs.frozen
class HealFrames:
    """Where a heal happened: its run's folder, its ``report.html`` and the frames before and after it.

    Paths are relative to the project; a frame is None when the run kept none of it.
    """

    run_dir: str
    report: str | None
    before: str | None
    after: str | None
    #: The screen the healed step was sent on when Smart recorded it (``_recorded``), None when not kept here.
    recorded: str | None = None


def heal_evidence(root: Path, check: Path, heal: HealEntry) -> HealFrames | None:
    """The run of the check file ``check`` (in the project ``root``) that made ``heal``, and its frames.

    The run is the one the heal names (``HealEntry.run_dir``); a heal of an older heal file names
    none, and the newest of the newest :data:`RUNS_SEARCHED` runs that holds it is taken. None
    when that run's folder is gone (cleaned), or holds no such heal.
    """
    try:  # as the run's result.json names it: relative to the project when it is inside
        file = str(check.resolve().relative_to(root.resolve()))
    except ValueError:
        file = str(check)
    if heal.run_dir is not None:
        folders = [root / heal.run_dir] if _is_run_dir(heal.run_dir) else []
    else:
        found = sorted((root / ".mobster" / "runs").glob("*/result.json"), key=_mtime, reverse=True)
        folders = [f.parent for f in found[:RUNS_SEARCHED]]
    for folder in folders:
        result = _result_in(folder)
        if result is None or result.file != file:
            continue
        for made in result.heals:
            if (made.step, made.from_, made.to) == (heal.step, heal.from_, heal.to):
                before, after = heal_frames(result.to_dict()["steps"], made.to_dict())
                report = folder / "report.html"
                return HealFrames(
                    run_dir=_rel(folder, root),
                    report=_rel(report, root) if report.is_file() else None,
                    before=_frame_path(folder, before, root),
                    after=_frame_path(folder, after, root),
                    recorded=_recorded_path(root, result.to_dict(), heal.step),
                )
    return None


def _recorded_path(root: Path, result: Mapping[str, Any], step: int) -> str | None:
    file = recorded_for(root, result, step)
    return None if file is None else _rel(file, root)


def _is_run_dir(run_dir: str) -> bool:
    """A heal file is text anyone may edit: the run it names is a folder of ``.mobster/runs``, nothing else."""
    parts = PurePosixPath(run_dir).parts
    return len(parts) == 3 and parts[:2] == (".mobster", "runs") and parts[2] not in ("", ".", "..")


def _result_in(folder: Path) -> CheckResult | None:
    """The run's ``result.json``, typed; None when it is missing, unsafe or not a result."""
    try:
        return CheckResult.from_dict(json.loads(read_private(folder / "result.json", max_bytes=MAX_RESULT_BYTES)))
    except (OSError, UnsafeFile, ValueError, RecursionError, ResultsError):
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _frame_path(folder: Path, base: str | None, root: Path) -> str | None:
    """The largest file kept of a frame: the full PNG, else its view, else its thumbnail."""
    if base is None:
        return None
    for size, kind in (("full", "png"), ("view", "png"), ("view", "jpg"), ("thumb", "png"), ("thumb", "jpg")):
        path = folder / frame_file(base, size, kind)
        if path.is_file():
            return _rel(path, root)
    return None
