"""A baseline JPEG encoder in pure Python, for the report's thumbnails (stdlib only).

A report embeds a small picture of the screen for every step; JPEG keeps those a few kilobytes
each whatever the app shows (photos and gradients included), where PNG grows with the picture's
detail. The full frames stay PNG, as the device gave them.

Rule 1: the output is baseline sequential JPEG (SOF0) in a JFIF file: 8-bit YCbCr (the JFIF
        conversion), chroma subsampled 4:2:0 (each 2 x 2 block of pixels averaged), the standard
        quantization tables of ITU T.81 Annex K scaled to ``quality`` as libjpeg scales them, and
        the standard Huffman tables of Annex K.3. Any decoder reads it.
Rule 2: the picture is padded to whole 16 x 16 blocks by repeating its last column and row (the
        decoder crops to the size in the header), so the padding adds no edge to encode.
Rule 3: work proportional to the pixels runs in C where it can (colour conversion in big-integer
        lanes, chroma averaging by :meth:`Raster.shrink`, the bit string turned into bytes by
        ``int(..., 2)``); the DCT runs in Python per 8 x 8 block (the AAN factorization, its
        scale folded into the quantization), and a block of one colour skips it (its DC
        coefficient alone is the block). Flat interfaces are mostly such blocks.
Rule 4: the same raster and quality give the same bytes (no clock, no platform dependence:
        float arithmetic is IEEE double everywhere Python runs).
"""

from __future__ import annotations

import math
import struct

from .image import Raster

__all__ = ["DEFAULT_QUALITY", "encode_jpeg"]

#: The quality a report's thumbnails use (1..100, as libjpeg counts it).
DEFAULT_QUALITY = 75

# ITU T.81 Annex K.1: the example quantization tables, in natural (row by row) order.
_LUMA_Q = (
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
)  # fmt: skip
_CHROMA_Q = (
    17, 18, 24, 47, 99, 99, 99, 99,
    18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
)  # fmt: skip

# ITU T.81 Annex K.3: the typical Huffman tables: how many codes of each length 1..16, then the
# symbols in code order. A DC symbol is a size; an AC symbol is (zero run << 4) | size.
_DC_LUMA = ((0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0), tuple(range(12)))
_DC_CHROMA = ((0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0), tuple(range(12)))
_AC_LUMA = (
    (0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D),
    (
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
        0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
        0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
        0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
        0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
        0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
        0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
        0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
        0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
        0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
        0xF9, 0xFA,
    ),
)  # fmt: skip
_AC_CHROMA = (
    (0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77),
    (
        0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
        0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
        0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26,
        0x27, 0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
        0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
        0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
        0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5,
        0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
        0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
        0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
        0xF9, 0xFA,
    ),
)  # fmt: skip


def _zigzag() -> tuple[int, ...]:
    """The natural index of each zigzag position: the anti-diagonals, walked alternately."""
    order: list[int] = []
    for s in range(15):
        cells = [(r, s - r) for r in range(8) if 0 <= s - r < 8]
        if s % 2 == 0:
            cells.reverse()  # even diagonals run from bottom-left up to top-right
        order.extend(8 * r + c for r, c in cells)
    return tuple(order)


_ZIGZAG = _zigzag()
# AAN's scale per frequency: 1 for 0, else cos(k * pi / 16) * sqrt(2).
_AAN = tuple(1.0 if k == 0 else math.cos(k * math.pi / 16) * math.sqrt(2) for k in range(8))
_C4 = 0.707106781186547524  # cos(pi / 4)
_C6_S = 0.382683432365089772  # cos(3 pi / 8)
_C2_M_C6 = 0.541196100146196984  # cos(pi / 8) - cos(3 pi / 8)
_C2_P_C6 = 1.306562964876376527  # cos(pi / 8) + cos(3 pi / 8)


def _scaled(table: tuple[int, ...], quality: int) -> tuple[int, ...]:
    """The libjpeg scaling of a base table to ``quality`` (50 keeps it; 100 makes it all 1s)."""
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return tuple(min(255, max(1, (q * scale + 50) // 100)) for q in table)


def _reciprocals(table: tuple[int, ...]) -> tuple[float, ...]:
    """Per zigzag position, what multiplies the AAN DCT's output to give the quantized value."""
    return tuple(1.0 / (table[n] * _AAN[n // 8] * _AAN[n % 8] * 8.0) for n in _ZIGZAG)


def _codes(spec: tuple[tuple[int, ...], tuple[int, ...]]) -> dict[int, str]:
    """A Huffman table's code for each symbol, as a string of '0' and '1' (T.81 Annex C)."""
    counts, symbols = spec
    codes: dict[int, str] = {}
    code, k = 0, 0
    for length, n in enumerate(counts, 1):
        for _ in range(n):
            codes[symbols[k]] = format(code, f"0{length}b")
            code += 1
            k += 1
        code <<= 1
    return codes


def _bits(value: int) -> tuple[int, str]:
    """A coefficient's size category and its extra bits (T.81 F.1.2.1): ones' complement when negative."""
    if value == 0:
        return 0, ""
    size = abs(value).bit_length()
    raw = value if value > 0 else value + (1 << size) - 1
    return size, format(raw, f"0{size}b")


class _Table:
    """One component's tables: quantization and the DC and AC codes, with their strings cached."""

    __slots__ = ("ac", "ac_codes", "dc", "dc_codes", "eob", "reciprocal", "zrl")

    def __init__(
        self,
        quant: tuple[int, ...],
        dc: tuple[tuple[int, ...], tuple[int, ...]],
        ac: tuple[tuple[int, ...], tuple[int, ...]],
    ) -> None:
        self.reciprocal = _reciprocals(quant)
        self.dc_codes = _codes(dc)
        self.ac_codes = _codes(ac)
        self.eob = self.ac_codes[0x00]
        self.zrl = self.ac_codes[0xF0]
        self.dc: dict[int, str] = {}  # a DC difference -> its code and bits
        self.ac: dict[int, str] = {}  # (run << 12) + value + 2048 -> its code and bits

    def dc_string(self, diff: int) -> str:
        found = self.dc.get(diff)
        if found is None:
            size, extra = _bits(diff)
            found = self.dc[diff] = self.dc_codes[size] + extra
        return found

    def ac_string(self, run: int, value: int) -> str:
        key = (run << 12) + value + 2048
        found = self.ac.get(key)
        if found is None:
            size, extra = _bits(value)
            found = self.ac[key] = self.ac_codes[(run << 4) | size] + extra
        return found


def encode_jpeg(raster: Raster, *, quality: int = DEFAULT_QUALITY) -> bytes:
    """The raster as a baseline JFIF JPEG at ``quality`` (1..100; see the module rules)."""
    if not 1 <= quality <= 100:
        raise ValueError(f"a JPEG quality is 1 to 100, got {quality}")
    width, height = raster.width, raster.height
    if width > 65535 or height > 65535:
        raise ValueError(f"a JPEG is at most 65535 x 65535 pixels, got {width} x {height}")
    luma_q, chroma_q = _scaled(_LUMA_Q, quality), _scaled(_CHROMA_Q, quality)
    padded = _padded(raster)
    pw, ph = padded.width, padded.height
    y_plane = _planes(padded, luma_only=True)[0]
    _, cb_plane, cr_plane = _planes(padded.shrink(2), luma_only=False)
    luma = _Table(luma_q, _DC_LUMA, _AC_LUMA)
    chroma = _Table(chroma_q, _DC_CHROMA, _AC_CHROMA)
    out: list[str] = []
    prev = [0, 0, 0]
    cw = pw // 2
    for my in range(0, ph, 16):
        for mx in range(0, pw, 16):
            for dy, dx in ((0, 0), (0, 8), (8, 0), (8, 8)):
                prev[0] = _block(_rows(y_plane, pw, mx + dx, my + dy), table=luma, prev_dc=prev[0], out=out)
            prev[1] = _block(_rows(cb_plane, cw, mx // 2, my // 2), table=chroma, prev_dc=prev[1], out=out)
            prev[2] = _block(_rows(cr_plane, cw, mx // 2, my // 2), table=chroma, prev_dc=prev[2], out=out)
    bits = "".join(out)
    bits += "1" * (-len(bits) % 8)  # the last byte is padded with ones (T.81 F.1.2.3)
    entropy = int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""
    entropy = entropy.replace(b"\xff", b"\xff\x00")  # a 0xFF byte in the data is stuffed
    return b"".join(
        (
            b"\xff\xd8",
            _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"),
            _segment(0xDB, b"\x00" + bytes(luma_q[n] for n in _ZIGZAG) + b"\x01" + bytes(chroma_q[n] for n in _ZIGZAG)),
            _segment(0xC0, struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"),
            _segment(
                0xC4,
                _huffman(0x00, _DC_LUMA)
                + _huffman(0x10, _AC_LUMA)
                + _huffman(0x01, _DC_CHROMA)
                + _huffman(0x11, _AC_CHROMA),
            ),
            _segment(0xDA, b"\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00"),
            entropy,
            b"\xff\xd9",
        )
    )


def _segment(marker: int, body: bytes) -> bytes:
    return struct.pack(">BBH", 0xFF, marker, len(body) + 2) + body


def _huffman(klass_id: int, spec: tuple[tuple[int, ...], tuple[int, ...]]) -> bytes:
    counts, symbols = spec
    return bytes((klass_id, *counts, *symbols))


def _padded(raster: Raster) -> Raster:
    """Rule 2: the raster grown to whole 16 x 16 blocks by repeating its last column and row."""
    w, h = raster.width, raster.height
    pw, ph = -(-w // 16) * 16, -(-h // 16) * 16
    if (pw, ph) == (w, h):
        return raster
    rows = []
    for y in range(h):
        row = raster.row(y)
        rows.append(row + row[-3:] * (pw - w))
    rows.extend([rows[-1]] * (ph - h))
    return Raster.from_rows(pw, rows)


# Colour conversion in 32-bit lanes of one big integer (Rule 3): coefficients times 65536, the
# result's bits 16..23 are the value. Cb and Cr subtract their negative terms last, so no lane
# ever goes below zero and nothing borrows from the lane above.
_Y = (19595, 38470, 7471)  # 0.299, 0.587, 0.114
_CB = (11059, 21709, 32768)  # -0.168736 R - 0.331264 G + 0.5 B + 128
_CR = (32768, 27439, 5329)  # 0.5 R - 0.418688 G - 0.081312 B + 128


def _planes(raster: Raster, *, luma_only: bool) -> tuple[bytes, bytes, bytes]:
    """The raster's Y, Cb and Cr planes, one byte a pixel, rows concatenated (Cb, Cr empty if ``luma_only``)."""
    w = raster.width
    lanes = bytearray(4 * w)
    half = int.from_bytes(b"\x00\x00\x80\x00" * w, "big")  # rounding: +0.5
    offset = int.from_bytes(b"\x00\x80\x7f\xff" * w, "big")  # 128 and (almost) +0.5: max stays 255
    ys, cbs, crs = [], [], []
    for y in range(raster.height):
        row = raster.row(y)
        channels = []
        for c in range(3):
            lanes[3::4] = row[c::3]
            channels.append(int.from_bytes(lanes, "big"))
        r, g, b = channels
        ys.append((_Y[0] * r + _Y[1] * g + _Y[2] * b + half).to_bytes(4 * w, "big")[1::4])
        if not luma_only:
            cbs.append((offset + _CB[2] * b - _CB[0] * r - _CB[1] * g).to_bytes(4 * w, "big")[1::4])
            crs.append((offset + _CR[0] * r - _CR[1] * g - _CR[2] * b).to_bytes(4 * w, "big")[1::4])
    return b"".join(ys), b"".join(cbs), b"".join(crs)


def _rows(plane: bytes, stride: int, x: int, y: int) -> list[bytes]:
    """The 8 rows of 8 samples of the block at ``(x, y)`` of a plane ``stride`` samples wide."""
    o = y * stride + x
    return [plane[o + k * stride : o + k * stride + 8] for k in range(8)]


def _block(rows: list[bytes], *, table: _Table, prev_dc: int, out: list[str]) -> int:
    """Encode one 8 x 8 block of samples; append its bits to ``out``; return its DC."""
    first = rows[0]
    recip = table.reciprocal
    if first.count(first[0]) == 8 and rows.count(first) == 8:
        # One colour: every AC coefficient is 0 and the DC is 8 times the level-shifted sample.
        dc = round((first[0] - 128) * 64.0 * recip[0])
        out.append(table.dc_string(dc - prev_dc))
        out.append(table.eob)
        return dc
    ws = _dct(rows)
    q = [round(ws[n] * r) for n, r in zip(_ZIGZAG, recip, strict=True)]
    dc = q[0]
    out.append(table.dc_string(dc - prev_dc))
    last = 63
    while last > 0 and q[last] == 0:
        last -= 1
    run = 0
    for k in range(1, last + 1):
        v = q[k]
        if v == 0:
            run += 1
            continue
        while run > 15:
            out.append(table.zrl)
            run -= 16
        out.append(table.ac_string(run, v))
        run = 0
    if last < 63:
        out.append(table.eob)
    return dc


def _dct(rows: list[bytes]) -> list[float]:
    """The AAN forward DCT of a block of samples (level-shifted by 128 here), scaled as ``_AAN`` says."""
    ws: list[float] = [0.0] * 64
    c4, c6s, c2m, c2p = _C4, _C6_S, _C2_M_C6, _C2_P_C6
    for i, (d0, d1, d2, d3, d4, d5, d6, d7) in enumerate(rows):
        # The level shift (-128 a sample) cancels in differences and is -256 in sums.
        t0, t7 = d0 + d7 - 256, d0 - d7
        t1, t6 = d1 + d6 - 256, d1 - d6
        t2, t5 = d2 + d5 - 256, d2 - d5
        t3, t4 = d3 + d4 - 256, d3 - d4
        t10, t13 = t0 + t3, t0 - t3
        t11, t12 = t1 + t2, t1 - t2
        o = 8 * i
        ws[o] = t10 + t11
        ws[o + 4] = t10 - t11
        z1 = (t12 + t13) * c4
        ws[o + 2] = t13 + z1
        ws[o + 6] = t13 - z1
        t10, t11, t12 = t4 + t5, t5 + t6, t6 + t7
        z5 = (t10 - t12) * c6s
        z2 = c2m * t10 + z5
        z4 = c2p * t12 + z5
        z3 = t11 * c4
        z11, z13 = t7 + z3, t7 - z3
        ws[o + 5] = z13 + z2
        ws[o + 3] = z13 - z2
        ws[o + 1] = z11 + z4
        ws[o + 7] = z11 - z4
    _columns(ws)
    return ws


def _columns(ws: list[float]) -> None:
    """The DCT's second pass, down each column of ``ws``, in place."""
    c4, c6s, c2m, c2p = _C4, _C6_S, _C2_M_C6, _C2_P_C6
    for c in range(8):
        d0, d1, d2, d3, d4, d5, d6, d7 = ws[c::8]
        t0, t7 = d0 + d7, d0 - d7
        t1, t6 = d1 + d6, d1 - d6
        t2, t5 = d2 + d5, d2 - d5
        t3, t4 = d3 + d4, d3 - d4
        t10, t13 = t0 + t3, t0 - t3
        t11, t12 = t1 + t2, t1 - t2
        ws[c] = t10 + t11
        ws[c + 32] = t10 - t11
        z1 = (t12 + t13) * c4
        ws[c + 16] = t13 + z1
        ws[c + 48] = t13 - z1
        t10, t11, t12 = t4 + t5, t5 + t6, t6 + t7
        z5 = (t10 - t12) * c6s
        z2 = c2m * t10 + z5
        z4 = c2p * t12 + z5
        z3 = t11 * c4
        z11, z13 = t7 + z3, t7 - z3
        ws[c + 40] = z13 + z2
        ws[c + 24] = z13 - z2
        ws[c + 8] = z11 + z4
        ws[c + 56] = z11 - z4
