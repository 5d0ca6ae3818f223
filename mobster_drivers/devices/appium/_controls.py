"""What the Appium device sends for a check's device settings, and where a cloud keeps its video. Pure.

Rule 1: the settings are XCUITest's execute methods (its ``execute-method-map``), sent in order:
        ``mobile: setSimulatedLocation {latitude, longitude}``, ``mobile: setAppearance
        {style}``, ``mobile: enrollBiometric {isEnabled}``. XCUITest has no content-size command
        (only ``mobile: simctl``, which a server must allow as an insecure feature): a check that
        asks for a content size is refused on Appium, saying to use the simulator driver.
Rule 2: the settings, a push (``mobile: pushNotification {bundleId, payload}``) and a biometric
        match (``mobile: sendBiometricMatch {type, match}``) need a simulator session (XCUITest
        refuses them elsewhere): on an iPhone or a cloud's phone they are refused before anything
        is sent.
Rule 3: a local video is XCTest's own recorder (``mobile: startXCTestScreenRecording``, iOS 17 and
        later, no ffmpeg on the Appium host), stopped with ``mobile: stopXCTestScreenRecording``,
        whose ``payload`` is the video as base64. A cloud records every session itself: nothing
        is started there, and the result links the provider's page of the session, built from
        the session id (no API call, no download): Sauce Labs ``https://app.<region>.saucelabs.com
        /tests/<session id>`` (the region from the server's host, ``ondemand.<region>.…``),
        BrowserStack ``https://app-automate.browserstack.com/dashboard/v2/sessions/<session id>``.
        LambdaTest's page needs its test id, which the session doesn't name: no link.
Rule 4: the permissions a launch names (``LaunchOptions.permissions``, from the check's alert
        policy) are one ``mobile: setPermission {bundleId, access}`` on a simulator session, each
        service under XCUITest's name with ``yes`` or ``no`` (:data:`SET_PERMISSION_NAMES`:
        ``location`` and ``location-always`` go through ``simctl privacy``, the rest through the
        simulator's TCC database; ``tracking`` is ``usertracking``, ``media-library``
        ``medialibrary``). ``notifications``, ``bluetooth`` and ``photos-add`` have no such name
        (XCUITest 12.13 dropped ``notifications``): their prompts are answered as they show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from mobster_core.protocols import DeviceSettings

from ._caps import Provider

__all__ = ["SET_PERMISSION_NAMES", "permission_access", "settings_commands", "settings_refusal", "video_link"]

_SAUCE_HOST = re.compile(r"ondemand\.([a-z0-9-]+)\.saucelabs\.com")


def settings_refusal(settings: DeviceSettings) -> str | None:
    """Rule 1: why Appium can't apply ``settings``, or None."""
    if settings.content_size is not None:
        return (
            "Appium's XCUITest driver has no content-size command: run this check on the simulator driver "
            "(--sim), or drop content_size"
        )
    return None


def settings_commands(settings: DeviceSettings) -> list[tuple[str, dict[str, Any]]]:
    """Rule 1: the ``mobile:`` commands (name, arguments) that apply ``settings``, in order."""
    out: list[tuple[str, dict[str, Any]]] = []
    if settings.location is not None:
        out.append(("setSimulatedLocation", {"latitude": settings.location[0], "longitude": settings.location[1]}))
    if settings.appearance is not None:
        out.append(("setAppearance", {"style": settings.appearance.value}))
    if settings.biometrics_enrolled is not None:
        out.append(("enrollBiometric", {"isEnabled": settings.biometrics_enrolled}))
    return out


#: Rule 4: Mobster's service names (``_rules/device/alerts``) as XCUITest's ``mobile: setPermission`` takes them.
SET_PERMISSION_NAMES = {
    "location": "location",
    "location-always": "location-always",
    "camera": "camera",
    "microphone": "microphone",
    "photos": "photos",
    "contacts": "contacts",
    "calendar": "calendar",
    "reminders": "reminders",
    "tracking": "usertracking",
    "motion": "motion",
    "media-library": "medialibrary",
    "siri": "siri",
    "speech": "speech",
    "health": "health",
    "homekit": "homekit",
    "faceid": "faceid",
}


def permission_access(permissions: Mapping[str, bool]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Rule 4: ``setPermission``'s ``access`` for ``permissions``, and the services it can't set."""
    access: dict[str, str] = {}
    left: list[str] = []
    for service, allow in permissions.items():
        name = SET_PERMISSION_NAMES.get(service)
        if name is None:
            left.append(service)
        else:
            access[name] = "yes" if allow else "no"
    return access, tuple(left)


def video_link(provider: Provider | None, server: str, session: str | None) -> str | None:
    """Rule 3: the cloud's page of the session's video, or None."""
    if session is None or not re.fullmatch(r"[A-Za-z0-9-]{1,128}", session):
        return None
    sid = quote(session, safe="")
    if provider is Provider.SAUCE:
        match = _SAUCE_HOST.fullmatch((urlsplit(server).hostname or "").lower())
        region = match.group(1) if match else "us-west-1"
        host = "app.saucelabs.com" if region == "us-west-1" else f"app.{region}.saucelabs.com"
        return f"https://{host}/tests/{sid}"
    if provider is Provider.BROWSERSTACK:
        return f"https://app-automate.browserstack.com/dashboard/v2/sessions/{sid}"
    return None
