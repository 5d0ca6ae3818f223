r"""The WebDriverAgent device over a :class:`WdaTransport` (``Device`` and its optional abilities).

Rule 1: every action endpoint is called once, with an explicit timeout. Nothing is re-sent after
        a timeout, a dropped connection or a garbled reply: those are :class:`UnknownOutcome`.
Rule 2: errors are mapped here, at the edge. Nothing sent (WDA unreachable, no session, an app
        that isn't installed) and every failed read is a :class:`DeviceError`; an action that WDA
        refused with an error reply is a ``DeviceError`` too (WDA said it didn't do it), except
        WDA's own ``timeout`` error, whose outcome is unknown. The transport's exception is the
        ``__cause__``; messages name the endpoint without the session id. A read with no reply in
        its time says what to do: WDA serves one request at a time, so a command still running
        holds every later one (a status probe included) until it ends.
Rule 3: a stale session (``invalid session id``: WDA restarted) is replaced by a new session and
        the request is sent once more. WDA refuses a request with a stale session before it does
        anything, so this never doubles an action.
Rule 4: the session is created with ``shouldWaitForQuiescence: false, waitForIdleTimeout: 0`` and
        the settings in :data:`SESSION_SETTINGS`, with the active-app detection point at the
        screen's centre (WDA's default sits under notification banners). WDA 9 removed
        ``snapshotTimeout`` and ``customSnapshotTimeout`` (it ignores unknown settings), so they
        are not sent. Element replies carry ``type``, ``label`` and ``rect``
        (``shouldUseCompactResponses: false``), so an answer can be matched to the tree.
Rule 5: a read (the replay's, every poll) is ``GET /wda/activeAppInfo`` and the fast JSON source
        (:data:`SOURCE_PATH`) that leaves out WDA's costly ``visible`` and ``accessible``;
        visibility is rebuilt from the tree (``_tree`` Rule 6), and WDA is asked about the
        elements the tree can't decide (``_visibility`` Rule 2: one ``POST /elements`` with the
        ``predicate string`` ``label IN {…} AND visible == 1``, its answer kept for
        ``ANSWER_SECONDS`` and forgotten at every action). A WDA that refuses the query (an
        error reply) leaves them hidden and is not asked again.
Rule 5a: the evidence read (the verdict's, ``EvidenceReads``) is the source that keeps WDA's own
        ``visible`` (:data:`EVIDENCE_PATH`): shown follows the phone (``_tree`` Rule 5).
Rule 5b: the target check (``TargetChecks``) asks WDA, before an action on an element, whether an
        element of its type and label at its frame is visible (one ``POST /elements``,
        ``_visibility`` Rule 3), unless the latest read's own query just said so. A WDA that
        refuses the query answers "can't tell": True.
Rule 5c (a poll that saw nothing new): a source equal to the one before it (the same read, the
        same app in front, the same screen size) is not read again: the read before's screen is
        given back, its fingerprint, signature and hash already computed, and only the
        visibility answer (Rule 5) is applied afresh. facebook-wda hands the driver the reply's
        parsed JSON, not its bytes, so the comparison is of the parsed tree (C code, a small
        fraction of turning it into elements).
Rule 6: an action acts on the element's frame as given (it comes from the latest read, the
        current screen), turned into points with the latest read's screen size.
Rule 7: typing taps the field (to focus it), then sends the text with ``/wda/keys``; ``SUBMIT``
        sends ``"\n"``; ``DISMISS_KEYBOARD`` is ``/wda/keyboard/dismiss`` with the keys that hide it
        (``gestures`` Rule 6). Swipes go through ``/wda/dragfromtoforduration``; taps and long presses
        are W3C pointer actions (``/actions``).
Rule 8: a launch is ``/wda/apps/terminate``, then ``/wda/apps/launch`` with the arguments and
        environment: WDA only activates an app that is already running and drops the arguments
        (``FBSession.m:397-403``), so a launch without the terminate would neither restart the
        app nor apply them. The bare WDA device can't wipe an app's data: a launch with a reset
        relaunches the app as it is (the simulator driver does the reset). It can't read an
        app's version either: ``app_info`` gives ``AppInfo(bundle, None, None)`` for an
        installed app.
Rule 9: the accessibility audit (``Audits``) is one ``POST /wda/performAccessibilityAudit`` in the
        session, with the action timeout (an audit walks the whole app); the reply is read as
        ``_xcuitest/audit`` says, and a device before iOS 17 is asked nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

import attrs

from mobster_core import (
    Action,
    AppInfo,
    DeviceError,
    DeviceInfo,
    DeviceKind,
    Element,
    LaunchOptions,
    Reset,
    Screen,
    UnknownOutcome,
)
from mobster_core.protocols import Appearance, AuditReport
from mobster_drivers._xcuitest import audit, replies
from mobster_drivers._xcuitest.gestures import KEYBOARD_KEYS, SWIPE_SECONDS, Move, gesture, pointer_actions
from mobster_drivers._xcuitest.session import SESSION_SETTINGS, locale_and_appearance
from mobster_drivers._xcuitest.tree import SourceRead
from mobster_drivers._xcuitest.visibility import QueryRefused, Visibility, read_tree

from ._transport import (
    FacebookWdaTransport,
    WdaBadReply,
    WdaErrorReply,
    WdaNoReply,
    WdaTransport,
    WdaTransportError,
    WdaUnreachable,
    endpoint,
)

__all__ = [
    "ELEMENTS_PATH",
    "EVIDENCE_PATH",
    "SESSION_CAPABILITIES",
    "SESSION_SETTINGS",
    "SOURCE_PATH",
    "WdaDevice",
    "WdaTimeouts",
]

_log = logging.getLogger("mobster.drivers.wda")

#: The capabilities of the session the device creates (Rule 4).
SESSION_CAPABILITIES: Mapping[str, Any] = {
    "platformName": "iOS",
    "shouldWaitForQuiescence": False,
    "waitForIdleTimeout": 0,
}
#: The fast source read (Rule 5).
SOURCE_PATH = "/source?format=json&excluded_attributes=visible,accessible"
#: The evidence read, which keeps WDA's own ``visible`` (Rule 5a).
EVIDENCE_PATH = "/source?format=json&excluded_attributes=accessible"
#: Where predicate queries go (Rules 5, 5b).
ELEMENTS_PATH = "/elements"

_INVALID_SESSION = "invalid session id"


@attrs.frozen
class WdaTimeouts:
    """How long each kind of request may take, in seconds, before it counts as failed."""

    read: float = 30.0
    action: float = 30.0
    launch: float = 90.0
    status: float = 5.0


#: What to do when WDA doesn't answer a read in time (Rule 2): it serves one request at a time.
_STUCK = (
    "WebDriverAgent serves one request at a time, so a command still running on the phone holds every "
    "request after it; if the phone shows an alert or a frozen app, clear it, else restart WebDriverAgent "
    "(docs/drivers.md)"
)


def _fallback_name(url: str) -> str:
    return f"WebDriverAgent at {url.split('://', 1)[-1]}"


class WdaDevice:
    """A phone driven through WebDriverAgent: ``Device``, ``Screenshots``, ``EvidenceReads``, ``TargetChecks``.

    ``wda`` is WDA's URL (``http://127.0.0.1:8100``, sent through facebook-wda) or any
    :class:`WdaTransport`. ``kind`` says whether it is a simulator or an iPhone; None reads it from
    WDA (``/status`` has ``ios.simulatorVersion`` on a simulator; a WDA that says nothing counts
    as a simulator). ``name`` and ``ios`` override what WDA reports. The module rules describe
    the behaviour; blocking calls run in a worker thread.
    """

    def __init__(
        self,
        wda: str | WdaTransport,
        *,
        kind: DeviceKind | None = None,
        name: str | None = None,
        ios: str | None = None,
        udid: str = "",
        timeouts: WdaTimeouts | None = None,
    ) -> None:
        self._transport: WdaTransport = FacebookWdaTransport(wda) if isinstance(wda, str) else wda
        self._kind = kind
        self._name = name
        self._ios = ios
        self._udid = udid
        self._timeouts = timeouts or WdaTimeouts()
        self._lock = threading.Lock()
        self._session_id: str | None = None
        self._size: tuple[int, int] | None = None
        self._info: DeviceInfo | None = None
        self._last_source: tuple[tuple[object, ...], Mapping[str, Any], SourceRead] | None = None  # Rule 5c
        # Rules 5 and 5b: WDA's answers about what is visible (shared with the Appium driver).
        self._visibility = Visibility(
            self._visible_elements, size=self._screen_size, now=time.monotonic, where=self._where()
        )

    @property
    def url(self) -> str:
        """WDA's base URL."""
        return self._transport.url

    @property
    def transport(self) -> WdaTransport:
        """The transport requests go through."""
        return self._transport

    @property
    def session_id(self) -> str | None:
        """The WDA session in use, None before the first call that needs one."""
        return self._session_id

    def close(self) -> None:
        """Release the transport (the WDA session is left to WDA; a new run makes its own)."""
        self._transport.close()

    # -- Device ------------------------------------------------------------------------------

    async def info(self) -> DeviceInfo:
        """The device's name, iOS version (``/status`` ``os.version``) and kind (see the class)."""
        return await asyncio.to_thread(self._info_sync)

    async def app_info(self, bundle: str) -> AppInfo:
        """``AppInfo(bundle, None, None)`` for an installed app (Rule 8); DeviceError if it isn't."""
        await asyncio.to_thread(self._require_installed, bundle, "app_info")
        return AppInfo(bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """(Re)launch ``bundle`` with arguments and environment, then open ``options.url`` if any."""
        await asyncio.to_thread(self._launch_sync, bundle, options)

    async def read(self) -> Screen:
        """The app in front and its accessibility tree: the fast read (Rule 5)."""
        return await asyncio.to_thread(self.read_sync)

    async def read_evidence(self) -> Screen:
        """The read with WDA's own visibility of every element (Rule 5a)."""
        return await asyncio.to_thread(self.read_evidence_sync)

    async def check_target(self, element: Element) -> bool:
        """Is ``element`` (from the latest read) visible, by WDA's own account (Rule 5b)?"""
        return await asyncio.to_thread(self.check_target_sync, element)

    async def act(self, action: Action) -> None:
        """Send one action, once (Rules 1, 6, 7)."""
        await asyncio.to_thread(self._act_sync, action)

    async def answer_alert(self, button: str) -> None:
        """Tap ``button`` of the alert shown (``AlertAnswers``): ``POST /alert/accept {"name": button}``, once.

        WDA taps the alert's button of that label (``FBAlert.m`` ``clickAlertButton``); no alert is
        its 404 ``no such alert``: nothing was sent.
        """
        await asyncio.to_thread(self._answer_alert_sync, button)

    def _answer_alert_sync(self, button: str) -> None:
        self._visibility.forget()
        self._call("POST", "/alert/accept", {"name": button}, action=f"tapping “{button}” on the alert", session=True)

    async def screenshot(self) -> bytes:
        """The screen as PNG bytes (``GET /screenshot``)."""
        return await asyncio.to_thread(self._screenshot_sync)

    async def audit(self, types: tuple[str, ...]) -> AuditReport:
        """Apple's accessibility audit of the app in front (``protocols.Audits``; Rule 9)."""
        return await asyncio.to_thread(self.audit_sync, types)

    def audit_sync(self, types: tuple[str, ...]) -> AuditReport:
        """Rule 9: ``POST /wda/performAccessibilityAudit``; iOS before 17 is asked nothing."""
        info = self._info_sync()
        old = audit.too_old(info.ios_major, info.ios)
        if old is not None:
            return old
        value = self._call(
            "POST",
            "/wda/performAccessibilityAudit",
            audit.audit_request(types),
            timeout=self._timeouts.action,
            session=True,
        )
        return audit.parse_audit(value, self._where())

    # -- extras ------------------------------------------------------------------------------

    def status_sync(self, timeout: float | None = None) -> dict[str, Any]:
        """WDA's ``/status`` value; ``DeviceError`` saying to start WDA when it doesn't answer."""
        value = self._call("GET", "/status", timeout=self._timeouts.status if timeout is None else timeout)
        if not isinstance(value, Mapping):
            raise DeviceError(f"{self._where()} sent a /status that is not an object: {value!r:.80}")
        return dict(value)

    async def terminate(self, bundle: str) -> bool:
        """Terminate an app; True when it was running. An action: sent once."""
        return await asyncio.to_thread(self._terminate_sync, bundle, self._timeouts.action)

    def _terminate_sync(self, bundle: str, timeout: float) -> bool:
        value = self._call(
            "POST",
            "/wda/apps/terminate",
            {"bundleId": bundle},
            timeout=timeout,
            action=f"terminating {bundle}",
            session=True,
        )
        return bool(value)

    # -- the blocking core -------------------------------------------------------------------

    def _where(self) -> str:
        return f"WebDriverAgent at {self.url}"

    def _info_sync(self) -> DeviceInfo:
        if self._info is not None:
            return self._info
        status = self.status_sync()
        ios = self._ios
        if ios is None:
            os_info = status.get("os")
            version = os_info.get("version") if isinstance(os_info, Mapping) else None
            if not isinstance(version, str) or not replies.IOS_VERSION.fullmatch(version):
                raise DeviceError(f"{self._where()} doesn't say its iOS version (/status os.version: {version!r})")
            ios = version
        details = self._device_details()
        kind = self._kind or _kind_of(status, details)
        name = self._name or _text_or_none(details.get("name")) or _fallback_name(self.url)
        locale, appearance = locale_and_appearance(details)
        self._info = DeviceInfo(name=name, ios=ios, kind=kind, udid=self._udid, locale=locale, appearance=appearance)
        return self._info

    def locale_sync(self) -> tuple[str | None, Appearance | None]:
        """The language and region, and the light/dark appearance, WDA reports (each None when it can't tell)."""
        info = self._info_sync()
        return info.locale, info.appearance

    def _device_details(self) -> Mapping[str, Any]:
        """``/wda/device/info`` (name, isSimulator, …), or {} on a WDA that doesn't have it."""
        try:
            value = self._call("GET", "/wda/device/info", timeout=self._timeouts.read, session=True)
        except DeviceError as exc:
            if isinstance(exc.__cause__, WdaErrorReply):
                return {}
            raise
        return value if isinstance(value, Mapping) else {}

    def _require_installed(self, bundle: str, what: str) -> None:
        value = self._call("POST", "/wda/apps/state", {"bundleId": bundle}, timeout=self._timeouts.read, session=True)
        if isinstance(value, bool) or not isinstance(value, int):
            raise DeviceError(f"{what}: {self._where()} sent an app state that is not a number: {value!r:.80}")
        if value == 0:
            raise DeviceError(f"{what}: {bundle} is not installed on {self._display_name()}")

    def _display_name(self) -> str:
        """The device's name for a message (asked of WDA once, only when a message needs it)."""
        if self._info is None and self._name is None:
            with contextlib.suppress(DeviceError):
                self._info_sync()
        if self._info is not None:
            return self._info.name
        return self._name or _fallback_name(self.url)

    def _launch_sync(self, bundle: str, options: LaunchOptions) -> None:
        self._visibility.forget()
        self._require_installed(bundle, "launch")
        if options.reset is not Reset.NONE:
            _log.debug("reset %s of %s: WDA alone can't wipe app data; relaunching as it is", options.reset, bundle)
        self._terminate_sync(bundle, self._timeouts.launch)
        self._call(
            "POST",
            "/wda/apps/launch",
            {
                "bundleId": bundle,
                "arguments": list(options.args),
                "environment": dict(options.env),
                "shouldWaitForQuiescence": False,
            },
            timeout=self._timeouts.launch,
            action=f"launching {bundle}",
            session=True,
        )
        if options.url is not None:
            self.open_url_sync(options.url)

    def open_url_sync(self, url: str) -> None:
        """Open a URL (``POST /url``): an action, sent once."""
        self._call("POST", "/url", {"url": url}, timeout=self._timeouts.launch, action=f"opening {url}", session=True)

    def read_sync(self) -> Screen:
        """The blocking form of :meth:`read`."""
        return self._read(SOURCE_PATH)

    def read_evidence_sync(self) -> Screen:
        """The blocking form of :meth:`read_evidence`."""
        return self._read(EVIDENCE_PATH)

    def _read(self, source_path: str) -> Screen:
        app_info = self._call("GET", "/wda/activeAppInfo", timeout=self._timeouts.read)
        bundle = app_info.get("bundleId") if isinstance(app_info, Mapping) else None
        if not isinstance(bundle, str) or not bundle:
            raise DeviceError(f"{self._where()} sent no bundleId for the app in front: {app_info!r:.80}")
        tree = self._call("GET", source_path, timeout=self._timeouts.read, session=True)
        if not isinstance(tree, Mapping):
            raise DeviceError(f"{self._where()} sent a source that is not a tree of elements: {tree!r:.80}")
        key = (source_path, bundle, self._size)
        last = self._last_source
        if last is not None and last[0] == key and last[1] == tree:
            read = last[2]  # Rule 5c: the same source as the read before
        else:
            read = read_tree(tree, bundle, size=self._size, window_size=self._window_size, where=self._where())
            self._last_source = (key, tree, read)
        self._size = read.screen.size
        return self._visibility.screen(read)

    def _visible_elements(self, query: str) -> Any:
        """``POST /elements`` with a predicate (Rules 5, 5b); ``QueryRefused`` when WDA refuses it."""
        body = {"using": "predicate string", "value": query}
        try:
            return self._call("POST", ELEMENTS_PATH, body, timeout=self._timeouts.read, session=True)
        except DeviceError as exc:
            if isinstance(exc.__cause__, WdaErrorReply) and exc.__cause__.error != _INVALID_SESSION:
                raise QueryRefused(str(exc)) from exc
            raise

    def check_target_sync(self, element: Element) -> bool:
        """The blocking form of :meth:`check_target`."""
        return self._visibility.check_target(element)

    def _window_size(self) -> tuple[int, int]:
        value = self._call("GET", "/window/size", timeout=self._timeouts.read)
        return replies.window_size(value, self._where(), "a window size")

    def _screen_size(self) -> tuple[int, int]:
        if self._size is None:
            self._size = self._window_size()
        return self._size

    def _act_sync(self, action: Action) -> None:
        self._visibility.forget()
        move = gesture(action, self._screen_size)  # Rules 6, 7
        what = move.what
        if move.move is Move.PRESS:
            body = pointer_actions(*move.point, move.hold_ms)
            self._call("POST", "/actions", body, action=move.press_what, session=True)
        if move.keys is not None:
            self._call("POST", "/wda/keys", {"value": list(move.keys)}, action=what, session=True)
        elif move.move is Move.SWIPE:
            fx, fy, tx, ty = move.swipe
            body = {"fromX": fx, "fromY": fy, "toX": tx, "toY": ty, "duration": SWIPE_SECONDS}
            self._call("POST", "/wda/dragfromtoforduration", body, action=what, session=True)
        elif move.move is Move.HOME:
            self._call("POST", "/wda/homescreen", action=what)
        elif move.move is Move.ACTIVATE:
            body = {"bundleId": move.target}
            self._call("POST", "/wda/apps/activate", body, timeout=self._timeouts.launch, action=what, session=True)
        elif move.move is Move.OPEN_URL:
            self.open_url_sync(move.target)
        elif move.move is Move.DISMISS_KEYBOARD:
            body = {"keyNames": list(KEYBOARD_KEYS)}
            self._call("POST", "/wda/keyboard/dismiss", body, action=what, session=True)

    def _screenshot_sync(self) -> bytes:
        value = self._call("GET", "/screenshot", timeout=self._timeouts.read)
        return replies.screenshot_png(value, self._where())

    # -- sessions and requests ---------------------------------------------------------------

    def _session(self) -> str:
        with self._lock:
            if self._session_id is None:
                self._session_id = self._create_session()
            return self._session_id

    def _drop_session(self, stale: str) -> None:
        with self._lock:
            if self._session_id == stale:
                self._session_id = None

    def _create_session(self) -> str:
        body = {"capabilities": {"alwaysMatch": dict(SESSION_CAPABILITIES), "firstMatch": [{}]}}
        try:
            reply = self._transport.request("POST", "/session", body, timeout=self._timeouts.launch)
        except WdaTransportError as exc:
            raise self._failure(exc, None) from exc
        value = reply.value if isinstance(reply.value, Mapping) else {}
        session = reply.session_id or value.get("sessionId")
        if not isinstance(session, str) or not session:
            raise DeviceError(f"{self._where()} created a session without a sessionId")
        settings = dict(SESSION_SETTINGS)
        try:
            width, height = self._screen_size()
            settings["activeAppDetectionPoint"] = f"{width // 2},{height // 2}"
        except DeviceError:
            settings["activeAppDetectionPoint"] = "160,320"
        try:
            self._transport.request(
                "POST", f"/session/{session}/appium/settings", {"settings": settings}, timeout=self._timeouts.read
            )
        except WdaErrorReply as exc:  # an older WDA without some settings still works
            _log.debug("WDA refused the session settings: %s", exc)
        except WdaTransportError as exc:
            raise self._failure(exc, None) from exc
        _log.debug("WDA session %s at %s", session, self.url)
        return session

    def _call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        action: str | None = None,
        session: bool = False,
    ) -> Any:
        """One request; ``action`` names an action (its failures may be unknown outcomes, Rule 2)."""
        seconds = timeout if timeout is not None else (self._timeouts.action if action else self._timeouts.read)
        for attempt in (1, 2):
            sid = self._session() if session else None
            full = f"/session/{sid}{path}" if sid is not None else path
            try:
                return self._transport.request(method, full, body, timeout=seconds).value
            except WdaErrorReply as exc:
                if sid is not None and exc.error == _INVALID_SESSION and attempt == 1:
                    _log.debug("WDA session %s is gone (WDA restarted?); making a new one", sid)
                    self._drop_session(sid)
                    continue
                raise self._failure(exc, action) from exc
            except WdaTransportError as exc:
                raise self._failure(exc, action) from exc
        raise DeviceError(f"{self._where()} refused two sessions in a row for {endpoint(method, path)}")

    def _failure(self, exc: WdaTransportError, action: str | None) -> DeviceError:
        where, point, detail = self._where(), exc.endpoint, exc.detail
        if isinstance(exc, WdaUnreachable):
            hint = "is WebDriverAgent running there? See docs/drivers.md"
            return DeviceError(replies.not_answering(where, point, detail, action=action, hint=hint))
        if action is None:
            how: replies.Failed = "bad reply" if isinstance(exc, WdaBadReply) else "error"
            how = "no reply" if isinstance(exc, WdaNoReply) else how
            return DeviceError(replies.failed_read(where, point, detail, how, hint=_STUCK))
        if isinstance(exc, WdaErrorReply) and exc.error != "timeout":
            return DeviceError(replies.refused(action, where, point, detail))
        kind = "a bad reply" if isinstance(exc, WdaBadReply) else "no complete reply"
        return UnknownOutcome(replies.unknown_outcome(action, where, kind, point, detail))


def _kind_of(status: Mapping[str, Any], details: Mapping[str, Any]) -> DeviceKind:
    flag = replies.simulator_flag(details)
    if flag is not None:
        return DeviceKind.SIMULATOR if flag else DeviceKind.IPHONE
    ios = status.get("ios")
    if isinstance(ios, Mapping):
        return DeviceKind.SIMULATOR if ios.get("simulatorVersion") else DeviceKind.IPHONE
    return DeviceKind.SIMULATOR


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
