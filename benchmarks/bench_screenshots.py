"""What the scripted phone's pictures cost: drawing, encoding, sizes, and the report's pictures of them.

Screenshots are on by default in every run (a final frame, the frames the agent sends the model,
and the frames of a report), and ``bench_replay.py`` runs on the real clock, so a picture must be
cheap. All figures are CPU time (``time.process_time``), the least of several repetitions (on a
shared machine the others are the same work plus noise).

Per screen:

- **cold**: the first picture of a process: the font's caches empty, so every glyph is smoothed
  and rasterized at its size (done once per character, size and weight, then kept);
- **warm**: a screen never drawn before whose characters were: the usual step of a run. Split into
  **draw** (the raster) and **encode** (zlib at level 3);
- **cached**: the same screen again, through the phone's renderer: a read fingerprint and a
  dictionary lookup (the fingerprint is computed on a fresh ``Screen``, as a new read gives one);
- **bytes**: the PNG's size.

The screens: the sample app's (``samples/yourapp.yaml``: the home screen, welcome, sign-up empty
and typed, done, settings, paywall), a 150-element screen (every role, unique labels) and a hostile
one (labels of 10,000 characters, emoji, bidi marks, control characters, combining marks).

The report's pictures of one of these PNGs (``mobster_report``, with Pillow): decoding it, its
thumbnail (fits 140 x 300) and its view (fits 440 x 960), and the phone's own encoding of it.

Usage::

    python benchmarks/bench_screenshots.py [--quick] [--scale 1] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone, _draw, _font, sample_path

APP = "com.example.yourapp"
#: The goal: a picture at the default size well under this, warm.
TARGET_MS = 20.0
ROLES = ("StaticText", "Button", "TextField", "SecureTextField", "Cell", "Switch", "Image", "SearchField", "Link")


def least(fn: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of ``repeat`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best * 1000


def clear_font_caches() -> None:
    """Empty every cache the pictures keep, as in a fresh process."""
    for module in (_font, _draw):
        for value in vars(module).values():
            if isinstance(value, type(lru_cache(maxsize=1)(lambda: None))):
                value.cache_clear()


def sample_screens() -> dict[str, mc.Screen]:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

    async def visit() -> dict[str, mc.Screen]:
        out = {"home": await phone.read()}
        await phone.launch(APP, mc.LaunchOptions())
        out["welcome"] = await phone.read()
        for label, name in (("Settings", "settings"), ("Upgrade to Pro", "paywall")):
            (button,) = (await phone.read()).find("Button", label)
            await phone.act(mc.Action(mc.Op.TAP, element=button))
            out[name] = await phone.read()
        await phone.launch(APP, mc.LaunchOptions(url="yourapp://signup"))
        out["signup"] = screen = await phone.read()
        (email,) = screen.find("TextField", "Email")
        (password,) = screen.find("SecureTextField", "Password")
        await phone.act(mc.Action(mc.Op.TYPE, element=email, text="ada@example.com"))
        await phone.act(mc.Action(mc.Op.TYPE, element=password, text="correct horse"))
        out["signup typed"] = screen = await phone.read()
        (go,) = screen.find("Button", "Continue")
        await phone.act(mc.Action(mc.Op.TAP, element=go))
        out["done"] = await phone.read()
        return out

    return clock.run(visit())


def crowded(n: int = 150) -> mc.Screen:
    """``n`` small elements in three columns, every role, unique labels (a long settings list)."""
    elements = []
    rows = -(-n // 3)
    pitch = 0.86 / rows
    for i in range(n):
        row, column = divmod(i, 3)
        frame = (0.02 + column * 0.33, 0.07 + row * pitch, 0.31, pitch * 0.85)
        role = ROLES[i % len(ROLES)]
        value = "1" if role == "Switch" and i % 2 else ""
        elements.append(mc.Element(role=role, label=f"{role} {i}", value=value, frame=frame, path=f"/0/{i}"))
    return mc.Screen(app="com.example.crowded", elements=tuple(elements))


def hostile() -> mc.Screen:
    labels = [
        "W" * 10_000,
        "word " * 2_000,
        "\u200f\u202e" * 3_000 + "rtl",
        "\U0001f600\U0001f44d\U0001f3fd" * 2_000,
        "e\u0301" * 3_000,
        "".join(chr(c) for c in range(32)) * 300,
        "\n" * 10_000,
    ]
    elements = tuple(
        mc.Element(role=ROLES[i % 4], label=text, value=text, frame=(0.06, 0.1 + 0.12 * i, 0.88, 0.1), path=f"/0/{i}")
        for i, text in enumerate(labels)
    )
    return mc.Screen(app="com.example.hostile", elements=elements)


def fresh(screen: mc.Screen) -> mc.Screen:
    """An equal screen that has not computed its fingerprint yet (as a new read)."""
    return mc.Screen(app=screen.app, elements=screen.elements, size=screen.size)


def per_screen(screens: dict[str, mc.Screen], scale: float, repeat: int) -> dict[str, dict[str, float]]:
    figures: dict[str, dict[str, float]] = {}
    for name, screen in screens.items():
        renderer = ScreenRenderer(scale=scale, cache_size=0)

        def cold(screen: mc.Screen = screen, renderer: ScreenRenderer = renderer) -> None:
            clear_font_caches()
            renderer.png(screen)

        cold_ms = least(cold, max(1, repeat // 2))
        renderer.png(screen)  # warm the font
        warm_ms = least(lambda screen=screen, renderer=renderer: renderer.png(screen), repeat)  # type: ignore[misc]
        draw_ms = least(lambda screen=screen, renderer=renderer: renderer.raster(screen), repeat)  # type: ignore[misc]
        raster = renderer.raster(screen)
        encode_ms = least(raster.png, repeat)
        cache = ScreenRenderer(scale=scale)
        cache.png(screen)
        cached_ms = least(lambda screen=screen, cache=cache: cache.png(fresh(screen)), repeat)  # type: ignore[misc]
        figures[name] = {
            "elements": len(screen.elements),
            "cold_ms": cold_ms,
            "warm_ms": warm_ms,
            "draw_ms": draw_ms,
            "encode_ms": encode_ms,
            "cached_ms": cached_ms,
            "bytes": len(renderer.png(screen)),
        }
    return figures


def toolkit(png: bytes, raster: Any, repeat: int) -> dict[str, float]:
    """The report's pictures of ``png`` (decoded once, as a report does), and the phone's encoding of ``raster``."""
    from mobster_report import _pictures

    _pictures._decode(png)  # Pillow's import and plugins: once a process, not part of a picture

    def fresh(sizes: list[str]) -> Callable[[], object]:
        def make() -> object:
            _pictures._made.clear()  # the report remembers pictures: measure making them
            return _pictures.make_pictures(png, sizes)

        return make

    return {
        "decode_ms": least(lambda: _pictures._decode(png), repeat),
        "thumbnail_ms": least(fresh(["thumb"]), repeat),
        "thumbnail_and_view_ms": least(fresh(["thumb", "view"]), repeat),
        "encode_ms": least(raster.png, repeat),
        "thumbnail_bytes": len(_pictures.make_pictures(png, ["thumb"])["thumb"].data),
    }


def render(figures: dict[str, dict[str, float]], tools: dict[str, float], scale: float) -> str:
    lines = [
        f"Scripted phone pictures at scale {scale:g} (CPU ms, least of repeats; target warm < {TARGET_MS:g} ms)",
        "",
        f"{'screen':<14} {'elems':>5} {'cold':>7} {'warm':>7} {'draw':>7} {'encode':>7} {'cached':>7} {'bytes':>8}",
    ]
    for name, f in figures.items():
        lines.append(
            f"{name:<14} {f['elements']:>5.0f} {f['cold_ms']:>7.2f} {f['warm_ms']:>7.2f} {f['draw_ms']:>7.2f} "
            f"{f['encode_ms']:>7.2f} {f['cached_ms']:>7.3f} {f['bytes']:>8.0f}"
        )
    samples = [f for name, f in figures.items() if name not in ("150 elements", "hostile")]
    mean_bytes = sum(f["bytes"] for f in samples) / len(samples)
    lines += [
        "",
        f"a 200-step run of sample-app frames, full PNGs: {200 * mean_bytes / 1e6:.1f} MB",
        "",
        "the report's pictures of the settings picture: "
        + ", ".join(f"{k} {v:.2f}" if k.endswith("ms") else f"{k} {v:.0f}" for k, v in tools.items()),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="What the scripted phone's pictures cost.")
    parser.add_argument("--quick", action="store_true", help="few repetitions (for tests)")
    parser.add_argument("--scale", type=float, default=1.0, help="pixels per point (default 1)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 9
    screens = sample_screens()
    screens["150 elements"] = crowded()
    screens["hostile"] = hostile()
    figures = per_screen(screens, args.scale, repeat)
    renderer = ScreenRenderer(scale=args.scale)
    tools = toolkit(renderer.png(screens["settings"]), renderer.raster(screens["settings"]), repeat)
    print(render(figures, tools, args.scale))
    if args.json is not None:
        doc = {
            "python": platform.python_version(),
            "scale": args.scale,
            "target_warm_ms": TARGET_MS,
            "screens": {name: {k: round(v, 4) for k, v in f.items()} for name, f in figures.items()},
            "toolkit": {k: round(v, 4) for k, v in tools.items()},
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
