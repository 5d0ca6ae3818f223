"""The scripted phone's app script: loaded, validated strictly, kept as frozen data.

Rule 1: every key is known. An unknown key anywhere (the top level, ``device``, a ``latency``
        mapping, an app, an element, a ``tap``) is an error with a "did you mean" hint.
Rule 2: values are never converted: ``"1.0"`` is not a number, ``1`` is not a version string,
        ``yes`` is not a flag. The message says what to write instead.
Rule 3: every error is a :class:`~mobster_core.ScriptError` that reads
        ``file:line: key.path: what is wrong; what to write``.
Rule 4: names are checked across the whole file: ``launch``, ``links`` and ``tap`` name screens of
        the same app, ``tap: {open: …}`` names an app of the file, and a link belongs to one app.
Rule 5: an element without a ``frame`` is laid out when the script is loaded: the frameless
        elements of a screen in rows from the top, the frameless children of an element in rows
        inside their parent. Frames never move at read time, even as ``after``/``until`` elements
        come and go (real layouts may reflow; a script stays simple to reason about).
Rule 6: an element is present on its screen from ``after`` seconds (inclusive) until ``until``
        seconds (exclusive) after the screen was entered; a ``ticks`` element's value changes every
        ``ticks`` seconds.
Rule 7: ``device.locale`` (default ``en_US``) and ``device.appearance`` (``light``, the default, or
        ``dark``) are what the phone reports. An app's ``locales`` maps a locale to the labels it
        shows in it (``{de_DE: {Continue: Weiter}}``): the app shows them when it runs in that
        locale (the phone's, or the one a simulator launched it in); a label not in the map shows
        as written.
Rule 8 (system prompts): an app's ``prompts`` are the permission alerts it raises, each a
        ``service`` (a name of ``mobster_core.checks.ALERT_SERVICES``), a ``title``, an optional
        ``message`` and its ``buttons`` (the order a real prompt shows them; at least one) and
        ``accept`` (the buttons that grant it; default: every button but those that decline,
        "Don't Allow", "Cancel", "Not Now", "Ask App Not to Track", or, with none of those, the
        first). A prompt is shown on the app's first launch of an install (``on: launch``,
        the default), and its answer is remembered until the app is reinstalled; ``again: true``
        shows it on every launch, answered or not (a prompt that keeps coming back). ``open_in:
        true`` makes a deep link raise "Open in “App”?" (Cancel, Open) before the app opens it.
Rule 9 (the keyboard): ``keyboard: true`` shows a keyboard over the bottom of the screen (the
        bottom :data:`KEYBOARD_HEIGHT` of it) while a text field of the app has the focus (from a
        tap or typing into it until ``SUBMIT``, ``DISMISS_KEYBOARD`` or another screen).
Rule 6: an element is present on its screen from ``after`` seconds (inclusive) until ``until``
        seconds (exclusive) after the screen was entered; a ``ticks`` element's value changes every
        ``ticks`` seconds.
Rule 10: an app's ``audit`` maps a screen to the accessibility issues Apple's audit finds there
        (``{login: [{type: contrast, element: forgot, description: Contrast failed}]}``): each
        names an element of that screen by its ``id`` or ``label``, and an audit type
        (``mobster_core`` ``AUDIT_TYPES``). An app with ``audit`` can be audited (its other screens
        have no issue); one without can't (the ``accessibility_audit`` assertion can't run).
Rule 12 (the platform): ``platform: android`` (``ios``, the default) makes the phone an Android one
        (``ScriptedPhone`` Rule 16): ``device`` then takes ``api`` (the API level, a whole number,
        default 34), ``release`` (Android's version, default "14") and ``kind`` ``emulator`` (the
        default) or ``device`` in place of ``ios`` and ``simulator``/``iphone``; its screen's
        ``size`` is in dp (default 360 x 800), and its home screen is the launcher
        (:data:`ANDROID_HOME`), which no app of the file may be. A key of the other platform is an
        error naming the one to write.
Rule 11 (device steps): an app's ``biometric`` maps a screen that asks for Face ID or Touch ID to
        where a match and a failed match lead (``{unlock: {match: home, fail: locked}}``); an
        app's ``push`` names the screen a push notification opens while the app is in front (an
        app that shows what came in; a real banner is SpringBoard's, outside the app's tree, so
        none is drawn). Both name screens of the same app; a prompt on another screen, or a push
        to an app without ``push``, changes nothing (the phone keeps what it was sent).
"""

from __future__ import annotations

import enum
import functools
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs

from mobster_core import DeviceInfo, DeviceKind
from mobster_core.checks import ALERT_SERVICES, AUDIT_TYPES, read_user_file
from mobster_core.exceptions import ScriptError, UnsafeFile
from mobster_core.protocols import DEFAULT_SCREEN_SIZE, SPRINGBOARD, Frame, Platform
from mobster_core.text import normal_locale
from mobster_core.yaml import MAX_YAML_BYTES, Keys, StrictReader, YamlDoc, YamlProblem, did_you_mean, kind_of, load_yaml

__all__ = [
    "ANDROID_HOME",
    "ANDROID_PROMPT_APP",
    "ANDROID_SIZE",
    "PROFILES",
    "TEXT_ROLES",
    "AppScript",
    "AuditFinding",
    "Biometric",
    "Latency",
    "Prompt",
    "ScriptedApp",
    "ScriptedElement",
    "Tap",
    "TapKind",
    "open_in_prompt",
    "open_with_prompt",
]

#: The roles that take typing (``TYPE`` into anything else is refused before it is sent).
TEXT_ROLES = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})

#: The reserved ``tap:`` value that presses the home button (so no screen may be called this).
HOME = "home"
#: Rule 12: the home screen of a scripted Android phone: AOSP's launcher, as an emulator's image has it.
ANDROID_HOME = "com.android.launcher3"
#: Rule 12: where an Android phone's permission prompts show: Google's PermissionController (an
#: emulator image with Google APIs, and Pixel phones).
ANDROID_PROMPT_APP = "com.google.android.permissioncontroller"
#: Rule 12: an Android screen's size in dp when the script doesn't say (1080 x 2400 pixels at 3x).
ANDROID_SIZE: tuple[int, int] = (360, 800)

# Times on a float clock are sums of floats: compare with a little slack so an element meant to
# appear at 1.0 s is there when the clock reads 0.9999999999.
EPSILON = 1e-9


def _non_negative(_inst: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise ValueError(f"latency {attribute.name} must be 0 or more seconds, got {value!r}")


@attrs.frozen
class Latency:
    """How long each operation of the scripted phone takes, in seconds.

    ``read``: a read of the tree. ``tap``: a tap, long press or return key, until it returns.
    ``transition``: from the return of a tap to the moment the next screen appears (reads in
    between show the old screen). ``type_char``: per typed character. ``swipe``: a swipe.
    ``launch``: a launch, an app brought to front, a link opened, an app icon tapped (from the
    return of the tap). ``home``: the home button. ``screenshot``: a screenshot at one pixel per
    point (more pixels cost more: ``ScriptedPhone``'s Rule 11); None, the default, is the read's.
    """

    read: float = attrs.field(default=0.0, validator=_non_negative)
    tap: float = attrs.field(default=0.0, validator=_non_negative)
    transition: float = attrs.field(default=0.0, validator=_non_negative)
    type_char: float = attrs.field(default=0.0, validator=_non_negative)
    swipe: float = attrs.field(default=0.0, validator=_non_negative)
    launch: float = attrs.field(default=0.0, validator=_non_negative)
    home: float = attrs.field(default=0.0, validator=_non_negative)
    screenshot: float | None = attrs.field(default=None, validator=attrs.validators.optional(_non_negative))

    @property
    def screenshot_s(self) -> float:
        """What a screenshot at one pixel per point costs, in seconds: ``screenshot``, else the read's."""
        return self.read if self.screenshot is None else self.screenshot


#: The named latency profiles. ``usb-iphone`` holds figures measured on an iPhone 15 Pro driven
#: over USB through WebDriverAgent.
PROFILES: Mapping[str, Latency] = MappingProxyType(
    {
        "zero": Latency(),
        "usb-iphone": Latency(
            read=0.234, tap=0.478, transition=1.247, type_char=0.0175, swipe=0.7, launch=2.6, home=0.5
        ),
        # Rule 12: public measurements, each cited in docs/scripted-phone.md; where none was found
        # (the transition, typing, a swipe) the iPhone's figure stands in.
        "android": Latency(
            read=0.212,
            tap=0.226,
            transition=1.247,
            type_char=0.0175,
            swipe=0.7,
            launch=2.0,
            home=0.226,
            screenshot=0.25,
        ),
    }
)

_LATENCY_KEYS = tuple(a.name for a in attrs.fields(Latency))


class TapKind(enum.StrEnum):
    """What tapping an element does."""

    SCREEN = "screen"  # the app moves to another of its screens
    HOME = "home"  # the home button: the home screen comes to front
    OPEN = "open"  # another app comes to front


@attrs.frozen
class Tap:
    """Where a tap leads: ``to`` is the screen name (``SCREEN``) or the bundle id (``OPEN``)."""

    kind: TapKind
    to: str = ""


#: Rule 9: how much of the screen's height the keyboard covers, from the bottom.
KEYBOARD_HEIGHT = 0.4


@attrs.frozen
class Prompt:
    """Rule 8: a permission alert an app raises: its service, texts, buttons, and which grant it."""

    service: str
    title: str
    buttons: tuple[str, ...]
    accept: frozenset[str]
    message: str = ""
    again: bool = False


def open_in_prompt(app_name: str) -> Prompt:
    """Rule 8: the "Open in “App”?" alert of a deep link."""
    return Prompt("open-in", f"Open in “{app_name}”?", ("Cancel", "Open"), frozenset({"Open"}))


def open_with_prompt(app_name: str) -> Prompt:
    """Rule 12: Android's "Open with" chooser of a link no package was named for (AOSP's ResolverActivity).

    Its English words ("Open with %1$s", "Just once", "Always") are AOSP's resolver strings as
    they are known; android-facts.md §5.2 could not confirm them from ``values/strings.xml``.
    """
    return Prompt("open-in", f"Open with {app_name}", ("Just once", "Always"), frozenset({"Just once", "Always"}))


@attrs.frozen
class ScriptedElement:
    """One element of a screen as the script describes it (frames already laid out, Rule 5).

    ``after``, ``until`` and ``ticks`` are seconds since the screen was entered (Rule 6).
    """

    role: str
    label: str = ""
    identifier: str = ""
    value: str = ""
    frame: Frame = (0.0, 0.0, 0.0, 0.0)
    enabled: bool = True
    visible: bool = True
    selected: bool = False
    children: tuple[ScriptedElement, ...] = ()
    tap: Tap | None = None
    after: float = 0.0
    until: float | None = None
    ticks: float | None = None

    @property
    def takes_typing(self) -> bool:
        """True for the roles that accept typed text."""
        return self.role in TEXT_ROLES

    def present_at(self, seconds: float) -> bool:
        """Whether the element is on its screen ``seconds`` after the screen was entered."""
        if seconds + EPSILON < self.after:
            return False
        return self.until is None or seconds + EPSILON < self.until

    def value_at(self, seconds: float, typed: str = "") -> str:
        """The value ``seconds`` after the screen was entered, with ``typed`` text appended.

        A secure field shows one bullet per typed character, never the text. A ticking element
        appends the count of ticks so far.
        """
        shown = "\u2022" * len(typed) if self.role == "SecureTextField" else typed
        value = self.value + shown
        if self.ticks is not None:
            value += str(math.floor((seconds + EPSILON) / self.ticks))
        return value


def _frozen_links(value: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(value))


def _frozen_screens(
    value: Mapping[str, tuple[ScriptedElement, ...]],
) -> Mapping[str, tuple[ScriptedElement, ...]]:
    return MappingProxyType(dict(value))


def _frozen_locales(value: Mapping[str, Mapping[str, str]]) -> Mapping[str, Mapping[str, str]]:
    return MappingProxyType({k: MappingProxyType(dict(v)) for k, v in value.items()})


def _frozen_apps(value: Mapping[str, ScriptedApp]) -> Mapping[str, ScriptedApp]:
    return MappingProxyType(dict(value))


@attrs.frozen
class AuditFinding:
    """Rule 10: one issue the audit finds on a screen: its type, the element (id or label) and Apple's words."""

    type: str
    element: str
    description: str = ""


@attrs.frozen
class Biometric:
    """Rule 11: where a Face ID / Touch ID prompt's screen leads on a match and on a failed match."""

    match: str
    fail: str


def _frozen_biometric(value: Mapping[str, Biometric]) -> Mapping[str, Biometric]:
    return MappingProxyType(dict(value))


def _frozen_audit(
    value: Mapping[str, tuple[AuditFinding, ...]] | None,
) -> Mapping[str, tuple[AuditFinding, ...]] | None:
    return None if value is None else MappingProxyType(dict(value))


@attrs.frozen
class ScriptedApp:
    """One installed app: its identity, its first screen, its deep links and its screens."""

    bundle: str
    name: str
    version: str
    build: str
    file: str
    launch: str
    screens: Mapping[str, tuple[ScriptedElement, ...]] = attrs.field(converter=_frozen_screens, hash=False)
    links: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_links, hash=False)
    #: Rule 7: locale -> label as written -> label shown in that locale.
    locales: Mapping[str, Mapping[str, str]] = attrs.field(factory=dict, converter=_frozen_locales, hash=False)
    #: Rule 8: the permission prompts of its first launch, and whether a deep link asks "Open in".
    prompts: tuple[Prompt, ...] = ()
    open_in: bool = False
    #: Rule 9: a keyboard covers the bottom of the screen while a text field has the focus.
    keyboard: bool = False
    #: Rule 10: screen -> the issues an audit finds there; None: the app can't be audited.
    audit: Mapping[str, tuple[AuditFinding, ...]] | None = attrs.field(
        default=None, converter=_frozen_audit, hash=False
    )
    #: Rule 11: screen that asks for Face ID -> where a match and a failure lead.
    biometric: Mapping[str, Biometric] = attrs.field(factory=dict, converter=_frozen_biometric, hash=False)
    #: Rule 11: the screen a push notification opens while the app is in front (None: it stays).
    push: str | None = None


@attrs.frozen
class AppScript:
    """A validated app script: the device, the latency and the installed apps (in file order)."""

    source: str
    device: DeviceInfo
    latency: Latency
    apps: Mapping[str, ScriptedApp] = attrs.field(converter=_frozen_apps, hash=False)
    size: tuple[int, int] = DEFAULT_SCREEN_SIZE

    @property
    def platform(self) -> Platform:
        """Rule 12: iOS or Android, as the device's kind says."""
        return self.device.kind.platform

    @property
    def home(self) -> str:
        """Rule 12: the home screen's app: SpringBoard, or the Android launcher."""
        return SPRINGBOARD if self.platform is Platform.IOS else ANDROID_HOME

    def link(self, url: str) -> tuple[ScriptedApp, str] | None:
        """The app that owns a deep link and the screen it opens, or None."""
        for app in self.apps.values():
            screen = app.links.get(url)
            if screen is not None:
                return (app, screen)
        return None

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> AppScript:
        """Load and validate an app script file; raises :class:`ScriptError`."""
        source = os.fspath(path)
        try:
            raw = read_user_file(Path(source), max_bytes=MAX_YAML_BYTES)
        except UnsafeFile as exc:
            raise ScriptError(f"{source}: can't read the app script: {exc.reason}; give a regular YAML file") from exc
        except OSError as exc:
            raise ScriptError(f"{source}: can't read the app script ({exc.strerror or exc})") from exc
        return cls.from_text(raw, source)

    @classmethod
    def from_text(cls, text: str | bytes, source: str = "<script>") -> AppScript:
        """Validate an app script given as YAML text; ``source`` names it in messages.

        A script is frozen, so the same text from the same source is parsed once per process
        (the last :data:`_PARSED_SCRIPTS` kept): a suite, a pool or a soak makes one phone per
        run from one file, and YAML parsing was most of a zero-latency run's CPU.
        """
        return _parse_script(text, source)

    @classmethod
    def from_dict(cls, data: Any, source: str = "<dict>") -> AppScript:
        """Validate an app script given as plain data (messages name ``source``, no lines)."""
        return _Reader(YamlDoc(source, data, None)).script(data, source)


_PARSED_SCRIPTS = 16


@functools.lru_cache(maxsize=_PARSED_SCRIPTS)
def _parse_script(text: str | bytes, source: str) -> AppScript:
    """Parse and validate one app script (an error is raised again on each try: never cached)."""
    try:
        doc = load_yaml(text, source)
    except YamlProblem as exc:
        raise ScriptError(str(exc)) from exc
    return _Reader(doc).script(doc.data, source)


# -- validation ------------------------------------------------------------------------------

_TOP_KEYS = ("version", "platform", "device", "latency", "apps")
_DEVICE_KEYS = ("name", "ios", "kind", "size", "locale", "appearance")
#: Rule 12: an Android device's keys.
_ANDROID_DEVICE_KEYS = ("name", "api", "release", "kind", "size", "locale", "appearance")
_APP_KEYS = (
    *("name", "version", "build", "file", "launch", "links", "screens", "locales"),
    *("prompts", "open_in", "keyboard", "audit", "biometric", "push"),
)
_BIOMETRIC_KEYS = ("match", "fail")
_PROMPT_KEYS = ("service", "title", "message", "buttons", "accept", "on", "again")
#: Rule 8: the services a prompt may name (``mobster_core``'s alert policy knows the same names).
PROMPT_SERVICES = ALERT_SERVICES
_FINDING_KEYS = ("type", "element", "description")
_ELEMENT_KEYS = (
    "role",
    "label",
    "id",
    "value",
    "frame",
    "enabled",
    "visible",
    "selected",
    "children",
    "tap",
    "after",
    "until",
    "ticks",
)
_IOS = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
_BUNDLE = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")

# Auto layout (Rule 5): rows between a status bar and a home indicator, in normalized units.
_TOP, _BOTTOM, _LEFT, _WIDTH = 0.1, 0.95, 0.06, 0.88
_ROW_PITCH, _ROW_HEIGHT = 0.08, 0.06


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@attrs.define
class _AppNames:
    """What the elements of one app may name: its screens and the apps of the file."""

    bundle: str
    screens: frozenset[str]
    bundles: frozenset[str]


class _Reader(StrictReader):
    """Walks the untrusted data once; every problem is a ScriptError that names ``file:line`` and the key.

    It says what to write only where the value shows it (the base's Rule 3): quote a number that
    should be text, unquote a number, the hint of a missing key.
    """

    advises = False

    def error(self, problem: YamlProblem) -> ScriptError:
        return ScriptError(str(problem))

    # -- the file --------------------------------------------------------------------------

    def script(self, data: Any, source: str) -> AppScript:
        top = self.mapping(
            data,
            (),
            _TOP_KEYS,
            what="an app script: a mapping with version, device, latency and apps",
        )
        self.require(
            top,
            (),
            {
                "version": "write version: 1 at the top",
                "apps": "list the installed apps under apps:",
            },
        )
        version = top["version"]
        if isinstance(version, str):
            self.fail(("version",), f"expected the number 1, got {kind_of(version)}; write version: 1")
        if not _is_number(version) or version != 1 or isinstance(version, float):
            self.fail(("version",), f"only version 1 exists, got {kind_of(version)}; write version: 1")
        platform = top.get("platform", "ios")
        if platform not in ("ios", "android"):
            self.fail(("platform",), f"expected ios or android, got {kind_of(platform)}")
        if platform == "android":
            device, size = self.android_device(top.get("device", {}))
        else:
            device, size = self.device(top.get("device", {}))
        latency = self.latency(top.get("latency", "zero"))
        apps = self.apps(top["apps"], SPRINGBOARD if platform == "ios" else ANDROID_HOME)
        return AppScript(source=source, device=device, latency=latency, apps=apps, size=size)

    def device(self, value: Any) -> tuple[DeviceInfo, tuple[int, int]]:
        keys: Keys = ("device",)
        if isinstance(value, Mapping):
            for key in ("api", "release"):
                if key in value:
                    self.fail((*keys, key), f"{key} is an Android device's: write platform: android at the top")
        raw = self.mapping(
            value, keys, _DEVICE_KEYS, what="a mapping with name, ios, kind, size, locale and appearance"
        )
        name = self.string(raw.get("name", "Scripted iPhone"), (*keys, "name"))
        ios = self.string(raw.get("ios", "26.4"), (*keys, "ios"))
        if not _IOS.fullmatch(ios):
            self.fail((*keys, "ios"), f'expected an iOS version such as "26.4", got {ios!r}')
        kind = self.kind(raw.get("kind", "simulator"), (*keys, "kind"), Platform.IOS)
        size = self.size(raw.get("size", list(DEFAULT_SCREEN_SIZE)), (*keys, "size"), "points such as [402, 874]")
        locale = self.locale(raw.get("locale", "en_US"), (*keys, "locale"))
        appearance = self.appearance(raw.get("appearance", "light"), (*keys, "appearance"))
        info = DeviceInfo(name=name, ios=ios, kind=kind, locale=locale, appearance=appearance)
        return info, size

    def android_device(self, value: Any) -> tuple[DeviceInfo, tuple[int, int]]:
        """Rule 12: an Android phone: its name, API level, release, kind, size in dp, locale and appearance."""
        keys: Keys = ("device",)
        if isinstance(value, Mapping) and "ios" in value:
            self.fail((*keys, "ios"), 'an Android device says its API level: write api: 34 (and release: "14")')
        raw = self.mapping(
            value,
            keys,
            _ANDROID_DEVICE_KEYS,
            what="a mapping with name, api, release, kind, size, locale and appearance",
        )
        name = self.string(raw.get("name", "Scripted Pixel"), (*keys, "name"))
        api = raw.get("api", 34)
        if isinstance(api, bool) or not isinstance(api, int) or not 1 <= api <= 99:
            hint = f"; write it without quotes: api: {api}" if isinstance(api, str) else ""
            self.fail((*keys, "api"), f"expected the API level, a whole number such as 34, got {kind_of(api)}{hint}")
        release = self.string(raw.get("release", "14"), (*keys, "release"))
        kind = self.kind(raw.get("kind", "emulator"), (*keys, "kind"), Platform.ANDROID)
        size = self.size(raw.get("size", list(ANDROID_SIZE)), (*keys, "size"), "dp such as [360, 800]")
        locale = self.locale(raw.get("locale", "en_US"), (*keys, "locale"))
        appearance = self.appearance(raw.get("appearance", "light"), (*keys, "appearance"))
        info = DeviceInfo(name=name, ios=str(api), kind=kind, locale=locale, appearance=appearance, release=release)
        return info, size

    def kind(self, kind: Any, keys: Keys, platform: Platform) -> DeviceKind:
        """A device's kind, one of its platform's (Rule 12)."""
        kinds = [k.value for k in DeviceKind if k.platform is platform]
        if not isinstance(kind, str) or kind not in kinds:
            other = isinstance(kind, str) and kind in {k.value for k in DeviceKind}
            hint = did_you_mean(kind, kinds) if isinstance(kind, str) else ""
            hint = hint if "did you mean" in hint else ""
            if other:
                hint = f"; {kind} is {'an Android' if platform is Platform.IOS else 'an iOS'} kind"
                hint += " (platform: android at the top makes the phone Android)" if platform is Platform.IOS else ""
            self.fail(keys, f"expected {' or '.join(kinds)}, got {kind_of(kind)}{hint}")
        return DeviceKind(kind)

    def size(self, size: Any, keys: Keys, example: str) -> tuple[int, int]:
        if not (
            isinstance(size, list)
            and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
        ):
            self.fail(keys, f"expected [width, height] in whole {example}, got {size!r}")
        return (size[0], size[1])

    def appearance(self, appearance: Any, keys: Keys) -> str:
        if appearance not in ("light", "dark"):
            self.fail(keys, f"expected light or dark, got {kind_of(appearance)}")
        return str(appearance)

    def links(self, value: Any, keys: Keys, names: _AppNames, owners: dict[str, str]) -> dict[str, str]:
        """An app's deep links: URL -> screen (Rule 4: a link belongs to one app)."""
        if not isinstance(value, Mapping):
            self.fail(
                (*keys, "links"),
                'expected a mapping of URLs to screen names, such as {"yourapp://signup": signup}',
            )
        links: dict[str, str] = {}
        for url, screen in value.items():
            link_keys = (*keys, "links", str(url))
            if not isinstance(url, str) or "://" not in url:
                self.fail(link_keys, f"a link is a URL such as yourapp://signup, got {url!r}")
            if url in owners:
                self.fail(link_keys, f"the link is already {owners[url]}'s; a link opens one app")
            owners[url] = names.bundle
            links[url] = self.screen_name(screen, link_keys, names)
        return links

    def locale(self, value: Any, keys: Keys) -> str:
        text = self.string(value, keys)
        try:
            return normal_locale(text)
        except ValueError:
            self.fail(keys, f"{text!r} is not a locale; write one such as en_US or de_DE")

    def locales(self, value: Any, keys: Keys) -> dict[str, dict[str, str]]:
        """Rule 7: ``{de_DE: {Continue: Weiter}}``."""
        if not isinstance(value, Mapping):
            self.fail(
                keys,
                "expected a mapping of locales to {label: label in that locale}, such as {de_DE: {Continue: Weiter}}",
            )
        out: dict[str, dict[str, str]] = {}
        for locale, words in value.items():
            here = (*keys, str(locale))
            name = self.locale(locale, here)
            if not isinstance(words, Mapping):
                self.fail(here, f"expected a mapping of labels to their {name} labels, got {kind_of(words)}")
            out[name] = {self.string(k, (*here, str(k))): self.string(v, (*here, str(k))) for k, v in words.items()}
        return out

    def latency(self, value: Any) -> Latency:
        keys: Keys = ("latency",)
        if isinstance(value, str):
            if value not in PROFILES:
                self.fail(keys, f"unknown latency profile {value!r}{did_you_mean(value, PROFILES)}")
            return PROFILES[value]
        if not isinstance(value, Mapping):
            self.fail(
                keys,
                f"expected a profile name (zero, usb-iphone) or a mapping of seconds, got {kind_of(value)}",
            )
        raw = self.mapping(value, keys, _LATENCY_KEYS, what="a mapping of seconds")
        figures = {str(k): self.number(v, (*keys, str(k)), unit="seconds") for k, v in raw.items()}
        return Latency(**figures)

    def apps(self, value: Any, home: str = SPRINGBOARD) -> dict[str, ScriptedApp]:
        keys: Keys = ("apps",)
        if not isinstance(value, Mapping) or not value:
            self.fail(keys, "expected a mapping of bundle ids to apps, with at least one app")
        bundles: list[str] = []
        for bundle in value:
            if not isinstance(bundle, str) or not _BUNDLE.fullmatch(bundle):
                self.fail((*keys, str(bundle)), f"expected a bundle id such as com.example.yourapp, got {bundle!r}")
            if bundle == home:
                self.fail((*keys, bundle), f"{home} is the home screen, which the phone provides")
            bundles.append(bundle)
        owners: dict[str, str] = {}
        apps: dict[str, ScriptedApp] = {}
        for bundle in bundles:
            apps[bundle] = self.app(value[bundle], (*keys, bundle), bundle, frozenset(bundles), owners)
        return apps

    def app(self, value: Any, keys: Keys, bundle: str, bundles: frozenset[str], owners: dict[str, str]) -> ScriptedApp:
        raw = self.mapping(
            value,
            keys,
            _APP_KEYS,
            what="an app: a mapping with name, version, build, file, launch, links and screens",
        )
        self.require(
            raw,
            keys,
            {
                "name": "write the name shown under its icon, such as name: YourApp",
                "version": 'write its version, such as version: "1.0"',
                "build": 'write its build, such as build: "1"',
                "launch": "write the name of its first screen, such as launch: welcome",
                "screens": "describe its screens under screens:",
            },
        )
        name = self.string(raw["name"], (*keys, "name"))
        version = self.string(raw["version"], (*keys, "version"))
        build = self.string(raw["build"], (*keys, "build"))
        file = self.string(raw.get("file", f"{name}.app"), (*keys, "file"))
        screens_raw = raw["screens"]
        if not isinstance(screens_raw, Mapping) or not screens_raw:
            self.fail((*keys, "screens"), "expected a mapping of screen names to lists of elements, at least one")
        for screen in screens_raw:
            if not isinstance(screen, str) or not screen:
                self.fail((*keys, "screens", str(screen)), f"a screen name is a string, got {screen!r}")
            if screen == HOME:
                self.fail(
                    (*keys, "screens", screen),
                    f"{HOME!r} is reserved (tap: home presses the home button); rename this screen",
                )
        names = _AppNames(bundle=bundle, screens=frozenset(screens_raw), bundles=bundles)
        launch = self.screen_name(raw["launch"], (*keys, "launch"), names)
        links = self.links(raw.get("links", {}), keys, names, owners)
        screens = {
            screen: self.elements(elements, (*keys, "screens", screen), names, None)
            for screen, elements in screens_raw.items()
        }
        return ScriptedApp(
            bundle=bundle,
            name=name,
            version=version,
            build=build,
            file=file,
            launch=launch,
            screens=screens,
            links=links,
            locales=self.locales(raw["locales"], (*keys, "locales")) if "locales" in raw else {},
            audit=self.audit(raw["audit"], (*keys, "audit"), names, screens) if "audit" in raw else None,
            biometric=self.biometric(raw["biometric"], (*keys, "biometric"), names) if "biometric" in raw else {},
            push=self.screen_name(raw["push"], (*keys, "push"), names) if "push" in raw else None,
            **self.system_parts(raw, keys),
        )

    # -- system prompts and the keyboard (Rules 8, 9) ------------------------------------------

    def system_parts(self, raw: Mapping[str, Any], keys: Keys) -> dict[str, Any]:
        """An app's ``prompts``, ``open_in`` and ``keyboard``."""
        prompts_raw = raw.get("prompts", [])
        if not isinstance(prompts_raw, list):
            self.fail((*keys, "prompts"), f"expected a list of prompts, got {kind_of(prompts_raw)}")
        return {
            "prompts": tuple(self.prompt(p, (*keys, "prompts", i)) for i, p in enumerate(prompts_raw)),
            "open_in": self.flag(raw.get("open_in", False), (*keys, "open_in")),
            "keyboard": self.flag(raw.get("keyboard", False), (*keys, "keyboard")),
        }

    def prompt(self, value: Any, keys: Keys) -> Prompt:
        raw = self.mapping(
            value,
            keys,
            _PROMPT_KEYS,
            what="a prompt: a mapping with service, title and buttons",
        )
        self.require(
            raw,
            keys,
            {
                "service": "write the service it asks for, such as service: location",
                "title": "write its title, such as title: Allow “YourApp” to use your location?",
                "buttons": "write its buttons in order, such as buttons: [Don't Allow, Allow]",
            },
        )
        service = self.string(raw["service"], (*keys, "service"))
        if service not in PROMPT_SERVICES:
            self.fail((*keys, "service"), f"unknown service {service!r}; write one of {', '.join(PROMPT_SERVICES)}")
        buttons_raw = raw["buttons"]
        if not isinstance(buttons_raw, list) or not buttons_raw:
            self.fail((*keys, "buttons"), "expected a list of button labels, at least one")
        buttons = tuple(self.string(b, (*keys, "buttons", i)) for i, b in enumerate(buttons_raw))
        accept_raw = raw.get("accept")
        if accept_raw is None:
            declined = [b for b in buttons if _declines(b)] or list(buttons[:1])
            accept = frozenset(b for b in buttons if b not in declined)
        else:
            if not isinstance(accept_raw, list):
                self.fail((*keys, "accept"), "expected a list of the buttons that grant it")
            accept = frozenset(self.string(b, (*keys, "accept", i)) for i, b in enumerate(accept_raw))
            unknown = accept - set(buttons)
            if unknown:
                self.fail((*keys, "accept"), f"{min(unknown)!r} is not one of its buttons")
        on = raw.get("on", "launch")
        if on != "launch":
            self.fail((*keys, "on"), f"expected launch (the first launch of an install), got {kind_of(on)}")
        return Prompt(
            service=service,
            title=self.string(raw["title"], (*keys, "title")),
            buttons=buttons,
            accept=accept,
            message=self.string(raw.get("message", ""), (*keys, "message"), empty=True),
            again=self.flag(raw.get("again", False), (*keys, "again")),
        )

    def audit(
        self,
        value: Any,
        keys: Keys,
        names: _AppNames,
        screens: Mapping[str, tuple[ScriptedElement, ...]],
    ) -> dict[str, tuple[AuditFinding, ...]]:
        """Rule 10: screen -> findings; every finding names a type and an element of its screen."""
        if not isinstance(value, Mapping):
            self.fail(keys, f"expected a mapping of screen names to lists of findings, got {kind_of(value)}")
        out: dict[str, tuple[AuditFinding, ...]] = {}
        for screen, items in value.items():
            where = (*keys, str(screen))
            name = self.screen_name(screen, where, names)
            if not isinstance(items, list):
                self.fail(where, f"expected a list of findings, got {kind_of(items)}")
            known = {n for e in _flat(screens[name]) for n in (e.identifier, e.label) if n}
            findings: list[AuditFinding] = []
            for index, item in enumerate(items):
                at = (*where, index)
                raw = self.mapping(
                    item,
                    at,
                    _FINDING_KEYS,
                    what="a finding: a mapping with type, element and description",
                )
                self.require(raw, at, {"type": "write type: contrast", "element": "write the element's id or label"})
                kind = self.string(raw["type"], (*at, "type"))
                if kind not in AUDIT_TYPES:
                    self.fail((*at, "type"), f"unknown audit type {kind!r}{did_you_mean(kind, AUDIT_TYPES)}")
                element = self.string(raw["element"], (*at, "element"))
                if element not in known:
                    self.fail((*at, "element"), f"{name} has no element with id or label {element!r}")
                description = self.string(raw.get("description", ""), (*at, "description"), empty=True)
                findings.append(AuditFinding(kind, element, description))
            out[name] = tuple(findings)
        return out

    def biometric(self, value: Any, keys: Keys, names: _AppNames) -> dict[str, Biometric]:
        """Rule 11: screen -> ``{match: screen, fail: screen}``, every name a screen of the app."""
        if not isinstance(value, Mapping) or not value:
            self.fail(keys, f"expected a mapping of screens to {{match: …, fail: …}}, got {kind_of(value)}")
        out: dict[str, Biometric] = {}
        for screen, leads in value.items():
            where = (*keys, str(screen))
            name = self.screen_name(screen, where, names)
            raw = self.mapping(
                leads,
                where,
                _BIOMETRIC_KEYS,
                what="where the prompt leads: a mapping with match and fail",
            )
            self.require(raw, where, {"match": "write match: <screen>", "fail": "write fail: <screen>"})
            out[name] = Biometric(
                self.screen_name(raw["match"], (*where, "match"), names),
                self.screen_name(raw["fail"], (*where, "fail"), names),
            )
        return out

    def screen_name(self, value: Any, keys: Keys, names: _AppNames) -> str:
        screen = self.string(value, keys)
        if screen not in names.screens:
            self.fail(keys, f"{names.bundle} has no screen {screen!r}{did_you_mean(screen, names.screens)}")
        return screen

    # -- elements --------------------------------------------------------------------------

    def elements(self, value: Any, keys: Keys, names: _AppNames, parent: Frame | None) -> tuple[ScriptedElement, ...]:
        if not isinstance(value, list):
            self.fail(keys, f"expected a list of elements, got {kind_of(value)}")
        frameless = [i for i, item in enumerate(value) if isinstance(item, Mapping) and "frame" not in item]
        out: list[ScriptedElement] = []
        for index, item in enumerate(value):
            auto = _auto_frame(parent, frameless.index(index), len(frameless)) if index in frameless else None
            out.append(self.element(item, (*keys, index), names, auto))
        return tuple(out)

    def element(self, value: Any, keys: Keys, names: _AppNames, auto: Frame | None) -> ScriptedElement:
        raw = self.mapping(
            value,
            keys,
            _ELEMENT_KEYS,
            what="an element: a mapping with at least role",
        )
        self.require(raw, keys, {"role": "write its role, such as role: Button"})
        role = self.string(raw["role"], (*keys, "role"))
        if role.startswith("XCUIElementType"):
            self.fail(
                (*keys, "role"),
                f"write the role without its prefix: role: {role.removeprefix('XCUIElementType')}",
            )
        frame = auto if auto is not None else self.frame(raw["frame"], (*keys, "frame"))
        after = self.number(raw["after"], (*keys, "after"), unit="seconds") if "after" in raw else 0.0
        until = self.number(raw["until"], (*keys, "until"), unit="seconds", above=True) if "until" in raw else None
        if until is not None and until <= after:
            self.fail((*keys, "until"), f"the element disappears at {until} s, before it appears at {after} s")
        ticks = self.number(raw["ticks"], (*keys, "ticks"), unit="seconds", above=True) if "ticks" in raw else None
        return ScriptedElement(
            role=role,
            label=self.string(raw.get("label", ""), (*keys, "label"), empty=True),
            identifier=self.string(raw.get("id", ""), (*keys, "id"), empty=True),
            value=self.string(raw.get("value", ""), (*keys, "value"), empty=True),
            frame=frame,
            enabled=self.flag(raw.get("enabled", True), (*keys, "enabled")),
            visible=self.flag(raw.get("visible", True), (*keys, "visible")),
            selected=self.flag(raw.get("selected", False), (*keys, "selected")),
            children=self.elements(raw.get("children", []), (*keys, "children"), names, frame),
            tap=self.tap(raw["tap"], (*keys, "tap"), names) if "tap" in raw else None,
            after=after,
            until=until,
            ticks=ticks,
        )

    def frame(self, value: Any, keys: Keys) -> Frame:
        if not (isinstance(value, list) and len(value) == 4 and all(_is_number(v) for v in value)):
            self.fail(keys, f"expected [x, y, w, h], four numbers normalized to the screen, got {value!r}")
        x, y, w, h = (float(v) for v in value)
        if not all(0.0 <= v <= 1.0 for v in (x, y, w, h)):
            self.fail(keys, f"each of x, y, w, h is normalized to the screen, in 0..1; got {value!r}")
        if x + w > 1.0 + EPSILON or y + h > 1.0 + EPSILON:
            self.fail(keys, f"the frame must lie on the screen (x + w and y + h at most 1); got {value!r}")
        return (x, y, w, h)

    def tap(self, value: Any, keys: Keys, names: _AppNames) -> Tap:
        if value == HOME:
            return Tap(TapKind.HOME)
        if isinstance(value, Mapping):
            raw = self.mapping(value, keys, ("open",), what="{open: BUNDLE}")
            self.require(raw, keys, {"open": "write {open: BUNDLE}"})
            bundle = self.string(raw["open"], (*keys, "open"))
            if bundle not in names.bundles:
                self.fail(
                    (*keys, "open"),
                    f"no app {bundle!r} in this script{did_you_mean(bundle, names.bundles)}; "
                    "open one of its apps (tap: home for the home screen)",
                )
            return Tap(TapKind.OPEN, bundle)
        if not isinstance(value, str):
            self.fail(keys, f"expected a screen name, home, or {{open: BUNDLE}}; got {kind_of(value)}")
        return Tap(TapKind.SCREEN, self.screen_name(value, keys, names))


def _declines(button: str) -> bool:
    """Rule 8: a declining button ("Don't Allow", with the typographic apostrophe iOS writes, "Cancel", "Deny")."""
    return button.casefold().replace("\u2019", "'").startswith(("don't", "cancel", "not now", "ask app not", "deny"))


def _flat(elements: Sequence[ScriptedElement]) -> list[ScriptedElement]:
    """Every element of a screen, children included, depth first."""
    out: list[ScriptedElement] = []
    for element in elements:
        out.append(element)
        out.extend(_flat(element.children))
    return out


def _auto_frame(parent: Frame | None, index: int, count: int) -> Frame:
    """The frame of the ``index``-th of ``count`` frameless siblings (Rule 5)."""
    if parent is None:
        pitch = min(_ROW_PITCH, (_BOTTOM - _TOP) / count)
        height = pitch * _ROW_HEIGHT / _ROW_PITCH
        return (_LEFT, round(_TOP + index * pitch, 6), _WIDTH, round(height, 6))
    px, py, pw, ph = parent
    pitch = ph / count
    return (
        round(px + pw * 0.04, 6),
        round(py + index * pitch + pitch * 0.1, 6),
        round(pw * 0.92, 6),
        round(pitch * 0.8, 6),
    )
