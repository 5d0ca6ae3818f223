"""What a run's report costs: its pictures (Pillow), and a 200-step check's report, time and memory.

The report embeds a small picture of every step; ``mobster_report`` makes them with Pillow from
the frames the device gave (PNG), after the verdict.

1. **Pictures** of real-size iPhone frames (1206 x 2622, an iPhone 17 Pro's screenshot) and of
   the scripted phone's 1x frames: the thumbnail (fits 140 x 300) and the view (fits 440 x 960) a
   report makes of each (``make_pictures``: one decode, a box filter by the smallest whole factor
   that fits, PNG, or JPEG at quality 75 when it is smaller), CPU milliseconds, the least of
   several repetitions (the target is under 200 ms for both); their kind and bytes. Frames: the
   sample app's settings screen drawn by the scripted phone (a flat interface), a 150-element
   list, a textured "photo" (the worst case for PNG), and a device-like PNG of the flat screen
   whose every row uses the "paeth" filter (what an encoder such as Apple's may choose).
2. **A 200-step check**: an app of 200 screens (titles, rows, a switch, a field, a button each) on
   the scripted phone, a path of one tap per screen, replayed on a rebuild where step 150's
   button is renamed (it heals), by ``run_check`` itself with ``mobster test``'s reporter: the run
   writes a frame before each action and at the end as each arrives, the reporter keeps them by
   the policy (``auto`` by default), makes the pictures and writes ``report.html``. Reported: the
   page's bytes, the frames folder's bytes, how many full frames were kept, the run's CPU time
   against the same run with ``--frames none`` (what the frames, the pictures and the page cost),
   the CPU time to render the page, and the **peak RSS** of a process that runs it (each run in
   a fresh interpreter, so the figure is that run's). Also with ``--frames all`` and 3x frames.

Usage::

    python benchmarks/bench_report.py [--quick] [--json FILE] [--steps N]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import random
import resource
import struct
import subprocess
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
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.matcher import position
from mobster_core._store.cache import ReplayCache
from mobster_core.results import read_journal
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone
from mobster_drivers.devices.scripted._raster import Raster
from mobster_drivers.models.scripted import ScriptedModel
from mobster_report import HtmlReport, _pictures
from mobster_report._run_page import RunReport, render_run


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

#: The long check's steps (the rebuild renames the button three quarters in).
STEPS = 200
#: What making a real-size frame's thumbnail and view may take, in milliseconds.
TARGET_MS = 200.0
#: An iPhone 17 Pro's screenshot, in pixels.
IPHONE = (1206, 2622)


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


def _refiltered(raster: Raster) -> bytes:
    """Every row filtered with paeth (type 4), compressed at zlib level 6."""
    bpp = 3
    rows = [raster.row(y) for y in range(raster.height)]
    out = bytearray()
    prev = bytes(len(rows[0]))
    for row in rows:
        line = bytearray(len(row))
        for i in range(len(row)):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (row[i] - predictor) & 0xFF
        out += b"\x04" + line
        prev = row
    header = struct.pack(">IIBBBBB", raster.width, raster.height, 8, 2, 0, 0, 0)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    idat = zlib.compress(bytes(out), 6)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def frames(*, quick: bool) -> dict[str, tuple[float, bytes]]:
    """The frames measured, by name: their scale and PNG bytes."""
    settings = sample_screens()["settings"]
    if quick:
        return {"settings": (1.0, ScreenRenderer(scale=1.0).png(settings)), "photo": (1.0, photo(402, 874).png())}
    flat = ScreenRenderer(scale=3.0)
    return {
        "settings": (1.0, ScreenRenderer(scale=1.0).png(settings)),
        "photo": (1.0, photo(402, 874).png()),
        "settings 3x": (3.0, flat.png(settings)),
        "150 elements 3x": (3.0, flat.png(crowded())),
        "photo 3x": (3.0, photo(*IPHONE).png()),
        "settings 3x, paeth": (3.0, _refiltered(flat.raster(settings))),
    }


def pictures(repeat: int, *, quick: bool) -> list[dict[str, Any]]:
    """Rule 1 of the module: each frame's thumbnail and view, from one decode, and what they cost."""
    out = []
    _pictures._decode(frames(quick=True)["settings"][1])  # Pillow's import and plugins: once a process
    for name, (scale, png) in frames(quick=quick).items():

        def make(png: bytes = png) -> dict[str, _pictures.Picture]:
            _pictures._made.clear()  # a report remembers pictures: measure making them
            return _pictures.make_pictures(png, ["thumb", "view"])

        made = make()
        width, height = _pictures._decode(png).size
        row: dict[str, Any] = {
            "screen": name,
            "scale": scale,
            "pixels": f"{width}x{height}",
            "full_png_bytes": len(png),
            "decode_ms": least(partial(_pictures._decode, png), repeat),
            "thumb_and_view_ms": least(make, repeat),
        }
        for size, picture in made.items():
            row[size] = {
                "pixels": f"{picture.width}x{picture.height}",
                "chosen": picture.kind,
                "bytes": len(picture.data),
            }
        out.append(row)
    return out


# -- 2. a 200-step report -------------------------------------------------------------------------


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
    """The long check's replay by the runner with ``mobster test``'s reporter, frames by ``mode``; its CPU seconds."""
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock, screenshot_scale=scale)
    check = load_check(root / ".mobster" / "checks" / "long.yaml")
    options = mc.RunOptions(root=root, frames=mode, reporter=HtmlReport())
    start = time.process_time()
    result = clock.run(mc.run_check(check, phone, clock, model=ScriptedModel(clock=clock), options=options))
    return result, time.process_time() - start


def _project(root: Path, steps: int) -> None:
    checks = root / ".mobster" / "checks"
    checks.mkdir(parents=True, exist_ok=True)
    (checks / "long.yaml").write_text(CHECK)
    clock = FakeClock()
    clock.run(record_path(root, load_check(checks / "long.yaml"), long_app(steps, None), clock, steps))


def long_run(root: Path, scale: float, mode: str, steps: int) -> dict[str, Any]:
    """One replay of the long check in a project of its own (``root``), and what it wrote and cost."""
    _project(root, steps)
    app = long_app(steps, renamed(steps))
    ready_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    result, cpu = run_long(root, app, scale=scale, mode=mode)
    assert result.heals, result.outcome
    run_dir = root / result.run_dir
    data = json.loads((run_dir / "result.json").read_text())
    figures: dict[str, Any] = {
        "mode": mode,
        "scale": scale,
        "steps": len(data["steps"]),
        "healed": [s["index"] for s in data["steps"] if s["source"] == "healed"],
        "run_cpu_s": cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "ready_rss_mb": ready_rss_mb,  # the peak before the run: the interpreter, the imports, the recording
    }
    if mode == "none":
        return figures
    kept = sorted((run_dir / "frames").iterdir())
    full = [f for f in kept if ".thumb." not in f.name and ".view." not in f.name]
    start = time.process_time()
    render_run(RunReport(result=data, journal=read_journal(run_dir / "journal.jsonl"), frames={
        f"frames/{f.name}": f.read_bytes() for f in kept
    }))  # fmt: skip
    return {
        **figures,
        "page_bytes": (run_dir / "report.html").stat().st_size,
        "frames_folder_bytes": sum(f.stat().st_size for f in kept),
        "full_frames_kept": len(full),
        "full_frames_bytes": sum(f.stat().st_size for f in full),
        "thumbs_bytes": sum(f.stat().st_size for f in kept if ".thumb." in f.name),
        "render_s": time.process_time() - start,
    }


def long_report(root: Path, scale: float, modes: Sequence[str], steps: int) -> list[dict[str, Any]]:
    """Rule 2 of the module: each mode's run in a fresh interpreter (its own peak RSS), against ``none``."""
    runs = {mode: _in_a_child(root / f"{mode}-{scale:g}x", scale, mode, steps) for mode in ["none", *modes]}
    none = runs.pop("none")
    for r in runs.values():
        r["run_cpu_none_s"] = none["run_cpu_s"]
        r["peak_rss_none_mb"] = none["peak_rss_mb"]
        r["pictures_s"] = r["run_cpu_s"] - none["run_cpu_s"]
        r["pictures_ms_per_frame"] = 1000 * r["pictures_s"] / (r["steps"] + 1)
    return list(runs.values())


def _in_a_child(root: Path, scale: float, mode: str, steps: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", mode, str(scale), str(steps), str(root)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="What a run's report costs.")
    parser.add_argument("--quick", action="store_true", help="one repetition, 1x frames only (for tests)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"the long check's steps ({STEPS})")
    parser.add_argument("--child", nargs=4, metavar=("MODE", "SCALE", "STEPS", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        mode, scale, steps, root = args.child
        print(json.dumps(long_run(Path(root), float(scale), mode, int(steps))))
        return 0
    repeat = 1 if args.quick else 5
    figures: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "pictures": pictures(repeat, quick=args.quick),
        "long_check": [],
    }
    for scale in (1.0,) if args.quick else (1.0, 3.0):
        with tempfile.TemporaryDirectory() as tmp:
            modes = ["auto"] if args.quick else ["auto", "all"]
            figures["long_check"] += long_report(Path(tmp), scale, modes, args.steps)
    print(render(figures))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


def render(figures: dict[str, Any]) -> str:
    lines = [f"1. Pictures (Pillow; CPU ms, least of repeats; target for thumbnail + view {TARGET_MS:.0f} ms)", ""]
    lines.append(
        f"{'frame':<20} {'pixels':>9} {'PNG B':>9} {'decode':>7} {'thumb+view':>10} | "
        f"{'thumb':>7} {'kind':>4} {'bytes':>7} | {'view':>7} {'kind':>4} {'bytes':>7}"
    )
    for row in figures["pictures"]:
        t, v = row["thumb"], row["view"]
        lines.append(
            f"{row['screen']:<20} {row['pixels']:>9} {row['full_png_bytes']:>9} {row['decode_ms']:>7.1f} "
            f"{row['thumb_and_view_ms']:>10.1f} | {t['pixels']:>7} {t['chosen']:>4} {t['bytes']:>7} | "
            f"{v['pixels']:>7} {v['chosen']:>4} {v['bytes']:>7}"
        )
    for r in figures["long_check"][:1]:
        lines += ["", f"2. A {r['steps']}-step check healed at step {r['healed']} (the default policy is auto)", ""]
    for r in figures["long_check"]:
        lines.append(
            f"  --frames {r['mode']}, {r['scale']:g}x frames: page {r['page_bytes'] / 1e6:.2f} MB, frames folder "
            f"{r['frames_folder_bytes'] / 1e6:.2f} MB ({r['full_frames_kept']} full frames, "
            f"{r['full_frames_bytes'] / 1e6:.2f} MB; thumbnails {r['thumbs_bytes'] / 1e6:.2f} MB), pictures "
            f"{r['pictures_s']:.2f} s more CPU than --frames none ({r['pictures_ms_per_frame']:.1f} ms a frame: "
            f"{r['run_cpu_s']:.2f} s against {r['run_cpu_none_s']:.2f} s), render {r['render_s']:.3f} s, "
            f"peak RSS {r['peak_rss_mb']:.0f} MB ({r['peak_rss_none_mb']:.0f} MB with --frames none; "
            f"{r['ready_rss_mb']:.0f} MB before the run)"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
