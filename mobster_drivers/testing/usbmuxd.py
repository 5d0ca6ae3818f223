"""A fake usbmuxd on a unix socket, with the phones' lockdownd, for the USB driver and for Appium.

The real pymobiledevice3 lists phones and forwards ports through :class:`FakeUsbmuxd` (give it
``usbmux_address=fake.address``); a ``Connect`` to a phone's port is spliced to a local TCP port,
typically a :class:`~mobster_drivers.testing.wda.FakeWda`'s. A real Appium server's XCUITest
driver finds it through ``USBMUXD_SOCKET_ADDRESS=unix:<address>`` and talks to the phone's
lockdownd and installation_proxy through it (``_lockdown``: ``mobile: deviceInfo``'s
``lockdownInfo``, ``mobile: isAppInstalled``, ``mobile: listApps``, ``appium:bundleId``).

::

    with FakeWda(sample_path("yourapp")) as wda:
        phone = FakeIphone("00008140-001A2B3C4D5E801E", "Ada's iPhone", ports={8100: wda.port})
        with FakeUsbmuxd([phone]) as mux:
            device = UsbIphone.connect("Ada's iPhone", usbmux_address=mux.address, lockdown=mux.lockdown())

Rule 1: usbmuxd's plist protocol: a 16-byte little-endian header (length including the header,
        version 1, message 8 = plist, tag) and an XML plist. ``ReadBUID``, ``ListDevices``,
        ``Listen`` (``Result`` 0, then an ``Attached`` message per phone, as usbmuxd announces
        them), ``ReadPairRecord`` (the record of this computer, ``_lockdown`` Rule 3; a phone it
        doesn't know: ``Result`` 2) and ``Connect`` are answered; anything else gets ``Result``
        1 (bad command).
Rule 2: ``Connect`` takes the port in network byte order. lockdownd's port (62078) and the ports
        of the services lockdownd starts are served by the fake phone itself (``_lockdown``);
        another port is spliced to the local TCP port the phone maps it to. A port the phone
        doesn't map, or a map whose local port refuses, answers ``Result`` 3 (connection
        refused); else ``Result`` 0, and from then on the socket carries the phone's bytes.
Rule 3: for the USB driver, lockdown is also given as an object: :class:`FakeLockdown`
        implements the driver's ``Lockdown`` interface and raises pymobiledevice3's own exceptions
        for a phone that is locked or doesn't trust this computer.
Rule 4: the fake is a loopback server (``_server``): the socket lives in a private temp folder
        (unix socket paths are short), or at ``path`` when one is given (so a test can unplug
        usbmuxd and plug a new one in where a server looks for it), the fake serves in daemon
        threads, stops by itself after ``lifetime`` seconds, and dies at a message a test names
        (:meth:`FakeUsbmuxd.die_when`).
"""

from __future__ import annotations

import contextlib
import os
import plistlib
import select
import socket
import struct
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from mobster_drivers.devices.usb import PhoneFacts

from ._lockdown import LOCKDOWN_PORT, SERVICE_PORTS, Lockdownd, PairRecord, lockdown_values, pair_record
from ._server import LoopbackServer

__all__ = ["FakeIphone", "FakeLockdown", "FakeUsbmuxd"]

_HEADER = struct.Struct("<IIII")
_PLIST_VERSION = 1
_PLIST_MESSAGE = 8
_RESULT_OK, _RESULT_BADCOMMAND, _RESULT_BADDEV, _RESULT_REFUSED = 0, 1, 2, 3
_POLL = 0.05
_BUID = "5B2F6C3E-0A7D-4C1E-9F8B-2D4A6E8C0B13"


def _frozen_ports(value: Mapping[int, int]) -> Mapping[int, int]:
    return dict(value)


def _frozen_apps(value: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Mapping[str, Any]]:
    return {bundle: dict(info) for bundle, info in value.items()}


@attrs.frozen
class FakeIphone:
    """A phone the fake usbmuxd lists: its UDID, what lockdown says, its ports and its apps.

    ``ports`` maps a port on the phone (WDA's 8100) to a TCP port on 127.0.0.1. ``trusted`` False
    or ``locked`` True make lockdown refuse (Rule 3). ``connection`` is ``USB`` or ``Network``.
    ``apps`` are the installed apps installation_proxy reports, by bundle id, each with its
    ``Info.plist`` keys (``CFBundleShortVersionString``, ``CFBundleVersion``, ``CFBundleName``).
    """

    udid: str
    name: str = "Ada's iPhone"
    ios: str = "26.4"
    product_type: str = "iPhone17,1"
    ports: Mapping[int, int] = attrs.field(factory=dict, converter=_frozen_ports, hash=False)
    trusted: bool = True
    locked: bool = False
    connection: str = "USB"
    apps: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict, converter=_frozen_apps, hash=False)

    def lockdown_values(self) -> dict[str, Any]:
        """What the phone's lockdownd says to ``GetValue`` (``_lockdown`` Rule 1)."""
        return lockdown_values(self.udid, self.name, self.ios, product_type=self.product_type, locked=self.locked)


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
    ``MessageType``) at which it dies: that one is never answered, and usbmuxd is gone. ``path``
    binds the socket there instead of in a private folder (Rule 4; its folder is the caller's).
    """

    handler = "stream"
    unix_name = "usbmuxd"

    def __init__(
        self, phones: Sequence[FakeIphone] = (), *, lifetime: float = 600.0, path: str | os.PathLike[str] | None = None
    ) -> None:
        super().__init__(lifetime=lifetime, unix_path=path)
        self._phones = list(phones)
        self._connects: list[tuple[str, int]] = []
        self._record: PairRecord | None = None
        self._keys = tempfile.TemporaryDirectory(prefix="mobster-lockdown-")  # 0700: the TLS key files
        self._lockdown_log: list[str] = []

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

    @property
    def lockdown_log(self) -> list[str]:
        """What the phones' lockdownd and services were asked, oldest first (``lockdown GetValue``)."""
        with self._lock:
            return list(self._lockdown_log)

    def lockdown(self) -> FakeLockdown:
        """A fake lockdown that knows these phones (Rule 3)."""
        return FakeLockdown(self._phones)

    def _on_stop(self) -> None:
        self._keys.cleanup()

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
                self._put_through(sock, tag, request)
                return
            _send(sock, tag, self._answer_to(str(kind), request))
            if kind == "Listen":
                for i, phone in enumerate(self._phones, 1):
                    _send(sock, 0, self._record_of(i, phone))

    def _put_through(self, sock: socket.socket, tag: int, request: Mapping[str, Any]) -> None:
        """``Connect`` (Rule 2): the phone's own lockdownd and services, or a splice to a mapped port."""
        phone, port = self._phone_port(request)
        if phone is not None and (port == LOCKDOWN_PORT or port in SERVICE_PORTS.values()):
            _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_OK})
            with self._lock:
                self._connects.append((phone.udid, port))
            self._lockdownd(phone).converse(sock, port)
            return
        target = self._connect(request)
        if target is None:
            _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_REFUSED})
            return
        _send(sock, tag, {"MessageType": "Result", "Number": _RESULT_OK})
        _splice(sock, target, self._stopping)

    def _lockdownd(self, phone: FakeIphone) -> Lockdownd:
        return Lockdownd(
            values=phone.lockdown_values(),
            apps=phone.apps,
            record=self._pair_record(),
            folder=Path(self._keys.name),
            log=self._log_lockdown,
            stopping=self._stopping,
        )

    def _log_lockdown(self, line: str) -> None:
        with self._lock:
            self._lockdown_log.append(line)

    def _pair_record(self) -> PairRecord:
        with self._lock:
            if self._record is None:
                self._record = pair_record(_BUID)
            return self._record

    def _answer_to(self, kind: str, request: Mapping[str, Any]) -> dict[str, Any]:
        if kind == "ReadBUID":
            return {"BUID": _BUID}
        if kind == "ListDevices":
            return {"DeviceList": [self._record_of(i, p) for i, p in enumerate(self._phones, 1)]}
        if kind == "Listen":
            return {"MessageType": "Result", "Number": _RESULT_OK}
        if kind == "ReadPairRecord":
            udid = request.get("PairRecordID")
            if not any(p.udid == udid for p in self._phones):
                return {"MessageType": "Result", "Number": _RESULT_BADDEV}
            return {"PairRecordData": self._pair_record().plist(str(udid))}
        return {"MessageType": "Result", "Number": _RESULT_BADCOMMAND}

    def _phone_port(self, request: Mapping[str, Any]) -> tuple[FakeIphone | None, int]:
        device_id, port = request.get("DeviceID"), request.get("PortNumber")
        if not isinstance(device_id, int) or not isinstance(port, int) or not 1 <= device_id <= len(self._phones):
            return None, 0
        return self._phones[device_id - 1], socket.ntohs(port)

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
        phone, phone_port = self._phone_port(request)
        if phone is None:
            return None
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
