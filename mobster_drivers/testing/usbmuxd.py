"""A fake usbmuxd on a unix socket, and a fake lockdown, for the USB driver's tests.

The real pymobiledevice3 lists phones and forwards ports through :class:`FakeUsbmuxd` (give it
``usbmux_address=fake.address``); a ``Connect`` to a phone's port is spliced to a local TCP port,
typically a :class:`~mobster_drivers.testing.wda.FakeWda`'s.

::

    with FakeWda(sample_path("yourapp")) as wda:
        phone = FakeIphone("00008140-001A2B3C4D5E801E", "Ada's iPhone", ports={8100: wda.port})
        with FakeUsbmuxd([phone]) as mux:
            device = UsbIphone.connect("Ada's iPhone", usbmux_address=mux.address, lockdown=mux.lockdown())

Rule 1: usbmuxd's plist protocol: a 16-byte little-endian header (length including the header,
        version 1, message 8 = plist, tag) and an XML plist. ``ReadBUID``, ``ListDevices``,
        ``Listen`` and ``Connect`` are answered; anything else gets ``Result`` 1 (bad command).
Rule 2: ``Connect`` takes the port in network byte order. A port the phone doesn't map, or a map
        whose local port refuses, answers ``Result`` 3 (connection refused); else ``Result`` 0, and
        from then on the socket carries the phone's bytes both ways.
Rule 3: lockdown (TLS with pairing records) is not faked on the wire: :class:`FakeLockdown`
        implements the driver's ``Lockdown`` interface and raises pymobiledevice3's own exceptions
        for a phone that is locked or doesn't trust this computer.
Rule 4: the fake is a loopback server (``_server``): the socket lives in a private temp folder
        (unix socket paths are short), the fake serves in daemon threads, stops by itself after
        ``lifetime`` seconds, and dies at a message a test names (:meth:`FakeUsbmuxd.die_when`).
"""

from __future__ import annotations

import contextlib
import plistlib
import select
import socket
import struct
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from mobster_drivers.devices.usb import PhoneFacts

from ._server import LoopbackServer

__all__ = ["FakeIphone", "FakeLockdown", "FakeUsbmuxd"]

_HEADER = struct.Struct("<IIII")
_PLIST_VERSION = 1
_PLIST_MESSAGE = 8
_RESULT_OK, _RESULT_BADCOMMAND, _RESULT_BADDEV, _RESULT_REFUSED = 0, 1, 2, 3
_POLL = 0.05


def _frozen_ports(value: Mapping[int, int]) -> Mapping[int, int]:
    return dict(value)


@attrs.frozen
class FakeIphone:
    """A phone the fake usbmuxd lists: its UDID, what lockdown says, and its ports.

    ``ports`` maps a port on the phone (WDA's 8100) to a TCP port on 127.0.0.1. ``trusted`` False
    or ``locked`` True make lockdown refuse (Rule 3). ``connection`` is ``USB`` or ``Network``.
    """

    udid: str
    name: str = "Ada's iPhone"
    ios: str = "26.4"
    product_type: str = "iPhone17,1"
    ports: Mapping[int, int] = attrs.field(factory=dict, converter=_frozen_ports, hash=False)
    trusted: bool = True
    locked: bool = False
    connection: str = "USB"


class FakeLockdown:
    """The driver's ``Lockdown`` for fake phones (Rule 3); records the UDIDs asked about."""

    def __init__(self, phones: Sequence[FakeIphone]) -> None:
        self._phones = {p.udid: p for p in phones}
        #: The UDIDs whose facts were asked for, in order.
        self.asked: list[str] = []

    async def facts(self, udid: str) -> PhoneFacts:
        """The phone's facts, or pymobiledevice3's exception for a locked or untrusting phone."""
        from pymobiledevice3.exceptions import DeviceNotFoundError, NotPairedError, PasswordRequiredError

        self.asked.append(udid)
        phone = self._phones.get(udid)
        if phone is None:
            raise _mapped(DeviceNotFoundError(udid), udid)
        if phone.locked:
            raise _mapped(PasswordRequiredError(), phone.name)
        if not phone.trusted:
            raise _mapped(NotPairedError(), phone.name)
        return PhoneFacts(phone.udid, phone.name, phone.ios, phone.product_type)


def _mapped(exc: Exception, who: str) -> Exception:
    """pymobiledevice3's exception through the driver's mapping, as the real adapter raises it."""
    from mobster_drivers.devices.usb import usb_error

    mapped = usb_error(exc, who)
    mapped.__cause__ = exc
    return mapped


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        try:
            chunk = sock.recv(size - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


def _send(sock: socket.socket, tag: int, body: Mapping[str, Any]) -> None:
    payload = plistlib.dumps(dict(body))
    with contextlib.suppress(OSError):
        sock.sendall(_HEADER.pack(_HEADER.size + len(payload), _PLIST_VERSION, _PLIST_MESSAGE, tag) + payload)


def _splice(a: socket.socket, b: socket.socket, stopping: threading.Event) -> None:
    """Carry bytes both ways until either side closes or the fake stops."""
    try:
        while not stopping.is_set():
            readable, _, _ = select.select([a, b], [], [], _POLL)
            for source in readable:
                other = b if source is a else a
                try:
                    data = source.recv(65536)
                except OSError:
                    return
                if not data:
                    with contextlib.suppress(OSError):
                        other.shutdown(socket.SHUT_WR)
                    return
                other.sendall(data)
    except OSError:
        return
    finally:
        b.close()


class FakeUsbmuxd(LoopbackServer[str]):
    """A fake usbmuxd serving ``phones`` on a unix socket (see the module rules).

    It stops by itself after ``lifetime`` seconds; :meth:`die_when` names a request (its
    ``MessageType``) at which it dies: that one is never answered, and usbmuxd is gone.
    """

    handler = "stream"
    unix_name = "usbmuxd"

    def __init__(self, phones: Sequence[FakeIphone] = (), *, lifetime: float = 600.0) -> None:
        super().__init__(lifetime=lifetime)
        self._phones = list(phones)
        self._connects: list[tuple[str, int]] = []

    # -- what tests use ----------------------------------------------------------------------

    @property
    def messages(self) -> list[str]:
        """The ``MessageType`` of every request received, oldest first (the :attr:`requests`)."""
        return self.requests

    @property
    def connects(self) -> list[tuple[str, int]]:
        """Every ``Connect`` that was put through, as ``(udid, phone port)``."""
        with self._lock:
            return list(self._connects)

    def lockdown(self) -> FakeLockdown:
        """A fake lockdown that knows these phones."""
        return FakeLockdown(self._phones)

    # -- protocol ----------------------------------------------------------------------------

    def _converse(self, connection: socket.socket) -> None:
        """One client's messages, answered in order, until it closes, connects through, or the fake stops."""
        sock = connection
        while not self._stopping.is_set():
            header = _recv_exactly(sock, _HEADER.size)
            if header is None:
                return
            length, version, message, tag = _HEADER.unpack(header)
            payload = _recv_exactly(sock, max(0, length - _HEADER.size)) or b""
            if version != _PLIST_VERSION or message != _PLIST_MESSAGE:
                _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_BADCOMMAND})
                continue
            try:
                request = plistlib.loads(payload)
            except (plistlib.InvalidFileException, ValueError):
                _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_BADCOMMAND})
                continue
            kind = request.get("MessageType") if isinstance(request, dict) else None
            if self._admit(str(kind), lambda: True) is None:
                return
            if kind == "Connect":
                target = self._connect(request)
                if target is None:
                    _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_REFUSED})
                    continue
                _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_OK})
                _splice(sock, target, self._stopping)
                return
            _send(sock, tag, self._answer_to(str(kind)))

    def _answer_to(self, kind: str) -> dict[str, Any]:
        if kind == "ReadBUID":
            return {"BUID": "5B2F6C3E-0A7D-4C1E-9F8B-2D4A6E8C0B13"}
        if kind == "ListDevices":
            return {"DeviceList": [self._record_of(i, p) for i, p in enumerate(self._phones, 1)]}
        if kind == "Listen":
            return {"MessageType": "Result", "Number": _RESULT_OK}
        return {"MessageType": "Result", "Number": _RESULT_BADCOMMAND}

    @staticmethod
    def _record_of(device_id: int, phone: FakeIphone) -> dict[str, Any]:
        properties: dict[str, Any] = {
            "ConnectionType": phone.connection,
            "DeviceID": device_id,
            "SerialNumber": phone.udid,
        }
        if phone.connection == "USB":
            properties.update(
                {
                    "ConnectionSpeed": 480000000,
                    "LocationID": 0x14100000,
                    "ProductID": 0x12A8,
                    "USBSerialNumber": phone.udid,
                }
            )
        return {"DeviceID": device_id, "MessageType": "Attached", "Properties": properties}

    def _connect(self, request: Mapping[str, Any]) -> socket.socket | None:
        device_id, port = request.get("DeviceID"), request.get("PortNumber")
        if not isinstance(device_id, int) or not isinstance(port, int) or not 1 <= device_id <= len(self._phones):
            return None
        phone = self._phones[device_id - 1]
        phone_port = socket.ntohs(port)
        local = phone.ports.get(phone_port)
        if local is None:
            return None
        try:
            target = socket.create_connection(("127.0.0.1", local), timeout=5.0)
        except OSError:
            return None
        target.settimeout(None)
        with self._lock:
            self._connects.append((phone.udid, phone_port))
        return target
