"""Opening one device of the pool: the plugin makes its devices where ``mobster test`` does.

Rule 1: :func:`open_device` turns a :class:`~._settings.DeviceSpec` into a device through
        :func:`mobster_drivers.harness.pool.open_device`, the one place devices are made from names: it
        imports the driver of that kind only (a run on the scripted phone never imports
        facebook-wda, pymobiledevice3 or Appium's client), locks a real device for as long as
        this process holds it (so two xdist workers, or a worker and a ``mobster test`` beside
        it, never drive one phone at once), and closes what it opened when opening fails.
Rule 2: whatever keeps the device from opening is a :class:`CouldntOpen` with the class a check
        run would give it (``busy``, ``device``, ``usage``), its message naming the option as
        it is spelled here (``--mobster-sim …``), with no URL password or token in it.
"""

from __future__ import annotations

from mobster_core import Clock
from mobster_drivers.harness import pool
from mobster_drivers.harness.pool import CouldntOpen, OpenDevice

from ._settings import DeviceSpec

__all__ = ["CouldntOpen", "OpenDevice", "open_device"]

_PREFIX = "--mobster-"


def open_device(spec: DeviceSpec, clock: Clock) -> OpenDevice:
    """Open the device ``spec`` names, on ``clock``, locked when it is a real one (the module rules)."""
    return pool.open_device(pool.DeviceSpec(spec.kind, spec.value, spec.label, caps=spec.caps, prefix=_PREFIX), clock)
