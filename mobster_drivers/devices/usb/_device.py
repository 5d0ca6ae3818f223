"""The USB iPhone device: usbmux for the list and a forwarded port, WebDriverAgent for the rest.

Rule 1: the phone is found over usbmux (``list_devices``, USB connections only) by UDID, else by
        its name as lockdown reports it; none, or several with that name, is a clear error.
Rule 2: a local port on 127.0.0.1 is forwarded through usbmuxd to WDA's port on the phone (8100)
        with pymobiledevice3's ``UsbmuxTcpForwarder``; the WDA device talks to that port.
Rule 3: pymobiledevice3 is async-only: discovery and the forwarder run on one event loop in a
        daemon thread, which :meth:`UsbIphone.close` stops.
Rule 4: ``info`` comes from lockdown (name, iOS version), kind ``iphone``. The app's version is
        not read on an iPhone: ``app_info`` only says whether the app is installed.
Rule 5: connecting checks that WDA answers through the forwarded port before anything else is sent.
Rule 6: a check's device steps (``protocols.DeviceEvents``: a Face ID / Touch ID match, a push) are
        refused, saying why: iOS has no way for a test to fake a face or a fingerprint on a real
        iPhone, and a push reaches one only through APNs with the app's own credentials. The run
        can't run then (class ``environment``), before anything is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from mobster_core import DeviceError, DeviceInfo, DeviceKind, Op
from mobster_core.protocols import DeviceEvent
from mobster_drivers._loop import LoopThread
from mobster_drivers.devices.wda import WdaDevice, WdaHosted, WdaTimeouts

from ._lockdown import Lockdown, PhoneFacts, PymobiledeviceLockdown, usb_error

__all__ = ["WDA_DEVICE_PORT", "UsbIphone", "find_iphone", "list_iphones"]

_log = logging.getLogger("mobster.drivers.usb")

#: The port WebDriverAgent listens on, on the phone.
WDA_DEVICE_PORT = 8100
#: How long discovery and starting the forwarder may take, in seconds.
_CONNECT_SECONDS = 30.0


async def _usb_devices(usbmux_address: str | None) -> list[Any]:
    """The phones usbmux lists over USB (Rule 1)."""
    from pymobiledevice3.exceptions import PyMobileDevice3Exception
    from pymobiledevice3.usbmux import list_devices

    try:
        return [d for d in await list_devices(usbmux_address=usbmux_address) if d.is_usb]
    except (PyMobileDevice3Exception, OSError) as exc:
        raise usb_error(exc, "usbmuxd") from exc


async def list_iphones(*, lockdown: Lockdown, usbmux_address: str | None = None) -> list[PhoneFacts]:
    """Every iPhone connected over USB, with its facts; one lockdown refuses is left out (``mobster init``)."""
    found = []
    for device in await _usb_devices(usbmux_address):
        with contextlib.suppress(DeviceError):
            found.append(await lockdown.facts(device.serial))
    return found


async def find_iphone(name: str, *, lockdown: Lockdown, usbmux_address: str | None = None) -> PhoneFacts:
    """The USB phone ``name`` (a UDID or a device name) and its facts (Rule 1)."""
    devices = await _usb_devices(usbmux_address)
    if not devices:
        raise DeviceError(
            "no iPhone is connected over USB (usbmuxd lists none): connect it with a cable, unlock it and trust "
            "this computer"
        )
    wanted = name.strip()
    by_udid = [d for d in devices if d.matches_udid(wanted)]
    if by_udid:
        return await lockdown.facts(by_udid[0].serial)
    found: list[PhoneFacts] = []
    seen: list[str] = []
    for device in devices:
        try:
            facts = await lockdown.facts(device.serial)
        except DeviceError as exc:
            seen.append(f"{device.serial} ({exc})")
            continue
        seen.append(f"{facts.name!r} ({facts.udid})")
        if facts.name == wanted or facts.name.casefold() == wanted.casefold():
            found.append(facts)
    if len(found) == 1:
        return found[0]
    if found:
        listing = ", ".join(f.udid for f in found)
        raise DeviceError(f"{len(found)} iPhones are called {wanted!r} ({listing}): pass the UDID instead")
    raise DeviceError(f"no iPhone called {wanted!r} (name or UDID) over USB; connected: {'; '.join(seen)}")


class _Forwarding:
    """A started ``UsbmuxTcpForwarder`` and its task, on the driver's loop."""

    def __init__(self, forwarder: Any, task: asyncio.Task[Any]) -> None:
        self.forwarder = forwarder
        self.task = task

    @property
    def port(self) -> int:
        port = self.forwarder.listening_port
        if not isinstance(port, int):
            raise DeviceError("the USB port forwarder has no listening port")
        return port

    async def stop(self) -> None:
        self.forwarder.stop()
        with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError, Exception):
            await asyncio.wait_for(self.task, 5.0)


async def _forward(udid: str, device_port: int, usbmux_address: str | None) -> _Forwarding:
    from pymobiledevice3.tcp_forwarder import UsbmuxTcpForwarder

    ready = asyncio.Event()
    forwarder: Any = UsbmuxTcpForwarder(udid, device_port, 0, listening_event=ready, usbmux_address=usbmux_address)
    task = asyncio.ensure_future(forwarder.start("127.0.0.1"))
    waiter = asyncio.ensure_future(ready.wait())
    done, _ = await asyncio.wait({task, waiter}, timeout=10.0, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if task in done:
        exc = task.exception()
        raise DeviceError(f"the USB port forwarder stopped at once ({exc!r})") from exc
    if not done:
        forwarder.stop()
        raise DeviceError("the USB port forwarder did not start listening within 10 s")
    return _Forwarding(forwarder, task)


class UsbIphone(WdaHosted):
    """An iPhone over USB: usbmux + a forwarded WDA port; ``Device`` and ``Screenshots``.

    Make one with :meth:`connect`; :meth:`close` it when done (it stops the forwarder). See the
    module rules; what isn't lockdown's is the WDA device's
    (:class:`~mobster_drivers.devices.wda.WdaHosted`).
    """

    def __init__(self, facts: PhoneFacts, *, wda: WdaDevice, loop: LoopThread, forwarding: _Forwarding) -> None:
        super().__init__(wda)
        self._facts = facts
        self._loop = loop
        self._forwarding = forwarding
        self._closed = False

    @classmethod
    def connect(
        cls,
        name: str,
        *,
        usbmux_address: str | None = None,
        lockdown: Lockdown | None = None,
        device_port: int = WDA_DEVICE_PORT,
        timeouts: WdaTimeouts | None = None,
    ) -> UsbIphone:
        """Find the phone ``name`` (or UDID), forward a local port to its WDA, check WDA answers.

        ``usbmux_address`` is usbmuxd's socket (a path, or ``HOST:PORT``; default the system's, or
        ``$USBMUXD_SOCKET_ADDRESS``). ``lockdown`` defaults to pymobiledevice3's. Blocking.
        """
        reader = lockdown if lockdown is not None else PymobiledeviceLockdown(usbmux_address)
        loop = LoopThread("mobster-usb")
        try:
            facts = loop.call(find_iphone(name, lockdown=reader, usbmux_address=usbmux_address), _CONNECT_SECONDS)
            forwarding = loop.call(_forward(facts.udid, device_port, usbmux_address), _CONNECT_SECONDS)
        except TimeoutError as exc:
            loop.stop()
            raise DeviceError(f"finding the iPhone {name!r} over USB took more than {_CONNECT_SECONDS:g} s") from exc
        except BaseException:
            loop.stop()
            raise
        url = f"http://127.0.0.1:{forwarding.port}"
        device = WdaDevice(
            url, kind=DeviceKind.IPHONE, name=facts.name, ios=facts.ios, udid=facts.udid, timeouts=timeouts
        )
        phone = cls(facts, wda=device, loop=loop, forwarding=forwarding)
        try:
            device.status_sync()
        except DeviceError as exc:
            phone.close()
            raise DeviceError(
                f"WebDriverAgent isn't answering on {facts.name}'s port {device_port} (forwarded to {url}): start "
                f"WebDriverAgentRunner on the phone (see docs/drivers.md) and keep the phone unlocked. ({exc})"
            ) from exc
        _log.debug("USB iPhone %s (%s) on %s", facts.name, facts.udid, url)
        return phone

    @property
    def facts(self) -> PhoneFacts:
        """What lockdown said about the phone."""
        return self._facts

    @property
    def udid(self) -> str:
        """The phone's UDID."""
        return self._facts.udid

    @property
    def local_port(self) -> int:
        """The local port forwarded to WDA on the phone."""
        return self._forwarding.port

    def close(self) -> None:
        """Stop the port forwarder and its loop (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        self._wda.close()
        with contextlib.suppress(RuntimeError, TimeoutError):
            self._loop.call(self._forwarding.stop(), 10.0)
        self._loop.stop()

    # -- Device ------------------------------------------------------------------------------

    def event_refusal(self, event: DeviceEvent) -> str | None:
        """Rule 6: a USB iPhone takes no device step."""
        if event.op is Op.PUSH:
            return (
                f"{self._facts.name} is a USB iPhone: a push reaches a real iPhone only through APNs, with the "
                "app's own credentials; run the check on a simulator"
            )
        name = self._facts.name
        return f"{name} is a USB iPhone: iOS can't fake a face or a fingerprint on one; run the check on a simulator"

    async def send_event(self, event: DeviceEvent) -> None:
        """Rule 6: refused; nothing is sent (``DeviceError``)."""
        raise DeviceError(self.event_refusal(event) or "a USB iPhone takes no device step")

    async def info(self) -> DeviceInfo:
        """The phone's name and iOS version from lockdown, kind iphone (Rule 4); its locale from WDA."""
        f = self._facts
        locale, appearance = await asyncio.to_thread(self._wda.locale_sync)
        return DeviceInfo(
            name=f.name, ios=f.ios, kind=DeviceKind.IPHONE, udid=f.udid, locale=locale, appearance=appearance
        )
