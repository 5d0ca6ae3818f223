"""Small pictures of screenshots for the report, made with Pillow when it is installed.

The real drivers (WebDriverAgent, the simulator, a USB iPhone, Appium) offer
``mobster_core.protocols.Pictures`` through :func:`pillow_picture`: the core's pure-Python toolkit
decodes a 1206 x 2622 screenshot whose rows use the paeth filter in seconds; Pillow does it in
milliseconds.

Rule 1: the picture is the core's: the screenshot shrunk by the smallest whole factor that fits
        the box, each output pixel the mean of its factor x factor block (``Image.reduce``, a box
        filter). A screenshot that already fits is returned as it is, as the device sent it.
Rule 2: it is encoded as PNG, and as JPEG (quality 75, 4:2:0, as the core's encoder) too when the
        PNG is over 8 KB; the smaller is returned. Flat interfaces stay PNG; photos become JPEG.
Rule 3: without Pillow, or for bytes Pillow can't read, the answer is None: the core makes the
        picture itself. Pillow is imported on the first call, never at import time.
"""

from __future__ import annotations

import io
import math

__all__ = ["pillow_picture"]

#: Rule 2: the PNG size over which JPEG is tried too, in bytes.
JPEG_TRY = 8 * 1024
#: The most pixels a screenshot may have here (a 4x iPad Pro is about 11 million).
MAX_PIXELS = 40_000_000


def pillow_picture(png: bytes, box: tuple[int, int]) -> bytes | None:
    """Rules 1-3: ``png`` shrunk to fit ``box`` (width, height in pixels), PNG or JPEG; None without Pillow."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        return None
    try:
        with Image.open(io.BytesIO(png)) as opened:
            if opened.format != "PNG" or opened.width * opened.height > MAX_PIXELS:
                return None
            image = opened.convert("RGB")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    factor = max(1, math.ceil(image.width / box[0]), math.ceil(image.height / box[1]))
    if factor == 1:
        return png
    image = image.reduce(factor)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    best = out.getvalue()
    if len(best) > JPEG_TRY:
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=75, subsampling="4:2:0")
        if len(out.getvalue()) < len(best):
            best = out.getvalue()
    return best
