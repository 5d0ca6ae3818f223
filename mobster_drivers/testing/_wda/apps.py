"""Apps, home and buttons: launching, activating and terminating apps, the home screen, URLs.

Rule 5: ``/wda/apps/launch`` of an app that is running only activates it, its arguments and
        environment dropped (``FBSession.m:397-403``); ``/wda/pressButton`` lowercases the name
        (``XCUIDevice+FBHelpers.m:346``: ``HOME`` is ``home``), and a button the device hasn't (a
        simulator has no volume buttons) is WDA's 500 ``unknown error``. (Taps and typing, the
        rest of Rule 5, are ``actions``'s.)

Routes (appium-webdriveragent 16.12.9, ``Commands/FB<name>Commands.m:line``):

    ``POST /url`` (FBSession:43); ``GET /wda/activeAppInfo`` (FBCustom:58, FBCustom:59);
    ``POST /wda/apps/activate`` (FBSession:46); ``POST /wda/apps/launch`` (FBSession:45);
    ``POST /wda/apps/launchUnattached`` (FBCustom:76); ``GET /wda/apps/list`` (FBSession:49);
    ``POST /wda/apps/state`` (FBSession:48); ``POST /wda/apps/terminate`` (FBSession:47);
    ``POST /wda/deactivateApp`` (FBCustom:46); ``POST /wda/homescreen`` (FBCustom:45);
    ``POST /wda/pressButton`` (FBCustom:67).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mobster_core import Action, DeviceKind, Op
from mobster_core.protocols import SPRINGBOARD

from .state import Wda
from .table import Routes
from .wire import WdaFailure, is_number

__all__ = ["ROUTES"]

ROUTES = Routes()


@ROUTES.serves("POST", "/wda/apps/launch")
async def _apps_launch(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    bundle = _bundle(body)
    if wda.phone.screen_name(bundle) is not None:
        # FBSession.m:397-403: a running app is only activated; its arguments are not applied.
        wda.unfocus()
        await wda.act(Action(Op.LAUNCH_APP, text=bundle))
        return
    await wda.launch(bundle, body.get("arguments"), body.get("environment"))


@ROUTES.serves("POST", "/wda/apps/activate")
async def _apps_activate(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    bundle = _bundle(body)
    wda.unfocus()
    await wda.act(Action(Op.LAUNCH_APP, text=bundle))


@ROUTES.serves("POST", "/wda/apps/terminate")
async def _apps_terminate(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    return wda.terminate(_bundle(body))


@ROUTES.serves("POST", "/wda/apps/state")
async def _apps_state(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    return _state(wda, _bundle(body))


@ROUTES.serves("GET", "/wda/apps/list")
async def _apps_list(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return [{"pid": wda.pid(b), "bundleId": b} for b in wda.script.apps if wda.phone.screen_name(b) is not None]


@ROUTES.serves("POST", "/wda/apps/launchUnattached")
async def _launch_unattached(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    bundle = body.get("bundleId")
    if not isinstance(bundle, str) or bundle not in wda.script.apps:
        raise WdaFailure(500, "unknown error", "LSApplicationWorkspace failed to launch app")
    await wda.launch(bundle, [], {})


@ROUTES.serves("GET", "/wda/activeAppInfo")
async def _active_app(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    front = wda.phone.front
    launched = wda.launched_with(front)
    return {
        "pid": wda.pid(front),
        "bundleId": front,
        "name": wda.app_name(front),
        "processArguments": {"args": list(launched.args), "env": dict(launched.env)},
    }


@ROUTES.serves("POST", "/wda/deactivateApp")
async def _deactivate(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    front = wda.phone.front
    duration = body.get("duration", 3.0)
    wda.unfocus()
    await wda.act(Action(Op.HOME))
    await wda.phone.clock.sleep(float(duration) if is_number(duration) else 3.0)
    if front != SPRINGBOARD:
        await wda.act(Action(Op.LAUNCH_APP, text=front))


@ROUTES.serves("POST", "/wda/homescreen")
async def _homescreen(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    wda.unfocus()
    await wda.act(Action(Op.HOME))


@ROUTES.serves("POST", "/wda/pressButton")
async def _press_button(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    name = body.get("name")
    # XCUIDevice+FBHelpers.m:342-356: the name is lowercased; a simulator has no volume buttons.
    buttons = ["home"] if wda.script.device.kind is DeviceKind.SIMULATOR else ["home", "volumedown", "volumeup"]
    lowered = name.lower() if isinstance(name, str) else None
    if lowered == "home":
        wda.unfocus()
        await wda.act(Action(Op.HOME))
    elif lowered not in buttons:
        listed = "".join(f"\n    {b}," for b in buttons).rstrip(",")
        raise WdaFailure(
            500,
            "unknown error",
            f"Error Domain=com.facebook.WebDriverAgent Code=1 \"The button '{name}' is not supported. The device "
            f'under test only supports the following buttons: ({listed}\n)" UserInfo={{NSLocalizedDescription='
            f"The button '{name}' is not supported. The device under test only supports the following buttons: "
            f"({listed}\n)}}",
        )


@ROUTES.serves("POST", "/url")
async def _open_url(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    url = body.get("url")
    if not isinstance(url, str) or not url:
        raise WdaFailure(400, "invalid argument", "'url' is required")
    wda.unfocus()
    await wda.act(Action(Op.OPEN_URL, text=url))


def _state(wda: Wda, bundle: str) -> int:
    if bundle != SPRINGBOARD and bundle not in wda.script.apps:
        return 0  # XCUIApplicationStateUnknown: not installed
    front = wda.phone.front
    if bundle == front:
        return 4
    if bundle == SPRINGBOARD or wda.phone.screen_name(bundle) is not None:
        return 3
    return 1


def _bundle(body: Mapping[str, Any]) -> str:
    bundle = body.get("bundleId")
    if not isinstance(bundle, str) or not bundle:
        raise WdaFailure(400, "invalid argument", "'bundleId' is required")
    return bundle
