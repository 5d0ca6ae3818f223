"""The loopback server under every fake: bind, serve, stop by itself, die on cue.

Each fake (``wda``, ``appium``, ``usbmuxd``, ``llm``) is a :class:`LoopbackServer` and writes only
what its protocol says: an HTTP fake answers one :class:`Incoming` request with a :class:`Reply`
(``_answer``), a stream fake converses on a connected socket (``_converse``).

Rule 1 (where): a fake binds 127.0.0.1, on a free port unless it is given one, or a unix socket
        (:attr:`LoopbackServer.unix_name`) in a private temporary folder (0700) that goes at stop,
        or at the ``unix_path`` it is given (the socket file goes at stop, the folder is the
        caller's). It serves each connection in a daemon thread.
Rule 2 (how long): a fake starts once, and stops by itself after ``lifetime`` seconds (None: only
        at :meth:`LoopbackServer.stop`). Stopping is safe twice, from the lifetime timer and from a
        handler; it closes the listening socket first, then every connection still open, so a
        client waiting on a reply sees its connection close. A fake is a context manager.
Rule 3 (records): every request is recorded in :attr:`LoopbackServer.requests` before it is
        handled (``_admit``); :meth:`LoopbackServer.wait_for` waits for one a test names (on
        the recording itself, never a poll).
Rule 4 (death): :meth:`LoopbackServer.die_when` names a request at which the fake dies: that
        request is recorded, never handled and never answered; the fake stops (Rule 2) before
        its connection closes, so whatever a client sends next is refused. A death at a moment
        the test chooses, never a race.
Rule 5 (one at a time): with ``one_at_a_time``, an HTTP request is read, then handled, held and
        answered while no other request is: the others wait their turn, in no promised order
        (connections are still accepted, as a listening socket's backlog takes them), as
        WebDriverAgent serves its requests on its main thread. A request whose client left while
        it waited is still handled in its turn (WDA runs a command it has read whoever waits for
        it); once the fake stops, a request still waiting is never handled and its connection
        closes without a reply. Off by default here; the fake WDA turns it on (``wda`` Rule 8).
Rule 6 (HTTP): a fake answers in :attr:`LoopbackServer.http_version`: HTTP/1.0, one request a
        connection, by default; with HTTP/1.1 a connection is kept alive until it has been idle
        :attr:`LoopbackServer.idle_seconds`. A reply may be held (``hold`` seconds, cut short by
        stop: then the connection closes without a reply) and may be dropped (the connection
        closes without a reply). With :attr:`LoopbackServer.watch_holds`, a held reply watches its
        socket, and a client that closes it first is gone (``_gone``), as is one whose reply
        can't be written.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import socket
import socketserver
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Generic, Literal, Self, TypeVar

import attrs

from mobster_core import MobsterError

__all__ = ["DEAD", "Incoming", "LoopbackServer", "Reply", "json_body", "serve_from_shell", "session_route"]

R = TypeVar("R")
T = TypeVar("T")
F = TypeVar("F", bound="LoopbackServer[Any]")

#: How often a watched hold looks at its socket, in seconds (Rule 6).
_POLL = 0.02
_SESSION_PATH = re.compile(r"^/session/([^/]+)(/.*)?$")


@attrs.frozen
class Incoming:
    """One HTTP request as it arrived: ``path`` as sent (with the query), header names lower-cased."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes = attrs.field(repr=False)


@attrs.frozen
class Reply:
    """What an HTTP fake sends back (Rule 6): ``hold`` is in seconds; ``drop`` sends nothing."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    hold: float = 0.0
    drop: bool = False


#: The reply of a request the fake died at, or that came after (Rule 4): nothing at all.
DEAD = Reply(503, b"", "text/plain", drop=True)


def session_route(path: str) -> tuple[str | None, str]:
    """A WebDriver path's session id (None without one) and its route without ``/session/{id}``.

    ``/session/abc/wda/tap/`` is ``("abc", "/wda/tap")``; ``/status`` is ``(None, "/status")``.
    """
    match = _SESSION_PATH.match(path)
    session = match.group(1) if match else None
    route = (match.group(2) or "/") if match else path
    if route != "/" and route.endswith("/"):
        route = route.rstrip("/")
    return session, route


def json_body(raw: bytes) -> tuple[Any, bool]:
    """A request body parsed as JSON, and whether it was sent but isn't JSON: ``(None, True)``."""
    if not raw:
        return None, False
    try:
        return json.loads(raw), False
    except (ValueError, UnicodeDecodeError):
        return None, True


@attrs.frozen
class _Wiring:
    """What the server and its handlers call back: the fake's own hooks, bound (no private reach)."""

    answer: Callable[[Incoming], Reply]
    converse: Callable[[socket.socket], None]
    queued: Callable[[Incoming], None]
    gone: Callable[[], None]
    tracked: Callable[[socket.socket], contextlib.AbstractContextManager[None]]
    turn: Callable[[], contextlib.AbstractContextManager[None]]
    stopping: threading.Event
    http_version: str
    methods: frozenset[str]
    idle_seconds: float | None
    no_delay: bool
    watch_holds: bool
    one_at_a_time: bool


class _Quiet(socketserver.BaseServer):
    """A server that tracks its connections (Rule 2) and prints no traceback for a client that left."""

    wiring: _Wiring

    def finish_request(self, request: Any, client_address: Any) -> None:
        with self.wiring.tracked(request):
            super().finish_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: a client that went away (a timeout, a cancelled call) is not a traceback."""


class _TcpServer(_Quiet, ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, wiring: _Wiring, port: int, handler: type[socketserver.BaseRequestHandler]) -> None:
        self.wiring = wiring
        super().__init__(("127.0.0.1", port), handler)


class _UnixServer(_Quiet, socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, wiring: _Wiring, path: str, handler: type[socketserver.BaseRequestHandler]) -> None:
        self.wiring = wiring
        super().__init__(path, handler)


class _StreamHandler(socketserver.BaseRequestHandler):
    server: _UnixServer | _TcpServer

    def handle(self) -> None:
        self.server.wiring.converse(self.request)


class _HttpHandler(BaseHTTPRequestHandler):
    server: _TcpServer

    def setup(self) -> None:
        wiring = self.server.wiring
        self.protocol_version = wiring.http_version
        super().setup()
        if wiring.idle_seconds is not None:
            self.connection.settimeout(wiring.idle_seconds)
        if wiring.no_delay:
            # Node's HTTP server sets TCP_NODELAY (its default since Node 18): without it the body,
            # written after the headers, waits for the client's delayed ACK (40 ms on Linux).
            with contextlib.suppress(OSError):
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Log nothing."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _serve(self) -> None:
        wiring = self.server.wiring
        if self.command not in wiring.methods:  # as the stdlib answers a method it has no do_ for
            self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"Unsupported method ({self.command!r})")
            return
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        incoming = Incoming(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
        if wiring.one_at_a_time:
            wiring.queued(incoming)
        with wiring.turn():
            if wiring.one_at_a_time and wiring.stopping.is_set():
                self.close_connection = True  # its turn came after the stop: never handled (Rule 5)
                return
            self._send(wiring.answer(incoming))

    def _send(self, reply: Reply) -> None:
        if reply.hold > 0 and not self._held(reply.hold):
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)
            self.wfile.flush()
        except OSError:
            self.server.wiring.gone()
            self.close_connection = True

    def _held(self, seconds: float) -> bool:
        """Hold the reply ``seconds``: True when it may be sent, False when the fake stopped or the client left."""
        wiring = self.server.wiring
        if not wiring.watch_holds:
            return not wiring.stopping.wait(seconds)
        outcome = self._watch(seconds, wiring.stopping)
        if outcome == "gone":
            wiring.gone()
        return outcome == "waited"

    def _watch(self, seconds: float, stopping: threading.Event) -> Literal["waited", "gone", "stopped"]:
        """Wait ``seconds`` watching the socket, unless the client closes it or the fake stops."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "waited"
            if stopping.is_set():
                return "stopped"
            readable, _, _ = select.select([self.connection], [], [], min(left, _POLL))
            if not readable:
                continue
            try:
                peeked = self.connection.recv(1, socket.MSG_PEEK)
            except OSError:
                return "gone"
            if not peeked:
                return "gone"
            # Bytes of a pipelined request, not a close: keep waiting without spinning.
            stopping.wait(min(left, _POLL))


class LoopbackServer(Generic[R]):
    """One fake server's life on loopback (the module rules); ``R`` is what :attr:`requests` records.

    A subclass answers HTTP (``_answer``) or converses on a stream (``_converse``, with
    :attr:`handler` ``"stream"``), and may add to starting and stopping (``_on_start``,
    ``_on_stop``). ``port`` 0 picks a free port; ``lifetime`` is in seconds (None: until
    :meth:`stop`); ``one_at_a_time`` is Rule 5; ``unix_path`` is where a unix-socket fake binds
    (Rule 1).
    """

    #: ``"http"`` (``_answer``) or ``"stream"`` (``_converse``).
    handler: ClassVar[Literal["http", "stream"]] = "http"
    #: A unix socket's file name in a private folder (Rule 1); None binds 127.0.0.1.
    unix_name: ClassVar[str | None] = None
    #: The HTTP version the fake answers in (Rule 6).
    http_version: ClassVar[str] = "HTTP/1.0"
    #: The HTTP methods the fake answers; another gets 501, as from a server without it.
    http_methods: ClassVar[frozenset[str]] = frozenset({"GET", "POST", "DELETE"})
    #: How long an idle kept-alive connection stays open, in seconds (HTTP/1.1 only; None: forever).
    idle_seconds: ClassVar[float | None] = None
    #: Whether the fake sets TCP_NODELAY on its connections.
    no_delay: ClassVar[bool] = False
    #: Whether a held reply watches its socket for a client that leaves (Rule 6).
    watch_holds: ClassVar[bool] = False

    def __init__(
        self,
        *,
        port: int = 0,
        lifetime: float | None = 600.0,
        one_at_a_time: bool = False,
        unix_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self._port = port
        self._unix_path = None if unix_path is None else Path(unix_path)
        self._lifetime = lifetime
        self._one_at_a_time = one_at_a_time
        self._lock = threading.Lock()
        self._recorded = threading.Condition(self._lock)  # a request was recorded (Rule 3)
        self._turn_lock = threading.Lock()
        self._stopping = threading.Event()
        self._stopped_all = threading.Event()
        self._requests: list[R] = []
        self._connections: set[socket.socket] = set()
        self._die_when: Callable[[R], bool] | None = None
        self._dead = False
        self._folder: str | None = None
        self._server: _TcpServer | _UnixServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._started = False
        self._stopped = False

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind, and serve in daemon threads (Rule 1); once (Rule 2)."""
        name = type(self).__name__
        with self._lock:
            if self._started or self._stopped:
                raise RuntimeError(f"{name} can be started once")
            self._started = True
            self._on_start()
            self._server = self._bind()
            self._thread = threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name=f"{name}-server", daemon=True
            )
            self._thread.start()
            if self._lifetime is not None:
                self._timer = threading.Timer(self._lifetime, self.stop)
                self._timer.daemon = True
                self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving: the listening socket, then every open connection (Rule 2; safe to call twice)."""
        with self._lock:
            if self._stopped or not self._started:
                self._stopped = True
                return
            self._stopped = True
            server, thread, timer, folder = self._server, self._thread, self._timer, self._folder
            connections = list(self._connections)
        self._stopping.set()
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        if thread is not None:
            thread.join(timeout=5)
        self._on_stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        if self._unix_path is not None:
            self._unix_path.unlink(missing_ok=True)
        self._stopped_all.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the fake has stopped, all of it (True), or ``timeout`` seconds pass (False)."""
        return self._stopped_all.wait(timeout)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the fake listens on."""
        server = self._server
        if server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        if not isinstance(server, _TcpServer):
            raise RuntimeError(f"{type(self).__name__} listens on a unix socket: it has no port")
        return int(server.server_address[1])

    @property
    def address(self) -> str:
        """Where the fake listens: its unix socket's path, else ``127.0.0.1:<port>``."""
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        if self._unix_path is not None and self.unix_name is not None:
            return str(self._unix_path)
        if self._folder is not None and self.unix_name is not None:
            return str(Path(self._folder) / self.unix_name)
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The base URL to give a client: ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[R]:
        """The requests received so far, oldest first (a copy; Rule 3)."""
        with self._lock:
            return list(self._requests)

    def wait_for(self, arrived: Callable[[R], bool], timeout: float) -> bool:
        """Wait until a recorded request makes ``arrived`` true (True), at most ``timeout`` seconds (False).

        ``arrived`` runs under the fake's lock: it must not read the fake (``requests``) itself.
        """
        with self._recorded:
            return self._recorded.wait_for(lambda: any(arrived(r) for r in self._requests), timeout)

    def die_when(self, moment: Callable[[R], bool]) -> None:
        """Die when a request for which ``moment`` is true arrives (Rule 4).

        ``moment`` sees each request as it is recorded, in order (it may count them). The request
        that matches is recorded, never handled and never answered; the fake has stopped
        listening by the time its connection closes, so whatever the client sends next is refused.
        """
        with self._lock:
            self._die_when = moment

    # -- for the fakes -------------------------------------------------------------------------

    def _admit(self, request: R, claim: Callable[[], T]) -> T | None:
        """Record ``request`` (Rule 3) and ``claim()`` what the fake keeps for it, under the fake's lock.

        None when the fake is dead or dies at this request (Rule 4): the caller answers
        :data:`DEAD` (or closes the connection).
        """
        with self._lock:
            if self._dead:
                return None
            self._requests.append(request)
            self._recorded.notify_all()
            self._dead = self._die_when is not None and self._die_when(request)
            if not self._dead:
                return claim()
        self.stop()  # the listening socket is closed before this request's connection is
        return None

    def _answer(self, incoming: Incoming) -> Reply:
        """An HTTP fake's answer to one request (Rule 6)."""
        raise NotImplementedError

    def _converse(self, connection: socket.socket) -> None:
        """A stream fake's conversation on one connection."""
        raise NotImplementedError

    def _queued(self, incoming: Incoming) -> None:
        """A request waits for its turn (Rule 5); nothing by default."""

    def _gone(self) -> None:
        """A client left before its reply was written (Rule 6); nothing by default."""

    def _on_start(self) -> None:
        """What the fake starts before it binds (under its lock); nothing by default."""

    def _on_stop(self) -> None:
        """What the fake stops after it stopped serving; nothing by default."""

    # -- serving -----------------------------------------------------------------------------

    def _bind(self) -> _TcpServer | _UnixServer:
        handler: type[socketserver.BaseRequestHandler] = _HttpHandler if self.handler == "http" else _StreamHandler
        wiring = _Wiring(
            answer=self._answer,
            converse=self._converse,
            queued=self._queued,
            gone=self._gone,
            tracked=self._tracked,
            turn=self._turn,
            stopping=self._stopping,
            http_version=self.http_version,
            methods=self.http_methods,
            idle_seconds=self.idle_seconds,
            no_delay=self.no_delay,
            watch_holds=self.watch_holds,
            one_at_a_time=self._one_at_a_time,
        )
        if self.unix_name is None:
            return _TcpServer(wiring, self._port, handler)
        if self._unix_path is not None:
            return _UnixServer(wiring, str(self._unix_path), handler)
        self._folder = tempfile.mkdtemp(prefix="mobster-fake-")
        return _UnixServer(wiring, str(Path(self._folder) / self.unix_name), handler)

    @contextlib.contextmanager
    def _tracked(self, connection: socket.socket) -> Iterator[None]:
        with self._lock:
            self._connections.add(connection)
        try:
            yield
        finally:
            with self._lock:
                self._connections.discard(connection)

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        if not self._one_at_a_time:
            yield
            return
        with self._turn_lock:
            yield


def serve_from_shell(make: Callable[[], F], *, name: str, serving: Callable[[F], str]) -> int:
    """``python -m``: start the fake ``make`` builds, print its URL first, serve until Ctrl-C or its lifetime.

    A fake that can't be made or bound says why on stderr and returns 2 (``name`` says which fake);
    ``serving`` says what it serves, on stderr.
    """
    try:
        fake = make()
        fake.start()
    except (OSError, ValueError, MobsterError) as exc:
        print(f"fake {name}: {exc}", file=sys.stderr)  # noqa: T201 - a command-line entry
        return 2
    print(fake.url, flush=True)  # noqa: T201 - the first line is the contract
    print(f"serving {serving(fake)}; Ctrl-C stops", file=sys.stderr, flush=True)  # noqa: T201
    try:
        fake.wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0
