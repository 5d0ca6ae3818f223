"""The scripted phone: a simulated iPhone (or Android phone: Rule 16) that runs an app script on a given clock.

Rule 1: all waiting goes through the injected :class:`~mobster_core.Clock`: on a ``FakeClock`` a
        2.6-second launch takes no real time, on the ``SystemClock`` it takes 2.6 seconds.
Rule 2: the simulation (``_Sim``) is pure: it is told ``now`` and never waits. ``ScriptedPhone`` is
        the thin shell that sleeps the latency and asks the simulation what happened.
Rule 3: every action is recorded in ``phone.actions`` first, then checked against the screen as a
        read would return it at that moment. An element that is not there (same path, role and
        label) or a ``TYPE`` into something that takes no typing is a ``DeviceError``: nothing was
        sent and nothing happened.
Rule 4: a tap's effect (the next screen, the home screen, another app) happens ``transition``
        seconds after the tap returns; until then reads show the old screen. An app icon's tap
        brings the app to front ``launch`` seconds after the tap returns. ``HOME``, ``LAUNCH_APP``
        and ``OPEN_URL`` have taken effect when they return.
Rule 5: paths are computed over the elements present at read time, as on a real phone: an element
        absent because of ``after``/``until`` shifts the indexes of the siblings after it.
Rule 6: typed text belongs to the running app: it persists across its screens and trips home, and
        is gone when the app is launched again (with or without a reset).
Rule 7: a relaunch cancels the effects still pending from the relaunched app's taps.
Rule 8: while a transition runs, the old screen moves, as an animating screen does on a phone: its
        elements slide and narrow (x and width shrink by up to half), so two reads in a row don't
        agree until the next screen has appeared. Labels, roles and paths stay as they were.
Rule 10 (system prompts, the script's Rule 8): a launch that starts an app (``launch``, a first
        ``LAUNCH_APP``, an icon's tap) raises its prompts not yet answered on this install, one at
        a time, and a deep link of an ``open_in`` app raises "Open in “App”?" before the app opens
        it. While one is shown a read is SpringBoard's: the alert, its texts, then its buttons, in
        the order the script gives them; a tap on a button, or :meth:`ScriptedPhone.answer_alert`,
        answers it. An answer is remembered until a launch with ``reset: reinstall`` (a prompt with
        ``again: true`` comes back on every launch). On a ``simulator``, the services a launch
        sets (``LaunchOptions.permissions``, as ``simctl privacy`` does) count as answered.
        "Open" carries the link out; "Cancel" leaves the app where it was.
Rule 11 (the keyboard, the script's Rule 9): in an app with ``keyboard: true``, a tap on a text field
        or typing into it gives it the focus, and while its screen is in front a ``Keyboard``
        covers the bottom of the screen (with a ``return`` key). ``SUBMIT``, ``DISMISS_KEYBOARD``,
        a tap on the return key, another screen, home or a relaunch take the focus away.
Rule 9: an app runs in a locale: the phone's (``device.locale``), or the one it was launched in, by
        ``-AppleLanguages``/``-AppleLocale`` launch arguments as a real app reads them, or by
        ``LaunchOptions.locale`` on a ``simulator`` (``launches_in_locale``; an ``iphone`` can't, as a
        real one can't). It shows its labels in that locale (the script's ``locales``).
Rule 12 (one request at a time): the phone serves its requests (reads, screenshots, actions,
        launches) one at a time, in the order they came, as WebDriverAgent serves them on its main
        thread: a read sent while a screenshot is being taken starts when the screenshot is done. A
        request given up on (its caller cancelled) still holds the phone until its time is up, as
        WDA finishes a command whose client stopped waiting. ``one_at_a_time=False`` serves each at
        once, beside the others (the model before this rule). With ``separate_screenshots`` the
        screenshots come by a channel of their own (a simulator's ``simctl io``, the DVT service
        over USB, WDA's MJPEG stream), one at a time there, beside the other requests.
Rule 13 (a screenshot's cost): a screenshot takes ``latency.screenshot`` seconds (the read's when
        the script doesn't say) at one pixel per point, and more with more pixels, as a screenshot
        encoded on the phone does: :func:`screenshot_seconds` (a fixed part and a part per
        megapixel, 0.234 s at 402 x 874 growing to 1.0 s at 1206 x 2622 for the ``usb-iphone``
        profile's 0.234 s).
Rule 14: Apple's accessibility audit (``protocols.Audits``) finds on the screen in front what the
        app script's ``audit`` declares for it, for the elements present now, named as WDA names
        them; an app without ``audit``, the home screen, or iOS before 17 can't be audited (the
        report says why). An audit takes ``latency.read`` seconds. Settings a check applies
        (``protocols.DeviceControls``, a simulator only) are kept in :attr:`ScriptedPhone.settings`.
Rule 16 (Android, the script's Rule 12): a phone of ``platform: android`` is an Android phone on the
        same simulation. Its home screen is the launcher (``com.android.launcher3``); its
        permission prompts show in Google's PermissionController (``com.google.android.
        permissioncontroller``), as a read of the dialog's window has them (an ``Alert``, its
        message, its buttons); a deep link of an ``open_in`` app raises the "Open with" chooser
        (Just once, Always) when the link names no package (``OPEN_URL``), never for a launch
        with ``launch.url`` (the driver names the app's package, so Android asks no one); its
        keyboard is the input method's window, a ``Keyboard`` with no keys (the active window's
        tree doesn't hold them). ``BACK`` (the system back button, ``latency.tap`` seconds) closes
        the prompt shown (declining it, as AOSP's GrantPermissionsActivity takes back as a denial),
        else the keyboard, else goes to the app's previous screen (each app keeps the screens it
        came through, its back stack), else leaves the app for the home screen (the app keeps
        running), as Android's does; a screen change comes ``transition`` seconds later. It grants
        a launch's permissions before the launch on an emulator and a device alike (``pm grant``),
        and launches an app in a locale from API 33 (``cmd locale set-app-locales``). The check's
        device steps, device settings and Apple's audit are iOS's: it refuses them. An iPhone has
        no ``BACK``: a ``DeviceError``, nothing sent.
Rule 15 (device steps, the script's Rule 11; ``protocols.DeviceEvents``, a simulator only): every
        device step sent is kept in :attr:`ScriptedPhone.events`, after ``latency.tap`` seconds.
        A biometric match (or failed match) on a screen the app in front declares in
        ``biometric`` moves it to that screen's ``match`` (or ``fail``) screen ``transition``
        seconds later; elsewhere it changes nothing, as a real simulator ignores a match with no
        prompt up. A push to the app in front moves it to its ``push`` screen, if it has one. An
        ``iphone`` refuses both, and so does a push to an app that isn't installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import os
from collections.abc import AsyncIterator, Mapping, Sequence

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
    UnknownOutcome,
)
from mobster_core.protocols import SPRINGBOARD, AuditIssue, AuditReport, DeviceEvent, DeviceSettings, Platform
from mobster_core.text import normal_locale

from ._draw import DEFAULT_SCALE, ScreenRenderer
from ._script import (
    ANDROID_PROMPT_APP,
    EPSILON,
    KEYBOARD_HEIGHT,
    TEXT_ROLES,
    AppScript,
    Latency,
    Prompt,
    ScriptedApp,
    ScriptedElement,
    TapKind,
    open_in_prompt,
    open_with_prompt,
)

__all__ = ["ScriptedPhone", "screenshot_seconds"]

_log = logging.getLogger("mobster.drivers.scripted")

# The home screen: four icons a row, as on an iPhone.
_ICON_COLUMNS = 4
_ICON_LEFT, _ICON_STEP, _ICON_WIDTH = 0.05, 0.235, 0.2
_ICON_TOP, _ICON_PITCH, _ICON_SPAN = 0.08, 0.12, 0.84

FieldKey = tuple[str, tuple[int, ...]]  # (screen name, position of the element in the script)

#: Rule 13: a screenshot's cost on the phone, a fixed part and a part per megapixel (seconds), in
#: proportion: fitted to 0.234 s at 402 x 874 pixels and 1.0 s at 1206 x 2622 (docs/benchmarks.md).
_SHOT_FIXED, _SHOT_PER_MEGAPIXEL = 0.13825, 0.27252


def screenshot_seconds(base: float, pixels: tuple[int, int], points: tuple[int, int]) -> float:
    """Rule 13: what a screenshot of ``pixels`` costs when one of ``points`` (one pixel a point) costs ``base`` s."""

    def model(size: tuple[int, int]) -> float:
        return _SHOT_FIXED + _SHOT_PER_MEGAPIXEL * size[0] * size[1] / 1e6

    return base * model(pixels) / model(points)


class _Channel:
    """Rule 12: requests served one at a time, in the order they came, on the phone's clock.

    A turn is taken with ``async with channel.turn():`` and held with ``await channel.hold(s)``;
    a holder cancelled mid-hold leaves the channel busy until its time is up.
    """

    def __init__(self, clock: Clock, *, serial: bool) -> None:
        self._clock = clock
        self._serial = serial
        self._lock = asyncio.Lock()
        self._free_at = -math.inf

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for the channel (nothing to wait for when it serves everyone at once)."""
        if not self._serial:
            yield
            return
        async with self._lock:
            late = self._free_at - self._clock.now()
            if late > 0:
                await self._clock.sleep(late)
            yield

    async def hold(self, seconds: float) -> None:
        """Take ``seconds`` of the channel's time (the caller holds its turn)."""
        if self._serial:
            self._free_at = self._clock.now() + seconds
        await self._clock.sleep(seconds)


@attrs.frozen
class _Node:
    """An element as a read returns it, with what the script says about it."""

    element: Element
    scripted: ScriptedElement | None = None  # None for a home-screen icon
    key: tuple[int, ...] = ()  # its position in the script: stable whatever else is present
    opens: str | None = None  # the bundle a home-screen icon opens
    answers: str | None = None  # the button of a shown alert (Rule 10)
    hides_keyboard: bool = False  # the keyboard's return key (Rule 11)


@attrs.define
class _Running:
    """A running app: its screen, when that screen was entered, and the text typed so far."""

    screen: str
    entered: float
    typed: dict[FieldKey, str] = attrs.field(factory=dict)
    locale: str | None = None  # the locale it was launched in (None: the device's)
    back: list[str] = attrs.field(factory=list)  # Rule 16: the screens it came through, oldest first


@attrs.frozen
class _Show:
    """The app moves to one of its screens (in front or not); ``back``: to the screen it came from (Rule 16)."""

    bundle: str
    screen: str
    back: bool = False


@attrs.frozen
class _Front:
    """An app comes to front where it was (or on ``screen``, a link's); started if not running."""

    bundle: str
    screen: str | None = None


@attrs.frozen
class _Home:
    """The home screen comes to front."""


@attrs.frozen
class _Type:
    """Text lands in a field of a running app."""

    bundle: str
    field: FieldKey
    text: str


_Effect = _Show | _Front | _Home | _Type


@attrs.frozen
class _Alert:
    """Rule 10: a prompt shown by ``bundle`` (its ``index`` in the app's prompts, -1 for "Open in")."""

    bundle: str
    prompt: Prompt
    index: int = -1
    then: _Effect | None = None  # what "Open" carries out


@attrs.frozen
class _Plan:
    """What an action will do: it returns after ``seconds``; ``effect`` follows ``delay`` later."""

    seconds: float
    effect: _Effect | None = None
    delay: float = 0.0
    origin: str = SPRINGBOARD  # the app whose relaunch cancels the effect (Rule 7)
    focus: FieldKey | None = None  # the text field it gives the focus (Rule 11)
    unfocus: bool = False  # it hides the keyboard (Rule 11)
    answer: str | None = None  # the alert button it taps (Rule 10)
    ask: _Front | None = None  # the link "Open in “App”?" asks about first (Rule 10)


@attrs.frozen
class _Pending:
    due: float
    seq: int
    origin: str
    effect: _Effect
    length: float = 0.0  # the transition's length in seconds (Rule 8)


class _Sim:
    """The pure state machine of the phone (Rule 2): it is told the time, it never waits."""

    def __init__(self, script: AppScript) -> None:
        self.script = script
        self.home = script.home  # Rule 16: SpringBoard, or the Android launcher
        self.android = script.platform is Platform.ANDROID
        self.front = self.home
        self.running: dict[str, _Running] = {}
        self.pending: list[_Pending] = []
        self.typing_dropped = False
        self._seq = 0
        self.alerts: list[_Alert] = []  # Rule 10: the prompts waiting, the first one shown
        self.answered: dict[str, set[int]] = {}  # bundle -> its prompts answered on this install
        self.focus: tuple[str, FieldKey] | None = None  # Rule 11: (bundle, field) with the focus

    # -- time --------------------------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Carry out the pending effects that are due by ``now``, in order, each at its own time."""
        due = sorted((p for p in self.pending if p.due <= now + EPSILON), key=lambda p: (p.due, p.seq))
        if due:
            self.pending = [p for p in self.pending if p.due > now + EPSILON]
            for pending in due:
                self._apply(pending.effect, pending.due)

    def _apply(self, effect: _Effect, at: float) -> None:
        if isinstance(effect, _Show):
            state = self.running[effect.bundle]
            if effect.back:  # Rule 16: back to where it came from
                if state.back:
                    state.back.pop()
            elif effect.screen != state.screen:
                state.back.append(state.screen)
            state.screen, state.entered = effect.screen, at
            self.focus = None
        elif isinstance(effect, _Front):
            self.activate(effect.bundle, effect.screen, at)
        elif isinstance(effect, _Home):
            self.front = self.home
            self.focus = None
        elif not self.typing_dropped:
            state = self.running[effect.bundle]
            state.typed[effect.field] = state.typed.get(effect.field, "") + effect.text

    # -- apps --------------------------------------------------------------------------------

    def launch(self, bundle: str, screen: str, now: float, locale: str | None = None) -> None:
        """(Re)start an app on ``screen`` (in ``locale``: None is the device's) and bring it to front (Rules 6, 7)."""
        self.advance(now)
        self.pending = [p for p in self.pending if p.origin != bundle]
        self.running[bundle] = _Running(screen, now, locale=locale)
        self.front = bundle
        self.focus = None
        self.raise_prompts(bundle)

    def activate(self, bundle: str, screen: str | None, now: float) -> None:
        """Bring an app to front where it was, or on ``screen``; start it if it isn't running."""
        state = self.running.get(bundle)
        if state is None:
            self.running[bundle] = _Running(screen or self.script.apps[bundle].launch, now)
            self.raise_prompts(bundle)
        elif screen is not None:
            state.screen, state.entered = screen, now
        self.front = bundle

    # -- system prompts and the keyboard (Rules 10, 11) -------------------------------------------

    def raise_prompts(self, bundle: str) -> None:
        """Rule 10: the app's prompts not answered on this install come up, in script order."""
        done = self.answered.get(bundle, set())
        for index, prompt in enumerate(self.script.apps[bundle].prompts):
            shown = any(a.bundle == bundle and a.index == index for a in self.alerts)
            if (prompt.again or index not in done) and not shown:
                self.alerts.append(_Alert(bundle, prompt, index))

    def ask_open_in(self, bundle: str, then: _Effect) -> None:
        """Rule 10: "Open in “App”?" (Android's "Open with": Rule 16) before ``then`` (the link) is carried out."""
        name = self.script.apps[bundle].name
        prompt = open_with_prompt(name) if self.android else open_in_prompt(name)
        self.alerts.append(_Alert(bundle, prompt, then=then))

    def answer(self, button: str, now: float) -> None:
        """Rule 10: tap ``button`` of the alert shown; ``DeviceError`` when none is, or it has no such button."""
        if not self.alerts:
            raise DeviceError("no alert is shown; nothing was tapped")
        alert = self.alerts[0]
        if button not in alert.prompt.buttons:
            raise DeviceError(f"the alert has no button {button!r} (its buttons: {', '.join(alert.prompt.buttons)})")
        self.alerts.pop(0)
        if alert.index >= 0:
            self.answered.setdefault(alert.bundle, set()).add(alert.index)
        if alert.then is not None and button in alert.prompt.accept:
            self._apply(alert.then, now)

    def preset(self, bundle: str, permissions: Mapping[str, bool]) -> None:
        """Rule 10: the prompts of the services a launch sets (``simctl privacy``) count as answered."""
        prompts = self.script.apps[bundle].prompts
        done = {i for i, p in enumerate(prompts) if p.service in permissions}
        if done:
            self.answered.setdefault(bundle, set()).update(done)

    def forget_answers(self, bundle: str) -> None:
        """Rule 10: a reinstall forgets what the app's prompts were answered."""
        self.answered.pop(bundle, None)

    def _alert_nodes(self, alert: _Alert) -> list[_Node]:
        prompt = alert.prompt
        box = (0.1, 0.34, 0.8, 0.32)
        out = [_Node(Element(role="Alert", label=prompt.title, frame=box, path="/0/0"))]
        texts = [t for t in (prompt.title, prompt.message) if t]
        for i, text in enumerate(texts):
            frame = (0.14, round(0.37 + 0.07 * i, 6), 0.72, 0.06)
            out.append(_Node(Element(role="StaticText", label=text, frame=frame, path=f"/0/0/{i}")))
        count = len(prompt.buttons)
        for i, label in enumerate(prompt.buttons):
            frame = (0.1, round(0.52 + 0.14 * i / count, 6), 0.8, round(0.12 / count, 6))
            path = f"/0/0/{len(texts) + i}"
            out.append(_Node(Element(role="Button", label=label, frame=frame, path=path), answers=label))
        return out

    def _keyboard_nodes(self, base: int) -> list[_Node]:
        """Rule 11: the keyboard over the bottom of the screen, at ``/0/{base}``, and its return key (none: Rule 16)."""
        top = round(1.0 - KEYBOARD_HEIGHT, 6)
        keyboard = Element(role="Keyboard", frame=(0.0, top, 1.0, KEYBOARD_HEIGHT), path=f"/0/{base}")
        if self.android:
            return [_Node(keyboard)]
        key = Element(role="Key", label="return", frame=(0.75, 0.88, 0.23, 0.07), path=f"/0/{base}/0")
        return [_Node(keyboard), _Node(key, hides_keyboard=True)]

    def keyboard_shown(self) -> bool:
        """Rule 11: a text field of the app in front has the focus, on the screen it is on."""
        focus = self.focus
        if focus is None or focus[0] != self.front or self.front == self.home:
            return False
        return focus[1][0] == self.running[self.front].screen and self.script.apps[self.front].keyboard

    def screen_of(self, bundle: str) -> str | None:
        state = self.running.get(bundle)
        return None if state is None else state.screen

    # -- reading -----------------------------------------------------------------------------

    def screen(self, now: float) -> Screen:
        """The screen as a read at ``now`` returns it (Rule 8: it moves while a transition runs)."""
        self.advance(now)
        elements = tuple(node.element for node in self.nodes(now))
        if self.alerts:
            return Screen(app=self.alert_app(), elements=elements, size=self.script.size)
        progress = self.transition_progress(now)
        if progress is not None:
            k = 1.0 - 0.5 * progress
            elements = tuple(
                attrs.evolve(e, frame=(e.frame[0] * k, e.frame[1], e.frame[2] * k, e.frame[3])) for e in elements
            )
        return Screen(app=self.front, elements=elements, size=self.script.size)

    def alert_app(self) -> str:
        """Where the alert shown is: SpringBoard; on Android the PermissionController, the chooser's ``android``."""
        if not self.android:
            return SPRINGBOARD
        return "android" if self.alerts and self.alerts[0].index < 0 else ANDROID_PROMPT_APP

    def transition_progress(self, now: float) -> float | None:
        """How far (0..1) the front app's pending transition has run, or None when none runs."""
        running = [p for p in self.pending if p.origin == self.front and p.due > now + EPSILON and p.length > 0]
        if not running:
            return None
        first = min(running, key=lambda p: p.due)
        return min(1.0, max(0.0, 1.0 - (first.due - now) / first.length))

    def nodes(self, now: float) -> list[_Node]:
        """The elements present at ``now`` on the screen in front, depth first (Rule 5)."""
        if self.alerts:
            return self._alert_nodes(self.alerts[0])
        if self.front == self.home:
            return self._icons()
        state = self.running[self.front]
        out: list[_Node] = []
        app = self.script.apps[self.front]
        words = app.locales.get(state.locale or self.script.device.locale or "", {})
        self._walk(app.screens[state.screen], "/0", (), seconds=now - state.entered, state=(state, words), out=out)
        if self.keyboard_shown():
            out += self._keyboard_nodes(sum(1 for n in out if n.element.path.count("/") == 2))
        return out

    def _walk(
        self,
        elements: Sequence[ScriptedElement],
        parent: str,
        key: tuple[int, ...],
        *,
        seconds: float,
        state: tuple[_Running, Mapping[str, str]],
        out: list[_Node],
    ) -> None:
        running, words = state
        index = 0
        for position, scripted in enumerate(elements):
            if not scripted.present_at(seconds):
                continue
            path = f"{parent}/{index}"
            index += 1
            here = (*key, position)
            element = Element(
                role=scripted.role,
                label=words.get(scripted.label, scripted.label),
                identifier=scripted.identifier,
                value=scripted.value_at(seconds, running.typed.get((running.screen, here), "")),
                frame=scripted.frame,
                enabled=scripted.enabled,
                visible=scripted.visible,
                selected=scripted.selected,
                path=path,
            )
            out.append(_Node(element, scripted, here))
            self._walk(scripted.children, path, here, seconds=seconds, state=state, out=out)

    def _icons(self) -> list[_Node]:
        apps = list(self.script.apps.values())
        rows = math.ceil(len(apps) / _ICON_COLUMNS)
        pitch = min(_ICON_PITCH, _ICON_SPAN / rows)
        out: list[_Node] = []
        for index, app in enumerate(apps):
            row, column = divmod(index, _ICON_COLUMNS)
            frame = (
                round(_ICON_LEFT + column * _ICON_STEP, 6),
                round(_ICON_TOP + row * pitch, 6),
                _ICON_WIDTH,
                round(pitch * 0.8, 6),
            )
            element = Element(role="Button", label=app.name, identifier=app.bundle, frame=frame, path=f"/0/{index}")
            out.append(_Node(element, opens=app.bundle))
        return out

    def where(self) -> str:
        if self.front == self.home:
            return "the home screen"
        return f"{self.front}'s screen {self.running[self.front].screen!r}"

    # -- acting ------------------------------------------------------------------------------

    def plan(self, action: Action, latency: Latency, now: float) -> _Plan:  # noqa: PLR0912 - one branch an op
        """Check an action against the screen at ``now`` and say what it will do (Rule 3)."""
        self.advance(now)
        op = action.op
        text = action.text or ""
        if op is Op.HOME:
            return _Plan(latency.home, _Home())
        if op is Op.BACK:
            return self._back(latency)
        if op is Op.LAUNCH_APP:
            if text == self.home:
                return _Plan(latency.launch, _Home())
            if text not in self.script.apps:
                raise DeviceError(f"LAUNCH_APP: {text} is not installed (installed: {', '.join(self.script.apps)})")
            return _Plan(latency.launch, _Front(text))
        if op is Op.OPEN_URL:
            found = self.script.link(text)
            if found is None:
                links = [url for app in self.script.apps.values() for url in app.links]
                raise DeviceError(f"OPEN_URL: no app opens {text!r} (links: {', '.join(links) or 'none'})")
            app, screen = found
            if app.open_in:  # Rule 16: on Android, the link names no package here: the chooser asks
                return _Plan(latency.launch, ask=_Front(app.bundle, screen))
            return _Plan(latency.launch, _Front(app.bundle, screen))
        if op in (Op.SUBMIT, Op.DISMISS_KEYBOARD):
            return _Plan(latency.tap, unfocus=True)
        if op.is_swipe:
            if action.element is not None:
                self._node_for(action.element, now)
            return _Plan(latency.swipe)
        element = action.element
        assert element is not None  # Action itself refuses TAP, LONG_PRESS and TYPE without one
        node = self._node_for(element, now)
        if op is Op.LONG_PRESS:
            return _Plan(latency.tap)
        if op is Op.TYPE:
            return self._type(node, text, latency)
        return self._tap(node, latency)

    def _back(self, latency: Latency) -> _Plan:
        """Rule 16: Android's back button: the prompt, else the keyboard, else the back stack, else home."""
        if not self.android:
            raise DeviceError("BACK is Android's system back button; an iPhone has none: nothing was sent")
        if self.alerts:
            buttons = self.alerts[0].prompt.buttons
            declining = [b for b in buttons if b not in self.alerts[0].prompt.accept] or list(buttons[:1])
            return _Plan(latency.tap, answer=declining[0])
        if self.keyboard_shown():
            return _Plan(latency.tap, unfocus=True)
        if self.front == self.home:
            return _Plan(latency.tap)
        state = self.running[self.front]
        if state.back:
            back = _Show(self.front, state.back[-1], back=True)
            return _Plan(latency.tap, back, delay=latency.transition, origin=self.front)
        return _Plan(latency.tap, _Home(), delay=latency.transition, origin=self.front)

    def carry_out(self, plan: _Plan, now: float) -> None:
        """The action has returned at ``now``: schedule its effect ``plan.delay`` later (Rule 4)."""
        self.advance(now)
        self._carry_system(plan, now)
        if plan.effect is not None:
            self.pending.append(_Pending(now + plan.delay, self._seq, plan.origin, plan.effect, plan.delay))
            self._seq += 1
            self.advance(now)

    def _carry_system(self, plan: _Plan, now: float) -> None:
        """Rules 10, 11: the focus a plan gives or takes, the alert button it taps, the link it asks about."""
        if plan.unfocus:
            self.focus = None
        if plan.focus is not None:
            self.focus = (self.front, plan.focus)
        if plan.ask is not None:
            self.ask_open_in(plan.ask.bundle, plan.ask)
        if plan.answer is not None:
            self.answer(plan.answer, now)

    def _node_for(self, element: Element, now: float) -> _Node:
        nodes = self.nodes(now)
        there = f"; the screen has {len(nodes)} elements"
        for node in nodes:
            if node.element.path == element.path:
                if node.element.pair == element.pair:
                    return node
                there = f"; at {element.path} there is {node.element.role} {node.element.label!r}"
        raise DeviceError(
            f"nothing at {element.path} labelled {element.label!r} ({element.role}) "
            f"on {self.where()}{there}; read the screen again"
        )

    def _type(self, node: _Node, text: str, latency: Latency) -> _Plan:
        seconds = latency.type_char * len(text)
        scripted = node.scripted
        if scripted is None or not scripted.takes_typing:
            e = node.element
            roles = ", ".join(sorted(TEXT_ROLES))
            raise DeviceError(f"can't type into {e.role} {e.label!r} at {e.path}: only {roles} take typing")
        if not scripted.enabled:
            return _Plan(seconds)  # a disabled field ignores the keyboard
        screen = self.running[self.front].screen
        field = (screen, node.key)
        return _Plan(seconds, _Type(self.front, field, text), origin=self.front, focus=field)

    def clear(self, element: Element, now: float) -> None:
        """The typed text of a field of the app in front is gone (Rule 6: it belongs to the app)."""
        node = self._node_for(element, now)
        state = self.running.get(self.front)
        if state is not None:
            state.typed.pop((state.screen, node.key), None)

    def _tap(self, node: _Node, latency: Latency) -> _Plan:
        if node.answers is not None:
            return _Plan(latency.tap, answer=node.answers)
        if node.hides_keyboard:
            return _Plan(latency.tap, unfocus=True)
        field = node.scripted
        if field is not None and field.takes_typing and field.enabled and field.tap is None:
            return _Plan(latency.tap, focus=(self.running[self.front].screen, node.key))
        if node.opens is not None:
            return _Plan(latency.tap, _Front(node.opens), delay=latency.launch)
        scripted = node.scripted
        if scripted is None or scripted.tap is None or not (scripted.enabled and scripted.visible):
            return _Plan(latency.tap)  # a tap on nothing that leads anywhere changes nothing
        tap = scripted.tap
        effect: _Effect
        if tap.kind is TapKind.SCREEN:
            effect = _Show(self.front, tap.to)
        elif tap.kind is TapKind.HOME:
            effect = _Home()
        else:
            effect = _Front(tap.to)
        return _Plan(latency.tap, effect, delay=latency.transition, origin=self.front)


class ScriptedPhone:
    """A phone simulated from an app script, implementing ``Device`` and ``Screenshots``.

    It starts on the home screen (``com.apple.springboard``), which shows one ``Button`` per
    installed app, labelled with the app's name; tapping it brings the app to front. Every action
    received is appended to :attr:`actions` and every launch to :attr:`launches`, so tests can
    assert what was sent. Latency comes from the script (see ``Latency``) and is slept on the
    given clock. The module rules describe the behaviour; ``docs/scripted-phone.md`` the format.

    Screenshots are pictures of the screen as a read returns it (``docs/scripted-phone.md``),
    ``screenshot_scale`` pixels per point (0.25 to 4; 1 gives 402 x 874 pixels on the default
    screen). The phone serves one request at a time (Rule 12; ``one_at_a_time=False`` answers
    each at once); ``separate_screenshots`` gives its screenshots a channel of their own.

    Faults for testing a harness: :meth:`fail_next_action`, :meth:`fail_next_read`,
    :meth:`drop_typing`.
    """

    def __init__(
        self,
        script: AppScript,
        *,
        clock: Clock,
        screenshot_scale: float = DEFAULT_SCALE,
        one_at_a_time: bool = True,
        separate_screenshots: bool = False,
    ) -> None:
        self._script = script
        self._clock = clock
        self._renderer = ScreenRenderer(scale=screenshot_scale)
        self._channel = _Channel(clock, serial=one_at_a_time)
        self._shots = self._channel if not separate_screenshots else _Channel(clock, serial=one_at_a_time)
        #: Rule 12: whether screenshots come by a channel of their own (``protocols.ScreenshotChannel``).
        self.separate_screenshots = separate_screenshots
        self._sim = _Sim(script)
        self._lose_next: bool | None = None  # None: no fault armed; else its ``applied`` flag
        self._failing_reads = 0
        #: Every action received, in order, including those that then failed.
        self.actions: list[Action] = []
        #: Every launch received, as ``(bundle, options)``, including those that then failed.
        self.launches: list[tuple[str, LaunchOptions]] = []
        #: Every alert button :meth:`answer_alert` was asked to tap, in order (Rule 10).
        self.alert_answers: list[str] = []
        #: Every ``device:`` setting applied, in order (Rule 14).
        self.settings: list[DeviceSettings] = []
        #: Every device step sent, in order (Rule 15).
        self.events: list[DeviceEvent] = []

    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], *, clock: Clock, screenshot_scale: float = DEFAULT_SCALE, **options: bool
    ) -> ScriptedPhone:
        """A phone running the app script at ``path``; raises ``ScriptError`` when it is malformed.

        ``options`` are the constructor's (``one_at_a_time``, ``separate_screenshots``).
        """
        return cls(AppScript.from_file(path), clock=clock, screenshot_scale=screenshot_scale, **options)

    @classmethod
    def from_text(
        cls,
        text: str | bytes,
        source: str = "<script>",
        *,
        clock: Clock,
        screenshot_scale: float = DEFAULT_SCALE,
        **options: bool,
    ) -> ScriptedPhone:
        """A phone running an app script given as YAML text; ``source`` names it in messages."""
        return cls(AppScript.from_text(text, source), clock=clock, screenshot_scale=screenshot_scale, **options)

    @property
    def script(self) -> AppScript:
        """The app script the phone runs."""
        return self._script

    @property
    def screenshot_size(self) -> tuple[int, int]:
        """The size of a screenshot in pixels: the screen's points times the screenshot scale."""
        width, height = self._script.size
        scale = self._renderer.scale
        return (max(1, round(width * scale)), max(1, round(height * scale)))

    @property
    def clock(self) -> Clock:
        """The clock the phone sleeps on."""
        return self._clock

    @property
    def front(self) -> str:
        """The bundle id of the app in front now (``com.apple.springboard`` on the home screen)."""
        self._sim.advance(self._clock.now())
        return self._sim.front

    def screen_name(self, bundle: str) -> str | None:
        """The name of the screen a running app is on now, or None when it isn't running."""
        self._sim.advance(self._clock.now())
        return self._sim.screen_of(bundle)

    # -- faults ------------------------------------------------------------------------------

    def fail_next_action(self, *, applied: bool = False) -> None:
        """Make the next action sent raise ``UnknownOutcome`` after its usual latency.

        With ``applied=True`` its effect happens first (a tap that landed but whose reply was
        lost); otherwise it changes nothing. An action refused before sending (``DeviceError``)
        does not use the fault up.
        """
        self._lose_next = applied

    def fail_next_read(self, count: int = 1) -> None:
        """Make the next ``count`` reads raise ``DeviceError`` (after their usual latency)."""
        if count < 1:
            raise ValueError(f"count is the number of reads to fail, 1 or more; got {count}")
        self._failing_reads += count

    def drop_typing(self) -> None:
        """From now on typing changes nothing (a field that drops typed text), until restored."""
        self._sim.typing_dropped = True

    def restore_typing(self) -> None:
        """Undo :meth:`drop_typing`: typed text lands in fields again."""
        self._sim.typing_dropped = False

    def peek(self) -> tuple[Screen, list[_Node]]:
        """The screen as a read would return it now, and the nodes it is drawn from.

        Without a read's latency or faults: a fake server's hit test must not use up an injected
        read failure.
        """
        now = self._clock.now()
        return self._sim.screen(now), list(self._sim.nodes(now))

    def terminate(self, bundle: str) -> bool:
        """The system ends ``bundle`` (as ``simctl terminate`` or WDA does); True when it was running."""
        self._sim.advance(self._clock.now())
        was_running = self._sim.running.pop(bundle, None) is not None
        self._sim.pending = [p for p in self._sim.pending if p.origin != bundle]
        if self._sim.front == bundle:
            self._sim.front = self._sim.home
        return was_running

    async def clear(self, element: Element) -> None:
        """Clear a field of the app in front (WDA's element ``clear``), after ``latency.tap`` seconds.

        ``DeviceError`` when the element isn't there or takes no typing, as for ``TYPE`` (Rule 3).
        """
        async with self._channel.turn():
            self._sim.plan(Action(Op.TYPE, element=element, text=" "), self._script.latency, self._clock.now())
            await self._channel.hold(self._script.latency.tap)
            self._sim.clear(element, self._clock.now())

    def crash(self, bundle: str | None = None) -> None:
        """The app in front (or ``bundle``) crashes: it stops, and the home screen comes to front."""
        target = bundle or self._sim.front
        self._sim.running.pop(target, None)
        self._sim.pending = [p for p in self._sim.pending if p.origin != target]
        if self._sim.front == target:
            self._sim.front = self._sim.home

    # -- Device ------------------------------------------------------------------------------

    async def info(self) -> DeviceInfo:
        """The device's name, iOS version and kind, from the script."""
        return self._script.device

    async def app_info(self, bundle: str) -> AppInfo:
        """An installed app's version and build; both None on an ``iphone`` (not read there)."""
        app = self._installed(bundle, "app_info")
        if self._script.device.kind is DeviceKind.IPHONE:
            return AppInfo(bundle)
        return AppInfo(bundle, app.version, app.build)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """(Re)launch an app on its first screen, or on the screen of ``options.url``.

        Takes ``latency.launch`` seconds. Typed text is gone afterwards, reset or not (Rule 6).
        """
        self.launches.append((bundle, options))
        app = self._installed(bundle, "launch")
        screen = app.launch
        if options.url is not None:
            linked = app.links.get(options.url)
            if linked is None:
                links = ", ".join(app.links) or "none"
                raise DeviceError(f"launch: {bundle} opens no link {options.url!r} (its links: {links})")
            screen = linked
        _log.debug("launch %s on %s (%s)", bundle, screen, options.reset)
        async with self._channel.turn():
            await self._channel.hold(self._script.latency.launch)
            locale = options.locale if self.launches_in_locale() else None
            if options.reset is Reset.REINSTALL:
                self._sim.forget_answers(bundle)
            if self.presets_permissions():  # a simulator sets permissions before a launch; an iPhone can't
                self._sim.preset(bundle, options.permissions)
            # Rule 16: on Android the launch's link names the app's package: no chooser asks.
            linked = screen if options.url is not None and app.open_in and not self._sim.android else None
            first = app.launch if linked else screen
            self._sim.launch(bundle, first, self._clock.now(), _argument_locale(options.args) or locale)
            if linked is not None:
                self._sim.ask_open_in(bundle, _Show(bundle, linked))

    def launches_in_locale(self) -> bool:
        """A simulator launches an app in the locale a run asks for (``protocols.LocaleLaunches``); an iPhone can't.

        Android from API 33 does, on an emulator and a device alike (Rule 16).
        """
        device = self._script.device
        if self._sim.android:
            return device.ios_major >= ANDROID_APP_LOCALES_API
        return device.kind is DeviceKind.SIMULATOR

    def presets_permissions(self) -> bool:
        """Rule 10: a simulator, and any Android phone (``pm grant``: Rule 16), sets a launch's permissions first."""
        return self._sim.android or self._script.device.kind is DeviceKind.SIMULATOR

    async def read(self) -> Screen:
        """The screen as it is when the read ends, after ``latency.read`` seconds (in its turn, Rule 12)."""
        async with self._channel.turn():
            await self._channel.hold(self._script.latency.read)
            if self._failing_reads:
                self._failing_reads -= 1
                raise DeviceError("read: the tree could not be read (injected by fail_next_read)")
            return self._sim.screen(self._clock.now())

    async def act(self, action: Action) -> None:
        """Send one action (see the module rules for what each op does and how long it takes)."""
        self.actions.append(action)
        async with self._channel.turn():
            plan = self._sim.plan(action, self._script.latency, self._clock.now())
            applied, self._lose_next = self._lose_next, None
            _log.debug("act %s (returns in %.3f s)", action.op, plan.seconds)
            await self._channel.hold(plan.seconds)
            if applied is False:
                raise UnknownOutcome(f"{action.op}: the reply was lost (injected by fail_next_action)")
            self._sim.carry_out(plan, self._clock.now())
            if applied:
                raise UnknownOutcome(f"{action.op}: the reply was lost after it landed (injected by fail_next_action)")

    # -- system alerts and the keyboard (Rules 10, 11) ------------------------------------------

    async def answer_alert(self, button: str) -> None:
        """Tap ``button`` of the alert shown (``AlertAnswers``), after ``latency.tap`` seconds.

        ``DeviceError`` (nothing sent) when no alert is shown or it has no such button.
        """
        self._sim.advance(self._clock.now())
        self.alert_answers.append(button)
        if self._sim.alerts and button not in self._sim.alerts[0].prompt.buttons:
            self._sim.answer(button, self._clock.now())  # raises: no such button
        if not self._sim.alerts:
            raise DeviceError("no alert is shown; nothing was tapped")
        async with self._channel.turn():
            await self._channel.hold(self._script.latency.tap)
            self._sim.answer(button, self._clock.now())

    def alert(self) -> tuple[str, tuple[str, ...]] | None:
        """The alert shown now: its text (title and message, a line each) and buttons; None when none is."""
        self._sim.advance(self._clock.now())
        if not self._sim.alerts:
            return None
        prompt = self._sim.alerts[0].prompt
        return "\n".join(t for t in (prompt.title, prompt.message) if t), prompt.buttons

    def set_permission(self, bundle: str, service: str | None, *, allow: bool | None) -> None:
        """Rule 10: the system sets (``allow`` True or False) or resets (None) a permission of ``bundle``.

        A set one's prompt counts as answered; a reset one's shows again (``service`` None: all).
        """
        self._installed(bundle, "set_permission")
        if allow is not None and service is not None:
            self._sim.preset(bundle, {service: allow})
        elif service is None:
            self._sim.forget_answers(bundle)
        else:
            prompts = self._script.apps[bundle].prompts
            self._sim.answered.get(bundle, set()).difference_update(
                i for i, p in enumerate(prompts) if p.service == service
            )

    def keyboard_shown(self) -> bool:
        """Rule 11: whether the keyboard is shown now."""
        self._sim.advance(self._clock.now())
        return not self._sim.alerts and self._sim.keyboard_shown()

    def focused(self) -> Element | None:
        """Rule 11: the text field with the input focus, while its screen is in front (with or without a keyboard)."""
        sim = self._sim
        now = self._clock.now()
        sim.advance(now)
        focus = sim.focus
        if focus is None or focus[0] != sim.front or sim.alerts or sim.front == sim.home:
            return None
        if focus[1][0] != sim.running[sim.front].screen:
            return None
        return next((n.element for n in sim.nodes(now) if n.scripted is not None and n.key == focus[1][1]), None)

    def dismiss_keyboard(self) -> None:
        """Rule 11: the keyboard goes away (the focus with it), as its return key does."""
        self._sim.focus = None

    # -- Screenshots -------------------------------------------------------------------------

    @property
    def screenshot_s(self) -> float:
        """What one screenshot takes, in seconds, at the phone's resolution (Rule 13)."""
        return screenshot_seconds(self._script.latency.screenshot_s, self.screenshot_size, self._script.size)

    async def screenshot(self) -> bytes:
        """A PNG picture of the screen a read would return now, drawn as an iPhone shows it.

        Takes :attr:`screenshot_s` seconds, in its turn (Rules 10, 11). The same screen gives the
        same bytes; the last 32 pictures are cached by the screen's read fingerprint.
        """
        async with self._shots.turn():
            await self._shots.hold(self.screenshot_s)
            return self._renderer.png(self._sim.screen(self._clock.now()))

    # -- the audit and the device controls (Rule 14) -----------------------------------------

    async def audit(self, types: tuple[str, ...]) -> AuditReport:
        """Apple's accessibility audit of the screen in front, as the app script declares it (Rule 14)."""
        await self._clock.sleep(self._script.latency.read)
        return audit_of(self._script, self._sim.front, self.screen_name(self._sim.front), self.peek()[0], types)

    def controls_refusal(self, settings: DeviceSettings) -> str | None:
        """A simulator applies a check's ``device:`` settings; an iPhone can't (Rule 14), nor Android (Rule 16)."""
        del settings  # a simulator applies every one
        if self._script.device.kind is DeviceKind.SIMULATOR:
            return None
        if self._sim.android:
            return f"{self._script.device.name} is an Android phone: a check's device settings need an iOS simulator"
        return f"{self._script.device.name} is an iPhone: a check's device settings need a simulator"

    async def apply_settings(self, settings: DeviceSettings) -> None:
        """Keep the settings (Rule 14); ``DeviceError`` on an iPhone."""
        refusal = self.controls_refusal(settings)
        if refusal is not None:
            raise DeviceError(refusal)
        self.settings.append(settings)

    def event_refusal(self, event: DeviceEvent) -> str | None:
        """Rule 15: a simulator sends a check's device steps; an iPhone can't, nor an Android phone (Rule 16)."""
        if self._sim.android:
            return (
                f"{self._script.device.name} is an Android phone: a check's biometric and push steps need a scripted "
                "iOS simulator (kind: simulator)"
            )
        if self._script.device.kind is not DeviceKind.SIMULATOR:
            return (
                f"{self._script.device.name} is an iPhone (its app script says kind: iphone); run the check on a "
                "scripted simulator (kind: simulator)"
            )
        if event.op is Op.PUSH and event.bundle not in self._script.apps:
            return f"{event.bundle or 'no app'} is not installed on {self._script.device.name}: nothing to push to"
        return None

    async def send_event(self, event: DeviceEvent) -> None:
        """Rule 15: the biometric answer or the push, after ``latency.tap`` seconds."""
        refusal = self.event_refusal(event)
        if refusal is not None:
            raise DeviceError(refusal)
        self.events.append(event)
        latency = self._script.latency
        async with self._channel.turn():
            await self._channel.hold(latency.tap)
            now = self._clock.now()
            self._sim.advance(now)
            front = self._sim.front
            app = self._script.apps.get(front)
            screen = self._sim.screen_of(front)
            if app is None or screen is None:
                return
            to = None
            if event.op is Op.PUSH:
                to = app.push if front == event.bundle else None
            elif screen in app.biometric:
                leads = app.biometric[screen]
                to = leads.match if event.match else leads.fail
            if to is not None:
                self._sim.carry_out(_Plan(latency.tap, _Show(front, to), delay=latency.transition, origin=front), now)

    def _installed(self, bundle: str, what: str) -> ScriptedApp:
        app = self._script.apps.get(bundle)
        if app is None:
            raise DeviceError(
                f"{what}: {bundle} is not installed on {self._script.device.name} "
                f"(installed: {', '.join(self._script.apps)})"
            )
        return app


#: Rule 14: the first iOS with Apple's accessibility audit (``performAccessibilityAudit``).
AUDIT_SINCE_IOS = 17
#: Rule 16: the first API level with per-app languages (Android 13, ``cmd locale set-app-locales``).
ANDROID_APP_LOCALES_API = 33


def audit_of(
    script: AppScript, front: str, screen_name: str | None, screen: Screen, types: tuple[str, ...]
) -> AuditReport:
    """Rule 14: the audit of ``front`` on ``screen_name`` as ``screen`` shows it now (pure)."""
    if script.platform is Platform.ANDROID:
        return AuditReport(unavailable="Apple's accessibility audit is iOS's: an Android phone has none")
    if script.device.ios_major < AUDIT_SINCE_IOS:
        return AuditReport(unavailable=f"iOS {script.device.ios} has no accessibility audit (iOS 17 and later do)")
    app = script.apps.get(front)
    if app is None or screen_name is None:
        return AuditReport(unavailable="the home screen is in front: there is no app to audit")
    if app.audit is None:
        return AuditReport(unavailable=f"the app script declares no audit for {front}: add audit: to the app")
    issues: list[AuditIssue] = []
    for finding in app.audit.get(screen_name, ()):
        if types and finding.type not in types:
            continue
        for element in screen.elements:
            if finding.element in (element.identifier, element.label) and screen.is_shown(element):
                issues.append(issue_of(finding.type, finding.description, element))
                break
    return AuditReport(tuple(issues))


def issue_of(kind: str, description: str, element: Element) -> AuditIssue:
    """An issue about ``element``, named as WDA names an element: ``StaticText "Forgot?" (id=forgot)``."""
    name = element.role
    if element.label:
        name += f' "{element.label}"'
    if element.identifier:
        name += f" (id={element.identifier})"
    return AuditIssue(kind, description, name, label=element.label, identifier=element.identifier)


def _argument_locale(args: Sequence[str]) -> str | None:
    """The locale ``-AppleLocale de_DE`` among an app's launch arguments names, as a real app reads it."""
    for flag, value in itertools.pairwise(args):
        if flag == "-AppleLocale":
            with contextlib.suppress(ValueError):
                return normal_locale(value)
    return None
