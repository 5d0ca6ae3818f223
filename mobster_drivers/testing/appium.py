r"""A fake Appium server on loopback: a scripted phone behind W3C WebDriver and XCUITest's ``mobile:`` commands.

The real Appium-Python-Client (and :class:`~mobster_drivers.devices.appium.AppiumDevice`) talks to it
over a real socket. It is layered as Appium is: an Appium server in front of a
:class:`~mobster_drivers.testing.wda.FakeWda` running the same app script. Like the XCUITest
driver, it answers most commands by proxying them to WebDriverAgent over HTTP and translating
the reply, so the phone, its taps, its typing and its faults are the fake WDA's.

::

    from mobster_core import SystemClock
    from mobster_drivers.devices.appium import AppiumCaps, appium_device
    from mobster_drivers.testing.appium import FakeAppium
    from mobster_drivers.devices.scripted import sample_path

    with FakeAppium(sample_path("yourapp")) as appium:
        device = appium_device(appium.url, AppiumCaps(), SystemClock(), bundle="com.example.yourapp")
        ...
        assert [r.command for r in appium.requests].count("mobile: tap") == 1

    with FakeAppium(tree="settings-root.xml", costs=ReadCosts()) as appium:  # a capture, WDA's costs
        ...

From a shell: ``python -m mobster_drivers.testing.appium --app APP.yaml [--port N]`` (or ``--tree
SOURCE.xml [--bundle ID]``, and ``--costs``) prints the URL on its first line and serves until
interrupted (or ``--lifetime`` seconds).

Rule 1: W3C's envelope. Every reply is JSON ``{"value": …}`` with a Content-Length; a new
        session's value is ``{"sessionId", "capabilities"}``; an error is ``{"value": {"error",
        "message", "stacktrace"}}`` with the W3C status: 404 ``invalid session id``, ``unknown
        command``, ``no such element``, ``stale element reference``; 400 ``invalid argument``;
        405 ``unknown method``; 500 ``unknown error``, ``session not created``, ``unsupported
        operation``; 401 for missing credentials.
Rule 2: routes (under an optional base path such as ``/wd/hub``): ``GET /status``,
        ``POST /session``, ``GET|DELETE /session/{id}``, ``POST /session/{id}/execute/sync``,
        ``POST|DELETE /session/{id}/actions``, ``GET /session/{id}/window/rect``,
        ``GET /session/{id}/screenshot``, ``GET /session/{id}/element/active``,
        ``POST /session/{id}/element/{eid}/value``, ``POST /session/{id}/element`` and
        ``/elements``, ``GET|POST /session/{id}/timeouts``, ``GET|POST
        /session/{id}/appium/settings``. Anything else is 404 ``unknown command``.
Rule 3: a new session merges ``alwaysMatch`` with each ``firstMatch`` entry (a key in both is
        ``invalid argument``); the first that validates wins. It needs ``platformName`` iOS and
        ``appium:automationName`` XCUITest; an ``appium:bundleId`` that isn't installed is
        ``session not created``. As XCUITest, it makes a WDA session and launches the bundle
        unless ``appium:autoLaunch`` is false. The reply's capabilities are the request's
        (vendor blocks and keys included, as a server echoes them) plus the device's
        ``appium:platformVersion``, ``appium:deviceName`` and ``appium:udid``.
Rule 4: ``mobile:`` commands check the XCUITest driver's required arguments (400 ``invalid
        argument``) and map to WDA as the driver does: ``source`` → ``GET /source`` (with
        ``excluded_attributes``, also for JSON), ``activeAppInfo`` → ``/wda/activeAppInfo``,
        ``deviceInfo`` → ``/wda/device/info``, ``tap`` → ``/wda/tap``, ``touchAndHold`` →
        ``/wda/touchAndHold``, ``dragFromToForDuration`` → ``/wda/dragfromtoforduration``,
        ``launchApp`` → ``/wda/apps/launch`` (an app already running is only activated, its
        arguments dropped, as the driver documents), ``activateApp``, ``terminateApp``,
        ``queryAppState`` → ``/wda/apps/*``, ``deepLink`` → ``/url``, ``pressButton`` →
        ``/wda/pressButton``. ``isAppInstalled`` and ``listApps`` are answered from the script
        (the driver asks simctl or the phone's installation proxy, not WDA); ``listApps`` works
        on an iPhone only. Another ``mobile:`` name is 500 ``unsupported operation``. W3C
        actions proxy to WDA's ``/actions``; the active element is the field the fake WDA has
        focused (404 ``no such element`` when none has), and its ``value`` types through
        ``/wda/keys``.
Rule 4a: finding elements as the XCUITest driver does: the strategy must be one of its locator
        strategies (:data:`LOCATOR_STRATEGIES`; another is 400 ``invalid selector``), ``-ios
        predicate string`` and ``-ios class chain`` become WDA's ``predicate string`` and ``class
        chain``, and the lookup is proxied to WDA's ``/elements`` (``/element``). Its reply passes
        through as WDA sent it: W3C element references (``element-6066-…`` and ``ELEMENT``) with
        the attributes WDA's ``elementResponseAttributes`` adds. Any failure of the lookup at WDA
        (an unparseable predicate, an unknown key, a lost reply) is swallowed into "nothing found",
        as the driver's ``doNativeFind`` does: ``[]``, or 404 ``no such element`` for one element.
        An empty answer is asked again every 0.5 s until the session's implicit wait (``POST
        /timeouts`` ``implicit``, 0 by default) has passed, in real time.
Rule 4b: settings: each key of ``POST /appium/settings`` whose value changes is proxied to WDA's
        ``/appium/settings`` on its own (``{"settings": {key: value}}``), as the driver's
        ``onSettingsUpdate`` does, except the driver's own (``pageSourceExcludedAttributes``,
        ``nativeWebTap``, ``nativeWebTapStrict``), which are only kept. ``GET`` answers WDA's
        settings with the driver's over them.
Rule 5: proxied failures as Appium surfaces them: a WDA error reply keeps its W3C code and
        status; a WDA reply that is lost, late or not JSON is 500 ``unknown error`` "Could not
        proxy command to the remote server" (so a lost tap is a 5xx, not a dropped connection).
Rule 6: cloud behaviours, as options: ``require`` (vendor options a session must carry, e.g.
        ``{"bstack:options": {"userName": None, "accessKey": "k3y"}}``: a missing one is 401, a
        wrong one ``session not created`` whose message echoes the user and the key, as some
        clouds do); ``idle_timeout`` (a cloud's own limit over ``appium:newCommandTimeout``,
        Appium's default 60 s; an idle session ends and later commands get ``invalid session
        id``); ``latency`` (seconds added to every command); ``max_sessions``; ``provider``
        (``browserstack``, ``sauce`` or ``lambdatest``: its executor scripts are accepted and
        recorded in :attr:`FakeAppium.annotations`; without it such a script is 405 ``unknown
        method``, as in XCUITest's native context). Faults: :meth:`FakeAppium.fail_next_session`
        (a 5xx on session create, W3C JSON or a load balancer's HTML page),
        :meth:`FakeAppium.end_sessions` (the provider ends every session),
        :meth:`FakeAppium.garbage_next_reply`, :meth:`FakeAppium.stall_next_reply`,
        :meth:`FakeAppium.drop_next_reply` (handled, then no reply at all),
        :meth:`FakeAppium.die_when` (the phone loses power when a request it names arrives: that
        request is never handled nor answered, the server stops listening before its connection
        closes, so every later request is refused: a death at a moment a test chooses, never a
        race), and the fake
        WDA's own (:attr:`FakeAppium.wda`: ``fail_next_action``, ``fail_next_read``, …). With
        ``costs`` the fake WDA holds each source read and query as long as real WDA would take
        (its ``ReadCosts``), so the costs show through Appium as they would.
Rule 7: every request is recorded in :attr:`FakeAppium.requests` before it is handled, with its
        ``command``: the script for ``execute/sync`` (``mobile: tap``), else ``METHOD /route``.
Rule 8: it is a loopback server (``_server``): it binds 127.0.0.1, keeps connections alive as
        Node's HTTP server does (HTTP/1.1; an idle one is closed after 30 s, every one at stop),
        and stops by itself after ``lifetime``.

Checked against the sources (appium/appium base driver: routes, ``errors.ts`` codes and
statuses, ``executeMethod``'s "Unsupported execute method"; appium-xcuitest-driver:
``execute-method-map.ts`` argument names, ``commands/gesture.ts``, ``app-management.ts`` and
``source.ts`` for the WDA routes each command proxies to (``excluded_attributes`` also for
JSON, which WDA honours since 8.11.0), ``requireRealDevice`` for ``listApps``; ``find.ts`` for the
strategy rewrite and the swallowed lookup failures, ``driver.ts`` for the locator strategies and
``onSettingsUpdate``; the base driver's ``implicitWaitForCondition``; Appium-Python-Client 6.0.9
for what it sends). Not checked, because no Appium server or Mac runs here: the exact text of
Appium's messages (the refused locator strategy's included), the proxy-error text, the HTTP
status of a W3C-less session request and of a non-``mobile:`` script in the native context
(405 ``unknown method`` here), the shape of ``deviceInfo`` on a real device (XCUITest adds the
phone's lockdown values; the fake returns WDA's), whether the server's reply to a new session
carries ``platformVersion`` when the caps didn't, ``terminateApp`` of an app that isn't
installed (false here, as WDA answers; the driver's docs say it throws), and every cloud's
wording and status for a refused credential or a parallel limit; the exact merge ``GET
/appium/settings`` answers; the validation of ``/timeouts`` beyond non-negative whole numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import json
import math
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlsplit

import attrs

from mobster_core import DeviceKind, Element, SystemClock
from mobster_core.protocols import Clock
from mobster_drivers.devices.scripted import AppScript

from ._server import DEAD, Incoming, LoopbackServer, Reply, json_body, serve_from_shell, session_route
from .wda import FakeWda, ReadCosts

__all__ = ["LOCATOR_STRATEGIES", "AppiumRequest", "FakeAppium", "main"]

#: The XCUITest driver's native locator strategies (Rule 4a).
LOCATOR_STRATEGIES = frozenset(
    {
        "xpath",
        "id",
        "name",
        "class name",
        "-ios predicate string",
        "-ios class chain",
        "accessibility id",
        "css selector",
    }
)
#: Strategy names the driver rewrites before it proxies a lookup to WDA (Rule 4a).
_WDA_STRATEGY = {"-ios predicate string": "predicate string", "-ios class chain": "class chain"}
#: Settings the XCUITest driver keeps itself and never proxies (Rule 4b).
_DRIVER_SETTINGS = frozenset({"pageSourceExcludedAttributes", "nativeWebTap", "nativeWebTapStrict"})
_IMPLICIT_INTERVAL = 0.5  # seconds between lookups while an implicit wait runs (Rule 4a)
_PREFIX = "XCUIElementType"

_ELEMENT_VALUE = re.compile(r"^/element/([^/]+)/value$")
_JSON = "application/json; charset=utf-8"
_ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
_PROXY_TIMEOUT = 60.0  # seconds a proxied WDA command may take (a usb-iphone launch is 2.6 s)
_KEEP_ALIVE = 30.0  # seconds an idle connection stays open
_DEFAULT_NEW_COMMAND_TIMEOUT = 60.0  # Appium's default, seconds
_LB_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"
)
_PROVIDERS = ("browserstack", "sauce", "lambdatest")


@attrs.frozen
class AppiumRequest:
    """One request the fake received (Rule 7).

    ``path`` is as sent; ``route`` is it without the base path, the ``/session/{id}`` prefix and
    the query; ``session`` is the id in the path or None; ``body`` the parsed JSON (None when
    absent or not JSON); ``command`` the script of an ``execute/sync`` (``mobile: tap``), else
    ``METHOD /route``; ``headers`` the request's headers (names lower-cased).
    """

    method: str
    path: str
    route: str
    session: str | None
    body: Any
    command: str
    headers: Mapping[str, str] = attrs.field(factory=dict)


class _Failure(Exception):
    """An Appium error reply (Rule 1)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


@attrs.define
class _Session:
    id: str
    capabilities: dict[str, Any]
    wda_session: str
    idle_limit: float | None  # seconds, None: never
    last: float
    lock: threading.Lock = attrs.field(factory=threading.Lock)
    active: tuple[str, str] | None = None  # (element id, tree path) of the focused field handed out
    implicit_ms: int = 0  # the implicit wait of element lookups (Rule 4a)
    settings: dict[str, Any] = attrs.field(factory=dict)  # what the driver was told (Rule 4b)


_SessionCommand = Callable[["FakeAppium", _Session, dict[str, Any]], Any]
#: The W3C commands in a session, by (method, route) (Rule 2); an element's ``/value`` is matched apart.
_COMMANDS: dict[tuple[str, str], _SessionCommand] = {}


def _w3c(method: str, route: str) -> Callable[[_SessionCommand], _SessionCommand]:
    """Register a method of :class:`FakeAppium` as the command ``method route`` in a session."""

    def register(handler: _SessionCommand) -> _SessionCommand:
        _COMMANDS[(method, route)] = handler
        return handler

    return register


class FakeAppium(LoopbackServer[AppiumRequest]):
    """A fake Appium server serving a scripted phone on 127.0.0.1 (see the module rules).

    ``app`` is an app script (a path or a loaded :class:`~mobster_drivers.devices.scripted.AppScript`), or
    ``tree`` a captured WDA source served as a static app (with ``bundle`` and ``ios``: the fake
    WDA's); ``costs`` holds WDA's replies as long as real WDA would take (Rule 6); ``port`` 0 picks
    a free port; ``base_path`` is where the WebDriver routes live (``""`` as
    Appium 2 and 3, ``"/wd/hub"`` as Appium 1, a Grid or a cloud). ``clock`` (its ``now()``) is
    what idle timeouts are measured on: tests pass one they move by hand. The fake stops by
    itself after ``lifetime`` seconds (``None``: only at :meth:`stop`). ``one_at_a_time`` makes
    the fake WDA behind it serve one request at a time (``_server`` Rule 5), as real WDA does.
    """

    http_version = "HTTP/1.1"  # keep-alive, as Node's server (Rule 8)
    idle_seconds = _KEEP_ALIVE
    no_delay = True

    def __init__(
        self,
        app: str | os.PathLike[str] | AppScript | None = None,
        *,
        tree: str | os.PathLike[str] | None = None,
        bundle: str | None = None,
        ios: str = "26.4",
        costs: ReadCosts | None = None,
        port: int = 0,
        base_path: str = "",
        lifetime: float | None = 600.0,
        latency: float = 0.0,
        require: Mapping[str, Mapping[str, str | None]] | None = None,
        idle_timeout: float | None = None,
        max_sessions: int = 1,
        provider: str | None = None,
        clock: Clock | None = None,
        one_at_a_time: bool = False,
    ) -> None:
        super().__init__(port=port, lifetime=lifetime)
        if provider is not None and provider not in _PROVIDERS:
            raise ValueError(f"provider is one of {', '.join(_PROVIDERS)}, got {provider!r}")
        if latency < 0 or max_sessions < 1:
            raise ValueError("latency is at least 0 s and max_sessions at least 1")
        if (app is None) == (tree is None):
            raise ValueError("FakeAppium serves an app script (app=) or a captured tree (tree=), one of the two")
        if tree is not None:
            self._wda = FakeWda(
                tree=tree, bundle=bundle, ios=ios, costs=costs, lifetime=lifetime, one_at_a_time=one_at_a_time
            )
        else:
            assert app is not None
            script = app if isinstance(app, AppScript) else AppScript.from_file(app)
            self._wda = FakeWda(script, costs=costs, lifetime=lifetime, one_at_a_time=one_at_a_time)
        self._script = self._wda.script
        self._base = "/" + base_path.strip("/") if base_path.strip("/") else ""
        self._latency = latency
        self._require = {block: dict(keys) for block, keys in (require or {}).items()}
        self._idle_timeout = idle_timeout
        self._max_sessions = max_sessions
        self._provider = provider
        self._clock: Clock = clock or SystemClock()
        self._create_lock = threading.Lock()  # one new session at a time: the limit holds
        self._annotations: list[tuple[str, Any]] = []
        self._sessions: dict[str, _Session] = {}
        self._session_failures: list[tuple[int, bool]] = []
        self._garbage: list[int] = []
        self._stall = 0.0
        self._drop = 0

    # -- lifecycle (the rest is the loopback server's) ---------------------------------------

    def _on_start(self) -> None:
        self._wda.start()

    def _on_stop(self) -> None:
        self._wda.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The URL to give an Appium client: ``http://127.0.0.1:<port>[/wd/hub]``."""
        return f"http://127.0.0.1:{self.port}{self._base}"

    @property
    def wda(self) -> FakeWda:
        """The fake WebDriverAgent behind it (its phone, its requests, its faults)."""
        return self._wda

    @property
    def script(self) -> AppScript:
        """The app script the phone runs."""
        return self._script

    @property
    def commands(self) -> list[str]:
        """The ``command`` of every request so far, oldest first."""
        return [r.command for r in self.requests]

    @property
    def annotations(self) -> list[tuple[str, Any]]:
        """What the provider was told, oldest first.

        ``("browserstack", {"action": …, "arguments": …})``, ``("sauce", "job-result=passed")``,
        ``("lambdatest", "name=…")``.
        """
        with self._lock:
            return list(self._annotations)

    @property
    def sessions(self) -> dict[str, dict[str, Any]]:
        """The live sessions' capabilities, by session id (a copy)."""
        with self._lock:
            return {sid: dict(s.capabilities) for sid, s in self._sessions.items()}

    # -- faults (Rule 6) ---------------------------------------------------------------------

    def fail_next_session(self, status: int = 500, *, html: bool = False) -> None:
        """Refuse the next new session with ``status``: W3C ``session not created``, or an HTML page."""
        with self._lock:
            self._session_failures.append((status, html))

    def end_sessions(self) -> None:
        """End every session, as a provider does at its own time limit (later commands: stale)."""
        with self._lock:
            ended = list(self._sessions.values())
            self._sessions.clear()
        for session in ended:
            self._end_wda(session)

    def garbage_next_reply(self, status: int = 502) -> None:
        """Answer the next request with a load balancer's HTML page, without handling it."""
        with self._lock:
            self._garbage.append(status)

    def drop_next_reply(self, count: int = 1) -> None:
        """Handle the next ``count`` requests, then close each connection without a reply."""
        with self._lock:
            self._drop += count

    def stall_next_reply(self, seconds: float) -> None:
        """Handle the next request, then hold its reply ``seconds`` before sending it."""
        with self._lock:
            self._stall = seconds

    # -- serving -----------------------------------------------------------------------------

    def _answer(self, incoming: Incoming) -> Reply:
        method, raw_path = incoming.method, incoming.path
        path = urlsplit(raw_path).path
        if self._base:
            if path != self._base and not path.startswith(self._base + "/"):
                failure = _Failure(404, "unknown command", f"The requested resource could not be found: {path}")
                return Reply(404, _error_body(failure), _JSON)
            path = path[len(self._base) :] or "/"
        session, route = session_route(path)
        body, bad_body = json_body(incoming.body)
        request = AppiumRequest(
            method, raw_path, route, session, body, _command(method, session, route, body), dict(incoming.headers)
        )
        claimed = self._admit(request, self._claim)
        if claimed is None:
            return DEAD
        garbage, stall, drop = claimed
        if garbage is not None:
            return Reply(garbage, _LB_PAGE, "text/html")
        if self._latency > 0 and self._stopping.wait(self._latency):
            return Reply(503, b"", "text/plain")
        try:
            value = self._route(method, path, session, route, _object(body, bad_body=bad_body))
        except _Failure as failure:
            content = "text/html" if isinstance(failure, _HtmlFailure) else _JSON
            return Reply(failure.status, _error_body(failure), content, hold=stall, drop=drop)
        return Reply(
            200, json.dumps({"value": value}, ensure_ascii=False).encode("utf-8"), _JSON, hold=stall, drop=drop
        )

    def _claim(self) -> tuple[int | None, float, bool]:
        """Under the lock, for the request just recorded: a garbage status, the stall, drop the reply?"""
        garbage = self._garbage.pop(0) if self._garbage else None
        stall, self._stall = self._stall, 0.0
        drop = self._drop > 0
        self._drop -= 1 if drop else 0
        return garbage, stall, drop

    def _route(self, method: str, path: str, sid: str | None, route: str, body: dict[str, Any]) -> Any:
        if path == "/status" and method == "GET":
            return {
                "ready": True,
                "message": "The server is ready to accept new connections",
                "build": {"version": "3.0.0"},
            }
        if path == "/session" and method == "POST":
            with self._create_lock:
                return self._create_session(body)
        if sid is None:
            raise _Failure(404, "unknown command", f"The requested resource could not be found: {method} {path}")
        session = self._live(sid)
        with session.lock:
            try:
                return self._session_command(session, method, route, body)
            finally:
                session.last = self._clock.now()

    def _live(self, sid: str) -> _Session:
        with self._lock:
            session = self._sessions.get(sid)
            expired = (
                session is not None
                and session.idle_limit is not None
                and self._clock.now() - session.last > session.idle_limit
            )
            if expired:
                del self._sessions[sid]
        if session is None or expired:
            if session is not None:
                self._end_wda(session)
            raise _Failure(404, "invalid session id", "A session is either terminated or not started")
        return session

    def _session_command(self, session: _Session, method: str, route: str, body: dict[str, Any]) -> Any:
        handler = _COMMANDS.get((method, route))
        if handler is not None:
            return handler(self, session, body)
        value_route = _ELEMENT_VALUE.match(route)
        if value_route and method == "POST":
            return self._set_value(session, value_route.group(1), body)
        raise _Failure(404, "unknown command", f"The requested resource could not be found: {method} {route}")

    # -- W3C commands in a session (Rule 2) ----------------------------------------------------

    @_w3c("DELETE", "/")
    def _quit(self, session: _Session, _body: dict[str, Any]) -> Any:
        with self._lock:
            self._sessions.pop(session.id, None)
        self._end_wda(session)

    @_w3c("GET", "/")
    def _session_caps(self, session: _Session, _body: dict[str, Any]) -> Any:
        return dict(session.capabilities)

    @_w3c("POST", "/actions")
    def _actions(self, session: _Session, body: dict[str, Any]) -> Any:
        if not isinstance(body.get("actions"), list):
            raise _Failure(400, "invalid argument", "'actions' must be a list of input sources")
        return self._wda_call(session, "POST", "/actions", body)

    @_w3c("DELETE", "/actions")
    def _release_actions(self, _session: _Session, _body: dict[str, Any]) -> Any:
        return None

    @_w3c("GET", "/window/rect")
    def _window_rect(self, session: _Session, _body: dict[str, Any]) -> Any:
        size = self._wda_call(session, "GET", "/window/size")
        return {"x": 0, "y": 0, "width": size.get("width"), "height": size.get("height")}

    @_w3c("GET", "/screenshot")
    def _screenshot(self, session: _Session, _body: dict[str, Any]) -> Any:
        return self._wda_call(session, "GET", "/screenshot")

    @_w3c("GET", "/element/active")
    def _active(self, session: _Session, _body: dict[str, Any]) -> Any:
        return self._active_element(session)

    @_w3c("POST", "/element")
    def _find_one(self, session: _Session, body: dict[str, Any]) -> Any:
        return self._find(session, body, first=True)

    @_w3c("POST", "/elements")
    def _find_all(self, session: _Session, body: dict[str, Any]) -> Any:
        return self._find(session, body, first=False)

    @_w3c("GET", "/timeouts")
    def _get_timeouts(self, session: _Session, _body: dict[str, Any]) -> Any:
        return {"command": (session.idle_limit or 0) * 1000, "implicit": session.implicit_ms}

    @_w3c("GET", "/appium/settings")
    def _get_settings(self, session: _Session, _body: dict[str, Any]) -> Any:
        return {**self._wda_call(session, "GET", "/appium/settings"), **session.settings}

    # -- sessions (Rule 3) -------------------------------------------------------------------

    def _create_session(self, body: dict[str, Any]) -> Any:
        with self._lock:
            failure = self._session_failures.pop(0) if self._session_failures else None
        if failure is not None:
            status, html = failure
            if html:
                raise _HtmlFailure(status)
            raise _Failure(status, "session not created", "The cloud could not start a session (injected failure)")
        requested = body.get("capabilities")
        if not isinstance(requested, dict):
            raise _Failure(
                500, "session not created", "W3C capabilities are required: {'capabilities': {'alwaysMatch': …}}"
            )
        always = requested.get("alwaysMatch", {})
        first = requested.get("firstMatch", [{}])
        if not isinstance(always, dict) or not isinstance(first, list) or not all(isinstance(f, dict) for f in first):
            raise _Failure(
                400, "invalid argument", "'alwaysMatch' must be an object and 'firstMatch' a list of objects"
            )
        problems: list[str] = []
        for entry in first or [{}]:
            both = sorted(set(always) & set(entry))
            if both:
                raise _Failure(
                    400, "invalid argument", f"Property {both[0]!r} should not exist on both alwaysMatch and firstMatch"
                )
            caps = {**always, **entry}
            problem = self._invalid(caps)
            if problem is None:
                return self._start(caps)
            problems.append(problem)
        raise _Failure(500, "session not created", problems[0])

    def _invalid(self, caps: Mapping[str, Any]) -> str | None:
        platform = caps.get("platformName")
        if not isinstance(platform, str) or not platform:
            return "'platformName' can't be blank"
        if platform.lower() != "ios":
            return f"Could not find a driver for platformName {platform!r}"
        automation = caps.get("appium:automationName")
        if not isinstance(automation, str) or automation.lower() != "xcuitest":
            return f"Could not find a driver for automationName {automation!r} and platformName {platform!r}"
        return None

    def _start(self, caps: dict[str, Any]) -> Any:
        self._check_credentials(caps)
        bundle = caps.get("appium:bundleId")
        if bundle is not None and (not isinstance(bundle, str) or bundle not in self._script.apps):
            raise _Failure(500, "session not created", f"App with bundle identifier {bundle!r} unknown")
        with self._lock:
            self._expire_idle()
            if len(self._sessions) >= self._max_sessions:
                raise _Failure(
                    500,
                    "session not created",
                    f"The maximum number of sessions ({self._max_sessions}) is reached; no device is free",
                )
        launch = bundle is not None and caps.get("appium:autoLaunch", True) is not False
        wda_caps: dict[str, Any] = {"shouldWaitForQuiescence": False}
        if launch:
            wda_caps["bundleId"] = bundle
        reply = self._wda_request("POST", "/session", {"capabilities": {"alwaysMatch": wda_caps, "firstMatch": [{}]}})
        wda_session = reply.get("sessionId") if isinstance(reply, dict) else None
        if not isinstance(wda_session, str):
            raise _Failure(500, "session not created", "WebDriverAgent created no session")
        device = self._script.device
        returned = {
            **caps,
            "platformName": "iOS",
            "appium:platformVersion": device.ios,
            "appium:deviceName": device.name,
            "appium:udid": self._udid(),
        }
        timeouts = [t for t in (self._new_command_timeout(caps), self._idle_timeout) if t is not None]
        session = _Session(
            id=secrets.token_hex(16),
            capabilities=returned,
            wda_session=wda_session,
            idle_limit=min(timeouts) if timeouts else None,
            last=self._clock.now(),
        )
        with self._lock:
            self._sessions[session.id] = session
        return {"sessionId": session.id, "capabilities": returned}

    def _check_credentials(self, caps: Mapping[str, Any]) -> None:
        for block, keys in self._require.items():
            given = caps.get(block)
            given = given if isinstance(given, Mapping) else {}
            missing = [k for k in keys if not isinstance(given.get(k), str) or not given.get(k)]
            if missing:
                raise _Failure(401, "session not created", f"Authorization required: {block}.{missing[0]} is missing")
            wrong = [k for k, want in keys.items() if want is not None and given.get(k) != want]
            if wrong:
                shown = ", ".join(f"{k} {given.get(k)!r}" for k in keys)
                raise _Failure(500, "session not created", f"Authentication failed for {block}: you used {shown}")

    def _new_command_timeout(self, caps: Mapping[str, Any]) -> float | None:
        value = caps.get("appium:newCommandTimeout", _DEFAULT_NEW_COMMAND_TIMEOUT)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise _Failure(400, "invalid argument", f"'newCommandTimeout' must be a number of seconds, got {value!r}")
        return None if value == 0 else float(value)

    def _expire_idle(self) -> None:
        """Forget sessions past their idle limit (called with the lock held)."""
        now = self._clock.now()
        for sid, s in list(self._sessions.items()):
            if s.idle_limit is not None and now - s.last > s.idle_limit:
                del self._sessions[sid]

    def _udid(self) -> str:
        digest = hashlib.sha256(self._script.device.name.encode("utf-8")).hexdigest().upper()
        if self._script.device.kind is DeviceKind.SIMULATOR:
            return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
        return f"00008110-{digest[:16]}"

    def _end_wda(self, session: _Session) -> None:
        with contextlib.suppress(_Failure):
            self._wda_request("DELETE", f"/session/{session.wda_session}")

    # -- mobile: commands (Rule 4) -----------------------------------------------------------

    @_w3c("POST", "/execute/sync")
    def _execute(self, session: _Session, body: dict[str, Any]) -> Any:
        script = body.get("script")
        args = body.get("args", [])
        if not isinstance(script, str) or not isinstance(args, list):
            raise _Failure(400, "invalid argument", "'script' must be a string and 'args' a list")
        if not script.startswith("mobile:"):
            return self._annotate(script)
        name = script.removeprefix("mobile:").strip()
        spec = _MOBILE.get(name)
        if spec is None:
            raise _Failure(
                500,
                "unsupported operation",
                f"Unsupported execute method 'mobile: {name}'. Available methods are: "
                + ", ".join(f"mobile: {n}" for n in sorted(_MOBILE)),
            )
        params = args[0] if args else {}
        if not isinstance(params, dict):
            raise _Failure(400, "invalid argument", f"'mobile: {name}' takes one object of arguments")
        required, handler = spec
        missing = [p for p in required if p not in params]
        if missing:
            raise _Failure(
                400, "invalid argument", f"'mobile: {name}': some required parameters are missing: {', '.join(missing)}"
            )
        return handler(_Proxy(session, self._wda_call, self.script), params)

    def _annotate(self, script: str) -> Any:
        provider, note = _provider_note(script)
        if provider is None or provider != self._provider:
            raise _Failure(405, "unknown method", "Method has not yet been implemented")
        with self._lock:
            self._annotations.append((provider, note))
        return None

    def _active_element(self, session: _Session) -> Any:
        async def focused() -> Element | None:
            return self._wda.focused_field()

        element = self._wda.run(focused())
        if element is None:
            session.active = None
            raise _Failure(404, "no such element", "An element could not be located: nothing has the keyboard focus")
        if session.active is None or session.active[1] != element.path:
            session.active = (secrets.token_hex(8).upper(), element.path)
        ref = session.active[0]
        return {_ELEMENT_KEY: ref, "ELEMENT": ref}

    def _set_value(self, session: _Session, ref: str, body: dict[str, Any]) -> Any:
        text = body.get("text")
        if not isinstance(text, str):
            raise _Failure(400, "invalid argument", "Parameters were incorrect. We wanted {'required': ['text']}")
        if session.active is None or session.active[0] != ref:
            raise _Failure(404, "no such element", f"No element with the id {ref!r} is known")

        async def focused() -> Element | None:
            return self._wda.focused_field()

        element = self._wda.run(focused())
        if element is None or element.path != session.active[1]:
            raise _Failure(404, "stale element reference", "The element is no longer attached to the screen")
        return self._wda_call(session, "POST", "/wda/keys", {"value": list(text)})

    # -- elements, timeouts and settings (Rules 4a, 4b) --------------------------------------

    def _find(self, session: _Session, body: dict[str, Any], *, first: bool) -> Any:
        lookup = _lookup(body)
        deadline = time.monotonic() + session.implicit_ms / 1000
        while True:
            try:
                found = self._wda_call(session, "POST", "/element" if first else "/elements", lookup)
            except _Failure:
                found = []  # the driver's lookup swallows every failure: nothing found
            if found:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self._stopping.wait(min(_IMPLICIT_INTERVAL, remaining)):
                break
        if not first:
            return found if isinstance(found, list) else [found]
        if isinstance(found, list):
            found = found[0] if found else None
        if not found:
            raise _Failure(
                404, "no such element", "An element could not be located on the page using the given search parameters."
            )
        return found

    @_w3c("POST", "/timeouts")
    def _set_timeouts(self, session: _Session, body: dict[str, Any]) -> Any:
        given = {k: body[k] for k in ("implicit", "pageLoad", "script") if k in body}
        if not given:
            raise _Failure(400, "invalid argument", "W3C timeouts need 'implicit', 'pageLoad' or 'script'")
        for name, value in given.items():
            if value is None and name == "script":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _Failure(
                    400, "invalid argument", f"Invalid timeout '{name}': {value!r} is not a whole number of ms"
                )
        if "implicit" in given:
            session.implicit_ms = int(given["implicit"])
        return None

    @_w3c("POST", "/appium/settings")
    def _update_settings(self, session: _Session, body: dict[str, Any]) -> Any:
        settings = body.get("settings")
        if not isinstance(settings, dict):
            raise _Failure(400, "invalid argument", "The settings object must be a plain JS object: {'settings': {…}}")
        for key, value in settings.items():
            if key in session.settings and session.settings[key] == value:
                continue  # unchanged: the driver isn't told
            if key not in _DRIVER_SETTINGS:
                self._wda_call(session, "POST", "/appium/settings", {"settings": {key: value}})
            session.settings[key] = value
        return None

    # -- WebDriverAgent (Rule 5) -------------------------------------------------------------

    def _wda_call(self, session: _Session, method: str, route: str, body: Mapping[str, Any] | None = None) -> Any:
        return self._wda_request(method, f"/session/{session.wda_session}{route}", body)

    def _wda_request(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """One proxied request to the fake WDA; its ``value``, or Appium's error for its failure."""
        connection = http.client.HTTPConnection("127.0.0.1", self._wda.port, timeout=_PROXY_TIMEOUT)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            status, raw = response.status, response.read()
        except TimeoutError as exc:
            raise _proxy_failure(f"timeout of {_PROXY_TIMEOUT:g}ms exceeded") from exc
        except (OSError, http.client.HTTPException) as exc:
            raise _proxy_failure("socket hang up") from exc
        finally:
            connection.close()
        try:
            reply = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise _proxy_failure(f"Unexpected data in the response from WebDriverAgent (HTTP {status})") from exc
        value = reply.get("value") if isinstance(reply, dict) else None
        if isinstance(value, dict) and isinstance(value.get("error"), str):
            raise _Failure(status if status >= 400 else 500, value["error"], str(value.get("message") or ""))
        if status >= 400:
            raise _proxy_failure(f"WebDriverAgent answered HTTP {status}")
        if path == "/session" and isinstance(reply, dict) and isinstance(value, dict):
            return {**value, "sessionId": reply.get("sessionId") or value.get("sessionId")}
        return value


class _HtmlFailure(_Failure):
    """A refused session answered with a load balancer's HTML page (Rule 6)."""

    def __init__(self, status: int) -> None:
        super().__init__(status, "", "")


def _command(method: str, session: str | None, route: str, body: Any) -> str:
    """What :attr:`AppiumRequest.command` says (Rule 7)."""
    if route == "/execute/sync" and isinstance(body, dict) and isinstance(body.get("script"), str):
        return str(body["script"])
    if _ELEMENT_VALUE.match(route):
        return f"{method} /element/{{id}}/value"
    return f"{method} {route}" if session is None or route != "/" else f"{method} /session/{{id}}"


def _lookup(body: Mapping[str, Any]) -> dict[str, str]:
    """A find's body as WDA's lookup (Rule 4a): the strategy checked and rewritten, the selector checked."""
    missing = [k for k in ("using", "value") if k not in body]
    if missing:
        raise _Failure(
            400,
            "invalid argument",
            f"Parameters were incorrect. We wanted {{'required': ['using', 'value']}}; no {', '.join(missing)}",
        )
    using, selector = body["using"], body["value"]
    if not isinstance(using, str) or using not in LOCATOR_STRATEGIES:
        raise _Failure(400, "invalid selector", f"Locator Strategy '{using}' is not supported for this session")
    if not isinstance(selector, str) or not selector:
        raise _Failure(400, "invalid selector", "Must provide a selector when finding elements")
    strategy = _WDA_STRATEGY.get(using, using)
    if strategy == "class name" and not selector.startswith(_PREFIX):
        selector = _PREFIX + selector.removeprefix("UIA")
    return {"using": strategy, "value": selector}


def _object(body: Any, *, bad_body: bool) -> dict[str, Any]:
    if bad_body or (body is not None and not isinstance(body, dict)):
        raise _Failure(400, "invalid argument", "The request body is not a JSON object")
    return body or {}


def _proxy_failure(original: str) -> _Failure:
    return _Failure(500, "unknown error", f"Could not proxy command to the remote server. Original error: {original}")


def _error_body(failure: _Failure) -> bytes:
    if isinstance(failure, _HtmlFailure):
        return _LB_PAGE
    value = {"error": failure.error, "message": failure.message, "stacktrace": ""}
    return json.dumps({"value": value}, ensure_ascii=False).encode("utf-8")


def _provider_note(script: str) -> tuple[str | None, Any]:
    """Which provider's executor convention ``script`` follows, and what it says."""
    for prefix, provider in (("browserstack_executor:", "browserstack"), ("lambda-hook:", "lambdatest")):
        if script.startswith(prefix):
            try:
                command = json.loads(script[len(prefix) :])
            except ValueError as exc:
                raise _Failure(400, "invalid argument", f"{prefix} wants JSON: {exc}") from exc
            if not isinstance(command, dict) or not isinstance(command.get("action"), str):
                raise _Failure(400, "invalid argument", f"{prefix} wants {{'action': …, 'arguments': …}}")
            status = command.get("arguments", {}).get("status") if isinstance(command.get("arguments"), dict) else None
            if command["action"] in ("setSessionStatus", "setTestStatus") and status not in ("passed", "failed"):
                raise _Failure(400, "invalid argument", f"status must be passed or failed, got {status!r}")
            return provider, command
    for prefix, provider in (("sauce:", "sauce"), ("lambda-", "lambdatest")):
        if script.startswith(prefix) and "=" in script:
            note = script[len(prefix) :]
            if note.startswith("job-result=") and note.split("=", 1)[1] not in ("passed", "failed", "true", "false"):
                raise _Failure(400, "invalid argument", f"job-result is passed, failed, true or false: {note!r}")
            return provider, note
    return None, None


# -- mobile: handlers --------------------------------------------------------------------------


@attrs.frozen
class _Proxy:
    """What a ``mobile:`` handler may do: proxy to WDA in its session, as XCUITest does, and read the script."""

    session: _Session
    send: Callable[[_Session, str, str, Mapping[str, Any] | None], Any]
    script: AppScript

    def call(self, method: str, route: str, body: Mapping[str, Any] | None = None) -> Any:
        """One proxied WDA request in the session: its value, or Appium's error for its failure."""
        return self.send(self.session, method, route, body)


_MobileHandler = Callable[[_Proxy, dict[str, Any]], Any]


def _number(params: Mapping[str, Any], *names: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for name in names:
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise _Failure(400, "invalid argument", f"'{name}' must be a number, got {value!r}")
        out[name] = float(value)
    return out


def _bundle(params: Mapping[str, Any]) -> str:
    bundle = params.get("bundleId")
    if not isinstance(bundle, str) or not bundle:
        raise _Failure(400, "invalid argument", "'bundleId' must be a non-empty string")
    return bundle


def _no_element(params: Mapping[str, Any]) -> None:
    if params.get("elementId") is not None:
        raise _Failure(404, "no such element", "The fake hands out no element ids but the active element")


def _source(wda: _Proxy, params: dict[str, Any]) -> Any:
    fmt = params.get("format", "xml")
    query = f"format={quote(str(fmt))}&scope=AppiumAUT"
    excluded = params.get("excludedAttributes")
    if isinstance(excluded, str) and excluded:
        query += f"&excluded_attributes={quote(excluded)}"
    return wda.call("GET", f"/source?{query}")


def _tap(wda: _Proxy, params: dict[str, Any]) -> Any:
    _no_element(params)
    return wda.call("POST", "/wda/tap", _number(params, "x", "y"))


def _touch_and_hold(wda: _Proxy, params: dict[str, Any]) -> Any:
    _no_element(params)
    return wda.call("POST", "/wda/touchAndHold", _number(params, "duration", "x", "y"))


def _drag(wda: _Proxy, params: dict[str, Any]) -> Any:
    _no_element(params)
    body = _number(params, "duration", "fromX", "fromY", "toX", "toY")
    return wda.call("POST", "/wda/dragfromtoforduration", body)


def _launch_app(wda: _Proxy, params: dict[str, Any]) -> Any:
    bundle = _bundle(params)
    if wda.call("POST", "/wda/apps/state", {"bundleId": bundle}) >= 2:
        # Running: the app is brought to the front and its arguments are dropped (the driver's docs).
        return wda.call("POST", "/wda/apps/activate", {"bundleId": bundle})
    body: dict[str, Any] = {"bundleId": bundle}
    arguments, environment = params.get("arguments"), params.get("environment")
    if arguments:
        body["arguments"] = arguments if isinstance(arguments, list) else [arguments]
    if environment:
        body["environment"] = environment
    return wda.call("POST", "/wda/apps/launch", body)


def _app_route(route: str) -> _MobileHandler:
    def handler(wda: _Proxy, params: dict[str, Any]) -> Any:
        return wda.call("POST", route, {"bundleId": _bundle(params)})

    return handler


def _is_installed(wda: _Proxy, params: dict[str, Any]) -> Any:
    return _bundle(params) in wda.script.apps


def _list_apps(wda: _Proxy, params: dict[str, Any]) -> Any:
    if wda.script.device.kind is DeviceKind.SIMULATOR:
        raise _Failure(500, "unknown error", "Listing apps can only be performed on a real device")
    if params.get("applicationType", "User") == "System":
        return {}
    return {
        bundle: {
            "CFBundleIdentifier": bundle,
            "CFBundleName": app.name,
            "CFBundleShortVersionString": app.version,
            "CFBundleVersion": app.build,
        }
        for bundle, app in wda.script.apps.items()
    }


def _deep_link(wda: _Proxy, params: dict[str, Any]) -> Any:
    url = params.get("url")
    if not isinstance(url, str) or not url:
        raise _Failure(400, "invalid argument", "'url' must be a non-empty string")
    body: dict[str, Any] = {"url": url}
    if isinstance(params.get("bundleId"), str):
        body["bundleId"] = params["bundleId"]
    return wda.call("POST", "/url", body)


def _press_button(wda: _Proxy, params: dict[str, Any]) -> Any:
    name = params.get("name")
    if not isinstance(name, str):
        raise _Failure(400, "invalid argument", "'name' must be a string")
    canonical = {"home": "home", "volumeup": "volumeUp", "volumedown": "volumeDown"}.get(name.lower(), name)
    return wda.call("POST", "/wda/pressButton", {"name": canonical})


def _wda_get(route: str) -> _MobileHandler:
    def handler(wda: _Proxy, _params: dict[str, Any]) -> Any:
        return wda.call("GET", route)

    return handler


#: ``mobile:`` name → (required arguments, handler), XCUITest's argument names (Rule 4).
_MOBILE: dict[str, tuple[tuple[str, ...], _MobileHandler]] = {
    "source": ((), _source),
    "activeAppInfo": ((), _wda_get("/wda/activeAppInfo")),
    "deviceInfo": ((), _wda_get("/wda/device/info")),
    "tap": (("x", "y"), _tap),
    "touchAndHold": (("duration",), _touch_and_hold),
    "dragFromToForDuration": (("duration", "fromX", "fromY", "toX", "toY"), _drag),
    "launchApp": (("bundleId",), _launch_app),
    "activateApp": (("bundleId",), _app_route("/wda/apps/activate")),
    "terminateApp": (("bundleId",), _app_route("/wda/apps/terminate")),
    "queryAppState": (("bundleId",), _app_route("/wda/apps/state")),
    "isAppInstalled": (("bundleId",), _is_installed),
    "listApps": ((), _list_apps),
    "deepLink": (("url",), _deep_link),
    "pressButton": (("name",), _press_button),
}


# -- python -m mobster_drivers.testing.appium ---------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Serve an app script over Appium; print the URL on the first line; stop on Ctrl-C or lifetime."""
    parser = argparse.ArgumentParser(
        prog="python -m mobster_drivers.testing.appium",
        description="Serve a scripted phone over Appium's W3C WebDriver protocol (XCUITest) on 127.0.0.1.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--app", help="the app script (YAML) the phone runs")
    what.add_argument("--tree", help="a captured WDA source (XML or JSON) served as a static app")
    parser.add_argument("--bundle", help="with --tree: the app's bundle id (default: the XML root's bundleId)")
    parser.add_argument(
        "--costs", action="store_true", help="hold WDA's replies as long as real WDA takes (docs/benchmarks.md)"
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument("--base-path", default="", help="where the routes live, e.g. /wd/hub (default: /)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every command (default 0)")
    parser.add_argument("--idle-timeout", type=float, default=None, help="end a session idle this many seconds")
    parser.add_argument("--max-sessions", type=int, default=1, help="sessions at once (default 1)")
    parser.add_argument("--provider", choices=_PROVIDERS, default=None, help="accept this cloud's executor scripts")
    parser.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="BLOCK.KEY[=VALUE]",
        help="a vendor option a session must carry, e.g. bstack:options.accessKey (repeatable)",
    )
    parser.add_argument(
        "--lifetime", type=float, default=3600.0, help="stop after this many seconds (default 3600; 0: never)"
    )
    args = parser.parse_args(argv)
    require: dict[str, dict[str, str | None]] = {}
    for item in args.require:
        key, _, value = item.partition("=")
        block, dot, name = key.rpartition(".")
        if not dot or not block or not name:
            parser.error(f"--require takes BLOCK.KEY[=VALUE], got {item!r}")
        require.setdefault(block, {})[name] = value or None

    def make() -> FakeAppium:
        return FakeAppium(
            args.app,
            tree=args.tree,
            bundle=args.bundle,
            costs=ReadCosts() if args.costs else None,
            port=args.port,
            base_path=args.base_path,
            lifetime=args.lifetime or None,
            latency=args.latency,
            require=require,
            idle_timeout=args.idle_timeout,
            max_sessions=args.max_sessions,
            provider=args.provider,
        )

    def serving(fake: FakeAppium) -> str:
        served = args.app if args.app is not None else f"the tree {args.tree} as {fake.wda.static_bundle}"
        return f"{served} over Appium (XCUITest)"

    return serve_from_shell(make, name="Appium", serving=serving)


if __name__ == "__main__":
    sys.exit(main())
