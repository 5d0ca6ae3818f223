"""Android phones and emulators through the UiAutomator2 server and ``adb`` (``docs/android.md``).

::

    from mobster_drivers.devices.android import AndroidDevice

    device = AndroidDevice("emulator-5554")  # or None: the only device adb lists
    ...
    device.close()
"""

from __future__ import annotations

from ._adb import find_adb
from ._device import AndroidDevice, AndroidTimeouts

__all__ = ["AndroidDevice", "AndroidTimeouts", "find_adb"]
