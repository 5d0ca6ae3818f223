"""The stdlib image toolkit: PNG in and out, every filter and colour type, thumbnails, outlines."""

from __future__ import annotations

import io
import random
import struct
import zlib
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobster_core.image import MAX_PIXELS, RGB, PngError, Raster, decode_png, encode_png, frame_box

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filtered(row: bytes, prev: bytes, kind: int, bpp: int) -> bytes:
    """The PNG specification's filters, written out plainly, as a reference for the decoder."""
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        predictor = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - predictor) % 256)
    return bytes(out)


def write_png(
    width: int,
    rows: Sequence[bytes],
    *,
    colour_type: int,
    depth: int = 8,
    filters: Sequence[int] | None = None,
    extra: Sequence[tuple[bytes, bytes]] = (),
    interlace: int = 0,
) -> bytes:
    """A PNG of raw (unfiltered, packed) rows, each row filtered with the given filter type."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour_type]
    bpp = max(1, channels * depth // 8)
    raw = bytearray()
    prev = bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = filters[y % len(filters)] if filters else 0
        raw += bytes([kind]) + filtered(row, prev, kind, bpp)
        prev = row
    header = struct.pack(">IIBBBBB", width, len(rows), depth, colour_type, 0, 0, interlace)
    body = b"".join(chunk(k, d) for k, d in extra)
    return SIGNATURE + chunk(b"IHDR", header) + body + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b"")


def random_rows(rng: random.Random, width: int, height: int, channels: int = 3) -> list[bytes]:
    return [bytes(rng.randrange(256) for _ in range(width * channels)) for _ in range(height)]


def rows_of(raster: Raster) -> list[bytes]:
    return [raster.row(y) for y in range(raster.height)]


# -- encoding and decoding ---------------------------------------------------------------------


def test_a_raster_round_trips_through_png() -> None:
    rng = random.Random(1)
    rows = random_rows(rng, 13, 7)
    raster = Raster.from_rows(13, rows)
    png = encode_png(raster)
    assert png.startswith(SIGNATURE)
    assert rows_of(decode_png(png)) == rows
    assert raster.png(level=9) != png  # another level, other bytes, same picture
    assert rows_of(decode_png(raster.png(level=9))) == rows


def test_encoding_is_deterministic() -> None:
    raster = Raster(20, 10, (10, 20, 30))
    raster.fill((2, 2, 8, 8), (200, 0, 0))
    assert raster.png() == raster.copy().png()


@pytest.mark.parametrize("kind", [0, 1, 2, 3, 4])
@pytest.mark.parametrize(("colour_type", "channels"), [(0, 1), (2, 3), (4, 2), (6, 4)])
def test_every_filter_is_undone_for_every_8_bit_colour_type(kind: int, colour_type: int, channels: int) -> None:
    rng = random.Random(kind * 10 + colour_type)
    width, height = 9, 6
    samples = random_rows(rng, width, height, channels)
    if colour_type in (4, 6):  # opaque, so the colours come through as they are
        samples = [bytes(v if (i % channels) != channels - 1 else 255 for i, v in enumerate(r)) for r in samples]
    png = write_png(width, samples, colour_type=colour_type, filters=[kind])
    decoded = decode_png(png)
    for y, row in enumerate(samples):
        pixels = [row[i : i + channels] for i in range(0, len(row), channels)]
        expected = b"".join(bytes(p[:1]) * 3 if channels < 3 else bytes(p[:3]) for p in pixels)
        assert decoded.row(y) == expected


@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(1, 40),
    height=st.integers(1, 6),
    filters=st.lists(st.integers(0, 4), min_size=1, max_size=6),
    seed=st.integers(0, 10**6),
)
def test_mixed_filters_decode_to_the_original_rows(width: int, height: int, filters: list[int], seed: int) -> None:
    rows = random_rows(random.Random(seed), width, height)
    assert rows_of(decode_png(write_png(width, rows, colour_type=2, filters=filters))) == rows


def test_alpha_is_composited_over_the_background() -> None:
    rows = [bytes([200, 100, 0, 255, 200, 100, 0, 0, 200, 100, 0, 128])]
    png = write_png(3, rows, colour_type=6)
    assert rows_of(decode_png(png)) == [bytes([200, 100, 0, 255, 255, 255, 227, 177, 127])]
    assert decode_png(png, background=(0, 0, 0)).row(0)[3:6] == bytes(3)


def test_sixteen_bit_samples_keep_their_high_byte() -> None:
    rows = [bytes([0x12, 0x34, 0xAB, 0xCD, 0xFF, 0x00])]  # one RGB pixel, 16 bits a sample
    assert decode_png(write_png(1, rows, colour_type=2, depth=16)).row(0) == bytes([0x12, 0xAB, 0xFF])
    grey = [bytes([0x80, 0x01, 0x40, 0x02])]
    assert decode_png(write_png(2, grey, colour_type=0, depth=16)).row(0) == bytes([0x80] * 3 + [0x40] * 3)


@pytest.mark.parametrize(
    ("depth", "packed", "levels"), [(1, 0b10100000, [255, 0, 255]), (2, 0b11011000, [255, 85, 170])]
)
def test_packed_grey_is_unpacked_and_scaled(depth: int, packed: int, levels: list[int]) -> None:
    png = write_png(3, [bytes([packed])], colour_type=0, depth=depth)
    assert decode_png(png).row(0) == b"".join(bytes([v] * 3) for v in levels)


def test_a_palette_image_with_transparency() -> None:
    palette = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255])
    png = write_png(
        4,
        [bytes([0x1B])],  # 2-bit indexes 0, 1, 2, 3 (3 is past the palette: black)
        colour_type=3,
        depth=2,
        extra=[(b"PLTE", palette), (b"tRNS", bytes([255, 0]))],
    )
    assert decode_png(png).row(0) == bytes([255, 0, 0, 255, 255, 255, 0, 0, 255, 0, 0, 0])


def test_a_grey_image_with_a_transparent_key_shows_the_background() -> None:
    png = write_png(2, [bytes([7, 9])], colour_type=0, extra=[(b"tRNS", b"\x00\x07")])
    assert decode_png(png, background=(1, 2, 3)).row(0) == bytes([1, 2, 3, 9, 9, 9])


def test_pngs_written_by_pillow_decode_as_pillow_reads_them() -> None:
    image_module = pytest.importorskip("PIL.Image")
    rng = random.Random(5)
    width, height = 23, 11
    pixels = [tuple(rng.randrange(256) for _ in range(3)) for _ in range(width * height)]
    for mode in ("RGB", "RGBA", "L", "LA", "P", "1"):
        image = image_module.new("RGB", (width, height))
        image.putdata(pixels)
        image = image.convert(mode)
        if mode == "RGBA":
            image.putalpha(255)
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        expected = image.convert("RGB").tobytes()
        decoded = decode_png(buffer.getvalue())
        assert b"".join(rows_of(decoded)) == expected, mode


# -- bad input -------------------------------------------------------------------------------------


def good_png() -> bytes:
    return encode_png(Raster(4, 3, (1, 2, 3)))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"GIF89a", "not a PNG"),
        (good_png()[:-12], "no IEND"),
        (good_png()[:40], "cut short"),
        (good_png()[:23] + b"\x09" + good_png()[24:], "fails its CRC"),
        (write_png(2, [bytes(6)], colour_type=2, interlace=1), "interlaced"),
        (write_png(2, [bytes(6)], colour_type=2, depth=4), "bit depth 4"),
        (write_png(2, [bytes(2)], colour_type=3), "without a PLTE"),
        (write_png(2, [bytes(6)], colour_type=2, extra=[(b"ABCD", b"")]), "unknown critical chunk"),
    ],
    ids=["gif", "no-iend", "cut", "crc", "interlaced", "depth", "no-palette", "critical-chunk"],
)
def test_a_bad_png_is_refused_with_what_is_wrong(data: bytes, message: str) -> None:
    with pytest.raises(PngError, match=message):
        decode_png(data)


def test_image_data_of_the_wrong_length_is_refused() -> None:
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))

    def png_with(raw: bytes) -> bytes:
        return SIGNATURE + header + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")

    with pytest.raises(PngError, match="holds 7 of the 14 bytes"):
        decode_png(png_with(bytes(7)))
    # A bomb: more data than the size needs is refused, and inflating stops past what it needs.
    with pytest.raises(PngError, match="more than the 14 bytes"):
        decode_png(png_with(bytes(1_000_000)))
    with pytest.raises(PngError, match="unknown filter type 9"):
        decode_png(png_with(b"\x09" + bytes(6) + b"\x00" + bytes(6)))


def test_a_huge_image_is_refused_before_anything_is_allocated() -> None:
    side = int(MAX_PIXELS**0.5) + 10
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
    with pytest.raises(PngError, match="too large"):
        decode_png(SIGNATURE + header + chunk(b"IDAT", b"") + chunk(b"IEND", b""))


# -- drawing ---------------------------------------------------------------------------------------

RED: RGB = (255, 0, 0)
WHITE: RGB = (255, 255, 255)


def test_fill_and_outline_clip_to_the_raster() -> None:
    raster = Raster(10, 8)
    raster.fill((-5, -5, 3, 2), RED)
    assert raster.colours((0, 0, 10, 8)) == {RED: 6, WHITE: 74}
    raster = Raster(10, 8)
    raster.outline((2, 2, 8, 7), RED, thickness=1)
    assert raster.pixel(2, 2) == raster.pixel(7, 6) == raster.pixel(4, 2) == RED
    assert raster.pixel(4, 4) == WHITE  # inside the outline
    assert raster.pixel(8, 7) == WHITE  # the box is half open
    raster.outline((5, 5, 50, 50), RED, thickness=2)  # off the raster on two sides: no error
    assert raster.pixel(9, 5) == raster.pixel(6, 7) == RED
    assert raster.pixel(9, 7) == WHITE


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
    assert raster.colours((0, 0, 10, 10)) == {RED: 9, WHITE: 91}


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
    assert rows_of(decode_png(whole.png())) == rows_of(whole)  # filter bytes are still "none"


def test_frame_box_rounds_and_keeps_hairlines() -> None:
    assert frame_box((0.25, 0.5, 0.5, 0.25), 100, 200) == (25, 100, 75, 150)
    assert frame_box((0.5, 0.5, 0.001, 0.0), 100, 200) == (50, 100, 51, 100)
    assert frame_box((0, 0, 0, 0), 100, 200) == (0, 0, 0, 0)


# -- thumbnails ------------------------------------------------------------------------------------


def naive_shrink(raster: Raster, f: int) -> list[bytes]:
    out_w, out_h = -(-raster.width // f), -(-raster.height // f)
    rows = []
    for oy in range(out_h):
        row = bytearray()
        for ox in range(out_w):
            for c in range(3):
                total = sum(
                    raster.pixel(min(x, raster.width - 1), min(y, raster.height - 1))[c]
                    for y in range(oy * f, oy * f + f)
                    for x in range(ox * f, ox * f + f)
                )
                row.append((total + f * f // 2) // (f * f))
        rows.append(bytes(row))
    return rows


@settings(max_examples=30, deadline=None)
@given(width=st.integers(1, 30), height=st.integers(1, 20), factor=st.integers(1, 9), seed=st.integers(0, 10**6))
def test_shrink_is_the_mean_of_each_block(width: int, height: int, factor: int, seed: int) -> None:
    raster = Raster.from_rows(width, random_rows(random.Random(seed), width, height))
    assert rows_of(raster.shrink(factor)) == naive_shrink(raster, factor)


def test_a_thumbnail_fits_and_a_small_image_comes_back_as_a_copy() -> None:
    raster = Raster(402, 874, (10, 20, 30))
    thumb = raster.thumbnail(100, 218)
    assert thumb.width <= 100
    assert thumb.height <= 218
    assert (thumb.width, thumb.height) == (81, 175)  # the smallest whole factor that fits: 5
    assert thumb.pixel(40, 100) == (10, 20, 30)
    same = raster.thumbnail(500, 1000)
    assert (same.width, same.height) == (402, 874)
    assert same is not raster
    assert Raster(1, 5000).thumbnail(1, 1).height == 1  # past the largest single factor: two passes
    with pytest.raises(ValueError, match="at least 1 x 1"):
        raster.thumbnail(0, 10)
    with pytest.raises(ValueError, match="from 1 to 4096"):
        raster.shrink(5000)


def test_a_raster_is_at_least_one_pixel() -> None:
    with pytest.raises(ValueError, match="at least 1 x 1"):
        Raster(0, 3)
    with pytest.raises(ValueError, match="holds 9 bytes"):
        Raster.from_rows(3, [bytes(8)])
    with pytest.raises(IndexError, match="off the 3 x 1 raster"):
        Raster(3, 1).pixel(3, 0)
