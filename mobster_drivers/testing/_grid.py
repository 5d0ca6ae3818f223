"""Selenium Grid 4's slot matching: whether a new session's capabilities fit a node's stereotype.

Pure: what the fake Appium's hub (``appium`` Rule 9) asks before it queues a request. Read from
SeleniumHQ/selenium's ``java/src/org/openqa/selenium/grid/data/DefaultSlotMatcher.java`` (Grid 4,
the matcher every node uses unless configured otherwise) and ``java/src/org/openqa/selenium/
Platform.java`` (``fromString``, ``is``) and ``Capabilities.getPlatformName``. ``stereotype`` is
what a node offers (``{"platformName": "Android", "appium:automationName": "UiAutomator2",
"appium:udid": "emulator-5554", …}``); ``caps`` is one merged capabilities set of the request
(``alwaysMatch`` with one ``firstMatch`` entry).

Rule 1: capabilities with no key match no slot.
Rule 2 (``initialMatch``): each stereotype name without a ``:`` but ``platformName`` must fit
        the request's value: a text compared with the stereotype's ignoring case; any other value
        equal to it, or absent.
Rule 3 (``managedDownloadsEnabled``): a request whose ``se:downloadsEnabled`` reads as true
        fits only a stereotype whose own reads as true.
Rule 4 (``platformVersionMatch``): every request name that contains ``platformVersion``
        (``appium:platformVersion``) must equal the stereotype's value of that name exactly: ``"14"``
        is not ``"14.0"`` nor ``14``, and a stereotype without it fits no request that gives it.
Rule 5 (``extensionCapabilitiesMatch``): each stereotype name with a ``:`` that the request
        also gives (``appium:automationName``, ``appium:deviceName``, ``appium:udid``), but for the
        ``goog:``, ``moz:``, ``ms:`` and ``se:`` ones, fits as in Rule 2 (a text ignoring case). A
        name the request leaves out is not compared: a request without ``appium:udid`` fits every
        phone's stereotype.
Rule 6: a request's non-empty ``browserName`` or ``browserVersion`` must equal the stereotype's
        (case counts): an Appium phone's stereotype names no browser, so a browser request fits none.
Rule 7 (``platformName``): a request without one fits any stereotype, and so does one Grid can't
        read as a platform (``Platform.fromString`` throws and ``getPlatformName`` gives null:
        ``"Androidd"`` fits every phone, and the node then refuses it); ``any`` fits any; else it
        must name the stereotype's platform, whatever its case (``IOS``, ``ios``; ``dalvik`` is
        Android). A desktop platform (``Windows``, ``mac``, ``linux``, ``""``, which Grid reads as
        Windows) fits no phone.

Not modelled: Grid's slot selector (which of several matching slots a request gets: the fake
takes the first free one in the hub's order), relative ``browserVersion`` matching, and the
platform names of ``Platform.java`` beyond the desktop ones listed in :data:`_DESKTOP`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["fits", "platform_of"]

#: Names ``Platform.fromString`` reads as a platform that is no phone's (Rule 7), lower-cased.
_DESKTOP = frozenset(
    {
        "", "windows", "xp", "vista", "win7", "win8", "win8_1", "win10", "win11", "winnt", "windows nt",
        "windows 7", "windows 8", "windows 8.1", "windows 10", "windows 11", "windows vista", "mac", "darwin",
        "macos", "mac os x", "os x", "unix", "linux", "solaris", "bsd", "sierra", "high_sierra", "mojave",
        "catalina", "big_sur", "monterey", "ventura", "sonoma", "sequoia",
    }
)  # fmt: skip
_PHONES = {"ios": "ios", "android": "android", "dalvik": "android", "any": "any"}
_UNCOMPARED = ("goog:", "moz:", "ms:", "se:")


def platform_of(value: Any) -> str | None:
    """Rule 7: the platform Grid reads ``value`` as: ``ios``, ``android``, ``any``, ``desktop``, or None (unread)."""
    if not isinstance(value, str):
        return None
    lowered = value.lower()
    if lowered in _PHONES:
        return _PHONES[lowered]
    return "desktop" if lowered in _DESKTOP else None


def fits(stereotype: Mapping[str, Any], caps: Mapping[str, Any]) -> bool:
    """Whether ``caps`` fit the slot ``stereotype`` offers (Rules 1-7)."""
    if not caps:
        return False
    plain = [n for n in stereotype if ":" not in n and n.lower() != "platformname"]
    versions = [n for n in caps if "platformVersion" in n]
    extensions = [n for n in stereotype if ":" in n and n in caps and not any(p in n for p in _UNCOMPARED)]
    browsers = [n for n in ("browserName", "browserVersion") if isinstance(caps.get(n), str) and caps[n]]
    asked_platform = platform_of(caps.get("platformName"))
    return (
        all(_same(stereotype[n], caps.get(n)) for n in plain)
        and (not _truthy(caps.get("se:downloadsEnabled")) or _truthy(stereotype.get("se:downloadsEnabled")))
        and all(n in stereotype and _equal(stereotype[n], caps[n]) for n in versions)
        and all(_same(stereotype[n], caps[n]) for n in extensions)
        and all(stereotype.get(n) == caps[n] for n in browsers)
        and (asked_platform in (None, "any") or platform_of(stereotype.get("platformName")) == asked_platform)
    )


def _same(offered: Any, asked: Any) -> bool:
    """Rules 2 and 5: a text ignoring case; anything else equal, or not asked."""
    if isinstance(asked, str):
        return str(offered).lower() == asked.lower()  # Java's toString: ``true``, ``14``, ``14.0``
    return asked is None or _equal(offered, asked)


def _equal(offered: Any, asked: Any) -> bool:
    """Java's ``Objects.equals`` over JSON values: a boolean is never a number, ``14`` never ``"14"``."""
    if isinstance(offered, bool) or isinstance(asked, bool):
        return type(offered) is type(asked) and offered == asked
    if isinstance(offered, str) != isinstance(asked, str):
        return False
    return bool(offered == asked)


def _truthy(value: Any) -> bool:
    """``Boolean.parseBoolean(raw.toString())``: only ``true``, whatever its case."""
    return value is not None and str(value).lower() == "true"
