"""A run's frames in its report: which are kept at which size, and what their files are named.

The core takes the frames and writes each as it arrives (``frames/step-003-before.png``, the
device's own PNG); each step of ``result.json`` names its own (``frame``) and the run its final
one (``final_frame``). This module decides, purely, what the report keeps of them; the writer
(``_evidence``) makes the small pictures and deletes the full frames it doesn't keep.

Rule 1 (names): a frame's *base* is its file's name in ``frames/`` without ``.png``
        (``step-003-before``, ``step-004-drifted``, ``final``). Each frame has up to three
        files: ``<base>.png`` (the full picture, as the device gave it), ``<base>.thumb.png`` or
        ``<base>.thumb.jpg`` (a thumbnail that fits :data:`THUMB_BOX`, for the list of steps)
        and ``<base>.view.png`` or ``<base>.view.jpg`` (a picture that fits :data:`VIEW_BOX`,
        where text is legible, for the few frames the page shows large: the step that failed,
        each heal's before and after, the final screen). A ``frame`` in a results file that
        isn't ``frames/<letters, digits, - or _>.png`` names no frame: nothing is read or
        deleted through it.
Rule 2 (modes, ``--frames``): ``none`` takes no frames; ``failed`` keeps the frames of a run that
        did not pass as ``auto`` would, and only the final frame of a run that passed; ``all``
        keeps every frame in full; ``auto`` (the default) keeps a thumbnail of every step, and
        the full picture of the first :data:`FULL_FIRST` steps, and past them only of the steps
        that matter: a step that drifted, a healed step and the step after it (the screen the heal
        left), and the last step of a run that did not pass. The final frame is always kept.
Rule 3 (the cap): whatever the mode, a run keeps at most ``max_full`` full pictures and
        ``max_full_bytes`` bytes of them. Past the cap, the frames that matter (Rule 2) and the
        final frame go first, then the rest evenly spread from the first step to the last, so
        the page still shows the whole run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from mobster_core.results import FramesMode

__all__ = [
    "FINAL",
    "FULL_FIRST",
    "THUMB_BOX",
    "VIEW_BOX",
    "FrameLimits",
    "FramePlan",
    "base_of",
    "frame_file",
    "heal_frames",
    "plan_frames",
    "step_bases",
]

#: The base name of the frame taken at the end of a run.
FINAL = "final"
#: Steps whose full frames ``auto`` always keeps (Rule 2).
FULL_FIRST = 20
#: What a thumbnail fits, in pixels (width, height): 134 x 292 from a 402 or 1206 pixel wide screen.
THUMB_BOX = (140, 300)
#: What a view fits, in pixels: an iPhone screen at one pixel a point (text as legible as on the phone).
VIEW_BOX = (440, 960)

_FRAME = re.compile(r"frames/([A-Za-z0-9][A-Za-z0-9_-]{0,99})\.png")


@attrs.frozen
class FrameLimits:
    """Rule 3's cap on a run's full pictures: how many, and how many bytes in all."""

    max_full: int = 60
    max_full_bytes: int = 64 * 1024 * 1024


def base_of(name: object) -> str | None:
    """Rule 1: the base of a frame's file name (``frames/step-003-before.png`` -> ``step-003-before``), or None."""
    if not isinstance(name, str):
        return None
    found = _FRAME.fullmatch(name)
    return None if found is None else found.group(1)


def step_bases(steps: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """Each step's frame (Rule 1), in the order of ``steps``: its base, or None when it has none."""
    return [base_of(s.get("frame")) for s in steps]


def frame_file(base: str, size: str = "full", kind: str = "png") -> str:
    """The path of a frame's file in the run folder: ``frames/<base>.png``, ``frames/<base>.thumb.jpg``.

    ``size`` is ``full``, ``thumb`` or ``view``; ``kind`` is ``png`` or ``jpg`` (a full frame is
    always PNG, as the device gives it).
    """
    if size not in ("full", "thumb", "view") or kind not in ("png", "jpg") or (size == "full" and kind != "png"):
        raise ValueError(f"no frame file of size {size!r} and kind {kind!r}")
    middle = "" if size == "full" else f".{size}"
    return f"frames/{base}{middle}.{kind}"


@attrs.frozen
class FramePlan:
    """Which frames a run keeps, by base name (Rule 1): full, as a thumbnail, as a view."""

    full: frozenset[str] = frozenset()
    thumbs: frozenset[str] = frozenset()
    views: frozenset[str] = frozenset()

    def keeps(self, base: str) -> bool:
        """Whether any file of this frame is kept."""
        return base in self.full or base in self.thumbs or base in self.views


def heal_frames(steps: Sequence[Mapping[str, Any]], heal: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The bases of a heal's frames: the screen before its first action and the screen after its last.

    The healed steps are the entries of ``steps`` whose ``source`` is ``healed``, the first of them
    numbered ``heal["step"]`` (a heal's actions stand in the drifted step's place). The frame
    after is the next step's, or the final frame when the heal ended the run. ``(None, None)``
    when the steps hold no such entry (a heal that took no action).
    """
    number = heal.get("step")
    new = heal.get("new")
    count = len(new) if isinstance(new, list | tuple) else 0
    bases = step_bases(steps)
    for p, step in enumerate(steps, 1):
        if step.get("source") == "healed" and step.get("index") == number:
            last = p
            while last - p + 1 < count and last < len(steps) and steps[last].get("source") == "healed":
                last += 1
            after = bases[last] if last < len(steps) else FINAL
            return bases[p - 1], after
    return None, None


def plan_frames(
    result: Mapping[str, Any],
    mode: FramesMode | str = FramesMode.AUTO,
    *,
    sizes: Mapping[str, int] | None = None,
    limits: FrameLimits = FrameLimits(),
) -> FramePlan:
    """Which frames of a finished run to keep (Rules 2 and 3).

    ``result`` is the run's ``result.json`` shape (its ``verdict``, ``steps`` and ``heals`` are
    read). ``sizes`` gives the bytes of each full frame taken, by base name, for the byte cap;
    frames missing from it count as nothing. The plan names frames whether or not they were
    taken: the writer keeps what there is.
    """
    mode = FramesMode(mode)
    if mode is FramesMode.NONE:
        return FramePlan()
    steps = _steps(result)
    bases = step_bases(steps)
    everything = [b for b in bases if b is not None]
    passed = result.get("verdict") == "passed"
    if mode is FramesMode.FAILED and passed:
        return FramePlan(full=frozenset({FINAL}), thumbs=frozenset({FINAL}), views=frozenset({FINAL}))
    matter = _matter(result, steps, bases)
    if mode is FramesMode.ALL:
        wanted = everything
    else:
        wanted = [b for p, b in enumerate(bases, 1) if b is not None and (p <= FULL_FIRST or b in matter)]
    full = _capped([FINAL, *wanted], matter | {FINAL}, sizes or {}, limits)
    return FramePlan(
        full=frozenset(full),
        thumbs=frozenset([*everything, FINAL]),
        views=frozenset(matter | {FINAL}),
    )


def _steps(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    steps = result.get("steps")
    if not isinstance(steps, list | tuple):
        return []
    return [s if isinstance(s, Mapping) else {} for s in steps]


def _matter(result: Mapping[str, Any], steps: Sequence[Mapping[str, Any]], bases: Sequence[str | None]) -> set[str]:
    """Rule 2's frames that matter: drifted steps, healed steps and the screens they left, a failed run's last step."""
    matter: set[str | None] = set()
    for p, step in enumerate(steps, 1):
        if step.get("reason") is not None or step.get("source") == "healed":
            matter.add(bases[p - 1])
            if step.get("source") == "healed":
                matter.add(bases[p] if p < len(steps) else FINAL)
    heals = result.get("heals")
    for heal in heals if isinstance(heals, list | tuple) else ():
        if isinstance(heal, Mapping):
            matter.update(heal_frames(steps, heal))
    if result.get("verdict") != "passed" and steps:
        matter.add(bases[-1])
    return {b for b in matter if b is not None}


def _capped(wanted: Sequence[str], first: set[str], sizes: Mapping[str, int], limits: FrameLimits) -> list[str]:
    """Rule 3: the frames that matter first, then an even spread of the rest, within the count and the bytes."""
    rest = [b for b in wanted if b not in first]
    order = [b for b in wanted if b in first] + _spread(rest)
    kept: list[str] = []
    spent = 0
    for base in order:
        if len(kept) >= limits.max_full:
            break
        size = sizes.get(base, 0)
        if spent + size > limits.max_full_bytes:
            continue  # a smaller frame further on may still fit
        kept.append(base)
        spent += size
    return kept


def _spread(items: Sequence[str]) -> list[str]:
    """``items`` reordered so any prefix of the result is spread evenly over them (first and last first)."""
    n = len(items)
    if n <= 2:
        return list(items)
    order = [0, n - 1]
    seen = set(order)
    step = n - 1
    while len(order) < n:
        step = max(1, step // 2)
        for k in range(0, n, step):
            if k not in seen:
                seen.add(k)
                order.append(k)
    return [items[k] for k in order]
