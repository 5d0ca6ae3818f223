"""What a device is told to do and what it says about itself.

Rule 1: an :class:`Action` acts on an element *as it is on the current screen* (its current frame),
        never on recorded coordinates.
Rule 2: ``TAP``, ``LONG_PRESS`` and ``TYPE`` need an element; swipes may have one; the others
        take none. ``TYPE`` carries the text; ``LAUNCH_APP`` the bundle id; ``OPEN_URL`` the URL.
Rule 3: a locale is written as iOS reports it (``en_US``, ``de_DE``, ``zh-Hans_CN``): a language
        (2 or 3 letters, an optional script), then an optional ``_`` and region. ``de-DE`` is read
        as ``de_DE``. The appearance is ``light`` or ``dark``. A device that can't tell says None.
Rule 4 (the platform): a device's kind says its platform: a ``simulator`` and an ``iphone`` are
        iOS, an ``emulator`` and a ``device`` (a real phone, tablet or TV) are Android. ``ios`` is
        the version the platform numbers compatibility by: iOS's (``"26.4"``), or on Android the
        API level (``"34"``, Android 14's); ``release`` is Android's version as people say it
        (``"14"``), for messages only. A real device (``iphone``, ``device``) gets the stricter
        safety rules.
Rule 5 (home): the home screen is an app of its own: SpringBoard on iOS, the launcher on Android
        (:data:`HOME_SCREENS`: AOSP's and the common vendors' launchers, as their packages appear
        in a read); a launcher not listed is read as any other app.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping

import attrs

from mobster_core._rules.vocabulary.screen import Element
from mobster_core._rules.vocabulary.steps import Op

__all__ = [
    "HOME_SCREENS",
    "SPRINGBOARD",
    "Action",
    "AppInfo",
    "Appearance",
    "DeviceInfo",
    "DeviceKind",
    "LaunchOptions",
    "Platform",
    "Reset",
    "language_of",
    "normal_locale",
]

_IOS_VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
_LOCALE = re.compile(r"([A-Za-z]{2,3})(-[A-Z][a-z]{3})?(?:[_-]([A-Z]{2}|[0-9]{3}))?")


class Appearance(enum.StrEnum):
    """Light or dark mode (Rule 3)."""

    LIGHT = "light"
    DARK = "dark"


def normal_locale(value: str) -> str:
    """Rule 3: ``value`` as iOS writes a locale (``de-DE`` -> ``de_DE``); ValueError when it isn't one."""
    m = _LOCALE.fullmatch(value.strip()) if isinstance(value, str) else None
    if m is None:
        raise ValueError(f"a locale is written like en_US, de_DE or zh-Hans_CN, not {value!r}")
    language, script, region = m.groups()
    return language.lower() + (script or "") + (f"_{region}" if region else "")


def language_of(locale: str) -> str:
    """The language of a locale: ``de`` for ``de_DE``, ``zh-Hans`` for ``zh-Hans_CN``."""
    return normal_locale(locale).split("_", 1)[0]


def _locale_or_none(value: str | None) -> str | None:
    return None if value is None else normal_locale(value)


def _appearance_or_none(value: str | Appearance | None) -> Appearance | None:
    return None if value is None else Appearance(value)


class Platform(enum.StrEnum):
    """Rule 4: the phone's operating system; a path recorded on one never replays on the other."""

    IOS = "ios"
    ANDROID = "android"

    @property
    def written(self) -> str:
        """The platform as people write it: ``iOS``, ``Android``."""
        return "iOS" if self is Platform.IOS else "Android"


class DeviceKind(enum.StrEnum):
    """Where a check runs: the safety rules and the replay env depend on it (Rule 4)."""

    SIMULATOR = "simulator"
    IPHONE = "iphone"
    EMULATOR = "emulator"
    DEVICE = "device"

    @property
    def platform(self) -> Platform:
        """Rule 4: iOS for a simulator and an iPhone, Android for an emulator and a device."""
        return Platform.IOS if self in (DeviceKind.SIMULATOR, DeviceKind.IPHONE) else Platform.ANDROID

    @property
    def is_real(self) -> bool:
        """Rule 4: a real phone (an iPhone, an Android device), held to the stricter safety rules."""
        return self in (DeviceKind.IPHONE, DeviceKind.DEVICE)

    @property
    def named(self) -> str:
        """The kind in a sentence: ``a simulator``, ``an iPhone``, ``an emulator``, ``a real Android device``."""
        return _KIND_NAMES[self]


_KIND_NAMES = {
    DeviceKind.SIMULATOR: "a simulator",
    DeviceKind.IPHONE: "an iPhone",
    DeviceKind.EMULATOR: "an emulator",
    DeviceKind.DEVICE: "a real Android device",
}


class Reset(enum.StrEnum):
    """What happens to the app before a launch: nothing, its data wiped, or reinstalled."""

    NONE = "none"
    DATA = "data"
    REINSTALL = "reinstall"


def _ios(_inst: object, _attribute: attrs.Attribute[str], value: str) -> None:
    if not _IOS_VERSION.fullmatch(value):
        raise ValueError(f"ios is a version such as '26.4', got {value!r}")


@attrs.frozen
class DeviceInfo:
    """A device's name, OS version and kind; its locale and appearance (Rule 3) when it says.

    ``ios`` is iOS's version (``"26.4"``), or on Android the API level (``"34"``) with Android's
    ``release`` (``"14"``) beside it (Rule 4).
    """

    name: str
    ios: str = attrs.field(validator=_ios)
    kind: DeviceKind
    udid: str = ""
    locale: str | None = attrs.field(default=None, converter=_locale_or_none, kw_only=True)
    appearance: Appearance | None = attrs.field(default=None, converter=_appearance_or_none, kw_only=True)
    release: str | None = attrs.field(default=None, kw_only=True)

    @property
    def platform(self) -> Platform:
        """Rule 4: the platform the kind says."""
        return self.kind.platform

    @property
    def ios_major(self) -> int:
        """The OS major version: ``26`` for iOS ``"26.4"``, the API level on Android (Rule 4)."""
        return int(self.ios.split(".", 1)[0])

    @property
    def os_text(self) -> str:
        """The OS for people: ``iOS 26.4``, ``Android 14 (API 34)`` (``Android API 34`` without a release)."""
        if self.kind.platform is Platform.IOS:
            return f"iOS {self.ios}"
        return f"Android {self.release} (API {self.ios})" if self.release else f"Android API {self.ios}"


@attrs.frozen
class AppInfo:
    """An installed app. ``version`` and ``build`` are None where the device cannot read them."""

    bundle: str
    version: str | None = None
    build: str | None = None


#: The bundle id of the iOS home screen.
SPRINGBOARD = "com.apple.springboard"

#: Rule 5: the home screens, by the package in front: SpringBoard, AOSP's launchers (``Launcher3``;
#: the Android 4 launcher, ``com.android.launcher``), Google's (the Pixel launcher; the Google Now
#: launcher) and the common vendors' (Samsung, Xiaomi, OnePlus, Huawei, Amazon's Fire TV).
HOME_SCREENS: frozenset[str] = frozenset(
    {
        SPRINGBOARD, "com.android.launcher3", "com.android.launcher", "com.google.android.apps.nexuslauncher",
        "com.google.android.launcher", "com.sec.android.app.launcher", "com.miui.home", "net.oneplus.launcher",
        "com.huawei.android.launcher", "com.amazon.tv.launcher",
    }
)  # fmt: skip


def _env(value: Mapping[str, str] | None) -> dict[str, str]:
    return dict(value or {})


def _permissions(value: Mapping[str, bool] | None) -> dict[str, bool]:
    return dict(value or {})


def _args(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str | bytes):
        raise TypeError("args is a list of strings, not a single string")
    return tuple(value)


@attrs.frozen
class LaunchOptions:
    """How to launch the app under test: arguments, environment, a deep link, a reset, a locale.

    ``locale`` (Rule 3) is given only to a device that launches apps in a locale
    (``protocols.LocaleLaunches``); None: the device's own. ``permissions`` are the privacy
    services the check's alert policy grants (True) or denies (False) by name: a device that can
    set them before the launch (a simulator: ``simctl privacy``) does so after any reset, so their
    prompts never show; any other ignores them and the prompts are answered as they show
    (``docs/alerts.md``).
    """

    args: tuple[str, ...] = attrs.field(default=(), converter=_args)
    env: dict[str, str] = attrs.field(factory=dict, converter=_env, hash=False)
    url: str | None = None
    reset: Reset = Reset.NONE
    locale: str | None = attrs.field(default=None, converter=_locale_or_none)
    permissions: Mapping[str, bool] = attrs.field(factory=dict, converter=_permissions, hash=False)


@attrs.frozen
class Action:
    """One thing to do on the device (see the module rules)."""

    op: Op
    element: Element | None = None
    text: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.op.needs_target and self.element is None:
            raise ValueError(f"{self.op} needs an element")
        if self.element is not None and not self.op.takes_target:
            raise ValueError(f"{self.op} takes no element")
        if self.op in (Op.TYPE, Op.LAUNCH_APP, Op.OPEN_URL):
            if not self.text:
                raise ValueError(f"{self.op} needs text")
        elif self.text is not None:
            raise ValueError(f"{self.op} takes no text")
