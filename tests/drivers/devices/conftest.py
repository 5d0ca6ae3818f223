"""Fixtures of the simulator driver's tests: the sample app on a fake WDA, and a fake ``xcrun simctl`` on it.

A module that needs another phone behind its WDA defines its own ``wda`` (a module's fixture wins).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.wda import FakeWda
from mobster_drivers.testing.xcrun import FakeSimctl


@pytest.fixture
def wda() -> Iterator[FakeWda]:
    with FakeWda(sample_path("yourapp"), lifetime=60) as fake:
        yield fake


@pytest.fixture
def simctl(tmp_path: Path, wda: FakeWda) -> FakeSimctl:
    return FakeSimctl(tmp_path, wda=wda)


# The fake Android device of the Android driver's tests (``android_fakes``): ``android``, and the
# app script and serial it runs, which a module overrides.
from tests.drivers.devices.android_fakes import android, android_app, android_serial  # noqa: E402, F401
