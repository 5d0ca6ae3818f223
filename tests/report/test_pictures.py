"""The report's small pictures (Pillow): the box they fit, PNG or JPEG, the cache, and what is refused."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone, sample_path
from mobster_drivers.devices.scripted._raster import Raster
from mobster_report import _pictures
from mobster_report._frames import THUMB_BOX, VIEW_BOX
from mobster_report._pictures import PictureError, make_pictures, sniff
from tests.drivers.pictures import decoded

Image = pytest.importorskip("PIL.Image")


def interface(width: int = 402, height: int = 874) -> Raster:
    r = Raster(width, height)
    r.fill((24, 300, width - 24, 350), (0, 122, 255))
    r.fill((24, 100, 200, 130), (0, 0, 0))
    return r


def photo(width: int = 402, height: int = 874) -> Raster:
    """Texture (low noise over a mid grey): what PNG compresses worst and JPEG smooths."""
    rng = random.Random(7)
    grain = bytes(96 + v // 6 for v in range(256))
    return Raster.from_rows(width, [rng.randbytes(3 * width).translate(grain) for _ in range(height)])


def one(png: bytes, size: str) -> _pictures.Picture:
    return make_pictures(png, [size])[size]


def paeth_png(width: int, height: int) -> bytes:
    """A device-like PNG whose every row uses the paeth filter."""
    row = bytes([4]) + bytes((x * 7) % 256 for x in range(3 * width))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    idat = zlib.compress(row * height, 6)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_a_thumbnail_fits_its_box_and_a_flat_interface_stays_png() -> None:
    picture = one(interface().png(), "thumb")
    assert picture.kind == "png"
    assert (picture.width, picture.height) == (134, 292)  # the smallest whole factor that fits: 3
    assert picture.width <= THUMB_BOX[0]
    assert picture.height <= THUMB_BOX[1]
    assert decoded(picture.data).pixel(67, 108) == (0, 122, 255)  # the button, shrunk


def test_a_photo_like_thumbnail_is_jpeg_when_that_is_smaller() -> None:
    source = photo()
    picture = one(source.png(), "thumb")
    assert picture.kind == "jpg"
    assert sniff(picture.data) == "jpg"
    shrunk = io.BytesIO()
    with Image.open(io.BytesIO(source.png())) as image:
        image.reduce(3).save(shrunk, format="PNG", compress_level=9)
    assert len(picture.data) < len(shrunk.getvalue())


def test_a_view_of_a_frame_that_already_fits_is_the_frame_itself() -> None:
    png = interface().png()
    picture = one(png, "view")
    assert picture.data is png
    big = one(interface(804, 1748).png(), "view")
    assert (big.width, big.height) == (402, 874)
    assert big.width <= VIEW_BOX[0]


def test_a_large_frame_that_fits_is_encoded_again_when_that_is_smaller() -> None:
    png = photo().png()
    assert len(png) > 64 * 1024
    picture = one(png, "view")
    assert (picture.kind, picture.width, picture.height) == ("jpg", 402, 874)
    assert len(picture.data) < len(png) // 4


def block_means(raster: Raster, f: int) -> bytes:
    """Each f x f block's rounded mean, for a raster whose sides are multiples of f."""
    out = bytearray()
    for oy in range(raster.height // f):
        for ox in range(raster.width // f):
            for c in range(3):
                total = sum(raster.pixel(x, y)[c] for y in range(oy * f, oy * f + f) for x in range(ox * f, ox * f + f))
                out.append((total + f * f // 2) // (f * f))
    return bytes(out)


@settings(max_examples=20, deadline=None)
@given(blocks=st.tuples(st.integers(1, 9), st.integers(1, 9)), factor=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_a_picture_is_the_mean_of_each_block(blocks: tuple[int, int], factor: int, seed: int) -> None:
    # A frame just over the box by a whole factor: each picture pixel is the mean of its block (a box filter).
    width, height = blocks[0] * factor, blocks[1] * factor
    rng = random.Random(seed)
    raster = Raster.from_rows(width, [rng.randbytes(3 * width) for _ in range(height)])
    image = _pictures._decode(raster.png())
    reduced = image.reduce(factor).tobytes()
    means = block_means(raster, factor)
    assert max(abs(a - b) for a, b in zip(reduced, means, strict=True)) <= 1  # Pillow rounds half-way its own way


def test_the_scripted_phones_frames_shrink_to_the_pictures_of_its_screens() -> None:
    class NoClock:
        def now(self) -> float:
            return 0.0

        async def sleep(self, seconds: float) -> None:
            raise AssertionError("no waiting here")

    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=NoClock())
    png = ScreenRenderer(scale=3.0).png(phone._sim.screen(0.0))  # a real iPhone's size: 1206 x 2622
    made = make_pictures(png, ["thumb", "view"])
    assert (made["thumb"].width, made["thumb"].height) == (134, 292)
    assert (made["view"].width, made["view"].height) == (402, 874)
    small = ScreenRenderer(scale=1.0).png(phone._sim.screen(0.0))
    ours = decoded(small)  # the phone drawn at 1x: the view of its 3x frame is that picture, near enough
    view = decoded(made["view"].data)
    diffs = [abs(a - b) for y in range(ours.height) for a, b in zip(ours.row(y), view.row(y), strict=True)]
    assert sum(diffs) / len(diffs) < 12.0


def test_a_frame_is_decoded_once_for_its_pictures_and_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    decodes: list[int] = []
    real = _pictures._decode

    def counting(png: bytes) -> object:
        decodes.append(len(png))
        return real(png)

    monkeypatch.setattr(_pictures, "_decode", counting)
    png = paeth_png(151, 333)
    first = make_pictures(png, ["thumb", "view"])
    assert len(decodes) == 1
    again = make_pictures(png, ["view", "thumb"])
    assert len(decodes) == 1  # Rule 3: the same bytes are not shrunk again
    assert again == first


def test_transparency_is_laid_over_white() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (300, 600), (0, 0, 0, 0)).save(out, format="PNG")
    picture = one(out.getvalue(), "thumb")
    assert decoded(picture.data).pixel(10, 10) == (255, 255, 255)


def test_pictures_refuse_what_is_not_a_png() -> None:
    with pytest.raises(PictureError, match="not a PNG"):
        one(b"\xff\xd8\xff\xe0 a jpeg", "thumb")
    with pytest.raises(PictureError):
        one(b"\x89PNG\r\n\x1a\n but broken", "thumb")
    jpeg = io.BytesIO()
    Image.new("RGB", (600, 600)).save(jpeg, format="JPEG")
    with pytest.raises(PictureError, match="not a PNG"):
        one(jpeg.getvalue(), "thumb")  # a frame is the device's PNG
    with pytest.raises(ValueError, match="thumb"):
        one(interface().png(), "huge")


def test_a_huge_frame_is_refused_before_it_is_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_pictures, "MAX_PIXELS", 1000)
    with pytest.raises(PictureError, match="over the 1,000"):
        one(paeth_png(40, 30), "thumb")


def test_sniff() -> None:
    assert sniff(interface(8, 8).png()) == "png"
    assert sniff(b"\xff\xd8\xff\xdb") == "jpg"
    assert sniff(b"GIF89a") is None
    assert sniff(b"") is None


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L", "LA", "P", "P+transparency", "1", "I;16"])
def test_every_png_colour_type_decodes_to_rgb_with_transparency_over_white(mode: str) -> None:
    rng = random.Random(5)
    width, height = 23, 11
    image = Image.new("RGB", (width, height))
    image.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(width * height)])
    if mode == "P+transparency":
        image = image.convert("P")
        image.info["transparency"] = 0
    elif mode in ("RGBA", "LA"):
        image = image.convert(mode)
        image.putalpha(Image.new("L", (width, height), 128))
    else:
        image = image.convert(mode)
    out = io.BytesIO()
    image.save(out, "PNG", **({"transparency": 0} if mode == "P+transparency" else {}))
    decoded_image = _pictures._decode(out.getvalue())
    assert decoded_image.mode == "RGB"
    assert decoded_image.size == (width, height)
    with Image.open(io.BytesIO(out.getvalue())) as reread:
        rgba = reread.convert("RGBA")
    expected = Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
    assert decoded_image.tobytes() == expected.tobytes()
