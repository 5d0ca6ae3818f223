"""Frames (the dispatcher's Rule 9): on a device whose screenshots have a channel of their own, taken with reads (no
round trip of their own, two screenshots in flight at most); on the one channel of WebDriverAgent, taken only of a
screen the run decides on, once, before the action; each named by the step that owns it and written to the run
folder as it arrives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._run.dispatch import Dispatcher
from mobster_core.results import FramesMode
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone, sample_path

APP = "com.example.yourapp"


class SlowShots(ScriptedPhone):
    """The scripted phone whose screenshot takes ``shot_s`` more than a read; it counts them in flight."""

    def __init__(self, *args: Any, shot_s: float = 0.0, fail: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shot_s = shot_s
        self.fail = fail
        self.in_flight = 0
        self.most_in_flight = 0
        self.shots = 0

    async def screenshot(self) -> bytes:
        self.in_flight += 1
        self.shots += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self._clock.sleep(self.shot_s)
            if self.fail:
                raise mc.DeviceError("screenshot: injected")
            return await super().screenshot()
        finally:
            self.in_flight -= 1


def phone(clock: FakeClock, *, separate: bool = True, **kwargs: Any) -> SlowShots:
    """The sample app at a USB iPhone's latencies; screenshots by a channel of their own unless ``separate=False``."""
    made = SlowShots.from_text(
        sample_path("yourapp").read_text().replace("latency: zero", "latency: usb-iphone"),
        clock=clock,
        separate_screenshots=separate,
    )
    assert isinstance(made, SlowShots)
    for k, v in kwargs.items():
        setattr(made, k, v)
    return made


def test_a_read_with_frames_takes_no_longer_and_its_screen_gets_the_picture(tmp_path: Path) -> None:
    clock = FakeClock()
    device = phone(clock)
    journal = MemoryJournal()
    dispatch = Dispatcher(device, clock, journal)
    dispatch.keep_frames(tmp_path)

    async def go() -> tuple[float, bytes | None, mc.Screen, str | None]:
        await dispatch.launch(APP, mc.LaunchOptions())
        start = clock.now()
        screen = await dispatch.read()
        took = clock.now() - start
        (button,) = screen.find("Button", "Sign up")
        frame = await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        return took, await dispatch.picture_of(screen), screen, frame

    took, picture, screen, frame = clock.run(go())
    assert took == pytest.approx(0.234)  # the read's own latency: the screenshot ran beside it
    assert picture is not None
    assert picture == ScreenRenderer().png(screen)  # the picture of that screen
    assert frame == "frames/step-001-before.png"  # named where the action is sent
    assert clock.run(dispatch.settle_frames(30.0)) == {frame}
    assert (tmp_path / frame).read_bytes() == picture  # written as it arrived, as the device gave it
    (intent,) = [e for e in journal.entries if e["event"] == "intent" and e["key"] == "step-1"]
    assert intent["frame"] == frame  # the journal says which frame the action was sent on


def test_on_one_channel_a_read_takes_no_screenshot_and_an_action_waits_for_its_frame(tmp_path: Path) -> None:
    clock = FakeClock()
    device = phone(clock, separate=False)
    journal = MemoryJournal()
    dispatch = Dispatcher(device, clock, journal)
    dispatch.keep_frames(tmp_path)

    async def go() -> tuple[float, int, float, str | None, mc.Screen]:
        await dispatch.launch(APP, mc.LaunchOptions())
        start = clock.now()
        screen = await dispatch.read()
        read_s, shots = clock.now() - start, device.shots
        (button,) = screen.find("Button", "Sign up")
        start = clock.now()
        frame = await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        return read_s, shots, clock.now() - start, frame, screen

    read_s, shots, send_s, frame, screen = clock.run(go())
    assert read_s == pytest.approx(0.234)  # a poll costs a read, never a screenshot too
    assert shots == 0
    assert send_s == pytest.approx(0.234 + 0.478)  # the frame of the screen acted on, then the tap
    assert device.shots == 1
    assert frame == "frames/step-001-before.png"
    assert clock.run(dispatch.settle_frames(30.0)) == {frame}
    assert (tmp_path / frame).read_bytes() == ScreenRenderer().png(screen)
    (intent,) = [e for e in journal.entries if e["event"] == "intent" and e["key"] == "step-1"]
    assert intent["frame"] == frame


def test_on_one_channel_a_screen_is_pictured_once_for_the_model_its_action_and_a_drift(tmp_path: Path) -> None:
    clock = FakeClock()
    device = phone(clock, separate=False)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames(tmp_path)

    async def go() -> tuple[bytes | None, str | None, str | None]:
        await dispatch.launch(APP, mc.LaunchOptions())
        screen = await dispatch.read()
        await dispatch.read()  # the same screen again: it has no picture yet, and takes none
        picture = await dispatch.picture_of(screen)
        drifted = await dispatch.drifted(screen)
        (button,) = screen.find("Button", "Sign up")
        frame = await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        return picture, drifted, frame

    picture, drifted, frame = clock.run(go())
    assert picture is not None
    assert (drifted, frame) == ("frames/step-001-drifted.png", "frames/step-001-before.png")
    assert device.shots == 1  # one screen, one screenshot: the model's picture is the action's and the drift's frame
    assert clock.run(dispatch.settle_frames(30.0)) == {drifted, frame}


def test_slow_screenshots_never_pile_up(tmp_path: Path) -> None:
    clock = FakeClock()
    device = phone(clock, shot_s=1.0)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames(tmp_path)

    async def go() -> float:
        await dispatch.launch(APP, mc.LaunchOptions())
        start = clock.now()
        for _ in range(8):
            await dispatch.read()
        return clock.now() - start

    took = clock.run(go())
    assert took == pytest.approx(8 * 0.234)  # reads never wait for a screenshot
    assert device.most_in_flight == 2
    # 1.234 s a screenshot: two start with the first two reads, the next with the sixth read.
    assert device.shots == 4
    clock.run(dispatch.settle_frames(30.0))  # the run's end leaves nothing in flight
    assert device.in_flight == 0


def test_a_screenshot_that_fails_costs_the_read_nothing_and_the_action_has_no_frame(tmp_path: Path) -> None:
    clock = FakeClock()
    device = phone(clock, fail=True)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames(tmp_path)

    async def go() -> tuple[bytes | None, frozenset[str]]:
        await dispatch.launch(APP, mc.LaunchOptions())
        screen = await dispatch.read()
        (button,) = screen.find("Button", "Sign up")
        await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        return await dispatch.picture_of(screen), await dispatch.settle_frames(30.0)

    picture, written = clock.run(go())
    assert picture is None
    assert written == frozenset()  # the name was given, the file never written: the step's frame is None
    assert not (tmp_path / "frames").exists()
    assert dispatch.latest is not None


def test_frames_still_arriving_at_the_end_wait_a_bounded_time_then_are_left_out(tmp_path: Path) -> None:
    clock = FakeClock()
    device = phone(clock, shot_s=100.0)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames(tmp_path)

    async def go() -> tuple[str | None, frozenset[str], float]:
        await dispatch.launch(APP, mc.LaunchOptions())
        screen = await dispatch.read()
        (button,) = screen.find("Button", "Sign up")
        frame = await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        start = clock.now()
        written = await dispatch.settle_frames(30.0)
        return frame, written, clock.now() - start

    frame, written, waited = clock.run(go())
    assert frame == "frames/step-001-before.png"
    assert written == frozenset()
    assert waited == pytest.approx(30.0)
    assert device.in_flight == 0  # cancelled: the run is over


def test_a_device_without_screenshots_takes_no_frames(tmp_path: Path) -> None:
    from tests.core.run.test_device_abilities import device as without_screenshots  # a typed fake with none

    clock = FakeClock()
    blind = without_screenshots(clock)
    assert not isinstance(blind, mc.Screenshots)
    dispatch = Dispatcher(blind, clock, MemoryJournal())
    dispatch.keep_frames(tmp_path)

    async def go() -> tuple[str | None, str | None]:
        await dispatch.launch(APP, mc.LaunchOptions())
        screen = await dispatch.read()
        (button,) = screen.find("Button", "Sign up")
        sent = await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        return sent, dispatch.final_frame()

    assert clock.run(go()) == (None, None)
    assert not (tmp_path / "frames").exists()


class BrokenReport:
    """A reporter that fails: the run's outcome must not change, and its files stay."""

    def __init__(self) -> None:
        self.told: list[mc.CheckResult] = []

    def check_ended(self, result: mc.CheckResult, folder: Path, frames: FramesMode) -> None:
        self.told.append(result)
        raise RuntimeError("the renderer broke")

    def suite_ended(self, suite: mc.SuiteResult) -> None:
        raise RuntimeError("the suite's renderer broke")


def signup_project(tmp_path: Path) -> Path:
    from tests.report.report_runs import SIGNUP

    check = tmp_path / ".mobster" / "checks" / "signup.yaml"
    check.parent.mkdir(parents=True, exist_ok=True)
    check.write_text(SIGNUP)
    return check


def test_a_report_that_cant_be_made_costs_the_run_nothing(tmp_path: Path) -> None:
    from mobster_drivers.models.scripted import ScriptedModel

    check = signup_project(tmp_path)
    clock = FakeClock()
    device = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    reporter = BrokenReport()
    options = mc.RunOptions(root=tmp_path, reporter=reporter)
    result = clock.run(
        mc.run_check(mc.load_check(check), device, clock, model=ScriptedModel(clock=clock), options=options)
    )
    assert result.verdict is mc.Verdict.PASSED
    assert reporter.told == [result]  # told once, after result.json, with the result the run returns
    run_dir = tmp_path / result.run_dir
    assert json.loads((run_dir / "result.json").read_text()) == result.to_dict()
    assert (run_dir / "frames" / "step-001-before.png").is_file()
    assert not (run_dir / "report.html").exists()
    suite = clock.run(
        mc.run_suite([check], [device], clock, models=lambda: ScriptedModel(clock=clock), options=options)
    )
    assert suite.exit_code == 0  # a suite's reporter that fails is logged too
    assert (suite.folder / "results.json").is_file()


class Counting(ScriptedPhone):
    shots = 0

    async def screenshot(self) -> bytes:
        Counting.shots += 1
        return await super().screenshot()


def counted_run(tmp_path: Path, **options: Any) -> tuple[mc.CheckResult, int]:
    """Record the signup check (no live step) with Smart, then replay it with ``options``: result and screenshots."""
    from mobster_drivers.models.scripted import ScriptedModel
    from tests.report.report_runs import SIGNUP

    check = signup_project(tmp_path)
    check.write_text(SIGNUP.replace('  - Type "hunter22" into "Password"\n', ""))
    clock = FakeClock()
    device = Counting.from_file(sample_path("yourapp"), clock=clock)
    recording = mc.RunOptions(root=tmp_path)
    clock.run(mc.run_check(mc.load_check(check), device, clock, model=ScriptedModel(clock=clock), options=recording))
    Counting.shots = 0
    device = Counting.from_file(sample_path("yourapp"), clock=clock)
    result = clock.run(
        mc.run_check(mc.load_check(check), device, clock, options=mc.RunOptions(root=tmp_path, **options))
    )
    assert result.mode == "replay", result.outcome
    return result, Counting.shots


def test_each_step_names_its_frame_and_the_run_its_final_one(tmp_path: Path) -> None:
    from mobster_report import HtmlReport

    result, _ = counted_run(tmp_path, reporter=HtmlReport(), frames="all")
    assert [s.frame for s in result.steps] == [f"frames/step-00{n}-before.png" for n in range(1, 4)]
    assert result.final_frame == "frames/final.png"
    data = json.loads((tmp_path / result.run_dir / "result.json").read_text())
    assert [s["frame"] for s in data["steps"]] == [s.frame for s in result.steps]
    assert data["final_frame"] == "frames/final.png"
    for s in result.steps:
        assert (tmp_path / result.run_dir / str(s.frame)).read_bytes().startswith(b"\x89PNG")


def test_frames_none_takes_no_screenshot_at_all(tmp_path: Path) -> None:
    from mobster_report import HtmlReport

    result, shots = counted_run(tmp_path, reporter=HtmlReport(), frames="none")
    assert result.verdict is mc.Verdict.PASSED
    assert [s.frame for s in result.steps] == [None] * 3
    assert result.final_frame is None
    run_dir = tmp_path / result.run_dir
    assert not (run_dir / "frames").exists()
    assert not (run_dir / "frame-final.png").exists()
    assert shots == 0  # a replay asks the model nothing, and with --frames none nothing else asks for a picture
    assert (run_dir / "report.html").is_file()


def test_without_a_reporter_a_run_writes_its_results_and_no_page_and_takes_no_frames(tmp_path: Path) -> None:
    result, shots = counted_run(tmp_path)
    assert result.verdict is mc.Verdict.PASSED
    assert [s.frame for s in result.steps] == [None] * 3
    run_dir = tmp_path / result.run_dir
    assert sorted(p.name for p in run_dir.iterdir()) == ["journal.jsonl", "result.json"]
    assert result.final_frame is None
    assert shots == 0


class Stalls(ScriptedPhone):
    """The scripted phone whose second action never gets a reply."""

    acts = 0

    async def act(self, action: mc.Action) -> None:
        Stalls.acts += 1
        if Stalls.acts == 2:
            await self._clock.sleep(10_000)
        await super().act(action)


def test_a_stopped_run_tells_the_reporter_at_once_and_its_page_is_written(tmp_path: Path) -> None:
    import asyncio

    from mobster_drivers.models.scripted import ScriptedModel
    from mobster_report import HtmlReport

    class Told(HtmlReport):
        results: list[mc.CheckResult] = []  # noqa: RUF012 - one test's record

        def check_ended(self, result: mc.CheckResult, folder: Path, frames: FramesMode) -> None:
            Told.results.append(result)
            super().check_ended(result, folder, frames)

    check = signup_project(tmp_path)
    clock = FakeClock()
    Stalls.acts = 0
    device = Stalls.from_file(sample_path("yourapp"), clock=clock)
    options = mc.RunOptions(root=tmp_path, reporter=Told())

    async def go() -> mc.CheckResult:
        run = asyncio.ensure_future(
            mc.run_check(mc.load_check(check), device, clock, model=ScriptedModel(clock=clock), options=options)
        )
        await clock.sleep(60)  # the second action is in flight, and stays there
        run.cancel()
        try:
            await run
        except mc.RunStopped as stopped:
            return stopped.result
        raise AssertionError("the run wasn't stopped")

    result = clock.run(go())
    assert result.outcome.failure_class is mc.FailureClass.STOPPED
    assert Told.results == [result]
    page = (tmp_path / result.run_dir / "report.html").read_text()
    assert "couldn&#x27;t run" in page or "couldn't run" in page
    assert not list((tmp_path / result.run_dir).glob("frames/*.thumb.*"))  # no picture work after a stop
