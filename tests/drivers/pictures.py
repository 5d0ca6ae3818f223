"""Reading the scripted phone's pictures back in tests: a PNG as a raster (with Pillow), and a box's colours."""

from __future__ import annotations

import io

from mobster_drivers.devices.scripted._raster import RGB, Raster


def decoded(png: bytes) -> Raster:
    """A PNG read back as an RGB raster, by Pillow (the phone only writes them)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGB")
    data = rgb.tobytes()
    stride = 3 * rgb.width
    return Raster.from_rows(rgb.width, [data[y * stride : (y + 1) * stride] for y in range(rgb.height)])


def colours(raster: Raster, box: tuple[int, int, int, int]) -> dict[RGB, int]:
    """How many pixels of each colour a box holds (clipped to the raster)."""
    x0, y0, x1, y1 = raster.clip(box)
    counts: dict[RGB, int] = {}
    for y in range(y0, y1):
        row = raster.row(y)[3 * x0 : 3 * x1]
        for i in range(0, len(row), 3):
            key = (row[i], row[i + 1], row[i + 2])
            counts[key] = counts.get(key, 0) + 1
    return counts
