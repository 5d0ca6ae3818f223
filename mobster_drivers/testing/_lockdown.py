"""The phone's side of lockdownd and its services, on a socket the fake usbmuxd connected through.

What Appium's XCUITest driver (appium-ios-device 3.1.23, appium-ios-remotexpc 5.20.3) asks a
phone on Linux, through usbmuxd, and what the fake answers (measured against Appium 3.8.0 and
XCUITest 12.13.1: every message below was sent by them and answered so):

Rule 1: lockdownd (the phone's port 62078) frames each message as a 4-byte big-endian length and
        an XML plist, both ways. ``QueryType`` → ``com.apple.mobile.lockdown``; ``GetValue`` with a
        ``Key`` → that value (``MissingValue`` for one the phone hasn't), without a ``Key`` → the
        whole dictionary (``DeviceName``, ``ProductVersion``, ``UniqueDeviceID``, …: the
        ``lockdownInfo`` of ``mobile: deviceInfo``), with a ``Domain`` → ``MissingValue``;
        ``StartSession`` with the pair record's ``HostID`` → a ``SessionID`` and
        ``EnableSessionSSL`` true, then TLS on the same socket with the phone as the TLS server
        (another ``HostID``: ``InvalidHostID``); ``StartService`` → the service's ``Port`` and
        ``EnableServiceSSL`` false (an unknown one: ``InvalidService``); ``StopSession`` → done;
        anything else → ``InvalidRequest``. Both clients accept the phone's self-signed
        certificate (``rejectUnauthorized: false``).
Rule 2: the services, on the ports ``StartService`` gave (:data:`SERVICE_PORTS`), plain:
        ``com.apple.mobile.installation_proxy`` answers ``Lookup`` (``LookupResult`` of the
        asked bundles that are installed, ``Status`` ``Complete``) and ``Browse`` (one
        ``BrowsingApplications`` batch, then ``Complete``), each record cut to the
        ``ReturnAttributes`` asked for (``CFBundleIdentifier`` always kept); another command is
        ``UnknownCommand``. ``com.apple.syslog_relay`` (the driver's log capture) is silent
        until the client closes it.
Rule 3: the pair record (usbmuxd's ``ReadPairRecord``) holds ``HostID``, ``SystemBUID`` and PEM
        certificates and keys made once per process (``cryptography``, which pymobiledevice3
        brings: ``mobster-replay[usb]``), as a paired computer keeps them.
"""

from __future__ import annotations

import datetime as dt
import plistlib
import socket
import ssl
import struct
import threading
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

__all__ = ["LOCKDOWN_PORT", "SERVICE_PORTS", "Lockdownd", "PairRecord", "lockdown_values", "pair_record"]

#: lockdownd's port on the phone.
LOCKDOWN_PORT = 62078
#: The services ``StartService`` hands out, and the phone port each listens on (Rule 2).
SERVICE_PORTS: Mapping[str, int] = {
    "com.apple.mobile.installation_proxy": 49152,
    "com.apple.syslog_relay": 49153,
}
_LENGTH = struct.Struct(">I")
_MAX_MESSAGE = 1 << 20  # a lockdown request is a few hundred bytes
_CERTS: dict[str, bytes] = {}
_CERTS_LOCK = threading.Lock()


def lockdown_values(
    udid: str, name: str, ios: str, *, product_type: str = "iPhone17,1", locked: bool = False
) -> dict[str, Any]:
    """A phone's lockdownd values: what ``GetValue`` without a ``Key`` answers (Rule 1).

    The one source of them: the fake usbmuxd's phones and the fake Appium's ``mobile: deviceInfo``
    (its ``lockdownInfo``, which real XCUITest reads with that ``GetValue``) both say these.
    """
    return {
        "DeviceName": name,
        "ProductVersion": ios,
        "ProductType": product_type,
        "ProductName": "iPhone OS",
        "BuildVersion": "23E246",
        "DeviceClass": "iPhone",
        "UniqueDeviceID": udid,
        "CPUArchitecture": "arm64e",
        "HardwareModel": "D47AP",
        "SerialNumber": "F2LZ0000XXXX",
        "TimeZone": "UTC",
        "TimeZoneOffsetFromUTC": 0.0,
        "ProtocolVersion": "2",
        "ActivationState": "Activated",
        "PasswordProtected": locked,
        "WiFiAddress": "00:00:00:00:00:00",
    }


@attrs.frozen
class PairRecord:
    """What a paired computer keeps for a phone (Rule 3)."""

    host_id: str
    system_buid: str
    certificates: Mapping[str, bytes]

    def plist(self, udid: str) -> bytes:
        """The record as usbmuxd's ``PairRecordData`` (a binary-safe XML plist)."""
        record = {
            "HostID": self.host_id,
            "SystemBUID": self.system_buid,
            "WiFiMACAddress": "00:00:00:00:00:00",
            "UDID": udid,
            **self.certificates,
        }
        return plistlib.dumps(record)


def pair_record(system_buid: str) -> PairRecord:
    """A pair record for this computer, with the process's certificates (Rule 3)."""
    return PairRecord(str(uuid.uuid5(uuid.NAMESPACE_URL, system_buid)).upper(), system_buid, _certificates())


def _certificates() -> dict[str, bytes]:
    """Self-signed host, device and root certificates (PEM), made once per process."""
    with _CERTS_LOCK:
        if not _CERTS:
            host_cert, host_key = _self_signed("host")
            device_cert, device_key = _self_signed("device")
            root_cert, _ = _self_signed("root")
            _CERTS.update(
                {
                    "HostCertificate": host_cert,
                    "HostPrivateKey": host_key,
                    "DeviceCertificate": device_cert,
                    "DevicePrivateKey": device_key,
                    "RootCertificate": root_cert,
                }
            )
        return dict(_CERTS)


def _self_signed(name: str) -> tuple[bytes, bytes]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=3650))
        .sign(key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    private = key.private_bytes(pem, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    return cert.public_bytes(pem), private


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        try:
            chunk = sock.recv(size - len(data))
        except OSError:  # ssl.SSLError is one
            return None
        if not chunk:
            return None
        data += chunk
    return data


def _receive(sock: socket.socket) -> dict[str, Any] | None:
    head = _recv_exactly(sock, _LENGTH.size)
    if head is None:
        return None
    (length,) = _LENGTH.unpack(head)
    if length > _MAX_MESSAGE:
        return None
    body = _recv_exactly(sock, length)
    if body is None:
        return None
    try:
        message = plistlib.loads(body)
    except (plistlib.InvalidFileException, ValueError):
        return None
    return message if isinstance(message, dict) else None


def _send(sock: socket.socket, message: Mapping[str, Any]) -> bool:
    body = plistlib.dumps(dict(message))
    try:
        sock.sendall(_LENGTH.pack(len(body)) + body)
    except OSError:
        return False
    return True


@attrs.frozen
class Lockdownd:
    """One phone's lockdownd and services (the module rules); ``record`` is its paired computer's.

    ``values`` is what ``GetValue`` reads; ``apps`` the installed apps by bundle id, each the
    ``Info.plist`` keys installation_proxy reports; ``folder`` a private folder for the TLS
    key files; ``log`` receives one line per request (``lockdown GetValue``).
    """

    values: Mapping[str, Any]
    apps: Mapping[str, Mapping[str, Any]]
    record: PairRecord
    folder: Path
    log: Callable[[str], None]
    stopping: threading.Event

    def converse(self, sock: socket.socket, port: int) -> None:
        """Serve the phone port ``port`` on ``sock`` until the client closes it."""
        if port == LOCKDOWN_PORT:
            self._lockdown(sock)
        elif port == SERVICE_PORTS["com.apple.mobile.installation_proxy"]:
            self._installation_proxy(sock)
        else:  # the syslog relay: nothing to say
            while not self.stopping.is_set() and _recv_exactly(sock, 1) is not None:
                pass

    def _lockdown(self, sock: socket.socket) -> None:
        while not self.stopping.is_set():
            request = _receive(sock)
            if request is None:
                return
            kind = request.get("Request")
            self.log(f"lockdown {kind}")
            if kind == "StartSession":
                upgraded = self._start_session(sock, request)
                if upgraded is None:
                    return
                sock = upgraded
                continue
            if not _send(sock, self._answer(str(kind), request)):
                return

    def _answer(self, kind: str, request: Mapping[str, Any]) -> dict[str, Any]:
        if kind == "QueryType":
            return {"Request": kind, "Type": "com.apple.mobile.lockdown"}
        if kind == "GetValue":
            return self._get_value(request)
        if kind == "StartService":
            service = str(request.get("Service"))
            port = SERVICE_PORTS.get(service)
            if port is None:
                return {"Request": kind, "Service": service, "Error": "InvalidService"}
            return {"Request": kind, "Service": service, "Port": port, "EnableServiceSSL": False}
        if kind == "StopSession":
            return {"Request": kind}
        return {"Request": kind, "Error": "InvalidRequest"}

    def _get_value(self, request: Mapping[str, Any]) -> dict[str, Any]:
        key, domain = request.get("Key"), request.get("Domain")
        if domain:
            return {"Request": "GetValue", "Domain": domain, "Key": key, "Error": "MissingValue"}
        if key is None:
            return {"Request": "GetValue", "Value": dict(self.values)}
        if key in self.values:
            return {"Request": "GetValue", "Key": key, "Value": self.values[key]}
        return {"Request": "GetValue", "Key": key, "Error": "MissingValue"}

    def _start_session(self, sock: socket.socket, request: Mapping[str, Any]) -> socket.socket | None:
        """``StartSession``, then TLS as the server (Rule 1); None when the socket is done."""
        if request.get("HostID") != self.record.host_id:
            return sock if _send(sock, {"Request": "StartSession", "Error": "InvalidHostID"}) else None
        reply = {"Request": "StartSession", "SessionID": str(uuid.uuid4()).upper(), "EnableSessionSSL": True}
        if not _send(sock, reply):
            return None
        certificate, key = self.folder / "device.pem", self.folder / "device.key"
        if not certificate.exists():
            certificate.write_bytes(self.record.certificates["DeviceCertificate"])
            key.write_bytes(self.record.certificates["DevicePrivateKey"])
            key.chmod(0o600)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        context.verify_mode = ssl.CERT_NONE
        try:
            return context.wrap_socket(sock, server_side=True)
        except OSError as exc:  # ssl.SSLError is one
            self.log(f"lockdown TLS failed: {exc}")
            return None

    def _installation_proxy(self, sock: socket.socket) -> None:
        while not self.stopping.is_set():
            request = _receive(sock)
            if request is None:
                return
            command = request.get("Command")
            options = request.get("ClientOptions")
            options = options if isinstance(options, dict) else {}
            self.log(f"installation_proxy {command}")
            attributes = options.get("ReturnAttributes")
            wanted = attributes if isinstance(attributes, list) else None
            if command == "Lookup":
                asked = options.get("BundleIDs")
                bundles = asked if isinstance(asked, list) else list(self.apps)
                found = {b: self._record(b, wanted) for b in bundles if b in self.apps}
                ok = _send(sock, {"LookupResult": found, "Status": "Complete"})
            elif command == "Browse":
                listed = [self._record(b, wanted) for b in self.apps]
                batch = {
                    "CurrentAmount": len(listed),
                    "CurrentIndex": 0,
                    "CurrentList": listed,
                    "Status": "BrowsingApplications",
                    "Total": len(listed),
                }
                ok = _send(sock, batch) and _send(sock, {"Status": "Complete"})
            else:
                ok = _send(sock, {"Error": "UnknownCommand", "ErrorDescription": str(command)})
            if not ok:
                return

    def _record(self, bundle: str, attributes: list[Any] | None) -> dict[str, Any]:
        full = {"CFBundleIdentifier": bundle, "ApplicationType": "User", **self.apps[bundle]}
        if attributes is None:
            return full
        return {k: v for k, v in full.items() if k in attributes or k == "CFBundleIdentifier"}
