"""The reports in headless Chromium: no error, nothing blocked, and the outlines on the tapped elements.

One browser serves the module (it starts in about a second); each page loads in a fraction of
that. Skipped when Debian's ``chromium`` package is not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_report import _pictures
from mobster_report._frames import FINAL, frame_file
from mobster_report._page import CSP
from mobster_report._run_page import RunReport, render_run
from mobster_report._suite_page import render_suite
from tests.browser import CHROMIUM, Browser
from tests.drivers.pictures import decoded as decode_png
from tests.report.report_runs import HOSTILE, Runs, cycling, replace_strings, suite_results

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium: install Debian's chromium package (apt-get install -y chromium)",
)

TAP = (255, 10, 120)  # the tap outline's colour in the light theme (--tap: #ff0a78)
BUTTON = (0, 122, 255)  # the scripted phone's filled button (systemBlue)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def pages(report_runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report-pages")
    out = {}
    for name, (report, _) in report_runs.items():
        out[name] = folder / f"{name}.html"
        out[name].write_text(render_run(report), encoding="utf-8")
    out["index"] = folder / "index.html"
    out["index"].write_text(render_suite(suite_results(report_runs), here="."), encoding="utf-8")
    return out


def test_every_page_loads_with_no_error_and_nothing_blocked(browser: Browser, pages: dict[str, Path]) -> None:
    for name, path in pages.items():
        for dark in (False, True):
            assert browser.load(path, dark=dark) == [], (name, dark)
            assert browser.evaluate("document.images.length") == browser.evaluate(
                "Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length"
            ), name  # every picture decoded


def test_the_check_would_see_a_blocked_picture_and_a_script(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="{CSP}"></head>'
        '<body><img src="http://127.0.0.1:9/x.png"><script>console.log("ran")</script></body></html>'
    )
    problems = browser.load(page)
    assert any("img-src" in p for p in problems), problems
    assert any("script" in p.lower() for p in problems), problems
    assert not any("ran" in p for p in problems)  # the script never ran


def boxes_on_pictures(browser: Browser, selector: str) -> list[tuple[dict[str, float], dict[str, float], str]]:
    """Each outline the selector finds, the picture it is laid on, and its inline style."""
    found = browser.evaluate(
        f"Array.from(document.querySelectorAll({selector!r})).map(b => {{"
        "const img = b.parentElement.querySelector('img');"
        "const r = b.getBoundingClientRect(), i = img.getBoundingClientRect();"
        "return [{x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height},"
        "{x: i.x + scrollX, y: i.y + scrollY, w: i.width, h: i.height}, b.getAttribute('style')]; })"
    )
    return [(box, img, style) for box, img, style in found]


def frame_of(style: str) -> tuple[float, ...]:
    parts = dict(p.split(":") for p in style.split(";"))
    return tuple(float(parts[k].rstrip("%")) / 100 for k in ("left", "top", "width", "height"))


def test_every_outline_is_at_its_elements_frame_on_the_picture(browser: Browser, pages: dict[str, Path]) -> None:
    checked = 0
    for name in ("record", "replay", "heal", "drift", "assertion"):
        assert browser.load(pages[name]) == []
        for box, img, style in boxes_on_pictures(browser, ".box"):
            x, y, w, h = frame_of(style)
            assert box["x"] == pytest.approx(img["x"] + x * img["w"], abs=0.6), name
            assert box["y"] == pytest.approx(img["y"] + y * img["h"], abs=0.6), name
            assert box["w"] == pytest.approx(w * img["w"], abs=0.6), name
            assert box["h"] == pytest.approx(h * img["h"], abs=0.6), name
            checked += 1
    assert checked >= 20


def pixel(png: bytes, x: float, y: float) -> tuple[int, int, int]:
    return decode_png(png).pixel(round(x), round(y))


def test_the_tap_outline_sits_on_the_tapped_button(browser: Browser, pages: dict[str, Path]) -> None:
    # The heal's "before" picture: the healed tap on the blue "Next" button, drawn by the phone.
    assert browser.load(pages["heal"]) == []
    (found,) = boxes_on_pictures(browser, "#heals .box.tap")
    box, img, _ = found
    shot = browser.screenshot(clip=(img["x"], img["y"], img["w"], img["h"]))
    raster = decode_png(shot)
    bx, by = box["x"] - img["x"], box["y"] - img["y"]
    middle = by + box["h"] / 2
    assert _near(raster.pixel(round(bx + box["w"] / 2), round(middle)), BUTTON)  # the button under the box
    assert _near(raster.pixel(round(bx - 2), round(middle)), TAP)  # the outline just outside its edge
    assert _near(raster.pixel(round(bx + box["w"] + 1), round(middle)), TAP)
    # Walking across the middle row, the button's blue starts and ends where the box does.
    row = [raster.pixel(x, round(middle)) for x in range(raster.width)]
    blue = [x for x, p in enumerate(row) if _near(p, BUTTON, 40)]
    assert blue[0] == pytest.approx(bx, abs=2.5)
    assert blue[-1] + 1 == pytest.approx(bx + box["w"], abs=2.5)


def _near(colour: tuple[int, int, int], target: tuple[int, int, int], tolerance: int = 60) -> bool:
    return sum(abs(a - b) for a, b in zip(colour, target, strict=True)) <= tolerance


def test_the_reports_jpeg_renders_in_the_browser(browser: Browser, report_runs: Runs, tmp_path: Path) -> None:
    # Four colour quadrants with texture: what the encoder must keep (colour, place) at 4:2:0.
    colours = [(220, 40, 40), (40, 160, 60), (30, 80, 220), (240, 200, 40)]
    width, height = 134, 292
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            r, g, b = colours[(x >= width // 2) + 2 * (y >= height // 2)]
            grain = (x * 7 + y * 13) % 9 - 4
            row += bytes((r + grain, g + grain, b + grain))
        rows.append(bytes(row))
    from PIL import Image

    jpeg = _pictures.encode(Image.frombytes("RGB", (width, height), b"".join(rows)), "jpg")  # as a report makes it
    _, data = report_runs["assertion"]
    page = tmp_path / "jpeg.html"
    page.write_text(render_run(RunReport(result=data, frames={frame_file(FINAL, "view", "jpg"): jpeg})))
    assert browser.load(page) == []
    size = browser.evaluate(
        "(() => { const i = document.querySelector('#stopped img');"
        "return [i.src.slice(0, 23), i.complete, i.naturalWidth, i.naturalHeight]; })()"
    )
    assert size == ["data:image/jpeg;base64,", True, width, height]
    (img,) = browser.rects("#stopped img")
    shot = decode_png(browser.screenshot(clip=(img["x"], img["y"], img["width"], img["height"])))
    for k, colour in enumerate(colours):
        px = round(shot.width * (0.25 + 0.5 * (k % 2)))
        py = round(shot.height * (0.25 + 0.5 * (k // 2)))
        assert _near(shot.pixel(px, py), colour, 36), (k, shot.pixel(px, py))


def test_a_hostile_page_injects_nothing(browser: Browser, report_runs: Runs, tmp_path: Path) -> None:
    report, _ = report_runs["heal"]
    result = replace_strings(report.result, cycling(list(HOSTILE)))
    journal = replace_strings(report.journal, cycling(list(reversed(HOSTILE))))
    page = tmp_path / "hostile.html"
    page.write_text(
        render_run(RunReport(result=result, journal=journal, frames=report.frames, rerun=HOSTILE[1])), encoding="utf-8"
    )
    assert browser.load(page) == []
    assert browser.evaluate("document.querySelectorAll('script, iframe, object, embed, svg, form, input').length") == 0
    assert (
        browser.evaluate(
            "Array.from(document.querySelectorAll('*')).flatMap(e => e.getAttributeNames())"
            ".filter(n => n.startsWith('on')).length"
        )
        == 0
    )
    assert browser.evaluate("document.styleSheets.length") == 1
    text = browser.evaluate("document.body.innerText")
    assert "<script>alert(1)</script>" in text  # shown as text, as written
    assert "\\u202egnp.exe\\u202c" in text  # a bidi override shown as an escape, never obeyed
    assert browser.evaluate("document.documentElement.scrollWidth") <= 1280  # 10,000 W's wrap


def test_printing_shows_the_journal_and_keeps_the_outlines(browser: Browser, pages: dict[str, Path]) -> None:
    assert browser.load(pages["heal"]) == []
    journal_shown = "document.querySelector('#journal table').checkVisibility()"
    assert browser.evaluate(journal_shown) is False  # closed on screen, in its <details>
    browser.call("Emulation.setEmulatedMedia", {"media": "print"}, session=True)
    try:
        assert browser.evaluate(journal_shown) is True
        colour = browser.evaluate("getComputedStyle(document.querySelector('.box.tap')).outlineColor")
        assert colour == "rgb(255, 10, 120)"
        pdf = browser.call("Page.printToPDF", {"printBackground": False}, session=True)["data"]
        assert len(pdf) > 1000
    finally:
        browser.call("Emulation.setEmulatedMedia", {"media": ""}, session=True)
