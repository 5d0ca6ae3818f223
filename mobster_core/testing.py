"""Test helpers for users and for the SDK's own tests: a fake clock and ``check_device``.

``FakeClock`` runs a coroutine on an event loop whose time is virtual: when every task is waiting
on a timer, time jumps to the next deadline at once, so a test of a 3-second drift takes
microseconds (the idea of trio's autojump clock, on asyncio).

``check_device`` is the conformance suite every :class:`~mobster_core.protocols.Device` must pass.

``MemoryJournal`` is a run's journal kept in memory, under the journal's rules, for a harness or
a benchmark that drives the runner's parts without a run folder.

``MemoryPaths`` is a :class:`~mobster_core.protocols.PathStore` in memory with a database's
versions (``v1``, ``v2``, ...) and its conditional write; ``check_path_store`` is the conformance
suite every path store must pass (the built-in file stores, the S3 and PostgreSQL stores, a
harness's own).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import selectors
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar, runtime_checkable

from ._rules.device.device import (
    HOME_SCREENS,
    SPRINGBOARD,
    Action,
    AppInfo,
    DeviceInfo,
    DeviceKind,
    LaunchOptions,
    Platform,
)
from ._rules.verdict.verdict import Verdict
from ._rules.vocabulary.screen import Screen
from ._rules.vocabulary.steps import Op
from ._store.journal import JournalWriter
from ._store.pathstores import Versioned, check_document_name
from .exceptions import DeviceError, JournalError, MobsterError, Problem, UnsafeFile
from .protocols import CheckReports, Device, EvidenceReads, Screenshots, TargetChecks

__all__ = [
    "SPRINGBOARD",
    "FakeClock",
    "MemoryJournal",
    "MemoryPaths",
    "VersionNames",
    "check_device",
    "check_path_store",
]

_T = TypeVar("_T")


class MemoryJournal(JournalWriter):
    """A run's journal in memory: the journal's rules (masked text, JSON only, ``seq``) without a file.

    ``entries`` holds what the file journal would have written, in order. An entry that isn't
    JSON raises ``JournalError`` as the file journal does.
    """

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def _append(self, record: dict[str, Any]) -> int:
        try:
            line = json.dumps(record, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise JournalError(f"the journal entry for {record['key']!r} isn't JSON ({exc})") from exc
        self.entries.append(json.loads(line))
        self._seq += 1
        return self._seq

    def close(self) -> None:
        """Nothing to close: the entries stay readable."""


class FakeClock:
    """A clock whose time only moves when every task is waiting (see the module docstring).

    Use ``clock.run(coro)`` in place of ``asyncio.run(coro)``; inside it ``clock.now()`` and
    ``asyncio.sleep`` both run on virtual time. Threads are not waited for while a timer is set
    (time jumps past their work); with nothing else scheduled, one has 300 s of real time to finish
    before the run fails as a deadlock. Keep real I/O out of fake-clock tests (the fake servers run
    on the real clock).
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._loop: asyncio.AbstractEventLoop | None = None

    def now(self) -> float:
        """Virtual seconds since the clock was made (plus ``start``)."""
        return self._now

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of virtual time; must run inside :meth:`run`."""
        if asyncio.get_running_loop() is not self._loop:
            raise RuntimeError("FakeClock.sleep must run inside FakeClock.run(...)")
        await asyncio.sleep(max(0.0, seconds))

    def advance(self, seconds: float) -> None:
        """Move time forward by hand (outside :meth:`run`, for synchronous tests)."""
        if seconds < 0:
            raise ValueError("time only moves forward")
        self._now += seconds

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coro`` to completion on virtual time and return its result."""
        loop = _VirtualTimeLoop(self)
        self._loop = loop
        try:
            return loop.run_until_complete(coro)
        finally:
            try:
                _cancel_leftovers(loop)
            finally:
                self._loop = None
                loop.close()


#: Real seconds a thread is given to wake a loop on which nothing else is scheduled.
_THREAD_GRACE_S = 300.0


class _VirtualSelector(selectors.DefaultSelector):
    """Never blocks: when there's nothing to do before the next timer, it jumps the clock."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self._clock = clock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events: list[tuple[selectors.SelectorKey, int]] = super().select(0)
        if events or timeout == 0:
            return events
        if timeout is None:
            # Nothing scheduled at all: only a thread could wake us (a reporter making a run's
            # pictures, ``check.py`` Rule 3). Give it a while, then fail loudly instead of hanging.
            events = super().select(_THREAD_GRACE_S)
            if not events:
                raise RuntimeError("FakeClock: every task waits and no timer is set (a deadlock)")
            return events
        self._clock.advance(timeout)
        return []


class _VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: FakeClock) -> None:
        super().__init__(selector=_VirtualSelector(clock))
        self._fake_clock = clock

    def time(self) -> float:
        return self._fake_clock.now()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())


# -- the conformance suite ------------------------------------------------------------------

DeviceFactory = Callable[[], Device | Awaitable[Device]]


@runtime_checkable
class VersionNames(Protocol):
    """A device that says whether it reads an app's version name (``AppInfo.version``), for :func:`check_device`.

    Only a driver that can't says so (False): Appium's UiAutomator2 driver reads an app's
    ``versionCode`` (``mobile: listApps``) and its ``versionName`` only through ``adb shell``.
    """

    def reads_version_names(self) -> bool:
        """False when ``app_info`` can give the build only (after ``info``: it may depend on the session)."""
        ...


_PATH = re.compile(r"/0(/[0-9]+)+")


async def check_device(
    make_device: DeviceFactory,
    *,
    app: str,
    tap: tuple[str, str] | None = None,
    field: tuple[str, str] | None = None,
    link: str | None = None,
) -> list[str]:
    """Run the conformance suite against a driver; return the names of the checks that ran.

    ``make_device`` builds a fresh device for each check. ``app`` is an installed app whose first
    screen is still (nothing on it moves). Optional: ``tap``, a ``(role, label)`` on that first
    screen whose tap leads to another screen; ``field``, a ``(role, label)`` text field reachable
    on the first screen or after ``tap``; ``link``, a deep link the app opens. An Android device
    given ``tap`` is checked to go back with ``BACK`` too. A device that says it can't read an
    app's version name (:class:`VersionNames`: Appium's UiAutomator2 driver without ``mobile:
    shell``) is asked for the build only. Raises ``AssertionError`` naming the check and what was
    wrong.
    """
    checks: list[tuple[str, Callable[[Device], Awaitable[None]]]] = [
        ("info", _check_info),
        ("launch and read", lambda d: _check_launch_and_read(d, app)),
        ("reads agree on a still screen", lambda d: _check_reads_agree(d, app)),
        ("app info", lambda d: _check_app_info(d, app)),
        ("unknown app is a DeviceError", _check_unknown_app),
        ("home and back", lambda d: _check_home_and_back(d, app)),
    ]
    if tap is not None:
        checks.append(("tap changes the screen", lambda d: _check_tap(d, app, tap)))
    if field is not None:
        checks.append(("typing sets the field's value", lambda d: _check_type(d, app, tap, field)))
    if link is not None:
        checks.append(("open a link", lambda d: _check_link(d, app, link)))
    ran = [name for name, check in checks if await _conform(make_device, name, check)]
    device = await _made(make_device)
    if isinstance(device, Screenshots):
        await device.launch(app, LaunchOptions())
        png = await device.screenshot()
        _expect(isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n"), "a screenshot is PNG bytes")
        ran.append("screenshot")
    if tap is not None and (await device.info()).kind.platform is Platform.ANDROID:
        await _conform(make_device, "back", lambda d: _check_back(d, app, tap))
        ran.append("back")
    abilities: list[tuple[str, type, Callable[[Device, str], Awaitable[None]]]] = [
        ("evidence read", EvidenceReads, _check_evidence),
        ("target check", TargetChecks, _check_target),
        ("check reports", CheckReports, _check_reports),
    ]
    for name, ability, check_ability in abilities:
        if isinstance(await _made(make_device), ability):
            await _conform(make_device, name, _on_app(check_ability, app))
            ran.append(name)
    return ran


def _on_app(check: Callable[[Device, str], Awaitable[None]], app: str) -> Callable[[Device], Awaitable[None]]:
    return lambda device: check(device, app)


async def _made(make_device: DeviceFactory) -> Device:
    device = make_device()
    if inspect.isawaitable(device):
        device = await device
    if not isinstance(device, Device):
        raise AssertionError(f"check_device: the factory made {device!r}, which is not a Device")
    return device


async def _conform(make_device: DeviceFactory, name: str, check: Callable[[Device], Awaitable[None]]) -> bool:
    """Run one check on a fresh device; its failure names it. True when it passed."""
    try:
        await check(await _made(make_device))
    except AssertionError as exc:
        raise AssertionError(f"check_device [{name}]: {exc}") from exc
    except MobsterError as exc:
        raise AssertionError(f"check_device [{name}]: raised {type(exc).__name__}: {exc}") from exc
    return True


async def _check_evidence(device: Device, app: str) -> None:
    """An evidence read is a read of the same tree: same app, paths, roles and labels."""
    assert isinstance(device, EvidenceReads)
    await device.launch(app, LaunchOptions())
    fast = await device.read()
    evidence = await device.read_evidence()
    _check_screen(evidence)
    _expect(evidence.app == fast.app == app, f"the evidence read is of {evidence.app}, not {app}")
    mine = [(e.path, e.role, e.label) for e in evidence.elements]
    theirs = [(e.path, e.role, e.label) for e in fast.elements]
    _expect(mine == theirs, "the evidence read and the read of a still screen hold different elements")


async def _check_reports(device: Device, app: str) -> None:
    """Being told a check's name and verdict raises nothing and leaves the app as it was."""
    assert isinstance(device, CheckReports)
    await device.launch(app, LaunchOptions())
    before = await device.read()
    try:
        await device.check_started("check_device")
        await device.check_ended("check_device", Verdict.PASSED, "")
    except Exception as exc:
        raise AssertionError(f"check_started/check_ended raised {type(exc).__name__}: {exc}") from exc
    after = await device.read()
    _expect(after.app == before.app == app, f"after the reports {after.app} is in front, not {app}")
    _expect(after.signature == before.signature, "the reports changed the screen: they must not act on the app")


async def _check_target(device: Device, app: str) -> None:
    """A target check confirms a shown element of a still screen."""
    assert isinstance(device, TargetChecks)
    await device.launch(app, LaunchOptions())
    screen = await device.read()
    labelled = [e for e in screen.shown if e.label]
    _expect(bool(labelled), f"the first screen of {app} shows no labelled element to check")
    _expect(await device.check_target(labelled[0]) is True, f"a shown element ({labelled[0].label!r}) isn't confirmed")


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _check_screen(screen: Screen) -> None:
    _expect(isinstance(screen, Screen), f"read() returned {type(screen).__name__}, not a Screen")
    seen: set[str] = set()
    for e in screen.elements:
        _expect(bool(_PATH.fullmatch(e.path)), f"element path {e.path!r} is not a tree path like /0/3/1")
        _expect(e.path not in seen, f"two elements share the path {e.path}")
        seen.add(e.path)
        _expect(bool(e.role) and not e.role.startswith("XCUIElementType"), f"role {e.role!r} keeps its prefix")
        _expect(all(0.0 <= v <= 1.0 for v in e.frame), f"frame {e.frame} of {e.path} is not normalized")


async def _check_info(device: Device) -> None:
    info = await device.info()
    _expect(isinstance(info, DeviceInfo), "info() returns a DeviceInfo")
    _expect(bool(info.name), "the device has a name")
    kinds = ", ".join(k.value for k in DeviceKind)
    _expect(isinstance(info.kind, DeviceKind), f"kind is one of {kinds}, not {info.kind!r}")
    _expect(info.ios_major >= 1, "the OS version (iOS's, or Android's API level) has a major number")


async def _check_launch_and_read(device: Device, app: str) -> None:
    await device.launch(app, LaunchOptions())
    screen = await device.read()
    _check_screen(screen)
    _expect(screen.app == app, f"after launching {app}, {screen.app} is in front")
    _expect(len(screen.signature_pairs) > 0, "the app's first screen has labelled elements")


async def _check_reads_agree(device: Device, app: str) -> None:
    await device.launch(app, LaunchOptions())
    first = await device.read()
    second = await device.read()
    _expect(first.fingerprint == second.fingerprint, "two reads of a still screen agree")
    _expect(first.hash == second.hash, "two reads of a still screen have one hash")


async def _check_app_info(device: Device, app: str) -> None:
    info = await device.app_info(app)
    kind = (await device.info()).kind
    versions = not isinstance(device, VersionNames) or device.reads_version_names()
    _expect(isinstance(info, AppInfo) and info.bundle == app, "app_info() returns the app's AppInfo")
    if kind in (DeviceKind.SIMULATOR, DeviceKind.EMULATOR, DeviceKind.DEVICE) and not versions:
        _expect(bool(info.build), f"{kind.named} reads the app's build")
    elif kind in (DeviceKind.SIMULATOR, DeviceKind.EMULATOR, DeviceKind.DEVICE):
        _expect(bool(info.version) and bool(info.build), f"{kind.named} reads the app's version and build")


async def _check_unknown_app(device: Device) -> None:
    bundle = "com.example.not-installed-anywhere"
    for name, call in (
        ("launch", lambda: device.launch(bundle, LaunchOptions())),
        ("app_info", lambda: device.app_info(bundle)),
    ):
        try:
            await call()
        except DeviceError:
            continue
        raise AssertionError(f"{name} of an app that isn't installed raises DeviceError")


async def _check_home_and_back(device: Device, app: str) -> None:
    await device.launch(app, LaunchOptions())
    await device.act(Action(Op.HOME))
    home = await _read_until(device, lambda s: s.app in HOME_SCREENS)
    _expect(
        home.app in HOME_SCREENS, f"after HOME, {home.app} is in front, not a home screen ({SPRINGBOARD}, a launcher)"
    )
    await device.act(Action(Op.LAUNCH_APP, text=app))
    back = await _read_until(device, lambda s: s.app == app)
    _expect(back.app == app, f"after LAUNCH_APP, {back.app} is in front, not {app}")


async def _check_tap(device: Device, app: str, tap: tuple[str, str]) -> None:
    await device.launch(app, LaunchOptions())
    before = await device.read()
    found = before.find(*tap)
    _expect(len(found) == 1, f"{tap[0]} {tap[1]!r} is on the first screen once")
    await device.act(Action(Op.TAP, element=found[0]))
    after = await _read_until(device, lambda s: s.hash != before.hash)
    _expect(after.hash != before.hash, f"tapping {tap[1]!r} changes the screen")


async def _check_type(device: Device, app: str, tap: tuple[str, str] | None, field: tuple[str, str]) -> None:
    await device.launch(app, LaunchOptions())
    screen = await device.read()
    if tap is not None and not screen.find(*field):
        await device.act(Action(Op.TAP, element=screen.find(*tap)[0]))
        screen = await _read_until(device, lambda s: bool(s.find(*field)))
    found = screen.find(*field)
    _expect(len(found) == 1, f"{field[0]} {field[1]!r} is on the screen once")
    text = "ada@example.com"
    await device.act(Action(Op.TYPE, element=found[0], text=text))
    after = await _read_until(device, lambda s: any(text in e.value for e in s.find(*field)))
    values = [e.value for e in after.find(*field)]
    _expect(any(text in v for v in values), f"after typing, the field holds {values}, not {text!r}")


async def _check_back(device: Device, app: str, tap: tuple[str, str]) -> None:
    """Android's system back, after a tap, goes back to the screen before it."""
    await device.launch(app, LaunchOptions())
    before = await device.read()
    await device.act(Action(Op.TAP, element=before.find(*tap)[0]))
    await _read_until(device, lambda s: s.hash != before.hash)
    await device.act(Action(Op.BACK))
    back = await _read_until(device, lambda s: s.hash == before.hash)
    _expect(back.app == app, f"after BACK, {back.app} is in front, not {app}")
    _expect(back.hash == before.hash, f"BACK after tapping {tap[1]!r} doesn't go back to the screen before it")


async def _check_link(device: Device, app: str, link: str) -> None:
    await device.launch(app, LaunchOptions())
    before = await device.read()
    await device.act(Action(Op.OPEN_URL, text=link))
    after = await _read_until(device, lambda s: s.hash != before.hash)
    _expect(after.app == app, f"the link opens in {after.app}, not {app}")
    _expect(after.hash != before.hash, "opening the link changes the screen")


async def _read_until(device: Device, ok: Callable[[Screen], bool], reads: int = 40) -> Screen:
    """Read until ``ok`` holds, at most ``reads`` times (a device may take a moment to move)."""
    screen = await device.read()
    for _ in range(reads - 1):
        if ok(screen):
            return screen
        await asyncio.sleep(0.05)
        screen = await device.read()
    return screen


class MemoryPaths:
    """A path store in memory, as a database keeps one: bytes by name, each with a version (``v<n>``).

    It answers as the built-in stores do and is no kinder: ``FileNotFoundError`` for a name that
    isn't there, ``UnsafeFile`` past the size asked for, sorted names, a document name checked as
    the file stores check it, and the conditional write of the protocol (a create loses when a
    document is there, a replace when its version moved on). Every write makes a new version, so
    a tag never comes back (no ABA). ``copy()`` is what another machine that copied the store sees.
    """

    name = "memory"

    def __init__(self, *, shared: bool = True) -> None:
        self.shared = shared
        self.paths: dict[tuple[str, str], tuple[bytes, str]] = {}
        self.docs: dict[str, tuple[bytes, str]] = {}
        self._versions = 0

    def copy(self) -> MemoryPaths:
        """A store that starts with this one's documents and goes its own way."""
        other = MemoryPaths(shared=self.shared)
        other.paths, other.docs, other._versions = dict(self.paths), dict(self.docs), self._versions
        return other

    def _version(self) -> str:
        self._versions += 1
        return f"v{self._versions}"

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """Every ``(identity, env)`` kept (of ``identity`` only, when given), sorted."""
        return sorted(k for k in self.paths if identity is None or k[0] == identity)

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """One path and its version."""
        return _capped(self.paths, (identity, env), max_bytes, self.where(identity, env))

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """A conditional write of one path."""
        return self._swap(self.paths, (identity, env), bytes(data), expect)

    def remove(self, identity: str, env: str) -> None:
        """Forget one path."""
        self.paths.pop((identity, env), None)

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """Keep one path under ``<identity>-<env>.json<suffix>`` (no path's name, so never listed)."""
        data, _tag = self.paths.pop((identity, env))
        aside = f"{identity}-{env}.json{suffix}"
        self.docs[f"aside/{aside}"] = (data, self._version())
        return aside

    def where(self, identity: str, env: str) -> str:
        """``memory://paths/<identity>-<env>.json``."""
        return f"memory://paths/{identity}-{env}.json"

    def documents(self, prefix: str) -> list[str]:
        """The documents whose names start with ``prefix``, sorted (a copy set aside is none)."""
        return sorted(n for n in self.docs if n.startswith(prefix) and not n.startswith("aside/"))

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """One document and its version."""
        check_document_name(name)
        return _capped(self.docs, name, max_bytes, self.where_document(name))

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """A conditional write of one document."""
        check_document_name(name)
        return self._swap(self.docs, name, bytes(data), expect)

    def remove_document(self, name: str) -> None:
        """Forget one document."""
        check_document_name(name)
        self.docs.pop(name, None)

    def where_document(self, name: str) -> str:
        """``memory://<kind>/<key>``."""
        kind, key = check_document_name(name)
        return f"memory://{kind}/{key}"

    def _swap(self, kept: dict[Any, tuple[bytes, str]], key: Any, data: bytes, expect: str | None) -> bool:
        current = kept.get(key)
        if (None if current is None else current[1]) != expect:
            return False
        kept[key] = (data, self._version())
        return True


def _capped(kept: dict[Any, tuple[bytes, str]], key: object, max_bytes: int, where: str) -> Versioned:
    if key not in kept:
        raise FileNotFoundError(where)
    data, tag = kept[key]
    if len(data) > max_bytes:
        from pathlib import Path

        raise UnsafeFile(Path(where), f"it is larger than {max_bytes} bytes", problem=Problem.TOO_LARGE)
    return Versioned(data, tag)


_IDENTITY = "00000000000c0f0e"
_ENVS = ("0000000000e1", "0000000000e2")


def check_path_store(store: Any) -> None:
    """The conformance suite every path store must pass; raises ``AssertionError`` naming the rule broken.

    ``store`` must be empty (a fresh prefix, table or folder). It checks the protocol's members,
    reads that give the version tag, the conditional write of paths and documents (a second
    create loses, a stale replace loses, a replace of a removed document loses, a loss writes
    nothing), two writers racing on one version (one wins, the other reads the winner's),
    listing, removal, setting aside, the size cap and document names.
    """
    from ._store.pathstores import missing_members

    missing = missing_members(store)
    assert not missing, f"the store lacks {', '.join(missing)}"
    ident, (one, two) = _IDENTITY, _ENVS
    assert store.names() == [], "the store given to check_path_store must be empty"
    _raises(FileNotFoundError, lambda: store.read(ident, one, max_bytes=1024), "a path that isn't there")
    assert store.write(ident, one, b"first", expect=None) is True, "a create of a new path wins"
    first = store.read(ident, one, max_bytes=1024)
    assert isinstance(first, Versioned), f"read gives a Versioned, not {type(first).__name__}"
    assert (first.data, isinstance(first.tag, str) and first.tag != "") == (b"first", True), (
        "read gives bytes and a tag"
    )
    assert store.write(ident, one, b"second", expect=None) is False, "a second create loses"
    assert store.read(ident, one, max_bytes=1024).data == b"first", "a lost write writes nothing"
    # Two writers read the same version; the first replace wins, the second is stale and loses.
    assert store.write(ident, one, b"mine", expect=first.tag) is True, "a replace of the version read wins"
    assert store.write(ident, one, b"theirs", expect=first.tag) is False, "a stale replace loses"
    now = store.read(ident, one, max_bytes=1024)
    assert (now.data, now.tag != first.tag) == (b"mine", True), "the loser reads the winner's, a new version"
    assert store.write(ident, one, b"mine again", expect="no-such-version") is False, "a made-up version loses"
    _raises(UnsafeFile, lambda: store.read(ident, one, max_bytes=2), "a path past the size asked for")
    assert store.write(ident, two, b"other env", expect=None) is True
    assert store.names() == [(ident, one), (ident, two)], f"names are sorted pairs, not {store.names()}"
    assert store.names(ident) == [(ident, one), (ident, two)]
    assert store.names("ffffffffffffffff") == []
    assert isinstance(store.where(ident, one), str)
    store.remove(ident, two)
    store.remove(ident, two)  # removing what is gone is nothing
    assert store.names() == [(ident, one)], "a removed path is not listed"
    assert store.write(ident, two, b"again", expect=now.tag) is False, "a replace of a removed path loses"
    store.set_aside(ident, one, ".corrupt")
    assert store.names() == [], "a path set aside is not listed"
    assert store.write(ident, one, b"new", expect=None) is True, "a create after setting aside wins"
    _check_documents(store)


def _check_documents(store: Any) -> None:
    name, other = f"heals/{_IDENTITY}-{_ENVS[0]}-000000000000.json", f"leases/{_IDENTITY}-{_ENVS[0]}.json"
    assert store.documents("heals/") == [], "the store's documents start empty"
    _raises(FileNotFoundError, lambda: store.read_document(name, max_bytes=1024), "a document that isn't there")
    assert store.write_document(name, b"state", expect=None) is True, "a create of a new document wins"
    got = store.read_document(name, max_bytes=1024)
    assert isinstance(got, Versioned), "read_document gives a Versioned"
    assert got.data == b"state", "read_document gives the bytes written"
    assert store.write_document(name, b"again", expect=None) is False, "a second create of a document loses"
    assert store.write_document(name, b"mine", expect=got.tag) is True, "a replace of the version read wins"
    assert store.write_document(name, b"theirs", expect=got.tag) is False, "a stale replace of a document loses"
    assert store.read_document(name, max_bytes=1024).data == b"mine", "the loser reads the winner's"
    assert store.write_document(other, b"lease", expect=None) is True
    assert store.documents("heals/") == [name], "documents lists by prefix"
    assert store.documents("leases/") == [other]
    assert store.documents(f"heals/{_IDENTITY}-") == [name]
    assert isinstance(store.where_document(name), str)
    for bad in ("heals/../x", "nokind/x.json", "heals/UPPER", "heals/"):

        def read_bad(bad: str = bad) -> object:
            return store.read_document(bad, max_bytes=10)

        _raises(ValueError, read_bad, f"the name {bad!r}")
    store.remove_document(name)
    store.remove_document(name)
    assert store.documents("heals/") == [], "a removed document is not listed"
    assert store.write_document(name, b"x", expect=got.tag) is False, "a replace of a removed document loses"


def _raises(kind: type[BaseException], call: Callable[[], object], what: str) -> None:
    try:
        call()
    except kind:
        return
    except Exception as exc:
        raise AssertionError(f"{what}: expected {kind.__name__}, got {type(exc).__name__}: {exc}") from exc
    raise AssertionError(f"{what}: expected {kind.__name__}, nothing was raised")
