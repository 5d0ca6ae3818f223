"""`check_device` must catch a driver that breaks the contract, not only pass a good one."""

from __future__ import annotations

from typing import Any

import pytest

import mobster_core as mc
from mobster_core.testing import FakeClock, check_device
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path

APP = "com.example.yourapp"


class Broken:
    """The scripted phone with one thing wrong, chosen by ``flaw``."""

    def __init__(self, flaw: str, clock: FakeClock) -> None:
        self.inner = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
        self.flaw = flaw

    async def info(self) -> mc.DeviceInfo:
        info = await self.inner.info()
        return mc.DeviceInfo(name="", ios=info.ios, kind=info.kind) if self.flaw == "no name" else info

    async def app_info(self, bundle: str) -> mc.AppInfo:
        if self.flaw == "app info never fails":
            return mc.AppInfo(bundle)
        return await self.inner.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        await self.inner.launch(bundle, options)

    async def read(self) -> mc.Screen:
        screen = await self.inner.read()
        if self.flaw == "prefixed roles":
            return mc.Screen(
                app=screen.app,
                elements=tuple(
                    mc.Element(role="XCUIElementType" + e.role, label=e.label, path=e.path) for e in screen.elements
                ),
            )
        if self.flaw == "wrong app":
            return mc.Screen(app="com.other", elements=screen.elements)
        if self.flaw == "moving":
            return mc.Screen(
                app=screen.app,
                elements=(
                    *screen.elements,
                    mc.Element(role="X", value=str(len(self.inner.actions)), path=f"/0/{len(screen.elements)}"),
                ),
                size=(402, 874 + int(self.inner.clock.now() * 1000)),
            )
        return screen

    async def act(self, action: mc.Action) -> None:
        if self.flaw == "taps do nothing" and action.op is mc.Op.TAP:
            return
        await self.inner.act(action)


@pytest.mark.parametrize(
    ("flaw", "message"),
    [
        ("no name", "[info]: the device has a name"),
        ("wrong app", "after launching com.example.yourapp, com.other is in front"),
        ("app info never fails", "[app info]: a simulator reads the app's version and build"),
        ("taps do nothing", "[tap changes the screen]"),
    ],
)
def test_check_device_catches_broken_drivers(flaw: str, message: str) -> None:
    clock = FakeClock()

    def make() -> Any:
        return Broken(flaw, clock)

    with pytest.raises(AssertionError) as info:
        clock.run(check_device(make, app=APP, tap=("Button", "Sign up")))
    assert message in str(info.value)


def test_check_device_rejects_a_non_device() -> None:
    clock = FakeClock()
    with pytest.raises(AssertionError, match="not a Device"):
        clock.run(check_device(object, app=APP))  # type: ignore[arg-type]


def test_check_device_accepts_an_async_factory() -> None:
    clock = FakeClock()

    async def make() -> mc.Device:
        return ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

    ran = clock.run(check_device(make, app=APP))
    assert "screenshot" in ran


class Reporting(Broken):
    """Takes ``CheckReports``; flaws: ``reports act`` presses home, ``reports raise`` raises."""

    async def check_started(self, name: str) -> None:
        if self.flaw == "reports act":
            await self.inner.act(mc.Action(mc.Op.HOME))

    async def check_ended(self, name: str, verdict: mc.Verdict, reason: str) -> None:
        if self.flaw == "reports raise":
            raise RuntimeError("the dashboard is down")


@pytest.mark.parametrize(
    ("flaw", "message"),
    [("reports act", "is in front, not com.example.yourapp"), ("reports raise", "check_ended raised RuntimeError")],
)
def test_check_device_holds_check_reports_to_their_contract(flaw: str, message: str) -> None:
    clock = FakeClock()
    with pytest.raises(AssertionError) as info:
        clock.run(check_device(lambda: Reporting(flaw, clock), app=APP))
    assert "[check reports]" in str(info.value)
    assert message in str(info.value)
    assert "check reports" in clock.run(check_device(lambda: Reporting("", clock), app=APP))
