"""The scripted phone's canvas: an RGB raster it draws screens on, and the PNG encoder for it (stdlib only).

The scripted phone draws its screenshots here (``_draw``, ``_font``); nothing else decodes or
shrinks them (the report does that with Pillow), so this holds what drawing needs and no more.

Rule 1: a raster is 8-bit RGB, stored as PNG scanlines: each row is a filter byte (always 0,
        "none") followed by ``3 * width`` bytes. Encoding is one ``zlib.compress`` of the buffer.
Rule 2: boxes are half-open pixel rectangles ``(x0, y0, x1, y1)``: ``x0 <= x < x1``. Every drawing
        call clips its box to the raster and to the bounds set by :meth:`Raster.clipped`, so a box
        partly or wholly outside is not an error; an empty box draws nothing.
Rule 3: work proportional to the pixels is done by C code (slice assignment, ``bytes.translate``,
        ``zlib``); Python loops run per row, never per byte, except to blend partly transparent
        pixels.
Rule 4: the same drawing calls give the same bytes: nothing depends on the clock, the platform
        or dict order.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ["RGB", "Raster"]

#: A colour: red, green and blue, each 0..255.
RGB = tuple[int, int, int]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_WHITE: RGB = (255, 255, 255)


class Raster:
    """An RGB image held as PNG scanlines (Rule 1): draw on it, encode it.

    ``Raster(width, height, colour)`` is filled with ``colour``. Sizes are pixels, both at least 1.
    """

    __slots__ = ("bounds", "data", "height", "width")

    def __init__(self, width: int, height: int, colour: RGB = _WHITE) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"a raster is at least 1 x 1 pixels, got {width} x {height}")
        self.width = width
        self.height = height
        self.data = bytearray((b"\x00" + bytes(colour) * width) * height)
        #: Where drawing may land (Rule 2): the whole raster unless :meth:`clipped` narrows it.
        self.bounds = (0, 0, width, height)

    @classmethod
    def from_rows(cls, width: int, rows: Sequence[bytes]) -> Raster:
        """A raster from its rows of ``3 * width`` RGB bytes each, top first."""
        raster = cls.__new__(cls)
        raster.width, raster.height = width, len(rows)
        if width < 1 or not rows:
            raise ValueError(f"a raster is at least 1 x 1 pixels, got {width} x {len(rows)}")
        if any(len(row) != 3 * width for row in rows):
            raise ValueError(f"every row of a {width}-pixel-wide raster holds {3 * width} bytes")
        raster.data = bytearray(b"\x00" + b"\x00".join(rows))
        raster.bounds = (0, 0, width, len(rows))
        return raster

    # -- reading -------------------------------------------------------------------------------

    @property
    def stride(self) -> int:
        """The bytes per stored row: the filter byte and three per pixel."""
        return 1 + 3 * self.width

    def offset(self, x: int, y: int) -> int:
        """The index in :attr:`data` of the red byte of pixel ``(x, y)``."""
        return y * self.stride + 1 + 3 * x

    def pixel(self, x: int, y: int) -> RGB:
        """The colour at ``(x, y)``; ``IndexError`` off the raster."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) is off the {self.width} x {self.height} raster")
        o = self.offset(x, y)
        return (self.data[o], self.data[o + 1], self.data[o + 2])

    def row(self, y: int) -> bytes:
        """The RGB bytes of row ``y`` (``3 * width`` of them)."""
        o = y * self.stride + 1
        return bytes(self.data[o : o + 3 * self.width])

    def copy(self) -> Raster:
        """An independent copy."""
        raster = Raster.__new__(Raster)
        raster.width, raster.height, raster.data = self.width, self.height, bytearray(self.data)
        raster.bounds = (0, 0, self.width, self.height)
        return raster

    def clip(self, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """The box clipped to the bounds (Rule 2); empty boxes come back with ``x1 <= x0`` or ``y1 <= y0``."""
        x0, y0, x1, y1 = box
        bx0, by0, bx1, by1 = self.bounds
        return (max(bx0, x0), max(by0, y0), min(bx1, x1), min(by1, y1))

    @contextmanager
    def clipped(self, box: tuple[int, int, int, int]) -> Iterator[None]:
        """Within the ``with`` block, drawing lands only inside ``box`` (and the bounds before it)."""
        before = self.bounds
        self.bounds = self.clip(box)
        try:
            yield
        finally:
            self.bounds = before

    # -- drawing -------------------------------------------------------------------------------

    def fill(self, box: tuple[int, int, int, int], colour: RGB) -> None:
        """Paint a box with a colour."""
        x0, y0, x1, y1 = self.clip(box)
        if x1 <= x0 or y1 <= y0:
            return
        span = bytes(colour) * (x1 - x0)
        stride, data = self.stride, self.data
        o = self.offset(x0, y0)
        n = len(span)
        for _ in range(y0, y1):
            data[o : o + n] = span
            o += stride

    def hspan(self, x0: int, x1: int, y: int, colour: RGB) -> None:
        """Paint pixels ``x0 <= x < x1`` of row ``y`` (clipped)."""
        bx0, by0, bx1, by1 = self.bounds
        if by0 <= y < by1:
            x0, x1 = max(bx0, x0), min(bx1, x1)
            if x1 > x0:
                o = self.offset(x0, y)
                self.data[o : o + 3 * (x1 - x0)] = bytes(colour) * (x1 - x0)

    def blend(self, box: tuple[int, int, int, int], colour: RGB, alpha: float) -> None:
        """Lay ``colour`` over a box at opacity ``alpha`` (0..1): ``new = old * (1 - a) + colour * a``."""
        x0, y0, x1, y1 = self.clip(box)
        if x1 <= x0 or y1 <= y0 or alpha <= 0:
            return
        tables = [_blend_table(c, alpha) for c in colour]
        stride, data = self.stride, self.data
        if x0 == 0 and x1 == self.width and colour[0] == colour[1] == colour[2] and tables[0][0] == 0:
            # Whole rows towards black: one translate over the block; filter bytes map 0 -> 0.
            start, end = y0 * stride, y1 * stride
            data[start:end] = data[start:end].translate(tables[0])
            return
        n = 3 * (x1 - x0)
        o = self.offset(x0, y0)
        for _ in range(y0, y1):
            seg = data[o : o + n]
            for c in range(3):
                seg[c::3] = seg[c::3].translate(tables[c])
            data[o : o + n] = seg
            o += stride

    def blend_pixel(self, x: int, y: int, colour: RGB, alpha: float) -> None:
        """Lay ``colour`` over one pixel at opacity ``alpha`` (0..1); outside the bounds, nothing."""
        bx0, by0, bx1, by1 = self.bounds
        if bx0 <= x < bx1 and by0 <= y < by1 and alpha > 0:
            o = self.offset(x, y)
            data = self.data
            a = min(1.0, alpha)
            for c in range(3):
                data[o + c] = round(data[o + c] * (1 - a) + colour[c] * a)

    def paste(self, x: int, y: int, rows: Sequence[bytes]) -> None:
        """Copy rows of RGB bytes (all of one length) with their top-left pixel at ``(x, y)``, clipped."""
        if not rows:
            return
        width = len(rows[0]) // 3
        bx0, by0, bx1, by1 = self.bounds
        cx0, cx1 = max(bx0, x), min(bx1, x + width)
        first, last = max(0, by0 - y), min(len(rows), by1 - y)
        if cx1 <= cx0 or last <= first:
            return
        data, stride = self.data, self.stride
        o = (y + first) * stride + 1 + 3 * cx0
        n = 3 * (cx1 - cx0)
        if n == 3 * width:
            for row in rows[first:last]:
                data[o : o + n] = row
                o += stride
        else:
            a = 3 * (cx0 - x)
            for row in rows[first:last]:
                data[o : o + n] = row[a : a + n]
                o += stride

    def png(self, *, level: int = 3) -> bytes:
        """The raster as an 8-bit RGB PNG, compressed at zlib ``level`` (1 fast .. 9 small).

        Level 3 costs about a third of the default (6) on a phone screen, for about 40% more
        bytes: screenshots are taken at every step.
        """
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(self.data, level)) + _IEND


def _chunk(kind: bytes, data: bytes | bytearray) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


_IEND = _chunk(b"IEND", b"")

_BLEND_CACHE: dict[tuple[int, int], bytes] = {}


def _blend_table(colour: int, alpha: float) -> bytes:
    """``bytes.translate`` table mapping v to ``v * (1 - alpha) + colour * alpha``, rounded."""
    key = (colour, round(alpha * 1024))
    table = _BLEND_CACHE.get(key)
    if table is None:
        a = key[1] / 1024
        table = bytes(min(255, round(v * (1 - a) + colour * a)) for v in range(256))
        if len(_BLEND_CACHE) < 4096:
            _BLEND_CACHE[key] = table
    return table
