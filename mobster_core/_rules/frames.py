"""A run's frames: what they are named, which are kept at which size, and the small pictures made from them.

A run takes a frame (a screenshot) before each step's action and one at the end. The report
(``_store/report.py``) embeds small pictures of them; the full pictures stay beside it in ``frames/``.
This module decides, purely, what is kept; the runner writes and deletes the files.

Rule 1 (names): frames live in the run folder's ``frames/``. ``step-NNN-before`` is the screen the
        ``NNN``-th entry of the result's ``steps`` acted on (its position in that list, from 1,
        three digits or more), taken just before its action was sent; for a step that drifted
        (its ``reason`` is set, nothing was sent) it is the screen it drifted on. ``final`` is the
        screen at the end of the run (the one the verdict judged, or where the run stopped). Each
        frame has up to three files: ``<base>.png`` (the full picture, as the device gave it),
        ``<base>.thumb.png`` or ``<base>.thumb.jpg`` (a thumbnail that fits
        :data:`THUMB_BOX`, for the list of steps) and ``<base>.view.png`` or ``<base>.view.jpg``
        (a picture that fits :data:`VIEW_BOX`, where text is legible, for the few frames the page
        shows large: the step that failed, each heal's before and after, the final screen).
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
Rule 4 (small pictures): a thumbnail or view is the full picture shrunk by the smallest whole
        factor that fits (a box filter, ``Raster.thumbnail``), encoded as PNG, and as JPEG too
        when the PNG is over a size where JPEG may do better; the smaller is kept. Flat
        interfaces compress best as PNG; photos, gradients and blur as JPEG (docs/reports.md
        has the figures). A frame that already fits is its own picture, bytes unchanged, unless
        it is over that size and encoding it again is smaller.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .image import Raster, decode_png
from .jpeg import encode_jpeg

__all__ = [
    "FINAL",
    "FULL_FIRST",
    "THUMB_BOX",
    "VIEW_BOX",
    "FrameLimits",
    "FramePlan",
    "FramesMode",
    "Picture",
    "frame_file",
    "heal_frames",
    "make_picture",
    "plan_frames",
    "sniff",
    "step_frame",
]

#: The base name of the frame taken at the end of a run.
FINAL = "final"
#: Steps whose full frames ``auto`` always keeps (Rule 2).
FULL_FIRST = 20
#: What a thumbnail fits, in pixels (width, height): 134 x 292 from a 402 or 1206 pixel wide screen.
THUMB_BOX = (140, 300)
#: What a view fits, in pixels: an iPhone screen at one pixel a point (text as legible as on the phone).
VIEW_BOX = (440, 960)
#: Rule 4: the PNG size over which JPEG is tried too, in bytes, for a thumbnail and for a view.
JPEG_TRY_THUMB = 8 * 1024
JPEG_TRY_VIEW = 64 * 1024


class FramesMode(enum.StrEnum):
    """``--frames``: which frames a run keeps (Rule 2)."""

    AUTO = "auto"
    ALL = "all"
    FAILED = "failed"
    NONE = "none"


@attrs.frozen
class FrameLimits:
    """Rule 3's cap on a run's full pictures: how many, and how many bytes in all."""

    max_full: int = 60
    max_full_bytes: int = 64 * 1024 * 1024


def step_frame(position: int) -> str:
    """The base name of the frame before the ``position``-th step (from 1): ``step-003-before``."""
    if position < 1:
        raise ValueError(f"steps are numbered from 1, got {position}")
    return f"step-{position:03d}-before"


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
    """Which frames a run keeps, by base name (Rule 1): full, as a thumbnail, as a view.

    ``take`` says whether the run takes frames at all (``--frames none`` doesn't).
    """

    take: bool
    full: frozenset[str] = frozenset()
    thumbs: frozenset[str] = frozenset()
    views: frozenset[str] = frozenset()

    def keeps(self, base: str) -> bool:
        """Whether any file of this frame is kept."""
        return base in self.full or base in self.thumbs or base in self.views


def heal_frames(steps: Sequence[Mapping[str, Any]], heal: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The base names of a heal's frames: the screen before its first action and the screen after its last.

    The healed steps are the entries of ``steps`` whose ``source`` is ``healed``, the first of them
    numbered ``heal["step"]`` (a heal's actions stand in the drifted step's place). The frame
    after is the next step's, or the final frame when the heal ended the run. ``(None, None)``
    when the steps hold no such entry (a heal that took no action).
    """
    number = heal.get("step")
    new = heal.get("new")
    count = len(new) if isinstance(new, list | tuple) else 0
    for p, step in enumerate(steps, 1):
        if step.get("source") == "healed" and step.get("index") == number:
            last = p
            while last - p + 1 < count and last < len(steps) and steps[last].get("source") == "healed":
                last += 1
            after = step_frame(last + 1) if last < len(steps) else FINAL
            return step_frame(p), after
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
    taken: the runner keeps what it has.
    """
    mode = FramesMode(mode)
    if mode is FramesMode.NONE:
        return FramePlan(take=False)
    steps = _steps(result)
    everything = [step_frame(p) for p in range(1, len(steps) + 1)]
    passed = result.get("verdict") == "passed"
    if mode is FramesMode.FAILED and passed:
        return FramePlan(take=True, full=frozenset({FINAL}), thumbs=frozenset({FINAL}), views=frozenset({FINAL}))
    matter = _matter(result, steps)
    if mode is FramesMode.ALL:
        wanted = everything
    else:
        wanted = [b for p, b in enumerate(everything, 1) if p <= FULL_FIRST or b in matter]
    full = _capped([FINAL, *wanted], matter | {FINAL}, sizes or {}, limits)
    return FramePlan(
        take=True,
        full=frozenset(full),
        thumbs=frozenset([*everything, FINAL]),
        views=frozenset(matter | {FINAL}),
    )


def _steps(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    steps = result.get("steps")
    if not isinstance(steps, list | tuple):
        return []
    return [s if isinstance(s, Mapping) else {} for s in steps]


def _matter(result: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> set[str]:
    """Rule 2's frames that matter: drifted steps, healed steps and the screens they left, a failed run's last step."""
    matter: set[str] = set()
    for p, step in enumerate(steps, 1):
        if step.get("reason") is not None or step.get("source") == "healed":
            matter.add(step_frame(p))
            if step.get("source") == "healed":
                matter.add(step_frame(p + 1) if p < len(steps) else FINAL)
    heals = result.get("heals")
    for heal in heals if isinstance(heals, list | tuple) else ():
        if isinstance(heal, Mapping):
            matter.update(b for b in heal_frames(steps, heal) if b is not None)
    if result.get("verdict") != "passed" and steps:
        matter.add(step_frame(len(steps)))
    return matter


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


# -- pictures ------------------------------------------------------------------------------------


@attrs.frozen
class Picture:
    """A small picture made from a frame: its bytes, ``png`` or ``jpg``, and its size in pixels."""

    data: bytes
    kind: str
    width: int
    height: int


def sniff(data: bytes) -> str | None:
    """``png`` or ``jpg`` by the file's first bytes; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    return None


def make_picture(png: bytes, size: str = "thumb") -> Picture:
    """A thumbnail (``size="thumb"``) or a view (``"view"``) of a full PNG frame (Rule 4).

    Raises :class:`~mobster_core.image.PngError` when the frame is not a PNG this toolkit reads.
    """
    if size not in ("thumb", "view"):
        raise ValueError(f"a picture is a 'thumb' or a 'view', not {size!r}")
    box, jpeg_over = (THUMB_BOX, JPEG_TRY_THUMB) if size == "thumb" else (VIEW_BOX, JPEG_TRY_VIEW)
    raster = decode_png(png)
    if raster.width <= box[0] and raster.height <= box[1]:
        if len(png) <= jpeg_over:
            return Picture(png, "png", raster.width, raster.height)
        smaller = _smaller(raster, jpeg_over)
        return smaller if len(smaller.data) < len(png) else Picture(png, "png", raster.width, raster.height)
    return _smaller(raster.thumbnail(*box), jpeg_over)


def _smaller(raster: Raster, jpeg_over: int) -> Picture:
    png = raster.png(level=9)
    if len(png) > jpeg_over:
        jpg = encode_jpeg(raster)
        if len(jpg) < len(png):
            return Picture(jpg, "jpg", raster.width, raster.height)
    return Picture(png, "png", raster.width, raster.height)
