r"""A fake WebDriverAgent on loopback that serves a scripted phone over the WDA protocol (SPEC §13).

The real facebook-wda client (and :class:`~mobster_drivers.wda.WdaDevice`) talks to it over a real
socket, so a test sees what a user would: WDA's routes, its JSON envelope, its error shapes.

::

    from mobster_drivers.fakes.wda import FakeWda
    from mobster_drivers.scripted import sample_path
    from mobster_drivers.wda import WdaDevice

    with FakeWda(sample_path("yourapp")) as wda:
        device = WdaDevice(wda.url)
        ...
        assert [r.route for r in wda.requests if r.method == "POST"][-1] == "/actions"

From a shell: ``python -m mobster_drivers.fakes.wda --app APP.yaml [--port N]`` prints the URL on
its first line and serves until interrupted (or ``--lifetime`` seconds).

Rule 1: WDA's envelope: every reply is JSON ``{"value": …, "sessionId": …}`` with a
        Content-Length; an error puts ``{"error", "message", "traceback"}`` in ``value`` with
        WDA's HTTP status (404 ``unknown command`` for an unknown route, 404 ``invalid session id``
        for a stale session, 400 ``invalid argument``, 500 ``unknown error``).
Rule 2: routes exist with and without the ``/session/{id}`` prefix where WDA has both; the app and
        gesture routes (``/wda/apps/*``, ``/wda/tap``, ``/wda/keys``, ``/actions``, ``/url``, …)
        only under a session, as in WDA.
Rule 3: the phone is a :class:`~mobster_drivers.scripted.ScriptedPhone` on the system clock, in
        its own event loop in a daemon thread; handler threads hand it coroutines. Its latency
        profile is real time here.
Rule 4: the source tree is WDA's: JSON with ``type`` without the prefix, or XML with
        ``XCUIElementType`` tags, rects in points, string booleans. ``excluded_attributes`` is
        honoured; as the fast read can't see a hidden flag, an element the script hides is served
        with no area when ``visible`` is excluded (a hidden view has none on a phone either).
Rule 5: a coordinate tap hits the topmost visible element under the point that does something
        (leads somewhere, or takes typing), else the topmost one; a tap on a text field focuses
        it, and ``/wda/keys`` types into the focused field (nothing happens without one, as on a
        phone). ``"\n"`` submits.
Rule 6: faults: the phone's own (:meth:`FakeWda.fail_next_action` drops the action's reply: no
        reply at all, after ``stall`` seconds; :meth:`FakeWda.fail_next_read`,
        :meth:`FakeWda.drop_typing`), plus :meth:`FakeWda.restart` (every session becomes stale),
        :meth:`FakeWda.garbage_next_reply` (the next request is answered with bytes that are not
        JSON, and not carried out) and :meth:`FakeWda.stall_next_reply` (the next reply is held).
Rule 7: every request is recorded in :attr:`FakeWda.requests` before it is handled.
Rule 8: the fake binds 127.0.0.1 only, answers one request per connection (HTTP/1.0) and stops by
        itself after ``lifetime`` seconds.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import re
import secrets
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Coroutine, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import parse_qs, urlsplit

import attrs

from mobster_core import (
    SPRINGBOARD,
    Action,
    DeviceError,
    DeviceKind,
    Element,
    LaunchOptions,
    MobsterError,
    Op,
    Screen,
    SystemClock,
    UnknownOutcome,
)
from mobster_drivers.scripted import AppScript, ScriptedPhone
from mobster_drivers.wda._loop import LoopThread

__all__ = ["FakeWda", "WdaRequest", "main"]

#: How long a handler waits for the phone, in seconds (a latency profile's launch is 2.6 s).
_PHONE_TIMEOUT = 60.0
_SESSION_PATH = re.compile(r"^/session/([^/]+)(/.*)?$")
_LONG_PRESS_MS = 500  # a W3C press held this long or longer is a long press
_SWIPE_MIN_POINTS = 10.0
_GARBAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
_ATTRIBUTE_KEYS = {
    "visible": "isVisible",
    "accessible": "isAccessible",
    "enabled": "isEnabled",
    "focused": "isFocused",
    "frame": "frame",
    "traits": "traits",
}
#: The routes WDA serves only under a session (Rule 2).
_SESSION_ONLY = frozenset(
    {
        "/wda/apps/launch",
        "/wda/apps/activate",
        "/wda/apps/terminate",
        "/wda/apps/state",
        "/wda/apps/list",
        "/wda/tap",
        "/wda/touchAndHold",
        "/wda/dragfromtoforduration",
        "/wda/keys",
        "/wda/pressButton",
        "/actions",
        "/url",
        "/appium/settings",
        "/orientation",
    }
)


@attrs.frozen
class WdaRequest:
    """One request the fake received (Rule 7).

    ``path`` is as sent (with the session and the query); ``route`` is it without the
    ``/session/{id}`` prefix and the query (``/wda/tap``); ``session`` is the id in the path or
    None; ``body`` is the parsed JSON body (None when there was none or it wasn't JSON).
    """

    method: str
    path: str
    route: str
    session: str | None
    body: Any


class _WdaFailure(Exception):
    """A WDA error reply (Rule 1)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


class _LostReply(Exception):
    """The phone lost the action's reply: the connection is closed without one (Rule 6)."""


@attrs.frozen
class _Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json;charset=UTF-8"
    drop: bool = False  # close the connection without a reply
    hold: float = 0.0  # seconds to hold the reply (or the drop)


@attrs.frozen
class _Call:
    """One request, parsed: ``route`` is the path without the session prefix and the query."""

    method: str
    path: str
    session: str | None
    route: str
    body: Any
    query: dict[str, str]
    bad_body: bool = False


@attrs.define
class _Focus:
    """The text field a tap focused: it takes the keys while its screen is in front."""

    app: str
    screen: str | None
    path: str
    pair: tuple[str, str]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeWda, port: int) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: a client that went away (a timeout) is not a traceback."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection (Rule 8)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Log nothing."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _serve(self) -> None:
        fake = cast("_Server", self.server).fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        reply = fake._handle(self.command, self.path, raw)
        if reply.hold > 0 and fake._stopping.wait(reply.hold):
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
            self.wfile.flush()
        except OSError:
            self.close_connection = True


class FakeWda:
    """A fake WebDriverAgent serving a scripted phone on 127.0.0.1 (see the module rules).

    ``app`` is an app script (a path, or a loaded :class:`~mobster_drivers.scripted.AppScript`).
    ``port`` 0 picks a free port. The fake stops by itself after ``lifetime`` seconds; ``None``
    serves until :meth:`stop`. Use it as a context manager, or :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self, app: str | os.PathLike[str] | AppScript, *, port: int = 0, lifetime: float | None = 600.0
    ) -> None:
        script = app if isinstance(app, AppScript) else AppScript.from_file(app)
        self._script = script
        self._port = port
        self._lifetime = lifetime
        self._phone = ScriptedPhone(script, clock=SystemClock())
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._requests: list[WdaRequest] = []
        self._garbage = 0
        self._stall: float = 0.0
        self._lost_hold: float = 0.0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._loop: LoopThread | None = None
        self._started = False
        self._stopped = False
        # The WDA state below lives on the phone's loop thread (Rule 3).
        self._session: str | None = None
        self._settings: dict[str, Any] = {}
        self._focus: _Focus | None = None
        self._launched: dict[str, LaunchOptions] = {}
        self._pids = {bundle: 1000 + i for i, bundle in enumerate(script.apps)}

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind 127.0.0.1 and serve in daemon threads (once)."""
        with self._lock:
            if self._started:
                raise RuntimeError("FakeWda can be started once")
            self._started = True
            self._loop = LoopThread("fake-wda-phone")
            self._server = _Server(self, self._port)
            self._thread = threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="fake-wda-server", daemon=True
            )
            self._thread.start()
            if self._lifetime is not None:
                self._timer = threading.Timer(self._lifetime, self.stop)
                self._timer.daemon = True
                self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the socket and the phone's loop (safe to call twice)."""
        with self._lock:
            if self._stopped or not self._started:
                self._stopped = True
                return
            self._stopped = True
            server, thread, timer, loop = self._server, self._thread, self._timer, self._loop
        self._stopping.set()
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)
        if loop is not None:
            loop.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the fake stops (True) or ``timeout`` seconds pass (False)."""
        return self._stopping.wait(timeout)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the fake listens on."""
        if self._server is None:
            raise RuntimeError("FakeWda is not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give a WDA client: ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def phone(self) -> ScriptedPhone:
        """The scripted phone behind the fake (read it; drive it through WDA)."""
        return self._phone

    @property
    def script(self) -> AppScript:
        """The app script the phone runs."""
        return self._script

    @property
    def requests(self) -> list[WdaRequest]:
        """The requests received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def session_id(self) -> str | None:
        """The current session, None when there is none."""
        return self._session

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run a coroutine on the phone's loop and return its result (e.g. ``phone.launch``)."""
        return self._phone_loop().call(coro, _PHONE_TIMEOUT)

    # -- the system, outside WDA (what simctl or a person does to the phone) -------------------

    def launch_app(self, bundle: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        """(Re)launch an app on the phone as the system would; ``DeviceError`` if not installed."""

        async def launch() -> None:
            try:
                await self._launch(bundle, list(args), dict(env or {}))
            except _WdaFailure as failure:
                raise DeviceError(failure.message) from failure

        self.run(launch())

    def terminate_app(self, bundle: str) -> bool:
        """Terminate an app on the phone; True when it was running."""

        async def terminate() -> bool:
            return self._terminate(bundle)

        return bool(self.run(terminate()))

    def open_url(self, url: str) -> None:
        """Open a deep link on the phone; ``DeviceError`` when no app opens it."""

        async def open_url() -> None:
            self._focus = None
            await self._phone.act(Action(Op.OPEN_URL, text=url))

        self.run(open_url())

    def screenshot(self) -> bytes:
        """The phone's screenshot as PNG bytes."""
        return bytes(self.run(self._phone.screenshot()))

    def is_running(self, bundle: str) -> bool:
        """Whether an app is running (in front or not)."""

        async def running() -> bool:
            return self._phone.screen_name(bundle) is not None

        return bool(self.run(running()))

    # -- faults (Rule 6) ---------------------------------------------------------------------

    def fail_next_action(self, *, applied: bool = False, stall: float = 0.0) -> None:
        """Lose the reply of the next action the phone receives.

        With ``applied=True`` it happened first. The connection is closed without a reply after
        ``stall`` seconds (give more than the client's timeout to make it time out).
        """
        with self._lock:
            self._lost_hold = stall

        async def arm() -> None:
            self._phone.fail_next_action(applied=applied)

        self.run(arm())

    def fail_next_read(self, count: int = 1) -> None:
        """Make the next ``count`` source reads fail with WDA's ``unknown error``."""

        async def arm() -> None:
            self._phone.fail_next_read(count)

        self.run(arm())

    def drop_typing(self) -> None:
        """From now on typed text lands nowhere (see ``ScriptedPhone.drop_typing``)."""

        async def arm() -> None:
            self._phone.drop_typing()

        self.run(arm())

    def restart(self) -> None:
        """Restart WDA: every session becomes stale and settings go; the apps keep running."""

        async def restart() -> None:
            self._session = None
            self._settings = {}
            self._focus = None

        self.run(restart())

    def garbage_next_reply(self, count: int = 1) -> None:
        """Answer the next ``count`` requests with bytes that are not JSON, without handling them."""
        with self._lock:
            self._garbage += count

    def stall_next_reply(self, seconds: float) -> None:
        """Handle the next request, then hold its reply ``seconds`` before sending it."""
        with self._lock:
            self._stall = seconds

    # -- serving -----------------------------------------------------------------------------

    def _phone_loop(self) -> LoopThread:
        if self._loop is None:
            raise RuntimeError("FakeWda is not started")
        return self._loop

    def _handle(self, method: str, raw_path: str, raw: bytes) -> _Reply:
        split = urlsplit(raw_path)
        path = split.path
        match = _SESSION_PATH.match(path)
        session = match.group(1) if match else None
        route = (match.group(2) or "/") if match else path
        if route != "/" and route.endswith("/"):
            route = route.rstrip("/")
        body: Any = None
        bad_body = False
        if raw:
            try:
                body = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                bad_body = True
        with self._lock:
            self._requests.append(WdaRequest(method, raw_path, route, session, body))
            if self._garbage > 0:
                self._garbage -= 1
                return _Reply(200, _GARBAGE, "text/html")
            stall, self._stall = self._stall, 0.0
            lost_hold = self._lost_hold
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        call = _Call(method, path, session, route, None if bad_body else body, query, bad_body=bad_body)
        try:
            value, sid = self._phone_loop().call(self._route(call), _PHONE_TIMEOUT)
        except _WdaFailure as failure:
            return _Reply(failure.status, _envelope(_error(failure), self._session), hold=stall)
        except _LostReply:
            with self._lock:
                self._lost_hold = 0.0
            return _Reply(drop=True, hold=lost_hold)
        except (RuntimeError, TimeoutError) as exc:
            stuck = _WdaFailure(500, "unknown error", f"the fake phone didn't answer ({type(exc).__name__})")
            return _Reply(500, _envelope(_error(stuck), None), hold=stall)
        return _Reply(200, _envelope(value, sid), hold=stall)

    async def _route(self, call: _Call) -> tuple[Any, str | None]:
        """Handle one request on the phone's loop; returns ``(value, sessionId)``."""
        method, path, session, route, query = call.method, call.path, call.session, call.route, call.query
        if call.bad_body:
            raise _WdaFailure(400, "invalid argument", "the request body is not JSON")
        if call.body is not None and not isinstance(call.body, dict):
            raise _WdaFailure(400, "invalid argument", "the request body is not a JSON object")
        body: dict[str, Any] = call.body or {}
        if path == "/session" and method == "POST":
            return await self._create_session(body)
        if session is not None and (session != self._session or self._session is None):
            raise _WdaFailure(404, "invalid session id", f"Session does not exist: {session}")
        if session is not None and route == "/":
            if method == "DELETE":
                self._session = None
                return None, None
            if method == "GET":
                return {"sessionId": session, "capabilities": self._capabilities()}, session
        if session is None and route in _SESSION_ONLY:
            raise _WdaFailure(404, "unknown command", f"Unhandled endpoint: {path} -- WDA needs a session here")
        handler = _ROUTES.get((method, route))
        if handler is None:
            raise _WdaFailure(404, "unknown command", f"Unhandled endpoint: {path} with parameters {body}")
        value = await handler(self, body, query)
        return value, session if session is not None else self._session

    # -- sessions ----------------------------------------------------------------------------

    async def _create_session(self, body: dict[str, Any]) -> tuple[Any, str | None]:
        caps: Mapping[str, Any] = {}
        capabilities = body.get("capabilities")
        if isinstance(capabilities, Mapping) and isinstance(capabilities.get("alwaysMatch"), Mapping):
            caps = capabilities["alwaysMatch"]
        elif isinstance(body.get("desiredCapabilities"), Mapping):
            caps = body["desiredCapabilities"]
        self._session = secrets.token_hex(16).upper()
        self._focus = None
        bundle = caps.get("bundleId")
        if isinstance(bundle, str) and bundle:
            await self._launch(bundle, caps.get("arguments"), caps.get("environment"))
        return {"sessionId": self._session, "capabilities": self._capabilities()}, self._session

    def _capabilities(self) -> dict[str, Any]:
        front = self._phone.front
        return {
            "device": "iphone",
            "sdkVersion": self._script.device.ios,
            "browserName": self._app_name(front),
            "CFBundleIdentifier": front,
        }

    # -- the phone ---------------------------------------------------------------------------

    async def _act(self, action: Action) -> None:
        try:
            await self._phone.act(action)
        except UnknownOutcome as exc:
            raise _LostReply from exc
        except DeviceError as exc:
            raise _WdaFailure(500, "unknown error", str(exc)) from exc

    async def _launch(self, bundle: str, arguments: Any, environment: Any) -> None:
        args = [str(a) for a in arguments] if isinstance(arguments, list) else []
        env = {str(k): str(v) for k, v in environment.items()} if isinstance(environment, Mapping) else {}
        options = LaunchOptions(args=args, env=env)
        try:
            await self._phone.launch(bundle, options)
        except DeviceError as exc:
            raise _WdaFailure(500, "unknown error", f"Cannot launch {bundle}: {exc}") from exc
        self._launched[bundle] = options
        self._focus = None

    def _now_screen(self) -> tuple[Screen, list[Any]]:
        """The screen as a read would return it now, and the simulation's nodes.

        Without a read's latency or faults: a tap must not use up an injected read failure.
        """
        sim = self._phone._sim
        now = self._phone.clock.now()
        screen = sim.screen(now)
        return screen, sim.nodes(now)

    def _hit(self, x: float, y: float) -> tuple[Element, Any] | None:
        screen, nodes = self._now_screen()
        width, height = self._script.size
        px, py = x / width, y / height
        hits: list[tuple[Element, Any]] = []
        for element, node in zip(screen.elements, nodes, strict=False):
            fx, fy, fw, fh = element.frame
            if element.visible and fw > 0 and fh > 0 and fx <= px <= fx + fw and fy <= py <= fy + fh:
                hits.append((element, node))
        if not hits:
            return None
        for element, node in reversed(hits):
            scripted = node.scripted
            if node.opens is not None or (scripted is not None and (scripted.tap is not None or scripted.takes_typing)):
                return element, node
        return hits[-1]

    async def _tap(self, x: float, y: float, op: Op) -> None:
        hit = self._hit(x, y)
        if hit is None:
            self._focus = None
            return  # a tap on nothing changes nothing
        element, node = hit
        scripted = node.scripted
        if op is Op.TAP and scripted is not None and scripted.takes_typing:
            front = self._phone.front
            self._focus = _Focus(front, self._phone.screen_name(front), element.path, element.pair)
        elif op is Op.TAP:
            self._focus = None
        await self._act(Action(op, element=element))

    def _focused(self) -> Element | None:
        focus = self._focus
        if focus is None:
            return None
        front = self._phone.front
        if front != focus.app or self._phone.screen_name(front) != focus.screen:
            return None
        screen, _ = self._now_screen()
        element = screen.element_at(focus.path)
        if element is None or element.pair != focus.pair:
            return None
        return element

    async def _type(self, text: str) -> None:
        submits = len(text) - len(text.rstrip("\n"))
        text = text.rstrip("\n")
        if text:
            field = self._focused()
            if field is not None:
                await self._act(Action(Op.TYPE, element=field, text=text))
        for _ in range(submits):
            await self._act(Action(Op.SUBMIT))

    async def _swipe(self, fx: float, fy: float, tx: float, ty: float) -> None:
        dx, dy = tx - fx, ty - fy
        if math.hypot(dx, dy) < _SWIPE_MIN_POINTS:
            raise _WdaFailure(400, "invalid argument", "a drag needs two different points")
        if abs(dy) >= abs(dx):
            op = Op.SWIPE_UP if dy < 0 else Op.SWIPE_DOWN
        else:
            op = Op.SWIPE_LEFT if dx < 0 else Op.SWIPE_RIGHT
        await self._act(Action(op))

    def _terminate(self, bundle: str) -> bool:
        sim = self._phone._sim
        sim.advance(self._phone.clock.now())
        was_running = sim.running.pop(bundle, None) is not None
        sim.pending = [p for p in sim.pending if p.origin != bundle]
        if sim.front == bundle:
            sim.front = SPRINGBOARD
        if self._focus is not None and self._focus.app == bundle:
            self._focus = None
        return was_running

    def _state(self, bundle: str) -> int:
        if bundle != SPRINGBOARD and bundle not in self._script.apps:
            return 0  # XCUIApplicationStateUnknown: not installed
        front = self._phone.front
        if bundle == front:
            return 4
        if bundle == SPRINGBOARD or self._phone.screen_name(bundle) is not None:
            return 3
        return 1

    def _app_name(self, bundle: str) -> str:
        app = self._script.apps.get(bundle)
        return app.name if app is not None else "SpringBoard"

    # -- the tree (Rule 4) -------------------------------------------------------------------

    def _tree(self, screen: Screen, excluded: frozenset[str]) -> dict[str, Any]:
        width, height = self._script.size
        root: dict[str, Any] = {
            "type": "Application",
            "rawIdentifier": None,
            "name": self._app_name(screen.app),
            "label": self._app_name(screen.app),
            "value": None,
            "rect": {"x": 0, "y": 0, "width": width, "height": height},
            "frame": _frame_string(0, 0, width, height),
            "isEnabled": "1",
            "isVisible": "1",
            "isAccessible": "0",
            "isFocused": "0",
            "traits": "",
            "children": [],
        }
        nodes: dict[str, dict[str, Any]] = {"/0": root}
        hide_hidden = "visible" in excluded
        for e in screen.elements:
            x, y, w, h = e.frame
            rect = [_points(x * width), _points(y * height), _points(w * width), _points(h * height)]
            if hide_hidden and not e.visible:
                rect[2] = rect[3] = 0
            node: dict[str, Any] = {
                "type": e.role,
                "rawIdentifier": e.identifier or None,
                "name": e.identifier or e.label or None,
                "label": e.label or None,
                "value": e.value or None,
                "rect": {"x": rect[0], "y": rect[1], "width": rect[2], "height": rect[3]},
                "frame": _frame_string(*rect),
                "isEnabled": "1" if e.enabled else "0",
                "isVisible": "1" if e.visible else "0",
                "isAccessible": "1" if e.label else "0",
                "isFocused": "0",
                "traits": ", ".join([e.role, "Selected"] if e.selected else [e.role]),
            }
            nodes[e.path] = node
            parent = nodes.get(e.path.rsplit("/", 1)[0], root)
            parent.setdefault("children", []).append(node)
        for node in nodes.values():
            for attribute in excluded:
                key = _ATTRIBUTE_KEYS.get(attribute)
                if key is not None:
                    node.pop(key, None)
        return root

    def _xml(self, tree: Mapping[str, Any]) -> str:
        def build(node: Mapping[str, Any], index: int) -> ET.Element:
            tag = f"XCUIElementType{node['type']}"
            rect = node.get("rect", {})
            attributes = {"type": tag}
            for key in ("name", "label", "value"):
                if node.get(key) is not None:
                    attributes[key] = str(node[key])
            for key, name in (("isEnabled", "enabled"), ("isVisible", "visible"), ("isAccessible", "accessible")):
                if key in node:
                    attributes[name] = "true" if node[key] == "1" else "false"
            for key in ("x", "y", "width", "height"):
                attributes[key] = str(rect.get(key, 0))
            attributes["index"] = str(index)
            element = ET.Element(tag, attributes)
            for i, child in enumerate(node.get("children", [])):
                element.append(build(child, i))
            return element

        root = build(tree, 0)
        return '<?xml version="1.0" encoding="UTF-8"?>' + ET.tostring(root, encoding="unicode")


# -- routes -----------------------------------------------------------------------------------

_RouteHandler = Callable[[FakeWda, dict[str, Any], dict[str, str]], Coroutine[Any, Any, Any]]
_ROUTES: dict[tuple[str, str], _RouteHandler] = {}


def _route(method: str, *routes: str) -> Callable[[_RouteHandler], _RouteHandler]:
    def register(handler: _RouteHandler) -> _RouteHandler:
        for route in routes:
            _ROUTES[(method, route)] = handler
        return handler

    return register


@_route("GET", "/status")
async def _status(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    device = fake.script.device
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


@_route("GET", "/wda/healthcheck")
async def _healthcheck(_fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None


@_route("GET", "/wda/locked")
async def _locked(_fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return False


@_route("POST", "/wda/unlock", "/wda/lock")
async def _unlock(_fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None


@_route("POST", "/wda/homescreen")
async def _homescreen(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    fake._focus = None
    await fake._act(Action(Op.HOME))


@_route("POST", "/wda/pressButton")
async def _press_button(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    name = body.get("name")
    if name == "home":
        fake._focus = None
        await fake._act(Action(Op.HOME))
    elif name not in ("volumeUp", "volumeDown"):
        raise _WdaFailure(
            400, "invalid argument", f"The value of 'name' must be home, volumeUp or volumeDown: {name!r}"
        )


@_route("GET", "/wda/activeAppInfo")
async def _active_app(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    front = fake._phone.front
    launched = fake._launched.get(front, LaunchOptions())
    return {
        "pid": fake._pids.get(front, 50),
        "bundleId": front,
        "name": fake._app_name(front),
        "processArguments": {"args": list(launched.args), "env": dict(launched.env)},
    }


@_route("GET", "/source")
async def _source(fake: FakeWda, _body: dict[str, Any], query: dict[str, str]) -> Any:
    fmt = query.get("format", "xml")
    if fmt not in ("json", "xml"):
        raise _WdaFailure(400, "invalid argument", f"Unknown source format {fmt!r}: json, xml or description")
    excluded = frozenset(a.strip() for a in query.get("excluded_attributes", "").split(",") if a.strip())
    try:
        screen = await fake._phone.read()
    except DeviceError as exc:
        raise _WdaFailure(500, "unknown error", f"Cannot get the source: {exc}") from exc
    tree = fake._tree(screen, excluded)
    return tree if fmt == "json" else fake._xml(tree)


@_route("GET", "/screenshot")
async def _screenshot(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    png = await fake._phone.screenshot()
    return base64.b64encode(png).decode("ascii")


@_route("GET", "/window/size")
async def _window_size(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    width, height = fake.script.size
    return {"width": width, "height": height}


@_route("GET", "/wda/screen")
async def _screen_info(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    width, height = fake.script.size
    return {
        "screenSize": {"width": width, "height": height},
        "statusBarSize": {"width": width, "height": 54},
        "scale": 3,
    }


@_route("GET", "/wda/device/info")
async def _device_info(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    device = fake.script.device
    return {
        "currentLocale": "en_US",
        "timeZone": "UTC",
        "name": device.name,
        "model": "iPhone",
        "uuid": "00000000-0000-0000-0000-000000000000",
        "userInterfaceIdiom": 0,
        "userInterfaceStyle": "light",
        "isSimulator": device.kind is DeviceKind.SIMULATOR,
        "thermalState": 0,
    }


@_route("GET", "/orientation")
async def _orientation(_fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return "PORTRAIT"


@_route("GET", "/appium/settings")
async def _get_settings(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return dict(fake._settings)


@_route("POST", "/appium/settings")
async def _set_settings(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    settings = body.get("settings")
    if not isinstance(settings, Mapping):
        raise _WdaFailure(400, "invalid argument", "'settings' must be an object")
    fake._settings.update(settings)
    return dict(fake._settings)


@_route("GET", "/alert/text", "/wda/alert/buttons")
@_route("POST", "/alert/accept", "/alert/dismiss")
async def _no_alert(_fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    raise _WdaFailure(404, "no such alert", "An attempt was made to operate on a modal dialog when one was not open")


def _bundle(body: Mapping[str, Any]) -> str:
    bundle = body.get("bundleId")
    if not isinstance(bundle, str) or not bundle:
        raise _WdaFailure(400, "invalid argument", "'bundleId' is required")
    return bundle


@_route("POST", "/wda/apps/launch")
async def _apps_launch(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await fake._launch(_bundle(body), body.get("arguments"), body.get("environment"))


@_route("POST", "/wda/apps/activate")
async def _apps_activate(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    bundle = _bundle(body)
    fake._focus = None
    await fake._act(Action(Op.LAUNCH_APP, text=bundle))


@_route("POST", "/wda/apps/terminate")
async def _apps_terminate(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    return fake._terminate(_bundle(body))


@_route("POST", "/wda/apps/state")
async def _apps_state(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    return fake._state(_bundle(body))


@_route("GET", "/wda/apps/list")
async def _apps_list(fake: FakeWda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return [{"pid": fake._pids[b], "bundleId": b} for b in fake.script.apps if fake._phone.screen_name(b) is not None]


def _xy(body: Mapping[str, Any], x: str = "x", y: str = "y") -> tuple[float, float]:
    vx, vy = body.get(x), body.get(y)
    if isinstance(vx, int | float) and isinstance(vy, int | float) and _is_number(vx) and _is_number(vy):
        return float(vx), float(vy)
    raise _WdaFailure(400, "invalid argument", f"'{x}' and '{y}' must be numbers")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@_route("POST", "/wda/tap")
async def _wda_tap(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await fake._tap(*_xy(body), Op.TAP)


@_route("POST", "/wda/touchAndHold")
async def _wda_hold(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await fake._tap(*_xy(body), Op.LONG_PRESS)


@_route("POST", "/wda/dragfromtoforduration")
async def _wda_drag(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    fx, fy = _xy(body, "fromX", "fromY")
    tx, ty = _xy(body, "toX", "toY")
    await fake._swipe(fx, fy, tx, ty)


@_route("POST", "/wda/keys")
async def _wda_keys(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    value = body.get("value")
    if isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        text = "".join(value)
    else:
        raise _WdaFailure(400, "invalid argument", "'value' must be a list of strings")
    await fake._type(text)


@_route("POST", "/url")
async def _open_url(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    url = body.get("url")
    if not isinstance(url, str) or not url:
        raise _WdaFailure(400, "invalid argument", "'url' is required")
    fake._focus = None
    await fake._act(Action(Op.OPEN_URL, text=url))


@_route("POST", "/actions")
async def _w3c_actions(fake: FakeWda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    gesture = _read_pointer(body.get("actions"))
    if gesture is None:
        return None  # no pointer: nothing to do
    (x0, y0), (x1, y1), held_ms = gesture
    if math.hypot(x1 - x0, y1 - y0) >= _SWIPE_MIN_POINTS:
        await fake._swipe(x0, y0, x1, y1)
    else:
        await fake._tap(x0, y0, Op.LONG_PRESS if held_ms >= _LONG_PRESS_MS else Op.TAP)


def _read_pointer(actions: Any) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """The first pointer's gesture: where it went down, where it came up, how long it was down."""
    if not isinstance(actions, list):
        raise _WdaFailure(400, "invalid argument", "'actions' must be a list of input sources")
    for source in actions:
        if not isinstance(source, Mapping) or source.get("type") != "pointer":
            continue
        steps = source.get("actions")
        if not isinstance(steps, list):
            raise _WdaFailure(400, "invalid argument", "a pointer's 'actions' must be a list")
        return _gesture(steps)
    return None


def _gesture(steps: Sequence[Any]) -> tuple[tuple[float, float], tuple[float, float], float]:
    position: tuple[float, float] | None = None
    down: tuple[float, float] | None = None
    up: tuple[float, float] | None = None
    held = 0.0
    for step in steps:
        if not isinstance(step, Mapping):
            raise _WdaFailure(400, "invalid argument", "each pointer action must be an object")
        kind = step.get("type")
        duration = step.get("duration", 0)
        if kind == "pointerMove":
            position = _xy(step)
            if down is not None and _is_number(duration):
                held += float(duration)
        elif kind == "pointerDown":
            if position is None:
                raise _WdaFailure(400, "invalid argument", "pointerDown before any pointerMove")
            down = position
        elif kind == "pause":
            if down is not None and _is_number(duration):
                held += float(duration)
        elif kind == "pointerUp":
            up = position
            break
        else:
            raise _WdaFailure(400, "invalid argument", f"unknown pointer action type {kind!r}")
    if down is None or up is None:
        raise _WdaFailure(400, "invalid argument", "a pointer gesture needs a pointerDown and a pointerUp")
    return down, up, held


# -- wire helpers -----------------------------------------------------------------------------


def _envelope(value: Any, session: str | None) -> bytes:
    return json.dumps({"value": value, "sessionId": session}, ensure_ascii=False).encode("utf-8")


def _error(failure: _WdaFailure) -> dict[str, str]:
    return {"error": failure.error, "message": failure.message, "traceback": ""}


def _points(value: float) -> float | int:
    rounded = round(value, 3)
    return int(rounded) if float(rounded).is_integer() else rounded


def _frame_string(x: float, y: float, w: float, h: float) -> str:
    return f"{{{{{x}, {y}}}, {{{w}, {h}}}}}"


# -- python -m mobster_drivers.fakes.wda ------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Serve an app script over WDA; print the URL on the first line; stop on Ctrl-C or lifetime."""
    parser = argparse.ArgumentParser(
        prog="python -m mobster_drivers.fakes.wda",
        description="Serve a scripted phone over the WebDriverAgent protocol on 127.0.0.1.",
    )
    parser.add_argument("--app", required=True, help="the app script (YAML) the phone runs")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument(
        "--lifetime", type=float, default=3600.0, help="stop after this many seconds (default 3600; 0: never)"
    )
    args = parser.parse_args(argv)
    try:
        fake = FakeWda(args.app, port=args.port, lifetime=args.lifetime or None)
        fake.start()
    except (OSError, ValueError, MobsterError) as exc:
        print(f"fake WDA: {exc}", file=sys.stderr)  # noqa: T201 - a command-line entry
        return 2
    print(fake.url, flush=True)  # noqa: T201 - the first line is the contract
    print(f"serving {args.app} over WebDriverAgent; Ctrl-C stops", file=sys.stderr, flush=True)  # noqa: T201
    try:
        fake.wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
