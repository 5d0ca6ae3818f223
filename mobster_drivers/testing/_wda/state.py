"""What WDA keeps on the phone's loop, and the one narrow interface every route family uses.

Everything here lives on the phone's event loop (Rule 3, ``wda``): the session, its settings, the
text field a tap focused, the apps launched and their arguments, the element cache and what the
device keeps beyond its screen. A route family reads and changes it only through :class:`Wda`'s
methods and its public attributes; the server (``wda``) starts and restarts it.

Rule 10: ``/appium/settings`` keeps the settings WDA 9 knows and ignores the rest, as WDA does
         (``snapshotTimeout`` and ``customSnapshotTimeout`` were removed in WDA 9: PR #970).
Rule 13: the routes that act on an element take it from WDA's element cache (``FBElementCache``):
         every element a lookup or the active element hands out is kept (1024 at most, the oldest
         go first) under a stable id, for its app, screen and tree path; an id the cache doesn't
         know is 404 ``stale element reference`` "The element identified by … is either not
         present or it has expired from the internal cache", one whose element is gone from the
         screen the same code, "The previously found element … is not present in the current view
         anymore". (The gestures and typing of Rule 13 are ``actions``'s.)
"""

from __future__ import annotations

import copy
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from mobster_core import Action, DeviceError, Element, LaunchOptions, Screen, SystemClock, UnknownOutcome
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone

from .costs import ReadCosts
from .tree import node_at, screen_tree
from .wire import LostReply, WdaFailure

__all__ = ["SETTINGS", "Cached", "DeviceState", "Focus", "Target", "Wda"]

#: How many elements WDA's element cache keeps (``FBElementCache``: the oldest go first).
_CACHE_SIZE = 1024
#: The settings WDA 9 keeps (``FBSessionCommands``' settings handlers), with its defaults (Rule 10).
SETTINGS: Mapping[str, Any] = {
    "shouldUseCompactResponses": True,
    "elementResponseAttributes": "type,label",
    "mjpegServerScreenshotQuality": 25,
    "mjpegServerFramerate": 10,
    "mjpegScalingFactor": 100,
    "screenshotQuality": 3,
    "keyboardAutocorrection": False,
    "keyboardPrediction": False,
    "snapshotMaxDepth": 50,
    "useFirstMatch": False,
    "waitForIdleTimeout": 10,
    "animationCoolOffTimeout": 2,
    "boundElementsByIndex": False,
    "reduceMotion": False,
    "defaultActiveApplication": "auto",
    "activeAppDetectionPoint": "64.00,64.00",
    "includeNonModalElements": False,
    "acceptAlertButtonSelector": "",
    "dismissAlertButtonSelector": "",
    "defaultAlertAction": "",
    "screenshotOrientation": "auto",
}


@attrs.define
class Focus:
    """The text field a tap focused: it takes the keys while its screen is in front."""

    app: str
    screen: str | None
    path: str
    pair: tuple[str, str]


@attrs.frozen
class Cached:
    """An element WDA handed out (Rule 13): where it was, and what it was."""

    app: str
    screen: str | None
    path: str
    pair: tuple[str, str | None]


@attrs.frozen
class Target:
    """What an element route acts on: the element's node in the tree (the app's root without an id).

    ``element`` is the phone's element at that path (None for the app itself, or a captured
    tree's node, which the static phone doesn't model).
    """

    node: dict[str, Any]
    element: Element | None = None
    uuid: str | None = None

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """The node's rect in points: ``(x, y, width, height)``."""
        rect = self.node.get("rect", {})
        return tuple(float(rect.get(k, 0)) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]

    @property
    def centre(self) -> tuple[float, float]:
        """The middle of the rect, in points."""
        x, y, w, h = self.rect
        return x + w / 2, y + h / 2


@attrs.define
class DeviceState:
    """What the device keeps beyond its screen, as WDA's routes set it (the ``device`` routes)."""

    appearance: str = "light"
    location: tuple[float, float] | None = None
    pasteboard: dict[str, bytes] = attrs.field(factory=dict)
    voiceover: bool = False
    video: dict[str, Any] | None = None


class Wda:
    """WebDriverAgent's state on the phone's loop, and what every route family does with it.

    ``script`` is the app script the phone runs; ``costs`` what replies cost (Rule 11, ``costs``;
    None: nothing); ``static`` a captured tree and its bundle, served as a static app (Rule 12,
    ``tree``). The families read ``phone``, ``script``, ``costs`` and ``device`` (what the device
    keeps beyond its screen, which the ``device`` routes set) and change the rest through methods.
    """

    def __init__(
        self, script: AppScript, costs: ReadCosts | None = None, static: tuple[dict[str, Any], str] | None = None
    ) -> None:
        self._script = script
        self._costs = costs
        self._phone = ScriptedPhone(script, clock=SystemClock())
        self._static = static
        self._device = DeviceState()
        self._session: str | None = None
        self._settings: dict[str, Any] = dict(SETTINGS)
        self._focus: Focus | None = None
        self._launched: dict[str, LaunchOptions] = {}
        self._pids = {b: 1000 + i for i, b in enumerate(script.apps)}
        self._element_cache: OrderedDict[str, Cached] = OrderedDict()  # Rule 13

    @property
    def phone(self) -> ScriptedPhone:
        """The scripted phone behind the fake."""
        return self._phone

    @property
    def script(self) -> AppScript:
        """The app script the phone runs (for a captured tree, the one app standing in for it)."""
        return self._script

    @property
    def costs(self) -> ReadCosts | None:
        """What replies cost on real WDA (Rule 11, ``costs``), None when they cost nothing."""
        return self._costs

    @property
    def device(self) -> DeviceState:
        """What the device keeps beyond its screen (the ``device`` routes set it)."""
        return self._device

    @property
    def static_bundle(self) -> str | None:
        """The bundle of the captured tree served as a static app, None for an app script (Rule 12, ``tree``)."""
        return None if self._static is None else self._static[1]

    # -- the session and its settings (Rule 10) ------------------------------------------------

    @property
    def session(self) -> str | None:
        """The current session, None when there is none."""
        return self._session

    @property
    def settings(self) -> Mapping[str, Any]:
        """The session settings WDA holds now (read-only; Rule 10)."""
        return MappingProxyType(self._settings)

    def open_session(self) -> str:
        """A new session, which ends the one before (``FBSessionCommands.m:93``): its id."""
        self._session = secrets.token_hex(16).upper()
        self._focus = None
        self._element_cache.clear()
        return self._session

    def end_session(self) -> None:
        """``DELETE /session/{id}``: no session, and the elements it handed out forgotten."""
        self._session = None
        self._element_cache.clear()

    def restart(self) -> None:
        """WDA restarted: every session becomes stale and settings go; the apps keep running."""
        self._session = None
        self._settings = dict(SETTINGS)
        self._focus = None
        self._element_cache.clear()

    def update_settings(self, settings: Mapping[str, Any]) -> None:
        """Keep the settings WDA 9 knows, and let the rest go unnoticed (Rule 10)."""
        for key, value in settings.items():
            if key in SETTINGS:
                self._settings[key] = value

    # -- the phone -----------------------------------------------------------------------------

    async def act(self, action: Action) -> None:
        try:
            await self.phone.act(action)
        except UnknownOutcome as exc:
            raise LostReply from exc
        except DeviceError as exc:
            raise WdaFailure(500, "unknown error", str(exc)) from exc

    async def launch(self, bundle: str, arguments: Any, environment: Any) -> None:
        args = [str(a) for a in arguments] if isinstance(arguments, list) else []
        env = {str(k): str(v) for k, v in environment.items()} if isinstance(environment, Mapping) else {}
        options = LaunchOptions(args=args, env=env)
        try:
            await self.phone.launch(bundle, options)
        except DeviceError as exc:
            raise WdaFailure(500, "unknown error", f"Cannot launch {bundle}: {exc}") from exc
        self._launched[bundle] = options
        self._focus = None

    def terminate(self, bundle: str) -> bool:
        was_running = self.phone.terminate(bundle)
        if self._focus is not None and self._focus.app == bundle:
            self._focus = None
        return was_running

    def app_name(self, bundle: str) -> str:
        app = self.script.apps.get(bundle)
        return app.name if app is not None else "SpringBoard"

    def now_screen(self) -> tuple[Screen, list[Any]]:
        """The screen as a read would return it now, and the simulation's nodes.

        Without a read's latency or faults: a tap must not use up an injected read failure.
        """
        return self.phone.peek()

    def focus_on(self, element: Element) -> None:
        """The text field on the screen in front takes the keys from now on."""
        front = self.phone.front
        self._focus = Focus(front, self.phone.screen_name(front), element.path, element.pair)

    def unfocus(self) -> None:
        """No field takes the keys (a tap elsewhere, another screen, another app)."""
        self._focus = None

    def focused_field(self) -> Element | None:
        """The text field a tap focused, while its screen is in front (on the phone's loop: ``run``); else None."""
        focus = self._focus
        if focus is None:
            return None
        front = self.phone.front
        if front != focus.app or self.phone.screen_name(front) != focus.screen:
            return None
        screen, _ = self.now_screen()
        element = screen.element_at(focus.path)
        if element is None or element.pair != focus.pair:
            return None
        return element

    def launched_with(self, bundle: str) -> LaunchOptions:
        """The arguments and environment an app was last launched with through WDA (none: empty)."""
        return self._launched.get(bundle, LaunchOptions())

    def pid(self, bundle: str) -> int:
        """The process id WDA reports for an app (SpringBoard's: 50)."""
        return self._pids.get(bundle, 50)

    # -- the source and the element cache (Rule 13) ---------------------------------------------

    def tree(self, screen: Screen) -> dict[str, Any]:
        """The app in front as WDA's JSON source with every attribute (Rules 4 and 12, ``tree``)."""
        if self._static is not None and screen.app == self._static[1]:
            return copy.deepcopy(self._static[0])
        return screen_tree(screen, self.script.size, self.app_name(screen.app), self.pid(screen.app))

    def remember(self, node: Mapping[str, Any], path: str, app: str) -> str:
        """Keep an element WDA hands out and return its id (Rule 13): the same element, the same id."""
        cached = Cached(app, self.phone.screen_name(app), path, (str(node.get("type")), node.get("label")))
        ref = str(uuid.uuid5(uuid.NAMESPACE_OID, repr((self._session, cached)))).upper()
        self._element_cache[ref] = cached
        self._element_cache.move_to_end(ref)
        while len(self._element_cache) > _CACHE_SIZE:
            self._element_cache.popitem(last=False)
        return ref

    def resolve(self, ref: str) -> Target:
        """A cached element as it is now (Rule 13); WDA's ``stale element reference`` when it is gone."""
        cached = self._element_cache.get(ref)
        if cached is None:
            raise WdaFailure(
                404,
                "stale element reference",
                f'The element identified by "{ref}" is either not present or it has expired from the internal '
                "cache. Try to find it again",
            )
        screen, _ = self.now_screen()
        node = node_at(self.tree(screen), cached.path) if screen.app == cached.app else None
        here = node is not None and (str(node.get("type")), node.get("label")) == cached.pair
        if not here or self.phone.screen_name(cached.app) != cached.screen:
            role, label = cached.pair
            raise WdaFailure(
                404,
                "stale element reference",
                f"The previously found element \"{role}, label: '{label}'\" is not present in the current view "
                "anymore. Make sure the application UI has the expected state",
            )
        assert node is not None
        return Target(node, screen.element_at(cached.path), ref)

    def path_of(self, ref: str) -> str:
        """The tree path a cached element was handed out at (``ref`` is in the cache)."""
        return self._element_cache[ref].path

    def app_target(self) -> Target:
        screen, _ = self.now_screen()
        return Target(self.tree(screen))
