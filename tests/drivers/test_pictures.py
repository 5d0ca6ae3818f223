"""The real drivers' report pictures (Pillow) and the core's use of a device's pictures."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest

from mobster_core._rules.frames import THUMB_BOX, VIEW_BOX
from mobster_core._store import evidence
from mobster_core.image import Raster, decode_png
from mobster_core.protocols import Pictures
from mobster_drivers._pictures import pillow_picture
from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone
from mobster_drivers.devices.wda import WdaDevice

Image = pytest.importorskip("PIL.Image")


def paeth_png(width: int, height: int) -> bytes:
    """A device-like PNG whose every row uses the paeth filter (the slow case for the core's decoder)."""
    row = bytes([4]) + bytes((x * 7) % 256 for x in range(3 * width))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    idat = zlib.compress(row * height, 6)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def screen_png(scale: float) -> bytes:
    from mobster_drivers.devices.scripted import sample_path

    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=_NoClock())
    return ScreenRenderer(scale=scale).png(phone._sim.screen(0.0))


class _NoClock:
    def now(self) -> float:
        return 0.0

    async def sleep(self, seconds: float) -> None:
        raise AssertionError("no waiting here")


def test_the_real_drivers_offer_pictures() -> None:
    assert issubclass(WdaDevice, Pictures)
    assert not isinstance(object(), Pictures)


@pytest.mark.parametrize(("box", "scale"), [(THUMB_BOX, 1.0), (VIEW_BOX, 2.0)])
def test_pillows_picture_is_the_cores_picture(box: tuple[int, int], scale: float) -> None:
    png = screen_png(scale)
    ours = decode_png(png).thumbnail(*box)
    made = pillow_picture(png, box)
    assert made is not None
    with Image.open(io.BytesIO(made)) as picture:
        assert picture.size == (ours.width, ours.height)
        pixels = picture.convert("RGB").tobytes()
    # The same box filter: within 2 a channel on average (rounding, and JPEG when it was the smaller).
    core = b"".join(ours.row(y) for y in range(ours.height))
    diffs = [abs(a - b) for a, b in zip(pixels, core, strict=True)]
    assert sum(diffs) / len(diffs) < 2.0


def test_a_screenshot_that_fits_is_returned_as_it_is_and_anything_else_is_declined() -> None:
    small = Raster(100, 200, (10, 20, 30)).png()
    assert pillow_picture(small, THUMB_BOX) == small
    assert pillow_picture(b"not a picture", THUMB_BOX) is None
    jpeg = io.BytesIO()
    Image.new("RGB", (600, 600)).save(jpeg, format="JPEG")
    assert pillow_picture(jpeg.getvalue(), THUMB_BOX) is None  # a frame is a PNG


def test_the_core_uses_the_devices_pictures_and_makes_the_ones_it_declines(tmp_path: Path) -> None:
    frame = paeth_png(150, 320)
    result = {"verdict": "passed", "steps": [{"index": 1, "source": "replay", "reason": None}]}
    asked: list[tuple[int, int]] = []

    def maker(png: bytes, box: tuple[int, int]) -> bytes | None:
        asked.append(box)
        return b"<html>not a picture</html>" if box == VIEW_BOX else pillow_picture(png, box)

    files = evidence.keep_frames(tmp_path, result, {"step-001-before": frame, "final": frame}, "auto", maker)
    assert THUMB_BOX in asked
    assert VIEW_BOX in asked
    (name,) = [n for n in files if n.startswith("frames/step-001-before.thumb.")]
    thumb = files[name]
    assert isinstance(thumb, bytes)
    assert thumb.startswith(b"\x89PNG" if name.endswith(".png") else b"\xff\xd8\xff")
    assert "frames/final.view.png" in files  # the device's answer wasn't a picture: the core made it
    assert (tmp_path / "frames" / "final.view.png").read_bytes() == files["frames/final.view.png"]

    def broken(png: bytes, box: tuple[int, int]) -> bytes | None:
        raise RuntimeError("the imaging library failed")

    other = paeth_png(152, 322)
    files = evidence.keep_frames(tmp_path / "b", result, {"step-001-before": other}, "auto", broken)
    assert any(n.startswith("frames/step-001-before.thumb.") for n in files)
