"""The USB iPhone driver (``mobster test --device NAME``): usbmux + WebDriverAgent.

::

    from mobster_drivers.devices.usb import UsbIphone

    phone = UsbIphone.connect("Ada's iPhone")  # or its UDID
    try:
        ...
    finally:
        phone.close()

pymobiledevice3 (the ``usb`` extra, ``mobster-replay[usb]``, imported lazily) lists the phones over usbmux,
reads the name and iOS version over lockdown (behind :class:`Lockdown`), and forwards a local
port to WDA's port 8100 on the phone. WebDriverAgent must be running on the phone; on Linux the
usbmuxd daemon must be running too. See ``docs/drivers.md``.
"""

from __future__ import annotations

from ._device import WDA_DEVICE_PORT, UsbIphone, find_iphone, list_iphones
from ._lockdown import Lockdown, PhoneFacts, PymobiledeviceLockdown, usb_error

__all__ = [
    "WDA_DEVICE_PORT",
    "Lockdown",
    "PhoneFacts",
    "PymobiledeviceLockdown",
    "UsbIphone",
    "find_iphone",
    "list_iphones",
    "usb_error",
]
