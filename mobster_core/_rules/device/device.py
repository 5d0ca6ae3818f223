"""What a device is told to do and what it says about itself.

Rule 1: an :class:`Action` acts on an element *as it is on the current screen* (its current frame),
        never on recorded coordinates.
Rule 2: ``TAP``, ``LONG_PRESS`` and ``TYPE`` need an element; swipes may have one; the others
        take none. ``TYPE`` carries the text; ``LAUNCH_APP`` the bundle id; ``OPEN_URL`` the URL.
Rule 3: a locale is written as iOS reports it (``en_US``, ``de_DE``, ``zh-Hans_CN``): a language
        (2 or 3 letters, an optional script), then an optional ``_`` and region. ``de-DE`` is read
        as ``de_DE``. The appearance is ``light`` or ``dark``. A device that can't tell says None.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping

import attrs

from mobster_core._rules.vocabulary.screen import Element
from mobster_core._rules.vocabulary.steps import Op

__all__ = [
    "SPRINGBOARD",
    "Action",
    "AppInfo",
    "Appearance",
    "DeviceInfo",
    "DeviceKind",
    "LaunchOptions",
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


class DeviceKind(enum.StrEnum):
    """Where a check runs: the safety rules and the replay env depend on it."""

    SIMULATOR = "simulator"
    IPHONE = "iphone"


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
    """A device's name, iOS version (``"26.4"``) and kind; its locale and appearance (Rule 3) when it says."""

    name: str
    ios: str = attrs.field(validator=_ios)
    kind: DeviceKind
    udid: str = ""
    locale: str | None = attrs.field(default=None, converter=_locale_or_none, kw_only=True)
    appearance: Appearance | None = attrs.field(default=None, converter=_appearance_or_none, kw_only=True)

    @property
    def ios_major(self) -> int:
        """The iOS major version: ``26`` for ``"26.4"``."""
        return int(self.ios.split(".", 1)[0])


@attrs.frozen
class AppInfo:
    """An installed app. ``version`` and ``build`` are None where the device cannot read them."""

    bundle: str
    version: str | None = None
    build: str | None = None


#: The bundle id of the iOS home screen.
SPRINGBOARD = "com.apple.springboard"


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
