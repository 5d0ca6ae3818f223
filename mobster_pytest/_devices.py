"""Opening one device of the pool: the one place the plugin builds devices from its options.

Rule 1: :func:`open_device` is the only function that turns a :class:`~._settings.DeviceSpec`
        into a device (``mobster_drivers``' one device-construction place, when it lands, takes
        its place here: same spec fields, same ``OpenDevice`` and ``CouldntOpen``); the drivers
        are imported inside it, for the kind asked for only, so a run on the scripted phone never
        imports facebook-wda, pymobiledevice3 or Appium's client.
Rule 2: a real device is locked for as long as this process holds it (``mobster_drivers``'s
        per-device file lock: a simulator by UDID and by its WDA's URL, a WDA by its URL, a USB
        iPhone by UDID, as ``mobster test`` locks them), so two xdist workers, or a worker and a
        ``mobster test`` beside it, never drive one phone at once. A scripted phone is made anew
        for each holder and needs no lock. An Appium device is a session the server or the
        cloud hands out: the server keeps it to one client.
Rule 3: whatever keeps the device from opening is a :class:`CouldntOpen` with the class a check
        run would give it: ``busy`` (another holder has the lock), ``device`` (it doesn't
        answer), ``usage`` (a malformed app script or caps file, a bad URL, a missing extra: the
        drivers import their vendor library when a device is made, and the ImportError names the
        extra to install). What was opened before the failure is closed again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import attrs

from mobster_core import Clock, Device, DeviceError, FailureClass, MobsterError
from mobster_core.exceptions import DeviceBusy

from ._settings import DeviceSpec

__all__ = ["CouldntOpen", "OpenDevice", "open_device"]


class CouldntOpen(Exception):
    """A device of the pool can't be opened (Rule 3); ``failure_class`` is the check's class."""

    def __init__(self, failure_class: FailureClass, message: str) -> None:
        super().__init__(message)
        self.failure_class = failure_class
        self.message = message


@attrs.frozen
class OpenDevice:
    """A device ready to run checks, and how to let it go (locks and connections)."""

    spec: DeviceSpec
    device: Device
    release: Callable[[], None] = attrs.field(eq=False)


_EXTRAS = {"sim": "simulator", "wda": "simulator", "device": "usb", "appium": "appium"}


def open_device(spec: DeviceSpec, clock: Clock) -> OpenDevice:
    """Open the device ``spec`` names, on ``clock``, locked when it is a real one (the module rules)."""
    closers: list[Callable[[], None]] = []
    try:
        device = _open(spec, clock, closers)
    except BaseException as exc:
        _close_all(closers)
        raise _couldnt(spec, exc) from exc
    released: list[bool] = []

    def release() -> None:
        if not released:  # once: a second call (pytest's unconfigure after a crash) does nothing
            released.append(True)
            _close_all(closers)

    return OpenDevice(spec, device, release)


def _close_all(closers: list[Callable[[], None]]) -> None:
    while closers:
        close = closers.pop()
        with contextlib.suppress(Exception):
            close()


def _couldnt(spec: DeviceSpec, exc: BaseException) -> BaseException:
    """Rule 3: the class a run would give what went wrong, and a message that says what to do."""
    if isinstance(exc, CouldntOpen) or not isinstance(exc, Exception):
        return exc
    if isinstance(exc, ImportError):
        extra = _EXTRAS.get(spec.kind, spec.kind)
        return CouldntOpen(
            FailureClass.USAGE,
            f"--mobster-{spec.kind} needs the {extra} extra ({exc.name} is missing): pip install 'mobster[{extra}]'",
        )
    if isinstance(exc, DeviceBusy):
        return CouldntOpen(FailureClass.BUSY, f"{spec.option}: {exc}")
    if isinstance(exc, DeviceError):
        return CouldntOpen(FailureClass.DEVICE, f"{spec.option}: {exc}")
    if isinstance(exc, MobsterError | ValueError | OSError):
        # ScriptError (a malformed app script), CapsError (a ValueError), a bad URL, an unreadable file.
        return CouldntOpen(FailureClass.USAGE, f"{spec.option}: {exc}")
    return exc


def _lock(identity: str, closers: list[Callable[[], None]]) -> None:
    from mobster_drivers._lock import device_lock

    lock = device_lock(identity).acquire()
    closers.append(lock.release)


def _open(spec: DeviceSpec, clock: Clock, closers: list[Callable[[], None]]) -> Device:
    if spec.kind == "scripted":
        from mobster_drivers.scripted import ScriptedPhone

        return ScriptedPhone.from_file(Path(spec.value), clock=clock)
    if spec.kind == "wda":
        return _open_wda(spec.value, closers)
    if spec.kind == "sim":
        return _open_simulator(spec.value, closers)
    if spec.kind == "device":
        return _open_iphone(spec.value, closers)
    if spec.kind == "appium":
        return _open_appium(spec, clock, closers)
    raise ValueError(f"no such kind of device: {spec.kind}")


def _open_wda(url: str, closers: list[Callable[[], None]]) -> Device:
    from mobster_drivers.wda import WdaDevice, normalize_wda_url

    normalized = normalize_wda_url(url)
    _lock(f"wda {normalized}", closers)
    device = WdaDevice(normalized)
    closers.append(device.close)
    device.status_sync()
    return device


def _open_simulator(name: str, closers: list[Callable[[], None]]) -> Device:
    from mobster_drivers.simulator import SimulatorDevice

    device = SimulatorDevice.connect(name)
    closers.append(device.close)
    _lock(f"sim {device.udid}", closers)
    _lock(f"wda {device.wda.url}", closers)
    return device


def _open_iphone(name: str, closers: list[Callable[[], None]]) -> Device:
    from mobster_drivers.usb import UsbIphone

    phone = UsbIphone.connect(name)
    closers.append(phone.close)
    _lock(f"usb {phone.udid}", closers)
    return phone


def _open_appium(spec: DeviceSpec, clock: Clock, closers: list[Callable[[], None]]) -> Device:
    from mobster_drivers.appium import appium_device, load_caps

    caps = load_caps(spec.caps)  # None: $MOBSTER_APPIUM_CAPS, or no caps (a local Appium)
    device = appium_device(spec.value, caps, clock)
    closers.append(device.close)
    return device
