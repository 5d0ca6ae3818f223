"""The recorded screens: a thumbnail of the screen each step acted on when Smart recorded it.

Rule 1: when a run that Smart recorded passes (its path is stored), the thumbnail of the screen
        each of its steps was sent on (the report's own, at most ``THUMB_BOX``) is kept in
        ``.mobster/cache/screens/<identity>-<env>/step-NNN.thumb.png`` (or ``.jpg``), one per step,
        named by the step's number in the path: the path's keys name the folder, as they name the
        path. A thumbnail over :data:`MAX_RECORDED_BYTES` is not kept. Written atomically, 0600 in
        0700 folders; a path recorded again replaces the folder's files (a file of a step the new
        path no longer has goes).
Rule 2: the heal review shows the recorded screen of the healed step beside the screen it drifted
        on: the run's report (its heals) and ``mobster test heal`` (``HealFrames.recorded``), found
        by the heal run's identity and env. A carried path's screens are its own build's: they are
        looked for under the env it ran on, and are there only when that env recorded one.
Rule 3: the screens stay in the local cache (``.mobster/cache`` is not committed): a path kept with
        ``--paths committed`` and recorded on another machine has none here, and the review says
        the recorded screen isn't on this machine. Nothing else reads them; deleting the folder
        loses only the pictures.
Rule 4: keeping them is best effort, as every picture: a thumbnail that can't be written is
        logged, and costs the run and its page nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mobster_core.exceptions import UnsafeFile
from mobster_core.files import MOBSTER_DIR, atomic_write, read_private

from ._frames import base_of, frame_file
from ._pictures import sniff

__all__ = ["MAX_RECORDED_BYTES", "keep_recorded", "recorded_base", "recorded_for", "recorded_screen", "screens_folder"]

log = logging.getLogger(__name__)

#: Rule 1: the largest thumbnail kept for a recorded step (a report's thumbnail is a few KB).
MAX_RECORDED_BYTES = 256 * 1024
_KEY = re.compile(r"[0-9A-Za-z_-]{1,64}")
_NAME = re.compile(r"step-[0-9]{3}\.thumb\.(png|jpg)")


def screens_folder(root: Path, identity: object, env: object) -> Path | None:
    """Rule 1: the folder of a path's recorded screens; None when the keys aren't a path's."""
    if not (isinstance(identity, str) and isinstance(env, str) and _KEY.fullmatch(identity) and _KEY.fullmatch(env)):
        return None
    return root / MOBSTER_DIR / "cache" / "screens" / f"{identity}-{env}"


def keep_recorded(root: Path, result: Mapping[str, Any], kept: Mapping[str, bytes | Path]) -> None:
    """Rule 1: keep the thumbnails of a Smart recording that passed (``kept``: the run's pictures by name)."""
    if result.get("verdict") != "passed" or result.get("mode") != "smart":
        return
    folder = screens_folder(root, *_path_keys(result))
    steps = result.get("steps")
    if folder is None or not isinstance(steps, list):
        return
    wanted: dict[str, bytes] = {}
    for step in steps:
        index, base = step.get("index") if isinstance(step, dict) else None, None
        if isinstance(step, dict) and step.get("source") == "smart":
            base = base_of(step.get("frame"))
        if not isinstance(index, int) or not 1 <= index <= 999 or base is None:
            continue
        for kind in ("png", "jpg"):
            data = _picture(kept.get(frame_file(base, "thumb", kind)))
            if data is not None:
                wanted[f"step-{index:03d}.thumb.{kind}"] = data
                break
    try:
        _replace(folder, wanted)
    except (OSError, UnsafeFile) as exc:
        log.warning("the recorded screens couldn't be kept: %s (%s)", folder, exc)


def recorded_screen(root: Path, identity: object, env: object, step: object) -> Path | None:
    """Rule 2: the recorded screen of ``step`` (from 1) of the path with these keys; None when none is kept."""
    folder = screens_folder(root, identity, env)
    if folder is None or not isinstance(step, int) or not 1 <= step <= 999:
        return None
    for kind in ("png", "jpg"):
        file = folder / f"step-{step:03d}.thumb.{kind}"
        if file.is_file() and not file.is_symlink():
            return file
    return None


def recorded_base(step: int) -> str:
    """The base name a run's page gives a heal's recorded screen among its pictures (``recorded-003``)."""
    return f"recorded-{step:03d}"


def _path_keys(result: Mapping[str, Any]) -> tuple[object, object]:
    """The path's identity and env, as ``results.json`` has them (under ``path``)."""
    path = result.get("path")
    return (path.get("identity"), path.get("env")) if isinstance(path, dict) else (None, None)


def recorded_for(root: Path, result: Mapping[str, Any], step: object) -> Path | None:
    """Rule 2: the recorded screen of ``step`` of the path a run (its ``results.json`` entry) replayed."""
    return recorded_screen(root, *_path_keys(result), step)


def _picture(value: bytes | Path | None) -> bytes | None:
    """A kept thumbnail's bytes: a PNG or a JPEG within :data:`MAX_RECORDED_BYTES`, else None."""
    if isinstance(value, Path):
        try:
            value = read_private(value, max_bytes=MAX_RECORDED_BYTES)
        except (OSError, UnsafeFile):
            return None
    if not isinstance(value, bytes) or len(value) > MAX_RECORDED_BYTES or sniff(value) is None:
        return None
    return value


def _replace(folder: Path, wanted: Mapping[str, bytes]) -> None:
    """Rule 1: the folder holds exactly ``wanted`` (its other step files go), each written atomically."""
    for name, data in wanted.items():
        atomic_write(folder / name, data)
    if folder.is_dir() and not folder.is_symlink():
        for old in folder.iterdir():
            if _NAME.fullmatch(old.name) and old.name not in wanted and not old.is_dir():
                old.unlink(missing_ok=True)
