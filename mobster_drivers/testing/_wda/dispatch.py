"""A request to its handler: a route answers only in the form WDA registers it (Rule 2).

Rule 2: routes exist with the ``/session/{id}`` prefix, without it, or both, as WDA registers them
        (:data:`WITHOUT_SESSION_ONLY`, :data:`SESSION_ONLY`, the rest both). A route asked for in
        the other form is an unknown command (404), whatever the session id: ``/status`` and
        ``/wda/homescreen`` under ``/session/{id}`` answer 404, as on WDA. Checked against
        ``FBRoute`` (``.withoutSession`` routes exist only without the prefix; plain routes only
        with it) and the route lists of ``FBSessionCommands``, ``FBCustomCommands``,
        ``FBDebugCommands``, ``FBElementCommands``, ``FBFindElementCommands``,
        ``FBAlertViewCommands``, ``FBOrientationCommands`` and ``FBScreenshotCommands``.

The table is the route families', merged once (a route served twice fails at import). It serves
every route the real clients send (XCUITest 12.13.1's ``proxyCommand`` targets, facebook-wda
1.5.4's requests, our drivers'), as appium-webdriveragent 16.12.9 (the XCUITest driver's npm
package) declares it: each family's module lists the routes it serves with their declarations
(``FB<name>:line`` of ``Commands/FB<name>Commands.m``), and
``tests/drivers/testing/test_wda_fake_routes.py`` holds the lists to the table and to WDA's
source. A route WDA has only on tvOS or watchOS, or not at all (facebook-wda's ``/wda/tap/0``,
``/wda/drag``, ``/mds/openurl``), is 404 ``unknown command`` here as on an iPhone. Measured
through real Appium 3.8 + XCUITest 12.13 in front of the fake
(``tests/drivers/devices/test_appium_real.py``): the typing routes, the active element, the window
rect, alerts, element routes by id, ``/source`` and ``/wda/keys``, ``/wda/pressButton`` in any
case, ``/wda/apps/launch`` of a running app.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from . import actions, alerts, apps, device, find, session
from .session import create_session, session_route
from .state import Wda
from .table import Routes
from .wire import WdaFailure

__all__ = ["SESSION_ONLY", "TABLE", "WITHOUT_SESSION_ONLY", "Call", "route"]

#: The routes WDA registers only without a session (``.withoutSession`` alone; Rule 2).
WITHOUT_SESSION_ONLY = frozenset(
    {
        "/status",
        "/session",
        "/wda/healthcheck",
        "/wda/homescreen",
        "/wda/apps/launchUnattached",
        "/wda/device/appearance",
    }
)
#: The routes WDA registers only under ``/session/{id}`` (Rule 2); every other route has both.
SESSION_ONLY = frozenset(
    {
        "/",
        "/url",
        "/timeouts",
        "/appium/settings",
        "/wda/apps/launch",
        "/wda/apps/activate",
        "/wda/apps/terminate",
        "/wda/apps/state",
        "/wda/apps/list",
        "/wda/tap",
        "/wda/doubleTap",
        "/wda/touchAndHold",
        "/wda/dragfromtoforduration",
        "/wda/swipe",
        "/wda/keys",
        "/wda/pressButton",
        "/wda/deactivateApp",
        "/wda/keyboard/dismiss",
        "/wda/alert/buttons",
        "/wda/batteryInfo",
        "/wda/pinch",
        "/wda/rotate",
        "/wda/twoFingerTap",
        "/wda/tapWithNumberOfTaps",
        "/wda/scroll",
        "/wda/pressAndDragWithVelocity",
        "/wda/forceTouch",
        "/wda/siri/activate",
        "/wda/performIoHidEvent",
        "/wda/expectNotification",
        "/wda/performAccessibilityAudit",
        "/wda/resetAppAuth",
        "/wda/touch_id",
        "/actions",
        "/element",
        "/elements",
        "/element/active",
        "/window/rect",
    }
)
#: A route whose methods differ: ``GET /alert/text`` has both forms, ``POST /alert/text`` only
#: the session's (``FBAlertViewCommands.m:24-26``).
_SESSION_ONLY_METHODS = frozenset({("POST", "/alert/text")})
#: The element routes (all under ``/session/{id}``), by their template: ``:uuid`` is an element
#: id from the cache (Rule 13), ``:name`` an attribute's name.
_ELEMENT_PATH = re.compile(
    r"^(?P<head>/element|/wda/element|/wda/pickerwheel|/screenshot)/(?P<uuid>[^/]+)"
    r"(?:/attribute/(?P<name>[^/]+)|(?P<rest>/[^/]+))?$"
)

#: Every route the fake serves, by family (Rule 2 decides which form answers).
TABLE = Routes.merged(session.ROUTES, find.ROUTES, actions.ROUTES, alerts.ROUTES, apps.ROUTES, device.ROUTES)


@attrs.frozen
class Call:
    """One request, parsed: ``route`` is the path without the session prefix and the query."""

    method: str
    path: str
    session: str | None
    route: str
    body: Any
    query: dict[str, str]
    bad_body: bool = False


async def route(wda: Wda, call: Call) -> tuple[Any, str | None]:
    """Handle one request on the phone's loop; returns ``(value, sessionId)``."""
    method, path, session, route, query = call.method, call.path, call.session, call.route, call.query
    if call.bad_body:
        raise WdaFailure(400, "invalid argument", "the request body is not JSON")
    if call.body is not None and not isinstance(call.body, dict):
        raise WdaFailure(400, "invalid argument", "the request body is not a JSON object")
    body: dict[str, Any] = call.body or {}
    if path == "/session" and method == "POST":
        return await create_session(wda, body)
    # Rule 2: a route exists in the form WDA registers it, else nothing answers but the
    # catch-all: an unknown command, whatever the session id says.
    template, uuid, name = _template(route)
    if session is None:
        registered = route not in SESSION_ONLY and uuid is None and (method, route) not in _SESSION_ONLY_METHODS
    else:
        registered = route not in WITHOUT_SESSION_ONLY
    special = session is not None and route == "/" and method in ("GET", "DELETE")
    handler = TABLE.plain.get((method, route)) if registered else None
    acting = TABLE.acting.get((method, template)) if registered and handler is None else None
    if handler is None and acting is None and not special:
        raise WdaFailure(404, "unknown command", f"Unhandled endpoint: {path} with parameters {body}")
    if session is not None and (session != wda.session or wda.session is None):
        raise WdaFailure(404, "invalid session id", "Session does not exist")
    if special:
        return session_route(wda, method, session), None if method == "DELETE" else session
    if acting is not None:
        target = wda.resolve(uuid) if uuid is not None else wda.app_target()
        value = await acting(wda, target, body, {**query, ":name": name} if name else query)
    else:
        assert handler is not None
        value = await handler(wda, body, query)
    return value, session if session is not None else wda.session


def _template(route: str) -> tuple[str, str | None, str | None]:
    """A route as its template (``/element/:uuid/rect``), its element id and its attribute name."""
    match = _ELEMENT_PATH.match(route)
    if match is None or route == "/element/active":
        return route, None, None
    head, name, rest = match.group("head"), match.group("name"), match.group("rest")
    if name is not None:
        return f"{head}/:uuid/attribute/:name", match.group("uuid"), name
    return f"{head}/:uuid{rest or ''}", match.group("uuid"), None
