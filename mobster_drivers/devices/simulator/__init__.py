"""The iOS simulator driver (``mobster test --sim NAME``): simctl + WebDriverAgent.

::

    from mobster_drivers.devices.simulator import SimulatorDevice

    device = SimulatorDevice.connect("iPhone 17 Pro")  # or a UDID; WDA on port 8100 by default

simctl runs through a :class:`SimctlRunner` (the real :class:`XcrunSimctl`, or
``mobster_drivers.testing.xcrun.FakeSimctl`` in tests). Needs macOS with Xcode, WebDriverAgent
running on the simulator, and the ``simulator`` extra (``mobster-replay[simulator]``) (see ``docs/drivers.md``).
"""

from __future__ import annotations

from ._device import DEFAULT_WDA_PORT, MAX_PUSH_BYTES, SimulatorDevice, push_payload, wda_port
from ._simctl import (
    BIOMETRIC_ENROLLMENT,
    Simctl,
    SimctlBackground,
    SimctlProcess,
    SimctlRunner,
    SimctlTimeout,
    Simulator,
    XcrunSimctl,
    parse_simulators,
    pick_simulator,
    runtime_version,
)

__all__ = [
    "BIOMETRIC_ENROLLMENT",
    "DEFAULT_WDA_PORT",
    "MAX_PUSH_BYTES",
    "Simctl",
    "SimctlBackground",
    "SimctlProcess",
    "SimctlRunner",
    "SimctlTimeout",
    "Simulator",
    "SimulatorDevice",
    "XcrunSimctl",
    "parse_simulators",
    "pick_simulator",
    "push_payload",
    "runtime_version",
    "wda_port",
]
