r"""The Appium device over an Appium server's XCUITest or UiAutomator2 driver: ``Device`` and its abilities.

One driver for both platforms: the session, the wire and the errors are the same; an Android
session (the platform read from the session's capabilities, ``_android`` Rule 1) reads, acts,
launches and says what it is as ``_android``'s rules say. The rules below are iOS's where they
name XCUITest's commands.

Rule 1: every action is one command, sent once, with an explicit timeout; the wire never
        re-sends (``_wire``'s rules).
Rule 2: errors are mapped here, at the edge. Nothing sent (Appium unreachable, an app that isn't
        installed) and every failed read is a :class:`DeviceError`. An action Appium refused
        with an error that means "not done" (:data:`REFUSED_ERRORS`, or any HTTP 4xx) is a
        ``DeviceError`` too. Any other error reply to an action (``unknown error``, which is
        what Appium answers when its call to WebDriverAgent failed half-way, ``timeout``, any
        other 5xx), a timeout, a dropped connection and a reply that isn't W3C JSON are an
        :class:`UnknownOutcome`. Messages name the command, never the session id or a secret.
Rule 3: one session serves every call, created on first need with ``session_capabilities`` (no
        ``appium:bundleId`` unless the caps ask for it: ``_caps`` Rule 4), waiting as long as
        :attr:`AppiumTimeouts.session` allows (a Grid's queue, a cloud finding a phone). A
        stale session (``invalid session id``: Appium's newCommandTimeout ran out, the provider
        ended it, WebDriverAgent restarted behind it, another session claimed the phone) is
        given up on: it is deleted (best effort, at most 10 s: after a WDA restart Appium still
        holds it, and on a Grid or a cloud it holds the phone and the bill until it idles out),
        then replaced, and the call sent once more, only by the calls that begin a check
        (``info``, ``app_info``, ``launch``): Appium refuses a stale session before it does
        anything. In the middle of a check (``read``, ``act``, ``screenshot``) it is a
        ``DeviceError``: a new session on a cloud may be another phone, and a check can't go on
        on a phone whose state it doesn't know. The next launch starts a new session.
Rule 3a: :meth:`AppiumDevice.close` never waits for a call in flight: it shuts the wire's
        sockets (``_wire`` Rule 7), so a session request stuck in a queue, or a command whose
        reply never comes, ends at once; then it deletes the session it knows (at most 5 s).
        ``close(grace=S)`` first waits up to S seconds for a session request in flight to be
        answered (a pool abandoned while it opens): a session the server made is then known and
        deleted, where a request cut mid-way would leave it to the server's idle timeout.
Rule 4: a read is ``mobile: activeAppInfo`` (the app in front) and ``mobile: source`` with
        :data:`SOURCE_ARGS` (``{"format": "json", "excludedAttributes": "visible,accessible"}``):
        the XCUITest driver hands them to WebDriverAgent's source as ``excluded_attributes``,
        WDA's fast read (WDA 8.11 and later leave them out of the JSON too; an older WDA sends
        them, and the read is then as truthful, and as slow, as the evidence read: logged once).
        The tree goes through the WDA driver's parser and visibility rules
        (``mobster_drivers._xcuitest.visibility``, one for both drivers); the screen size comes from
        the window rect when the root has none. Elements the tree can't decide are asked about
        as the WDA driver asks: one predicate query, through Appium (Rule 4c), its answer kept
        for 2 s and forgotten at every action and launch; a server that refuses the query leaves
        them hidden.
Rule 4a: the evidence read (the verdict's, ``EvidenceReads``) is ``mobile: source`` with
        :data:`EVIDENCE_ARGS` (``excludedAttributes: "accessible"``): WDA's own ``visible``
        decides what is shown.
Rule 4b: the target check (``TargetChecks``) asks, before an action on an element, for a visible
        element of its type and label at its frame (one query, Rule 4c), unless the latest read's
        own query just confirmed it; a server that refuses the query answers "can't tell": True.
Rule 4c: a query is ``POST /session/{id}/elements`` with ``{"using": "-ios predicate string",
        "value": …}``; the XCUITest driver rewrites the strategy to WDA's ``predicate string`` and
        proxies it to WDA's ``/elements``, whose reply (W3C element references with ``type``,
        ``label`` and ``rect``) passes through. Before the first query of a session, the session's
        implicit wait is set to 0 (``POST /timeouts``: an empty answer would otherwise be asked
        again until it ran out) and WDA is told to describe the elements it finds
        (:data:`QUERY_SETTINGS` through ``POST /appium/settings``); either refused, the queries
        go on (compact replies answer "can't tell"). The driver turns any failure of the lookup
        at WDA into an empty answer, so here a query WDA could not evaluate reads as "none
        visible": the careful side (a drift, never a tap on hidden content). A refusal by Appium
        itself (``invalid selector``: a server without the strategy, any 4xx) is not asked again
        in that session; ``invalid session id`` is Rule 3's; anything else is a failed read.
Rule 5: actions: ``TAP`` is ``mobile: tap`` at the element's centre in points (XCTest's
        coordinate tap: no pointer travel, unlike the client's W3C tap, which moves the finger
        for about 0.35 s); ``LONG_PRESS`` is ``mobile: touchAndHold`` for 1 s; ``TYPE`` taps the
        field, then sends the text to the element that has the keyboard focus
        (``GET /element/active``, ``POST /element/{id}/value``); ``SUBMIT`` sends ``"\n"`` the
        same way; swipes are ``mobile: dragFromToForDuration`` (0.1 s press, as the WDA driver);
        ``HOME`` is ``mobile: pressButton`` ``home``; ``LAUNCH_APP`` is ``mobile: activateApp``;
        ``OPEN_URL`` is ``mobile: deepLink``; ``DISMISS_KEYBOARD`` is ``mobile: hideKeyboard`` with
        the keys that hide it (``gestures`` Rule 6). A system alert is answered with ``mobile: alert``
        (``accept``, its button's label: XCUITest taps it through WDA's ``/alert/accept``).
Rule 6: a launch is ``mobile: isAppInstalled`` (a ``DeviceError``, nothing sent, when it isn't;
        ``mobile: queryAppState`` where a server refuses it), ``mobile: terminateApp``,
        ``mobile: launchApp`` with the arguments and environment
        (``launchApp`` only brings a running app to the front and drops its arguments, hence the
        terminate), then ``mobile: deepLink`` for ``options.url``. Between the terminate and the
        launch, on a simulator session, the permissions the launch names are set (``_controls``
        Rule 4); a server that refuses them (no simctl on its host, an older XCUITest) is said once
        as a warning, and the check's alert policy answers their prompts as they show. The
        terminate, the permissions, the launch and the deep link share the launch timeout: a
        command that hangs ends the launch within it (a ``DeviceError`` naming the command; the
        launch is not sent behind a ``setPermission`` that never answered). An iPhone
        can't have them set: there too the prompts are answered. Appium can't wipe an app's
        data on every device: a launch with a reset relaunches the app as it is (logged).
Rule 7: the device's iOS version, name and UDID come from the capabilities the server answered
        the new session with (real XCUITest fills ``platformVersion`` from the phone's lockdown or
        the simulator, as MAJOR.MINOR, and ``udid``), else from those the caps asked for, else
        from ``mobile: deviceInfo`` (its
        ``lockdownInfo``, the phone's own values, before WDA's: WDA's ``uuid`` is the vendor's
        id, not the UDID); its kind from ``mobile: deviceInfo``'s ``isSimulator``, else the
        UDID's shape (a simulator's is a UUID), else an iPhone (the stricter safety rules). A
        5xx to ``mobile: deviceInfo`` (a lockdown call that failed on the way) is asked once
        more; one that persists leaves the details out of this answer only, and the next
        ``info`` asks again: only a refusal (4xx, ``unknown method``) means the server hasn't
        the command. The app's version and build come
        from ``mobile: listApps`` on an iPhone (the XCUITest driver refuses it on a simulator),
        else from the ``.app``/``.ipa`` the caller points at, else they are unknown (the
        iPhone rule: the replay env keys on the iOS major and the kind).
Rule 8: :meth:`AppiumDevice.report` names the session after the check and tells the provider
        the verdict where it has a convention (``_provider``); it never raises: the verdict is
        already decided. The device takes ``CheckReports``: the runner names the session at a
        check's start (when the session exists) and reports the verdict at its end; with
        ``session_per_check`` the session then ends, so each check is one session on the
        provider's dashboard (one name, one verdict, one video).
Rule 9: the device controls (``DeviceControls``), the video (``Recordings``) and the audit
        (``Audits``) are ``_controls``' and ``_xcuitest/audit``'s commands: settings only on a
        simulator session (the kind of Rule 7), a video with XCTest's recorder, written 0600 into
        the file asked for in one rename, or on a cloud the provider's session page linked; the
        audit is ``mobile: performAccessibilityAudit`` (iOS 17 and later). A check's device
        steps (``DeviceEvents``) are ``mobile: sendBiometricMatch {type, match}`` and ``mobile:
        pushNotification {bundleId, payload}``, on a simulator session only.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from mobster_core import (
    Action,
    AppInfo,
    Clock,
    DeviceError,
    DeviceInfo,
    DeviceKind,
    Element,
    LaunchOptions,
    Op,
    Reset,
    Screen,
    SystemClock,
    UnknownOutcome,
    Verdict,
)
from mobster_core.files import atomic_write
from mobster_core.protocols import AuditReport, DeviceEvent, DeviceSettings, Recording
from mobster_core.text import normal_locale
from mobster_drivers._xcuitest import audit, replies
from mobster_drivers._xcuitest.gestures import KEYBOARD_KEYS, SWIPE_SECONDS, Move, gesture
from mobster_drivers._xcuitest.session import SESSION_SETTINGS, locale_and_appearance
from mobster_drivers._xcuitest.visibility import QueryRefused, Visibility, read_tree

from ._android import AndroidCalls, emulator_of, is_android
from ._bundle import BundleInfo, read_bundle_info
from ._caps import AppiumCaps, Provider, caps_platform, detect_provider, session_capabilities
from ._controls import permission_access, settings_commands, settings_refusal, video_link
from ._provider import provider_scripts
from ._wire import AppiumBadReply, AppiumErrorReply, AppiumNoReply, AppiumTransportError, AppiumUnreachable, AppiumWire

__all__ = [
    "EVIDENCE_ARGS",
    "QUERY_SETTINGS",
    "QUERY_STRATEGY",
    "REFUSED_ERRORS",
    "SOURCE_ARGS",
    "AppiumDevice",
    "AppiumTimeouts",
    "appium_device",
]

_log = logging.getLogger("mobster.drivers.appium")

#: ``mobile: source``'s arguments: WDA's JSON tree without its costly attributes (Rule 4).
SOURCE_ARGS: Mapping[str, str] = {"format": "json", "excludedAttributes": "visible,accessible"}
#: ``mobile: source``'s arguments for the evidence read: WDA's own ``visible`` kept (Rule 4a).
EVIDENCE_ARGS: Mapping[str, str] = {"format": "json", "excludedAttributes": "accessible"}
#: The locator strategy of a visibility query (Rule 4c).
QUERY_STRATEGY = "-ios predicate string"
#: WDA's settings that make a query's replies say which elements they are (Rule 4c): the WDA
#: driver's own.
QUERY_SETTINGS: Mapping[str, Any] = {
    key: SESSION_SETTINGS[key] for key in ("shouldUseCompactResponses", "elementResponseAttributes")
}
#: W3C errors that mean the command was refused before anything was done (Rule 2).
REFUSED_ERRORS = frozenset(
    {
        "invalid argument",
        "invalid session id",
        "unknown command",
        "unknown method",
        "unsupported operation",
        "session not created",
        "no such element",
        "stale element reference",
        "element not interactable",
        "element not visible",
        "invalid element state",
        "invalid coordinates",
        "invalid selector",
        "no such alert",
        "no such window",
        "unauthorized",
    }
)
_SIMULATOR_UDID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_ELEMENT_KEYS = ("element-6066-11e4-a52e-4f735466cecf", "ELEMENT")
_INVALID_SESSION = "invalid session id"


#: What to do when a read gets no reply in time: the WDA behind Appium serves one request at a time.
_STUCK = (
    "the WebDriverAgent behind Appium serves one request at a time, so a command still running on the "
    "phone holds every command after it; if the phone shows an alert or a frozen app, clear it, else "
    "restart the session (docs/scale.md)"
)


@attrs.frozen
class AppiumTimeouts:
    """How long each kind of command may take, in seconds, before it counts as failed."""

    read: float = 30.0
    action: float = 30.0
    launch: float = 90.0
    #: A cloud may queue a new session for minutes while it finds a phone.
    session: float = 300.0


def appium_device(
    url: str,
    caps: AppiumCaps,
    clock: Clock,
    *,
    bundle: str | None = None,
    app_files: Iterable[str | os.PathLike[str]] = (),
    timeouts: AppiumTimeouts | None = None,
    session_per_check: bool = False,
    platform: str | None = None,
) -> AppiumDevice:
    """One device on the Appium server at ``url``; a pool calls this once per session it wants.

    Each device has its own connection and its own session; nothing is shared between them.
    ``session_per_check`` ends the session at the end of each check (Rule 8). ``platform``
    (``ios``, ``android``) is the one caps without ``platformName`` ask for (iOS by default).
    """
    return AppiumDevice(
        url,
        caps,
        clock=clock,
        bundle=bundle,
        app_files=app_files,
        timeouts=timeouts,
        session_per_check=session_per_check,
        platform=platform,
    )


class AppiumDevice:
    """A phone behind an Appium server (local Appium, Selenium Grid, a device cloud).

    Implements ``Device``, ``Screenshots``, ``EvidenceReads``, ``TargetChecks`` and ``CheckReports``; the module
    rules describe the behaviour. ``caps`` are the user's capabilities
    (:func:`~mobster_drivers.devices.appium.load_caps`); ``bundle`` is the app under test
    (``appium:bundleId``); ``app_files`` are ``.app`` folders or ``.ipa`` files whose
    ``Info.plist`` gives an app's version where Appium can't. ``name``, ``kind`` and
    ``ios`` override what the server reports. Blocking calls run in a worker thread.
    """

    def __init__(
        self,
        url: str,
        caps: AppiumCaps | Mapping[str, Any] | None = None,
        *,
        clock: Clock | None = None,
        bundle: str | None = None,
        app_files: Iterable[str | os.PathLike[str]] = (),
        timeouts: AppiumTimeouts | None = None,
        name: str | None = None,
        kind: DeviceKind | None = None,
        ios: str | None = None,
        session_per_check: bool = False,
        platform: str | None = None,
    ) -> None:
        self._session_per_check = session_per_check
        self._caps = caps if isinstance(caps, AppiumCaps) else AppiumCaps.from_mapping(caps or {})
        self._platform = caps_platform(self._caps, platform)  # the one asked for; the session's decides
        session_capabilities(self._caps, bundle=bundle, platform=self._platform)  # caps Mobster can't use fail now
        self._bundles: dict[str, BundleInfo] = {}
        for path in app_files:
            info = read_bundle_info(path)  # ValueError naming the file: a usage error, found now
            self._bundles[info.bundle] = info
        self._wire = AppiumWire(url, secrets=self._caps.secrets)  # last: it holds a pool and a log filter
        self._provider = detect_provider(self._wire.url, self._caps.capabilities)
        self._clock: Clock = clock or SystemClock()
        self._bundle = bundle
        self._timeouts = timeouts or AppiumTimeouts()
        self._name, self._kind, self._ios = name, kind, ios
        self._session_lock = threading.Lock()  # held only to read or set the session, never while asking
        self._closed = False
        self._making = 0  # session requests in flight (Rule 3a's grace)
        self._made = threading.Condition(self._session_lock)
        self._session_id: str | None = None
        self._session_caps: Mapping[str, Any] = {}
        self._last_command: float | None = None
        self._size: tuple[int, int] | None = None
        self._info: DeviceInfo | None = None
        # Rules 4-4c: the WDA driver's visibility, asked through Appium; the session whose
        # queries are set up; whether the server's WDA was found to ignore excludedAttributes.
        self._visibility = Visibility(
            self._visible_elements, size=self._screen_size, now=self._clock.now, where=self._where(), scrub=self.scrub
        )
        self._queries_ready: str | None = None
        self._told_full_source = False
        self._told_permissions = False
        self._video_file: Path | None = None  # Rule 9: the file a recording goes into
        self._android = AndroidCalls(
            self._mobile, self._call, self._screen_size, where=self._where(), timeouts=self._timeouts
        )

    # -- what callers read --------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The server's URL as messages show it: no user info, a token in its path as ``***``."""
        return self._wire.scrub(self._wire.url)

    @property
    def provider(self) -> Provider | None:
        """The device cloud behind the URL, None for a local Appium or a Grid."""
        return self._provider

    @property
    def session_id(self) -> str | None:
        """The Appium session in use, None before the first call that needs one."""
        return self._session_id

    def scrub(self, text: str) -> str:
        """``text`` without the caps' secrets (for callers that print what the device said)."""
        return self._wire.scrub(text)

    # -- Device ------------------------------------------------------------------------------

    async def info(self) -> DeviceInfo:
        """The device's name, iOS version and kind (Rule 7)."""
        return await asyncio.to_thread(self._info_sync)

    async def app_info(self, bundle: str) -> AppInfo:
        """The app's version and build where they can be read (Rule 7); DeviceError if not installed."""
        return await asyncio.to_thread(self._app_info_sync, bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """(Re)launch ``bundle`` with arguments and environment, then open ``options.url`` (Rule 6)."""
        await asyncio.to_thread(self._launch_sync, bundle, options)

    async def read(self) -> Screen:
        """The app in front and its accessibility tree: the fast read (Rule 4)."""
        return await asyncio.to_thread(self.read_sync)

    async def read_evidence(self) -> Screen:
        """The read with WDA's own visibility of every element (Rule 4a)."""
        return await asyncio.to_thread(self.read_evidence_sync)

    async def check_target(self, element: Element) -> bool:
        """Is ``element`` (from the latest read) visible, by WDA's own account (Rule 4b)?"""
        return await asyncio.to_thread(self.check_target_sync, element)

    async def act(self, action: Action) -> None:
        """Send one action, once (Rules 1, 5)."""
        await asyncio.to_thread(self._act_sync, action)

    async def answer_alert(self, button: str) -> None:
        """Tap ``button`` of the alert shown (``AlertAnswers``): ``mobile: alert`` ``accept`` with its label, once."""
        if await asyncio.to_thread(self.is_android_sync):
            await asyncio.to_thread(self._android.answer_alert, button)
            return
        args = {"action": "accept", "buttonLabel": button}
        what = f"tapping “{button}” on the alert"
        await asyncio.to_thread(self._mobile, "alert", args, timeout=self._timeouts.action, action=what)

    async def screenshot(self) -> bytes:
        """The screen as PNG bytes (``GET /session/{id}/screenshot``)."""
        return await asyncio.to_thread(self._screenshot_sync)

    # -- extras ------------------------------------------------------------------------------

    async def terminate(self, bundle: str) -> bool:
        """Terminate an app (``mobile: terminateApp``); True when it was running. An action: sent once."""
        key = "appId" if await asyncio.to_thread(self.is_android_sync) else "bundleId"
        value = await asyncio.to_thread(
            self._mobile,
            "terminateApp",
            {key: bundle},
            timeout=self._timeouts.action,
            action=f"terminating {bundle}",
        )
        return bool(value)

    async def app_state(self, bundle: str) -> int:
        """The XCUIApplicationState of an app (``mobile: queryAppState``): 1 not running, 4 in front."""
        key = "appId" if await asyncio.to_thread(self.is_android_sync) else "bundleId"
        value = await asyncio.to_thread(self._mobile, "queryAppState", {key: bundle}, timeout=self._timeouts.read)
        if isinstance(value, bool) or not isinstance(value, int):
            raise DeviceError(f"{self._where()} sent an app state that is not a number: {self.scrub(repr(value))[:80]}")
        return value

    # -- device controls, video and the audit (Rule 9) ----------------------------------------

    def controls_refusal(self, settings: DeviceSettings) -> str | None:
        """``DeviceControls``: a simulator session applies them; an iPhone, a cloud's phone, can't (Rule 9)."""
        info = self._info
        if info is None or info.kind is not DeviceKind.SIMULATOR:
            return f"the Appium session at {self.url} is not on a simulator"
        return settings_refusal(settings)

    async def apply_settings(self, settings: DeviceSettings) -> None:
        """Location, appearance and biometric enrolment through XCUITest's ``mobile:`` commands (Rule 9)."""
        refusal = self.controls_refusal(settings)
        if refusal is not None:
            raise DeviceError(refusal)
        for name, args in settings_commands(settings):
            await asyncio.to_thread(self._mobile, name, args, timeout=self._timeouts.read)

    async def push_notification(self, bundle: str, payload: Mapping[str, Any]) -> None:
        """``mobile: pushNotification``: a push to ``bundle`` (a simulator session only)."""
        self._need_simulator("a push notification")
        what = f"pushing a notification to {bundle}"
        args = {"bundleId": bundle, "payload": dict(payload)}
        await asyncio.to_thread(self._mobile, "pushNotification", args, timeout=self._timeouts.action, action=what)

    async def biometric_match(self, *, match: bool, sensor: str = "faceId") -> None:
        """``mobile: sendBiometricMatch``: answer the Face ID (or ``touchId``) prompt (a simulator session only)."""
        self._need_simulator("a biometric match")
        args = {"type": sensor, "match": match}
        what = "a biometric match" if match else "a failed biometric match"
        await asyncio.to_thread(self._mobile, "sendBiometricMatch", args, timeout=self._timeouts.action, action=what)

    def event_refusal(self, event: DeviceEvent) -> str | None:
        """``DeviceEvents``: a simulator session sends a check's device steps; a real phone can't (Rule 9)."""
        del event  # both need a simulator, nothing more
        info = self._info
        if info is None or info.kind is not DeviceKind.SIMULATOR:
            return f"the Appium session at {self.url} is not on a simulator"
        return None

    async def send_event(self, event: DeviceEvent) -> None:
        """``DeviceEvents``: ``mobile: sendBiometricMatch``, or ``mobile: pushNotification`` of the payload (Rule 9)."""
        if event.op is Op.PUSH:
            await self.push_notification(event.bundle, json.loads(event.payload))
        else:
            await self.biometric_match(match=event.match, sensor=event.sensor)

    async def start_recording(self, file: Path) -> None:
        """``Recordings``: XCTest's recorder, or nothing on a cloud (it records every session, Rule 9)."""
        self._video_file = file
        if self._provider is None and not await asyncio.to_thread(self.is_android_sync):
            await asyncio.to_thread(self._mobile, "startXCTestScreenRecording", {}, timeout=self._timeouts.read)

    async def stop_recording(self) -> Recording:
        """``Recordings``: the video's bytes written 0600 into the file, or the cloud's page linked (Rule 9)."""
        file, self._video_file = self._video_file, None
        if file is None:
            return Recording()
        if self._provider is not None:
            return Recording(url=video_link(self._provider, self.url, self._session_id))
        if await asyncio.to_thread(self.is_android_sync):
            _log.info("%s: no video of an Android session on a local Appium (none is recorded)", self._where())
            return Recording()
        value = await asyncio.to_thread(self._mobile, "stopXCTestScreenRecording", {}, timeout=self._timeouts.action)
        payload = value.get("payload") if isinstance(value, Mapping) else None
        try:
            data = base64.b64decode(payload if isinstance(payload, str) else "", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise DeviceError(f"{self._where()} sent a video that is not base64") from exc
        if not data:
            raise DeviceError(f"{self._where()} sent no video (stopXCTestScreenRecording without a payload)")
        atomic_write(file, data)
        return Recording(file=str(file))

    async def audit(self, types: tuple[str, ...]) -> AuditReport:
        """``Audits``: ``mobile: performAccessibilityAudit`` of the app in front (Rule 9)."""
        info = await self.info()
        if info.kind.platform.value == "android":
            return AuditReport(unavailable="the accessibility audit is XCTest's: an Android session has none")
        old = audit.too_old(info.ios_major, info.ios)
        if old is not None:
            return old
        value = await asyncio.to_thread(
            self._mobile, "performAccessibilityAudit", audit.audit_request(types), timeout=self._timeouts.action
        )
        return audit.parse_audit(value, self._where())

    def _need_simulator(self, what: str) -> None:
        info = self._info
        if info is None or info.kind is not DeviceKind.SIMULATOR:
            raise DeviceError(f"{what} needs a simulator: the Appium session at {self.url} is not on one")

    # -- the session and the provider ---------------------------------------------------------

    async def report(self, name: str, verdict: Verdict | str, reason: str = "") -> bool:
        """Name the session after the check and tell the provider its verdict (Rule 8).

        Returns True when every command was accepted, False when there is no provider, no
        session, or a command failed (logged at debug level). Never raises.
        """
        return await asyncio.to_thread(self._report_sync, name, Verdict(verdict), reason)

    async def check_started(self, name: str) -> None:
        """``CheckReports``: name the session after the check now, when it has one (Rule 8).

        The first check of a device has no session yet (its ``info`` creates it): its name goes
        with its verdict at :meth:`check_ended`. Never raises.
        """
        await asyncio.to_thread(self._name_sync, name)

    async def check_ended(self, name: str, verdict: Verdict, reason: str) -> None:
        """``CheckReports``: name the session and tell the provider the verdict (:meth:`report`).

        With ``session_per_check``, then end the session: the next check starts a new one.
        """
        await self.report(name, verdict, reason)
        if self._session_per_check:
            await self.end_session()

    async def end_session(self) -> None:
        """End the Appium session (``DELETE /session/{id}``); the next call starts a new one.

        On a cloud, ending the session after each check makes each check one session (one video,
        one name, one verdict) on the dashboard. A failure is logged, not raised: the server
        ends an abandoned session after newCommandTimeout.
        """
        await asyncio.to_thread(self._end_session_sync)

    def close(self, grace: float = 0.0) -> None:
        """End the session and release the connection, never waiting for a call in flight (Rule 3a).

        ``grace``: seconds to wait first for a session request in flight to be answered, so the
        session it makes is deleted rather than left on the server. Safe to call twice, and from
        another thread than the one whose call is in flight.
        """
        with self._session_lock:
            first, self._closed = not self._closed, True
            if not first:
                return  # another thread is closing it: cutting its DELETE would leave the session on the server
            if grace > 0:
                self._made.wait_for(lambda: self._making == 0, timeout=grace)
        self._wire.abort()
        self._end_session_sync(timeout=5.0)
        self._wire.close()

    # -- the blocking core -------------------------------------------------------------------

    def _where(self) -> str:
        return f"Appium at {self.url}"

    def reads_version_names(self) -> bool:
        """``mobster_core.testing.VersionNames``: an Android session reads an app's build only (``_android`` Rule 6)."""
        return self._session_id is None or not is_android(self._session_caps, self._requested())

    def is_android_sync(self) -> bool:
        """Whether the session is on Android (``_android`` Rule 1); starts the session when it has none."""
        self._session()
        return is_android(self._session_caps, self._requested())

    def _info_sync(self) -> DeviceInfo:
        if self._info is not None and self._session_id is not None:
            return self._info
        if self.is_android_sync():
            return self._android_info()
        details, settled = self._device_details()
        lockdown = details.get("lockdownInfo")
        lockdown = lockdown if isinstance(lockdown, Mapping) else {}
        ios = self._ios or self._said("platformVersion") or _text(lockdown.get("ProductVersion"))
        if ios is None or not replies.IOS_VERSION.fullmatch(ios):
            raise DeviceError(
                f"{self._where()} doesn't say the device's iOS version (platformVersion: {ios!r}); "
                f"set appium:platformVersion in {self._caps.source}"
            )
        udid = _udid_of(self._said("udid"), details) or ""
        kind = self._kind or _kind_of(details, udid)
        name = self._name or self._said("deviceName") or _text(details.get("name")) or self._where()
        locale, appearance = locale_and_appearance(details)
        info = DeviceInfo(name=name, ios=ios, kind=kind, udid=udid, locale=locale, appearance=appearance)
        if settled:  # Rule 7: a 5xx that persisted is asked about again next time
            self._info = info
        return info

    def _android_info(self) -> DeviceInfo:
        """``_android`` Rule 2."""
        details, settled = self._device_details()
        api = self._said("deviceApiLevel") or _text(str(details.get("apiVersion", "")))
        if api is None or not api.isdigit():
            raise DeviceError(f"{self._where()} doesn't say the device's API level (deviceApiLevel: {api!r})")
        release = self._said("platformVersion") or _text(details.get("platformVersion"))
        udid = self._said("udid") or self._said("deviceUDID") or ""
        model = _text(details.get("model")) or self._said("deviceModel") or ""
        kind = self._kind or (DeviceKind.EMULATOR if emulator_of(udid, model) else DeviceKind.DEVICE)
        name = self._name or model or self._said("deviceName") or self._where()
        locale = None
        with contextlib.suppress(ValueError, TypeError):
            locale = normal_locale(str(details.get("locale", ""))) if details.get("locale") else None
        info = DeviceInfo(
            name=name,
            ios=api,
            kind=kind,
            udid=udid,
            locale=locale,
            appearance=self._night_mode(),
            release=release,
        )
        if settled:
            self._info = info
        return info

    def _night_mode(self) -> str | None:
        """``_android`` Rule 2: ``mobile: getUiMode {mode: "night"}``; a refusal leaves it unknown."""
        try:
            value = self._mobile("getUiMode", {"mode": "night"}, timeout=self._timeouts.read, begin=True)
        except DeviceError as exc:
            if isinstance(exc.__cause__, AppiumErrorReply) and exc.__cause__.error != _INVALID_SESSION:
                return None
            raise
        return {"yes": "dark", "no": "light"}.get(str(value).strip().lower())

    @property
    def asked_udid(self) -> str | None:
        """The phone the capabilities ask for (``appium:udid``), None when they leave it to the server."""
        return _text(_cap(self._requested(), "udid"))

    def start_session_sync(self) -> str | None:
        """Start the session now, and say which phone it landed on: its UDID, or None when unsaid.

        The UDID comes from the session's capabilities, else ``mobile: deviceInfo`` (Rule 7). A
        pool asks each of its Appium devices, so two that landed on one phone become one.
        """
        self._session()
        udid = self._said("udid")
        if udid is None:
            details, _ = self._device_details(begin=False)  # a session lost at once was claimed: say so
            udid = _udid_of(None, details)
        return udid

    def session_alive_sync(self) -> bool:
        """Whether the server still knows this device's session (``GET /session/{id}``; no session: False)."""
        session = self._session_id
        if session is None:
            return False
        try:
            self._wire.call("getSession", timeout=min(self._timeouts.read, 10.0), what="GET /session", session=session)
        except AppiumErrorReply as exc:
            return exc.error != _INVALID_SESSION
        except AppiumTransportError:
            return False
        return True

    def _requested(self) -> dict[str, Any]:
        return session_capabilities(self._caps, bundle=self._bundle, platform=self._platform)

    def _said(self, name: str) -> str | None:
        """A capability of the session as the server answered it, else as the caps asked for it (Rule 7).

        The server's answer first: real XCUITest fills ``platformVersion`` (the phone's lockdown, or the
        simulator's) and ``udid``, and keeps a given version as MAJOR.MINOR ("26" is "26.0").
        """
        return _text(_cap(self._session_caps, name)) or _text(_cap(self._requested(), name))

    def _device_details(self, *, begin: bool = True) -> tuple[Mapping[str, Any], bool]:
        """``mobile: deviceInfo`` (name, isSimulator, lockdownInfo, …), and whether that is settled.

        A server that refuses the command gives ``{}``, settled; a 5xx is asked once more, and
        one that persists gives ``{}``, not settled (Rule 7).
        """
        for attempt in (1, 2):
            try:
                value = self._mobile("deviceInfo", {}, timeout=self._timeouts.read, begin=begin)
            except DeviceError as exc:
                cause = exc.__cause__
                if not isinstance(cause, AppiumErrorReply) or cause.error == _INVALID_SESSION:
                    raise
                transient = not _refused(cause)
                if transient and attempt == 1:
                    _log.debug("%s: mobile: deviceInfo failed (%s); asking once more", self._where(), cause.detail)
                    continue
                return {}, not transient
            return (value if isinstance(value, Mapping) else {}), True
        return {}, False  # pragma: no cover - the loop returns

    def _app_info_sync(self, bundle: str) -> AppInfo:
        if self._session_id is None and self._bundle is None:
            self._bundle = bundle
        if self.is_android_sync():
            if not self._android.installed(bundle, self._timeouts.read):
                raise DeviceError(f"app_info: {bundle} is not installed on {self._display_name()}")
            return self._android.app_info(bundle)
        self._require_installed(bundle, "app_info")
        if self._info_sync().kind is DeviceKind.IPHONE:
            listed = self._listed(bundle)
            if listed is not None:
                return listed
        known = self._bundles.get(bundle)
        if known is not None:
            return AppInfo(bundle, known.version, known.build)
        return AppInfo(bundle)

    def _listed(self, bundle: str) -> AppInfo | None:
        """The app's version from ``mobile: listApps`` (real devices only), None when it says nothing."""
        try:
            value = self._mobile("listApps", {"applicationType": "User"}, timeout=self._timeouts.read, begin=True)
        except DeviceError as exc:
            if isinstance(exc.__cause__, AppiumErrorReply):
                _log.debug("mobile: listApps is not available: %s", exc)
                return None
            raise
        apps: list[Any] = value if isinstance(value, list) else [value]
        for item in apps:
            props = item.get(bundle) if isinstance(item, Mapping) else None
            if isinstance(props, Mapping):
                version = _text(props.get("CFBundleShortVersionString"))
                build = _text(props.get("CFBundleVersion"))
                if version or build:
                    return AppInfo(bundle, version, build)
        return None

    def _require_installed(self, bundle: str, what: str) -> None:
        """DeviceError when ``bundle`` isn't installed (Rule 6).

        ``mobile: isAppInstalled``; a server that refuses it (a cloud that allows only some
        ``mobile:`` commands) is asked ``mobile: queryAppState`` (0: unknown, not installed);
        when it refuses that too, the launch itself will say.
        """
        try:
            value = self._mobile("isAppInstalled", {"bundleId": bundle}, timeout=self._timeouts.read, begin=True)
        except DeviceError as exc:
            if not isinstance(exc.__cause__, AppiumErrorReply):
                raise
            _log.debug("mobile: isAppInstalled is not available (%s); asking queryAppState", exc)
            try:
                state = self._mobile("queryAppState", {"bundleId": bundle}, timeout=self._timeouts.read, begin=True)
            except DeviceError as again:
                if not isinstance(again.__cause__, AppiumErrorReply):
                    raise
                return
            value = not (isinstance(state, int) and not isinstance(state, bool) and state == 0)
        if not isinstance(value, bool):
            raise DeviceError(
                f"{what}: {self._where()} sent an answer to mobile: isAppInstalled that is not true or false"
            )
        if not value:
            raise DeviceError(f"{what}: {bundle} is not installed on {self._display_name()}")

    def _display_name(self) -> str:
        if self._info is not None:
            return self._info.name
        return self._name or _text(_cap(self._session_caps, "deviceName")) or f"the device behind {self._where()}"

    def _launch_sync(self, bundle: str, options: LaunchOptions) -> None:
        self._visibility.forget()
        if self._session_id is None and self._bundle is None:
            self._bundle = bundle
        if self.is_android_sync():
            self._launch_android(bundle, options)
            return
        self._require_installed(bundle, "launch")
        if options.reset is not Reset.NONE:
            _log.debug(
                "reset %s of %s: Appium can't wipe app data everywhere; relaunching as it is", options.reset, bundle
            )
        deadline = self._clock.now() + self._timeouts.launch  # Rule 6: the launch's commands share it
        self._mobile(
            "terminateApp",
            {"bundleId": bundle},
            timeout=self._left(deadline, bundle),
            action=f"terminating {bundle}",
            begin=True,
        )
        if options.permissions:
            self._preset(bundle, options.permissions, deadline)
        args = {"bundleId": bundle, "arguments": list(options.args), "environment": dict(options.env)}
        self._mobile("launchApp", args, timeout=self._left(deadline, bundle), action=f"launching {bundle}", begin=True)
        if options.url is not None:
            self._mobile(
                "deepLink",
                {"url": options.url, "bundleId": bundle},
                timeout=self._left(deadline, bundle),
                action=f"opening {options.url}",
                begin=True,
            )

    def _launch_android(self, bundle: str, options: LaunchOptions) -> None:
        """``_android`` Rule 5: the commands share the launch's time (as Rule 6)."""
        deadline = self._clock.now() + self._timeouts.launch
        if not self._android.installed(bundle, self._left(deadline, bundle)):
            raise DeviceError(f"launch: {bundle} is not installed on {self._display_name()}")
        api = self._info_sync().ios_major
        activity = _text(_cap(self._requested(), "appActivity"))
        self._android.launch(bundle, options, api=api, activity=activity, left=lambda: self._left(deadline, bundle))

    def _remaining(self, deadline: float) -> float:
        """The seconds left to ``deadline``, in hundredths (said as 1.99 s), never past it."""
        return math.floor((deadline - self._clock.now()) * 100) / 100

    def _left(self, deadline: float, bundle: str) -> float:
        """Rule 6: what is left of the launch's time; none left is a ``DeviceError``, nothing sent."""
        left = self._remaining(deadline)
        if left <= 0:
            spent = self._timeouts.launch
            raise DeviceError(f"launching {bundle} on {self._where()} took longer than its {spent:g} s timeout")
        return left

    def _preset(self, bundle: str, permissions: Mapping[str, bool], deadline: float) -> None:
        """Rule 6: the launch's permissions set on a simulator session, else left to the alert policy."""
        info = self._info
        access, left = permission_access(permissions)
        if info is None or info.kind is not DeviceKind.SIMULATOR or not access:
            _log.debug("permissions of %s not set before the launch; their prompts are answered as they show", bundle)
            return
        if left:
            _log.debug("XCUITest can't set %s; their prompts are answered as they show", ", ".join(left))
        try:
            self._mobile("setPermission", {"bundleId": bundle, "access": access}, timeout=self._left(deadline, bundle))
        except DeviceError as exc:
            if self._remaining(deadline) <= 0:  # it hung: the launch's time is spent, and it would queue behind it
                spent = self._timeouts.launch
                raise DeviceError(f"{exc}; {bundle} was not launched: its {spent:g} s launch timeout is spent") from exc
            if not self._told_permissions:
                self._told_permissions = True
                _log.warning("%s; the check's alerts policy answers the permission prompts as they show instead", exc)

    def read_sync(self) -> Screen:
        """The blocking form of :meth:`read`."""
        return self._read(SOURCE_ARGS)

    def read_evidence_sync(self) -> Screen:
        """The blocking form of :meth:`read_evidence`."""
        return self._read(EVIDENCE_ARGS)

    def check_target_sync(self, element: Element) -> bool:
        """The blocking form of :meth:`check_target` (Android: the read is the phone's own account, always True)."""
        if self.is_android_sync():
            return True
        return self._visibility.check_target(element)

    def _read(self, source_args: Mapping[str, str]) -> Screen:
        if self.is_android_sync():
            return self._android.read()
        front = self._mobile("activeAppInfo", {}, timeout=self._timeouts.read)
        bundle = front.get("bundleId") if isinstance(front, Mapping) else None
        if not isinstance(bundle, str) or not bundle:
            raise DeviceError(f"{self._where()} sent no bundleId for the app in front: {self.scrub(repr(front))[:80]}")
        tree = self._mobile("source", dict(source_args), timeout=self._timeouts.read)
        read = read_tree(tree, bundle, size=self._size, window_size=self._window_size, where=self._where())
        self._size = read.screen.size
        if read.evidence and source_args is SOURCE_ARGS and not self._told_full_source:
            self._told_full_source = True
            _log.info(
                "%s keeps WDA's visible in the JSON source it was asked to leave it out of (WebDriverAgent before "
                "8.11): every read costs as much as the verdict's; update the XCUITest driver to read faster",
                self._where(),
            )
        return self._visibility.screen(read)

    def _visible_elements(self, query: str) -> Any:
        """One visibility query (Rule 4c); ``QueryRefused`` when Appium itself refuses it."""
        self._prepare_queries()
        params = {"using": QUERY_STRATEGY, "value": query}
        try:
            return self._call("findElements", params, what="POST /elements", timeout=self._timeouts.read)
        except DeviceError as exc:
            cause = exc.__cause__
            if isinstance(cause, AppiumErrorReply) and cause.error != _INVALID_SESSION and _refused(cause):
                raise QueryRefused(str(exc)) from exc
            raise

    def _prepare_queries(self) -> None:
        """Once a session: no implicit wait, and element replies that say which element (Rule 4c)."""
        session = self._session()
        if self._queries_ready == session:
            return
        steps = (
            ("setTimeouts", {"implicit": 0}, "POST /timeouts"),
            ("updateSettings", {"settings": dict(QUERY_SETTINGS)}, "POST /appium/settings"),
        )
        for command, params, what in steps:
            try:
                self._call(command, params, what=what, timeout=self._timeouts.read)
            except DeviceError as exc:
                cause = exc.__cause__
                if not isinstance(cause, AppiumErrorReply) or cause.error == _INVALID_SESSION:
                    raise
                _log.debug("%s: %s was refused; visibility queries go on without it", self._where(), what)
        self._queries_ready = session

    def _window_size(self) -> tuple[int, int]:
        value = self._call("getWindowRect", what="GET /window/rect", timeout=self._timeouts.read)
        return replies.window_size(value, self._where(), "a window rect")

    def _screen_size(self) -> tuple[int, int]:
        if self._size is None:
            self._size = self._window_size()
        return self._size

    def _act_sync(self, action: Action) -> None:
        self._visibility.forget()
        if self.is_android_sync():
            self._android.act(action)
            return
        move = gesture(action, self._screen_size)  # Rule 5
        what, timeout = move.what, self._timeouts.action
        if move.long:
            x, y = move.point
            self._mobile(
                "touchAndHold", {"x": x, "y": y, "duration": move.hold_ms / 1000}, timeout=timeout, action=what
            )
        elif move.move is Move.PRESS:
            x, y = move.point
            self._mobile("tap", {"x": x, "y": y}, timeout=timeout, action=move.press_what)
        if move.keys is not None:
            self._type(move.keys, what)
        elif move.move is Move.SWIPE:
            fx, fy, tx, ty = move.swipe
            args = {"fromX": fx, "fromY": fy, "toX": tx, "toY": ty, "duration": SWIPE_SECONDS}
            self._mobile("dragFromToForDuration", args, timeout=timeout, action=what)
        elif move.move is Move.HOME:
            self._mobile("pressButton", {"name": "home"}, timeout=timeout, action=what)
        elif move.move is Move.ACTIVATE:
            self._mobile("activateApp", {"bundleId": move.target}, timeout=self._timeouts.launch, action=what)
        elif move.move is Move.OPEN_URL:
            self._mobile("deepLink", {"url": move.target}, timeout=self._timeouts.launch, action=what)
        elif move.move is Move.DISMISS_KEYBOARD:
            self._mobile("hideKeyboard", {"keys": list(KEYBOARD_KEYS)}, timeout=timeout, action=what)

    def _type(self, text: str, what: str) -> None:
        """Send ``text`` to the element with the keyboard focus (Rule 5)."""
        try:
            element = self._call("w3cGetActiveElement", what="GET /element/active", timeout=self._timeouts.read)
        except DeviceError as exc:
            cause = exc.__cause__
            if isinstance(cause, AppiumErrorReply) and cause.error == "no such element":
                raise DeviceError(f"{what}: no element has the keyboard focus; nothing was typed") from cause
            raise
        ref = next(
            (element[k] for k in _ELEMENT_KEYS if isinstance(element, Mapping) and isinstance(element.get(k), str)),
            None,
        )
        if ref is None:
            raise DeviceError(f"{what}: {self._where()} sent an active element that is not an element reference")
        args = {"id": ref, "text": text, "value": list(text)}
        self._call(
            "sendKeysToElement", args, what="POST /element/{id}/value", timeout=self._timeouts.action, action=what
        )

    def _screenshot_sync(self) -> bytes:
        value = self._call("screenshot", what="GET /screenshot", timeout=self._timeouts.read)
        return replies.screenshot_png(value, self._where())

    def _report_sync(self, name: str, verdict: Verdict, reason: str) -> bool:
        provider, session = self._provider, self._session_id
        if provider is None or session is None:
            return False
        done = True
        for script in provider_scripts(provider, self.scrub(name), verdict, self.scrub(reason)):
            what = f"telling {provider.value} the session's name and verdict"
            try:
                self._wire.call(
                    "w3cExecuteScript",
                    {"script": script, "args": []},
                    timeout=self._timeouts.read,
                    what=what,
                    session=session,
                )
            except AppiumTransportError as exc:
                _log.debug("%s failed: %s", what, self.scrub(str(exc)))
                done = False
        return done

    def _name_sync(self, name: str) -> None:
        if self._provider is not None and self._session_id is not None:
            # Rule 2 of _provider: a verdict it doesn't mark sends the name only.
            self._report_sync(name, Verdict.NEEDS_REVIEW, "")

    def _end_session_sync(self, timeout: float = 10.0) -> None:
        with self._session_lock:
            session, self._session_id = self._session_id, None
            self._session_caps, self._info, self._size = {}, None, None
            self._queries_ready = None
            self._android.latest = None
        self._visibility.reset()
        if session is not None:
            self._delete(session, timeout)

    def _delete(self, session: str, timeout: float) -> None:
        """``DELETE /session/{id}``, best effort, bounded: ending a session must not hold up a suite."""
        try:
            self._wire.call("quit", timeout=min(self._timeouts.read, timeout), what="DELETE /session", session=session)
        except AppiumTransportError as exc:
            _log.debug("ending the Appium session failed (the server ends it after newCommandTimeout): %s", exc)

    # -- sessions and commands ---------------------------------------------------------------

    def _session(self) -> str:
        """The session, created on first need; the lock is never held while the server is asked (Rule 3a)."""
        with self._session_lock:
            if self._session_id is not None:
                return self._session_id
            if self._closed:
                raise DeviceError(f"{self._where()}: the device was closed; nothing was sent")
            self._making += 1
        try:
            session, caps = self._create_session()
            with self._session_lock:
                kept = not self._closed and self._session_id is None
                if kept:
                    self._session_id, self._session_caps = session, caps
                    self._last_command = self._clock.now()
            if not kept:
                self._delete(session, 5.0)  # closed (or made twice) while it was being made: not leaked
                raise DeviceError(f"{self._where()}: the device was closed while its session was made; it was ended")
            return session
        finally:
            with self._session_lock:  # a close with grace waits for this: the made session kept or deleted
                self._making -= 1
                self._made.notify_all()

    def _drop_session(self, stale: str) -> None:
        """Give up on a stale session: forget it, and delete it (Rule 3)."""
        with self._session_lock:
            if self._session_id != stale:
                return
            self._session_id, self._session_caps, self._info, self._size = None, {}, None, None
            self._queries_ready = None
            self._android.latest = None
        self._visibility.reset()
        self._delete(stale, 10.0)

    def _create_session(self) -> tuple[str, Mapping[str, Any]]:
        from appium.options.common.base import AppiumOptions

        body = AppiumOptions().load_capabilities(self._requested()).to_w3c()
        try:
            reply = self._wire.call("newSession", body, timeout=self._timeouts.session, what="POST /session")
        except AppiumErrorReply as exc:
            hint = ""
            if exc.status in (401, 403) or exc.error == "unauthorized":
                hint = f"; check the user name and access key in {self._caps.source}"
            elif _NO_USBMUXD.search(exc.message):
                hint = self._usbmuxd_hint()
            raise DeviceError(self.scrub(f"{self._where()} refused a new session: {exc.detail}{hint}")) from exc
        except AppiumUnreachable as exc:
            raise DeviceError(
                self.scrub(
                    f"{self._where()} isn't answering ({exc.detail}): is the Appium server running there? "
                    "See docs/scale.md"
                )
            ) from exc
        except AppiumTransportError as exc:
            kind = "a bad reply" if isinstance(exc, AppiumBadReply) else "no complete reply"
            raise DeviceError(
                self.scrub(
                    f"{self._where()} sent {kind} to POST /session ({exc.detail}); if a session was made, "
                    "the server ends it after its newCommandTimeout"
                )
            ) from exc
        value = reply.value if isinstance(reply.value, Mapping) else {}
        session = reply.session_id or value.get("sessionId")
        if not isinstance(session, str) or not session:
            raise DeviceError(f"{self._where()} created a session without a sessionId")
        caps = value.get("capabilities")
        _log.debug("Appium session %s at %s", session, self.url)
        return session, dict(caps) if isinstance(caps, Mapping) else {}

    def _usbmuxd_hint(self) -> str:
        """What to change when the server refused the session for want of the phone's lockdown (usbmuxd)."""
        asked = self._requested()
        fixes = [] if _text(_cap(asked, "platformVersion")) else ["set appium:platformVersion"]
        fixes += ["remove appium:bundleId"] if "appium:bundleId" in asked else []
        if not fixes:
            return ""
        return (
            f"; that server has no usbmuxd to ask the phone's lockdown (a networked WebDriverAgent): "
            f"{' and '.join(fixes)} in {self._caps.source} (docs/drivers.md#appium-on-linux-and-usbmuxd)"
        )

    def _mobile(
        self, name: str, args: Mapping[str, Any], *, timeout: float, action: str | None = None, begin: bool = False
    ) -> Any:
        """One ``mobile:`` command through ``execute/sync``."""
        params = {"script": f"mobile: {name}", "args": [dict(args)]}
        return self._call(
            "w3cExecuteScript", params, what=f"mobile: {name}", timeout=timeout, action=action, begin=begin
        )

    def _call(
        self,
        command: str,
        params: Mapping[str, Any] | None = None,
        *,
        what: str,
        timeout: float,
        action: str | None = None,
        begin: bool = False,
    ) -> Any:
        """One command in the session; ``action`` names an action (Rule 2), ``begin`` a check's start (Rule 3)."""
        for attempt in (1, 2):
            session = self._session()
            try:
                value = self._wire.call(command, params, timeout=timeout, what=what, session=session).value
            except AppiumErrorReply as exc:
                gone = _SERVER_GONE.search(exc.message) is not None  # _android Rule 8
                if exc.error == _INVALID_SESSION or gone:
                    idle = self._idle()
                    self._drop_session(session)
                    if begin and attempt == 1:
                        _log.debug("the Appium session ended (idle %.0f s); starting a new one", idle)
                        continue
                    if gone:
                        raise self._server_gone(what, action) from exc
                    raise self._stale(what, action, idle) from exc
                raise self._failure(exc, action) from exc
            except AppiumTransportError as exc:
                raise self._failure(exc, action) from exc
            self._last_command = self._clock.now()
            return value
        raise DeviceError(f"{self._where()} ended two sessions in a row before {what}")  # pragma: no cover

    def _idle(self) -> float:
        return 0.0 if self._last_command is None else max(0.0, self._clock.now() - self._last_command)

    def _stale(self, what: str, action: str | None, idle: float) -> DeviceError:
        timeout = self._requested().get("appium:newCommandTimeout")
        subject = f"{action}: " if action else ""
        return DeviceError(
            f"{subject}{self._where()} no longer knows the session ({what}: 'invalid session id', {idle:.0f} s after "
            f"the last command; newCommandTimeout is {timeout} s, or the provider or the server ended it); nothing "
            "was done. The next check starts a new session"
        )

    def _server_gone(self, what: str, action: str | None) -> DeviceError:
        subject = f"{action}: " if action else ""
        return DeviceError(
            f"{subject}{self._where()} says the UiAutomator2 server on the device stopped ({what}: its instrumentation "
            "process is not running); nothing was done. The session was ended: the next check starts a new one, "
            "which starts the server again"
        )

    def _failure(self, exc: AppiumTransportError, action: str | None) -> DeviceError:
        where, what, detail = self._where(), exc.what, exc.detail
        if isinstance(exc, AppiumUnreachable):
            hint = "is the Appium server running there? See docs/scale.md"
            return DeviceError(self.scrub(replies.not_answering(where, what, detail, action=action, hint=hint)))
        if action is None:
            how: replies.Failed = "bad reply" if isinstance(exc, AppiumBadReply) else "error"
            how = "no reply" if isinstance(exc, AppiumNoReply) else how
            return DeviceError(self.scrub(replies.failed_read(where, what, detail, how, hint=_STUCK)))
        if isinstance(exc, AppiumErrorReply) and _refused(exc):
            return DeviceError(self.scrub(replies.refused(action, where, what, detail)))
        kind = "a bad reply" if isinstance(exc, AppiumBadReply) else "no complete reply"
        kind = "an error" if isinstance(exc, AppiumErrorReply) else kind
        return UnknownOutcome(self.scrub(replies.unknown_outcome(action, where, kind, what, detail)))


#: The UiAutomator2 driver's words when the server's ``am instrument`` ended (``uiautomator2-server/core.ts:59-76``).
_SERVER_GONE = re.compile(r"cannot be proxied to UiAutomator2 server because the instrumentation process is not")
#: XCUITest's words when its host has no usbmuxd (appium-ios-device's; the path is the server's).
_NO_USBMUXD = re.compile(r"usbmuxd socket path '[^']*' does not exist or is not accessible")


def _refused(exc: AppiumErrorReply) -> bool:
    return exc.error in REFUSED_ERRORS or (exc.status is not None and 400 <= exc.status < 500)


def _cap(caps: Mapping[str, Any], name: str) -> Any:
    return caps.get(f"appium:{name}", caps.get(name))


def _udid_of(said: str | None, details: Mapping[str, Any]) -> str | None:
    """The phone's UDID (Rule 7): the capabilities' (``said``), the phone's lockdown values, else WDA's id."""
    lockdown = details.get("lockdownInfo")
    lockdown = lockdown if isinstance(lockdown, Mapping) else {}
    return said or _text(lockdown.get("UniqueDeviceID")) or _text(details.get("uuid"))


def _kind_of(details: Mapping[str, Any], udid: str) -> DeviceKind:
    flag = replies.simulator_flag(details)
    if flag is not None:
        return DeviceKind.SIMULATOR if flag else DeviceKind.IPHONE
    if _SIMULATOR_UDID.fullmatch(udid):
        return DeviceKind.SIMULATOR
    return DeviceKind.IPHONE


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None
