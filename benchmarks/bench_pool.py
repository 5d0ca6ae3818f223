"""A suite on a pool of Appium devices against the same suite on one: what work stealing buys.

Each device is a fake Appium server (``FakeAppium``) in front of its own fake WDA and scripted
phone, with a USB iPhone's latencies (the ``usb-iphone`` profile: a tap returns after 0.478 s, the
next screen shows 1.247 s later, a launch takes 2.6 s, a read 0.234 s), driven by the real
Appium-Python-Client on the **real clock**. The suite is 12 sign-up checks (three steps each and
an assertion), run through ``mobster_harness.pool.run_on_pool`` as ``mobster test --appium URL
--appium URL …`` runs them:

1. ``record``: the pool records every check with the scripted model (Smart; not the figure);
2. ``pool``: the pool replays the suite (the figure: wall-clock seconds);
3. ``one``: one device replays the same suite.

Printed: both times, their ratio (``pool / one``; a quarter is the ideal for 4 devices), the
model calls of the replays (0), and whether every check got the same verdict on the pool and on
one device.

With ``--hub`` the devices are the phones of **one** fake Selenium Grid 4 hub
(``FakeAppium(devices=N)``: one URL, each session on its own phone, a request waits in the queue
while none is free), and the pool is ``mobster test --appium URL --sessions N`` against ``--sessions
1``: what ``--sessions`` buys on a Grid or a cloud.

With ``--android`` the devices are fake **Android** phones (``mobster test --android SERIAL``,
N times): each a fake UiAutomator2 server running the scripted Android phone with the ``android``
latency profile (a read 0.212 s, a tap 0.226 s, the next screen 1.247 s later, a launch 2.0 s:
docs/scripted-phone.md), all behind one fake ``adb`` on ``ANDROID_HOME``, driven by Mobster's
Android driver; by default 10 devices and 20 checks (two a device), against the same suite on one.

Usage::

    python benchmarks/bench_pool.py                    # 12 checks, 4 devices: about 3 minutes
    python benchmarks/bench_pool.py --hub              # the same on one hub of 4 phones, --sessions 4 vs 1
    python benchmarks/bench_pool.py --android          # 20 checks, 10 fake Android devices, vs 1
    python benchmarks/bench_pool.py --quick            # a smoke run: 4 checks, 2 devices, latencies / 10
    python benchmarks/bench_pool.py --checks 24 --devices 8 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import platform
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.appium import FakeAppium
from mobster_harness.pool import run_on_pool
from mobster_harness.spec import DeviceOptions, pool_specs

CHECK = """\
version: 1
name: Sign up {n}
app: {{bundle: com.example.yourapp}}
steps:
  - Tap "Sign up"
  - Type "ada{n}@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
#: The ``android`` profile's figures, seconds (docs/scripted-phone.md).
ANDROID = {
    "read": 0.212, "tap": 0.226, "transition": 1.247, "type_char": 0.0175, "swipe": 0.7, "launch": 2.0,
    "home": 0.226, "screenshot": 0.25,
}  # fmt: skip
#: The ``usb-iphone`` profile's figures, seconds (docs/scripted-phone.md).
USB_IPHONE = {
    "read": 0.234,
    "tap": 0.478,
    "transition": 1.247,
    "type_char": 0.0175,
    "swipe": 0.7,
    "launch": 2.6,
    "home": 0.5,
}


def app_script(scale: float) -> AppScript:
    """The sample app as a USB iPhone (``listApps`` gives its version), latencies times ``scale``."""
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    if scale == 1.0:
        latency = "latency: usb-iphone"
    else:
        latency = "latency: {" + ", ".join(f"{k}: {v * scale:.4f}" for k, v in USB_IPHONE.items()) + "}"
    text = re.sub(r"^latency: .*$", latency, text, count=1, flags=re.MULTILINE)
    return AppScript.from_text(text, "yourapp.yaml")


def android_script(scale: float) -> AppScript:
    """The sample Android app with the ``android`` latency profile, times ``scale``."""
    text = sample_path("yourapp-android").read_text("utf-8")
    figures = ", ".join(f"{k}: {v * scale:.4f}" for k, v in ANDROID.items())
    latency = "latency: android" if scale == 1.0 else "latency: {" + figures + "}"
    text = re.sub(r"^latency: .*$", latency, text, count=1, flags=re.MULTILINE)
    return AppScript.from_text(text, "yourapp-android.yaml")


def project(root: Path, checks: int) -> list[Path]:
    folder = root / ".mobster" / "checks"
    folder.mkdir(parents=True)
    for n in range(1, checks + 1):
        (folder / f"signup{n:02d}.yaml").write_text(CHECK.format(n=n))
    return mc.find_checks(root)


def suite(
    files: list[Path], urls: Sequence[str], root: Path, *, model: bool, sessions: int | None = None
) -> tuple[mc.SuiteResult, float]:
    """Run the suite on the Appium devices at ``urls`` (``sessions`` each, one by default); its seconds.

    ``urls`` of the form ``android:SERIAL`` are Android devices through adb instead.
    """
    clock = mc.SystemClock()
    serials = tuple(u.removeprefix("android:") for u in urls if u.startswith("android:"))
    if serials:
        specs = pool_specs(DeviceOptions(android=serials))
    else:
        specs = pool_specs(DeviceOptions(appium=tuple(urls), sessions=sessions), bundle="com.example.yourapp")
    options = mc.RunOptions(root=root)
    models = (lambda: ScriptedModel(clock=clock)) if model else (lambda: None)
    began = time.perf_counter()
    result = asyncio.run(run_on_pool(files, specs, clock, models=models, options=options))
    return result, time.perf_counter() - began


def summary(result: mc.SuiteResult, seconds: float) -> dict[str, Any]:
    return {
        "seconds": round(seconds, 2),
        "checks": len(result.checks),
        "verdicts": {c.name: c.verdict.value for c in result.checks},
        "modes": sorted({"none" if c.mode is None else c.mode.value for c in result.checks}),
        "model_calls": result.model_calls,
        "cost_usd": round(result.cost.usd, 6),
        "per_device": _per_device(result),
    }


def _per_device(result: mc.SuiteResult) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in result.checks:
        key = c.device_label or "the one device"
        counts[key] = counts.get(key, 0) + 1
    return counts


def measure(checks: int, devices: int, scale: float, *, hub: bool = False, android: bool = False) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-pool-") as tmp, contextlib.ExitStack() as stack:
        root = Path(tmp)
        files = project(root, checks)
        if android:  # N Android phones behind one adb: --android SERIAL xN against one
            urls = _android_devices(stack, devices, scale)
            recorded, record_s = suite(files, urls, root, model=True)
            pool, pool_s = suite(files, urls, root, model=False)
            one, one_s = suite(files, urls[:1], root, model=False)
        elif hub:  # one URL, N phones: --sessions N against --sessions 1
            grid = stack.enter_context(FakeAppium(app_script(scale), lifetime=3600, devices=devices))
            recorded, record_s = suite(files, [grid.url], root, model=True, sessions=devices)
            pool, pool_s = suite(files, [grid.url], root, model=False, sessions=devices)
            one, one_s = suite(files, [grid.url], root, model=False, sessions=1)
        else:
            fakes = [stack.enter_context(FakeAppium(app_script(scale), lifetime=3600)) for _ in range(devices)]
            urls = [f.url for f in fakes]
            recorded, record_s = suite(files, urls, root, model=True)
            pool, pool_s = suite(files, urls, root, model=False)
            one, one_s = suite(files, urls[:1], root, model=False)
    pool_doc, one_doc = summary(pool, pool_s), summary(one, one_s)
    return {
        "record": summary(recorded, record_s),
        "pool": pool_doc,
        "one": one_doc,
        "ratio": round(pool_s / one_s, 3),
        "ideal_ratio": round(1 / devices, 3),
        "same_verdicts": pool_doc["verdicts"] == one_doc["verdicts"],
        "replayed_at_zero": pool_doc["modes"] == one_doc["modes"] == ["replay"]
        and pool_doc["model_calls"] == one_doc["model_calls"] == 0,
    }


def _android_devices(stack: contextlib.ExitStack, devices: int, scale: float) -> list[str]:
    """``devices`` fake UiAutomator2 servers behind one fake adb on ``ANDROID_HOME``: their ``android:SERIAL``."""
    import os

    from mobster_drivers.testing.adb import FakeAdb
    from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2

    script = android_script(scale)
    serials = [f"emulator-{5554 + 2 * n}" for n in range(devices)]
    servers = [stack.enter_context(FakeUiAutomator2(script, serial=s, lifetime=3600)) for s in serials]
    adb = stack.enter_context(FakeAdb(servers, lifetime=3600))
    os.environ["ANDROID_HOME"] = str(adb.android_home)
    os.environ.pop("ANDROID_SDK_ROOT", None)
    return [f"android:{s}" for s in serials]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=None, help="checks in the suite (default 12; --android 20)")
    parser.add_argument("--devices", type=int, default=None, help="fake devices in the pool (default 4; --android 10)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 4 checks, 2 devices, latencies / 10")
    parser.add_argument(
        "--hub", action="store_true", help="the devices are one Grid hub's phones: --sessions N against 1"
    )
    parser.add_argument(
        "--android", action="store_true", help="fake Android devices through adb (default 10 devices, 20 checks)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    defaults = (20, 10) if args.android else (12, 4)
    checks, devices, scale = (args.checks or defaults[0], args.devices or defaults[1], 1.0)
    if args.quick:
        checks, devices, scale = 4, 2, 0.1
    report = {
        "meta": {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "python": sys.version.split()[0],
            "machine": f"{platform.system()} {platform.machine()}, {platform.processor() or 'cpu'}",
            "checks": checks,
            "devices": devices,
            "latency": ("android" if args.android else "usb-iphone") + ("" if scale == 1.0 else f" x {scale:g}"),
            "pool": _pool_words(args, devices),
        },
        **measure(checks, devices, scale, hub=args.hub, android=args.android),
    }
    if not args.quiet:
        _print(report)
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    ok = report["same_verdicts"] and report["replayed_at_zero"]
    return 0 if ok else 1


def _pool_words(args: argparse.Namespace, devices: int) -> str:
    if args.android:
        return f"{devices} Android devices behind one adb, --android SERIAL each"
    return f"one Grid hub of {devices} phones, --sessions {devices} vs 1" if args.hub else "one URL a device"


def _print(report: dict[str, Any]) -> None:
    meta = report["meta"]
    print(f"{meta['checks']} checks, {meta['devices']} fake devices ({meta['pool']}), {meta['latency']}")
    for key in ("record", "pool", "one"):
        doc = report[key]
        passed = sum(1 for v in doc["verdicts"].values() if v == "passed")
        print(
            f"  {key:6} {doc['seconds']:7.1f} s  {passed}/{doc['checks']} passed  modes {','.join(doc['modes'])}  "
            f"model calls {doc['model_calls']}  per device {doc['per_device']}"
        )
    print(f"  ratio pool/one {report['ratio']:.3f} (ideal {report['ideal_ratio']:.3f})")
    print(f"  same verdicts on the pool and on one device: {report['same_verdicts']}")
    print(f"  every check replayed at $0: {report['replayed_at_zero']}")


if __name__ == "__main__":
    raise SystemExit(main())
