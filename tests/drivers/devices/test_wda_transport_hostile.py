"""The WDA transport against replies no WDA would send: endless, trickling, lying, malformed.

A stream server on loopback writes each reply byte by byte as the test says, so the transport's
own reader is what's tested (Rules 3 and 4 of ``mobster_drivers.devices.wda._transport``): a body
is read to a limit, and the timeout bounds the whole exchange, never each read of the socket.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import ClassVar, Literal

import pytest

from mobster_drivers.devices.wda import MAX_REPLY_BYTES, FacebookWdaTransport, WdaBadReply, WdaErrorReply, WdaNoReply
from mobster_drivers.testing._server import LoopbackServer

HANG_SECONDS = 10
pytestmark = pytest.mark.usefixtures("no_hang")

Writer = Callable[[socket.socket, threading.Event], None]


class _Raw(LoopbackServer[str]):
    """Reads a request's head, then lets ``writer`` answer on the socket."""

    handler: ClassVar[Literal["http", "stream"]] = "stream"

    def __init__(self, writer: Writer) -> None:
        super().__init__(lifetime=30)
        self._writer = writer
        self.done = threading.Event()

    def _converse(self, connection: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = connection.recv(4096)
            if not chunk:
                return
            head += chunk
        self._admit(head.split(b"\r\n", 1)[0].decode(), lambda: None)
        try:
            self._writer(connection, self.done)
        except OSError:  # the client left: what a limit is for
            pass
        finally:
            self.done.set()


@pytest.fixture
def serve() -> Iterator[Callable[[Writer], str]]:
    servers: list[_Raw] = []

    def start(writer: Writer) -> str:
        server = _Raw(writer).start()
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.stop()


HEAD = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n"


def endless(conn: socket.socket, _done: threading.Event) -> None:
    conn.sendall(HEAD + b"\r\n" + b'{"value": "')
    block = b"A" * 65536
    while True:
        conn.sendall(block)


def endless_chunked(conn: socket.socket, _done: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    block = b"%x\r\n%s\r\n" % (65536, b"B" * 65536)
    while True:
        conn.sendall(block)


def trickle(conn: socket.socket, done: threading.Event) -> None:
    conn.sendall(HEAD + b"\r\n" + b'{"value": "')
    while not done.wait(0.05):
        conn.sendall(b"x")


def slow_head(conn: socket.socket, done: threading.Event) -> None:
    for byte in HEAD:
        if done.wait(0.05):
            return
        conn.sendall(bytes([byte]))


def reply(status: str, body: bytes, *, length: int | None = None) -> Writer:
    def write(conn: socket.socket, _done: threading.Event) -> None:
        size = len(body) if length is None else length
        conn.sendall(f"HTTP/1.0 {status}\r\nContent-Length: {size}\r\n\r\n".encode() + body)

    return write


def test_the_limit_is_64_mib_and_a_big_tree_is_under_it() -> None:
    assert MAX_REPLY_BYTES == 64 * 1024 * 1024


@pytest.mark.parametrize("writer", [endless, endless_chunked], ids=["until-close", "chunked"])
def test_a_body_that_never_ends_is_a_bad_reply_at_the_limit(serve: Callable[[Writer], str], writer: Writer) -> None:
    transport = FacebookWdaTransport(serve(writer), max_reply_bytes=1024 * 1024)
    with pytest.raises(WdaBadReply, match="over the limit of 1048576 bytes"):
        transport.request("GET", "/session/S/source", timeout=5)


def test_a_length_over_the_limit_is_refused_before_reading(serve: Callable[[Writer], str]) -> None:
    transport = FacebookWdaTransport(serve(reply("200 OK", b"{}", length=10**12)))
    with pytest.raises(WdaBadReply, match="a reply of 1000000000000 bytes, over the limit"):
        transport.request("GET", "/status", timeout=5)


@pytest.mark.parametrize("writer", [trickle, slow_head], ids=["body", "head"])
def test_a_reply_that_trickles_ends_at_the_timeout(serve: Callable[[Writer], str], writer: Writer) -> None:
    transport = FacebookWdaTransport(serve(writer))
    started = time.monotonic()
    with pytest.raises(WdaNoReply, match=r"within 0\.5 s"):
        transport.request("GET", "/status", timeout=0.5)
    assert time.monotonic() - started < 3  # each byte came within the socket timeout; the whole didn't


@pytest.mark.parametrize(
    ("status", "body", "error", "says"),
    [
        ("502 Bad Gateway", b"<html>proxy</html>", WdaBadReply, "HTTP 502"),
        ("200 OK", b"", WdaBadReply, "an empty reply"),
        ("200 OK", b"[" * 100_000 + b"]" * 100_000, WdaBadReply, "not WDA's JSON"),
        ("200 OK", b'{"value": 1', WdaBadReply, "not WDA's JSON"),
        ("200 OK", b"\xff\xfe{}", WdaBadReply, "not WDA's JSON"),
        ("200 OK", b'{"sessionId": "x"}', WdaBadReply, "without WDA's 'value'"),
        ("200 OK", b"[1, 2]", WdaBadReply, "without WDA's 'value'"),
    ],
)
def test_a_malformed_reply_is_a_bad_reply(
    serve: Callable[[Writer], str], status: str, body: bytes, error: type[Exception], says: str
) -> None:
    transport = FacebookWdaTransport(serve(reply(status, body)))
    with pytest.raises(error, match=says):
        transport.request("GET", "/status", timeout=5)


def test_a_short_body_is_no_complete_reply(serve: Callable[[Writer], str]) -> None:
    transport = FacebookWdaTransport(serve(reply("200 OK", b'{"value": {}}', length=500)))
    with pytest.raises(WdaNoReply, match="before a complete reply"):
        transport.request("GET", "/status", timeout=5)


def test_an_error_envelope_keeps_its_http_status(serve: Callable[[Writer], str]) -> None:
    body = json.dumps({"value": {"error": "no such alert", "message": "An attempt was made"}}).encode()
    transport = FacebookWdaTransport(serve(reply("404 Not Found", body)))
    with pytest.raises(WdaErrorReply) as caught:
        transport.request("GET", "/session/S/alert/text", timeout=5)
    assert (caught.value.error, caught.value.status, caught.value.endpoint) == ("no such alert", 404, "GET /alert/text")


def test_a_good_reply_reads_whole(serve: Callable[[Writer], str]) -> None:
    big = "x" * (3 * 1024 * 1024)
    body = json.dumps({"value": {"tree": big}, "sessionId": "S1"}).encode()
    got = FacebookWdaTransport(serve(reply("200 OK", body))).request("GET", "/source", timeout=5)
    assert got.value == {"tree": big}
    assert got.session_id == "S1"
