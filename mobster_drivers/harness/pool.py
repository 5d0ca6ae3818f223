"""Devices from options, and suites on a pool of them: the one place devices are made from names.

The ``mobster`` command and the pytest plugin both make their devices here::

    from mobster_core import SystemClock
    from mobster_drivers.harness.pool import DeviceSpec, open_device, pool_specs, run_on_pool

    clock = SystemClock()
    opened = open_device(DeviceSpec("sim", "iPhone 17 Pro"), clock)  # locked for this process
    try:
        ...  # opened.device is a mobster_core Device
    finally:
        opened.release()  # the lock, the connection, an Appium session

    specs = pool_specs(appium=["http://grid:4444/wd/hub"], caps=["grid.json"], sessions=4)
    suite = await run_on_pool(files, specs, clock, options=RunOptions(root=project))

Rule 1: a :class:`DeviceSpec` names one device: ``kind`` (``scripted``, ``sim``, ``device``,
        ``wda``, ``appium``), ``value`` (an app script's path, a simulator's or iPhone's name or
        UDID, a URL), ``label`` (its short name in the pool, unique there: ``sim-2``), ``caps``
        (an Appium device's caps file; None: ``$MOBSTER_APPIUM_CAPS`` or none) and ``bundle``
        (the app under test, the Appium session's ``appium:bundleId``; None: none asked for);
        ``session_per_check`` ends an Appium device's session after each check (one dashboard
        entry per check) instead of keeping one for the suite; ``session_wait`` is how long, in
        seconds, an Appium device waits for a new session (a Grid's queue, a cloud finding a
        phone; None: the driver's 300).
        ``prefix`` is how the options are spelled in messages (``--`` for ``mobster test``,
        ``--mobster-`` for the pytest plugin).
Rule 2: :func:`open_device` is the only function that turns a spec into a device; it imports
        the driver of that kind only, so a run on the scripted phone never imports
        facebook-wda, pymobiledevice3 or Appium's client.
Rule 3: a real device is locked for as long as its opener holds it (``mobster_drivers.harness._lock``:
        a simulator by UDID and by its WDA's URL, a WDA by its URL, a USB iPhone by UDID), so two
        runs never drive one phone at once. A scripted phone is made anew for each holder and
        needs no lock. An Appium device is a session the server or the cloud hands out, one
        client each: no lock, and N specs of one URL are N sessions.
Rule 4: whatever keeps a device from opening is a :class:`CouldntOpen` with the class a check
        would get: ``busy`` (another holder has the lock), ``device`` (it doesn't answer),
        ``usage`` (a malformed app script or caps file, an unset ``${VAR}`` in it, a bad URL, a
        missing extra). What was opened before the failure is closed again. Opening one Appium
        device creates no session yet: the first check does, and a server that refuses it ends
        that check ``couldnt_run``/``device`` and takes the session out of the pool. A pool of
        several starts their sessions when it opens (Rule 10).
Rule 5: :func:`pool_specs` turns the command line's options into specs: one kind of device per
        pool; ``--sessions N`` sessions per Appium URL; ``--parallel N`` is how many devices run
        at once (the scripted phone and a single Appium URL make N; a named pool keeps its first
        N, and asking for more devices than it names is an error). Bad mixes are a
        :class:`PoolError` that says what to write instead.
Rule 6: :func:`open_pool` opens every spec, in parallel threads; a device that can't be opened
        for ``device`` or ``busy`` reasons is left out (said in :attr:`Pool.unavailable`), a
        ``usage`` problem releases what was opened and is raised. :meth:`Pool.release` releases
        every device (ends Appium sessions: one session per device for the whole suite), once.
Rule 7: :func:`run_on_pool` runs a suite on the pool (``mobster_core.run_suite``: work stealing,
        or every check on every device with ``options.each_device``; a device lost mid-suite is
        taken out, see its rules) and releases the pool at the end, also when the suite is
        stopped. When no device could be opened, every check is ``couldnt_run`` with the first
        device's class and message. Results carry each device's label (``device_label``), except
        on a pool of one device, whose results name it by what it is, as a run without a pool.
Rule 8: a simulator's WDA listens on its own port: ``--sim "NAME@PORT"`` names it; in a pool of
        several simulators, one without a port gets ``$MOBSTER_WDA_PORT`` (else 8100) plus its
        place in the pool (8100, 8101, …), as each WDA must be started (``TEST_RUNNER_USE_PORT``).
        Two simulators on one port are a usage error. One simulator alone keeps
        ``$MOBSTER_WDA_PORT`` or 8100.
Rule 9: a URL's password and token-like path segments (a per-session endpoint's token, 20 or
        more URL characters) never reach a message: :attr:`DeviceSpec.option` and every
        :class:`CouldntOpen` show them as ``***``; labels are a URL's host and port only.
Rule 10: one session per phone. Devices of one server on one phone (one Appium server in front
        of one phone, asked for ``--sessions 2``) would end each other's sessions (XCUITest's
        session claim) and lose checks, so they become one device: first those whose
        capabilities name the same ``appium:udid`` on the same URL, before any session exists
        (two sessions made at once on one phone: real Appium refuses one, "WebDriverAgent is
        not initialized"); then the pool starts the others' sessions, in parallel, and asks each
        which phone it landed on (the session's capabilities, else ``mobile: deviceInfo``), and
        those on one phone become the one whose session the server still knows. A device whose
        session can't be started is tried once more, alone, then left out (as in Rule 6). The
        others are released (their sessions deleted) and said in :attr:`Pool.merged`
        (:meth:`Pool.notes` words it).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn
from urllib.parse import quote, unquote, urlsplit

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
from mobster_core.exceptions import DeviceBusy

__all__ = [
    "KINDS",
    "CouldntOpen",
    "DeviceSpec",
    "OpenDevice",
    "Pool",
    "PoolError",
    "open_device",
    "open_pool",
    "pool_specs",
    "run_on_pool",
    "sim_port",
    "unavailable",
]

#: The kinds of device a spec names, and what their value is.
KINDS: dict[str, str] = {"scripted": "APP.yaml", "sim": "NAME", "device": "NAME", "wda": "URL", "appium": "URL"}
#: The extra each kind's driver comes with.
_EXTRAS = {"sim": "simulator", "wda": "simulator", "device": "usb", "appium": "appium"}
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")
#: A path segment that is a credential (a per-session endpoint's token), as the Appium driver's rule.
_TOKEN_SEGMENT = re.compile(r"[A-Za-z0-9\-_.~%+=]{20,}")


class PoolError(ValueError):
    """The options don't make a pool; the message says what to write instead (Rule 5)."""


class CouldntOpen(MobsterError):
    """A device can't be opened (Rule 4); ``failure_class`` is the class its checks get."""

    def __init__(self, failure_class: FailureClass, message: str) -> None:
        super().__init__(message)
        self.failure_class = failure_class
        self.message = message


def _label_default(spec: DeviceSpec) -> str:
    return label_of(spec.kind, spec.value)


@attrs.frozen
class DeviceSpec:
    """One device of a pool, as the options name it (Rule 1)."""

    kind: str = attrs.field(validator=attrs.validators.in_(KINDS))
    value: str
    label: str = attrs.field(default=attrs.Factory(_label_default, takes_self=True))
    caps: str | None = attrs.field(default=None, kw_only=True)
    bundle: str | None = attrs.field(default=None, kw_only=True)
    prefix: str = attrs.field(default="--", kw_only=True)
    session_per_check: bool = attrs.field(default=False, kw_only=True)
    session_wait: float | None = attrs.field(default=None, kw_only=True)

    @property
    def option(self) -> str:
        """The option that names it, as a user writes it: ``--sim "iPhone 17 Pro"`` (no secret, Rule 9)."""
        value = f'"{self.value}"' if " " in self.value else self.value
        return self.scrub(f"{self.prefix}{self.kind} {value}")

    def scrub(self, text: str) -> str:
        """``text`` without the URL's password or token-like path segments (Rule 9)."""
        if self.kind not in ("wda", "appium"):
            return text
        parts = urlsplit(self.value.strip())
        try:
            secrets = {unquote(parts.password)} if parts.password else set()
        except ValueError:
            secrets = set()
        secrets.update(s for s in parts.path.split("/") if _TOKEN_SEGMENT.fullmatch(s))
        for secret in sorted((s for s in secrets if s), key=len, reverse=True):
            text = text.replace(secret, "***").replace(quote(secret, safe=""), "***")
        return text

    @property
    def exclusive(self) -> bool:
        """True for a device one holder at a time may drive (Rule 3)."""
        return self.kind in ("sim", "device", "wda")


@attrs.frozen
class OpenDevice:
    """A device ready to run checks, and how to let it go (its locks, connection and session)."""

    spec: DeviceSpec
    device: Device
    release: Callable[[], None] = attrs.field(eq=False)


def label_of(kind: str, value: str) -> str:
    """A short name for a device: a script's stem, a device's name, a URL's host and port."""
    if kind == "scripted":
        base = Path(value).stem
    elif kind == "sim":
        base = sim_port(value)[0]
    elif kind in ("wda", "appium"):
        base = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://", "", value).split("/", 1)[0].rpartition("@")[2]
    else:
        base = value
    return _LABEL_UNSAFE.sub("-", base).strip("-") or kind


# -- one device ----------------------------------------------------------------------------------


def open_device(spec: DeviceSpec, clock: Clock) -> OpenDevice:
    """Open the device ``spec`` names, on ``clock``, locked when it is a real one (Rules 2-4)."""
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
    """Rules 4, 9: the class a run would give what went wrong, a message that says what to do, no secret."""
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
            f"{spec.prefix}{spec.kind} needs the {extra} extra ({exc.name} is missing): pip install 'mobster[{extra}]'",
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
    from mobster_drivers.harness._lock import device_lock

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
    return _open_appium(spec, clock, closers)


def _open_wda(url: str, closers: list[Callable[[], None]]) -> Device:
    import filelock  # noqa: F401 - the device lock needs it: say which extra before connecting
    import wda  # noqa: F401

    from mobster_drivers.devices.wda import WdaDevice, normalize_wda_url

    normalized = normalize_wda_url(url)
    _lock(f"wda {normalized}", closers)
    device = WdaDevice(normalized)  # the kind comes from WDA's /status (a simulator when it doesn't say)
    closers.append(device.close)
    device.status_sync()
    return device


def sim_port(value: str) -> tuple[str, int | None]:
    """``"iPhone 17 Pro@8101"`` -> ``("iPhone 17 Pro", 8101)``: a simulator and its WDA's port (Rule 8)."""
    name, at, port = value.rpartition("@")
    if at and port.isdigit() and name.strip():
        number = int(port)
        if not 1 <= number <= 65535:
            raise ValueError(f"{value}: a WDA port is between 1 and 65535")
        return name, number
    return value, None


def _open_simulator(value: str, closers: list[Callable[[], None]]) -> Device:
    import filelock  # noqa: F401
    import wda  # noqa: F401

    from mobster_drivers.devices.simulator import SimulatorDevice

    name, port = sim_port(value)
    device = SimulatorDevice.connect(name, port=port)
    closers.append(device.close)
    _lock(f"sim {device.udid}", closers)
    _lock(f"wda {device.wda.url}", closers)
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


def pool_specs(
    *,
    scripted: Sequence[str] = (),
    sim: Sequence[str] = (),
    device: Sequence[str] = (),
    wda: Sequence[str] = (),
    appium: Sequence[str] = (),
    caps: Sequence[str] = (),
    sessions: int | None = None,
    parallel: int | None = None,
    bundle: str | None = None,
    prefix: str = "--",
    session_per_check: bool = False,
    session_wait: float | None = None,
) -> tuple[DeviceSpec, ...]:
    """The specs the options name (Rule 5); a :class:`PoolError` says what is wrong with them."""
    given = {"scripted": list(scripted), "sim": list(sim), "device": list(device), "wda": list(wda)}
    given["appium"] = list(appium)
    chosen = [kind for kind, values in given.items() if values]
    if len(chosen) > 1:
        names = " and ".join(f"{prefix}{k}" for k in chosen)
        raise PoolError(f"choose one device option, not {names}: a pool holds devices of one kind")
    if not chosen:
        raise PoolError(f"choose a device: {', '.join(f'{prefix}{k} {v}' for k, v in KINDS.items())}")
    kind = chosen[0]
    if kind != "appium":
        _appium_only(
            prefix,
            {
                "caps FILE": (bool(caps), "the Appium session's capabilities"),
                "sessions N": (sessions is not None, "N sessions on one server or cloud"),
                "session-per-check": (session_per_check, ""),
                "session-wait SECONDS": (session_wait is not None, "how long a new session may take"),
            },
        )
    if session_wait is not None and not 0 < session_wait <= 3600:
        raise PoolError(f"{prefix}session-wait takes seconds from more than 0 to 3600, not {session_wait:g}")
    for name, number in (("sessions", sessions), ("parallel", parallel)):
        if number is not None and number < 1:
            raise PoolError(f"{prefix}{name} takes a whole number from 1, not {number}")
    values = given[kind]
    if kind == "appium":
        specs = _appium_specs(values, caps, sessions, parallel, (bundle, prefix))
        return tuple(
            attrs.evolve(spec, session_per_check=session_per_check, session_wait=session_wait) for spec in specs
        )
    if kind == "scripted":
        count = parallel or len(values)
        values = [values[n % len(values)] for n in range(count)]
    elif parallel is not None and parallel > len(values):
        _too_few(kind, values, parallel, prefix)
    elif parallel is not None:
        values = values[:parallel]
    if kind == "sim" and len(values) > 1:
        values = _sim_ports(values)
    return tuple(
        DeviceSpec(kind, v, label, prefix=prefix) for v, label in zip(values, _labels(kind, values), strict=True)
    )


def _appium_only(prefix: str, given: dict[str, tuple[bool, str]]) -> None:
    """Rule 5: an Appium option given with another kind of device says what it goes with."""
    for option, (used, why) in given.items():
        if used:
            reason = f" ({why})" if why else ""
            raise PoolError(f"{prefix}{option} goes with {prefix}appium URL{reason}")


def _sim_ports(values: Sequence[str]) -> list[str]:
    """Rule 8: each simulator of a pool on its own WDA port: the given one, else the base port + its place."""
    from mobster_drivers.devices.simulator import wda_port  # the base: $MOBSTER_WDA_PORT, else 8100

    try:
        base = wda_port()
    except DeviceError as exc:
        raise PoolError(str(exc)) from exc
    out = []
    for n, value in enumerate(values):
        name, port = sim_port(value)
        out.append(value if port is not None else f"{name}@{base + n}")
    ports = [sim_port(v)[1] for v in out]
    if len(set(ports)) != len(ports):
        raise PoolError(f"two simulators of the pool on one WDA port ({', '.join(out)}): give each its own NAME@PORT")
    return out


def _too_few(kind: str, values: Sequence[str], parallel: int, prefix: str) -> NoReturn:
    noun = {"sim": "simulator", "device": "iPhone", "wda": "WebDriverAgent"}[kind]
    raise PoolError(
        f"{prefix}parallel {parallel} needs {parallel} devices, and the pool names {len(values)} "
        f"{noun}{'s' if len(values) != 1 else ''}: add {prefix}{kind} {KINDS[kind]} once per {noun}, "
        "or run one mobster per device (each with its own --shard)"
    )


def _appium_specs(
    urls: Sequence[str],
    caps: Sequence[str],
    sessions: int | None,
    parallel: int | None,
    session: tuple[str | None, str],
) -> tuple[DeviceSpec, ...]:
    bundle, prefix = session
    if len(caps) not in (0, 1, len(urls)):
        raise PoolError(
            f"{len(caps)} caps files for {len(urls)} Appium servers: give one for all or one per {prefix}appium"
        )
    if sessions is None:
        sessions = -(-parallel // len(urls)) if parallel else 1  # --parallel N on one URL: N sessions
    pairs = [(url, caps[0] if len(caps) == 1 else caps[n] if caps else None) for n, url in enumerate(urls)]
    slots = [pair for pair in pairs for _ in range(sessions)]
    if parallel is not None:
        slots = slots[:parallel]
    labels = _labels("appium", [url for url, _ in slots])
    return tuple(
        DeviceSpec("appium", url, label, caps=file, bundle=bundle, prefix=prefix)
        for (url, file), label in zip(slots, labels, strict=True)
    )


def _labels(kind: str, values: Sequence[str]) -> list[str]:
    """Unique short names: ``host:4723-1``, ``host:4723-2`` when two devices share one."""
    raw = [label_of(kind, v) for v in values]
    seen: dict[str, int] = {}
    out = []
    for label in raw:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if raw.count(label) == 1 else f"{label}-{seen[label]}")
    return out


@attrs.define
class Pool:
    """The devices of a pool that opened, those that couldn't (Rule 6), those that were one (Rule 10)."""

    opened: list[OpenDevice] = attrs.field(factory=list)
    unavailable: list[tuple[DeviceSpec, CouldntOpen]] = attrs.field(factory=list)
    #: ``(device, the device it became, the phone's UDID)`` for each device merged into another.
    merged: list[tuple[DeviceSpec, DeviceSpec, str]] = attrs.field(factory=list)

    def notes(self) -> list[str]:
        """One line per merged device (Rule 10), for a front end to print."""
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


def open_pool(specs: Iterable[DeviceSpec], clock: Clock) -> Pool:
    """Open every spec at once (Rule 6): the ones that can't be opened for device reasons are left out.

    Devices open in parallel threads (booting a simulator or asking a WDA its status takes
    seconds each); the pool keeps the specs' order. A ``usage`` problem releases what opened and
    is raised (the first in the specs' order).
    """
    specs = list(specs)
    if not specs:
        return Pool()
    with ThreadPoolExecutor(max_workers=min(len(specs), 16), thread_name_prefix="mobster-open") as threads:
        outcomes = list(threads.map(lambda spec: _try_open(spec, clock), specs))
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
    _one_session_per_phone(pool)
    return pool


def _one_session_per_phone(pool: Pool) -> None:
    """Rule 10: devices of a pool on one phone become one."""
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
    if len(starting) < 2:
        return  # one device left: its first check starts its session, as a pool of one does
    with ThreadPoolExecutor(max_workers=min(len(starting), 16), thread_name_prefix="mobster-session") as threads:
        landed = list(threads.map(_landed, starting))
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
    """``others`` are the phone ``kept`` is on: released, and said (Rule 10)."""
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


def _try_open(spec: DeviceSpec, clock: Clock) -> OpenDevice | CouldntOpen:
    try:
        return open_device(spec, clock)
    except CouldntOpen as exc:
        return exc


async def run_on_pool(
    files: Sequence[Path],
    specs: Sequence[DeviceSpec] | Pool,
    clock: Clock,
    *,
    models: Callable[[], Model | None] | None = None,
    options: RunOptions | None = None,
) -> SuiteResult:
    """Run a suite on the pool ``specs`` name, or on an open ``Pool`` (Rule 7); releases it at the end."""
    pool = specs if isinstance(specs, Pool) else open_pool(specs, clock)
    try:
        named = pool.devices
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
    """A device that couldn't be opened (Rule 7): every call raises ``error``, so nothing is sent."""
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
