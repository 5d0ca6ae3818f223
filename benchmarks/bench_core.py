"""CPU cost of the replay core per replayed step, and how it grows with the work.

Three parts, all CPU time (``time.process_time``), never wall-clock waits:

Every figure is the least of several repetitions (as ``timeit`` advises: on a shared machine the
others are the same work plus noise).

1. **Per read, by screen size** (50, 200 and 1,000 elements): the work the replay does on each read
   of a step's screen: the signature (sorted unique role/label pairs), the screen hash, the read
   fingerprint, ``match_step`` (the three rules), and the poll decision (``PollPolicy.next`` plus
   ``PollState.observe``). Each is timed on fresh ``Screen`` objects (a screen caches its signature,
   hash and fingerprint, so reusing one would time a dictionary lookup). ``per step`` is what a step
   that matches on its first read costs: a new screen, its fingerprint, ``match_step`` (the signature
   included; the hash only for a screen less than 80% alike) and two poll decisions. The growth
   target (linear: per element at 5,000 elements within 2x of at 200) times the two sizes in
   alternating batches, so a busy spell on the shared machine falls on both.
2. **Loading a path**: ``load_path`` on a 50-step path (strict structuring of every step).
3. **Whole replays** of 10, 100 and 1,000 steps on the scripted phone, ``zero`` latency, a FakeClock:
   the SDK's ``Replayer`` alone (no journal), and ``run_check`` end to end (launch, baseline, replay,
   verdict, the journal written and fsynced before and after every action). Per step the cost should
   stay flat: the total grows linearly. The effect ledger (every action passes through it once) is
   timed alone over as many actions.
4. **A suite's cache lookups**: a replay cache of 500, 1,000, 2,000 and 4,000 recorded paths (one a
   check), and ``ReplayCache.lookup`` of every check once, as a suite does: CPU per lookup should stay
   flat (the store lists its folder once, not once a check: ``pathstores``' Rule 5).

Usage::

    python benchmarks/bench_core.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.settle import DEFAULT_POLICY
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.replay import Replayed, Replayer
from mobster_core._store.cache import ReplayCache
from mobster_core._store.journal import Effect, EffectLedger
from mobster_core.exceptions import PathError
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone

APP = "com.example.yourapp"
SIZES = (50, 200, 1000, 5000)
REPLAY_STEPS = (10, 100, 1000)
#: The target: core CPU per replayed step on a new 200-element screen (its read, fingerprint, match, decisions).
TARGET_MS_AT_200 = 1.0
#: The signature of a new 200-element screen (Rule 7's shown elements, sorted unique pairs) under the
#: figure measured before the visibility rules joined it (0.383 ms).
TARGET_SIGNATURE_MS_AT_200 = 0.383
#: A poll whose source equals the one before it (the WDA driver's Rule 5c), at 200 elements.
TARGET_SAME_MS_AT_200 = 0.1
#: Linear: the per-element cost at the largest screen within this factor of the one at 200 elements.
TARGET_GROWTH = 2.0

ROLES = ("StaticText", "Button", "Cell", "Image", "Switch", "TextField", "Other")


def elements(n: int, *, salt: str = "") -> list[mc.Element]:
    """``n`` elements as a read of a long list returns them: a few roles, unique labels, one Continue."""
    out: list[mc.Element] = []
    for i in range(n):
        role = ROLES[i % len(ROLES)]
        label = "Continue" if i == n // 2 else f"{role} row {i}{salt}"
        y = (i % 40) / 40
        out.append(
            mc.Element(
                role=role,
                label=label,
                identifier=f"id-{i}" if i % 3 == 0 else "",
                value=str(i % 7) if role == "Switch" else "",
                frame=(0.05, y, 0.9, 0.02),
                path=f"/0/{i // 20}/{i % 20}",
            )
        )
    return out


def step_on(screen: mc.Screen, label: str = "Continue", role: str | None = None) -> mc.Step:
    """A recorded tap on ``label`` on ``screen``."""
    (e,) = [e for e in screen.elements if e.label == label and (role is None or e.role == role)]
    return mc.Step.from_dict(
        {
            "op": "TAP",
            "app": screen.app,
            "target": {"label": e.label, "role": e.role, "id": e.path, "frame": list(e.frame), "count": 1, "nth": 0},
            "screen": {"hash": screen.hash, "signature": screen.signature},
            "text": None,
            "commit": None,
            "live": False,
        }
    )


def cpu_per_call(fn: Callable[[], object], *, number: int, repeat: int) -> float:
    """The CPU seconds of one call of ``fn``: the least of ``repeat`` batches of ``number`` calls.

    The least, as ``timeit`` advises: on a shared machine the others are the same work plus noise.
    """
    timer = timeit.Timer(fn, timer=time.process_time)
    return min(t / number for t in timer.repeat(repeat=repeat, number=number))


def step_on_new_screen(els: tuple[mc.Element, ...], step: mc.Step) -> Callable[[], object]:
    """What a step that matches on its first read costs the core, as a call.

    The read's screen, the poll decision before it, the fingerprint folded into the wait state, the
    matcher, and the decision the next step starts with.
    """
    poll = DEFAULT_POLICY

    def whole_step() -> object:
        now = poll.start(0.0)
        poll.next(now, 0.0)
        screen = mc.Screen(APP, els)
        now = now.observe(started=0.0, fingerprint=screen.fingerprint)
        m = mc.match_step(step, screen, settled=now.settled)
        poll.next(poll.start(0.2), 0.2)
        return m

    return whole_step


def growth(small: int, big: int, *, rounds: int) -> dict[str, float]:
    """The per-element cost of a step on a new screen at ``big`` elements over that at ``small``.

    Both sizes are timed in alternating batches of about the same CPU length (4,000 element-reads:
    20 calls at 200 elements, one at 5,000), the least of ``rounds`` batches each: so both see the
    same load on a shared machine (timed one after the other, a busy spell can fall on one alone,
    and a longer batch is more often shared).
    """
    calls = {}
    for n in (small, big):
        els = tuple(elements(n))
        calls[n] = (step_on_new_screen(els, step_on(mc.Screen(APP, els))), max(1, 4000 // n))
    least = dict.fromkeys(calls, math.inf)
    for _ in range(rounds):
        for n, (call, number) in calls.items():
            least[n] = min(least[n], cpu_per_call(call, number=number, repeat=1))
    return {
        "small": small,
        "big": big,
        "small_ms": least[small] * 1e3,
        "big_ms": least[big] * 1e3,
        "ratio": (least[big] / big) / (least[small] / small),
    }


def per_read(n: int, *, quick: bool) -> dict[str, float]:
    """Milliseconds of CPU per operation on a screen of ``n`` elements (each on a fresh Screen)."""
    els = tuple(elements(n))
    recorded = mc.Screen(APP, els)
    step = step_on(recorded)
    poll = DEFAULT_POLICY
    number = max(5, 4000 // n) if not quick else 3
    repeat = 7 if not quick else 2

    def fresh() -> mc.Screen:
        return mc.Screen(APP, els)

    def signature() -> object:
        return fresh().signature_pairs

    def screen_hash() -> object:
        return fresh().hash  # the signature, then SHA-256 over its canonical JSON

    def fingerprint() -> object:
        return fresh().fingerprint

    def match() -> object:
        return mc.match_step(step, fresh(), settled=False)  # computes the signature (the hash if < 80% alike)

    state = poll.start(0.0)

    def decision() -> object:
        seen = state.observe(started=0.0, fingerprint="f" * 32)
        return poll.next(seen, 0.15)

    whole_step = step_on_new_screen(els, step)

    again = fresh()
    seen = poll.start(0.0).observe(started=0.0, fingerprint=again.fingerprint)
    mc.match_step(step, again, settled=True)

    def repeated_poll() -> object:
        # A poll whose source equals the one before (the WDA driver's Rule 5c): the read before's
        # screen comes back, its fingerprint, signature and hash already computed.
        state = seen.observe(started=0.15, fingerprint=again.fingerprint)
        m = mc.match_step(step, again, settled=state.settled)
        poll.next(state, 0.15)
        return m

    base = cpu_per_call(fresh, number=number, repeat=repeat)
    return {
        "new_screen_ms": base * 1e3,
        "signature_ms": (cpu_per_call(signature, number=number, repeat=repeat) - base) * 1e3,
        "hash_ms": (cpu_per_call(screen_hash, number=number, repeat=repeat) - base) * 1e3,
        "fingerprint_ms": (cpu_per_call(fingerprint, number=number, repeat=repeat) - base) * 1e3,
        "match_step_ms": (cpu_per_call(match, number=number, repeat=repeat) - base) * 1e3,
        "poll_decision_ms": cpu_per_call(decision, number=number * 20, repeat=repeat) * 1e3,
        "per_step_ms": cpu_per_call(whole_step, number=number, repeat=repeat) * 1e3,
        "same_source_ms": cpu_per_call(repeated_poll, number=number, repeat=repeat) * 1e3,
    }


def load_path_ms(steps: int, *, quick: bool) -> float:
    """Milliseconds of CPU to load (validate) a path of ``steps`` steps on 50-element screens."""
    data: list[dict[str, Any]] = []
    for i in range(steps):
        screen = mc.Screen(APP, tuple(elements(50, salt=f" s{i}")))
        data.append(step_on(screen, role=None).to_dict())
    number, repeat = (20, 7) if not quick else (2, 2)
    return cpu_per_call(lambda: mc.load_path(data), number=number, repeat=repeat) * 1e3


def ledger_us_per_action(n: int, *, repeat: int) -> float:
    """Microseconds of CPU per action for the effect ledger (begin, then settle) over ``n`` actions.

    Every action of a run passes through it once; flat means linear in the run's actions.
    """

    def run() -> None:
        ledger = EffectLedger()
        for i in range(n):
            ledger.begin(f"step-{i}")
            ledger.settle(f"step-{i}", Effect.OK)

    return cpu_per_call(run, number=1, repeat=repeat) / n * 1e6


# -- whole replays ------------------------------------------------------------------------------

PING_PONG = """\
version: 1
device: {name: Scripted iPhone, ios: "26.4", kind: simulator}
latency: zero
apps:
  com.example.yourapp:
    name: YourApp
    version: "1.0"
    build: "1"
    file: YourApp.app
    launch: ping
    screens:
      ping:
        - {role: StaticText, label: Ping}
        - {role: Button, label: Go to pong, tap: pong}
        - {role: Button, label: Finish, tap: done}
%(ping)s
      pong:
        - {role: StaticText, label: Pong}
        - {role: Button, label: Go to ping, tap: ping}
        - {role: Button, label: Finish, tap: done}
%(pong)s
      done:
        - {role: StaticText, label: All done}
"""


def ping_pong_app(filler: int) -> str:
    """Two screens of ``filler + 3`` elements each, whose buttons lead to each other (and to the end)."""

    def rows(name: str) -> str:
        return "\n".join(f"        - {{role: Cell, label: {name} row {i}}}" for i in range(filler))

    return PING_PONG % {"ping": rows("Ping"), "pong": rows("Pong")}


async def read_two(phone: ScriptedPhone) -> tuple[mc.Screen, mc.Screen]:
    await phone.launch(APP, mc.LaunchOptions())
    ping = await phone.read()
    (go,) = ping.find("Button", "Go to pong")
    await phone.act(mc.Action(mc.Op.TAP, element=go))
    return ping, await phone.read()


def ping_pong_path(n: int, ping: mc.Screen, pong: mc.Screen) -> tuple[mc.Step, ...]:
    """``n`` taps: Go to pong, Go to ping, …, and Finish last."""
    to_pong, to_ping = step_on(ping, "Go to pong"), step_on(pong, "Go to ping")
    finish = step_on(ping if (n - 1) % 2 == 0 else pong, "Finish")
    return (*(to_pong if i % 2 == 0 else to_ping for i in range(n - 1)), finish)


def replayer_cpu(app_text: str, n: int) -> float:
    """CPU seconds of the SDK's Replayer replaying ``n`` steps (an in-memory journal), zero latency, FakeClock."""
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app_text, clock=clock)
    ping, pong = clock.run(read_two(phone))
    path = ping_pong_path(n, ping, pong)
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app_text, clock=clock)

    async def replay() -> Replayed:
        await phone.launch(APP, mc.LaunchOptions())
        dispatch = Dispatcher(phone, clock, MemoryJournal())
        return await Replayer(dispatch, mc.DeviceKind.SIMULATOR, Provenance()).run(path)

    began = time.process_time()
    result = clock.run(replay())
    spent = time.process_time() - began
    if not result.completed:
        raise SystemExit(f"replay of {n} steps stopped: {result.message}")
    return spent


def run_check_cpu(app_text: str, n: int, work: Path) -> tuple[float, float] | None:
    """(CPU, wall) seconds of ``run_check`` replaying ``n`` steps end to end (journal included).

    None when the path is too big for the replay cache (it refuses to store it, so it can't replay).
    """
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app_text, clock=clock)
    ping, pong = clock.run(read_two(phone))
    path = ping_pong_path(n, ping, pong)
    project = work / f"replay-{n}"
    checks = project / ".mobster" / "checks"
    checks.mkdir(parents=True)
    # A check holds at most 20 plain-English steps; one step may take many actions (a recorded path is
    # the actions, whatever the wording), so the check says it in one step.
    lines = f"  - Tap Go to pong and Go to ping, {n - 1} taps in all, then tap Finish\n"
    check_file = checks / "ping-pong.yaml"
    check_file.write_text(
        f"version: 1\nname: Ping pong {n}\napp: {{bundle: {APP}, path: YourApp.app}}\nsteps:\n{lines}"
        "expect:\n  - text: All done\n"
    )
    check = mc.load_check(check_file)
    script = AppScript.from_text(app_text)
    info, app = script.device, script.apps[APP]
    identity = check.identity
    env = Env.of(info, mc.AppInfo(APP, app.version, app.build))
    try:
        ReplayCache(project).store(identity, env, path, recorded_at=datetime.now(UTC))
    except PathError as exc:
        print(f"run_check, {n} steps: {exc}", file=sys.stderr)
        return None
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app_text, clock=clock)
    began_cpu, began_wall = time.process_time(), time.perf_counter()
    result = clock.run(mc.run_check(check, phone, clock, options=mc.RunOptions(screenshots=False, root=project)))
    spent = time.process_time() - began_cpu, time.perf_counter() - began_wall
    if (result.verdict, result.mode) != (mc.Verdict.PASSED, "replay"):
        raise SystemExit(f"run_check of {n} steps: {result.verdict} {result.mode} {result.outcome.message}")
    return spent


def phone_ms_per_step(app_text: str, n: int = 200) -> float:
    """CPU milliseconds the scripted phone itself spends per step (one read and one tap), zero latency.

    The Replayer's figure includes it: the phone builds every element of every read.
    """
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app_text, clock=clock)

    async def ping_pong() -> None:
        await phone.launch(APP, mc.LaunchOptions())
        for i in range(n):
            screen = await phone.read()
            (go,) = screen.find("Button", "Go to pong" if i % 2 == 0 else "Go to ping")
            await phone.act(mc.Action(mc.Op.TAP, element=go))

    began = time.process_time()
    clock.run(ping_pong())
    return (time.process_time() - began) / n * 1e3


def whole_replays(steps: Sequence[int], filler: int, *, repeat: int) -> list[dict[str, float]]:
    app_text = ping_pong_app(filler)
    out: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="mobster-core-") as tmp:
        for n in steps:
            replayer = min(replayer_cpu(app_text, n) for _ in range(repeat))
            runs = [r for r in (run_check_cpu(app_text, n, Path(tmp) / f"r{k}") for k in range(repeat)) if r]
            cpu = min(r[0] for r in runs) if runs else math.nan
            wall = min(r[1] for r in runs) if runs else math.nan
            out.append(
                {
                    "steps": n,
                    "phone_ms_per_step": min(phone_ms_per_step(app_text) for _ in range(repeat)),
                    "replayer_cpu_s": replayer,
                    "replayer_ms_per_step": replayer / n * 1e3,
                    "run_check_cpu_s": cpu,
                    "run_check_ms_per_step": cpu / n * 1e3,
                    "run_check_wall_s": wall,
                }
            )
    return out


CACHE_CHECKS = (500, 1000, 2000, 4000)


def cache_lookups(n: int, work: Path) -> float:
    """CPU microseconds per lookup of ``n`` checks' paths in a cache holding them all (a suite's lookups)."""
    project = work / f"cache-{n}"
    cache = ReplayCache(project)
    info = mc.DeviceInfo("Scripted iPhone", "26.4", mc.DeviceKind.SIMULATOR)
    env = Env.of(info, mc.AppInfo(APP, "1.0", "1"))
    clock = FakeClock()
    ping, pong = clock.run(read_two(ScriptedPhone.from_text(ping_pong_app(3), clock=clock)))
    step = ping_pong_path(2, ping, pong)
    identities = [f"{i:016x}" for i in range(1, n + 1)]
    when = datetime.now(UTC)
    for identity in identities:
        cache.store(identity, env, step, recorded_at=when)
    fresh = ReplayCache(project)  # a new run's cache: nothing of the writes above is in it
    began = time.process_time()
    for identity in identities:
        if fresh.lookup(identity, env).steps is None:
            raise SystemExit(f"cache lookups: {identity} was not found")
    return (time.process_time() - began) / n * 1e6


def targets(reads: dict[int, dict[str, float]], grown: dict[str, float] | None = None) -> list[str]:
    """The printed targets, each with its figure and whether it was met."""
    out: list[str] = []
    at200 = reads.get(200, {})
    if "per_step_ms" in at200:
        step, same = at200["per_step_ms"], at200["same_source_ms"]
        out.append(
            f"target: per replayed step on a new screen under {TARGET_MS_AT_200:g} ms at 200 elements: "
            f"{step:.3f} ms, {met(step < TARGET_MS_AT_200)}"
        )
        out.append(
            f"target: per poll that saw the same source under {TARGET_SAME_MS_AT_200:g} ms at 200 elements: "
            f"{same:.3f} ms, {met(same < TARGET_SAME_MS_AT_200)}"
        )
        signature = at200["signature_ms"]
        out.append(
            f"target: the signature of a new screen under {TARGET_SIGNATURE_MS_AT_200:g} ms at 200 elements "
            f"(before the visibility rules): {signature:.3f} ms, {met(signature < TARGET_SIGNATURE_MS_AT_200)}"
        )
    if grown is not None:
        ratio = grown["ratio"]
        out.append(
            f"target: linear, per element at {grown['big']:.0f} elements within {TARGET_GROWTH:g}x of at "
            f"{grown['small']:.0f}: {ratio:.2f}x, {met(ratio < TARGET_GROWTH)} (a step {grown['small_ms']:.3f} "
            f"and {grown['big_ms']:.2f} ms, timed in alternating batches)"
        )
    return out


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def render(
    reads: dict[int, dict[str, float]],
    load_ms: float,
    replays: list[dict[str, float]],
    filler: int,
    ledger: dict[int, float],
    lookups: dict[int, float] | None = None,
    grown: dict[str, float] | None = None,
) -> str:
    out: list[str] = []
    out.append("CPU per read of a step's screen, milliseconds (time.process_time, least of repeats; fresh Screens):")
    keys = (
        "signature_ms", "hash_ms", "fingerprint_ms", "match_step_ms", "poll_decision_ms", "per_step_ms",
        "same_source_ms",
    )  # fmt: skip
    head = f"{'elements':>8}  " + "".join(f"{k.removesuffix('_ms'):>15}" for k in keys)
    out.append(head)
    for n, figures in reads.items():
        out.append(f"{n:>8}  " + "".join(f"{figures[k]:>15.4f}" for k in keys))
    out.extend(targets(reads, grown))
    out.append("  (hash includes the signature; match_step computes the signature, and the hash only for a screen")
    out.append("   less than 80% alike, not this one; per step = what a step matching on its")
    out.append("   first read costs: new screen + fingerprint + match_step + two poll decisions)")
    out.append("")
    out.append(f"load_path, 50 steps on 50-element screens: {load_ms:.2f} ms ({load_ms / 50 * 1e3:.0f} us a step)")
    out.append("")
    out.append(
        f"Whole replays, zero latency, FakeClock, screens of {filler + 3} elements (CPU; run_check wall incl. fsync):"
    )
    out.append(f"{'steps':>6} {'Replayer s':>11} {'ms/step':>8} {'run_check s':>12} {'ms/step':>8} {'wall s':>8}")
    out.extend(
        f"{r['steps']:>6.0f} {r['replayer_cpu_s']:>11.4f} {r['replayer_ms_per_step']:>8.3f} "
        f"{r['run_check_cpu_s']:>12.4f} {r['run_check_ms_per_step']:>8.3f} {r['run_check_wall_s']:>8.3f}"
        for r in replays
    )
    if any(math.isnan(r["run_check_cpu_s"]) for r in replays):
        out.append("  (nan: the path is over the replay cache's size limit: the cache refuses it, so it can't replay)")
    if replays:
        phone = statistics.median(r["phone_ms_per_step"] for r in replays)
        out.append(f"  (of which the scripted phone itself, a read and a tap: {phone:.3f} ms a step)")
    if ledger:
        out.append(
            "effect ledger, begin + settle, us per action over a run of N actions: "
            + ", ".join(f"N={n}: {us:.1f}" for n, us in ledger.items())
        )
    if lookups:
        out.append(
            "a suite's cache lookups, CPU us per check with N paths in the cache: "
            + ", ".join(f"N={n}: {us:.0f}" for n, us in lookups.items())
        )
        (n0, us0), (n1, us1) = next(iter(lookups.items())), list(lookups.items())[-1]
        out.append(f"  ({n1 / n0:.0f}x the checks took {n1 * us1 / (n0 * us0):.1f}x the CPU: linear is {n1 / n0:.0f}x)")
    if len(replays) >= 2:
        first, last = replays[0], replays[-1]
        growth = last["replayer_cpu_s"] / first["replayer_cpu_s"]
        work = last["steps"] / first["steps"]
        out.append(
            f"growth: {work:.0f}x the steps took {growth:.1f}x the Replayer CPU "
            f"(per step {first['replayer_ms_per_step']:.3f} -> {last['replayer_ms_per_step']:.3f} ms)"
        )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU cost of the replay core per step.")
    parser.add_argument("--quick", action="store_true", help="few repetitions and small replays (for tests)")
    parser.add_argument("--filler", type=int, default=47, help="extra elements per screen in whole replays")
    parser.add_argument("--steps", help="whole replays of these many steps, comma-separated (default 10,100,1000)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    sizes = SIZES if not args.quick else SIZES[:3]  # a smoke run leaves out the 5,000-element screen
    reads = {n: per_read(n, quick=args.quick) for n in sizes}
    grown = growth(200, sizes[-1], rounds=15 if not args.quick else 2)
    load_ms = load_path_ms(50, quick=args.quick)
    steps: tuple[int, ...] = (10, 100) if args.quick else REPLAY_STEPS
    if args.steps:
        steps = tuple(int(n) for n in args.steps.split(","))
    replays = whole_replays(steps, args.filler, repeat=1 if args.quick else 3)
    ledger = {n: ledger_us_per_action(n, repeat=1 if args.quick else 3) for n in steps}
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        sizes_cache = (100, 200) if args.quick else CACHE_CHECKS
        lookups = {n: cache_lookups(n, Path(tmp)) for n in sizes_cache}
    print(render(reads, load_ms, replays, args.filler, ledger, lookups, grown))
    if args.json is not None:
        doc = {
            "python": platform.python_version(),
            "per_read_ms": {str(n): {k: round(v, 5) for k, v in f.items()} for n, f in reads.items()},
            "target_ms_at_200": TARGET_MS_AT_200,
            "target_same_source_ms_at_200": TARGET_SAME_MS_AT_200,
            "target_signature_ms_at_200": TARGET_SIGNATURE_MS_AT_200,
            "target_growth": TARGET_GROWTH,
            "growth": {k: round(v, 5) for k, v in grown.items()},
            "load_path_50_ms": round(load_ms, 4),
            "whole_replays": [{k: None if math.isnan(v) else round(v, 5) for k, v in r.items()} for r in replays],
            "elements_per_screen_in_replays": args.filler + 3,
            "ledger_us_per_action": {str(n): round(us, 3) for n, us in ledger.items()},
            "cache_lookup_us_per_check": {str(n): round(us, 1) for n, us in lookups.items()},
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
