"""How long a check takes fresh, replayed and healed, against the floor of what it must wait for.

It runs the SDK's own ``run_check`` (the path of ``mobster test``: launch, baseline, replay or Smart,
heal, verdict, run folder) on the scripted phone with the ``usb-iphone`` latency profile, on the
**real clock**: every read, tap and transition sleeps the time measured on an iPhone 15 Pro over
USB, and the scripted model sleeps 2.5 s a call. It is a model of the world, not a phone.

Modes (``--modes``, default ``fresh,replay,heal,heal-first,heal-last``):

- ``fresh``: Smart performs every step and records (``RunOptions(fresh=True)``).
- ``replay``: the recorded path replays with no model at all (no key).
- ``heal``: the recorded path replays on a rebuild (same version and build) where one button of a
  middle step is renamed (``--rename OLD=NEW``); the model heals that step only.
- ``heal-first``: the same with the target of the *first* step renamed.
- ``heal-last``: the same with the target of the *last* step renamed: no recorded step is left to
  match after it, so the check's expectations on a settled read end the heal (no "done" call).

What is measured, per run (see ``docs/benchmarks.md`` for the method in full):

- ``run_s``: the run's own ``seconds`` (what ``mobster test`` reports: launch to verdict and files).
- ``steps_s``: from the first step's start to the last step's end. The first step starts when the
  baseline read ends; the last step ends when its effect is on the screen (the end of the first
  read, by anyone, that shows the screen after the last action) or when the replay or the agent
  hands over to the verdict, whichever is later (a fresh run's last model call, "done", is part of
  the steps). The two marks come from timing the two settled reads ``run_check`` takes (baseline
  and verdict) and every call the SDK makes to the device, through thin wrappers that change
  nothing.
- ``floor_s``: what those steps can't avoid waiting for: per action sent, its latency, the screen
  transition after it (when the screen changed), and one read to see the new screen; plus, per model
  call the mode needs (fresh: steps + 1 for "done"; replay: 0; heal, heal-first and heal-last: 1, the
  renamed step's), 2.5 s; and on a phone whose screenshots share its one channel (the default, as
  WebDriverAgent's), one screenshot per screen the run decides on (each action's frame, which is
  also the model's picture of it, and the "done" call's screen), since runs take screenshots and
  keep frames as ``mobster test`` does (``--no-screenshots``, ``--no-frames`` to compare).
- ``rule_wait_s``: what the drift rule makes a heal wait beyond that floor. A step drifts once the
  screen is settled and the policy's ``drift_after`` (1.0 s by default) has passed since the step's
  wait began (or since the screen in front first appeared, when that was earlier: settle Rule 3).
  The rule is the product's, so a heal's floor counts its remaining wait: per drift the run had,
  ``max(0, began + drift_after - settled)``, where ``began`` is the rule's own origin and ``settled``
  when the wait's reads showed the screen settled (the end of the read that agreed with the one
  before), both noted from the run by a wrapper around the replay's step waits that changes
  nothing, and ``drift_after`` the policy the run used. ``rule_ratio`` = ``steps_s / (floor_s +
  rule_wait_s)``; the heal modes are held to :data:`HELD_TO` (1.05x) of it. A drift on a screen that
  never settled (the give-up rule) counts 0: no scenario here has one.
- ``run_floor_s``: the whole run's floor: the launch, one baseline read, the steps' floor, and the
  verdict's second read 0.3 s after its first; ``run_ratio`` = ``run_s / run_floor_s``.
- The phone serves one request at a time (``--concurrent``: the old model that answered each at
  once); ``--separate-screenshots`` gives screenshots a channel of their own (a simulator),
  ``--frames-beside-reads`` takes one beside every read on the one channel (the way before issue
  27), ``--screenshot-scale`` sets their pixels (3: an iPhone's 1206 x 2622, 1.0 s).
- ``ratio``: ``steps_s / floor_s``. Cost: the run's own estimate (4 characters a token plus 150 output
  tokens a call, no caching; the screenshot's tokens are not counted) at ``--price-in``/``--price-out``
  USD per million.

Usage::

    python benchmarks/bench_replay.py                    # 5 runs per mode, several minutes
    python benchmarks/bench_replay.py --runs 1 --scale 0.01 --json out.json   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import platform
import shutil
import statistics
import sys
import tempfile
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from unittest import mock

import attrs

import mobster_core as mc
from mobster_core._results.frames import FramesMode
from mobster_core._rules.replay.settle import DEFAULT_READ_POLICY, Done, Drifted, Move, SettledRead, StepState, StepWait
from mobster_core.results import StepSource
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import PROFILES, AppScript, Latency, ScriptedElement, ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
DEFAULT_APP = DATA / "settings-paywall.yaml"
#: ``--android``: the same app on a scripted Android phone, with the ``android`` latency profile.
ANDROID_APP = DATA / "settings-paywall-android.yaml"
DEFAULT_CHECK = DATA / "open-paywall.yaml"
DEFAULT_RENAME = "Membership=Your plan"
MODES = ("fresh", "replay", "heal", "heal-first", "heal-last")
DEFAULT_MODES = MODES
#: What the scripted model sleeps a call, before --scale.
MODEL_SECONDS = 2.5
#: The product note's real-device figures for the steps: iPhone 15 Pro, iOS 26.0.1, USB, Claude Sonnet,
#: median of 5 runs, 17 October 2026 (seed note, "What it saves").
NOTE_STEPS_S = {"fresh": 10.4, "replay": 3.3}
#: The note's launch (2.6 s) and verdict read (2.4 s) on the same phone, the same either way.
NOTE_LAUNCH_S, NOTE_VERDICT_S = 2.6, 2.4
#: How close to ``floor_s + rule_wait_s`` the heal modes are held (issue 37, item 10).
HELD_TO = 1.05


# -- recording what the SDK does ----------------------------------------------------------------


@attrs.define
class Call:
    """One call the SDK made to the device or the model, on the run's clock (seconds)."""

    kind: str  # launch | read | act | frame | model
    start: float
    end: float = math.nan
    op: str = ""
    label: str = ""
    where: str = ""  # "bundle:screen" in front: before an act, after a read
    text: str = ""
    cancelled: bool = False


class TimedDevice:
    """The scripted phone behind a wrapper that notes every call; it changes nothing."""

    def __init__(self, phone: ScriptedPhone, clock: mc.Clock, calls: list[Call], *, beside: bool = False) -> None:
        self.phone = phone
        self.clock = clock
        self.calls = calls
        #: The phone's screenshot channel (``protocols.ScreenshotChannel``), passed through; ``beside``
        #: says it has one of its own when it hasn't, so the run takes a screenshot beside every read.
        self.separate_screenshots = phone.separate_screenshots or beside

    def where(self) -> str:
        front = self.phone.front
        return f"{front}:{self.phone.screen_name(front) or ''}"

    async def info(self) -> mc.DeviceInfo:
        return await self.phone.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.phone.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        call = Call("launch", self.clock.now(), op="LAUNCH", label=bundle)
        self.calls.append(call)
        try:
            await self.phone.launch(bundle, options)
        finally:
            call.end, call.where = self.clock.now(), self.where()

    async def read(self) -> mc.Screen:
        call = Call("read", self.clock.now())
        self.calls.append(call)
        try:
            return await self.phone.read()
        finally:
            call.end, call.where = self.clock.now(), self.where()

    async def act(self, action: mc.Action) -> None:
        label = "" if action.element is None else action.element.label
        call = Call(
            "act", self.clock.now(), op=action.op.value, label=label, where=self.where(), text=action.text or ""
        )
        self.calls.append(call)
        try:
            await self.phone.act(action)
        finally:
            call.end = self.clock.now()

    async def screenshot(self) -> bytes:
        call = Call("frame", self.clock.now())
        self.calls.append(call)
        try:
            return await self.phone.screenshot()
        finally:
            call.end = self.clock.now()


class TimedModel:
    """The scripted model behind a wrapper that notes each call and whether it was cancelled."""

    def __init__(self, model: mc.Model, clock: mc.Clock, calls: list[Call]) -> None:
        self.model = model
        self.clock = clock
        self.calls = calls

    @property
    def name(self) -> str:
        return self.model.name

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        call = Call("model", self.clock.now())
        self.calls.append(call)
        try:
            decision = await self.model.decide(prompt)
        except asyncio.CancelledError:
            call.cancelled = True
            raise
        finally:
            call.end = self.clock.now()
        call.op = decision.kind.value
        return decision


class FramesKept:
    """A reporter that keeps the run's frames and makes no page (``mobster test``'s report makes its pictures after)."""

    def check_ended(self, result: mc.CheckResult, folder: Path, frames: FramesMode) -> None:
        """Nothing: the frames are already in the run folder."""

    def suite_ended(self, suite: mc.SuiteResult) -> None:
        """Nothing."""


@contextlib.contextmanager
def settled_read_marks(clock: mc.Clock, marks: list[tuple[float, float]]) -> Iterator[None]:
    """Note the start and end of each settled read ``run_check`` takes: the baseline, then the verdict.

    Both go through ``settled_read`` of the judge module; the wrapper times that function.
    """
    import mobster_core._run.judge as run_module

    original: Callable[..., Awaitable[SettledRead]] = vars(run_module)["settled_read"]

    async def timed(*args: Any, **kwargs: Any) -> SettledRead:
        start = clock.now()
        try:
            return await original(*args, **kwargs)
        finally:
            marks.append((start, clock.now()))

    with mock.patch.object(run_module, "settled_read", timed):
        yield


@attrs.frozen
class DriftMark:
    """One step's drift, on the run's clock (seconds): the drift rule's remaining wait is read off it."""

    began: float  # the rule's origin: the wait's start, or when the screen in front first appeared
    settled: float  # when the wait's reads showed the screen settled (nan: they never did)
    drift_after: float  # the policy's value the run used

    @property
    def rule_wait(self) -> float:
        """What the rule waited once the screen had settled: ``began + drift_after - settled``, at least 0."""
        if math.isnan(self.settled):
            return 0.0
        return max(0.0, self.began + self.drift_after - self.settled)


class NotedStepWait:
    """A replay step's wait (``settle.StepWait``) behind a wrapper that notes its drift; it changes nothing."""

    def __init__(self, wait: StepWait, clock: mc.Clock, drifts: list[DriftMark]) -> None:
        self.wait = wait
        self.clock = clock
        self.drifts = drifts
        self.settled = math.nan

    def start(self, now: float) -> StepState:
        state = self.wait.start(now)
        self.settled = now if state.timing.settled else math.nan  # a seed read that agreed already
        return state

    def next(self, state: StepState, now: float) -> Move[Any]:
        move = self.wait.next(state, now)
        if isinstance(move, Done) and isinstance(move.result, Drifted):
            self.drifts.append(DriftMark(state.timing.origin, self.settled, self.wait.policy.drift_after))
        return move

    def saw(self, state: StepState, started: float, screen: mc.Screen) -> StepState:
        after = self.wait.saw(state, started, screen)
        if not after.timing.settled:
            self.settled = math.nan
        elif not state.timing.settled or math.isnan(self.settled):
            self.settled = self.clock.now()  # the end of the read that agreed with the one before
        return after

    def checked(self, state: StepState, shown: bool) -> StepState:
        return self.wait.checked(state, shown)


@contextlib.contextmanager
def drift_marks(clock: mc.Clock, drifts: list[DriftMark]) -> Iterator[None]:
    """Note every drift of the replay's step waits (the one wait loop ``drive``, as the replay calls it)."""
    import mobster_core._run.replay as replay_module

    original: Callable[..., Awaitable[Any]] = vars(replay_module)["drive"]

    async def noted(wait: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(wait, StepWait):
            wait = NotedStepWait(wait, clock, drifts)
        return await original(wait, *args, **kwargs)

    with mock.patch.object(replay_module, "drive", noted):
        yield


# -- the world: app scripts, projects ----------------------------------------------------------


def scaled(script: AppScript, factor: float) -> AppScript:
    """The script with every latency figure multiplied by ``factor``."""
    latency = script.latency
    fields = {k: v * factor for k, v in attrs.asdict(latency).items() if v is not None}
    return attrs.evolve(script, latency=attrs.evolve(latency, **fields))


def renamed(script: AppScript, old: str, new: str, role: str | None = None) -> AppScript:
    """The same build (version and build numbers kept) with the elements labelled ``old`` renamed.

    With ``role``, only the elements of that role (the button a step taps, not a screen title that
    happens to say the same).
    """

    def hit(e: ScriptedElement) -> bool:
        return e.label == old and (role is None or e.role == role)

    def walk(elements: Sequence[ScriptedElement]) -> tuple[ScriptedElement, ...]:
        return tuple(attrs.evolve(e, label=new if hit(e) else e.label, children=walk(e.children)) for e in elements)

    found = [e for app in script.apps.values() for els in app.screens.values() for e in els if hit(e)]
    if not found:
        raise SystemExit(f"--rename: no element is labelled {old!r} in {script.source}")
    apps = {
        bundle: attrs.evolve(app, screens={name: walk(els) for name, els in app.screens.items()})
        for bundle, app in script.apps.items()
    }
    return attrs.evolve(script, apps=apps)


def make_project(folder: Path, check_file: Path) -> Path:
    """A project folder holding the check in ``.mobster/checks/``; returns the check's path there."""
    checks = folder / ".mobster" / "checks"
    checks.mkdir(parents=True, exist_ok=True)
    target = checks / check_file.name
    shutil.copyfile(check_file, target)
    return target


def price_table(price_in: float, price_out: float) -> mc.PriceTable:
    """The scripted model priced at a list price (USD per million input and output tokens)."""
    return mc.PriceTable().extend({"scripted": mc.Price(price_in, price_out, 0.0)})


def on_clock(fake: bool) -> tuple[mc.Clock, Callable[[Coroutine[Any, Any, T]], T]]:
    """The clock and the runner: the real clock and ``asyncio.run``, or a FakeClock and its ``run``."""
    if fake:
        clock = FakeClock()
        return clock, clock.run
    return mc.SystemClock(), asyncio.run


# -- one measured run ---------------------------------------------------------------------------


@attrs.frozen
class Measured:
    """One run's figures, in seconds."""

    mode: str
    verdict: str
    run_s: float
    steps_s: float
    floor_s: float
    model_calls: int
    cost_usd: float
    launch_s: float
    baseline_s: float
    verdict_s: float
    frame_s: float
    reads: int
    read_s: float
    act_s: float
    model_s: float
    actions: int
    healed: int
    sources: tuple[str, ...]
    run_floor_s: float = math.nan
    rule_wait_s: float = 0.0

    @property
    def ratio(self) -> float:
        return self.steps_s / self.floor_s if self.floor_s > 0 else math.nan

    @property
    def rule_ratio(self) -> float:
        """``steps_s / (floor_s + rule_wait_s)``: against the floor with the drift rule's wait in it."""
        floor = self.floor_s + self.rule_wait_s
        return self.steps_s / floor if floor > 0 else math.nan

    @property
    def run_ratio(self) -> float:
        return self.run_s / self.run_floor_s if self.run_floor_s > 0 else math.nan


@attrs.frozen
class Setup:
    """What every run of the benchmark shares."""

    app: AppScript
    check_file: Path
    rename: tuple[str, str]
    scale: float
    prices: mc.PriceTable
    fake_clock: bool
    work: Path
    latency: str = "usb-iphone"
    #: Runs take screenshots (for the model and the last frame), as ``mobster test`` does.
    screenshots: bool = True
    #: Runs keep a frame per step for a report, as ``mobster test`` does (a reporter that makes no page).
    frames: bool = True
    #: The phone serves one request at a time, as WebDriverAgent does (``--concurrent``: the old model).
    one_at_a_time: bool = True
    #: Screenshots by a channel of their own (a simulator's ``simctl io``), beside the reads.
    separate: bool = False
    #: A screenshot beside every read although they share the one channel (how frames were taken before).
    beside: bool = False
    #: Pixels per point of the phone's screenshots (1: 402 x 874, 0.234 s; 3: 1206 x 2622, 1.0 s).
    screenshot_scale: float = 1.0

    @property
    def model_seconds(self) -> float:
        return MODEL_SECONDS * self.scale

    def phone(self, app: AppScript, clock: mc.Clock) -> ScriptedPhone:
        """The phone a run drives, on the benchmark's model of requests."""
        return ScriptedPhone(
            app,
            clock=clock,
            one_at_a_time=self.one_at_a_time,
            separate_screenshots=self.separate,
            screenshot_scale=self.screenshot_scale,
        )

    def shots_seconds(self, shot_s: float, actions: int, model_calls: int) -> float:
        """The screenshots the steps can't avoid waiting for, in seconds.

        The model is given a picture of each screen it decides on, and a report keeps a frame of each
        screen an action is sent on: one screenshot per screen, so a model call that leads to an action
        shares it (fresh: one per step, and one for "done"). With screenshots by a channel of their own
        every one is taken beside a read: none is waited for.
        """
        if not self.screenshots or self.separate:
            return 0.0
        shots = actions + max(model_calls - actions, 0) if self.frames else model_calls
        return shots * shot_s


def needed_calls(mode: str, actions: int) -> int:
    """The model calls a mode can't do without (the floor)."""
    if mode == "fresh":
        return actions + 1  # one per step, and the one that says done
    if mode == "replay":
        return 0
    return 1  # the healed action, wherever the renamed step is (a last step ends on the expectations)


def floor_seconds(
    calls: Sequence[Call], latency: Latency, model_calls: int, call_seconds: float, shots_seconds: float = 0.0
) -> float:
    """Per action: its latency, the transition when the screen changed, one read; the model calls; the screenshots.

    ``calls`` are the whole run's calls: the screen the last action led to is often first seen by the
    verdict's read. ``shots_seconds``: ``Setup.shots_seconds``.
    """
    acts = [c for c in calls if c.kind == "act"]
    total = model_calls * call_seconds + shots_seconds
    for n, act in enumerate(acts):
        total += action_seconds(act, latency) + latency.read
        after = acts[n + 1].where if n + 1 < len(acts) else last_where(calls)
        if after != act.where:
            total += latency.transition
    return total


def action_seconds(act: Call, latency: Latency) -> float:
    if act.op in ("TAP", "LONG_PRESS", "SUBMIT"):
        return latency.tap
    if act.op == "TYPE":
        return latency.type_char * len(act.text)
    if act.op.startswith("SWIPE_"):
        return latency.swipe
    if act.op == "HOME":
        return latency.home
    return latency.launch  # LAUNCH_APP, OPEN_URL


def last_where(calls: Sequence[Call]) -> str:
    reads = [c for c in calls if c.kind == "read"]
    return reads[-1].where if reads else ""


def steps_end(calls: Sequence[Call], verdict_start: float) -> float:
    """The end of the first read after the last action that shows the screen it led to (or the handover)."""
    acts = [c for c in calls if c.kind == "act"]
    if not acts:
        return verdict_start
    last = acts[-1]
    for c in calls:
        if c.kind == "read" and c.start >= last.end and c.where != last.where:
            return max(c.end, verdict_start)
    return max(last.end, verdict_start)


def run_once(setup: Setup, mode: str, project: Path, check_file: Path, app: AppScript) -> Measured:
    """One measured run of ``mode`` in ``project`` (a recorded path is there for replay and heal)."""
    clock, runner = on_clock(setup.fake_clock)
    calls: list[Call] = []
    marks: list[tuple[float, float]] = []
    phone = setup.phone(app, clock)
    device = TimedDevice(phone, clock, calls, beside=setup.beside)
    model = None
    if mode != "replay":
        model = TimedModel(ScriptedModel(clock=clock, delay=setup.model_seconds), clock, calls)
    reporter = FramesKept() if setup.frames else None
    options = mc.RunOptions(
        fresh=mode == "fresh", screenshots=setup.screenshots, prices=setup.prices, reporter=reporter
    )
    check = mc.load_check(check_file)
    drifts: list[DriftMark] = []
    with settled_read_marks(clock, marks), drift_marks(clock, drifts):
        result = runner(mc.run_check(check, device, clock, model=model, options=attrs.evolve(options, root=project)))
    if len(marks) != 2:
        raise SystemExit(f"{mode}: expected two settled reads (baseline, verdict), saw {len(marks)}: {result.outcome}")
    (_, baseline_end), (verdict_start, verdict_end) = marks
    step_calls = [c for c in calls if baseline_end <= c.start < verdict_start]
    end = steps_end(calls, verdict_start)
    acts = [c for c in step_calls if c.kind == "act"]
    healed = sum(1 for s in result.steps if s.source is StepSource.HEALED)
    need = needed_calls(mode, len(acts))
    launch = next(c for c in calls if c.kind == "launch")
    frames = [c for c in calls if c.kind == "frame"]
    reads = [c for c in step_calls if c.kind == "read"]
    models = [c for c in calls if c.kind == "model"]
    all_acts = sum(1 for c in calls if c.kind == "act")
    floor = floor_seconds(
        calls, app.latency, need, setup.model_seconds, setup.shots_seconds(phone.screenshot_s, all_acts, need)
    )
    # The whole run's floor: the launch, the one baseline read the rules need (the app is in front and
    # an expectation fails), the steps' floor, and the verdict's second read, settle_gap after its first.
    run_floor = app.latency.launch + app.latency.read + floor + DEFAULT_READ_POLICY.settle_gap + app.latency.read
    return Measured(
        mode=mode,
        verdict=result.verdict.value,
        run_s=result.seconds,
        steps_s=end - baseline_end,
        floor_s=floor,
        run_floor_s=run_floor,
        rule_wait_s=sum(d.rule_wait for d in drifts),
        model_calls=result.model_calls,
        cost_usd=result.cost.usd,
        launch_s=launch.end - launch.start,
        baseline_s=marks[0][1] - marks[0][0],
        verdict_s=verdict_end - verdict_start,
        frame_s=sum(c.end - c.start for c in frames),
        reads=len(reads),
        read_s=sum(c.end - c.start for c in reads),
        act_s=sum(c.end - c.start for c in acts),
        model_s=sum(c.end - c.start for c in models),
        actions=len(acts),
        healed=healed,
        sources=tuple(s.source.value for s in result.steps),
    )


def record(setup: Setup, folder: Path) -> tuple[Path, tuple[mc.Step, ...]]:
    """Record the check's path once in ``folder`` (Smart on a fake clock: it takes no real time)."""
    check_file = make_project(folder, setup.check_file)
    clock = FakeClock()
    phone = setup.phone(setup.app, clock)
    result = clock.run(
        mc.run_check(
            mc.load_check(check_file),
            phone,
            clock,
            model=ScriptedModel(clock=clock),
            options=mc.RunOptions(screenshots=False, root=folder),
        )
    )
    if result.verdict is not mc.Verdict.PASSED:
        raise SystemExit(f"recording the check failed: {result.outcome.message}")
    path = json.loads(next((folder / ".mobster" / "cache" / "replay").glob("*.json")).read_text())["steps"]
    return check_file, mc.load_path(path)


# -- the benchmark ------------------------------------------------------------------------------


def whole(value: float) -> float | int:
    """``7.0`` as ``7`` (a median of counts is a whole number unless two runs disagree)."""
    return int(value) if value == int(value) else value


@attrs.frozen
class Summary:
    """The medians (and ranges) of one mode's runs."""

    mode: str
    runs: tuple[Measured, ...]

    def median(self, name: str) -> float:
        return statistics.median(float(getattr(r, name)) for r in self.runs)

    def span(self, name: str) -> tuple[float, float]:
        values = [float(getattr(r, name)) for r in self.runs]
        return min(values), max(values)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "runs": len(self.runs),
            "steps_s": round(self.median("steps_s"), 3),
            "run_s": round(self.median("run_s"), 3),
            "floor_s": round(self.median("floor_s"), 3),
            "rule_wait_s": round(self.median("rule_wait_s"), 3),
            "ratio": round(self.median("ratio"), 3),
            "rule_ratio": round(self.median("rule_ratio"), 3),
            "run_floor_s": round(self.median("run_floor_s"), 3),
            "run_ratio": round(self.median("run_ratio"), 3),
            "model_calls": whole(self.median("model_calls")),
            "cost_usd": round(self.median("cost_usd"), 6),
        }


def run_benchmark(setup: Setup, modes: Sequence[str], runs: int, *, progress: bool = True) -> list[Summary]:
    """Record once, then run each mode ``runs`` times, interleaved (fresh, replay, heal, fresh, …)."""
    template = setup.work / "recorded"
    check_file, path = record(setup, template)
    old, new = setup.rename
    renamed(setup.app, old, new)  # says so when nothing is labelled ``old``
    targets = [s.target for s in path[:-1] if s.target is not None and s.target.label == old]
    if "heal" in modes and not targets:
        raise SystemExit(f"--rename {old}=…: {old!r} must be the target of a step before the last")
    heal_app = renamed(setup.app, old, new, targets[0].role) if targets else setup.app
    last = path[-1].target
    if last is None:
        raise SystemExit("heal-last needs a last step with a target")
    heal_last_app = renamed(setup.app, last.label, f"{last.label} (new)", last.role)
    first = path[0].target
    if first is None:
        raise SystemExit("heal-first needs a first step with a target")
    heal_first_app = renamed(setup.app, first.label, f"{first.label} (new)", first.role)
    projects = {mode: setup.work / mode for mode in modes}
    for mode, folder in projects.items():
        if mode == "replay":
            shutil.copytree(template, folder)
        elif mode == "fresh":
            make_project(folder, setup.check_file)
    results: dict[str, list[Measured]] = {m: [] for m in modes}
    for n in range(runs):
        for mode in modes:
            folder = projects[mode]
            if mode.startswith("heal"):
                # Every heal run starts from the recorded path: a passing heal stores the healed path.
                shutil.rmtree(folder, ignore_errors=True)
                shutil.copytree(template, folder)
            app = {"heal": heal_app, "heal-first": heal_first_app, "heal-last": heal_last_app}.get(mode, setup.app)
            measured = run_once(setup, mode, folder, folder / ".mobster" / "checks" / check_file.name, app)
            results[mode].append(measured)
            if progress:
                print(
                    f"  run {n + 1}/{runs} {mode:<10} {measured.verdict:<7} steps {measured.steps_s:6.2f} s "
                    f"run {measured.run_s:6.2f} s  calls {measured.model_calls}",
                    file=sys.stderr,
                    flush=True,
                )
    return [Summary(mode, tuple(results[mode])) for mode in modes]


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def phone_shot_s(setup: Setup) -> float:
    """What one of the phone's screenshots costs, in seconds."""
    return setup.phone(setup.app, FakeClock()).screenshot_s


def render(summaries: Sequence[Summary], setup: Setup, steps: int) -> str:
    """The table, with the ranges, a breakdown of each run and the note's figures."""
    out: list[str] = []
    clock = "a FakeClock (simulated seconds)" if setup.fake_clock else "the real clock"
    out.append(
        f"Check {setup.check_file.name} ({steps} steps) on the scripted {phone_name(setup)}, latency {setup.latency} "
        f"x{setup.scale:g}, scripted model {setup.model_seconds:g} s a call, on {clock}, "
        f"screenshots {'on' if setup.screenshots else 'off'}, frames {'on' if setup.frames else 'off'}, "
        f"the phone {'one request at a time' if setup.one_at_a_time else 'answering requests at once'}"
        f"{', screenshots by a channel of their own' if setup.separate else ''}"
        f"{', a screenshot beside every read' if setup.beside else ''}, screenshots {phone_shot_s(setup):.3f} s."
    )
    out.append("A model of the world (the scripted phone), not a phone. Medians, [min-max].")
    out.append("")
    head = (
        f"{'mode':<10} {'runs':>4}  {'steps s':>22}  {'floor s':>7}  {'ratio':>5}  {'rule s':>6}  {'w/ rule':>7}  "
        f"{'run s':>22}  {'run floor':>9}  {'run ratio':>9}  {'calls':>10}  {'cost $':>26}"
    )
    out.append(head)
    out.append("-" * len(head))
    for s in summaries:
        lo, hi = s.span("steps_s")
        rlo, rhi = s.span("run_s")
        clo, chi = s.span("model_calls")
        dlo, dhi = s.span("cost_usd")
        out.append(
            f"{s.mode:<10} {len(s.runs):>4}  {s.median('steps_s'):>7.2f} [{lo:6.2f}-{hi:6.2f}]  "
            f"{s.median('floor_s'):>7.2f}  {s.median('ratio'):>5.3f}  "
            f"{s.median('rule_wait_s'):>6.2f}  {s.median('rule_ratio'):>7.3f}  "
            f"{s.median('run_s'):>7.2f} [{rlo:6.2f}-{rhi:6.2f}]  "
            f"{s.median('run_floor_s'):>9.2f}  {s.median('run_ratio'):>9.3f}  "
            f"{s.median('model_calls'):>3g} [{clo:g}-{chi:g}]  "
            f"{s.median('cost_usd'):>8.5f} [{dlo:.5f}-{dhi:.5f}]"
        )
    for s in summaries:
        if s.mode.startswith("heal"):
            floor, rule = s.median("floor_s"), s.median("rule_wait_s")
            held = "within" if s.median("rule_ratio") <= HELD_TO else "OVER"
            out.append(
                f"{s.mode}: steps {s.median('steps_s'):.2f} s against the floor {floor:.2f} s + the drift rule's "
                f"{rule:.2f} s = {floor + rule:.2f} s: {s.median('rule_ratio'):.3f}x, {held} {HELD_TO:g}x"
            )
    out.append("")
    out.append("Where the time goes (medians, seconds): launch, baseline read, steps, verdict read, final frame;")
    out.append("inside the steps: reads (count, seconds), actions, model calls (cancelled ones included).")
    head2 = (
        f"{'mode':<10} {'launch':>6} {'baseline':>8} {'steps':>6} {'verdict':>7} {'frame':>5}   "
        f"{'reads':>5} {'read s':>6} {'act s':>5} {'model s':>7}  verdicts"
    )
    out.append(head2)
    for s in summaries:
        verdicts = ", ".join(sorted({r.verdict for r in s.runs}))
        out.append(
            f"{s.mode:<10} {s.median('launch_s'):>6.2f} {s.median('baseline_s'):>8.2f} {s.median('steps_s'):>6.2f} "
            f"{s.median('verdict_s'):>7.2f} {s.median('frame_s'):>5.2f}   {s.median('reads'):>5g} "
            f"{s.median('read_s'):>6.2f} {s.median('act_s'):>5.2f} {s.median('model_s'):>7.2f}  {verdicts}"
        )
    by_mode = {s.mode: s for s in summaries}
    if "fresh" in by_mode and "replay" in by_mode:
        ours = by_mode["fresh"].median("steps_s") / by_mode["replay"].median("steps_s")
        note = NOTE_STEPS_S["fresh"] / NOTE_STEPS_S["replay"]
        out.append("")
        out.append(
            f"fresh/replay, steps: ours {by_mode['fresh'].median('steps_s'):.2f} s / "
            f"{by_mode['replay'].median('steps_s'):.2f} s = {ours:.2f}x (scripted phone, {steps} steps);"
        )
        out.append(
            f"  the note: {NOTE_STEPS_S['fresh']} s / {NOTE_STEPS_S['replay']} s = {note:.2f}x "
            f"(a real iPhone 15 Pro over USB, Claude Sonnet; launch {NOTE_LAUNCH_S} s, verdict read "
            f"{NOTE_VERDICT_S} s)."
        )
    return "\n".join(out)


def phone_name(setup: Setup) -> str:
    """``phone`` (an iPhone), or ``Android phone``: what the table's first line calls it."""
    return "Android phone" if setup.app.platform.value == "android" else "phone"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="runs per mode (default 5)")
    parser.add_argument("--check", type=Path, default=DEFAULT_CHECK, help="the check file (default: %(default)s)")
    parser.add_argument("--app", type=Path, help=f"the app script (default: {DEFAULT_APP}; --android: {ANDROID_APP})")
    parser.add_argument(
        "--android",
        action="store_true",
        help="run on a scripted Android phone: the Android app script and the android latency profile",
    )
    parser.add_argument(
        "--rename", default=DEFAULT_RENAME, help="heal mode: OLD=NEW, the label renamed (default: %(default)s)"
    )
    parser.add_argument("--modes", default=",".join(DEFAULT_MODES), help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument(
        "--latency",
        choices=sorted(PROFILES),
        help="the latency profile the phone runs with, whatever the app script says (default: usb-iphone; "
        "--android: android)",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every latency and the model's sleep")
    parser.add_argument("--price-in", type=float, default=2.0, help="USD per million input tokens (default 2)")
    parser.add_argument("--price-out", type=float, default=10.0, help="USD per million output tokens (default 10)")
    parser.add_argument("--json", type=Path, help="write the JSON here")
    parser.add_argument("--fake-clock", action="store_true", help="simulated time (instant; for tests)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--no-screenshots", action="store_true", help="run without screenshots (mobster test takes them)"
    )
    parser.add_argument("--no-frames", action="store_true", help="keep no frame per step (mobster test keeps them)")
    parser.add_argument(
        "--concurrent", action="store_true", help="the phone answers requests at once (the model before issue 27)"
    )
    parser.add_argument(
        "--separate-screenshots", action="store_true", help="screenshots by a channel of their own (a simulator)"
    )
    parser.add_argument(
        "--frames-beside-reads",
        action="store_true",
        help="a screenshot beside every read on the one channel (how frames were taken before issue 27)",
    )
    parser.add_argument(
        "--screenshot-scale", type=float, default=1.0, help="pixels per point of screenshots (3: an iPhone's)"
    )
    args = parser.parse_args(argv)
    args.app = args.app or (ANDROID_APP if args.android else DEFAULT_APP)
    args.latency = args.latency or ("android" if args.android else "usb-iphone")
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
    if not args.scale > 0:
        parser.error("--scale must be above 0")
    if "=" not in args.rename:
        parser.error("--rename takes OLD=NEW")
    args.mode_list = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in args.mode_list if m not in MODES]
    if unknown or not args.mode_list:
        parser.error(f"--modes: unknown mode {unknown[0] if unknown else '(none)'}; choose from {', '.join(MODES)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table; write the JSON when asked. Returns 0, or 1 if a run failed."""
    args = parse_args(argv)
    old, new = args.rename.split("=", 1)
    script = attrs.evolve(AppScript.from_file(args.app), latency=PROFILES[args.latency])
    with tempfile.TemporaryDirectory(prefix="mobster-bench-") as tmp:
        setup = Setup(
            app=scaled(script, args.scale),
            check_file=args.check.resolve(),
            rename=(old, new),
            scale=args.scale,
            prices=price_table(args.price_in, args.price_out),
            fake_clock=args.fake_clock,
            work=Path(tmp),
            latency=args.latency,
            screenshots=not args.no_screenshots,
            frames=not args.no_frames,
            one_at_a_time=not args.concurrent,
            separate=args.separate_screenshots,
            beside=args.frames_beside_reads,
            screenshot_scale=args.screenshot_scale,
        )
        started = datetime.now(UTC)
        summaries = run_benchmark(setup, args.mode_list, args.runs, progress=not args.quiet)
    steps = len(mc.load_check(args.check).steps)
    print(render(summaries, setup, steps))
    if args.scale != 1.0 and not args.fake_clock:
        print(
            "\nNote: --scale shrinks the phone's latencies and the model's sleep but not the SDK's own waits "
            "(0.15 s polls, 0.3 s settle gap), so ratios are only meaningful at --scale 1."
        )
    if args.json is not None:
        doc = {
            "modes": [s.to_json() for s in summaries],
            "meta": {
                "date": started.isoformat(timespec="seconds"),
                "cpu": cpu_name(),
                "python": platform.python_version(),
                "clock": "fake" if args.fake_clock else "real",
                "scale": args.scale,
                "check": args.check.name,
                "steps": steps,
                "app": args.app.name,
                "platform": setup.app.platform.value,
                "latency": args.latency,
                "model_seconds": setup.model_seconds,
                "screenshots": setup.screenshots,
                "frames": setup.frames,
                "one_at_a_time": setup.one_at_a_time,
                "separate_screenshots": setup.separate,
                "frames_beside_reads": setup.beside,
                "screenshot_s": round(phone_shot_s(setup), 3),
                "prices_per_million": {"input": args.price_in, "output": args.price_out},
                "note_steps_s": NOTE_STEPS_S,
            },
            "detail": {
                s.mode: {
                    "steps_s_range": [round(v, 3) for v in s.span("steps_s")],
                    "run_s_range": [round(v, 3) for v in s.span("run_s")],
                    "model_calls_range": [whole(v) for v in s.span("model_calls")],
                    "cost_usd_range": [round(v, 6) for v in s.span("cost_usd")],
                    "verdicts": sorted({r.verdict for r in s.runs}),
                    "sources": list(s.runs[0].sources),
                    **{
                        k: round(s.median(k), 3)
                        for k in ("launch_s", "baseline_s", "verdict_s", "frame_s", "reads", "read_s", "act_s")
                    },
                    "model_s": round(s.median("model_s"), 3),
                }
                for s in summaries
            },
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    failed = [r for s in summaries for r in s.runs if r.verdict != "passed"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
