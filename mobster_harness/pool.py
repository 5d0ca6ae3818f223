"""Devices from specs, and suites on a pool of them: the one place devices are made from names.

The ``mobster`` command and the pytest plugin both make their devices here::

    from mobster_core import SystemClock
    from mobster_harness.pool import open_device, run_on_pool
    from mobster_harness.spec import DeviceOptions, DeviceSpec, pool_specs

    clock = SystemClock()
    opened = open_device(DeviceSpec("sim", "iPhone 17 Pro"), clock)  # locked for this process
    try:
        ...  # opened.device is a mobster_core Device
    finally:
        opened.release()  # the lock, the connection, an Appium session

    specs = pool_specs(DeviceOptions(appium=("http://grid:4444/wd/hub",), caps=("grid.json",), sessions=4))
    suite = await run_on_pool(files, specs, clock, options=RunOptions(root=project))

What a spec is, its label, how a pool's specs are made from the options and how a secret is kept
out of messages are :mod:`mobster_harness.spec`'s rules (its names are importable from
here too, as before).

Rule 1: :func:`open_device` is the only function that turns a spec into a device; it imports
        the driver of that kind only, so a run on the scripted phone never imports
        facebook-wda, pymobiledevice3 or Appium's client.
Rule 2: a real device is locked for as long as its opener holds it (``mobster_harness._lock``:
        a simulator by UDID and by its WDA's URL, a WDA by its URL, a USB iPhone by UDID), so two
        runs never drive one phone at once. A scripted phone is made anew for each holder and
        needs no lock. An Appium device is a session the server or the cloud hands out, one
        client each: no lock, and N specs of one URL are N sessions.
Rule 3: whatever keeps a device from opening is a :class:`CouldntOpen` with the class a check
        would get: ``busy`` (another holder has the lock), ``device`` (it doesn't answer),
        ``usage`` (a malformed app script or caps file, an unset ``${VAR}`` in it, a bad URL, a
        missing extra). What was opened before the failure is closed again. Opening one Appium
        device creates no session yet: the first check does, and a server that refuses it ends
        that check ``couldnt_run``/``device`` and takes the session out of the pool; a pool of
        several starts their sessions when it opens (Rule 6). Its message names the option as the
        spec spells it, with no secret of its URL (``spec``'s Rule 6).
Rule 4: :func:`open_pool` opens every spec, in parallel threads; a device that can't be opened
        for ``device`` or ``busy`` reasons is left out (said in :attr:`Pool.unavailable`), a
        ``usage`` problem releases what was opened and is raised. :meth:`Pool.release` releases
        every device (ends Appium sessions: one session per device for the whole suite), once.
Rule 5: :func:`run_on_pool` runs a suite on the pool (``mobster_core.run_suite``: work stealing,
        or every check on every device with ``options.each_device``; a device lost mid-suite is
        taken out, see its rules), its device calls in threads sized to the pool
        (:mod:`mobster_harness.threads`), and releases the pool at the end, also when the
        suite is stopped. When no device could be opened, every check is ``couldnt_run`` with the first
        device's class and message. Results carry each device's label (``device_label``), except
        on a pool of one device, whose results name it by what it is, as a run without a pool.
Rule 6: one session per phone. Devices of one server on one phone (one Appium server in front
        of one phone, asked for ``--sessions 2``) would end each other's sessions (XCUITest's
        session claim) and lose checks, so they become one device: first those whose
        capabilities name the same ``appium:udid`` on the same URL, before any session exists
        (two sessions made at once on one phone: real Appium refuses one, "WebDriverAgent is
        not initialized"); then the pool starts the others' sessions, in parallel, and asks each
        which phone it landed on (the session's capabilities, else ``mobile: deviceInfo``), and
        those on one phone become the one whose session the server still knows. A device whose
        session can't be started is tried once more, alone, then left out (as in Rule 4). The
        others are released (their sessions deleted) and said in :attr:`Pool.merged`
        (:meth:`Pool.notes` words it).
Rule 7: an :class:`Opening` lets another thread abandon a pool while it opens (Ctrl+C while a WDA
        never answers its status or a hub queues the sessions): every device opened so far is
        released at once (an Appium device's session request in flight is given up to
        :data:`SESSION_GRACE` seconds to be answered, so the session it made is deleted, then its
        calls are cut), and one that opens later is released as soon as it does; the abandoned
        pool comes back empty.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn

import attrs

from mobster_core import (
    Action,
    AppInfo,
    Clock,
    Device,
    DeviceError,
    DeviceInfo,
    FailureClass,
    LaunchOptions,
    MobsterError,
    Model,
    RunOptions,
    Screen,
    SuiteResult,
    run_suite,
)
from mobster_core.distribution import install_hint
from mobster_core.exceptions import DeviceBusy
from mobster_harness.threads import size_threads

from .spec import KINDS, DeviceOptions, DeviceSpec, PoolError, label_of, pool_specs, sim_port

__all__ = [
    "KINDS",
    "CouldntOpen",
    "DeviceOptions",
    "DeviceSpec",
    "OpenDevice",
    "Opening",
    "Pool",
    "PoolError",
    "label_of",
    "open_device",
    "open_pool",
    "pool_specs",
    "run_on_pool",
    "sim_port",
    "unavailable",
]

#: The extra each kind's driver comes with.
_EXTRAS = {"sim": "simulator", "wda": "simulator", "device": "usb", "appium": "appium", "android": "android"}


class CouldntOpen(MobsterError):
    """A device can't be opened (Rule 3); ``failure_class`` is the class its checks get."""

    def __init__(self, failure_class: FailureClass, message: str) -> None:
        super().__init__(message)
        self.failure_class = failure_class
        self.message = message


@attrs.frozen
class OpenDevice:
    """A device ready to run checks, and how to let it go (its locks, connection and session)."""

    spec: DeviceSpec
    device: Device
    release: Callable[[], None] = attrs.field(eq=False)


# -- one device ----------------------------------------------------------------------------------


def open_device(spec: DeviceSpec, clock: Clock) -> OpenDevice:
    """Open the device ``spec`` names, on ``clock``, locked when it is a real one (Rules 1-3)."""
    closers: list[Callable[[], None]] = []
    try:
        device = _open(spec, clock, closers)
    except BaseException as exc:
        _close_all(closers)
        raise _couldnt(spec, exc) from exc
    released: list[bool] = []

    def release() -> None:
        if not released:
            released.append(True)
            _close_all(closers)

    return OpenDevice(spec, device, release)


def _close_all(closers: list[Callable[[], None]]) -> None:
    while closers:
        close = closers.pop()
        with contextlib.suppress(Exception):
            close()


def _couldnt(spec: DeviceSpec, exc: BaseException) -> BaseException:
    """Rule 3: the class a run would give what went wrong, a message that says what to do, no secret."""
    if isinstance(exc, CouldntOpen) or not isinstance(exc, Exception):
        return exc
    said = _couldnt_said(spec, exc)
    if isinstance(said, CouldntOpen):
        return CouldntOpen(said.failure_class, spec.scrub(said.message))
    return said


def _couldnt_said(spec: DeviceSpec, exc: Exception) -> BaseException:
    if isinstance(exc, ImportError):
        extra = _EXTRAS.get(spec.kind, spec.kind)
        return CouldntOpen(
            FailureClass.USAGE,
            f"{spec.prefix}{spec.kind} needs the {extra} extra ({exc.name} is missing): {install_hint(extra)}",
        )
    if isinstance(exc, DeviceBusy):
        return CouldntOpen(FailureClass.BUSY, f"{spec.option}: {exc}")
    if isinstance(exc, DeviceError):
        return CouldntOpen(FailureClass.DEVICE, f"{spec.option}: {exc}")
    if isinstance(exc, MobsterError | ValueError | OSError):
        # ScriptError (a malformed app script), CapsError (a ValueError), a bad URL, an unreadable file.
        return CouldntOpen(FailureClass.USAGE, f"{spec.option}: {exc}")
    return exc


def address_key(url: str) -> str:
    """The lock identity of a device at ``url`` (``_lock``'s Rule 5)."""
    from mobster_harness._lock import address_key as key

    return key(url)


def _lock(identity: str, closers: list[Callable[[], None]]) -> None:
    from mobster_harness._lock import device_lock

    lock = device_lock(identity).acquire()
    closers.append(lock.release)


def _open(spec: DeviceSpec, clock: Clock, closers: list[Callable[[], None]]) -> Device:
    if spec.kind == "scripted":
        from mobster_drivers.devices.scripted import ScriptedPhone

        return ScriptedPhone.from_file(Path(spec.value), clock=clock)
    if spec.kind == "wda":
        return _open_wda(spec.value, closers)
    if spec.kind == "sim":
        return _open_simulator(spec.value, closers)
    if spec.kind == "device":
        return _open_iphone(spec.value, closers)
    if spec.kind == "android":
        return _open_android(spec.value, closers)
    return _open_appium(spec, clock, closers)


def _open_android(serial: str, closers: list[Callable[[], None]]) -> Device:
    """An Android device by its serial ("": the only one adb lists), locked by its serial once it is open."""
    import filelock  # noqa: F401 - the device lock needs it: say which extra before connecting

    from mobster_drivers.devices.android import AndroidDevice

    device = AndroidDevice(serial or None)
    closers.append(device.close)
    device.open_sync()
    _lock(f"android {device.serial}", closers)
    return device


def _open_wda(url: str, closers: list[Callable[[], None]]) -> Device:
    import filelock  # noqa: F401 - the device lock needs it: say which extra before connecting
    import wda  # noqa: F401

    from mobster_drivers.devices.wda import WdaDevice, normalize_wda_url

    normalized = normalize_wda_url(url)
    _lock(f"wda {address_key(normalized)}", closers)
    device = WdaDevice(normalized)  # the kind comes from WDA's /status (a simulator when it doesn't say)
    closers.append(device.close)
    device.status_sync()
    return device


def _open_simulator(value: str, closers: list[Callable[[], None]]) -> Device:
    import filelock  # noqa: F401
    import wda  # noqa: F401

    from mobster_drivers.devices.simulator import SimulatorDevice

    name, port = sim_port(value)
    device = SimulatorDevice.connect(name, port=port)
    closers.append(device.close)
    _lock(f"sim {device.udid}", closers)
    _lock(f"wda {address_key(device.wda.url)}", closers)
    return device


def _open_iphone(name: str, closers: list[Callable[[], None]]) -> Device:
    import filelock  # noqa: F401
    import pymobiledevice3  # noqa: F401
    import wda  # noqa: F401

    from mobster_drivers.devices.usb import UsbIphone

    phone = UsbIphone.connect(name)
    closers.append(phone.close)
    _lock(f"usb {phone.udid}", closers)
    return phone


def _open_appium(spec: DeviceSpec, clock: Clock, closers: list[Callable[[], None]]) -> Device:
    import appium  # noqa: F401 - say which extra before reading the caps file

    from mobster_drivers.devices.appium import AppiumTimeouts, appium_device, load_caps

    caps = load_caps(spec.caps)  # None: $MOBSTER_APPIUM_CAPS, or no caps (a local Appium)
    timeouts = AppiumTimeouts() if spec.session_wait is None else AppiumTimeouts(session=spec.session_wait)
    device = appium_device(
        spec.value, caps, clock, bundle=spec.bundle, timeouts=timeouts, session_per_check=spec.session_per_check
    )
    closers.append(device.close)  # ends the session: the cloud stops billing it
    return device


# -- a pool of them ------------------------------------------------------------------------------


@attrs.define
class Pool:
    """The devices of a pool that opened, those that couldn't (Rule 4), those that were one (Rule 6)."""

    opened: list[OpenDevice] = attrs.field(factory=list)
    unavailable: list[tuple[DeviceSpec, CouldntOpen]] = attrs.field(factory=list)
    #: ``(device, the device it became, the phone's UDID)`` for each device merged into another.
    merged: list[tuple[DeviceSpec, DeviceSpec, str]] = attrs.field(factory=list)

    def notes(self) -> list[str]:
        """One line per merged device (Rule 6), for a front end to print."""
        return [
            f"{spec.label} is on the same phone as {kept.label} (UDID {udid}): they run as one device, "
            "one session on that phone"
            for spec, kept, udid in self.merged
        ]

    @property
    def devices(self) -> dict[str, Device]:
        """Each open device by its label: what ``run_suite`` takes."""
        return {o.spec.label: o.device for o in self.opened}

    def release(self) -> None:
        """Release every device (each only once, whatever fails)."""
        while self.opened:
            self.opened.pop().release()


@attrs.define
class Opening:
    """A pool being opened, which another thread may abandon (Rule 7)."""

    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False)
    _held: list[OpenDevice] = attrs.field(factory=list, init=False)
    abandoned: bool = attrs.field(default=False, init=False)

    def hold(self, opened: OpenDevice) -> bool:
        """Keep ``opened`` to release if the opening is abandoned; False, released now, if it was."""
        with self._lock:
            if not self.abandoned:
                self._held.append(opened)
                return True
        opened.release()
        return False

    def abandon(self) -> None:
        """Release every device opened so far, at once and side by side; any later one as it opens."""
        with self._lock:
            self.abandoned = True
            held, self._held = self._held, []
        if held:
            with ThreadPoolExecutor(max_workers=min(len(held), 16), thread_name_prefix="mobster-release") as threads:
                list(threads.map(_let_go, held))


#: How long an abandoned pool waits for a session request in flight to be answered (Rule 7).
SESSION_GRACE = 5.0


def _let_go(opened: OpenDevice) -> None:
    """Release ``opened``; an Appium device first waits a moment for a session it is being given."""
    from mobster_drivers.devices.appium import AppiumDevice

    if isinstance(opened.device, AppiumDevice):
        opened.device.close(grace=SESSION_GRACE)  # its session, once made, is known and deleted
    opened.release()


def open_pool(specs: Iterable[DeviceSpec], clock: Clock, *, opening: Opening | None = None) -> Pool:
    """Open every spec at once (Rule 4): the ones that can't be opened for device reasons are left out.

    Devices open in parallel threads (booting a simulator or asking a WDA its status takes
    seconds each); the pool keeps the specs' order. A ``usage`` problem releases what opened and
    is raised (the first in the specs' order). ``opening`` lets another thread abandon it (Rule 7).
    """
    specs = list(specs)
    opening = opening or Opening()
    if not specs:
        return Pool()
    with ThreadPoolExecutor(max_workers=min(len(specs), 16), thread_name_prefix="mobster-open") as threads:
        outcomes = list(threads.map(lambda spec: _try_open(spec, clock, opening), specs))
    pool = Pool()
    for spec, outcome in zip(specs, outcomes, strict=True):
        if isinstance(outcome, OpenDevice):
            pool.opened.append(outcome)
        else:
            pool.unavailable.append((spec, outcome))
    usage = [why for _, why in pool.unavailable if why.failure_class is FailureClass.USAGE]
    if usage:
        pool.release()
        raise usage[0]
    if not opening.abandoned:
        _one_session_per_phone(pool, opening)
    if opening.abandoned:  # Rule 7: what opened was released by the abandoning thread, or as it opened
        pool.release()
        return Pool(unavailable=[(spec, _stopped(spec)) for spec in specs])
    return pool


def _stopped(spec: DeviceSpec) -> CouldntOpen:
    return CouldntOpen(FailureClass.STOPPED, f"{spec.option}: the run was stopped while it opened")


def _one_session_per_phone(pool: Pool, opening: Opening) -> None:
    """Rule 6: devices of a pool on one phone become one."""
    from mobster_drivers.devices.appium import AppiumDevice

    appium = [o for o in pool.opened if isinstance(o.device, AppiumDevice)]
    if len(appium) < 2:
        return
    asked: dict[tuple[str, str], list[OpenDevice]] = {}
    for opened in appium:
        device = opened.device
        assert isinstance(device, AppiumDevice)
        if device.asked_udid is not None:
            asked.setdefault((opened.spec.value, device.asked_udid), []).append(opened)
    for (_, udid), group in asked.items():
        _merge(pool, group[0], group[1:], udid)
    starting = [o for o in appium if o in pool.opened]
    if len(starting) > 1:  # one device left: its first check starts its session, as a pool of one does
        _merge_where_landed(pool, starting, opening)


def _merge_where_landed(pool: Pool, starting: list[OpenDevice], opening: Opening) -> None:
    """Rule 6: start each device's session, and merge those that landed on one phone."""
    from mobster_drivers.devices.appium import AppiumDevice

    with ThreadPoolExecutor(max_workers=min(len(starting), 16), thread_name_prefix="mobster-session") as threads:
        landed = list(threads.map(_landed, starting))
    if opening.abandoned:
        return  # Rule 7: no second try; what opened is being released
    landed = [
        _landed(o) if isinstance(where, CouldntOpen) else where for o, where in zip(starting, landed, strict=True)
    ]
    phones: dict[str, list[OpenDevice]] = {}
    for opened, where in zip(starting, landed, strict=True):
        if isinstance(where, CouldntOpen):
            opened.release()
            pool.opened.remove(opened)
            pool.unavailable.append((opened.spec, where))
        elif where is not None:
            phones.setdefault(where, []).append(opened)
    for udid, group in phones.items():
        if len(group) > 1:
            alive = [o for o in group if isinstance(o.device, AppiumDevice) and o.device.session_alive_sync()]
            kept = alive[0] if alive else group[0]
            _merge(pool, kept, [o for o in group if o is not kept], udid)


def _merge(pool: Pool, kept: OpenDevice, others: list[OpenDevice], udid: str) -> None:
    """``others`` are the phone ``kept`` is on: released, and said (Rule 6)."""
    for other in others:
        other.release()
        pool.opened.remove(other)
        pool.merged.append((other.spec, kept.spec, udid))


def _landed(opened: OpenDevice) -> str | CouldntOpen | None:
    """The UDID of the phone an Appium device's new session is on (None: unsaid), or why it has none."""
    from mobster_drivers.devices.appium import AppiumDevice

    device = opened.device
    assert isinstance(device, AppiumDevice)
    try:
        return device.start_session_sync()
    except DeviceError as exc:
        return CouldntOpen(FailureClass.DEVICE, opened.spec.scrub(f"{opened.spec.option}: {exc}"))


def _try_open(spec: DeviceSpec, clock: Clock, opening: Opening) -> OpenDevice | CouldntOpen:
    try:
        opened = open_device(spec, clock)
    except CouldntOpen as exc:
        return exc
    if not opening.hold(opened):
        return _stopped(spec)
    return opened


async def run_on_pool(
    files: Sequence[Path],
    specs: Sequence[DeviceSpec] | Pool,
    clock: Clock,
    *,
    models: Callable[[], Model | None] | None = None,
    options: RunOptions | None = None,
) -> SuiteResult:
    """Run a suite on the pool ``specs`` name, or on an open ``Pool`` (Rule 5); releases it at the end."""
    pool = specs if isinstance(specs, Pool) else open_pool(specs, clock)
    try:
        named = pool.devices
        size_threads(len(named))  # one executor for the run, sized to its devices (threads.py)
        devices: dict[str, Device] | list[Device] = named
        if not named:
            devices = [unavailable(_as_device_error(pool.unavailable[0][1]))]
        elif len(named) == 1 and not pool.unavailable:
            devices = list(named.values())  # a pool of one: results name the device by what it is
        if models is None:
            return await run_suite(files, devices, clock, options=options)
        return await run_suite(files, devices, clock, models=models, options=options)
    finally:
        pool.release()


def _as_device_error(why: CouldntOpen) -> DeviceError:
    """The error a device that couldn't be opened raises: ``DeviceBusy`` for a busy one."""
    return DeviceBusy(why.message) if why.failure_class is FailureClass.BUSY else DeviceError(why.message)


def unavailable(error: DeviceError) -> Device:
    """A device that couldn't be opened (Rule 5): every call raises ``error``, so nothing is sent."""
    return _Unavailable(error)


class _Unavailable:
    def __init__(self, error: DeviceError) -> None:
        self.error = error

    def _fail(self, *_asked: object) -> NoReturn:
        raise self.error

    async def info(self) -> DeviceInfo:
        self._fail()

    async def app_info(self, bundle: str) -> AppInfo:
        self._fail(bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        self._fail(bundle, options)

    async def read(self) -> Screen:
        self._fail()

    async def act(self, action: Action) -> None:
        self._fail(action)
