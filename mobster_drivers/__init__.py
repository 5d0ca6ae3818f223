"""Mobster replay's drivers, by job: devices, models, and fakes.

- :mod:`mobster_drivers.devices`: the scripted phone, WebDriverAgent, simulator, USB iPhone, Appium;
- :mod:`mobster_drivers.models`: Anthropic, OpenAI and the scripted model;
- :mod:`mobster_drivers.testing`: fake servers on loopback (WDA, Appium, usbmuxd, ``xcrun``, the
  model APIs) for your tests and ours.

The paths of 0.1.0's first layout (``mobster_drivers.scripted``, ``.wda``, ``.simulator``,
``.usb``, ``.appium``, ``.pool`` and ``.fakes``, the last also as ``python -m
mobster_drivers.fakes.wda``) still import, and so does the harness's
(``mobster_drivers.harness``, now :mod:`mobster_harness`, a package above the drivers): each is
the module of its new home (:mod:`._moved`).
"""

from ._moved import install as _install

_install()
