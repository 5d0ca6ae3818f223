"""What one pytest process holds for Mobster: the clock, its event loop, the devices, the models.

Rule 1: one :class:`MobsterSession` per process (the controller, or each xdist worker), made when
        the first check item or mobster fixture runs and closed when pytest ends: devices are
        released (locks, connections, Appium sessions) and the loop is closed.
Rule 2: the device a test runs on is its *slot*: the worker's number under xdist (worker ``gw<k>``
        gets device k of the pool), 0 without xdist, or the device an item is pinned to under
        ``--mobster-each-device``. A slot's device is opened the first time it is needed and kept.
        The harness's door opens it (``Harness.one_device(slot)``): a pool of scripted phones
        gives a worker beyond the pool a phone of its own, made from script ``k mod N`` (as
        ``mobster test --parallel``), and an Appium pool another session of URL ``k mod N``; a
        pool of simulators, iPhones or WDAs can't, and says so (the plugin refuses ``-n`` wider
        than such a pool when pytest starts).
        A device that can't be opened is tried again by the next test (a rerun, a busy device
        freed), never cached as broken.
Rule 3: every run goes through the public API: ``run_check`` on the slot's device itself (never a
        wrapper: every ability it has reaches the runner, a cloud's ``CheckReports`` included)
        with the session's clock, a model made for the run (the harness's chooser: a new scripted
        model per run, as ``mobster test``; one adapter per process for a vendor's model) and
        the :class:`~mobster_core.RunOptions` the harness's door gives for the check's project
        (``Harness.run_options``: ``mobster test``'s reporter, ``report.html``, whose "Run it
        again" line names the device as ``mobster test`` takes it). When a report shows a frame
        per step (``_settings``' Rule 5), the run keeps them all (``--frames all``); the frames are
        the run's own, named by its steps.
Rule 4: the real clock runs every coroutine on one event loop for the whole process, so a device
        may keep loop-bound state between checks; the simulated clock runs each on its
        ``FakeClock`` (time goes on from run to run). A run stopped by Ctrl+C writes its result
        (class ``stopped``) and ends the pytest session.
Rule 5: the model is the harness's choice (``Harness.models``, as ``mobster test``'s): the one
        named, else ``claude-sonnet-5-5`` with ``ANTHROPIC_API_KEY`` set, else ``gpt-5.5`` with
        ``OPENAI_API_KEY``, else none. Under ``--mobster-no-heal`` (without
        ``--mobster-fresh``) there is no model and no key is read; on the simulated clock the
        default is none. A model that can't be made (a bad name, no key) is the run's
        :class:`CouldntOpen`, class ``model``, naming ``--mobster-model``.
Rule 6: the session is made the first time a check or a fixture needs it (:func:`session_of`), and
        kept in the config's stash until pytest ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import attrs
import pytest

from mobster_core import (
    Check,
    CheckResult,
    Clock,
    Device,
    FailureClass,
    Model,
    ModelError,
    RunOptions,
    RunStopped,
    SystemClock,
    run_check,
)
from mobster_core.testing import FakeClock
from mobster_harness import CouldntOpen, Harness, OpenDevice, PoolError

from ._settings import ClockKind, PluginSettings
from ._state import SESSION, Worker, settings_of, worker_of

__all__ = ["MobsterSession", "session_of"]

T = TypeVar("T")

log = logging.getLogger("mobster.pytest")


class _Runner:
    """Rule 4: runs coroutines on the session's clock."""

    def __init__(self, kind: ClockKind) -> None:
        self.clock: Clock
        self._fake: FakeClock | None = None
        self._loop: asyncio.Runner | None = None
        if kind is ClockKind.SIMULATED:
            self._fake = FakeClock()
            self.clock = self._fake
        else:
            self.clock = SystemClock()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._fake is not None:
            return self._fake.run(coro)
        if self._loop is None:
            self._loop = asyncio.Runner()
        return self._loop.run(coro)

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.close()


class MobsterSession:
    """Rule 1: the clock, the devices and the models of one pytest process."""

    def __init__(self, settings: PluginSettings, worker: Worker | None, root: Path) -> None:
        self.settings = settings
        self.worker = worker
        self._runner = _Runner(settings.clock)
        self._open: dict[int, OpenDevice] = {}
        #: The door of pytest's root folder: the devices and the models (a run's options are its project's).
        self._door = Harness(settings.harness, root, self._runner.clock)
        real = settings.clock is ClockKind.REAL
        self._models = self._door.models(prepare=False, by_key=real)

    @property
    def clock(self) -> Clock:
        """The clock every run waits on."""
        return self._runner.clock

    def drive(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` to its end on the session's clock and loop (Rule 4)."""
        return self._runner.run(coro)

    # -- devices (Rule 2) ------------------------------------------------------------------------

    def slot(self, pinned: int | None) -> int:
        """The slot a test runs on: its pinned device, else this worker's (Rule 2)."""
        if pinned is not None:
            return pinned
        return 0 if self.worker is None else self.worker.index

    def device(self, slot: int) -> OpenDevice:
        """The device of ``slot``, opened the first time; :class:`CouldntOpen` when it can't be."""
        opened = self._open.get(slot)
        if opened is not None:
            return opened
        devices = self.settings.devices
        if not devices:
            raise CouldntOpen(
                FailureClass.USAGE,
                "no device for Mobster: pass --mobster-scripted APP.yaml, --mobster-sim NAME, --mobster-device "
                "NAME, --mobster-wda URL or --mobster-appium URL (or set mobster_scripted, … in the ini); "
                'deselect the checks with -m "not mobster"',
            )
        if slot >= len(devices) and any(d.exclusive for d in devices):
            who = f"worker {self.worker.name}" if self.worker else "this run"
            raise CouldntOpen(
                FailureClass.USAGE,
                f"{who} has no device: the pool has {len(devices)} ({self.settings.describe_pool()}); "
                f"run as many workers as devices (-n {len(devices)}, or -n auto)",
            )
        try:
            opened = self._door.one_device(slot)
        except PoolError as exc:  # the pool was checked when pytest started: a change of $MOBSTER_WDA_PORT since
            raise CouldntOpen(FailureClass.USAGE, str(exc)) from None
        self._open[slot] = opened
        log.info("opened %s for slot %d", opened.spec.option, slot)
        return opened

    # -- models (Rule 5) -------------------------------------------------------------------------

    def model(self) -> Model | None:
        """A model for one run (a new one for the scripted model); :class:`CouldntOpen` without a key."""
        try:
            return self._models()
        except ModelError as exc:
            raise CouldntOpen(FailureClass.MODEL, f"--mobster-model {self._models.name}: {exc}") from exc

    # -- runs (Rule 3) ---------------------------------------------------------------------------

    def options(self, root: Path) -> RunOptions:
        """The run options the harness's door gives for a check of the project at ``root`` (Rule 3)."""
        return Harness(self.settings.harness, root, self.clock).run_options()

    def run(self, check: Check, *, device: Device, model: Model | None, options: RunOptions) -> CheckResult:
        """Run ``check`` once (Rule 3); Ctrl+C writes the run's result and ends the session."""

        def on_sent(what: str) -> None:
            log.info("  · %s", what)

        options = attrs.evolve(options, on_sent=_chain(options.on_sent, on_sent))
        try:
            return self.drive(run_check(check, device, self.clock, model=model, options=options))
        except RunStopped as exc:
            raise KeyboardInterrupt(f"stopped: {exc.result.outcome.message}") from None

    def close(self) -> None:
        """Rule 1: release every device, then close the loop."""
        opened, self._open = self._open, {}
        for device in opened.values():
            try:
                device.release()
            except Exception:  # releasing one device must not keep the others held
                log.exception("releasing %s failed", device.spec.option)
        self._runner.close()


def _chain(first: Callable[[str], None] | None, then: Callable[[str], None]) -> Callable[[str], None]:
    if first is None:
        return then

    def both(what: str) -> None:
        first(what)
        then(what)

    return both


def session_of(config: pytest.Config) -> MobsterSession:
    """Rule 6: this process's Mobster session, made the first time a check or a fixture needs it."""
    found = config.stash.get(SESSION, None)
    if isinstance(found, MobsterSession):
        return found
    session = MobsterSession(settings_of(config), worker_of(config), Path(config.rootpath))
    config.stash[SESSION] = session
    return session
