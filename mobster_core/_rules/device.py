"""What a device is told to do and what it says about itself.

Rule 1: an :class:`Action` acts on an element *as it is on the current screen* (its current frame),
        never on recorded coordinates.
Rule 2: ``TAP``, ``LONG_PRESS`` and ``TYPE`` need an element; swipes may have one; the others
        take none. ``TYPE`` carries the text; ``LAUNCH_APP`` the bundle id; ``OPEN_URL`` the URL.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping

import attrs

from .screen import Element
from .steps import Op

__all__ = ["SPRINGBOARD", "Action", "AppInfo", "DeviceInfo", "DeviceKind", "LaunchOptions", "Reset"]

_IOS_VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")


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
    """A device's name, iOS version (``"26.4"``) and kind."""

    name: str
    ios: str = attrs.field(validator=_ios)
    kind: DeviceKind
    udid: str = ""

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


def _args(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str | bytes):
        raise TypeError("args is a list of strings, not a single string")
    return tuple(value)


@attrs.frozen
class LaunchOptions:
    """How to launch the app under test: arguments, environment, a deep link, a reset."""

    args: tuple[str, ...] = attrs.field(default=(), converter=_args)
    env: dict[str, str] = attrs.field(factory=dict, converter=_env, hash=False)
    url: str | None = None
    reset: Reset = Reset.NONE


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
