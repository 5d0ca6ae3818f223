"""A run's frames: which a run takes, and the names of their files in the run folder.

A frame is the device's screenshot, as it gave it (PNG). The core takes frames and writes them
as they arrive; it never decodes, shrinks or encodes one: what a report keeps of them, at which
size, is the reporter's business (``mobster_report``).

Rule 1 (modes, ``--frames``): ``none`` takes no frame at all (no screenshot beyond the model's);
        every other mode (``auto``, ``all``, ``failed``) takes the same frames, and tells the
        reporter which to keep (``docs/reports.md``).
Rule 2 (names): a run's frames live in its folder's ``frames/``. ``step-NNN-before.png`` is the
        screen the run's ``NNN``-th action was sent on (counted from 1, three digits or more),
        ``step-NNN-drifted.png`` the screen a step drifted on before the ``NNN``-th action (a
        step that drifts again before any action keeps the newest; the frame of a drift a heal
        stood in for, which no step owns, is deleted when the run ends), and ``final.png`` the
        screen at the end of the run (the one the verdict judged). The step that owns a frame
        names it (its ``frame``), so nothing pairs frames with steps by position.
"""

from __future__ import annotations

import enum

__all__ = ["FINAL_FRAME", "FramesMode", "drift_frame", "is_drift_frame", "step_frame"]

#: Rule 2: the frame taken at the end of a run.
FINAL_FRAME = "frames/final.png"


class FramesMode(enum.StrEnum):
    """``--frames``: whether a run takes frames, and which its reporter keeps (Rule 1)."""

    AUTO = "auto"
    ALL = "all"
    FAILED = "failed"
    NONE = "none"


def step_frame(action: int) -> str:
    """Rule 2: the file of the frame the ``action``-th action of a run was sent on (from 1)."""
    if action < 1:
        raise ValueError(f"actions are counted from 1, got {action}")
    return f"frames/step-{action:03d}-before.png"


def drift_frame(action: int) -> str:
    """Rule 2: the file of the frame a step drifted on, before the ``action``-th action (from 1)."""
    if action < 1:
        raise ValueError(f"actions are counted from 1, got {action}")
    return f"frames/step-{action:03d}-drifted.png"


def is_drift_frame(name: str) -> bool:
    """Rule 2: whether ``name`` is the file of a frame a step drifted on."""
    return name.startswith("frames/step-") and name.endswith("-drifted.png")
