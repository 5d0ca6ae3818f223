"""The baseline JPEG encoder: checked against Pillow (libjpeg) as the reference decoder and encoder."""

from __future__ import annotations

import io
import math
import random
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobster_core._rules.jpeg import _AAN, _dct, _zigzag, encode_jpeg
from mobster_core.image import Raster

Image = pytest.importorskip("PIL.Image", reason="Pillow (installed with facebook-wda in the dev group) decodes")


def raster_of(width: int, height: int, pixel: object) -> Raster:
    rows = [bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height)]  # type: ignore[operator]
    return Raster.from_rows(width, rows)


def noise(width: int, height: int, seed: int = 1) -> Raster:
    rng = random.Random(seed)
    return Raster.from_rows(width, [rng.randbytes(3 * width) for _ in range(height)])


def ui_like(width: int = 134, height: int = 292) -> Raster:
    """A flat interface: white, a title bar, a blue button with white text-like marks."""
    r = Raster(width, height)
    r.fill((0, 0, width, 20), (249, 249, 249))
    r.fill((10, 40, width - 10, 60), (0, 122, 255))
    for x in range(20, width - 20, 6):
        r.fill((x, 46, x + 3, 54), (255, 255, 255))
    r.fill((10, 80, width - 10, 82), (198, 198, 200))
    return r


def decoded(data: bytes) -> Any:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def psnr(raster: Raster, image: Any) -> float:
    a = b"".join(raster.row(y) for y in range(raster.height))
    b = image.convert("RGB").tobytes()
    mse = sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / len(a)
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def pillow_jpeg(raster: Raster, quality: int = 75) -> bytes:
    image = Image.frombytes("RGB", (raster.width, raster.height), b"".join(raster.row(y) for y in range(raster.height)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality, subsampling="4:2:0", optimize=False)
    return out.getvalue()


def segments(data: bytes) -> dict[int, list[bytes]]:
    """The marker segments of a JPEG up to its scan: marker -> bodies."""
    assert data[:2] == b"\xff\xd8"
    pos = 2
    found: dict[int, list[bytes]] = {}
    while True:
        marker = data[pos + 1]
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        found.setdefault(marker, []).append(data[pos + 4 : pos + 2 + length])
        pos += 2 + length
        if marker == 0xDA:
            return found


@pytest.mark.parametrize(("width", "height"), [(1, 1), (7, 13), (16, 16), (17, 33), (134, 292), (301, 5)])
def test_any_size_decodes_to_the_same_size_and_colours(width: int, height: int) -> None:
    raster = raster_of(width, height, lambda x, y: ((x * 9) % 256, (y * 5) % 256, 128))
    image = decoded(encode_jpeg(raster))
    assert (image.format, image.mode, image.size) == ("JPEG", "RGB", (width, height))
    assert psnr(raster, image) >= psnr(raster, decoded(pillow_jpeg(raster))) - 0.5


@pytest.mark.parametrize(
    ("name", "raster"),
    [("interface", ui_like()), ("gradient", raster_of(134, 292, lambda x, y: (x, y % 256, (x + y) % 256)))],
)
def test_quality_and_size_match_libjpeg(name: str, raster: Raster) -> None:
    ours = encode_jpeg(raster)
    theirs = pillow_jpeg(raster)
    # The same tables, sampling and Huffman codes as libjpeg: within a few percent in size and
    # within half a decibel in fidelity (libjpeg rounds its colour conversion and DCT differently).
    assert abs(len(ours) - len(theirs)) <= 0.05 * len(theirs), (name, len(ours), len(theirs))
    assert psnr(raster, decoded(ours)) >= psnr(raster, decoded(theirs)) - 0.5


def test_noise_with_ff_bytes_in_the_data_is_stuffed_and_decodes() -> None:
    raster = noise(64, 64)
    data = encode_jpeg(raster, quality=95)
    scan = data[data.index(b"\xff\xda") + 14 : -2]  # the entropy-coded data: SOS body is 12 bytes
    assert b"\xff\x00" in scan  # noise at quality 95 holds 0xFF bytes, each stuffed
    assert all(scan[i + 1] == 0 for i in range(len(scan) - 1) if scan[i] == 0xFF)
    # Noise loses most to 4:2:0 sampling: as much as libjpeg's own encoding does.
    assert psnr(raster, decoded(data)) >= psnr(raster, decoded(pillow_jpeg(raster, 95))) - 0.5


@pytest.mark.parametrize("quality", [1, 10, 50, 75, 95, 100])
def test_quantization_tables_are_libjpegs_at_each_quality(quality: int) -> None:
    raster = ui_like(32, 32)
    ours = decoded(encode_jpeg(raster, quality=quality)).quantization
    theirs = decoded(pillow_jpeg(raster, quality)).quantization
    assert ours == theirs


def test_huffman_tables_and_frame_header_are_the_standard_ones() -> None:
    raster = ui_like(40, 24)
    ours, theirs = segments(encode_jpeg(raster)), segments(pillow_jpeg(raster))
    # libjpeg writes the Annex K.3 tables when it doesn't optimize them; it may split them over
    # several DHT segments, so compare the tables, not the segments.
    assert _tables(ours[0xC4]) == _tables(theirs[0xC4])
    assert ours[0xC0] == theirs[0xC0]  # 8-bit, 24 x 40, Y 2x2 with table 0, Cb and Cr 1x1 with table 1
    (frame,) = ours[0xC0]
    assert frame[0] == 8
    assert struct.unpack(">HH", frame[1:5]) == (24, 40)
    assert ours[0xE0][0][:5] == b"JFIF\x00"


def _tables(bodies: list[bytes]) -> dict[int, bytes]:
    tables = {}
    for body in bodies:
        pos = 0
        while pos < len(body):
            key = body[pos]
            count = sum(body[pos + 1 : pos + 17])
            tables[key] = body[pos + 1 : pos + 17 + count]
            pos += 17 + count
    return tables


def test_the_huffman_tables_hold_every_symbol_a_block_can_need() -> None:
    data = segments(encode_jpeg(ui_like(16, 16)))[0xC4][0]
    tables = _tables([data])
    for key in (0x10, 0x11):  # the two AC tables: EOB, ZRL and every (run, size 1..10)
        symbols = set(tables[key][16:])
        assert symbols == {0x00, 0xF0} | {(run << 4) | size for run in range(16) for size in range(1, 11)}
    for key in (0x00, 0x01):  # the two DC tables: sizes 0..11
        assert set(tables[key][16:]) == set(range(12))


def naive_dct(block: list[int]) -> list[float]:
    """T.81 A.3.3's forward DCT, written out, of level-shifted samples."""
    out = []
    for v in range(8):
        for u in range(8):
            cu = 1 / math.sqrt(2) if u == 0 else 1.0
            cv = 1 / math.sqrt(2) if v == 0 else 1.0
            total = sum(
                (block[8 * y + x] - 128)
                * math.cos((2 * x + 1) * u * math.pi / 16)
                * math.cos((2 * y + 1) * v * math.pi / 16)
                for y in range(8)
                for x in range(8)
            )
            out.append(cu * cv * total / 4)
    return out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=64, max_size=64))
def test_the_fast_dct_is_the_dct_scaled_by_aan(block: list[int]) -> None:
    rows = [bytes(block[8 * k : 8 * k + 8]) for k in range(8)]
    fast = _dct(rows)
    for n, expected in enumerate(naive_dct(block)):
        v, u = divmod(n, 8)
        assert fast[n] / (8 * _AAN[u] * _AAN[v]) == pytest.approx(expected, abs=1e-6)


def test_zigzag_is_the_standard_order() -> None:
    order = _zigzag()
    assert sorted(order) == list(range(64))
    assert order[:10] == (0, 1, 8, 16, 9, 2, 3, 10, 17, 24)
    assert order[-3:] == (55, 62, 63)


@pytest.mark.parametrize("level", [0, 37, 128, 255])
def test_a_one_colour_block_is_its_dc_alone(level: int) -> None:
    # The encoder skips the DCT for such blocks (Rule 3); this is what the DCT would give.
    ws = _dct([bytes([level] * 8)] * 8)
    assert ws[0] == pytest.approx(64 * (level - 128))
    assert max(abs(c) for c in ws[1:]) < 1e-9


def test_the_same_raster_gives_the_same_bytes() -> None:
    assert encode_jpeg(noise(50, 40, seed=3)) == encode_jpeg(noise(50, 40, seed=3))


@pytest.mark.parametrize("quality", [0, 101, -5])
def test_a_quality_out_of_range_is_refused(quality: int) -> None:
    with pytest.raises(ValueError, match="1 to 100"):
        encode_jpeg(ui_like(8, 8), quality=quality)
