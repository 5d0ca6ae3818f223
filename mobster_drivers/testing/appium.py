r"""A fake Appium server on loopback: scripted phones behind W3C WebDriver and XCUITest's ``mobile:`` commands.

The real Appium-Python-Client (and :class:`~mobster_drivers.devices.appium.AppiumDevice`) talks to it
over a real socket. It is layered as Appium is: an Appium server in front of a
:class:`~mobster_drivers.testing.wda.FakeWda` running the same app script. Like the XCUITest
driver, it answers most commands by proxying them to WebDriverAgent over HTTP and translating
the reply, so the phone, its taps, its typing and its faults are the fake WDA's. With
``devices=N`` it is a Selenium Grid 4 hub in front of N such phones (Rule 9).

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

    with FakeAppium(sample_path("yourapp"), devices=4) as grid:  # a hub of 4 phones, one session each
        ...

From a shell: ``python -m mobster_drivers.testing.appium --app APP.yaml [--port N] [--devices N]``
(or ``--tree SOURCE.xml [--bundle ID]``, and ``--costs``, ``--host linux``, ``--no-usbmuxd``, …)
prints the URL on its first line and serves until interrupted (or ``--lifetime`` seconds).

Rule 1: W3C's envelope, as Appium 3.8 writes it. Every reply is JSON ``{"value": …}`` with a
        Content-Length; a new session's value is ``{"capabilities", "sessionId"}`` (that order); an error is
        ``{"value": {"error", "message", "stacktrace"}}`` with the W3C status and a filled
        ``stacktrace`` (``_appium_mobile`` Rule 1): 404 ``invalid session id`` ("A session is
        either terminated or not started"), ``unknown command`` ("The requested resource could
        not be found, or a request was received using an HTTP method that is not supported by
        the mapped resource."), ``no such element``, ``stale element reference``; 400 ``invalid
        argument``; 405 ``unknown method``; 500 ``unknown error``, ``session not created``; 401
        for missing credentials.
Rule 2: routes (under an optional base path such as ``/wd/hub``): ``GET /status``,
        ``POST /session``, ``GET|DELETE /session/{id}``, ``POST /session/{id}/execute/sync``
        (``execute/async``: 405), ``POST|DELETE /session/{id}/actions``, ``GET
        /session/{id}/screenshot``, ``GET /session/{id}/source`` (WDA's XML of the app under
        test), ``POST /session/{id}/keys`` (WDA's ``/wda/keys``), ``POST /session/{id}/element``
        and ``/elements``, ``GET|POST /session/{id}/timeouts``, ``GET|POST
        /session/{id}/appium/settings``, ``GET /appium/sessions`` (with ``session_discovery``,
        as ``--allow-insecure '*:session_discovery'``). The routes XCUITest passes straight
        to WDA are proxied as they are (:data:`PROXIED`: the window rect, the active element,
        every ``/element/{id}/…`` route, alerts, orientation, ``/url``), an element's value
        with the body as sent, its ``id`` dropped. Anything else is 404 ``unknown command``.
Rule 3: a new session merges ``alwaysMatch`` with each ``firstMatch`` entry (a name with no
        vendor prefix that isn't W3C's is refused first, 400 ``invalid argument``; a key in both
        is ``invalid argument``); the first that validates wins. ``platformName`` and
        ``appium:automationName`` must be there (400 ``invalid argument`` "'automationName' is
        required to be present") and name iOS and XCUITest (else 500 ``unknown error``: no
        driver matches); then the driver's own checks (``_appium_caps`` Rules 2, 3: the types of
        its capabilities, a platformVersion that reads as a version). The phone fills in what the
        caps leave out, as XCUITest's device discovery does (``_appium_caps`` Rule 4: the
        platformVersion, from lockdown on an iPhone, from the simulator on a simulator; the
        ``udid``), and the reply's capabilities are XCUITest's eight legacy keys (``platform:
        "MAC"``, ``webStorageEnabled``, …), then the request's without the ``appium:`` prefix with
        the platformVersion, then the ``udid``; no ``deviceName`` is added. A hub merges its
        node's stereotype (``appium:udid``, ``appium:platformVersion``) into the request first.
        An ``appium:bundleId`` that isn't installed is then 500 ``unknown error`` "App with
        bundle identifier '…' unknown". As XCUITest, it makes a WDA session and launches the
        bundle unless ``appium:autoLaunch`` is false. A request that repeats an
        ``X-Idempotency-Key`` gets the session that key made, while it lives. Not modelled: which
        phone a session without an explicit UDID lands on is a host's choice (a Mac picks a
        simulator, or with ``auto`` the phone on USB; Linux refuses it), and the fake takes its
        one phone whatever ``appium:udid`` says.
Rule 3a: one phone, one session: a new session on the phone of a live one ends that one, as
        XCUITest's session claim does (once the device is known, before the app is looked up: a
        session refused for its ``appium:bundleId`` has ended the older one too): its commands
        then get 404 ``invalid session id``, its ``DELETE`` too, and it stays in
        ``/appium/sessions`` (Appium keeps it in its list).
Rule 4: ``mobile:`` commands: ``_appium_mobile`` (XCUITest's argument checks, the WDA route of
        each command, what needs usbmuxd, 405 ``unknown method`` for any other).
Rule 4a: finding elements as the XCUITest driver does: the strategy must be one of its locator
        strategies (:data:`LOCATOR_STRATEGIES`; another is 400 ``invalid selector``), ``-ios
        predicate string`` and ``-ios class chain`` become WDA's ``predicate string`` and ``class
        chain``, and the lookup is proxied to WDA's ``/elements`` (``/element``). Its reply passes
        through as WDA sent it: W3C element references (``element-6066-…`` and ``ELEMENT``) with
        the attributes WDA's ``elementResponseAttributes`` adds. Any failure of the lookup at WDA
        (an unparseable predicate, an unknown key, a lost reply) is swallowed into "nothing found",
        as the driver's ``doNativeFind`` does: ``[]``, or 404 ``no such element`` for one element.
        An empty answer is asked again every 0.5 s until the session's implicit wait (``POST
        /timeouts`` ``implicit`` in ms, or the legacy ``{"type": "implicit", "ms": …}``; 0 by
        default) has passed, in real time.
Rule 4b: settings are the driver's (``DeviceSettings``): a session starts with XCUITest's
        ``DEFAULT_SETTINGS`` (``nativeWebTap`` … ``pageSourceExcludedAttributes``), and the
        caps' ``nativeWebTap``, ``nativeWebTapStrict``, ``useJSONSource``,
        ``elementResponseAttributes``, ``shouldUseCompactResponses``,
        ``mjpegServerScreenshotQuality``, ``mjpegServerFramerate`` and ``screenshotQuality`` are
        applied to them as the session starts (``setupSessionSettings``). Each key of ``POST
        /appium/settings`` whose value differs from the driver's is proxied to WDA's
        ``/appium/settings`` on its own (``{"settings": {key: value}}``), as the driver's
        ``onSettingsUpdate`` does, except the driver's own (``pageSourceExcludedAttributes``,
        ``nativeWebTap``, ``nativeWebTapStrict``) and the deprecated ones (``safariTabBarPosition``,
        …), which are only kept; a body without ``settings`` is 400 "The following required
        parameter is missing: ["settings"]…", one whose ``settings`` isn't an object 400
        "Settings update should be called with valid JSON. Got "…" instead". ``GET`` answers
        the driver's settings (WDA's own are not asked).
Rule 5: proxied failures as Appium surfaces them: a WDA error reply keeps its W3C code, status
        and message (the proxy's stack, not WDA's traceback); a WDA that doesn't answer within the
        proxy timeout (``proxy_timeout``: 240 s, ``@appium/base-driver``'s), answers with something
        that is not JSON, or drops the connection is 500 ``unknown error`` "Could not proxy command
        to the remote server. Original error: …" (``timeout of 240000ms exceeded``, ``socket hang
        up``, ``connect ECONNREFUSED 127.0.0.1:PORT``), so a lost tap is a 5xx, not a dropped
        connection.
Rule 6: cloud and host behaviours, as options: ``require`` (vendor options a session must carry,
        e.g. ``{"bstack:options": {"userName": None, "accessKey": "k3y"}}``: a missing one is 401,
        a wrong one ``session not created`` whose message echoes the user and the key, as some
        clouds do); ``idle_timeout`` (a cloud's or a Grid node's own limit over
        ``appium:newCommandTimeout``, Appium's default 60 s; an idle session ends and later
        commands get ``invalid session id``); ``latency`` (seconds added to every command);
        ``max_sessions`` (a cloud's parallel limit: one more is refused at once); ``provider``
        (``browserstack``, ``sauce`` or ``lambdatest``: its executor scripts are accepted and
        recorded in :attr:`FakeAppium.annotations`; without it such a script is 405 ``unknown
        method``, as in XCUITest's native context); ``usbmuxd`` False (a Linux host in front of a
        networked WDA: what XCUITest asks the phone's lockdown fails, ``_appium_mobile`` Rule 3);
        ``host`` (``mac``, the default, or ``linux``: XCUITest as a host utility in front of a WDA
        that runs already, which wants ``appium:udid`` and ``appium:webDriverAgentUrl``, serves no
        simulator and can't pull an iPhone's video, ``_appium_caps`` Rule 4a, ``_appium_mobile``
        Rule 5; the real-Appium tests run the fake as ``linux``, as the real server runs there);
        ``xctest_screen_record`` (``--allow-insecure xctest_screen_record``: XCTest's recorder on
        an iPhone, refused without it); ``session_discovery`` (Rule 2).
        Faults: :meth:`FakeAppium.fail_next_session` (a 5xx on session create, W3C JSON or a
        load balancer's HTML page), :meth:`FakeAppium.end_sessions` (the provider ends every
        session), :meth:`FakeAppium.garbage_next_reply`, :meth:`FakeAppium.stall_next_reply`,
        :meth:`FakeAppium.drop_next_reply` (handled, then no reply at all),
        :meth:`FakeAppium.die_when` (the phone loses power when a request it names arrives: that
        request is never handled nor answered, the server stops listening before its connection
        closes, so every later request is refused: a death at a moment a test chooses, never a
        race), and the fake WDA's own (:attr:`FakeAppium.wda`: ``fail_next_action``,
        ``fail_next_read``, ``restart``, …). With ``costs`` the fake WDA holds each source read
        and query as long as real WDA would take (its ``ReadCosts``).
Rule 7: every request is recorded in :attr:`FakeAppium.requests` before it is handled, with its
        ``command``: the script for ``execute/sync`` (``mobile: tap``), else ``METHOD /route``.
Rule 8: it is a loopback server (``_server``): it binds 127.0.0.1, keeps connections alive as
        Node's HTTP server does (HTTP/1.1; an idle one is closed after 30 s, every one at stop),
        and stops by itself after ``lifetime``.
Rule 9: a hub (``devices=N``): N phones, each its own fake WDA running the app script, with its
        own UDID; each session takes a free phone (the one its ``appium:udid`` names, when it
        names one: an unknown one is 500 ``session not created`` "Could not start a new
        session. No nodes support the capabilities in the request"). While no phone is free
        the request waits in Grid 4's queue, up to ``session_request_timeout`` seconds (300,
        Grid's default), then is 500 ``session not created`` "Could not start a new session.
        New session request timed out"; a session that ends frees its phone for the next.
        ``/status`` is Grid's (``"Selenium Grid ready."`` and its nodes).

Rule 10: Android (``_appium_android``): given an app script with ``platform: android``, or a
        started :class:`~mobster_drivers.testing.uiautomator2.FakeUiAutomator2` as ``uia2``, the
        fake is an Appium whose UiAutomator2 driver serves that one device: a session whose caps
        name ``UiAutomator2`` and ``Android`` is the Android module's (its rules), any other is
        refused as an Appium without that driver refuses it. The faults of Rule 6 (a garbage,
        stalled or dropped reply, ``end_sessions``, ``latency``, ``idle_timeout``, ``require``)
        apply to its sessions as to iOS ones.

Checked against the sources (appium 3.8.0 and appium-xcuitest-driver 12.13.1 from npm; what a
session's capabilities become is ``_appium_caps``'): ``@appium/base-driver`` routes, ``errors.ts``
codes and statuses, ``validation.ts``'s "is required to be present", ``protocol.ts``'
``checkParams`` for a missing argument; ``appium/lib/appium.ts`` (session creation, the driver
match and its messages); the XCUITest driver's ``execute-method-map.ts`` argument names (required
and optional), ``commands/gesture.ts``, ``app-management.ts``, ``element.ts``, ``source.ts``,
``keyboard.ts``, ``general.ts``, ``navigation.ts``, ``alert.ts``, ``appearance.ts`` and
``xctest-record-screen.ts`` for the WDA route of each command, ``driver.ts:182-226`` for what is not
proxied (``POST /element/{id}/value`` is passed on as sent, measured), its ``DEFAULT_SETTINGS`` and
``setupSessionSettings``, ``session-claim-handler.ts`` for the claim, ``find.ts`` for the
strategy rewrite and the swallowed lookup failures; Selenium Grid 4's ``LocalNewSessionQueue``
for the queue's words) and measured against the real server in front of the fake WDA and the fake
usbmuxd (``tests/drivers/devices/test_appium_real.py`` runs the points above against both, the
fake as ``host="linux"``, as the real one runs here). A differential run of every command
Mobster's driver sends (and their common refusals: missing arguments, bad actions, bad scripts,
bad settings) through both servers, every reply compared whole but for ids, UDIDs, timestamps and
stack traces, found no other difference (December 2026). Not checked: every cloud's wording and
status for a refused credential or a parallel limit; Grid's own ``/status`` beyond ``ready`` and
``message``; what a Mac does (a simulator session, a session without a UDID: read from the
source, ``_appium_caps`` Rule 4); the argument checks of ``mobile:`` commands Mobster never sends.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import attrs

from mobster_core import DeviceKind, SystemClock
from mobster_core.protocols import Clock
from mobster_drivers.devices.scripted import AppScript

from ._appium_android import AndroidAppium, is_uiautomator2
from ._appium_caps import HOSTS, Device, SessionCaps, check_host, check_names, session_caps, validate
from ._appium_hub import (
    Node,
    NodeFactory,
    appium_node,
    new_session_value,
    relay,
    stereotype_of,
    uiautomator2_node,
)
from ._appium_mobile import (
    LOCATOR_STRATEGIES,
    MOBILE,
    NO_USBMUXD,
    OPTIONAL,
    Failure,
    Phone,
    Proxy,
    lookup,
    not_implemented,
    provider_note,
    proxy_failure,
)
from ._grid import fits
from ._server import DEAD, Incoming, LoopbackServer, Reply, json_body, serve_from_shell, session_route
from .uiautomator2 import FakeUiAutomator2
from .wda import FakeWda, ReadCosts

__all__ = ["LOCATOR_STRATEGIES", "PROXIED", "AppiumRequest", "FakeAppium", "main"]

#: Settings the XCUITest driver keeps itself and never proxies (Rule 4b).
_DRIVER_SETTINGS = frozenset({"pageSourceExcludedAttributes", "nativeWebTap", "nativeWebTapStrict"})
#: Settings XCUITest 12.13 still takes and no longer passes on (``DEPRECATED_NATIVE_WEB_TAP_SETTINGS``).
_DEPRECATED_SETTINGS = frozenset(
    {"nativeWebTapTabBarVisibility", "nativeWebTapSmartAppBannerVisibility", "safariTabBarPosition"}
)
#: The driver's settings a session starts with (``driver.ts``' ``DEFAULT_SETTINGS``), in their order (Rule 4b).
_DEFAULT_SETTINGS: Mapping[str, Any] = {
    "nativeWebTap": False,
    "nativeWebTapStrict": False,
    "useJSONSource": False,
    "webScreenshotMode": "native",
    "shouldUseCompactResponses": True,
    "elementResponseAttributes": "type,label",
    "mjpegServerScreenshotQuality": 25,
    "mjpegServerFramerate": 10,
    "screenshotQuality": 1,
    "mjpegScalingFactor": 100,
    "reduceMotion": None,
    "pageSourceExcludedAttributes": "",
}
_IMPLICIT_INTERVAL = 0.5  # seconds between lookups while an implicit wait runs (Rule 4a)
_JSON = "application/json; charset=utf-8"
_PROXY_TIMEOUT = 240.0  # seconds: @appium/base-driver's DEFAULT_REQUEST_TIMEOUT (Rule 5)
_KEEP_ALIVE = 30.0  # seconds an idle connection stays open
_DEFAULT_NEW_COMMAND_TIMEOUT = 60.0  # Appium's default, seconds
_SESSION_REQUEST_TIMEOUT = 300.0  # Grid 4's default, seconds (Rule 9)
_LB_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"
)
_PROVIDERS = ("browserstack", "sauce", "lambdatest")
#: What serves each of a hub's Android phones (``--android-node``, ``_appium_hub`` Rule 2).
_NODE_FACTORIES: Mapping[str, NodeFactory] = {"appium": appium_node, "uiautomator2": uiautomator2_node}
_UNKNOWN_ROUTE = (
    "The requested resource could not be found, or a request was received using an HTTP method that is not "
    "supported by the mapped resource."
)
_GONE = "A session is either terminated or not started"
#: The routes XCUITest passes to WDA as they are (Rule 2), as patterns over the session's route.
PROXIED: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern))
    for method, pattern in (
        ("GET", r"/window/rect"),
        ("GET", r"/element/active"),
        ("GET", r"/element/[^/]+/(rect|text|displayed|enabled|selected|name|screenshot)"),
        ("GET", r"/element/[^/]+/attribute/[^/]+"),
        ("POST", r"/element/[^/]+/(click|clear|element|elements)"),
        ("GET", r"/alert/text"),
        ("POST", r"/alert/(accept|dismiss|text)"),
        ("GET", r"/orientation"),
        ("POST", r"/orientation"),
        ("POST", r"/url"),
    )
)
_ELEMENT_VALUE = re.compile(r"^/element/([^/]+)/value$")


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


class _HtmlFailure(Failure):
    """A refused session answered with a load balancer's HTML page (Rule 6)."""

    def __init__(self, status: int) -> None:
        super().__init__(status, "", "")


@attrs.frozen
class _PhoneMaker:
    """How each phone's fake WDA is made: an app script, or a captured tree (the constructor's options)."""

    app: str | os.PathLike[str] | AppScript | None
    tree: str | os.PathLike[str] | None
    bundle: str | None
    ios: str
    costs: ReadCosts | None
    lifetime: float | None
    one_at_a_time: bool
    uia2: FakeUiAutomator2 | None = None  # an Android device (Rule 10)

    def make(self) -> FakeWda:
        if self.tree is not None:
            return FakeWda(
                tree=self.tree,
                bundle=self.bundle,
                ios=self.ios,
                costs=self.costs,
                lifetime=self.lifetime,
                one_at_a_time=self.one_at_a_time,
            )
        assert self.app is not None
        script = self.app if isinstance(self.app, AppScript) else AppScript.from_file(self.app)
        return FakeWda(script, costs=self.costs, lifetime=self.lifetime, one_at_a_time=self.one_at_a_time)


@attrs.define(eq=False)
class _Phone:
    """One phone behind the server: its fake WDA, its UDID, the session on it (Rules 3a, 9)."""

    wda: FakeWda
    udid: str
    session: str | None = None
    reserved: bool = False  # a hub's new session is being made on it (Rule 9)
    #: ``_appium_mobile`` Rule 5: the device controls this phone was given.
    controls: list[tuple[str, dict[str, Any]]] = attrs.field(factory=list)


@attrs.define(eq=False)
class _NodeSlot:
    """A phone of the hub served by a node of its own (``_appium_hub``): its node, UDID, the session on it (Rule 9)."""

    node: Node
    udid: str
    session: str | None = None
    reserved: bool = False


@attrs.define(eq=False)
class _Session:
    id: str
    requested: dict[str, Any]  # the capabilities as the client asked for them
    capabilities: dict[str, Any]  # as the server answered them (Rule 3, ``_appium_caps`` Rule 4)
    kept: dict[str, Any]  # as the server keeps them: GET /session/{id}, GET /appium/sessions
    phone: _Phone
    wda_session: str
    idle_limit: float | None  # seconds, None: never
    last: float
    proxy_timeout: float  # seconds (Rule 5)
    created: int = attrs.field(factory=lambda: round(time.time() * 1000))  # ms since the epoch, as Appium lists it
    lock: threading.Lock = attrs.field(factory=threading.Lock)
    implicit_ms: float = 0  # the implicit wait of element lookups (Rule 4a)
    settings: dict[str, Any] = attrs.field(factory=lambda: dict(_DEFAULT_SETTINGS))  # the driver's (Rule 4b)


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
    """A fake Appium server (or a Grid hub) serving scripted phones on 127.0.0.1 (see the module rules).

    ``app`` is an app script (a path or a loaded :class:`~mobster_drivers.devices.scripted.AppScript`), or
    ``tree`` a captured WDA source served as a static app (with ``bundle`` and ``ios``: the fake
    WDA's); ``costs`` holds WDA's replies as long as real WDA would take (Rule 6); ``port`` 0 picks
    a free port; ``base_path`` is where the WebDriver routes live (``""`` as
    Appium 2 and 3, ``"/wd/hub"`` as Appium 1, a Grid or a cloud). ``devices`` makes it a Grid hub
    of that many phones, whose queue waits ``session_request_timeout`` seconds (Rule 9).
    ``clock`` (its ``now()``) is what idle timeouts are measured on: tests pass one they move by
    hand. The fake stops by itself after ``lifetime`` seconds (``None``: only at :meth:`stop`).
    Each fake WDA serves one request at a time (``wda`` Rule 8), as real WDA does, so a command
    Appium proxies waits behind the one WDA is running; ``one_at_a_time=False`` gives WDAs that
    answer each at once.
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
        max_sessions: int | None = None,
        provider: str | None = None,
        clock: Clock | None = None,
        one_at_a_time: bool = True,
        devices: int | None = None,
        session_request_timeout: float = _SESSION_REQUEST_TIMEOUT,
        usbmuxd: bool = True,
        session_discovery: bool = False,
        xctest_screen_record: bool = False,
        host: str = "mac",
        proxy_timeout: float = _PROXY_TIMEOUT,
        uia2: FakeUiAutomator2 | None = None,
        android_devices: int = 0,
        android_app: str | os.PathLike[str] | AppScript | None = None,
        android_node: NodeFactory = appium_node,
    ) -> None:
        super().__init__(port=port, lifetime=lifetime)
        _check_options(provider, latency, max_sessions, devices, session_request_timeout)
        _check_served(app, tree, uia2)
        self._clock: Clock = clock or SystemClock()
        self._hub = devices is not None
        maker = _PhoneMaker(app, tree, bundle, ios, costs, lifetime, one_at_a_time, uia2)
        self._android, self._phones = _served(maker, self._clock, idle_timeout, devices, host)  # Rule 10
        self._nodes = _nodes(android_devices, android_app, android_node, hub=self._hub)
        self._relayed: dict[str, _NodeSlot] = {}  # a node's session id -> its slot (Rule 9)
        self._host = host
        self._features = frozenset({"xctest_screen_record"} if xctest_screen_record else ())
        self._script = self._android.script if self._android else self._phones[0].wda.script
        self._base = "/" + base_path.strip("/") if base_path.strip("/") else ""
        self._latency = latency
        self._require = {block: dict(keys) for block, keys in (require or {}).items()}
        self._idle_timeout = idle_timeout
        self._max_sessions = max_sessions
        self._provider = provider
        self._queue_timeout = session_request_timeout
        self._usbmuxd, self._discovery = usbmuxd, session_discovery
        self._proxy_timeout = proxy_timeout
        self._create_lock = threading.Lock()  # one new session at a time: the queue is first come, first served
        self._free = threading.Condition(self._lock)  # a phone became free (Rule 9)
        self._annotations: list[tuple[str, Any]] = []
        self._sessions: dict[str, _Session] = {}
        self._claimed: dict[str, _Session] = {}  # ended by a claim, still in Appium's list (Rule 3a)
        self._keys: dict[str, str] = {}  # X-Idempotency-Key -> session id (Rule 3)
        self._session_failures: list[tuple[int, bool]] = []
        self._garbage: list[int] = []
        self._stall, self._drop = 0.0, 0

    # -- lifecycle (the rest is the loopback server's) ---------------------------------------

    def _on_start(self) -> None:
        for one in self._phones:
            one.wda.start()
        if self._android is not None:
            self._android.start()
        for slot in self._nodes:
            slot.node.start()

    def _on_stop(self) -> None:
        with self._free:
            self._free.notify_all()  # a request waiting in the queue gives up
        for one in self._phones:
            one.wda.stop()
        if self._android is not None:
            self._android.stop()
        for slot in self._nodes:
            slot.node.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The URL to give an Appium client: ``http://127.0.0.1:<port>[/wd/hub]``."""
        return f"http://127.0.0.1:{self.port}{self._base}"

    @property
    def wda(self) -> FakeWda:
        """The fake WebDriverAgent behind it (its phone, its requests, its faults); a hub's first."""
        return self._phones[0].wda

    @property
    def phones(self) -> list[FakeWda]:
        """Every phone's fake WebDriverAgent, in order (one unless ``devices`` says more)."""
        return [one.wda for one in self._phones]

    @property
    def controls(self) -> list[tuple[str, dict[str, Any]]]:
        """The device controls the first phone was given (``_appium_mobile`` Rule 5), oldest first."""
        return self._phones[0].controls

    @property
    def udids(self) -> list[str]:
        """Every phone's UDID, in the order of :attr:`phones`; an Android fake's: its device's serial (Rule 10)."""
        if self._android is not None:
            return [self._android.serial]
        return [one.udid for one in self._phones]

    @property
    def _slots(self) -> list[_Phone | _NodeSlot]:
        """Every phone of the hub: its iPhones, then its nodes (Rule 9)."""
        return [*self._phones, *self._nodes]

    @property
    def nodes(self) -> list[Node]:
        """A hub's Android phones, each the node that serves its sessions (Rule 9), in order."""
        return [slot.node for slot in self._nodes]

    @property
    def stereotypes(self) -> list[dict[str, Any]]:
        """What each of the hub's phones offers a new session (Rule 9): the iPhones', then the nodes'."""
        return [self._stereotype(slot) for slot in self._slots]

    def platform_of(self, session: str) -> str | None:
        """``ios`` or ``android``: the platform of the phone a live session is on; None for no live session."""
        with self._lock:
            if session in self._relayed:
                return "android"
            return "ios" if session in self._sessions else None

    @property
    def script(self) -> AppScript:
        """The app script the phones run."""
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
        """The live sessions' capabilities as the client asked for them, by session id (a copy)."""
        android = self._android.sessions if self._android is not None else {}
        with self._lock:
            return {**{sid: dict(s.requested) for sid, s in self._sessions.items()}, **android}

    @property
    def uia2(self) -> FakeUiAutomator2:
        """The fake Android device behind an Android fake (Rule 10): its server, its shell's commands."""
        if self._android is None:
            raise AttributeError("this FakeAppium serves iOS phones; give it an Android app script or uia2=")
        return self._android.server

    def phone_of(self, session: str) -> int | None:
        """Which phone (its index in :attr:`phones`) a live session is on, None for no live session."""
        with self._lock:
            found = self._sessions.get(session)
            return None if found is None else self._phones.index(found.phone)

    # -- faults (Rule 6) ---------------------------------------------------------------------

    def fail_next_session(self, status: int = 500, *, html: bool = False) -> None:
        """Refuse the next new session with ``status``: W3C ``session not created``, or an HTML page."""
        with self._lock:
            self._session_failures.append((status, html))

    def end_sessions(self) -> None:
        """End every session, as a provider does at its own time limit (later commands: stale)."""
        with self._lock:
            ended = list(self._sessions.values())
            relayed = list(self._relayed.items())
        for session in ended:
            self._end(session)
        if self._android is not None:
            self._android.end_all()
        for sid, slot in relayed:
            with contextlib.suppress(Failure):
                relay(slot.node, "DELETE", f"/session/{sid}", b"", 10.0)
            with self._free:
                self._relayed.pop(sid, None)
                slot.session = None if slot.session == sid else slot.session
                self._free.notify_all()

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
                return Reply(404, _error_body(Failure(404, "unknown command", _UNKNOWN_ROUTE)), _JSON)
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
        with self._lock:
            node = self._relayed.get(session or "")
        try:
            if node is not None:
                query = urlsplit(raw_path).query
                reply = self._relay_command(node, request, path + (f"?{query}" if query else ""), incoming.body)
            else:
                value = self._route(request, path, _object(body, bad_body=bad_body))
                reply = Reply(200, json.dumps({"value": value}, ensure_ascii=False).encode("utf-8"), _JSON)
        except Failure as failure:
            content = "text/html" if isinstance(failure, _HtmlFailure) else _JSON
            reply = Reply(failure.status, _error_body(failure), content)
        return attrs.evolve(reply, hold=stall, drop=drop)

    def _claim(self) -> tuple[int | None, float, bool]:
        """Under the lock, for the request just recorded: a garbage status, the stall, drop the reply?"""
        garbage = self._garbage.pop(0) if self._garbage else None
        stall, self._stall = self._stall, 0.0
        drop = self._drop > 0
        self._drop -= 1 if drop else 0
        return garbage, stall, drop

    def _route(self, request: AppiumRequest, path: str, body: dict[str, Any]) -> Any:
        method, sid = request.method, request.session
        if path == "/status" and method == "GET":
            return self._status()
        if path == "/session" and method == "POST":
            if self._hub:  # Grid's queue: each request waits for a phone it fits, none for another's (Rule 9)
                return self._create_session(body, request.headers.get("x-idempotency-key"))
            with self._create_lock:
                return self._create_session(body, request.headers.get("x-idempotency-key"))
        if path == "/appium/sessions" and method == "GET":
            return self._discover()
        if sid is None:
            raise Failure(404, "unknown command", _UNKNOWN_ROUTE)
        if self._android is not None and self._android.knows(sid):  # Rule 10
            return self._android.command(sid, method, request.route, body)
        session = self._live(sid)
        with session.lock:
            try:
                return self._session_command(session, method, request.route, body)
            finally:
                session.last = self._clock.now()

    def _status(self) -> Any:
        if self._hub:
            nodes = [
                {"id": one.udid, "availability": "UP", "slots": 1, "stereotype": self._stereotype(one)}
                for one in self._slots
            ]
            return {"ready": True, "message": "Selenium Grid ready.", "nodes": nodes}
        return {
            "ready": True,
            "message": "The server is ready to accept new connections",
            "build": {"version": "3.8.0"},
        }

    def _discover(self) -> Any:
        if not self._discovery:
            raise Failure(
                500,
                "unknown error",
                "Potentially insecure feature 'session_discovery' has not been enabled. If you want to enable this "
                "feature and accept the security ramifications, please do so by following the documented "
                "instructions at http://appium.io/docs/en/latest/guides/security/",
            )
        with self._lock:
            listed = [*self._sessions.values(), *self._claimed.values()]
        android = self._android.listed() if self._android is not None else []
        return [
            *(
                {
                    "id": s.id,
                    "created": s.created,
                    "capabilities": dict(s.kept),
                }
                for s in listed
            ),
            *android,
        ]

    def _live(self, sid: str) -> _Session:
        with self._lock:
            session = self._sessions.get(sid)
            expired = (
                session is not None
                and session.idle_limit is not None
                and self._clock.now() - session.last > session.idle_limit
            )
        if session is None or expired:
            if session is not None:
                self._end(session)
            raise Failure(404, "invalid session id", _GONE)
        return session

    def _session_command(self, session: _Session, method: str, route: str, body: dict[str, Any]) -> Any:
        handler = _COMMANDS.get((method, route))
        if handler is not None:
            return handler(self, session, body)
        value_route = _ELEMENT_VALUE.match(route)
        if value_route and method == "POST":
            return self._set_value(session, value_route.group(1), body)
        if any(m == method and pattern.fullmatch(route) for m, pattern in PROXIED):
            return self._wda_call(session, method, route, body if method == "POST" else None)
        raise Failure(404, "unknown command", _UNKNOWN_ROUTE)

    # -- W3C commands in a session (Rule 2) ----------------------------------------------------

    @_w3c("DELETE", "/")
    def _quit(self, session: _Session, _body: dict[str, Any]) -> Any:
        self._end(session)

    @_w3c("GET", "/")
    def _session_caps(self, session: _Session, _body: dict[str, Any]) -> Any:
        return dict(session.kept)

    @_w3c("POST", "/actions")
    def _actions(self, session: _Session, body: dict[str, Any]) -> Any:
        if not isinstance(body.get("actions"), list):
            raise Failure(400, "invalid argument", "'actions' must be a list of input sources")
        return self._wda_call(session, "POST", "/actions", body)

    @_w3c("DELETE", "/actions")
    def _release_actions(self, _session: _Session, _body: dict[str, Any]) -> Any:
        return None

    @_w3c("GET", "/screenshot")
    def _screenshot(self, session: _Session, _body: dict[str, Any]) -> Any:
        return self._wda_call(session, "GET", "/screenshot")

    @_w3c("GET", "/source")
    def _page_source(self, session: _Session, _body: dict[str, Any]) -> Any:
        return self._wda_call(session, "GET", "/source?format=xml&scope=AppiumAUT")  # source.ts:53

    @_w3c("POST", "/keys")
    def _send_keys(self, session: _Session, body: dict[str, Any]) -> Any:
        value = body.get("value")
        if not isinstance(value, list | str):
            raise Failure(400, "invalid argument", _missing(["value"], ("value",), list(body)))
        return self._wda_call(session, "POST", "/wda/keys", {"value": list("".join(value))})  # element.ts:288

    @_w3c("POST", "/element")
    def _find_one(self, session: _Session, body: dict[str, Any]) -> Any:
        return self._find(session, body, first=True)

    @_w3c("POST", "/elements")
    def _find_all(self, session: _Session, body: dict[str, Any]) -> Any:
        return self._find(session, body, first=False)

    @_w3c("GET", "/timeouts")
    def _get_timeouts(self, session: _Session, _body: dict[str, Any]) -> Any:
        return {"command": round((session.idle_limit or 0) * 1000), "implicit": session.implicit_ms}

    @_w3c("POST", "/timeouts/implicit_wait")
    def _legacy_implicit_wait(self, _session: _Session, _body: dict[str, Any]) -> Any:
        raise Failure(405, "unknown method", "Method has not yet been implemented")

    @_w3c("POST", "/execute/async")
    def _execute_async(self, _session: _Session, _body: dict[str, Any]) -> Any:
        raise not_implemented()

    @_w3c("GET", "/appium/settings")
    def _get_settings(self, session: _Session, _body: dict[str, Any]) -> Any:
        return dict(session.settings)

    # -- sessions (Rules 3, 3a, 9) -------------------------------------------------------------

    def _create_session(self, body: dict[str, Any], key: str | None) -> Any:
        with self._lock:
            known = self._sessions.get(self._keys.get(key, "")) if key else None
            failure = None if known else (self._session_failures.pop(0) if self._session_failures else None)
        if known is not None:
            return {"capabilities": dict(known.capabilities), "sessionId": known.id}
        if failure is not None:
            status, html = failure
            if html:
                raise _HtmlFailure(status)
            raise Failure(status, "session not created", "The cloud could not start a session (injected failure)")
        if not self._hub:
            return self._create_on(None, body, key)
        slot, chosen = self._slot_for(body)
        try:
            if isinstance(slot, _NodeSlot):
                return self._relay_session(slot, chosen)
            return self._create_on(slot, {"capabilities": {"alwaysMatch": chosen}}, key)
        finally:
            with self._free:
                slot.reserved = False
                self._free.notify_all()

    def _create_on(self, slot: _Phone | None, body: dict[str, Any], key: str | None) -> Any:
        """A session made in process: on the hub's phone ``slot``, or on the one phone (Rules 3, 3a)."""
        asked = _matched(body)
        if is_uiautomator2(asked) or self._android is not None:  # Rule 10
            return self._create_android(asked)
        caps = validate(asked)  # the driver's constraints (``_appium_caps`` Rules 2, 3)
        self._check_credentials(caps)
        check_host(caps, self._host)
        phone = slot or self._phone_for()
        if self._hub:  # a Grid node's stereotype names its phone (Rule 9)
            caps = _with_stereotype(caps, self._stereotype(phone))
        device = phone.wda.script.device
        made = session_caps(caps, Device(device.kind, device.ios, phone.udid, self._usbmuxd))
        self._claim_phone(phone)  # XCUITest's claim comes before the app is looked up (Rule 3a)
        bundle = caps.get("appium:bundleId")
        if bundle is not None:
            if not self._usbmuxd:  # driver.ts:1443-1451: installation_proxy looks the app up first
                raise Failure(500, "unknown error", NO_USBMUXD)
            if not isinstance(bundle, str) or bundle not in self._script.apps:
                raise Failure(500, "unknown error", f"App with bundle identifier '{bundle}' unknown")
        session = self._start(asked, caps, phone, made)
        with self._lock:
            if key:
                self._keys[key] = session.id
        return {"capabilities": dict(session.capabilities), "sessionId": session.id}

    def _create_android(self, caps: dict[str, Any]) -> Any:
        """Rule 10: a session of the UiAutomator2 driver, on the Android device, if this server has one."""
        if self._android is None or not is_uiautomator2(caps):
            automation = caps.get("appium:automationName", caps.get("automationName"))
            platform = caps.get("platformName")
            raise Failure(
                500,
                "unknown error",
                f"Could not find a driver for automationName '{automation}' and platformName '{platform}'. Have you "
                "installed a driver that supports those capabilities? Run 'appium driver list --installed' to see. "
                "(Lower-level error: Could not find installed driver to support given caps)",
            )
        self._check_credentials(caps)
        return self._android.create(caps, _new_command_timeout(caps))

    def _phone_for(self) -> _Phone:
        """The phone a new session of a server of one phone goes to (Rule 3a), within ``max_sessions``."""
        with self._free:
            self._expire_idle()
            self._check_max_sessions()
            return self._phones[0]

    def _check_max_sessions(self) -> None:
        if self._max_sessions is not None and len(self._sessions) + len(self._relayed) >= self._max_sessions:
            raise Failure(
                500,
                "session not created",
                f"The maximum number of sessions ({self._max_sessions}) is reached; no device is free",
            )

    def _slot_for(self, body: dict[str, Any]) -> tuple[_Phone | _NodeSlot, dict[str, Any]]:
        """Rule 9: the hub's free phone whose stereotype a set of the request's capabilities fits, reserved.

        Each merged set (``alwaysMatch`` with a ``firstMatch`` entry) is tried in order against every
        phone (``_grid``); none fitting any is refused at once, as Grid's distributor does; else the
        request waits in the queue for a fitting phone to be free.
        """
        candidates = _candidates(body)
        with self._free:
            self._expire_idle()
            self._check_max_sessions()
            fitting = [(s, caps) for caps in candidates for s in self._slots if fits(self._stereotype(s), caps)]
            if not fitting:
                raise Failure(
                    500,
                    "session not created",
                    "Could not start a new session. No nodes support the capabilities in the request",
                )
            deadline = time.monotonic() + self._queue_timeout
            while True:
                free = next(((s, c) for s, c in fitting if s.session is None and not s.reserved), None)
                left = deadline - time.monotonic()
                if free is not None or left <= 0 or self._stopping.is_set():
                    break
                self._free.wait(min(left, 0.5))
                self._expire_idle()
            if free is None:
                raise Failure(
                    500, "session not created", "Could not start a new session. New session request timed out"
                )
            free[0].reserved = True
            return free

    def _stereotype(self, slot: _Phone | _NodeSlot) -> dict[str, Any]:
        if isinstance(slot, _NodeSlot):
            return dict(slot.node.stereotype)
        return stereotype_of(slot.wda.script, slot.udid)

    def _relay_session(self, slot: _NodeSlot, caps: dict[str, Any]) -> Any:
        """Rule 9: a session on a node's phone, made by the node (``_appium_hub`` Rule 3)."""
        merged = _with_stereotype(caps, self._stereotype(slot))
        payload = json.dumps({"capabilities": {"alwaysMatch": merged, "firstMatch": [{}]}}).encode("utf-8")
        status, raw, _ = relay(slot.node, "POST", "/session", payload, self._proxy_timeout)
        made = new_session_value(status, raw)
        with self._lock:
            self._relayed[made["sessionId"]] = slot
            slot.session = made["sessionId"]
        return made

    def _relay_command(self, slot: _NodeSlot, request: AppiumRequest, path: str, body: bytes) -> Reply:
        """Rule 9: a command of a node's session, relayed as it came; a session that ended frees its phone."""
        status, raw, content = relay(slot.node, request.method, path, body, self._proxy_timeout)
        gone = status == 404 and b"invalid session id" in raw
        if gone or (request.method == "DELETE" and request.route == "/"):
            with self._free:
                if self._relayed.pop(request.session or "", None) is not None and slot.session == request.session:
                    slot.session = None
                self._free.notify_all()
        return Reply(status, raw, content)

    def _claim_phone(self, phone: _Phone) -> None:
        """Rule 3a: XCUITest's claim ends the older session on this phone."""
        with self._lock:
            held = self._sessions.get(phone.session or "")
        if held is not None:
            self._end(held, claimed=True)

    def _start(self, asked: dict[str, Any], caps: dict[str, Any], phone: _Phone, made: SessionCaps) -> _Session:
        limits = [t for t in (_new_command_timeout(caps), self._idle_timeout) if t is not None]
        launch = caps.get("appium:bundleId") is not None and caps.get("appium:autoLaunch", True) is not False
        wda_caps: dict[str, Any] = {"shouldWaitForQuiescence": False}
        if launch:
            wda_caps["bundleId"] = caps["appium:bundleId"]
        timeout = self._proxy_timeout
        reply = _wda_request(phone, "POST", "/session", {"capabilities": {"alwaysMatch": wda_caps}}, timeout)
        wda_session = reply.get("sessionId") if isinstance(reply, dict) else None
        if not isinstance(wda_session, str):
            raise Failure(500, "unknown error", "Unable to start WebDriverAgent session: WDA created no session")
        session = _Session(
            id=secrets.token_hex(16) if self._hub else _uuid4(),
            requested=asked,
            capabilities=dict(made.reply),
            kept=dict(made.session),
            phone=phone,
            wda_session=wda_session,
            idle_limit=min(limits) if limits else None,
            last=self._clock.now(),
            proxy_timeout=timeout,
        )
        with self._lock:
            self._sessions[session.id] = session
            phone.session = session.id
        told = _caps_settings(caps)
        if told:
            with session.lock:
                self._update_settings(session, {"settings": told})
        return session

    def _check_credentials(self, caps: Mapping[str, Any]) -> None:
        for block, keys in self._require.items():
            given = caps.get(block)
            given = given if isinstance(given, Mapping) else {}
            missing = [k for k in keys if not isinstance(given.get(k), str) or not given.get(k)]
            if missing:
                raise Failure(401, "session not created", f"Authorization required: {block}.{missing[0]} is missing")
            wrong = [k for k, want in keys.items() if want is not None and given.get(k) != want]
            if wrong:
                shown = ", ".join(f"{k} {given.get(k)!r}" for k in keys)
                raise Failure(500, "session not created", f"Authentication failed for {block}: you used {shown}")

    def _expire_idle(self) -> None:
        """End sessions past their idle limit (called with the lock held: it frees their phones)."""
        now = self._clock.now()
        for sid, s in list(self._sessions.items()):
            if s.idle_limit is not None and now - s.last > s.idle_limit:
                del self._sessions[sid]
                s.phone.session = None if s.phone.session == sid else s.phone.session
                self._free.notify_all()

    def _end(self, session: _Session, *, claimed: bool = False) -> None:
        """A session ends: its phone is free, its WDA session deleted; a claimed one stays listed (Rule 3a)."""
        with self._lock:
            if self._sessions.pop(session.id, None) is None:
                return
            if claimed:
                self._claimed[session.id] = session
            if session.phone.session == session.id:
                session.phone.session = None
            self._free.notify_all()
        with contextlib.suppress(Failure):
            _wda_request(session.phone, "DELETE", f"/session/{session.wda_session}", None, 10.0)

    # -- mobile: commands (Rule 4) -----------------------------------------------------------

    @_w3c("POST", "/execute/sync")
    def _execute(self, session: _Session, body: dict[str, Any]) -> Any:
        script = body.get("script")
        args = body.get("args", [])
        if not isinstance(script, str):
            raise Failure(500, "unknown error", "script.trim is not a function")  # execute.ts trims it first
        if not isinstance(args, list):
            raise Failure(400, "invalid argument", "'args' must be a list")
        if not script.startswith("mobile:"):
            return self._annotate(script)
        name = script.removeprefix("mobile:").strip()
        spec = MOBILE.get(name)
        if spec is None:
            raise not_implemented()
        params = args[0] if args else {}
        if not isinstance(params, dict):
            raise Failure(500, "unknown error", f"Cannot use 'in' operator to search for 'elementId' in {params}")
        required, handler = spec
        missing = [p for p in required if p not in params]
        if missing:
            raise Failure(400, "invalid argument", _missing(missing, required, list(params), OPTIONAL.get(name, ())))
        wda = session.phone.wda
        privacy = lambda bundle, service, allow: wda.set_permission(bundle, service, allow=allow)  # noqa: E731
        controls = session.phone.controls
        phone = Phone(
            wda.script,
            session.phone.udid,
            self._usbmuxd,
            controls,
            events=wda.send_event,
            privacy=privacy,
            platform_version=session.kept.get("platformVersion"),
            host=self._host,
            features=self._features,
        )
        bare = lambda m, r, b: _wda_request(session.phone, m, r, b, session.proxy_timeout)  # noqa: E731
        return handler(Proxy(lambda m, r, b: self._wda_call(session, m, r, b), phone, bare), params)

    def _annotate(self, script: str) -> Any:
        provider, note = provider_note(script)
        if provider is None or provider != self._provider:
            raise not_implemented()
        with self._lock:
            self._annotations.append((provider, note))
        return None

    def _set_value(self, session: _Session, ref: str, body: dict[str, Any]) -> Any:
        value = body.get("value", body.get("text"))
        if not isinstance(value, list | str):
            raise Failure(400, "invalid argument", _missing(["value"], ("value",), list(body)))
        sent = {k: v for k, v in body.items() if k != "id"}  # passed to WDA as sent, the element id dropped
        return self._wda_call(session, "POST", f"/element/{ref}/value", sent)

    # -- elements, timeouts and settings (Rules 4a, 4b) --------------------------------------

    def _find(self, session: _Session, body: dict[str, Any], *, first: bool) -> Any:
        wanted = lookup(body)
        deadline = time.monotonic() + session.implicit_ms / 1000
        while True:
            try:
                found = self._wda_call(session, "POST", "/element" if first else "/elements", wanted)
            except Failure:
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
            raise Failure(
                404, "no such element", "An element could not be located on the page using the given search parameters."
            )
        return found

    @_w3c("POST", "/timeouts")
    def _set_timeouts(self, session: _Session, body: dict[str, Any]) -> Any:
        if body.get("type") is not None and "ms" in body:  # the legacy form
            given = {str(body["type"]): body["ms"]}
        else:
            given = {k: body[k] for k in ("implicit", "pageLoad", "script") if k in body}
        if not given:
            raise Failure(400, "invalid argument", "W3C protocol expects any of script, pageLoad or implicit to be set")
        for value in given.values():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise Failure(400, "invalid argument", f"Invalid timeout value '{value}'")
        if "implicit" in given:
            session.implicit_ms = given["implicit"]
        return None

    @_w3c("POST", "/appium/settings")
    def _update_settings(self, session: _Session, body: dict[str, Any]) -> Any:
        if "settings" not in body:
            raise Failure(400, "invalid argument", _missing(["settings"], ("settings",), list(body)))
        settings = body["settings"]
        if not isinstance(settings, dict):
            shown = json.dumps(settings, ensure_ascii=False, separators=(",", ":"))
            raise Failure(
                400, "invalid argument", f"Settings update should be called with valid JSON. Got {shown} instead"
            )
        for key, value in settings.items():
            if key in session.settings and session.settings[key] == value:
                continue  # unchanged: the driver isn't told
            if key not in _DRIVER_SETTINGS and key not in _DEPRECATED_SETTINGS:
                self._wda_call(session, "POST", "/appium/settings", {"settings": {key: value}})
            session.settings[key] = value
        return None

    # -- WebDriverAgent (Rule 5) -------------------------------------------------------------

    def _wda_call(self, session: _Session, method: str, route: str, body: Mapping[str, Any] | None = None) -> Any:
        return _wda_request(
            session.phone, method, f"/session/{session.wda_session}{route}", body, session.proxy_timeout
        )


def _caps_settings(caps: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a session's caps set as it starts (``driver.ts``' ``setupSessionSettings``, Rule 4b)."""
    told: dict[str, Any] = {}
    for key in ("nativeWebTap", "nativeWebTapStrict", "useJSONSource"):
        if f"appium:{key}" in caps:
            told[key] = caps[f"appium:{key}"]
    wanted: dict[str, type | tuple[type, ...]] = {
        "elementResponseAttributes": str,
        "shouldUseCompactResponses": bool,
        "mjpegServerScreenshotQuality": (int, float),
        "mjpegServerFramerate": (int, float),
    }
    for key, kind in wanted.items():
        value = caps.get(f"appium:{key}")
        if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
            told[key] = value
    if "appium:screenshotQuality" in caps:
        told["screenshotQuality"] = caps["appium:screenshotQuality"]
    return told


def _served(
    maker: _PhoneMaker, clock: Clock, idle_timeout: float | None, devices: int | None, host: str
) -> tuple[AndroidAppium | None, list[_Phone]]:
    """What a fake serves: its Android device (Rule 10) and no iOS phone, else its iOS phones."""
    android = _android_front(maker, clock, idle_timeout)
    return android, [] if android is not None else _phones(maker, devices, host)


def _android_front(maker: _PhoneMaker, clock: Clock, idle_timeout: float | None) -> AndroidAppium | None:
    """Rule 10: the Android device a fake serves (``uia2``, or one made of an Android app script), else None."""
    if maker.uia2 is not None:
        return AndroidAppium(maker.uia2, now=clock.now, idle_timeout=idle_timeout, script=maker.uia2.script)
    if maker.app is None:
        return None
    script = maker.app if isinstance(maker.app, AppScript) else AppScript.from_file(maker.app)
    if script.platform.value != "android":
        return None
    server = FakeUiAutomator2(script, lifetime=maker.lifetime)
    return AndroidAppium(server, now=clock.now, idle_timeout=idle_timeout, own=True, script=script)


def _phones(maker: _PhoneMaker, devices: int | None, host: str) -> list[_Phone]:
    """The phones behind the server (one, or a hub's), each with its own UDID; a Linux host serves no simulator."""
    if host not in HOSTS:
        raise ValueError(f"host is one of {', '.join(HOSTS)}, got {host!r}")
    phones = [_Phone(wda, _udid(wda.script)) for wda in (maker.make() for _ in range(devices or 1))]
    if host == "linux" and phones[0].wda.script.device.kind is DeviceKind.SIMULATOR:
        raise ValueError("a Linux host serves no simulator (XCUITest needs macOS for one): give an iPhone's script")
    return phones


def _nodes(
    count: int, app: str | os.PathLike[str] | AppScript | None, make: NodeFactory, *, hub: bool
) -> list[_NodeSlot]:
    """A hub's Android phones (Rule 9): ``count`` nodes of the Android script ``app``, each made by ``make``."""
    if count < 0:
        raise ValueError("android_devices (a hub's Android phones) is at least 0")
    if not count:
        if app is not None:
            raise ValueError("android_app= goes with android_devices=N (the hub's Android phones)")
        return []
    if not hub:
        raise ValueError("android_devices= are a hub's phones: give devices=N (its iPhones) too")
    if app is None:
        raise ValueError("android_devices=N needs android_app=, the Android app script its phones run")
    script = app if isinstance(app, AppScript) else AppScript.from_file(app)
    if script.platform.value != "android":
        raise ValueError(f"{script.source}: android_app= is an Android app script (platform: android at the top)")
    nodes = [make(script, n) for n in range(count)]
    return [_NodeSlot(node, str(node.stereotype.get("appium:udid", ""))) for node in nodes]


def _check_served(app: object, tree: object, uia2: object = None) -> None:
    if uia2 is None and (app is None) == (tree is None):
        raise ValueError("FakeAppium serves an app script (app=) or a captured tree (tree=), one of the two")


def _check_options(
    provider: str | None, latency: float, max_sessions: int | None, devices: int | None, queue: float
) -> None:
    """A ``ValueError`` for an option :class:`FakeAppium` can't take."""
    if provider is not None and provider not in _PROVIDERS:
        raise ValueError(f"provider is one of {', '.join(_PROVIDERS)}, got {provider!r}")
    if latency < 0 or (max_sessions is not None and max_sessions < 1):
        raise ValueError("latency is at least 0 s and max_sessions at least 1")
    if devices is not None and devices < 1:
        raise ValueError("devices (a hub's phones) is at least 1")
    if queue < 0:
        raise ValueError("session_request_timeout is at least 0 s")


def _wda_request(phone: _Phone, method: str, path: str, body: Mapping[str, Any] | None, timeout: float) -> Any:
    """One proxied request to a phone's fake WDA; its ``value``, or Appium's error for its failure (Rule 5)."""
    port = phone.wda.port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    data = json.dumps(body).encode("utf-8") if body is not None else None
    headers = {"Content-Type": "application/json"} if data is not None else {}
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        status, raw = response.status, response.read()
    except TimeoutError as exc:
        raise proxy_failure(f"timeout of {round(timeout * 1000)}ms exceeded") from exc
    except ConnectionRefusedError as exc:
        raise proxy_failure(f"connect ECONNREFUSED 127.0.0.1:{port}") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise proxy_failure("socket hang up") from exc
    finally:
        connection.close()
    try:
        reply = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise proxy_failure(f"Unexpected data in the response from WebDriverAgent (HTTP {status})") from exc
    value = reply.get("value") if isinstance(reply, dict) else None
    if isinstance(value, dict) and isinstance(value.get("error"), str):
        code = status if status >= 400 else 500
        raise Failure(code, value["error"], str(value.get("message") or ""), proxied=True)
    if status >= 400:
        raise proxy_failure(f"Request failed with status code {status}")
    if path == "/session" and isinstance(reply, dict) and isinstance(value, dict):
        return {**value, "sessionId": reply.get("sessionId") or value.get("sessionId")}
    return value


def _with_stereotype(caps: Mapping[str, Any], stereotype: Mapping[str, Any]) -> dict[str, Any]:
    """Rule 9: the request with its node's ``appium:udid`` and ``appium:platformVersion`` where it leaves them out."""
    named = {k: stereotype[k] for k in ("appium:udid", "appium:platformVersion") if k in stereotype}
    return {**caps, **{k: v for k, v in named.items() if caps.get(k) in (None, "")}}


def _matched(body: Mapping[str, Any]) -> dict[str, Any]:
    """The capabilities of a new session: ``alwaysMatch`` with the first ``firstMatch`` that validates (Rule 3)."""
    problems: list[Failure] = []
    for caps in _candidates(body):
        problem = _invalid(caps)
        if problem is None:
            return caps
        problems.append(problem)
    raise problems[0]


def _candidates(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The merged sets of a new session's capabilities, ``alwaysMatch`` with each ``firstMatch`` (Rule 3)."""
    requested = body.get("capabilities")
    if not isinstance(requested, dict):
        raise Failure(
            500,
            "session not created",
            "A new session could not be created. Details: Session capabilities format must comply to the W3C "
            "standard. Make sure your client is up to date. See https://www.w3.org/TR/webdriver/#new-session for "
            "more details.",
        )
    always = requested.get("alwaysMatch", {})
    first = requested.get("firstMatch", [{}])
    if not isinstance(always, dict) or not isinstance(first, list) or not all(isinstance(f, dict) for f in first):
        raise Failure(400, "invalid argument", "'alwaysMatch' must be an object and 'firstMatch' a list of objects")
    check_names(always, first)  # ``_appium_caps`` Rule 1
    merged = []
    for entry in first or [{}]:
        both = sorted(set(always) & set(entry))
        if both:
            raise Failure(
                400, "invalid argument", f"Property {both[0]!r} should not exist on both alwaysMatch and firstMatch"
            )
        merged.append({**always, **entry})
    return merged


def _invalid(caps: Mapping[str, Any]) -> Failure | None:
    """Why no driver takes these capabilities (``validation.ts``, ``driver-config.ts``), None when XCUITest does.

    UiAutomator2 on Android is taken too: whether this server has an Android device is Rule 10's.
    """
    for name in ("automationName", "platformName"):
        value = caps.get(f"appium:{name}", caps.get(name))
        if not isinstance(value, str) or not value:
            return Failure(400, "invalid argument", f"'{name}' is required to be present")
    if is_uiautomator2(caps):
        return None
    automation = str(caps.get("appium:automationName", caps.get("automationName")))
    platform = str(caps.get("platformName", caps.get("appium:platformName")))
    if automation.lower() != "xcuitest":
        lower = "Could not find installed driver to support given caps"
    elif platform.lower() not in ("ios", "tvos", "watchos"):
        lower = (
            f"Driver 'xcuitest' supports automationName '{automation}', but Appium could not find support for "
            f'platformName \'{platform}\'. Supported platformNames are: ["iOS","tvOS","watchOS"]'
        )
    else:
        return None
    return Failure(
        500,
        "unknown error",
        f"Could not find a driver for automationName '{automation}' and platformName '{platform}'. Have you "
        "installed a driver that supports those capabilities? Run 'appium driver list --installed' to see. "
        f"(Lower-level error: {lower})",
    )


def _new_command_timeout(caps: Mapping[str, Any]) -> float | None:
    """Seconds a session may idle (None: no limit); the value is a number once ``_appium_caps.validate`` passed."""
    value = caps.get("appium:newCommandTimeout", _DEFAULT_NEW_COMMAND_TIMEOUT)
    if value is None or value == "":  # Appium: null * 1000 and "" * 1000 are 0, no timeout
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise Failure(400, "invalid argument", f"'newCommandTimeout' must be a number of seconds, got {value!r}")
    return None if value == 0 else float(value)


def _udid(script: AppScript) -> str:
    """A phone's own UDID: a simulator's is a UUID, an iPhone's the 25-character real-device form."""
    digest = secrets.token_hex(16).upper()
    if script.device.kind is DeviceKind.SIMULATOR:
        return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"
    return f"00008110-{digest[:16]}"


def _uuid4() -> str:
    """A session id as Appium makes them (a UUID)."""
    raw = secrets.token_hex(16)
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:32]}"


def _command(method: str, session: str | None, route: str, body: Any) -> str:
    """What :attr:`AppiumRequest.command` says (Rule 7)."""
    if route == "/execute/sync" and isinstance(body, dict) and isinstance(body.get("script"), str):
        return str(body["script"])
    if _ELEMENT_VALUE.match(route):
        return f"{method} /element/{{id}}/value"
    return f"{method} {route}" if session is None or route != "/" else f"{method} /session/{{id}}"


def _missing(
    missing: Sequence[str], required: Sequence[str], given: Sequence[str], optional: Sequence[str] = ()
) -> str:
    """Appium's words for missing parameters (``@appium/base-driver``'s ``checkParams`` and ``errors.ts``)."""

    def listed(names: Sequence[str]) -> str:
        return json.dumps(list(names), separators=(",", ":"))

    noun = "parameter is" if len(missing) == 1 else "parameters are"
    lines = [
        f"The following required {noun} missing: {listed(missing)}",
        f"Known required parameters are: {listed(required)}",
    ]
    if optional:
        lines.append(f"Known optional parameters are: {listed(optional)}")
    lines.append(f"You have provided: {listed(given)}" if given else "You have provided none")
    return "\n".join(lines)


def _object(body: Any, *, bad_body: bool) -> dict[str, Any]:
    if bad_body or (body is not None and not isinstance(body, dict)):
        raise Failure(400, "invalid argument", "The request body is not a JSON object")
    return body or {}


def _error_body(failure: Failure) -> bytes:
    if isinstance(failure, _HtmlFailure):
        return _LB_PAGE
    value = {"error": failure.error, "message": failure.message, "stacktrace": failure.stacktrace}
    return json.dumps({"value": value}, ensure_ascii=False).encode("utf-8")


# -- python -m mobster_drivers.testing.appium ---------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    """``python -m mobster_drivers.testing.appium``'s options."""
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
    parser.add_argument(
        "--max-sessions", type=int, default=None, help="a cloud's parallel limit: refuse sessions beyond it"
    )
    parser.add_argument(
        "--devices", type=int, default=None, help="a Selenium Grid 4 hub of this many phones, one session each"
    )
    parser.add_argument(
        "--android-devices",
        type=int,
        default=0,
        help="with --devices: this many Android phones beside the iPhones, each a node of its own (default 0)",
    )
    parser.add_argument("--android-app", help="with --android-devices: the Android app script (platform: android)")
    parser.add_argument(
        "--android-node",
        choices=tuple(_NODE_FACTORIES),
        default="appium",
        help="what serves each Android phone: an Appium server of its own (default), or its bare UiAutomator2 server",
    )
    parser.add_argument(
        "--session-request-timeout",
        type=float,
        default=_SESSION_REQUEST_TIMEOUT,
        help="with --devices: how long a new session waits in the queue for a free phone, seconds (default 300)",
    )
    _host_options(parser)
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
    parser.add_argument(
        "--concurrent", action="store_true", help="the WDA behind answers requests at once (real WDA: one at a time)"
    )
    return parser


def _host_options(parser: argparse.ArgumentParser) -> None:
    """The options of the host the server runs on: its OS, its usbmuxd, its insecure features."""
    parser.add_argument(
        "--host",
        choices=HOSTS,
        default="mac",
        help="the host XCUITest runs on: linux wants appium:udid and appium:webDriverAgentUrl (default: mac)",
    )
    parser.add_argument(
        "--no-usbmuxd", action="store_true", help="a Linux host without usbmuxd: lockdown calls fail as on one"
    )
    parser.add_argument(
        "--session-discovery", action="store_true", help="serve GET /appium/sessions (--allow-insecure)"
    )
    parser.add_argument(
        "--xctest-screen-record",
        action="store_true",
        help="allow XCTest's screen recorder on an iPhone (--allow-insecure xctest_screen_record)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Serve an app script over Appium; print the URL on the first line; stop on Ctrl-C or lifetime."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.android_devices and args.devices is None:
        parser.error("--android-devices N goes with --devices N (a Grid hub's iPhones)")
    if bool(args.android_devices) != (args.android_app is not None):
        parser.error("--android-devices N and --android-app APP.yaml go together")
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
            devices=args.devices,
            session_request_timeout=args.session_request_timeout,
            usbmuxd=not args.no_usbmuxd,
            session_discovery=args.session_discovery,
            xctest_screen_record=args.xctest_screen_record,
            host=args.host,
            one_at_a_time=not args.concurrent,
            android_devices=args.android_devices,
            android_app=args.android_app,
            android_node=_NODE_FACTORIES[args.android_node],
        )

    def serving(fake: FakeAppium) -> str:
        served = args.app if args.app is not None else f"the tree {args.tree} as {fake.wda.static_bundle}"
        android = f" and {len(fake.nodes)} Android phones" if fake.nodes else ""
        phones = f" on a Grid hub of {len(fake.phones)} iPhones{android}" if args.devices else ""
        driver = "UiAutomator2" if fake.script.platform.value == "android" else "XCUITest"
        return f"{served} over Appium ({driver}){phones}"

    return serve_from_shell(make, name="Appium", serving=serving)


if __name__ == "__main__":
    sys.exit(main())
