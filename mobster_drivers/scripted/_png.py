"""A tiny screenshot renderer: grey rectangles on white, encoded as PNG with the standard library.

Rule 1: the image is 8-bit greyscale (PNG colour type 0), one filter byte (0, none) per row.
Rule 2: rectangles are drawn in the order given, so a child drawn after its parent shows on top.
Rule 3: frames are normalized (0..1); an empty frame draws nothing, any other covers at least
        one pixel each way.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

from mobster_core._screen import Frame

__all__ = ["SCREENSHOT_SIZE", "render_png"]

#: The screenshot size in pixels: small, in an iPhone's proportions (402 x 874 points).
SCREENSHOT_SIZE: tuple[int, int] = (120, 260)

_WHITE = 255
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def render_png(boxes: Iterable[tuple[Frame, int]], size: tuple[int, int] = SCREENSHOT_SIZE) -> bytes:
    """A PNG of ``size`` pixels: white, with each ``(frame, grey)`` box filled (grey 0..255)."""
    width, height = size
    pixels = [bytearray([_WHITE]) * width for _ in range(height)]
    for (x, y, w, h), grey in boxes:
        if w <= 0 or h <= 0:
            continue
        left = min(width - 1, int(x * width))
        top = min(height - 1, int(y * height))
        right = max(left + 1, min(width, round((x + w) * width)))
        bottom = max(top + 1, min(height, round((y + h) * height)))
        for row in pixels[top:bottom]:
            row[left:right] = bytes([grey]) * (right - left)
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
