"""Sessions, status and settings: WDA's ``FBSessionCommands`` (and ``/timeouts``).

``POST /session`` makes a session (its ``bundleId`` capability launches the app, with its
``arguments`` and ``environment``) and ends the one before; ``DELETE /session/{id}`` ends it.
``/status`` and ``/wda/healthcheck`` exist only without a session (Rule 2, ``dispatch``); the
settings are Rule 10's (``state``).

Routes (appium-webdriveragent 16.12.9, ``Commands/FB<name>Commands.m:line``; ``GET /`` and
``DELETE /`` are ``/session/{id}`` itself; these two and ``POST /session`` are answered by
``dispatch`` before the table):

    ``DELETE /`` (FBSession:51); ``GET /`` (FBSession:50); ``GET /appium/settings`` (FBSession:58);
    ``POST /appium/settings`` (FBSession:59); ``POST /session`` (FBSession:44);
    ``GET /status`` (FBSession:52); ``POST /timeouts`` (FBCustom:44);
    ``GET /wda/healthcheck`` (FBSession:55).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mobster_core import DeviceKind

from .state import Wda
from .table import Routes
from .wire import WdaFailure

__all__ = ["ROUTES", "create_session", "session_route"]

ROUTES = Routes()


@ROUTES.serves("GET", "/status")
async def _status(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    device = wda.script.device
    ios: dict[str, Any] = {"ip": "127.0.0.1"}
    if device.kind is DeviceKind.SIMULATOR:
        ios["simulatorVersion"] = device.ios
    return {
        "ready": True,
        "message": "WebDriverAgent is ready to accept commands",
        "state": "success",
        "os": {"name": "iOS", "version": device.ios, "sdkVersion": device.ios, "testmanagerdVersion": 65},
        "ios": ios,
        "build": {"time": "Jan  1 2026 00:00:00", "productBundleIdentifier": "com.facebook.WebDriverAgentRunner"},
        "device": "iphone",
    }


@ROUTES.serves("GET", "/wda/healthcheck")
async def _healthcheck(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None


@ROUTES.serves("GET", "/appium/settings")
async def _get_settings(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return dict(wda.settings)


@ROUTES.serves("POST", "/appium/settings")
async def _set_settings(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    settings = body.get("settings")
    if not isinstance(settings, Mapping):
        raise WdaFailure(400, "invalid argument", "'settings' must be an object")
    wda.update_settings(settings)  # Rule 10: WDA 9 reads the settings it knows; the rest go unnoticed
    return dict(wda.settings)


@ROUTES.serves("POST", "/timeouts")
async def _timeouts(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None  # FBCustomCommands.m:134-138: "intentionally not supported"


async def create_session(wda: Wda, body: dict[str, Any]) -> tuple[Any, str | None]:
    """``POST /session``: a new session (its app launched when the capabilities name one), and its id."""
    caps: Mapping[str, Any] = {}
    capabilities = body.get("capabilities")
    if isinstance(capabilities, Mapping) and isinstance(capabilities.get("alwaysMatch"), Mapping):
        caps = capabilities["alwaysMatch"]
    elif isinstance(body.get("desiredCapabilities"), Mapping):
        caps = body["desiredCapabilities"]
    session = wda.open_session()  # FBSessionCommands.m:93: a new session ends the one before
    bundle = caps.get("bundleId")
    if isinstance(bundle, str) and bundle:
        await wda.launch(bundle, caps.get("arguments"), caps.get("environment"))
    return {"sessionId": session, "capabilities": _capabilities(wda)}, session


def session_route(wda: Wda, method: str, session: str | None) -> Any:
    """``GET`` and ``DELETE /session/{id}``: the session's capabilities, or its end."""
    if method == "DELETE":
        wda.end_session()
        return None
    return {"sessionId": session, "capabilities": _capabilities(wda)}


def _capabilities(wda: Wda) -> dict[str, Any]:
    front = wda.phone.front
    return {
        "device": "iphone",
        "sdkVersion": wda.script.device.ios,
        "browserName": wda.app_name(front),
        "CFBundleIdentifier": front,
    }
