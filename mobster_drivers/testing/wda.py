r"""A fake WebDriverAgent on loopback: a scripted phone, or a captured tree, over the WDA protocol.

The real facebook-wda client (and :class:`~mobster_drivers.devices.wda.WdaDevice`) talks to it over a real
socket, so a test sees what a user would: WDA's routes, its JSON envelope, its error shapes, its
source trees.

::

    from mobster_drivers.testing.wda import FakeWda
    from mobster_drivers.devices.scripted import sample_path
    from mobster_drivers.devices.wda import WdaDevice

    with FakeWda(sample_path("yourapp")) as wda:
        device = WdaDevice(wda.url)
        ...
        assert [r.route for r in wda.requests if r.method == "POST"][-1] == "/actions"

    with FakeWda(tree="settings-root.xml") as wda:  # a real capture, served as a static app
        ...

From a shell: ``python -m mobster_drivers.testing.wda --app APP.yaml [--port N]`` or
``python -m mobster_drivers.testing.wda --tree SOURCE.xml [--bundle ID]`` prints the URL on its first
line and serves until interrupted (or ``--lifetime`` seconds); ``mobster verify --wda URL --check
FILE`` then judges the capture.

Rule 3: the phone is a :class:`~mobster_drivers.devices.scripted.ScriptedPhone` on the system clock, in
        its own event loop in a daemon thread; handler threads hand it coroutines. Its latency
        profile is real time here.
Rule 6: faults: the phone's own (:meth:`FakeWda.fail_next_action` drops the action's reply: no
        reply at all, after ``stall`` seconds; :meth:`FakeWda.fail_next_read`,
        :meth:`FakeWda.drop_typing`), plus :meth:`FakeWda.restart` (every session becomes stale),
        :meth:`FakeWda.garbage_next_reply` (the next request is answered with bytes that are not
        JSON, and not carried out) and :meth:`FakeWda.stall_next_reply` (the next reply is held).
Rule 7: every request is recorded in :attr:`FakeWda.requests` before it is handled.
Rule 8: the fake is a loopback server (``_server``): it binds 127.0.0.1 only, answers one request
        per connection (HTTP/1.0), stops by itself after ``lifetime`` seconds, dies at a request a
        test names (:meth:`FakeWda.die_when`), and serves one request at a time (``_server``
        Rule 5), as WDA does: ``/status`` and ``/source`` wait behind a slow ``/screenshot`` or a
        held reply. ``one_at_a_time=False`` lets the HTTP layer answer each at once, as before
        issue 27 (the scripted phone behind still serves its reads, screenshots and actions one
        at a time: ``ScriptedPhone`` Rule 12).
        What WDA's source says (appium/WebDriverAgent at ``c279b4c``, August 2026): every route,
        ``/status``, ``/health``, ``/wda/shutdown`` and the unknown-command catch-all included,
        runs on the main queue (``FBWebServer.m``: ``setRouteQueue:dispatch_get_main_queue()``;
        ``FBHTTPServer.m`` reads requests on its socket queue and ``dispatch_async``\ s each to
        the main queue, its reply written after the handler returns); before Network.framework
        (``cd741c5c``, #1221) ``RoutingHTTPServer`` over GCDAsyncSocket did the same with
        ``dispatch_sync`` onto the main queue. Only a path no route matches is answered 404 on
        the socket queue, and the MJPEG server (``FBMjpegServer``, port 9100 by default) takes
        its screenshots on its own serial queue, off the main thread. Not checked (no phone
        here): whether XCTest itself serialises an MJPEG screenshot with a main-thread command,
        and how long a command queued behind another waits on a phone.

The other rules keep their numbers and are stated in full in the part of the fake that carries
them (``mobster_drivers.testing._wda``, a module per route family): Rule 1 (the envelope and
errors) ``wire``; Rule 2 (a route's forms) ``dispatch``; Rule 4 (the source) and Rule 12 (a
captured tree) ``tree``; Rule 5 (taps and typing) ``actions``, (launches and buttons) ``apps``;
Rule 9 (finding elements) ``find``; Rule 10 (settings) ``state``; Rule 11 (read costs) ``costs``;
Rule 13 (the element cache) ``state``, (gestures and typing into an element) ``actions``; Rule 14
(alerts and the keyboard) ``alerts``; Rule 15 (the accessibility audit) ``device``.

Every route the real clients send is served, each by its family, which lists it with its
declaration in WDA's source (``dispatch`` says which clients and what was measured).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar, cast
from urllib.parse import parse_qs, urlsplit

import attrs

from mobster_core import Action, DeviceError, Element, Op
from mobster_core.protocols import DeviceEvent
from mobster_drivers._loop import LoopThread
from mobster_drivers._xcuitest.tree import source_bundle
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone

from ._server import DEAD, Incoming, LoopbackServer, Reply, json_body, serve_from_shell, session_route
from ._wda.costs import CHARGE, ReadCosts
from ._wda.dispatch import SESSION_ONLY, WITHOUT_SESSION_ONLY, Call, route
from ._wda.state import Wda
from ._wda.tree import load_tree, static_script
from ._wda.wire import GARBAGE, JSON, LostReply, WdaFailure, envelope, error

__all__ = ["SESSION_ONLY", "WITHOUT_SESSION_ONLY", "FakeWda", "ReadCosts", "WdaRequest", "load_tree", "main"]

T = TypeVar("T")
#: How long a handler waits for the phone, in seconds (a latency profile's launch is 2.6 s).
_PHONE_TIMEOUT = 60.0


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


class FakeWda(LoopbackServer[WdaRequest]):
    """A fake WebDriverAgent on 127.0.0.1 (see the module rules).

    ``app`` is an app script (a path, or a loaded :class:`~mobster_drivers.devices.scripted.AppScript`);
    or ``tree`` is a captured WDA source (XML or JSON, a path) served as a static app whose bundle
    is the capture's ``bundleId`` or ``bundle`` (Rule 12), on iOS ``ios``. ``costs`` holds each
    reply as long as real WDA would take (Rule 11). ``port`` 0 picks a free port. The fake stops
    by itself after ``lifetime`` seconds; ``None`` serves until :meth:`stop`. It serves one
    request at a time, as WDA's main thread does (Rule 8); ``one_at_a_time=False`` lets its HTTP
    layer answer each at once.
    Use it as a context manager, or :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        app: str | os.PathLike[str] | AppScript | None = None,
        *,
        tree: str | os.PathLike[str] | None = None,
        bundle: str | None = None,
        ios: str = "26.4",
        costs: ReadCosts | None = None,
        port: int = 0,
        lifetime: float | None = 600.0,
        one_at_a_time: bool = True,
    ) -> None:
        super().__init__(port=port, lifetime=lifetime, one_at_a_time=one_at_a_time)
        if (app is None) == (tree is None):
            raise ValueError("FakeWda serves an app script (app=) or a captured tree (tree=), one of the two")
        static: tuple[dict[str, Any], str] | None = None
        if tree is not None:
            captured = load_tree(tree)
            static_bundle = bundle or source_bundle(captured)
            if not static_bundle:
                raise ValueError(f"{tree}: the tree names no bundleId (a JSON source never does): pass --bundle")
            script = static_script(captured, static_bundle, ios)
            static = (captured, static_bundle)
        else:
            assert app is not None
            script = app if isinstance(app, AppScript) else AppScript.from_file(app)
        # WDA's state lives on the phone's loop thread (Rule 3); the routes are its families'.
        self._wda = Wda(script, costs, static)
        self._garbage = 0
        self._stall: float = 0.0
        self._lost_hold: float = 0.0
        self._charges: list[tuple[str, float]] = []
        self._loop: LoopThread | None = None

    # -- lifecycle (the rest is the loopback server's) ---------------------------------------

    def _on_start(self) -> None:
        self._loop = LoopThread("fake-wda-phone")

    def _on_stop(self) -> None:
        if self._loop is not None:
            self._loop.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def phone(self) -> ScriptedPhone:
        """The scripted phone behind the fake (read it; drive it through WDA)."""
        return self._wda.phone

    @property
    def script(self) -> AppScript:
        """The app script the phone runs (for a captured tree, the one app standing in for it)."""
        return self._wda.script

    @property
    def static_bundle(self) -> str | None:
        """The bundle of the captured tree served as a static app, None for an app script (Rule 12)."""
        return self._wda.static_bundle

    @property
    def settings(self) -> dict[str, Any]:
        """The session settings WDA would hold now (a copy; Rule 10)."""
        return dict(self._wda.settings)

    @property
    def charges(self) -> list[tuple[str, float]]:
        """With ``costs``: each answered request (``GET /source``) and the seconds it was held (Rule 11)."""
        with self._lock:
            return list(self._charges)

    @property
    def session_id(self) -> str | None:
        """The current session, None when there is none."""
        return self._wda.session

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run a coroutine on the phone's loop and return its result (e.g. ``phone.launch``)."""
        return self._phone_loop().call(coro, _PHONE_TIMEOUT)

    def _on_loop(self, change: Callable[[], T]) -> T:
        """Call ``change`` on the phone's loop, where WDA's state lives (Rule 3), and return what it returns."""

        async def call() -> T:
            return change()

        return cast("T", self.run(call()))

    # -- the system, outside WDA (what simctl or a person does to the phone) -------------------

    def launch_app(self, bundle: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        """(Re)launch an app on the phone as the system would; ``DeviceError`` if not installed."""

        async def launch() -> None:
            try:
                await self._wda.launch(bundle, list(args), dict(env or {}))
            except WdaFailure as failure:
                raise DeviceError(failure.message) from failure

        self.run(launch())

    def terminate_app(self, bundle: str) -> bool:
        """Terminate an app on the phone; True when it was running."""
        return bool(self._on_loop(lambda: self._wda.terminate(bundle)))

    def open_url(self, url: str) -> None:
        """Open a deep link on the phone; ``DeviceError`` when no app opens it."""

        async def open_url() -> None:
            self._wda.unfocus()
            await self._wda.phone.act(Action(Op.OPEN_URL, text=url))

        self.run(open_url())

    def set_permission(self, bundle: str, service: str | None, *, allow: bool | None) -> None:
        """A permission set (True, False) or reset (None; ``service`` None: all) as ``simctl privacy`` does."""
        self._on_loop(lambda: self._wda.phone.set_permission(bundle, service, allow=allow))

    def send_event(self, event: DeviceEvent) -> None:
        """A device step reaching the phone (simctl's biometric match or push, Appium's): its Rule 15."""

        async def send() -> None:
            await self._wda.phone.send_event(event)

        self.run(send())

    def screenshot(self) -> bytes:
        """The phone's screenshot as PNG bytes."""
        return bytes(self.run(self._wda.phone.screenshot()))

    def is_running(self, bundle: str) -> bool:
        """Whether an app is running (in front or not)."""
        return self._on_loop(lambda: self._wda.phone.screen_name(bundle) is not None)

    def focused_field(self) -> Element | None:
        """The text field a tap focused, while its screen is in front (on the phone's loop: ``run``); else None."""
        return self._wda.focused_field()

    # -- faults (Rule 6) ---------------------------------------------------------------------

    def fail_next_action(self, *, applied: bool = False, stall: float = 0.0) -> None:
        """Lose the reply of the next action the phone receives.

        With ``applied=True`` it happened first. The connection is closed without a reply after
        ``stall`` seconds (give more than the client's timeout to make it time out).
        """
        with self._lock:
            self._lost_hold = stall

        self._on_loop(lambda: self._wda.phone.fail_next_action(applied=applied))

    def fail_next_read(self, count: int = 1) -> None:
        """Make the next ``count`` source reads fail with WDA's ``unknown error``."""
        self._on_loop(lambda: self._wda.phone.fail_next_read(count))

    def drop_typing(self) -> None:
        """From now on typed text lands nowhere (see ``ScriptedPhone.drop_typing``)."""
        self._on_loop(self._wda.phone.drop_typing)

    def restart(self) -> None:
        """Restart WDA: every session becomes stale and settings go; the apps keep running."""
        self._on_loop(self._wda.restart)

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

    def _answer(self, incoming: Incoming) -> Reply:
        method, raw_path, raw = incoming.method, incoming.path, incoming.body
        split = urlsplit(raw_path)
        path = split.path
        session, route = session_route(path)
        body, bad_body = json_body(raw)
        claimed = self._admit(WdaRequest(method, raw_path, route, session, body), self._claim)
        if claimed is None:
            return DEAD
        garbage, stall, lost_hold = claimed
        if garbage:
            return Reply(200, GARBAGE, "text/html")
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        call = Call(method, path, session, route, None if bad_body else body, query, bad_body=bad_body)
        try:
            value, sid, cost = self._phone_loop().call(self._charged(call), _PHONE_TIMEOUT)
        except WdaFailure as failure:
            return Reply(failure.status, envelope(error(failure), self._wda.session), JSON, hold=stall)
        except LostReply:
            with self._lock:
                self._lost_hold = 0.0
            return Reply(drop=True, hold=lost_hold)
        except (RuntimeError, TimeoutError) as exc:
            stuck = WdaFailure(500, "unknown error", f"the fake phone didn't answer ({type(exc).__name__})")
            return Reply(500, envelope(error(stuck), None), JSON, hold=stall)
        if self._wda.costs is not None:
            with self._lock:
                self._charges.append((f"{method} {route}", cost))
        return Reply(200, envelope(value, sid), JSON, hold=stall + cost)

    def _claim(self) -> tuple[bool, float, float]:
        """Under the lock, for the request just recorded: answer garbage? the stall, the lost reply's hold."""
        if self._garbage > 0:
            self._garbage -= 1
            return True, 0.0, 0.0
        stall, self._stall = self._stall, 0.0
        return False, stall, self._lost_hold

    async def _charged(self, call: Call) -> tuple[Any, str | None, float]:
        """Handle one request, and what it costs on real WDA in seconds (Rule 11; 0 without costs)."""
        charged = [0.0]
        CHARGE.set(charged)  # each request runs in its own task, with its own context
        if self._wda.costs is not None:
            charged[0] += self._wda.costs.request
        value, sid = await route(self._wda, call)
        return value, sid, charged[0] if self._wda.costs is not None else 0.0


# -- python -m mobster_drivers.testing.wda ------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Serve an app script or a captured tree over WDA; print the URL first; stop on Ctrl-C or lifetime."""
    parser = argparse.ArgumentParser(
        prog="python -m mobster_drivers.testing.wda",
        description="Serve a scripted phone, or a captured WDA source tree, over the WebDriverAgent protocol "
        "on 127.0.0.1.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--app", help="the app script (YAML) the phone runs")
    what.add_argument("--tree", help="a captured WDA source (GET /source, XML or JSON) served as a static app")
    parser.add_argument("--bundle", help="with --tree: the app's bundle id (default: the XML root's bundleId)")
    parser.add_argument("--ios", default="26.4", help="with --tree: the iOS version /status reports (default 26.4)")
    parser.add_argument(
        "--costs", action="store_true", help="hold replies as long as real WDA takes (the model in docs/benchmarks.md)"
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument(
        "--lifetime", type=float, default=3600.0, help="stop after this many seconds (default 3600; 0: never)"
    )
    parser.add_argument(
        "--concurrent", action="store_true", help="answer requests at once (real WDA serves one at a time)"
    )
    args = parser.parse_args(argv)
    if args.app is not None and (args.bundle is not None or args.ios != "26.4"):
        parser.error("--bundle and --ios go with --tree")
    costs = ReadCosts() if args.costs else None

    def make() -> FakeWda:
        fake = functools.partial(
            FakeWda, costs=costs, port=args.port, lifetime=args.lifetime or None, one_at_a_time=not args.concurrent
        )
        return fake(args.app) if args.tree is None else fake(tree=args.tree, bundle=args.bundle, ios=args.ios)

    def serving(fake: FakeWda) -> str:
        served = f"the tree {args.tree} as {fake.static_bundle}" if args.tree is not None else args.app
        return f"{served} over WebDriverAgent"

    return serve_from_shell(make, name="WDA", serving=serving)


if __name__ == "__main__":
    sys.exit(main())
