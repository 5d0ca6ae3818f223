"""What a run's report costs: thumbnails (PNG against a pure-Python JPEG), decoding, and a 200-step report.

The report embeds a small picture of every step; the runner makes them from the frames the device
gives (PNG). This measures the two ways the core can make them with the standard library alone, and
the size of a long check's report under the default frame policy.

1. **Pictures** per screen: at thumbnail size (fits 140 x 300: 134 x 292 from a 402 or 1206 pixel
   wide screen) and at view size (fits 440 x 960), PNG at zlib level 9 against baseline JPEG at
   quality 75 (``mobster_core._rules.jpeg``), and what ``make_picture`` keeps (the smaller; JPEG is tried
   only when the PNG is large). Screens: the sample app's (flat interfaces), a 150-element list,
   the home screen (a gradient wallpaper) and a textured "photo" screen (the worst case for PNG).
   CPU milliseconds, the least of several repetitions; bytes.
2. **Decoding** a frame (``decode_png``): the scripted phone's PNGs (no filter, decoded at C speed)
   at 1x and 3x, and device-like PNGs of 1206 x 2622 whose rows use the "up" or the "paeth" filter
   (libpng and Apple's encoders choose per row; paeth is undone in Python).
3. **A 200-step check**: an app of 200 screens (titles, rows, a switch, a field, a button each) on
   the scripted phone, recorded by the scripted model on a FakeClock, then replayed on a rebuild
   where step 150's button is renamed (it heals), by ``run_check`` itself: it takes a frame before
   each action and at the end, keeps them by the policy (``auto`` by default) and writes
   ``report.html``. Reported: the page's bytes, the frames folder's bytes, how many full frames were
   kept, the run's CPU time against the same run with ``--frames none`` (what the frames, the
   pictures and the page cost), and the CPU time to render the page. Also with ``--frames all``
   and with 3x frames (the size of an iPhone 17 Pro's screenshots).

Usage::

    python benchmarks/bench_report.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import random
import struct
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core import load_check
from mobster_core._rules.frames import FramesMode, make_picture
from mobster_core._rules.identity import Env
from mobster_core._rules.jpeg import encode_jpeg
from mobster_core._rules.matcher import position
from mobster_core._store.cache import ReplayCache
from mobster_core._store.journal import read_journal
from mobster_core._store.report import RunReport, render_run
from mobster_core.image import Raster, decode_png
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel


def _sibling(name: str) -> Any:
    """A script beside this one (the benchmarks are a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", Path(__file__).parent / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_screens = _sibling("bench_screenshots")
crowded, sample_screens = _screens.crowded, _screens.sample_screens

#: The long check's steps, and the one whose button a rebuild renames (three quarters in).
STEPS = 200


def least(fn: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of ``repeat`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best * 1000


# -- 1. pictures ----------------------------------------------------------------------------------


def photo(width: int, height: int) -> Raster:
    """Texture over a gradient: what PNG compresses worst (a photo, a blurred backdrop)."""
    rng = random.Random(7)
    rows = []
    for y in range(height):
        grain = bytes(min(255, 40 + (y * 160) // height + v // 5) for v in range(256))
        rows.append(rng.randbytes(3 * width).translate(grain))
    return Raster.from_rows(width, rows)


def pictures(repeat: int, scales: Sequence[float], *, quick: bool) -> list[dict[str, Any]]:
    screens = sample_screens()
    names = ("settings",) if quick else ("home", "welcome", "settings", "signup typed", "paywall")
    chosen = {k: screens[k] for k in names}
    if not quick:
        chosen["150 elements"] = crowded()
    out = []
    for scale in scales:
        renderer = ScreenRenderer(scale=scale)
        rasters = {name: renderer.raster(screen) for name, screen in chosen.items()}
        rasters["photo"] = photo(round(402 * scale), round(874 * scale)) if not quick else photo(140, 300)
        for name, raster in rasters.items():
            full = raster.png()
            row: dict[str, Any] = {"screen": name, "scale": scale, "full_png_bytes": len(full)}
            for size, box in (("thumb", (140, 300)), ("view", (440, 960))):
                small = raster.thumbnail(*box)
                png9 = small.png(level=9)
                jpg = encode_jpeg(small)
                picture = make_picture(full, size)
                row[size] = {
                    "pixels": f"{small.width}x{small.height}",
                    "png_ms": least(partial(small.png, level=9), repeat),
                    "png_bytes": len(png9),
                    "jpeg_ms": least(partial(encode_jpeg, small), repeat),
                    "jpeg_bytes": len(jpg),
                    "chosen": picture.kind,
                    "chosen_bytes": len(picture.data),
                    "make_ms": least(partial(make_picture, full, size), repeat),
                }
            out.append(row)
    return out


# -- 2. decoding ----------------------------------------------------------------------------------


def filtered_png(width: int, height: int, kind: int) -> bytes:
    """A device-like PNG: every row filtered with one filter type (2 up, 4 paeth)."""
    rng = random.Random(3)
    base = rng.randbytes(3 * width)
    raw = b"".join(bytes([kind]) + base for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def decoding(repeat: int, *, quick: bool) -> dict[str, float]:
    settings = sample_screens()["settings"]
    out = {}
    device = (140, 300) if quick else (1206, 2622)
    for scale in (1.0,) if quick else (1.0, 3.0):
        png = ScreenRenderer(scale=scale).png(settings)
        out[f"scripted {scale:g}x ({len(png)} bytes)"] = least(partial(decode_png, png), repeat)
    for kind, name in ((2, "up"), (4, "paeth")):
        png = filtered_png(*device, kind)
        out[f"{device[0]}x{device[1]}, every row {name}"] = least(partial(decode_png, png), 1)
    for w, h in {(402, 874), device}:
        raster = ScreenRenderer(scale=w / 402).raster(settings)
        out[f"JPEG encode of a whole {w}x{h} frame"] = least(partial(encode_jpeg, raster), 1)
    return out


# -- 3. a 200-step report -------------------------------------------------------------------------


def long_app(steps: int, renamed: int | None) -> str:
    lines = [
        "version: 1",
        'device: {name: Scripted iPhone, ios: "26.4", kind: simulator}',
        "latency: zero",
        "apps:",
        "  com.example.long:",
        "    name: Long",
        '    version: "1.0"',
        '    build: "1"',
        "    launch: s1",
        "    screens:",
    ]
    for k in range(1, steps + 1):
        button = f"Continue {k}" if k == renamed else f"Next {k}"
        lines += [
            f"      s{k}:",
            f"        - {{role: StaticText, label: Screen {k} of {steps}}}",
            f"        - {{role: Cell, label: Account {k}}}",
            f"        - {{role: Cell, label: Privacy {k}, value: On}}",
            f"        - {{role: Switch, label: Notifications {k}, value: '{k % 2}'}}",
            f"        - {{role: TextField, label: Name {k}, value: Ada {k}}}",
            f"        - {{role: StaticText, label: 'Step {k} asks for nothing more than a tap on the button below.'}}",
            f"        - {{role: Button, label: {button}, tap: s{k + 1}}}",
        ]
    lines += [f"      s{steps + 1}:", "        - {role: StaticText, label: All done}"]
    return "\n".join(lines) + "\n"


CHECK = """\
version: 1
name: Walk through the long app
app: {bundle: com.example.long}
steps:
  - Tap through every screen to the end
expect:
  - text: All done
"""


def renamed(steps: int) -> int:
    """The step whose button the rebuild renames: three quarters of the way."""
    return max(1, steps * 3 // 4)


async def record_path(root: Path, check: mc.Check, app: str, clock: FakeClock, steps: int) -> None:
    """Store a path of one tap per screen, as Smart would record it (a check holds at most 20 steps
    of English, and Smart may take many actions for one of them; the scripted model takes one)."""
    phone = ScriptedPhone.from_text(app, clock=clock)
    bundle = check.app.bundle or ""
    identity = check.identity
    env = Env.of(await phone.info(), await phone.app_info(bundle))
    await phone.launch(bundle, check.launch_options())
    path = []
    for k in range(1, steps + 1):
        screen = await phone.read()
        (button,) = screen.find("Button", f"Next {k}")
        count, nth = position(screen, button)
        target = {"label": button.label, "role": "Button", "id": button.path, "frame": list(button.frame)}
        path.append(
            mc.Step.from_dict(
                {
                    "op": "TAP",
                    "app": screen.app,
                    "target": {**target, "count": count, "nth": nth},
                    "screen": {"hash": screen.hash, "signature": screen.signature},
                    "text": None,
                    "commit": None,
                    "live": False,
                }
            )
        )
        await phone.act(mc.Action(mc.Op.TAP, element=button))
    ReplayCache(root).store(identity, env, path, recorded_at=datetime.now(UTC))


def run_long(root: Path, app: str, *, scale: float, mode: str) -> tuple[mc.CheckResult, float]:
    """The replay of the long check by the runner itself, keeping frames by ``mode``; and its CPU seconds."""
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock, screenshot_scale=scale)
    check = load_check(root / ".mobster" / "checks" / "long.yaml")
    options = mc.RunOptions(root=root, frames=mode)
    start = time.process_time()
    result = clock.run(mc.run_check(check, phone, clock, model=ScriptedModel(clock=clock), options=options))
    return result, time.process_time() - start


def _project(root: Path, steps: int) -> None:
    checks = root / ".mobster" / "checks"
    checks.mkdir(parents=True, exist_ok=True)
    (checks / "long.yaml").write_text(CHECK)
    clock = FakeClock()
    clock.run(record_path(root, load_check(checks / "long.yaml"), long_app(steps, None), clock, steps))


def long_report(root: Path, scale: float, modes: Sequence[str], steps: int) -> list[dict[str, Any]]:
    """Rule 3 of the module: the runner's own ``report.html`` and ``frames/`` for each mode, and what they cost.

    Each mode replays in a project of its own (the heal file of one would change the next), and
    ``none`` gives the run's CPU without frames: the difference is what frames, pictures and the
    page cost the run.
    """
    out = []
    cpu: dict[str, float] = {}
    for mode in ["none", *modes]:
        project = root / f"{mode}-{scale:g}x"
        _project(project, steps)
        result, cpu[mode] = run_long(project, long_app(steps, renamed(steps)), scale=scale, mode=mode)
        assert result.heals, result.outcome
        if mode == "none":
            continue
        run_dir = project / result.run_dir
        data = json.loads((run_dir / "result.json").read_text())
        frames = sorted((run_dir / "frames").iterdir())
        full = [f for f in frames if ".thumb." not in f.name and ".view." not in f.name]
        start = time.process_time()
        render_run(RunReport(result=data, journal=read_journal(run_dir / "journal.jsonl"), frames={
            f"frames/{f.name}": f.read_bytes() for f in frames
        }))  # fmt: skip
        render_s = time.process_time() - start
        out.append(
            {
                "mode": mode,
                "scale": scale,
                "steps": len(data["steps"]),
                "healed": [s["index"] for s in data["steps"] if s["source"] == "healed"],
                "page_bytes": (run_dir / "report.html").stat().st_size,
                "frames_folder_bytes": sum(f.stat().st_size for f in frames),
                "full_frames_kept": len(full),
                "full_frames_bytes": sum(f.stat().st_size for f in full),
                "thumbs_bytes": sum(f.stat().st_size for f in frames if ".thumb." in f.name),
                "pictures_s": cpu[mode] - cpu["none"],
                "pictures_ms_per_frame": 1000 * (cpu[mode] - cpu["none"]) / (len(data["steps"]) + 1),
                "render_s": render_s,
                "run_cpu_s": cpu[mode],
                "run_cpu_none_s": cpu["none"],
            }
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="What a run's report costs.")
    parser.add_argument("--quick", action="store_true", help="one repetition, 1x frames only (for tests)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"the long check's steps ({STEPS})")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 5
    figures: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "pictures": pictures(repeat, (1.0,) if args.quick else (1.0, 3.0), quick=args.quick),
        "decoding_ms": decoding(repeat, quick=args.quick),
        "long_check": [],
    }
    for scale in (1.0,) if args.quick else (1.0, 3.0):
        with tempfile.TemporaryDirectory() as tmp:
            modes = [FramesMode.AUTO.value] if args.quick else [m.value for m in (FramesMode.AUTO, FramesMode.ALL)]
            figures["long_check"] += long_report(Path(tmp), scale, modes, args.steps)
    print(render(figures))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


def render(figures: dict[str, Any]) -> str:
    lines = ["1. Pictures (CPU ms, least of repeats; bytes)", ""]
    lines.append(
        f"{'screen':<14}{'x':>3} {'full PNG':>9} | {'thumb':>7} {'png ms':>6} {'png B':>7} {'jpg ms':>6} "
        f"{'jpg B':>7} {'kept':>9} {'make ms':>7} | {'view':>7} {'png B':>7} {'jpg ms':>6} {'jpg B':>7} {'kept':>9}"
    )
    for row in figures["pictures"]:
        t, v = row["thumb"], row["view"]
        lines.append(
            f"{row['screen']:<14}{row['scale']:>3g} {row['full_png_bytes']:>9} | {t['pixels']:>7} {t['png_ms']:>6.1f} "
            f"{t['png_bytes']:>7} {t['jpeg_ms']:>6.1f} {t['jpeg_bytes']:>7} "
            f"{t['chosen'] + ' ' + str(t['chosen_bytes']):>9} "
            f"{t['make_ms']:>7.1f} | {v['pixels']:>7} {v['png_bytes']:>7} {v['jpeg_ms']:>6.1f} {v['jpeg_bytes']:>7} "
            f"{v['chosen'] + ' ' + str(v['chosen_bytes']):>9}"
        )
    lines += ["", "2. Decoding and whole-frame JPEG (CPU ms)", ""]
    lines += [f"  {k}: {v:.1f}" for k, v in figures["decoding_ms"].items()]
    for r in figures["long_check"][:1]:
        lines += ["", f"3. A {r['steps']}-step check healed at step {r['healed']} (the default policy is auto)", ""]
    for r in figures["long_check"]:
        lines.append(
            f"  --frames {r['mode']}, {r['scale']:g}x frames: page {r['page_bytes'] / 1e6:.2f} MB, frames folder "
            f"{r['frames_folder_bytes'] / 1e6:.2f} MB ({r['full_frames_kept']} full frames, "
            f"{r['full_frames_bytes'] / 1e6:.2f} MB; thumbnails {r['thumbs_bytes'] / 1e6:.2f} MB), pictures "
            f"{r['pictures_s']:.2f} s more CPU than --frames none ({r['pictures_ms_per_frame']:.1f} ms a frame: "
            f"{r['run_cpu_s']:.2f} s against {r['run_cpu_none_s']:.2f} s), render {r['render_s']:.3f} s"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
