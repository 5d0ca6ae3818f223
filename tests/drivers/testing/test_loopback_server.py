"""The loopback server every fake stands on: its life, its records, its death on cue, one request at a time."""

from __future__ import annotations

import http.client
import plistlib
import socket
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing._server import Incoming, LoopbackServer, Reply
from mobster_drivers.testing.appium import AppiumRequest, FakeAppium
from mobster_drivers.testing.llm import FakeAnthropic, FakeOpenAI, RecordedRequest
from mobster_drivers.testing.usbmuxd import FakeIphone, FakeUsbmuxd
from mobster_drivers.testing.wda import FakeWda, WdaRequest

_HEADER = struct.Struct("<IIII")


def _get(port: int, path: str = "/status", timeout: float = 10.0) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _mux(sock: socket.socket, kind: str) -> dict[str, object] | None:
    payload = plistlib.dumps({"MessageType": kind})
    sock.sendall(_HEADER.pack(_HEADER.size + len(payload), 1, 8, 1) + payload)
    header = sock.recv(_HEADER.size)
    if not header:
        return None
    length = _HEADER.unpack(header)[0]
    body = b""
    while len(body) < length - _HEADER.size:
        body += sock.recv(length - _HEADER.size - len(body))
    answer: dict[str, object] = plistlib.loads(body)
    return answer


class _Gate(LoopbackServer[str]):
    """A fake whose first request waits at a gate the test opens; the others answer at once."""

    def __init__(self, *, one_at_a_time: bool) -> None:
        super().__init__(lifetime=30.0, one_at_a_time=one_at_a_time)
        self.first_in = threading.Event()
        self.gate = threading.Event()
        self.second_in = threading.Event()
        self.second_waits = threading.Event()

    def _answer(self, incoming: Incoming) -> Reply:
        first = self._admit(incoming.path, lambda: len(self._requests) == 1)
        if first:
            self.first_in.set()
            assert self.gate.wait(10)
        else:
            self.second_in.set()
        return Reply(200, incoming.path.encode(), "text/plain")

    def _queued(self, incoming: Incoming) -> None:
        if incoming.path == "/second":
            self.second_waits.set()


class _QueuedWda(FakeWda):
    """A fake WDA that says how many requests have come to wait for their turn (``_server`` Rule 5)."""

    def __init__(self, *, one_at_a_time: bool = True) -> None:
        if one_at_a_time:
            super().__init__(sample_path("yourapp"), lifetime=30)  # the default, as a user gets it
        else:
            super().__init__(sample_path("yourapp"), lifetime=30, one_at_a_time=False)
        self.arrived = threading.Condition()
        self.waiting = 0

    def _queued(self, incoming: Incoming) -> None:
        with self.arrived:
            self.waiting += 1
            self.arrived.notify_all()

    def wait_queued(self, count: int) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: self.waiting >= count, 10)


class _Held(LoopbackServer[str]):
    """A fake that holds every reply 30 s."""

    def __init__(self) -> None:
        super().__init__(lifetime=30.0)
        self.answered = threading.Event()

    def _answer(self, incoming: Incoming) -> Reply:
        self._admit(incoming.path, lambda: True)
        self.answered.set()
        return Reply(200, b"late", "text/plain", hold=30.0)


def _in_thread(port: int, path: str) -> tuple[threading.Thread, list[tuple[int, bytes]]]:
    got: list[tuple[int, bytes]] = []
    thread = threading.Thread(target=lambda: got.append(_get(port, path)), daemon=True)
    thread.start()
    return thread, got


# -- life ------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [FakeAnthropic, FakeOpenAI, FakeUsbmuxd, lambda: FakeWda(sample_path("yourapp"))])
def test_a_fake_starts_once_and_stops_twice(make: Callable[[], LoopbackServer[Any]]) -> None:
    fake = make()
    with fake:
        with pytest.raises(RuntimeError, match="can be started once"):
            fake.start()
    fake.stop()
    with pytest.raises(RuntimeError, match="can be started once"):
        fake.start()


def test_a_fake_stopped_before_it_started_never_starts() -> None:
    fake = FakeAnthropic()
    fake.stop()
    with pytest.raises(RuntimeError, match="FakeAnthropic can be started once"):
        fake.start()


def test_a_fake_not_started_says_so() -> None:
    with pytest.raises(RuntimeError, match="FakeWda is not started"):
        _ = FakeWda(sample_path("yourapp")).port
    with pytest.raises(RuntimeError, match="FakeUsbmuxd is not started"):
        _ = FakeUsbmuxd().address


def test_a_fake_binds_loopback_and_a_unix_one_a_private_folder() -> None:
    with FakeAnthropic() as api, FakeUsbmuxd() as mux:
        assert api.url == f"http://127.0.0.1:{api.port}"
        assert api.address == f"127.0.0.1:{api.port}"
        folder = Path(mux.address).parent
        assert Path(mux.address).name == "usbmuxd"
        assert folder.stat().st_mode & 0o777 == 0o700
        with pytest.raises(RuntimeError, match="unix socket"):
            _ = mux.port
    assert not folder.exists()


def test_a_fake_stops_by_itself_after_its_lifetime() -> None:
    mux = FakeUsbmuxd(lifetime=0.05).start()
    address = mux.address
    assert mux.wait(10)  # the lifetime timer stopped it
    assert not Path(address).exists()
    mux.stop()  # and a stop after the timer's is nothing


def test_stop_cuts_a_held_reply_short_and_closes_its_connection() -> None:
    fake = _Held().start()
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            _get(fake.port, timeout=20)
        except (http.client.HTTPException, OSError) as exc:
            errors.append(exc)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    assert fake.answered.wait(10)
    fake.stop()
    thread.join(10)
    assert not thread.is_alive()  # long before the hold's 30 s
    assert len(errors) == 1  # the connection closed without a reply


# -- death on cue --------------------------------------------------------------------------------


def test_the_fake_wda_dies_at_the_request_a_test_names() -> None:
    with FakeWda(sample_path("yourapp"), lifetime=30) as wda:
        port = wda.port
        assert _get(port)[0] == 200
        wda.die_when(lambda r: r.route == "/wda/activeAppInfo")
        with pytest.raises((http.client.HTTPException, OSError)):
            _get(port, "/wda/activeAppInfo")
        with pytest.raises(ConnectionRefusedError):
            _get(port)
        assert [r.route for r in wda.requests] == ["/status", "/wda/activeAppInfo"]
        assert isinstance(wda.requests[-1], WdaRequest)


def test_the_fake_usbmuxd_dies_at_the_message_a_test_names() -> None:
    with FakeUsbmuxd([FakeIphone("00008140-001A2B3C4D5E801E")]) as mux:
        mux.die_when(lambda kind: kind == "ListDevices")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(mux.address)
            assert _mux(sock, "ReadBUID") is not None
            assert _mux(sock, "ListDevices") is None  # never answered: the connection closed
        assert mux.messages == ["ReadBUID", "ListDevices"]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as again, pytest.raises(OSError):
            again.connect(mux.address)


def test_a_fake_model_api_dies_at_the_request_a_test_names() -> None:
    with FakeAnthropic() as api:
        api.reply_json({"ok": True})
        api.die_when(lambda r: r.path.startswith("/v1/messages"))
        with pytest.raises((http.client.HTTPException, OSError)):
            _get(api.port, "/v1/messages")
        with pytest.raises(ConnectionRefusedError):
            _get(api.port, "/v1/messages")
        assert [r.path for r in api.requests] == ["/v1/messages"]
        assert isinstance(api.requests[0], RecordedRequest)
        assert api.pending == 1  # the reply was never taken: the request was never handled


def test_the_fake_appium_dies_and_takes_its_wda_with_it() -> None:
    with FakeAppium(sample_path("yourapp"), lifetime=30) as appium:
        appium.die_when(lambda r: r.command == "GET /status")
        with pytest.raises((http.client.HTTPException, OSError)):
            _get(appium.port)
        assert appium.wait(10)
        with pytest.raises(ConnectionRefusedError):
            _get(appium.wda.port)
        assert isinstance(appium.requests[0], AppiumRequest)


# -- one request at a time -------------------------------------------------------------------------


def test_one_at_a_time_a_request_waits_for_the_one_being_answered() -> None:
    with _Gate(one_at_a_time=True) as fake:
        first, first_got = _in_thread(fake.port, "/first")
        assert fake.first_in.wait(10)
        second, second_got = _in_thread(fake.port, "/second")
        assert fake.second_waits.wait(10)  # read, and waiting its turn
        assert not fake.second_in.is_set()
        assert fake.requests == ["/first"]  # not even recorded: its handling hasn't begun
        fake.gate.set()
        first.join(10)
        second.join(10)
    assert first_got == [(200, b"/first")]
    assert second_got == [(200, b"/second")]


def test_by_default_a_request_is_answered_while_another_is_handled() -> None:
    with _Gate(one_at_a_time=False) as fake:
        first, first_got = _in_thread(fake.port, "/first")
        assert fake.first_in.wait(10)
        second, second_got = _in_thread(fake.port, "/second")
        second.join(10)
        assert second_got == [(200, b"/second")]  # while the first still waits at its gate
        assert not fake.second_waits.is_set()
        fake.gate.set()
        first.join(10)
    assert first_got == [(200, b"/first")]


def _left_unanswered(port: int, path: str) -> tuple[threading.Thread, list[BaseException]]:
    """A GET in a thread whose connection the fake closes without a reply: what it raised."""
    raised: list[BaseException] = []

    def call() -> None:
        try:
            _get(port, path)
        except (http.client.HTTPException, OSError) as exc:
            raised.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread, raised


def _raw_get(port: int, path: str) -> socket.socket:
    """A request sent on a socket the caller reads or closes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def _status_held(wda: FakeWda) -> tuple[threading.Thread, list[BaseException]]:
    """A ``/status`` whose reply the fake holds 30 s (cut short by stop), recorded before this returns."""
    wda.stall_next_reply(30.0)
    held = _left_unanswered(wda.port, "/status")
    assert wda.wait_for(lambda r: r.route == "/status", 10)
    return held


def test_the_fake_wda_serves_one_request_at_a_time_by_default() -> None:
    with _QueuedWda() as wda:
        held, held_raised = _status_held(wda)
        source, source_raised = _left_unanswered(wda.port, "/source")
        assert wda.wait_queued(2)  # the held one, and the read behind it
        assert [r.route for r in wda.requests] == ["/status"]  # the read's handling hasn't begun
        assert source.is_alive()  # no answer yet
        wda.stop()
        held.join(5)
        source.join(5)
        assert not held.is_alive()
        assert not source.is_alive()
        assert len(held_raised) == len(source_raised) == 1  # both closed without a reply
        assert [r.route for r in wda.requests] == ["/status"]


def test_the_fake_wda_answers_at_once_when_told_to_be_concurrent() -> None:
    with _QueuedWda(one_at_a_time=False) as wda:
        held, held_raised = _status_held(wda)
        status, body = _get(wda.port, "/source")  # answered while /status is held
        assert status == 200
        assert b"XCUIElementTypeApplication" in body
        assert wda.waiting == 0
        assert held.is_alive()
    held.join(5)
    assert not held.is_alive()
    assert len(held_raised) == 1


def test_stop_ends_every_request_still_waiting_its_turn_unhandled() -> None:
    with _QueuedWda() as wda:
        held, _ = _status_held(wda)
        waiting = [_raw_get(wda.port, path) for path in ("/source", "/screenshot", "/wda/activeAppInfo")]
        assert wda.wait_queued(4)
        wda.stop()
        for sock in waiting:
            assert sock.recv(1024) == b""  # closed without a reply, at once
            sock.close()
        held.join(5)
        assert not held.is_alive()
        assert [r.route for r in wda.requests] == ["/status"]  # none of them was handled


def test_a_client_that_leaves_while_waiting_its_turn_wedges_nothing() -> None:
    with _Gate(one_at_a_time=True) as fake:
        first, first_got = _in_thread(fake.port, "/first")
        assert fake.first_in.wait(10)
        leaver = _raw_get(fake.port, "/second")
        assert fake.second_waits.wait(10)
        leaver.close()  # gone while waiting its turn
        third, third_got = _in_thread(fake.port, "/third")
        assert fake.wait_for(lambda r: r == "/first", 10)
        fake.gate.set()
        first.join(10)
        third.join(10)
        assert first_got == [(200, b"/first")]
        assert third_got == [(200, b"/third")]
        # The one that left was still handled in its turn, as WDA runs a command it has read.
        assert sorted(fake.requests) == ["/first", "/second", "/third"]


def test_a_method_a_fake_doesnt_serve_is_not_implemented_and_not_recorded() -> None:
    with FakeAnthropic() as api:
        api.reply_json({"ok": True})
        connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
        connection.request("DELETE", "/v1/messages")
        assert connection.getresponse().status == 501
        connection.close()
        assert api.requests == []
        assert api.pending == 1
