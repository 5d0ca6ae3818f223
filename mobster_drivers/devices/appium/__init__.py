"""The Appium device: a phone behind an Appium server, a Selenium Grid or a device cloud.

::

    from mobster_core import SystemClock
    from mobster_drivers.devices.appium import appium_device, load_caps

    caps = load_caps("browserstack.json")  # ${ENV} references expanded; keys kept secret
    device = appium_device("https://hub.browserstack.com/wd/hub", caps, SystemClock(), bundle="com.example.app")
    screen = await device.read()

It drives the XCUITest driver's ``mobile:`` commands through Appium-Python-Client
(the ``appium`` extra, ``mobster-replay[appium]``, imported when a device is made), reads WebDriverAgent's own
JSON tree with the WDA driver's parser and visibility rules (the verdict's ``read_evidence`` keeps
WDA's own ``visible``; ``check_target`` asks WDA before an action whether its element is visible),
sends each action once and maps errors to ``DeviceError`` and ``UnknownOutcome`` (see
``_device``'s rules, ``docs/drivers.md`` and ``docs/scale.md``).
``mobster_drivers.testing.appium`` serves a scripted phone over the same protocol for tests.
"""

from __future__ import annotations

from ._bundle import BundleInfo, read_bundle_info
from ._caps import (
    CAPS_ENV,
    NEW_COMMAND_TIMEOUT,
    REQUIRED_CAPABILITIES,
    AppiumCaps,
    CapsError,
    Provider,
    detect_provider,
    load_caps,
    scrub,
    session_capabilities,
)
from ._device import (
    EVIDENCE_ARGS,
    QUERY_SETTINGS,
    QUERY_STRATEGY,
    REFUSED_ERRORS,
    SOURCE_ARGS,
    AppiumDevice,
    AppiumTimeouts,
    appium_device,
)
from ._provider import provider_scripts
from ._wire import (
    AppiumBadReply,
    AppiumErrorReply,
    AppiumNoReply,
    AppiumTransportError,
    AppiumUnreachable,
)

__all__ = [
    "CAPS_ENV",
    "EVIDENCE_ARGS",
    "NEW_COMMAND_TIMEOUT",
    "QUERY_SETTINGS",
    "QUERY_STRATEGY",
    "REFUSED_ERRORS",
    "REQUIRED_CAPABILITIES",
    "SOURCE_ARGS",
    "AppiumBadReply",
    "AppiumCaps",
    "AppiumDevice",
    "AppiumErrorReply",
    "AppiumNoReply",
    "AppiumTimeouts",
    "AppiumTransportError",
    "AppiumUnreachable",
    "BundleInfo",
    "CapsError",
    "Provider",
    "appium_device",
    "detect_provider",
    "load_caps",
    "provider_scripts",
    "read_bundle_info",
    "scrub",
    "session_capabilities",
]
