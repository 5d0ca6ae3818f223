"""What a WebDriverAgent session is set up with, and what its device info says.

Shared by the WDA device and the Appium device (the XCUITest driver proxies to the same WDA); how
an action is named in messages is ``gestures``'. ``/wda/device/info`` (and Appium's
``mobile: deviceInfo``, which proxies it) carries ``currentLocale`` (``en_US``) and
``userInterfaceStyle`` (``light``, ``dark``, or ``unknown`` / ``unsupported`` where XCTest can't
tell: WDA's ``FBCustomCommands``); :func:`locale_and_appearance` reads them, None for anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mobster_core.protocols import Appearance
from mobster_core.text import normal_locale

__all__ = ["SESSION_SETTINGS", "locale_and_appearance"]

#: The settings applied to that session (Rule 4): Mobster's, without the two WDA 9 removed, and
#: element replies that say which element they are.
SESSION_SETTINGS: Mapping[str, Any] = {
    "snapshotMaxDepth": 60,
    "waitForIdleTimeout": 0,
    "animationCoolOffTimeout": 0,
    "shouldUseCompactResponses": False,
    "elementResponseAttributes": "type,label,rect",
}


def locale_and_appearance(details: Mapping[str, Any]) -> tuple[str | None, Appearance | None]:
    """The device info's ``currentLocale`` and ``userInterfaceStyle``, each None when it doesn't say."""
    locale = details.get("currentLocale")
    try:
        known = normal_locale(locale) if isinstance(locale, str) else None
    except ValueError:
        known = None
    style = details.get("userInterfaceStyle")
    appearance = Appearance(style) if style in {a.value for a in Appearance} else None
    return known, appearance
