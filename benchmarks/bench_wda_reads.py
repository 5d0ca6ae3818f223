"""What WebDriverAgent's reads cost the replay and the verdict, and how well the fast read sees.

It drives the real :class:`~mobster_drivers.devices.wda.WdaDevice` through the fake WDA with its read-cost
model on (``ReadCosts``: Mobster's measurements of Settings' first screen, scaled by node count), on
the **real clock**:

- ``reads``: the fast read, the evidence read and the target check of a modelled 150-node screen
  (medians of 5 each), and the first fast read, which asks one visibility query, each timed
  through the device (HTTP, parsing and the modelled hold).
- ``replay``: the SDK's own ``Replayer`` replays a recorded path of taps through screens of 150
  nodes (``plain``), and through screens that also stack a hidden page under the shown one
  (``stacked``: the fast read must ask WDA once per new screen). Per step: the time from the end of
  the previous action to the end of this one, the number of polls (fast reads), and the **floor**:
  the screen's transition, one fast read, and the tap. The claim measured: a step that waits for
  its screen costs no more than one fast read per poll beyond its floor (``overhead_s <= polls *
  fast_read_s``, steps 2+); the first step, whose screen is already there, is reported apart (its
  one poll plus the target check before the tap).
- ``appium_reads``: the same reads through the Appium driver (``AppiumDevice``, the real
  Appium-Python-Client, the fake Appium server in front of the same fake WDA): what the proxy hop
  adds to each; the first query of a session also sets the session up (two more commands).
- ``verdict``: the settled read the verdict takes on that screen (two evidence reads, 0.3 s apart).
- ``trees``: on each of the eight real captures in ``../shared/wda-trees`` (when present), how many
  labelled elements each way of reading calls shown wrongly, against WDA's own flags: geometry only
  (the old read), the fast read's rules with ambiguous elements left shown, and the rules with
  WDA's answer (the read the replay uses), with each one's modelled cost per read.

Usage::

    python benchmarks/bench_wda_reads.py                 # 3 runs, about a minute
    python benchmarks/bench_wda_reads.py --quick         # a smoke run (costs and waits scaled down)
    python benchmarks/bench_wda_reads.py --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import attrs

import mobster_core as mc
from mobster_core._rules.replay.settle import SettledRead
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.judge import settled_read
from mobster_core._run.replay import Replayed, Replayer
from mobster_core.testing import MemoryJournal
from mobster_drivers.devices.appium import AppiumDevice
from mobster_drivers.devices.scripted import AppScript
from mobster_drivers.devices.wda import WdaDevice, read_source, resolve
from mobster_drivers.testing.appium import FakeAppium
from mobster_drivers.testing.wda import FakeWda, ReadCosts

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
TREES = HERE.parent.parent / "shared" / "wda-trees"
APP = "com.example.long"
#: Elements on each modelled screen, the app's root not counted (150 nodes served with it: 151).
ELEMENTS = 150
#: A USB iPhone's tap and transition (the ``usb-iphone`` profile), seconds.
TAP_S, TRANSITION_S = 0.478, 1.247


# -- the modelled app -------------------------------------------------------------------------


def app_script(screens: int, *, stacked: bool, tap: float, transition: float) -> AppScript:
    """Screens of ``ELEMENTS`` elements each: a title, a Next button, and rows (a cell, its text, an icon)."""
    pages: dict[str, list[dict[str, Any]]] = {}
    for k in range(screens + 1):
        elements: list[dict[str, Any]] = [
            {"role": "StaticText", "label": f"Screen {k}", "frame": [0.1, 0.08, 0.5, 0.04]}
        ]
        if stacked:  # another page in the same place, hidden with opacity: full frame, not visible
            elements.append(
                {"role": "StaticText", "label": f"Hidden page {k}", "frame": [0.1, 0.08, 0.5, 0.04], "visible": False}
            )
        button: dict[str, Any] = {"role": "Button", "label": "Next", "frame": [0.7, 0.08, 0.2, 0.04]}
        if k < screens:
            button["tap"] = f"s{k + 1}"
        elements.append(button)
        rows = (ELEMENTS - len(elements)) // 3
        height = round(0.8 / rows, 5)
        for r in range(rows):
            y = round(0.14 + r * height, 5)
            cell = {"role": "Cell", "frame": [0.0, y, 1.0, height], "children": [
                {"role": "StaticText", "label": f"Row {k}.{r}", "frame": [0.1, y, 0.6, height]},
                {"role": "Image", "label": f"Icon {r}", "frame": [0.8, y, 0.1, height]},
            ]}  # fmt: skip
            elements.append(cell)
        used = len(elements) + 2 * rows
        elements.extend(
            {"role": "Other", "label": f"Filler {e}", "frame": [0.0, 0.95, 0.01, 0.01]} for e in range(ELEMENTS - used)
        )
        pages[f"s{k}"] = elements
    script = {
        "version": 1,
        "device": {"name": "Modelled iPhone", "ios": "26.4", "kind": "simulator"},
        "latency": {"read": 0, "tap": tap, "transition": transition, "launch": 0, "home": 0},
        "apps": {APP: {"name": "Long", "version": "1", "build": "1", "launch": "s0", "screens": pages}},
    }
    return AppScript.from_dict(script, "<modelled app>")


# -- a device that times every call -----------------------------------------------------------


@attrs.define
class Call:
    kind: str
    start: float
    end: float


class Timed:
    """The WDA device, with the start and end of each call kept (it changes nothing)."""

    def __init__(self, device: WdaDevice) -> None:
        self.device = device
        self.calls: list[Call] = []

    async def _timed(self, kind: str, coro: Awaitable[T]) -> T:
        start = time.perf_counter()
        try:
            return await coro
        finally:
            self.calls.append(Call(kind, start, time.perf_counter()))

    async def info(self) -> mc.DeviceInfo:
        return await self.device.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.device.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        await self._timed("launch", self.device.launch(bundle, options))

    async def read(self) -> mc.Screen:
        return await self._timed("read", self.device.read())

    async def read_evidence(self) -> mc.Screen:
        return await self._timed("evidence", self.device.read_evidence())

    async def check_target(self, element: mc.Element) -> bool:
        return await self._timed("check", self.device.check_target(element))

    async def act(self, action: mc.Action) -> None:
        await self._timed("act", self.device.act(action))


# -- measurements -----------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


async def record(device: WdaDevice, steps: int, transition: float) -> list[mc.Step]:
    """Tap Next through the screens, keeping each step as a recording would."""
    out: list[mc.Step] = []
    await device.launch(APP, mc.LaunchOptions())
    for k in range(steps):
        screen = await device.read()
        while ["StaticText", f"Screen {k}"] not in screen.signature:
            await asyncio.sleep(transition / 10 or 0.01)
            screen = await device.read()
        (button,) = screen.find("Button", "Next")
        target = {
            "label": button.label,
            "role": button.role,
            "id": button.path,
            "frame": list(button.frame),
            "count": 1,
            "nth": 0,
        }
        out.append(
            mc.Step.from_dict(
                {"op": "TAP", "app": APP, "target": target,
                 "screen": {"hash": screen.hash, "signature": screen.signature},
                 "text": None, "commit": None, "live": False}
            )
        )  # fmt: skip
        await device.act(mc.Action(mc.Op.TAP, element=button))
    return out


def per_step(calls: Sequence[Call], tap: float, transition: float) -> list[dict[str, Any]]:
    """Each step from the end of the previous action to the end of its own, against its floor.

    The floor is the screen's transition (none before the first step), one fast read as this run
    measured it (the median read), and the tap.
    """
    acts = [c for c in calls if c.kind == "act"]
    first_read = next(c for c in calls if c.kind == "read")
    fast_s = median([c.end - c.start for c in calls if c.kind == "read"])
    out: list[dict[str, Any]] = []
    began = first_read.start
    for i, act in enumerate(acts):
        inside = [c for c in calls if began <= c.start < act.start]
        reads = [c for c in inside if c.kind == "read"]
        checks = [c for c in inside if c.kind == "check"]
        floor = (transition if i else 0.0) + fast_s + tap
        seconds = act.end - began
        out.append(
            {
                "step": i + 1,
                "seconds": seconds,
                "floor_s": floor,
                "overhead_s": seconds - floor,
                "polls": len(reads),
                "fast_read_s": fast_s,
                "read_s": median([c.end - c.start for c in reads]),
                "check_s": sum(c.end - c.start for c in checks),
                "within_one_fast_read_per_poll": seconds - floor <= len(reads) * fast_s,
            }
        )
        began = act.end
    return out


def replay_scenario(name: str, *, stacked: bool, steps: int, runs: int, costs: ReadCosts, tap: float,
                    transition: float, quick_policy: bool) -> dict[str, Any]:  # fmt: skip
    script = app_script(steps, stacked=stacked, tap=tap, transition=transition)
    nodes = ELEMENTS + 1
    fast_s = costs.source(nodes, visible=False, accessible=False)
    rows: list[dict[str, Any]] = []
    requests_per_step: list[float] = []
    for _ in range(runs):
        with FakeWda(script, costs=costs, lifetime=600) as fake:
            recorder = WdaDevice(fake.url)
            path = asyncio.run(record(recorder, steps, transition))
            recorder.close()
            device = Timed(WdaDevice(fake.url))
            policy = mc.PollPolicy() if not quick_policy else mc.PollPolicy(interval=0.015, drift_after=0.1)
            dispatch = Dispatcher(device, mc.SystemClock(), MemoryJournal())
            replayer = Replayer(dispatch, mc.DeviceKind.SIMULATOR, Provenance(), timing=policy)

            async def go(
                replayer: Replayer = replayer,
                dispatch: Dispatcher = dispatch,
                device: Timed = device,
                path: list[mc.Step] = path,
            ) -> Replayed:
                await dispatch.launch(APP, mc.LaunchOptions())
                device.calls.clear()
                before = len(fake.requests)
                result = await replayer.run(path)
                requests_per_step.append((len(fake.requests) - before) / max(1, len(path)))
                return result

            result = asyncio.run(go())
            if not result.completed:
                raise SystemExit(f"{name}: the replay didn't complete: {result.message}")
            rows.extend(per_step(device.calls, tap, transition))
            finds = [str(r.body.get("value", "")) for r in fake.requests if r.route == "/elements"]
            queries = sum(1 for f in finds if f.startswith("label IN"))
            checks = sum(1 for f in finds if f.startswith("type =="))
    later = [r for r in rows if r["step"] > 1]
    first = [r for r in rows if r["step"] == 1]
    return {
        "scenario": name,
        "steps": steps,
        "runs": runs,
        "nodes": nodes,
        "fast_read_model_s": fast_s,
        "fast_read_s": median([r["fast_read_s"] for r in later]),
        "step_s": median([r["seconds"] for r in later]),
        "floor_s": median([r["floor_s"] for r in later]),
        "overhead_s": median([r["overhead_s"] for r in later]),
        "polls": median([r["polls"] for r in later]),
        "read_s": median([r["read_s"] for r in later]),
        "check_s": median([r["check_s"] for r in later]),
        "requests_per_step": median(requests_per_step),
        "queries_last_run": queries,
        "checks_last_run": checks,
        "waiting_steps_within_one_fast_read_per_poll": all(r["within_one_fast_read_per_poll"] for r in later),
        "first_step_overhead_s": median([r["overhead_s"] for r in first]),
        "first_step_overhead_in_fast_reads": median([r["overhead_s"] / r["fast_read_s"] for r in first]),
        "per_step": rows,
    }


#: How many times each steady read is timed (the median is kept).
SAMPLES = 5


async def _time_reads(device: WdaDevice | AppiumDevice) -> dict[str, float]:
    """The reads of the stacked screen through ``device``, in seconds (medians of ``SAMPLES``)."""

    async def timed(call: Callable[[], Awaitable[object]]) -> float:
        start = time.perf_counter()
        await call()
        return time.perf_counter() - start

    await device.launch(APP, mc.LaunchOptions())
    out: dict[str, float] = {}
    start = time.perf_counter()
    screen = await device.read()  # asks WDA about the stacked page: a query
    out["fast_read_and_query_s"] = time.perf_counter() - start
    (button,) = screen.find("Button", "Next")
    # The same tree again: the answer is reused for 2 s, so a fast read stays a fast read.
    out["fast_read_s"] = median([await timed(device.read) for _ in range(SAMPLES)])
    out["evidence_read_s"] = median([await timed(device.read_evidence) for _ in range(SAMPLES)])
    out["target_check_s"] = median([await timed(lambda: device.check_target(button)) for _ in range(SAMPLES)])
    return out


def reads_once(costs: ReadCosts) -> dict[str, Any]:
    """One of each read of a modelled 150-node screen, timed through the WDA device."""
    script = app_script(1, stacked=True, tap=0.0, transition=0.0)
    with FakeWda(script, costs=costs, lifetime=600) as fake:
        device = WdaDevice(fake.url)
        try:
            measured = asyncio.run(_time_reads(device))
        finally:
            device.close()
    nodes = ELEMENTS + 1 + 1  # the stacked page adds one
    return {
        "nodes": nodes,
        **measured,
        "model_fast_read_s": costs.source(nodes, visible=False, accessible=False),
        "model_evidence_read_s": costs.source(nodes, visible=True, accessible=False),
        "model_target_check_s": costs.query(nodes, 1),
    }


def appium_reads_once(costs: ReadCosts) -> dict[str, Any]:
    """The same reads through the Appium device and the fake Appium server (in front of the fake WDA)."""
    script = app_script(1, stacked=True, tap=0.0, transition=0.0)
    with FakeAppium(script, costs=costs, lifetime=600) as fake:
        device = AppiumDevice(fake.url, {}, bundle=APP)
        try:
            measured = asyncio.run(_time_reads(device))
        finally:
            device.close()
    return {"nodes": ELEMENTS + 1 + 1, **measured}


def verdict_read(costs: ReadCosts) -> dict[str, Any]:
    """The verdict's settled read of a 150-node screen: evidence reads until two agree."""
    script = app_script(1, stacked=False, tap=0.0, transition=0.0)
    with FakeWda(script, costs=costs, lifetime=600) as fake:
        device = WdaDevice(fake.url)

        async def go() -> SettledRead:
            await device.launch(APP, mc.LaunchOptions())
            dispatch = Dispatcher(device, mc.SystemClock(), MemoryJournal())
            return await settled_read(lambda: dispatch.read_evidence("the verdict"), mc.SystemClock())

        read = asyncio.run(go())
        device.close()
    return {"seconds": read.seconds, "reads": read.reads, "stable": read.stable}


# -- the real trees ---------------------------------------------------------------------------


def trees(costs: ReadCosts) -> list[dict[str, Any]]:
    """Per real capture: labelled elements shown wrongly by each way of reading, and its cost."""
    out: list[dict[str, Any]] = []
    for path in sorted(TREES.glob("*.xml")):
        text = path.read_text("utf-8")
        truth = read_source(text, "a").screen
        fast = read_source(text.replace(' visible="true"', "").replace(' visible="false"', ""), "a")
        shown = {e.path for e in truth.shown if e.label}
        labelled = {e.path for e in truth.elements if e.label}
        answer = [
            {"type": "XCUIElementType" + e.role, "label": e.label, "rect": dict(zip(("x", "y", "width", "height"),
             fast.rects[e.path], strict=True))}
            for e in fast.ambiguous if e.path in shown
        ]  # fmt: skip
        nodes = len(truth.elements) + 1
        asked_labels = {e.label for e in fast.ambiguous}
        asked_nodes = sum(1 for e in truth.elements if e.label in asked_labels)
        geometry = {e.path for e in truth.elements if e.label and e.frame[2] > 0 and e.frame[3] > 0}
        ways = {
            "geometry only": (geometry, costs.source(nodes, visible=False, accessible=False)),
            "rules, no query": (
                {e.path for e in fast.screen.shown if e.label},
                costs.source(nodes, visible=False, accessible=False),
            ),
            "rules + WDA's answer": (
                {e.path for e in resolve(fast, answer).shown if e.label},
                costs.source(nodes, visible=False, accessible=False)
                + (costs.query(nodes, asked_nodes) if fast.ambiguous else 0.0),
            ),
            "evidence read": (shown, costs.source(nodes, visible=True, accessible=False)),
        }
        out.append(
            {
                "tree": path.name,
                "nodes": nodes,
                "labelled": len(labelled),
                "ambiguous": len(fast.ambiguous),
                "ways": {
                    name: {"false_shown": len(seen - shown), "false_hidden": len(shown - seen), "read_s": cost}
                    for name, (seen, cost) in ways.items()
                },
            }
        )
    return out


# -- the command ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="replays per scenario (default 3)")
    parser.add_argument("--steps", type=int, default=6, help="taps in the replayed path (default 6)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 run, 2 steps, costs and waits / 20")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    scale = 0.05 if args.quick else 1.0
    runs, steps = (1, 2) if args.quick else (args.runs, args.steps)
    base = ReadCosts()
    costs = ReadCosts(snapshot=base.snapshot * scale, visible=base.visible * scale, accessible=base.accessible * scale)
    tap, transition = TAP_S * scale, TRANSITION_S * scale
    report: dict[str, Any] = {
        "meta": {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "python": sys.version.split()[0],
            "machine": f"{platform.system()} {platform.machine()}, {platform.processor() or 'cpu'}",
            "scale": scale,
            "costs": attrs.asdict(costs),
            "tap_s": tap,
            "transition_s": transition,
        },
        "reads": reads_once(costs),
        "appium_reads": appium_reads_once(costs),
        "replay": [
            replay_scenario(
                name,
                stacked=stacked,
                steps=steps,
                runs=runs,
                costs=costs,
                tap=tap,
                transition=transition,
                quick_policy=args.quick,
            )
            for name, stacked in (("plain", False), ("stacked", True))
        ],
        "verdict": verdict_read(costs),
        "trees": trees(costs) if TREES.is_dir() else [],
    }
    if not args.quiet:
        _print(report)
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    return 0


def _print(report: dict[str, Any]) -> None:
    out: Callable[[str], None] = print
    reads = report["reads"]
    out(f"Reads of a modelled {reads['nodes']}-node screen (measured through WdaDevice; model in brackets):")
    out(f"  fast read             {reads['fast_read_s']:.3f} s  [{reads['model_fast_read_s']:.3f}]")
    out(f"  fast read + query     {reads['fast_read_and_query_s']:.3f} s")
    out(f"  evidence read         {reads['evidence_read_s']:.3f} s  [{reads['model_evidence_read_s']:.3f}]")
    out(f"  target check          {reads['target_check_s']:.3f} s  [{reads['model_target_check_s']:.3f}]")
    appium = report["appium_reads"]
    out("The same reads through AppiumDevice and the fake Appium server (the first query sets the session up):")
    for key, name in (
        ("fast_read_s", "fast read"),
        ("fast_read_and_query_s", "fast read + query"),
        ("evidence_read_s", "evidence read"),
        ("target_check_s", "target check"),
    ):
        out(f"  {name:<21} {appium[key]:.3f} s  ({appium[key] - reads[key]:+.3f} s against WdaDevice)")
    out("")
    out("Replayed steps (medians of steps 2+; a fast read as measured in the run, the model's in the last column):")
    out("  scenario  step_s  floor_s  overhead_s  polls  polls*fast_s  check_s  requests/step  within  model_fast_s")
    for s in report["replay"]:
        bound = s["polls"] * s["fast_read_s"]
        out(
            f"  {s['scenario']:<8} {s['step_s']:7.3f}  {s['floor_s']:7.3f}  {s['overhead_s']:10.3f}  {s['polls']:5.1f}"
            f"  {bound:12.3f}  {s['check_s']:7.3f}  {s['requests_per_step']:13.1f}  "
            f"{'yes' if s['waiting_steps_within_one_fast_read_per_poll'] else 'NO':>6}  {s['fast_read_model_s']:12.3f}"
        )
    for s in report["replay"]:
        out(
            f"  {s['scenario']}: step 1 (its screen already there, one poll) costs {s['first_step_overhead_s']:.3f} s "
            f"beyond its floor: {s['first_step_overhead_in_fast_reads']:.2f} fast reads (the target check)"
        )
    v = report["verdict"]
    out("")
    out(f"The verdict's settled read: {v['seconds']:.3f} s, {v['reads']} evidence reads, stable={v['stable']}")
    if report["trees"]:
        out("")
        out("Real trees: labelled elements shown wrongly (false shown / false hidden), modelled s per read:")
        ways = list(report["trees"][0]["ways"])
        out("  tree                   nodes  ambig  " + "  ".join(f"{w:>22}" for w in ways))
        for t in report["trees"]:
            cells = "  ".join(_cell(t["ways"][w]).rjust(22) for w in ways)
            out(f"  {t['tree']:<22} {t['nodes']:5}  {t['ambiguous']:5}  {cells}")


def _cell(way: dict[str, Any]) -> str:
    return f"{way['false_shown']:>3} / {way['false_hidden']:<3} {way['read_s']:6.3f} s"


if __name__ == "__main__":
    sys.exit(main())
