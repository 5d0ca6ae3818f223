"""The small pictures a report embeds: a frame's thumbnail and view, made with Pillow.

Rule 1: a thumbnail or view is the full picture shrunk by the smallest whole factor that fits
        its box, each output pixel the mean of its factor x factor block (``Image.reduce``, a box
        filter), encoded as PNG (zlib level 9 for a thumbnail, 6 for a view), and as JPEG
        (quality 75, 4:2:0) too when the PNG is over a size where JPEG may do better; the
        smaller is kept. Flat interfaces compress best as PNG; photos, gradients and blur as JPEG
        (docs/benchmarks.md has the figures). A frame that already fits is its own picture, bytes
        unchanged, unless it is over that size and encoding it again is smaller. A frame is
        decoded once for all its pictures, and a PNG is never deflated past the size that
        decides against it.
Rule 2: only a PNG of at most :data:`MAX_PIXELS` pixels is read; transparency is laid over white.
        Anything else raises :class:`PictureError`: that frame loses its pictures, nothing more.
Rule 3: a picture made from a frame is remembered by the frame's digest (the last
        :data:`PICTURES_KEPT`): the same screen, met again in this run or a later one of the same
        process (a suite, the test suite), is not shrunk and encoded again.
Rule 4: Pillow is the report extra's (``mobster-replay[report]``, in every real driver's extra and the
        CLI's). Without it :func:`pillow` is False: the report is written without pictures and
        says so, and nothing here raises for it.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from ._frames import THUMB_BOX, VIEW_BOX

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["MAX_PIXELS", "PICTURES_KEPT", "Picture", "PictureError", "encode", "make_pictures", "pillow", "sniff"]

#: Rule 2: the largest frame read, in pixels (a 4x iPad Pro is about 11 million).
MAX_PIXELS = 40_000_000
#: Rule 1: the PNG size over which JPEG is tried too, in bytes, for a thumbnail and for a view.
JPEG_TRY = {"thumb": 8 * 1024, "view": 64 * 1024}
#: Rule 1: the box each size fits.
BOXES = {"thumb": THUMB_BOX, "view": VIEW_BOX}
#: Rule 1: the zlib level of a picture's PNG. Thumbnails are embedded for every step, so their
#: bytes count (level 9 is 10% smaller there); a text-rich view took level 9 six times as long as
#: level 6 (126 ms against 20) for 2% fewer bytes.
PNG_LEVEL = {"thumb": 9, "view": 6}
#: Rule 3: how many pictures are remembered (thumbnails are a few KB, views tens of KB).
PICTURES_KEPT = 256
_made: OrderedDict[tuple[bytes, str], Picture] = OrderedDict()


class PictureError(ValueError):
    """A frame no picture can be made of (Rule 2): the message says why."""


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


@functools.cache
def pillow() -> bool:
    """Rule 4: whether Pillow can be imported (looked for once a process)."""
    try:
        import PIL.Image  # noqa: F401 - only whether it imports
    except ImportError:
        return False
    return True


def make_pictures(png: bytes, sizes: Iterable[str]) -> dict[str, Picture]:
    """Rule 1: the pictures of a full PNG frame, by size (``thumb``, ``view``), from one decode.

    Raises :class:`PictureError` for a frame that isn't a PNG Pillow reads (Rule 2), and
    ``ImportError`` without Pillow.
    """
    key = hashlib.blake2b(png, digest_size=16).digest()
    wanted = list(dict.fromkeys(sizes))
    for size in wanted:
        if size not in BOXES:
            raise ValueError(f"a picture is a 'thumb' or a 'view', not {size!r}")
    found = {s: _made[(key, s)] for s in wanted if (key, s) in _made}
    missing = [s for s in wanted if s not in found]
    if missing:
        image = _decode(png)
        for size in missing:
            found[size] = _remember((key, size), _picture(png, image, size))
    for size in found:
        _made.move_to_end((key, size))
    return {s: found[s] for s in wanted}


def _remember(key: tuple[bytes, str], picture: Picture) -> Picture:
    _made[key] = picture
    while len(_made) > PICTURES_KEPT:
        _made.popitem(last=False)
    return picture


def _decode(png: bytes) -> Image.Image:
    """Rule 2: the frame as an RGB image, transparency over white."""
    from PIL import Image, UnidentifiedImageError

    if sniff(png) != "png":
        raise PictureError("not a PNG: the file does not start with the PNG signature")
    try:
        with Image.open(io.BytesIO(png), formats=["PNG"]) as opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise PictureError(f"{opened.width} x {opened.height} pixels is over the {MAX_PIXELS:,} a report reads")
            opened.load()
            if opened.mode in ("RGBA", "LA", "PA") or "transparency" in opened.info:
                rgba = opened.convert("RGBA")
                white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
                return Image.alpha_composite(white, rgba).convert("RGB")
            return opened if opened.mode == "RGB" else opened.convert("RGB")  # loaded: closing the file keeps it
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError) as exc:
        raise PictureError(f"not a PNG Pillow reads ({exc})") from exc


def _picture(png: bytes, image: Image.Image, size: str) -> Picture:
    """Rule 1 for one size."""
    box, jpeg_over = BOXES[size], JPEG_TRY[size]
    factor = max(1, math.ceil(image.width / box[0]), math.ceil(image.height / box[1]))
    if factor == 1:
        if len(png) <= jpeg_over:
            return Picture(png, "png", image.width, image.height)
        smaller = _smaller(image, jpeg_over, PNG_LEVEL[size])
        return smaller if len(smaller.data) < len(png) else Picture(png, "png", image.width, image.height)
    return _smaller(image.reduce(factor), jpeg_over, PNG_LEVEL[size])


def _smaller(image: Image.Image, jpeg_over: int, level: int) -> Picture:
    """PNG, and JPEG too when the PNG is over ``jpeg_over`` bytes: the smaller (a tie keeps PNG).

    The JPEG is made first (a millisecond or two), so the PNG is never deflated past the size
    that decides against it: ``jpeg_over`` or the JPEG's size, whichever is more. A photo's view
    PNG is ten times its JPEG, and deflating it whole was most of its picture's time.
    """
    jpg = encode(image, "jpg")
    png = _png_within(image, max(jpeg_over, len(jpg)), level)
    if png is not None:
        return Picture(png, "png", image.width, image.height)
    return Picture(jpg, "jpg", image.width, image.height)


def encode(image: Image.Image, kind: str, level: int = 9) -> bytes:
    """Rule 1's encodings: PNG at zlib ``level``, or baseline JPEG at quality 75, 4:2:0."""
    out = io.BytesIO()
    _save(image, kind, out, level)
    return out.getvalue()


def _save(image: Image.Image, kind: str, out: io.BytesIO, level: int) -> None:
    if kind == "png":
        image.save(out, format="PNG", compress_level=level)
    else:
        image.save(out, format="JPEG", quality=75, subsampling="4:2:0")


class _OverCap(Exception):  # a signal between two functions here, never raised further
    """The PNG being written is past its cap: it would not be kept."""


class _Capped(io.BytesIO):
    """A buffer that stops the encoder writing to it once it holds more than ``cap`` bytes."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap

    def write(self, data: Any) -> int:
        written = super().write(data)
        if self.tell() > self.cap:
            raise _OverCap
        return written


def _png_within(image: Image.Image, cap: int, level: int) -> bytes | None:
    """The image's PNG when it is at most ``cap`` bytes; None (and no more work) once it is past it."""
    out = _Capped(cap)
    try:
        _save(image, "png", out, level)
    except _OverCap:
        return None
    return out.getvalue()
