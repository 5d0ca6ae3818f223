"""Pictures as data: an RGB raster, PNG encoding and decoding, thumbnails and outlines (stdlib only).

The scripted phone draws its screenshots on a :class:`Raster`; a report decodes any device's PNG
frames, outlines the tapped target and shrinks them to thumbnails. Everything here is pure
Python and ``zlib``: the core needs no imaging library.

Rule 1: a raster is 8-bit RGB, stored as PNG scanlines: each row is a filter byte (always 0,
        "none") followed by ``3 * width`` bytes. Encoding is one ``zlib.compress`` of the buffer.
Rule 2: boxes are half-open pixel rectangles ``(x0, y0, x1, y1)``: ``x0 <= x < x1``. Every drawing
        call clips its box to the raster and to the bounds set by :meth:`Raster.clipped`, so a box
        partly or wholly outside is not an error; an empty box draws nothing.
Rule 3: work proportional to the pixels is done by C code (slice assignment, ``bytes.translate``,
        ``zlib``, big-integer arithmetic); Python loops run per row or per output pixel, never
        per input byte, except to undo the PNG filters "average" and "paeth" (which other
        encoders use and which have no such shortcut) and to blend partly transparent pixels.
Rule 4: :func:`decode_png` reads any non-interlaced PNG of bit depth 1, 2, 4, 8 or 16 in any
        colour type (grey, RGB, palette, grey with alpha, RGBA). Alpha is composited over a
        background colour (white unless told), 16-bit samples keep their high byte. Anything
        else (interlaced, a broken chunk, a wrong CRC, too little or too much data, more than
        :data:`MAX_PIXELS` pixels) raises :class:`PngError` saying what is wrong.
Rule 5: the same drawing calls give the same bytes: nothing depends on the clock, the platform
        or dict order.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

__all__ = ["MAX_PIXELS", "RGB", "PngError", "Raster", "decode_png", "encode_png", "frame_box"]

#: A colour: red, green and blue, each 0..255.
RGB = tuple[int, int, int]

#: The largest image :func:`decode_png` accepts, in pixels (a 4K frame is 8.3 million).
MAX_PIXELS = 40_000_000

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_MAX_FACTOR = 4096  # f * f * 255 must fit a 32-bit lane
_WHITE: RGB = (255, 255, 255)


class PngError(ValueError):
    """A PNG that can't be read: the message says what is wrong with it."""


def frame_box(frame: Sequence[float], width: int, height: int) -> tuple[int, int, int, int]:
    """The pixel box ``(x0, y0, x1, y1)`` of a normalized frame ``(x, y, w, h)`` on a raster.

    Edges are rounded to the nearest pixel; a frame with a positive width or height covers at
    least one pixel that way, so a hairline element still shows.
    """
    x, y, w, h = frame
    x0, y0 = round(x * width), round(y * height)
    x1, y1 = round((x + w) * width), round((y + h) * height)
    if w > 0 and x1 <= x0:
        x1 = x0 + 1
    if h > 0 and y1 <= y0:
        y1 = y0 + 1
    return (x0, y0, x1, y1)


class Raster:
    """An RGB image held as PNG scanlines (Rule 1): draw on it, shrink it, encode it.

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

    def colours(self, box: tuple[int, int, int, int]) -> dict[RGB, int]:
        """How many pixels of each colour a box holds (clipped to the raster); for tests and checks."""
        x0, y0, x1, y1 = self.clip(box)
        counts: dict[RGB, int] = {}
        for y in range(y0, y1):
            o = self.offset(x0, y)
            seg = self.data[o : o + 3 * (x1 - x0)]
            for i in range(0, len(seg), 3):
                key = (seg[i], seg[i + 1], seg[i + 2])
                counts[key] = counts.get(key, 0) + 1
        return counts

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

    def outline(self, box: tuple[int, int, int, int], colour: RGB, thickness: int = 2) -> None:
        """Draw the border of a box, ``thickness`` pixels wide, inside the box (a tapped target's frame).

        A box thinner than twice the thickness is filled. The border is clipped like any drawing.
        """
        x0, y0, x1, y1 = box
        if x1 <= x0 or y1 <= y0 or thickness < 1:
            return
        t = thickness
        self.fill((x0, y0, x1, min(y1, y0 + t)), colour)
        self.fill((x0, max(y0, y1 - t), x1, y1), colour)
        self.fill((x0, y0, min(x1, x0 + t), y1), colour)
        self.fill((max(x0, x1 - t), y0, x1, y1), colour)

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

    # -- shrinking -----------------------------------------------------------------------------

    def thumbnail(self, max_width: int, max_height: int) -> Raster:
        """A copy shrunk to fit ``max_width`` x ``max_height`` pixels, by a box filter.

        The raster is shrunk by the smallest whole factor ``f`` that fits: each output pixel is
        the rounded mean of an ``f`` x ``f`` block (the last row and column of blocks repeat the
        raster's edge pixels). A raster that already fits comes back as a copy.
        """
        if max_width < 1 or max_height < 1:
            raise ValueError(f"a thumbnail is at least 1 x 1 pixels, got {max_width} x {max_height}")
        f = max(1, math.ceil(self.width / max_width), math.ceil(self.height / max_height))
        if f == 1:
            return self.copy()
        if f > _MAX_FACTOR:  # only for absurd shapes (a 40-million-pixel line): two passes
            return self.shrink(64).thumbnail(max_width, max_height)
        return self.shrink(f)

    def shrink(self, factor: int) -> Raster:
        """A copy shrunk by a whole ``factor`` (1..4096) with a box filter (see :meth:`thumbnail`).

        Each block's sum is taken with big-integer arithmetic over 32-bit lanes (Rule 3): the
        rows of a block are added as integers, then the row sum is added to itself shifted by
        one pixel ``factor - 1`` times, which leaves each block's total in its last pixel.
        """
        f = factor
        if not 1 <= f <= _MAX_FACTOR:
            raise ValueError(f"a shrink factor is a whole number from 1 to {_MAX_FACTOR}, got {f}")
        out_w, out_h = -(-self.width // f), -(-self.height // f)
        pad = out_w * f - self.width
        n_bytes = 3 * out_w * f  # a padded row, in bytes; each becomes a 32-bit lane
        lanes = bytearray(4 * n_bytes)
        area = f * f
        half = area // 2
        first = 12 * (f - 1)  # output pixel q's sum ends up in input pixel q * f + f - 1
        picked = bytearray(12 * out_w)
        power_of_two = f & (f - 1) == 0
        shift = 2 * (f.bit_length() - 1)
        halves = int.from_bytes(half.to_bytes(4, "big") * (3 * out_w), "big")
        swap = sys.byteorder == "little"
        rows_out: list[bytes] = []
        for oy in range(out_h):
            total = 0
            for y in range(oy * f, oy * f + f):
                row = self.row(min(y, self.height - 1))
                if pad:
                    row += row[-3:] * pad
                lanes[3::4] = row
                total += int.from_bytes(lanes, "big")
            summed = total
            for k in range(1, f):
                summed += total >> (96 * k)
            raw = summed.to_bytes(4 * n_bytes, "big")
            for k in range(12):
                picked[k::12] = raw[first + k :: 12 * f]
            if power_of_two:
                # Divide every lane at once: add half the area, shift, keep each lane's low byte
                # (the mean is under 256, so bits shifted in from the lane above land higher).
                means = ((int.from_bytes(picked, "big") + halves) >> shift).to_bytes(len(picked), "big")
                rows_out.append(means[3::4])
                continue
            sums = array("I", bytes(picked))
            if swap:
                sums.byteswap()
            rows_out.append(bytes([(v + half) // area for v in sums]))
        return Raster.from_rows(out_w, rows_out)

    # -- encoding ------------------------------------------------------------------------------

    def png(self, *, level: int = 3) -> bytes:
        """The raster as an 8-bit RGB PNG, compressed at zlib ``level`` (1 fast .. 9 small).

        Level 3 costs about a third of the default (6) on a phone screen, for about 40% more
        bytes: screenshots are taken at every step.
        """
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(self.data, level)) + _IEND


def encode_png(raster: Raster, *, level: int = 3) -> bytes:
    """The raster as an 8-bit RGB PNG (the same as ``raster.png(level=level)``)."""
    return raster.png(level=level)


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


# -- decoding ----------------------------------------------------------------------------------

_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_COLOUR_NAMES = {0: "grey", 2: "RGB", 3: "palette", 4: "grey with alpha", 6: "RGBA"}


def decode_png(data: bytes, *, background: RGB = _WHITE) -> Raster:
    """Read a PNG into an RGB raster (Rule 4); alpha is composited over ``background``.

    Raises :class:`PngError` naming what is wrong for anything that is not a PNG this module
    reads. The "sub" and "up" filters are undone at C speed, "average" and "paeth" in Python
    (about 0.3 and 0.5 seconds a megabyte of samples); PNGs written by :func:`encode_png` use no
    filter and decode at C speed.
    """
    png = _read_png(data)
    channels = _CHANNELS[png.colour_type]
    row_bytes = (png.width * channels * png.depth + 7) // 8
    raw = _inflate(png.idat, png.height * (row_bytes + 1))
    rows = _unfilter(raw, png.height, row_bytes, max(1, channels * png.depth // 8))
    convert = _Converter(png, background)
    return Raster.from_rows(png.width, [convert.rgb(row) for row in rows])


class _Png(NamedTuple):
    """What a PNG's chunks say: its header, its palette and transparency, and its image data."""

    width: int
    height: int
    depth: int
    colour_type: int
    palette: bytes | None
    transparency: bytes | None
    idat: bytes


def _chunks(data: bytes) -> Iterator[tuple[bytes, bytes, int]]:
    """Each chunk of a PNG as ``(kind, body, offset)``, checked for length and CRC."""
    if not data.startswith(_SIGNATURE):
        raise PngError("not a PNG: the file does not start with the PNG signature")
    pos = len(_SIGNATURE)
    while pos < len(data):
        if pos + 12 > len(data):
            raise PngError(f"truncated PNG: a chunk header at byte {pos} is cut short")
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise PngError(f"truncated PNG: the {kind!r} chunk at byte {pos} is cut short")
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        if crc != zlib.crc32(body, zlib.crc32(kind)):
            raise PngError(f"damaged PNG: the {kind!r} chunk at byte {pos} fails its CRC")
        yield kind, body, pos
        pos += 12 + length


def _read_png(data: bytes) -> _Png:
    """The chunks this module reads, up to IEND; an unknown critical chunk can't be skipped."""
    header: tuple[int, int, int, int] | None = None
    found: dict[bytes, bytes] = {}
    idat: list[bytes] = []
    for kind, body, pos in _chunks(data):
        if header is None and kind != b"IHDR":
            raise PngError(f"not a valid PNG: the first chunk is {kind!r}, not IHDR")
        if kind == b"IEND":
            break
        if kind == b"IHDR":
            header = _header(body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind in (b"PLTE", b"tRNS"):
            found[kind] = body
        elif not kind[0] & 0x20:
            raise PngError(f"unsupported PNG: unknown critical chunk {kind!r} at byte {pos}")
    else:
        raise PngError("truncated PNG: no IEND chunk" if header is not None else "not a valid PNG: no IHDR chunk")
    assert header is not None  # the first chunk was IHDR, or the loop raised
    if not idat:
        raise PngError("not a valid PNG: no image data (IDAT)")
    if header[3] == 3 and b"PLTE" not in found:
        raise PngError("not a valid PNG: a palette image without a PLTE chunk")
    return _Png(*header, found.get(b"PLTE"), found.get(b"tRNS"), b"".join(idat))


def _header(body: bytes) -> tuple[int, int, int, int]:
    if len(body) != 13:
        raise PngError(f"not a valid PNG: IHDR holds {len(body)} bytes, not 13")
    width, height, depth, colour_type, method, filtering, interlace = struct.unpack(">IIBBBBB", body)
    if width < 1 or height < 1:
        raise PngError(f"not a valid PNG: the image is {width} x {height} pixels")
    if width * height > MAX_PIXELS:
        raise PngError(f"PNG too large: {width} x {height} pixels is over the {MAX_PIXELS:,} this reader takes")
    if colour_type not in _CHANNELS:
        raise PngError(f"not a valid PNG: unknown colour type {colour_type}")
    if depth not in _DEPTHS[colour_type]:
        raise PngError(f"not a valid PNG: bit depth {depth} is not allowed for {_COLOUR_NAMES[colour_type]} images")
    if method != 0 or filtering != 0:
        raise PngError(f"unsupported PNG: compression method {method}, filter method {filtering}")
    if interlace != 0:
        raise PngError("unsupported PNG: interlaced (Adam7) images are not read; save it without interlacing")
    return (width, height, depth, colour_type)


def _inflate(compressed: bytes, expected: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, expected + 1)
    except zlib.error as exc:
        raise PngError(f"damaged PNG: the image data does not decompress ({exc})") from exc
    if len(raw) > expected or inflater.unconsumed_tail:
        raise PngError(f"damaged PNG: the image data holds more than the {expected} bytes its size needs")
    if len(raw) < expected:
        raise PngError(f"truncated PNG: the image data holds {len(raw)} of the {expected} bytes its size needs")
    return raw


_MASKS: dict[int, tuple[int, int]] = {}


def _masks(n: int) -> tuple[int, int]:
    masks = _MASKS.get(n)
    if masks is None:
        masks = (int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big"))
        if len(_MASKS) < 64:
            _MASKS[n] = masks
    return masks


def _add_bytes(a: int, b: int, low: int, high: int) -> int:
    """Add two byte strings held as integers, byte by byte, modulo 256 (no carry between bytes)."""
    return ((a & low) + (b & low)) ^ ((a ^ b) & high)


def _unfilter(raw: bytes, height: int, row_bytes: int, bpp: int) -> list[bytes]:
    rows: list[bytes] = []
    prev = bytes(row_bytes)
    low, high = _masks(row_bytes)
    step = row_bytes + 1
    for y in range(height):
        kind = raw[y * step]
        line = raw[y * step + 1 : (y + 1) * step]
        if kind == 0:
            out = line
        elif kind == 1:  # sub: a prefix sum along the row, per byte of the pixel, in log steps
            x = int.from_bytes(line, "big")
            shift = 8 * bpp
            while shift < 8 * row_bytes:
                x = _add_bytes(x, x >> shift, low, high)
                shift *= 2
            out = x.to_bytes(row_bytes, "big")
        elif kind == 2:  # up
            out = _add_bytes(int.from_bytes(line, "big"), int.from_bytes(prev, "big"), low, high).to_bytes(
                row_bytes, "big"
            )
        elif kind == 3:
            out = _average(line, prev, bpp)
        elif kind == 4:
            out = _paeth(line, prev, bpp)
        else:
            raise PngError(f"damaged PNG: row {y} has unknown filter type {kind}")
        rows.append(out)
        prev = out
    return rows


def _average(line: bytes, prev: bytes, bpp: int) -> bytes:
    out = bytearray(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((left + prev[i]) >> 1)) & 0xFF
    return bytes(out)


def _paeth(line: bytes, prev: bytes, bpp: int) -> bytes:
    out = bytearray(line)
    for i in range(len(out)):
        if i >= bpp:
            a, c = out[i - bpp], prev[i - bpp]
        else:
            a = c = 0
        b = prev[i]
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        if pa <= pb and pa <= pc:
            predictor = a
        elif pb <= pc:
            predictor = b
        else:
            predictor = c
        out[i] = (out[i] + predictor) & 0xFF
    return bytes(out)


class _Converter:
    """Turns unfiltered rows of any PNG colour type into RGB bytes (Rule 4)."""

    def __init__(self, png: _Png, background: RGB) -> None:
        depth, colour_type = png.depth, png.colour_type
        self.width = png.width
        self.depth = depth
        self.colour_type = colour_type
        self.background = background
        self.key: bytes | None = None  # the one transparent colour of a grey or RGB image, as RGB
        self.unpack: list[bytes] | None = None
        if depth < 8:
            # A byte of packed samples -> its samples as bytes (grey levels scaled to 0..255).
            per = 8 // depth
            top = (1 << depth) - 1
            scale = 255 // top if colour_type == 0 else 1
            self.unpack = [bytes(((b >> (8 - depth * (k + 1))) & top) * scale for k in range(per)) for b in range(256)]
        if colour_type == 3:
            assert png.palette is not None
            self.tables = _palette_tables(png.palette, png.transparency or b"", background)
        elif png.transparency is not None and colour_type in (0, 2):
            self.key = _transparent_key(png.transparency, colour_type, depth)

    def samples(self, row: bytes) -> bytes:
        """The row as one byte per sample: packed samples unpacked, 16-bit samples' high bytes."""
        if self.unpack is not None:
            unpack = self.unpack  # only grey and palette images have packed samples: one per pixel
            return b"".join([unpack[b] for b in row])[: self.width]
        if self.depth == 16:
            return row[0::2]
        return row

    def rgb(self, row: bytes) -> bytes:
        s = self.samples(row)
        n = self.width
        ct = self.colour_type
        if ct == 3:
            out = bytearray(3 * n)
            for c in range(3):
                out[c::3] = s[:n].translate(self.tables[c])
            return bytes(out)
        if ct in (0, 4):
            grey = s[0::2] if ct == 4 else s
            out = bytearray(3 * n)
            out[0::3] = out[1::3] = out[2::3] = grey
            if ct == 4:
                return _composite(bytes(out), s[1::2], self.background)
            return self._keyed(bytes(out))
        if ct == 6:
            out = bytearray(3 * n)
            for c in range(3):
                out[c::3] = s[c::4]
            return _composite(bytes(out), s[3::4], self.background)
        return self._keyed(bytes(s))

    def _keyed(self, rgb: bytes) -> bytes:
        if self.key is None or self.key not in rgb:
            return rgb
        out = bytearray(rgb)
        bg = bytes(self.background)
        for i in range(0, len(out), 3):
            if out[i : i + 3] == self.key:
                out[i : i + 3] = bg
        return bytes(out)


def _palette_tables(palette: bytes, alpha: bytes, background: RGB) -> list[bytes]:
    if len(palette) % 3 or not palette:
        raise PngError(f"not a valid PNG: PLTE holds {len(palette)} bytes, not a multiple of 3")
    entries = len(palette) // 3
    tables = []
    for c in range(3):
        values = bytearray(256)
        for i in range(entries):
            a = alpha[i] if i < len(alpha) else 255
            values[i] = (palette[3 * i + c] * a + background[c] * (255 - a) + 127) // 255
        tables.append(bytes(values))
    return tables


def _transparent_key(transparency: bytes, colour_type: int, depth: int) -> bytes | None:
    values = [int.from_bytes(transparency[i : i + 2], "big") for i in range(0, len(transparency) - 1, 2)]
    if len(values) != (1 if colour_type == 0 else 3):
        return None
    if depth == 16:
        values = [v >> 8 for v in values]
    elif depth < 8:
        values = [v * (255 // ((1 << depth) - 1)) for v in values]
    if colour_type == 0:
        values = values * 3
    return bytes(v & 0xFF for v in values)


def _composite(rgb: bytes, alpha: bytes, background: RGB) -> bytes:
    """RGB over ``background`` at per-pixel ``alpha``; an opaque row is returned as is."""
    if alpha.count(255) == len(alpha):
        return rgb
    out = bytearray(rgb)
    bg = background
    for i, a in enumerate(alpha):
        if a != 255:
            o = 3 * i
            for c in range(3):
                out[o + c] = (out[o + c] * a + bg[c] * (255 - a) + 127) // 255
    return bytes(out)
