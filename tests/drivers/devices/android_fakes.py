"""A fake Android device for the driver's tests: its UiAutomator2 server, the fake adb, the devices made on them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

from mobster_drivers.devices.android import AndroidDevice
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing.adb import FakeAdb
from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2


@attrs.define
class Android:
    """A started fake device, and every ``AndroidDevice`` a test made on it (closed at the end)."""

    server: FakeUiAutomator2
    adb: FakeAdb
    made: list[AndroidDevice] = attrs.field(factory=list)

    def device(self, serial: str | None = None) -> AndroidDevice:
        made = AndroidDevice(serial if serial is not None else self.server.serial, adb=self.adb.executable)
        self.made.append(made)
        return made


@pytest.fixture
def android_app() -> str | Path | AppScript:
    """The app script the fake device runs (a test module overrides it)."""
    return sample_path("yourapp-android")


@pytest.fixture
def android_serial() -> str:
    """The fake device's serial: an emulator's (a test module overrides it for a real device)."""
    return "emulator-5554"


@pytest.fixture
def android(android_app: str | Path | AppScript, android_serial: str) -> Iterator[Android]:
    with (
        FakeUiAutomator2(android_app, serial=android_serial, lifetime=120) as server,
        FakeAdb([server], lifetime=120) as adb,
    ):
        fake = Android(server, adb)
        try:
            yield fake
        finally:
            for device in fake.made:
                device.close()
