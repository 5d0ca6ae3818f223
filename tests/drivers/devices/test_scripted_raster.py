"""The scripted phone's canvas: drawing calls clip, blend and encode as they say (PNGs read back with Pillow)."""

from __future__ import annotations

import random

import pytest

from mobster_drivers.devices.scripted._raster import RGB, Raster
from tests.drivers.pictures import colours, decoded

SIGNATURE = b"\x89PNG\r\n\x1a\n"
RED: RGB = (255, 0, 0)
WHITE: RGB = (255, 255, 255)


def random_rows(rng: random.Random, width: int, height: int, channels: int = 3) -> list[bytes]:
    return [bytes(rng.randrange(256) for _ in range(width * channels)) for _ in range(height)]


def rows_of(raster: Raster) -> list[bytes]:
    return [raster.row(y) for y in range(raster.height)]


def test_a_raster_round_trips_through_png() -> None:
    rng = random.Random(1)
    rows = random_rows(rng, 13, 7)
    raster = Raster.from_rows(13, rows)
    png = raster.png()
    assert png.startswith(SIGNATURE)
    assert rows_of(decoded(png)) == rows
    assert raster.png(level=9) != png  # another level, other bytes, same picture
    assert rows_of(decoded(raster.png(level=9))) == rows


def test_encoding_is_deterministic() -> None:
    raster = Raster(20, 10, (10, 20, 30))
    raster.fill((2, 2, 8, 8), (200, 0, 0))
    assert raster.png() == raster.copy().png()


def test_fill_clips_to_the_raster() -> None:
    raster = Raster(10, 8)
    raster.fill((-5, -5, 3, 2), RED)
    assert colours(raster, (0, 0, 10, 8)) == {RED: 6, WHITE: 74}
    raster.fill((5, 5, 50, 50), RED)  # off the raster on two sides: no error
    assert raster.pixel(9, 7) == raster.pixel(5, 5) == RED
    assert raster.pixel(4, 4) == WHITE
    raster.fill((2, 2, 2, 7), RED)  # an empty box draws nothing
    assert raster.pixel(2, 3) == WHITE


def test_clipped_bounds_hold_every_drawing_call() -> None:
    raster = Raster(10, 10)
    with raster.clipped((2, 2, 5, 5)):
        raster.fill((0, 0, 10, 10), RED)
        raster.hspan(0, 10, 8, RED)
        raster.paste(0, 0, [bytes(RED) * 10] * 10)
        raster.blend_pixel(9, 9, RED, 1.0)
        with raster.clipped((0, 0, 3, 3)):
            assert raster.bounds == (2, 2, 3, 3)
    assert raster.bounds == (0, 0, 10, 10)
    assert colours(raster, (0, 0, 10, 10)) == {RED: 9, WHITE: 91}


def test_blend_over_whole_rows_matches_blend_over_part_of_them() -> None:
    rows = random_rows(random.Random(2), 6, 4)
    whole, part = Raster.from_rows(6, rows), Raster.from_rows(6, rows)
    whole.blend((0, 0, 6, 4), (0, 0, 0), 0.4)  # the one-translate path
    part.blend((0, 0, 6, 4), (0, 0, 1), 0.4)  # the per-row path (not grey)
    for y in range(4):
        for x in range(6):
            r, g, _ = whole.pixel(x, y)
            r2, g2, _ = part.pixel(x, y)
            assert (r, g) == (r2, g2)
            assert r == round(Raster.from_rows(6, rows).pixel(x, y)[0] * 0.6)
    assert rows_of(decoded(whole.png())) == rows_of(whole)  # filter bytes are still "none"


def test_a_raster_is_at_least_one_pixel() -> None:
    with pytest.raises(ValueError, match="at least 1 x 1"):
        Raster(0, 3)
    with pytest.raises(ValueError, match="holds 9 bytes"):
        Raster.from_rows(3, [bytes(8)])
    with pytest.raises(IndexError, match="off the 3 x 1 raster"):
        Raster(3, 1).pixel(3, 0)
