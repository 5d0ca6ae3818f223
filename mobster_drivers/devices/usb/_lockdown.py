"""A USB iPhone's facts over lockdown, behind a small interface, and pymobiledevice3's errors mapped.

Rule 1: :class:`Lockdown` is all the USB driver asks of lockdown: a phone's name and iOS version.
        :class:`PymobiledeviceLockdown` reads them with pymobiledevice3 (imported lazily, never
        pairing by itself: pairing is the user's "Trust this computer"); tests use
        ``mobster_drivers.testing.usbmuxd.FakeLockdown``.
Rule 2: :func:`usb_error` turns pymobiledevice3's exceptions into a :class:`DeviceError` that says
        what to do: no usbmuxd, no phone, a phone that doesn't trust this computer, a locked phone.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs

from mobster_core import DeviceError

__all__ = ["Lockdown", "PhoneFacts", "PymobiledeviceLockdown", "usb_error"]


@attrs.frozen
class PhoneFacts:
    """What lockdown says about a phone: its UDID, name (``DeviceName``) and iOS version."""

    udid: str
    name: str
    ios: str
    product_type: str = ""


@runtime_checkable
class Lockdown(Protocol):
    """**Protocol:** reads a USB phone's facts over lockdown (Rule 1)."""

    async def facts(self, udid: str) -> PhoneFacts:
        """The phone's facts; ``DeviceError`` (from :func:`usb_error`) when lockdown refuses."""
        ...


class PymobiledeviceLockdown:
    """:class:`Lockdown` with pymobiledevice3 (``create_using_usbmux(autopair=False)``)."""

    def __init__(self, usbmux_address: str | None = None) -> None:
        self._address = usbmux_address

    async def facts(self, udid: str) -> PhoneFacts:
        """Read ``DeviceName``, ``ProductVersion`` and ``ProductType`` (Rule 1)."""
        from pymobiledevice3.exceptions import PyMobileDevice3Exception
        from pymobiledevice3.lockdown import create_using_usbmux

        try:
            client = await create_using_usbmux(serial=udid, autopair=False, usbmux_address=self._address)
        except (PyMobileDevice3Exception, OSError) as exc:
            raise usb_error(exc, udid) from exc
        try:
            info = dict(client.short_info)
            name = str(info.get("DeviceName") or udid)
            ios = str(client.product_version)
            product = str(info.get("ProductType") or "")
        except (PyMobileDevice3Exception, OSError, KeyError) as exc:
            raise usb_error(exc, udid) from exc
        finally:
            await client.close()
        return PhoneFacts(udid, name, ios, product)


def usb_error(exc: BaseException, who: str) -> DeviceError:
    """A :class:`DeviceError` saying what to do about a pymobiledevice3 failure (Rule 2)."""
    from pymobiledevice3 import exceptions as pmd3

    if isinstance(exc, pmd3.ConnectionFailedToUsbmuxdError):
        return DeviceError(
            "can't reach usbmuxd, the USB multiplexing daemon: on macOS it runs by itself; on Linux install "
            "and start it (apt install usbmuxd), or point USBMUXD_SOCKET_ADDRESS at it"
        )
    if isinstance(exc, pmd3.PasswordRequiredError | pmd3.PasscodeRequiredError):
        return DeviceError(f"{who} is locked: unlock it (enter the passcode) and run again")
    if isinstance(
        exc,
        pmd3.NotPairedError
        | pmd3.NotTrustedError
        | pmd3.PairingDialogResponsePendingError
        | pmd3.UserDeniedPairingError
        | pmd3.InvalidHostIDError
        | pmd3.FatalPairingError
        | pmd3.PairingError,
    ):
        return DeviceError(
            f"{who} doesn't trust this computer: unlock it, tap Trust on the 'Trust This Computer?' prompt and "
            "enter the passcode (reconnect the cable to see the prompt again), then run again"
        )
    if isinstance(exc, pmd3.NoDeviceConnectedError | pmd3.DeviceNotFoundError):
        return DeviceError(f"{who} is not connected over USB: connect it with a cable and unlock it")
    if isinstance(exc, pmd3.ConnectionFailedError | pmd3.MuxException):
        return DeviceError(f"usbmuxd couldn't connect to {who} ({type(exc).__name__}: {exc or 'no detail'})")
    return DeviceError(f"{who}: {type(exc).__name__}: {exc or 'no detail'}")
