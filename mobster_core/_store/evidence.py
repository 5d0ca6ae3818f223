"""A run's evidence on disk: its frames, ``report.html`` beside ``result.json``, ``index.html`` beside ``results.json``.

Rule 1: which frames are kept at which size is ``_rules/frames.plan_frames``'s decision on the
        finished result; this module writes what it says into the run folder's ``frames/`` and
        nothing else. Frames are written after the verdict, so no picture work delays a step.
Rule 2: a frame whose picture can't be made (not a PNG this toolkit reads) loses that picture
        only; the report says the picture is missing. A frame or a page that can't be written
        is logged and costs the run nothing: the verdict and ``result.json`` are already written.
Rule 3: a picture made from a frame is remembered by the frame's digest (the last
        :data:`PICTURES_KEPT`): the same screen, met again in this run or a later one of the same
        process (a suite, the test suite), is not shrunk and encoded again.
Rule 4: the pages are rendered by ``_store/report.py`` (self-contained, CSP-strict, every outside
        string escaped) and written atomically, 0600, like every file under ``.mobster/``.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.frames import (
    THUMB_BOX,
    VIEW_BOX,
    FrameLimits,
    FramesMode,
    Picture,
    frame_file,
    heal_frames,
    make_picture,
    plan_frames,
    sniff,
)
from mobster_core._rules.image import PngError
from mobster_core._rules.text import utf8

from .fsutil import atomic_write
from .journal import JournalError, read_journal
from .report import RunReport, render_run, render_suite

__all__ = ["HealFrames", "heal_evidence", "keep_frames", "newest_report", "write_index", "write_report"]

log = get_logger(__name__)

#: Rule 3: how many pictures are remembered (thumbnails are a few KB, views tens of KB).
PICTURES_KEPT = 256
_pictures: OrderedDict[tuple[bytes, str], Picture] = OrderedDict()

#: A device's picture maker (``protocols.Pictures.picture``): a frame and a box in, PNG or JPEG out, or None.
Maker = Callable[[bytes, tuple[int, int]], "bytes | None"]


def _picture(png: bytes, size: str, maker: Maker | None = None) -> Picture:
    """Rule 3: :func:`make_picture` (or the device's ``maker``), remembered by the frame's digest."""
    key = (hashlib.blake2b(png, digest_size=16).digest(), size)
    found = _pictures.get(key)
    if found is not None:
        _pictures.move_to_end(key)
        return found
    picture = _made(png, size, maker) or make_picture(png, size)
    _pictures[key] = picture
    while len(_pictures) > PICTURES_KEPT:
        _pictures.popitem(last=False)
    return picture


def _made(png: bytes, size: str, maker: Maker | None) -> Picture | None:
    """The device's picture, when it made one that is a PNG or a JPEG (never trusted further)."""
    if maker is None:
        return None
    try:
        data = maker(png, THUMB_BOX if size == "thumb" else VIEW_BOX)
    except Exception as exc:  # noqa: BLE001 - a driver's picture that fails: the core makes it
        log.debug("the device's picture failed", error=str(exc))
        return None
    kind = None if data is None else sniff(data)
    if data is None or kind is None:
        return None
    return Picture(data, kind, 0, 0)


def keep_frames(
    folder: Path,
    result: Mapping[str, Any],
    taken: Mapping[str, bytes],
    mode: FramesMode | str = FramesMode.AUTO,
    maker: Maker | None = None,
) -> dict[str, bytes | Path]:
    """Rule 1: write the kept frames of ``taken`` (full PNGs by base name) into ``folder/frames``.

    ``maker`` is the device's picture maker (``protocols.Pictures``), when it has one: it makes the
    thumbnails and views, and the core makes any it declines.

    Returns what the report embeds and links: each written file's name (``frames/step-001-before.thumb.png``)
    mapped to its bytes.
    """
    plan = plan_frames(result, mode, sizes={base: len(png) for base, png in taken.items()}, limits=FrameLimits())
    files: dict[str, bytes | Path] = {}
    for base, png in taken.items():
        if base in plan.full:
            files[frame_file(base)] = png
        for size, wanted in (("thumb", plan.thumbs), ("view", plan.views)):
            if base not in wanted:
                continue
            try:
                picture = _picture(png, size, maker)
            except PngError as exc:
                log.debug("no picture of this frame", frame=base, size=size, error=str(exc))
                continue
            files[frame_file(base, size, picture.kind)] = picture.data
    for name, data in list(files.items()):
        try:
            atomic_write(folder / name, data if isinstance(data, bytes) else data.read_bytes())
        except OSError as exc:
            log.warning("a frame couldn't be written", file=str(folder / name), error=str(exc))
            files.pop(name)
    return files


def write_report(
    folder: Path, result: Mapping[str, Any], frames: Mapping[str, bytes | Path], *, rerun: str | None = None
) -> Path | None:
    """Rule 4: ``folder/report.html`` for a finished run; its path, or None when it couldn't be written."""
    try:
        journal = read_journal(folder / "journal.jsonl")
    except (JournalError, OSError) as exc:
        log.debug("the report shows no journal", error=str(exc))
        journal = []
    page = render_run(RunReport(result=result, journal=journal, frames=frames, rerun=rerun))
    file = folder / "report.html"
    try:
        atomic_write(file, utf8(page))
    except OSError as exc:
        log.warning("the report couldn't be written", file=str(file), error=str(exc))
        return None
    return file


def write_index(folder: Path, results: Mapping[str, Any], *, here: str | None = None) -> Path | None:
    """Rule 4: ``folder/index.html`` for a suite's ``results.json`` (``here``: ``folder`` relative to the project)."""
    file = folder / "index.html"
    try:
        atomic_write(file, utf8(render_suite(results, here=here)))
    except OSError as exc:
        log.warning("the suite's page couldn't be written", file=str(file), error=str(exc))
        return None
    return file


def newest_report(root: Path, *, runs: bool = False) -> Path | None:
    """The newest page under ``root/.mobster``: a suite's ``index.html`` (a run's ``report.html`` with ``runs``).

    Newest by the file's modification time; None when there is none.
    """
    pattern = "runs/*/report.html" if runs else "test-results/*/index.html"
    pages = [p for p in (root / ".mobster").glob(pattern) if p.is_file()]
    return max(pages, key=lambda p: p.stat().st_mtime, default=None)


#: How many of the newest runs ``heal_evidence`` looks through.
RUNS_SEARCHED = 500


@attrs.frozen
class HealFrames:
    """Where a heal happened: its run's folder, its ``report.html`` and the frames before and after it.

    Paths are relative to the project; a frame is None when the run kept none of it.
    """

    run_dir: str
    report: str | None
    before: str | None
    after: str | None


def heal_evidence(root: Path, file: str, step: int, change: tuple[str, str]) -> HealFrames | None:
    """The newest run of the check ``file`` (relative to ``root``) that made the heal of ``step`` ``change`` (from, to).

    None when no run of the newest :data:`RUNS_SEARCHED` holds it (their folders were cleaned).
    """
    runs = sorted((root / ".mobster" / "runs").glob("*/result.json"), key=_mtime, reverse=True)
    for result in runs[:RUNS_SEARCHED]:
        try:
            data = json.loads(result.read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or data.get("file") != file or not isinstance(data.get("steps"), list):
            continue
        for heal in data.get("heals") or []:
            if isinstance(heal, dict) and (heal.get("step"), heal.get("from"), heal.get("to")) == (step, *change):
                folder = result.parent
                before, after = heal_frames(data["steps"], heal)
                report = folder / "report.html"
                return HealFrames(
                    run_dir=_rel(folder, root),
                    report=_rel(report, root) if report.is_file() else None,
                    before=_frame_path(folder, before, root),
                    after=_frame_path(folder, after, root),
                )
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
