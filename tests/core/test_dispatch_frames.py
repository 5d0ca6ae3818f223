"""Frames taken with reads (the dispatcher's Rule 9): no round trip of their own, two screenshots in flight at most."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._run.dispatch import Dispatcher
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


def phone(clock: FakeClock, **kwargs: Any) -> SlowShots:
    made = SlowShots.from_text(
        sample_path("yourapp").read_text().replace("latency: zero", "latency: usb-iphone"), clock=clock
    )
    assert isinstance(made, SlowShots)
    for k, v in kwargs.items():
        setattr(made, k, v)
    return made


def test_a_read_with_frames_takes_no_longer_and_its_screen_gets_the_picture() -> None:
    clock = FakeClock()
    device = phone(clock)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames()

    async def go() -> tuple[float, bytes | None, mc.Screen]:
        await dispatch.launch(APP, mc.LaunchOptions())
        start = clock.now()
        screen = await dispatch.read()
        took = clock.now() - start
        (button,) = screen.find("Button", "Sign up")
        await dispatch.send("step-1", "step 1", mc.Action(mc.Op.TAP, element=button), {"step": 1})
        return took, await dispatch.picture_of(screen), screen

    took, picture, screen = clock.run(go())
    assert took == pytest.approx(0.234)  # the read's own latency: the screenshot ran beside it
    assert picture is not None
    assert picture == ScreenRenderer().png(screen)  # the picture of that screen
    frames = clock.run(dispatch.frames())
    assert frames == [(picture, False)]
    assert dispatch.moments[0].element is not None
    assert dispatch.moments[0].element.label == "Sign up"


def test_slow_screenshots_never_pile_up() -> None:
    clock = FakeClock()
    device = phone(clock, shot_s=1.0)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames()

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
    clock.run(dispatch.frames())  # the run's end leaves nothing in flight
    assert device.in_flight == 0


def test_a_screenshot_that_fails_costs_the_read_nothing() -> None:
    clock = FakeClock()
    device = phone(clock, fail=True)
    dispatch = Dispatcher(device, clock, MemoryJournal())
    dispatch.keep_frames()

    async def go() -> bytes | None:
        await dispatch.launch(APP, mc.LaunchOptions())
        screen = await dispatch.read()
        return await dispatch.picture_of(screen)

    assert clock.run(go()) is None
    assert dispatch.latest is not None


def test_a_report_that_cant_be_made_costs_the_run_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mobster_core._store import evidence
    from mobster_drivers.models.scripted import ScriptedModel
    from tests.core.report_runs import SIGNUP

    def broken(*_: object, **__: object) -> str:
        raise RuntimeError("the renderer broke")

    monkeypatch.setattr(evidence, "render_run", broken)
    check = tmp_path / ".mobster" / "checks" / "signup.yaml"
    check.parent.mkdir(parents=True)
    check.write_text(SIGNUP)
    clock = FakeClock()
    device = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    result = clock.run(
        mc.run_check(
            mc.load_check(check), device, clock, model=ScriptedModel(clock=clock), options=mc.RunOptions(root=tmp_path)
        )
    )
    assert result.verdict is mc.Verdict.PASSED
    run_dir = tmp_path / result.run_dir
    assert (run_dir / "result.json").is_file()
    assert (run_dir / "frames" / "step-001-before.png").is_file()
    assert not (run_dir / "report.html").exists()
