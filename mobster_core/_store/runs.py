"""The run folders: ``.mobster/runs/<run_id>/``, one per check run, their frames, and the ids of runs and suites.

Rule 1: an id sorts by time: ``20261130T051500Z-3f9a1c`` (UTC to the second, then 6 random hex
        digits, so two runs in one second don't collide).
Rule 2: a run folder is private (0700) and ``.mobster/.gitignore`` exists once one is made.
"""

from __future__ import annotations

import contextlib
import secrets
from datetime import UTC, datetime
from pathlib import Path

from .fsutil import MOBSTER_DIR, atomic_write, ensure_gitignore, private_dir

__all__ = ["drop_frame", "new_run_folder", "run_id", "write_frame"]


def run_id(at: datetime) -> str:
    """Rule 1's id of a run or suite started ``at`` (timezone-aware)."""
    return f"{at.astimezone(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def new_run_folder(root: Path, at: datetime) -> Path:
    """Make the folder of a run started ``at`` in the project at ``root`` (Rule 2); return it."""
    folder = private_dir(root / MOBSTER_DIR / "runs" / run_id(at))
    ensure_gitignore(root)
    return folder


def write_frame(folder: Path, name: str, png: bytes) -> None:
    """Write a frame (``frames/step-001-before.png``, the device's bytes as they are) into a run folder.

    Atomic and private like every file under ``.mobster/``; an ``OSError`` is the caller's to log.
    """
    atomic_write(folder / name, png)


def drop_frame(folder: Path, name: str) -> None:
    """Delete a frame of a run folder (one no step owns); a frame already gone, or that can't go, is left."""
    with contextlib.suppress(OSError):
        (folder / name).unlink(missing_ok=True)
