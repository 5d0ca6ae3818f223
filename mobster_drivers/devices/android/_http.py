"""The UiAutomator2 server's HTTP, through the forwarded port: one request, sent once, and its reply's value.

Rule 1 (once): a request is sent exactly once on a kept-alive connection, with an explicit
        timeout for the whole exchange; nothing is re-sent. A connection the server closed while
        it was idle (Netty closes one idle for 60 s) is opened again before the request is sent,
        never after.
Rule 2 (how it failed): :class:`Uia2Unreachable` (nothing was sent: refused, or the forward
        closed the connection before a byte of the reply, as adb does while the server isn't
        running), :class:`Uia2NoReply` (sent, no complete reply: a timeout, a reset),
        :class:`Uia2BadReply` (not the server's JSON envelope), :class:`Uia2ErrorReply` (the
        server's error: its ``error``, ``message`` and HTTP status).
Rule 3 (bounded): a reply is read to :data:`MAX_REPLY` bytes (a screenshot of a 1440 x 3200 screen
        is a few MiB of base64).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from typing import Any

__all__ = ["MAX_REPLY", "Uia2BadReply", "Uia2ErrorReply", "Uia2Http", "Uia2NoReply", "Uia2Unreachable"]

MAX_REPLY = 64 << 20


class Uia2Error(Exception):
    """A request that failed (Rule 2)."""


class Uia2Unreachable(Uia2Error):
    """Nothing was sent."""


class Uia2NoReply(Uia2Error):
    """Sent; no complete reply came."""


class Uia2BadReply(Uia2Error):
    """A reply that is not the server's envelope."""


class Uia2ErrorReply(Uia2Error):
    """The server's error reply."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(f"{error}: {message}")
        self.status = status
        self.error = error
        self.message = message


class Uia2Http:
    """Requests to ``127.0.0.1:port`` (the forward of the device's port 6790), one at a time."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._lock = threading.Lock()
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        """Close the kept-alive connection."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def request(self, method: str, path: str, body: Any = None, *, timeout: float) -> Any:
        """Rule 1: send once; the reply's ``value``; a :class:`Uia2Error` when it failed."""
        payload = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json; charset=utf-8"} if payload is not None else {}
        with self._lock:
            deadline = time.monotonic() + timeout
            connection = self._connect(timeout)
            try:
                connection.request(method, path, body=payload, headers=headers)
            except OSError as exc:
                self._drop()
                raise Uia2Unreachable(f"{method} {path}: the request couldn't be sent ({exc})") from exc
            return self._reply(connection, method, path, deadline)

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        connection = self._connection
        if connection is not None and connection.sock is not None and _closed_by_peer(connection.sock):
            self._drop()
            connection = None
        if connection is None:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            try:
                connection.connect()
            except OSError as exc:
                raise Uia2Unreachable(f"nothing answers on 127.0.0.1:{self.port} ({exc})") from exc
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._connection = connection
        if connection.sock is not None:
            connection.sock.settimeout(timeout)
        return connection

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _reply(self, connection: http.client.HTTPConnection, method: str, path: str, deadline: float) -> Any:
        try:
            response = connection.getresponse()
            chunks: list[bytes] = []
            size = 0
            while True:
                if time.monotonic() > deadline:
                    raise TimeoutError("the reply didn't end in time")
                chunk = response.read1(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_REPLY:
                    self._drop()
                    raise Uia2BadReply(f"{method} {path}: the reply goes past {MAX_REPLY:,} bytes")
                chunks.append(chunk)
            response.close()  # read to its end: the connection may carry the next request
        except http.client.RemoteDisconnected as exc:  # closed before a byte of the reply: adb's forward, no server
            self._drop()
            raise Uia2Unreachable(
                f"{method} {path}: the connection closed with no reply (is the server running?)"
            ) from exc
        except (OSError, http.client.HTTPException) as exc:
            self._drop()
            raise Uia2NoReply(f"{method} {path}: no complete reply ({type(exc).__name__}: {exc})") from exc
        if response.getheader("Connection", "").lower() == "close":
            self._drop()
        return _value(response.status, b"".join(chunks), method, path)


def _closed_by_peer(sock: socket.socket) -> bool:
    """Whether an idle kept-alive connection was closed by the server (Rule 1), without reading a byte."""
    try:
        timeout = sock.gettimeout()
        sock.settimeout(0.0)
        try:
            return sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        finally:
            sock.settimeout(timeout)
    except OSError:
        return True


def _value(status: int, raw: bytes, method: str, path: str) -> Any:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Uia2BadReply(f"{method} {path}: HTTP {status} with a reply that isn't JSON ({raw[:60]!r})") from exc
    if not isinstance(data, dict) or "value" not in data:
        raise Uia2BadReply(f"{method} {path}: HTTP {status} with no value in its reply")
    value = data["value"]
    if status >= 400 or (isinstance(value, dict) and "error" in value and "stacktrace" in value):
        if not isinstance(value, dict) or not isinstance(value.get("error"), str):
            raise Uia2BadReply(f"{method} {path}: HTTP {status} with no error in its reply")
        raise Uia2ErrorReply(status, value["error"], str(value.get("message", "")))
    return value
