"""A fake Android device's UiAutomator2 server on loopback: a scripted Android phone over the server's protocol.

What it answers and why is in ``mobster_drivers/testing/_uia2/`` (``routes``, ``render``,
``state``, ``wire``), each checked against appium/appium-uiautomator2-server at v10.6.2
(``5412fdb3``, its ``server/AppiumServlet.java`` and ``handler/*.java``; android-facts.md §1-2).
The fake ``adb`` (``mobster_drivers.testing.adb``) is how a client reaches it, as on a device:
``adb forward tcp:N tcp:6790`` and ``am instrument``.

::

    from mobster_drivers.devices.scripted import sample_path
    from mobster_drivers.testing.adb import FakeAdb
    from mobster_drivers.testing.uiautomator2 import FakeUiAutomator2

    with FakeUiAutomator2(sample_path("yourapp-android")) as server, FakeAdb([server]) as adb:
        ...  # ANDROID_HOME=adb.android_home: its platform-tools/adb reaches the server

Rule 1 (the phone): a :class:`~mobster_drivers.devices.scripted.ScriptedPhone` of an app script with
        ``platform: android``, on the system clock, in its own event loop in a daemon thread; its
        latency profile is real time here (``android``: the cited figures of
        docs/scripted-phone.md). Handler threads hand it coroutines.
Rule 2 (concurrency): the server is Netty: one boss thread and a pool of workers, no lock across
        requests (``http/HttpServer.java:46-62``), so two connections are answered at once; a
        client that sends one command at a time (Appium's driver, Mobster's) sees one at a time.
        The fake's HTTP layer answers each connection at once (``one_at_a_time=False``); the phone
        behind it serves its reads, screenshots and actions one at a time (``ScriptedPhone`` Rule
        12), which is the one part not checked against a device: whether UiAutomation serialises
        a source dump and an input event on a phone.
Rule 3 (HTTP): HTTP/1.1 with keep-alive, an idle connection closed after 60 s
        (``KeepAliveStateHandler.MAX_IDLE_TIME_SEC``), ``TCP_NODELAY`` on; a request body over
        64 KiB is refused with 413, as Netty's ``HttpObjectAggregator(65536)`` refuses it [inferred].
Rule 4 (the server's life): after the reply to ``DELETE /session``, the server stops itself
        (15 ms later, ``DeleteSession.java:42-62``): the device's ``am instrument`` returns and the
        forwarded port answers no more (``_uia2/state`` Rule 2).
Rule 5: every request is recorded in :attr:`FakeUiAutomator2.requests` before it is handled.
Rule 6 (a fault): :meth:`FakeUiAutomator2.stall_next_reply` holds the next successful reply (the
        action done, its answer late: a device busy waiting for idle).

Not checked (no device here): the latencies of routes other than the source, the screenshot and a
tap (no public measurement was found); the permission dialog's and the keyboard's trees (no
licensed capture: built from AOSP's layouts, ``_uia2/render`` Rule 4).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar
from urllib.parse import urlsplit

import attrs

from mobster_core import SystemClock
from mobster_drivers._loop import LoopThread
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone

from ._server import DEAD, Incoming, LoopbackServer, Reply, json_body, session_route
from ._uia2.routes import Call, handle
from ._uia2.state import AndroidState
from ._uia2.wire import HEADERS, JSON, Uia2Failure, envelope, failure_body

__all__ = ["FakeUiAutomator2", "Uia2Request"]

T = TypeVar("T")
_PHONE_TIMEOUT = 60.0
_MAX_BODY = 65536
_STOP_AFTER_DELETE = 0.015


@attrs.frozen
class Uia2Request:
    """One request the fake received (Rule 5): ``route`` is the path without ``/session/{id}`` and the query."""

    method: str
    path: str
    route: str
    session: str | None
    body: Any


class FakeUiAutomator2(LoopbackServer[Uia2Request]):
    """A device's UiAutomator2 server on 127.0.0.1 (the module rules), reached through :class:`~.adb.FakeAdb`.

    ``app`` is an app script with ``platform: android`` (a path or a loaded ``AppScript``);
    ``serial`` names the device to adb (``emulator-5554``); ``density`` is its pixels a dp.
    """

    http_version = "HTTP/1.1"
    idle_seconds = 60.0
    no_delay = True

    def __init__(
        self,
        app: str | os.PathLike[str] | AppScript,
        *,
        serial: str = "emulator-5554",
        density: float = 3.0,
        lifetime: float | None = 600.0,
    ) -> None:
        super().__init__(port=0, lifetime=lifetime, one_at_a_time=False)
        script = app if isinstance(app, AppScript) else AppScript.from_file(app)
        if script.platform.value != "android":
            raise ValueError(
                f"{script.source}: the fake UiAutomator2 server runs an Android app script (platform: android)"
            )
        self._script = script
        self._serial = serial
        self._density = density
        self._loop: LoopThread | None = None
        self._state: AndroidState | None = None
        self._stall = 0.0

    def _on_start(self) -> None:
        self._loop = LoopThread("fake-uia2-phone")

        async def make() -> AndroidState:
            phone = ScriptedPhone(self._script, clock=SystemClock())
            return AndroidState(self._script, phone, serial=self._serial, density=self._density)

        self._state = self._loop.call(make(), _PHONE_TIMEOUT)

    def _on_stop(self) -> None:
        if self._loop is not None:
            self._loop.stop()

    # -- what tests and the fake adb read ------------------------------------------------------

    @property
    def serial(self) -> str:
        """The device's serial, as adb names it."""
        return self._serial

    @property
    def script(self) -> AppScript:
        """The app script the phone runs (known before it starts)."""
        return self._script

    @property
    def state(self) -> AndroidState:
        """The device's state (touch it only on the phone's loop: :meth:`on_loop`)."""
        if self._state is None:
            raise RuntimeError("FakeUiAutomator2 is not started")
        return self._state

    @property
    def phone(self) -> ScriptedPhone:
        """The scripted phone behind the server."""
        return self.state.phone

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the phone's loop and return its result."""
        if self._loop is None:
            coro.close()
            raise RuntimeError("FakeUiAutomator2 is not started")
        return self._loop.call(coro, _PHONE_TIMEOUT)

    def on_loop(self, change: Any) -> Any:
        """Call ``change(state)`` on the phone's loop and return what it returns."""

        async def call() -> Any:
            return change(self.state)

        return self.run(call())

    def _stop_after_delete(self) -> None:
        with contextlib.suppress(RuntimeError):  # the fake itself stopped first: nothing left to stop
            self.on_loop(_stop_if_still_stopping)

    def stall_next_reply(self, seconds: float) -> None:
        """Handle the next request that succeeds, then hold its reply ``seconds`` before sending it (Rule 6)."""
        with self._lock:
            self._stall = seconds

    # -- serving -------------------------------------------------------------------------------

    def _answer(self, incoming: Incoming) -> Reply:
        path = urlsplit(incoming.path).path
        if path.startswith("/wd/hub"):
            path = path[len("/wd/hub") :] or "/"
        session, route = session_route(path)
        body, bad = json_body(incoming.body)
        if self._admit(Uia2Request(incoming.method, incoming.path, route, session, body), lambda: True) is None:
            return DEAD
        state = self.state
        if len(incoming.body) > _MAX_BODY:  # Rule 3
            return Reply(413, b"", "text/plain", headers=(("Connection", "close"),))
        if bad:
            unreadable = Uia2Failure("invalid argument", "the request body is not valid JSON")
            return Reply(unreadable.status, failure_body(unreadable, session), JSON, headers=HEADERS)
        segments = tuple(s for s in path.strip("/").split("/") if s)
        try:
            value = self.run(handle(state, Call(incoming.method, segments, body)))
        except Uia2Failure as failure:
            return Reply(failure.status, failure_body(failure, state.session), JSON, headers=HEADERS)
        except (RuntimeError, TimeoutError) as exc:
            stuck = Uia2Failure("unknown error", f"the fake phone didn't answer ({type(exc).__name__})")
            return Reply(500, failure_body(stuck, None), JSON, headers=HEADERS)
        with self._lock:
            stall, self._stall = self._stall, 0.0
        reply = Reply(200, envelope(value, state.session), JSON, headers=HEADERS, hold=stall)
        if state.stopping:  # Rule 4: the server stops itself once it has answered
            timer = threading.Timer(_STOP_AFTER_DELETE, self._stop_after_delete)
            timer.daemon = True
            timer.start()
        return reply


def _stop_if_still_stopping(state: AndroidState) -> None:
    """Rule 4's stop, unless the server stopped already (an ``am force-stop``): a server started since lives on."""
    if state.stopping:
        state.stop_server()
