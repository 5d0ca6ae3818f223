"""The report's pages at WCAG AA in both themes (``_page`` Rule 2): axe-core's audit and the palette's arithmetic.

axe-core (``tests/axe.py``) audits the run pages of a passed, a healed and two failed runs (a
drift, a failed assertion) and the run recorded by Smart, their suite page, and a flaky check's
pages (its suite page, its attempt that couldn't run, its attempt that passed), each in the light
and the dark theme (``prefers-color-scheme`` emulated over the DevTools protocol), with every rule
axe runs: no violation, nothing left undecided. The pages keep their Content-Security-Policy: axe
is evaluated into them over the DevTools protocol, and their own load must log nothing.

The palette test reads the style the pages carry and holds each pair of colours Rule 2 names to
4.5:1 with WCAG's own formula, with no browser: it covers the text axe can't measure (the numbers
on the outlines lie over pictures).

The browser tests skip, saying why, without ``/usr/bin/chromium`` or without axe-core
(``scripts/install-validators.sh``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_report._page import page
from mobster_report._run_page import render_run
from mobster_report._suite_page import render_suite
from tests import axe
from tests.browser import CHROMIUM, Browser
from tests.report.report_runs import Runs, flaky_suite, suite_results

_NO_BROWSER = None if CHROMIUM.exists() else "no /usr/bin/chromium: install Debian's chromium package"
browser_and_axe = pytest.mark.skipif(
    _NO_BROWSER is not None or axe.unavailable() is not None, reason=str(_NO_BROWSER or axe.unavailable())
)

THEMES = {"light": False, "dark": True}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def pages(report_runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The pages audited, by name: each kind of run's page, the suite pages, a flaky check's pages."""
    folder = tmp_path_factory.mktemp("axe-pages")
    out = {}
    for name in ("record", "replay", "heal", "drift", "assertion"):
        out[name] = folder / f"{name}.html"
        out[name].write_text(render_run(report_runs[name][0]), encoding="utf-8")
    out["suite"] = folder / "index.html"
    out["suite"].write_text(render_suite(suite_results(report_runs), here="."), encoding="utf-8")
    project = folder / "flaky"
    flaky = flaky_suite(project)
    out["flaky suite"] = flaky.folder / "index.html"
    first, last = flaky.checks[0].attempts
    out["flaky: attempt that couldn't run"] = project / first.run_dir / "report.html"
    out["flaky: attempt that passed"] = project / last.run_dir / "report.html"
    return out


@browser_and_axe
def test_every_page_passes_axe_in_both_themes(browser: Browser, pages: dict[str, Path]) -> None:
    found = []
    for name, path in pages.items():
        for theme, dark in THEMES.items():
            assert browser.load(path, dark=dark) == [], (name, theme)  # its own load logs nothing: no script ran
            found += [f"{name}, {theme}: {line}" for line in axe.audit(browser)]
    assert found == [], "\n".join(found)


@browser_and_axe
def test_the_audit_sees_a_badge_that_is_hard_to_read_and_a_page_without_a_heading(
    browser: Browser, tmp_path: Path
) -> None:
    # The control: the same engine on a page of the same policy, with main's white-on-green badge and no <h1>.
    bad = tmp_path / "bad.html"
    bad.write_text(page("bad", '<p><span class="badge" style="background:#3fb950;color:#fff">replayed</span></p>'))
    assert browser.load(bad) == []
    low, heading = sorted(axe.audit(browser))
    assert low.startswith("color-contrast (serious): span: "), low
    assert "contrast of 2.54" in low
    assert heading.startswith("page-has-heading-one (moderate): "), heading  # a best practice: every rule runs


@browser_and_axe
def test_a_flaky_checks_earlier_attempt_is_coloured_and_said_as_it_ended(
    browser: Browser, pages: dict[str, Path]
) -> None:
    for theme, dark in THEMES.items():
        assert browser.load(pages["flaky suite"], dark=dark) == []
        colours = browser.evaluate(
            "(() => { const li = document.querySelector('.cell .attempts li');"
            "const root = getComputedStyle(document.documentElement);"
            "const as = v => { const e = document.createElement('i'); e.style.color = root.getPropertyValue(v);"
            "document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c; };"
            "return [getComputedStyle(li).color, getComputedStyle(li.querySelector('a')).color,"
            "getComputedStyle(li.closest('.cell')).color, as('--cant'), as('--pass'), li.innerText]; })()"
        )
        item, link, cell, cant, passed, text = colours
        assert (item, link) == (cant, cant), theme  # it couldn't run: the colour of couldn't run
        assert cell == passed != cant, theme  # the check's own cell: it passed
        assert text == "attempt 1 of 2: ! couldn't run (device)", theme  # said in words, not by colour only


@browser_and_axe
def test_paper_gets_the_light_palette_whatever_the_screens_theme(browser: Browser, pages: dict[str, Path]) -> None:
    assert browser.load(pages["heal"], dark=True) == []
    dark = browser.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--pass')")
    dark_print = {"media": "print", "features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    browser.call("Emulation.setEmulatedMedia", dark_print, session=True)
    try:
        printed = browser.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--pass')")
    finally:
        browser.call("Emulation.setEmulatedMedia", {"media": ""}, session=True)
    assert (dark, printed) == (PALETTES["dark"]["pass"], PALETTES["light"]["pass"])


# -- the palette ---------------------------------------------------------------------------------


def _palettes() -> dict[str, dict[str, str]]:
    """The custom properties of the pages' ``:root``, in the light theme and the dark one."""
    style = re.search(r"<style>(.*?)</style>", page("t", ""), re.DOTALL)
    assert style is not None
    css = style.group(1)
    light = re.search(r"^:root\{([^}]*)\}", css, re.MULTILINE)
    dark = re.search(r"@media[^{]*prefers-color-scheme:dark\)\{:root\{([^}]*)\}\}", css)
    assert light is not None
    assert dark is not None

    def properties(block: str) -> dict[str, str]:
        return dict(re.findall(r"--([\w-]+):(#[0-9a-f]{3,6})", block))

    return {"light": properties(light.group(1)), "dark": properties(dark.group(1))}


PALETTES = _palettes()
#: Rule 2's pairs: the colours text is written in, the backgrounds it is written on, and the
#: colours a badge, number or chip is filled with (its text is ``--on``).
TEXT = ("fg", "dim", "pass", "fail", "review", "cant", "heal", "smart", "live", "tap-ink", "old-ink")
BACKGROUNDS = ("bg", "card", "code")
FILLS = ("dim", "pass", "fail", "review", "cant", "heal", "smart", "live", "tap-ink", "old-ink")


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``#rgb`` or ``#rrggbb``."""
    digits = colour.removeprefix("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_formula_gives_the_ratios_the_issue_measured() -> None:
    assert contrast("#fff", "#000") == pytest.approx(21)
    assert round(contrast("#ffffff", "#3fb950"), 2) == 2.54  # main's dark green badge
    assert round(contrast("#ffffff", "#9198a1"), 2) == 2.91  # main's dark grey flaky badge
    assert round(contrast("#e36209", "#ffffff"), 2) == 3.49  # main's orange legend on a card (axe: 3.48)


@pytest.mark.parametrize("theme", THEMES)
def test_every_text_colour_reads_at_aa_on_every_background(theme: str) -> None:
    colours = PALETTES[theme]
    low = [
        f"--{text} on --{back}: {contrast(colours[text], colours[back]):.2f}"
        for text in TEXT
        for back in BACKGROUNDS
        if contrast(colours[text], colours[back]) < 4.5
    ]
    low += [
        f"--on on --{fill}: {contrast(colours['on'], colours[fill]):.2f}"
        for fill in FILLS
        if contrast(colours["on"], colours[fill]) < 4.5
    ]
    assert low == [], low


def test_text_is_only_ever_written_in_a_palettes_colour() -> None:
    style = re.search(r"<style>(.*?)</style>", page("t", ""), re.DOTALL)
    assert style is not None
    literal = re.findall(r"(?<![-\w])color:\s*(#[0-9a-fA-F]+|rgb[^;}]*|[a-z]+)\s*[;}]", style.group(1))
    assert [c for c in literal if c not in ("inherit", "transparent")] == []
