"""The devices: each a :class:`mobster_core.Device` that passes ``mobster_core.testing.check_device``.

- :mod:`~mobster_drivers.devices.scripted`: the scripted phone (an app script on an injected clock);
- :mod:`~mobster_drivers.devices.wda`: any WebDriverAgent at a URL;
- :mod:`~mobster_drivers.devices.simulator`: an iOS simulator (``xcrun simctl`` and its WDA);
- :mod:`~mobster_drivers.devices.usb`: a USB iPhone (pymobiledevice3 and its WDA);
- :mod:`~mobster_drivers.devices.appium`: a phone behind an Appium server, a Grid or a cloud.

Each imports its vendor library only when a device is made; a device never imports another
device's private modules, nor :mod:`mobster_drivers.testing`.
"""
