"""Which recorded path a run may replay: the identity of a check and the env it was recorded in.

Rule 1: the identity is 16 hex digits over what the path replays: the steps (whitespace
        collapsed), the bundle id, the app file's name, the launch args, env and URL, and the reset.
        Never the check's name, expectations, tags or budget: rewording an assertion keeps the path.
Rule 2: the env is 12 hex digits over where the path was recorded: the app's version and build,
        the iOS major version, the device kind, and the locale and light/dark appearance the app
        ran in, as the device reports them (a German device never replays a path recorded in
        English). On an iPhone the app's version is not read, so it is not part of the env (an
        iPhone env's version and build are always None).
Rule 3: both payloads carry a format number; changing what is hashed means a new format number,
        and the golden digests in the tests change on purpose, never by accident. An env whose
        device reported neither locale nor appearance (a driver that can't tell) hashes as format 1
        did, so its paths keep their names; one with either hashes as format 2.
Rule 4: iOS 26.4 and 26.5 are one env: only the major version counts.
Rule 5: why a run records afresh is decided by comparing with the newest stored env of the same
        platform (the newest of any when the platform has none), in this order: the platform, the
        device kind, then the OS (iOS, or Android's API level), then the app, then the language and
        region, then the appearance.
Rule 6 (the platform): the platform (``device`` Rule 4, said by the kind) is part of the env: a
        path recorded on iOS never replays on Android, nor the other way ("recorded on iOS, this is
        Android"). An iOS env hashes as it did before Android existed (its paths keep their names);
        an Android env hashes as format 3, with the platform and its API level, and is stored
        readably with ``platform: android`` and ``api_level`` in place of ``ios_major``.

Rule 6: a check that uses flows has a path in parts, each kept under its own identity: each flow
        it uses (a segment: :func:`segment_identity`, shared by every check that uses the flow
        with the same bindings) and each run of its own steps between them
        (:func:`part_identity` of the check's own identity, whose steps name each flow as
        ``use: NAME`` and never its steps). The check's identity is :func:`composite_identity`
        of them all; a check with no flow has one part, keyed by Rule 1's identity as before.

Everything here is pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import attrs

from mobster_core._rules.device.device import (
    Appearance,
    AppInfo,
    DeviceInfo,
    DeviceKind,
    LaunchOptions,
    Platform,
    Reset,
    normal_locale,
)
from mobster_core._rules.formats.canon import digest

__all__ = [
    "ENV_DIGEST_LENGTH",
    "IDENTITY_LENGTH",
    "MAX_BRANCHES",
    "Env",
    "branch_identity",
    "composite_identity",
    "part_identity",
    "path_identity",
    "segment_identity",
    "why_fresh",
]

IDENTITY_LENGTH = 16
ENV_DIGEST_LENGTH = 12
_FORMAT = 1
#: Rule 3: the env's payload once it holds a locale or an appearance.
_ENV_FORMAT = 2
#: Rule 6: an Android env's payload.
_ANDROID_FORMAT = 3
_ENV_KEYS = ("app_version", "app_build", "ios_major", "kind")
#: Rule 6: an Android env's readable keys (``ios_major`` is its API level).
_ANDROID_KEYS = ("platform", "app_version", "app_build", "api_level", "kind")
#: Keys an env read back may leave out (an env stored before they were part of it).
_ENV_OPTIONAL = ("locale", "appearance")


def _locale(value: str | None) -> str | None:
    return None if value is None else normal_locale(value)


def _appearance(value: str | Appearance | None) -> Appearance | None:
    return None if value is None else Appearance(value)


def path_identity(steps: Sequence[str], *, bundle: str, app_path: str | None, launch: LaunchOptions) -> str:
    """The identity of a check's path (Rule 1): 16 lowercase hex digits.

    ``steps`` are the check's plain-English steps; ``app_path`` the app file (only its name
    counts: ``build/YourApp.app`` and ``dist/YourApp.app`` are one identity); ``launch`` its
    launch arguments, environment, deep link and reset.
    """
    if isinstance(steps, str | bytes):
        raise TypeError("steps is a list of strings, not a single string")
    payload = {
        "format": _FORMAT,
        "steps": [" ".join(s.split()) for s in steps],
        "bundle": bundle,
        "app_file": None if app_path is None else PurePosixPath(app_path).name,
        "launch": {"args": list(launch.args), "env": dict(launch.env), "url": launch.url},
        "reset": Reset(launch.reset).value,
    }
    return digest(payload, IDENTITY_LENGTH)


def segment_identity(flow: str, steps: Sequence[str], *, bundle: str) -> str:
    """Rule 6: the identity of a flow's segment: the flow's name, its steps as bound and the bundle id.

    ``steps`` are the flow's steps with its inputs bound (``${user}`` replaced by what the caller
    bound it to: a reference by its name, ``${PAID_USER}``, never a value), so two callers that
    bind the same names share the segment, and a caller binding other names has its own.
    """
    payload = {"format": _FORMAT, "segment": flow, "steps": [" ".join(s.split()) for s in steps], "bundle": bundle}
    return digest(payload, IDENTITY_LENGTH)


def part_identity(own: str, part: int) -> str:
    """Rule 6: the identity of the ``part``-th run (from 1) of a check's own steps between its flows."""
    return digest({"format": _FORMAT, "own": own, "part": part}, IDENTITY_LENGTH)


#: Rule 6: the most paths a check's rows keep beside the one they share, per env.
MAX_BRANCHES = 4


def branch_identity(identity: str, branch: int) -> str:
    """Rule 6: the identity of the ``branch``-th path (from 1) a check's rows recorded where their screens differ."""
    return digest({"format": _FORMAT, "rows_of": identity, "branch": branch}, IDENTITY_LENGTH)


def composite_identity(own: str, segments: Sequence[str]) -> str:
    """Rule 6: the identity of a check that uses flows: its own steps' and every segment's, in order."""
    return digest({"format": _FORMAT, "own": own, "segments": list(segments)}, IDENTITY_LENGTH)


def _ios_major(_inst: object, _attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ios_major is a whole number from 1 up, got {value!r}")


@attrs.frozen
class Env:
    """Where a path was recorded (Rule 2). Build it with :meth:`of`."""

    app_version: str | None
    app_build: str | None
    #: The OS major version: iOS's, or Android's API level (Rule 6).
    ios_major: int = attrs.field(validator=_ios_major)
    kind: DeviceKind = attrs.field(converter=DeviceKind)
    locale: str | None = attrs.field(default=None, converter=_locale, kw_only=True)
    appearance: Appearance | None = attrs.field(default=None, converter=_appearance, kw_only=True)

    def __attrs_post_init__(self) -> None:
        if self.kind is DeviceKind.IPHONE and (self.app_version is not None or self.app_build is not None):
            raise ValueError("on an iPhone the app's version is not read: app_version and app_build are None")

    @property
    def platform(self) -> Platform:
        """Rule 6: the platform the kind says."""
        return self.kind.platform

    @property
    def os_text(self) -> str:
        """The OS major for people: ``iOS 26``, ``Android API 34``."""
        return f"iOS {self.ios_major}" if self.platform is Platform.IOS else f"Android API {self.ios_major}"

    @classmethod
    def of(cls, device: DeviceInfo, app: AppInfo, *, locale: str | None = None) -> Env:
        """The env of ``app`` on ``device`` (on an iPhone the version and build are left out).

        ``locale`` is the locale the app was launched in when the run asked for one and the
        device applied it; else the device's own.
        """
        where = {"locale": locale or device.locale, "appearance": device.appearance}
        if device.kind is DeviceKind.IPHONE:
            return cls(None, None, device.ios_major, device.kind, **where)
        return cls(app.version, app.build, device.ios_major, device.kind, **where)

    @property
    def digest(self) -> str:
        """12 lowercase hex digits over the env (Rules 2, 3)."""
        app = None if self.kind is DeviceKind.IPHONE else [self.app_version, self.app_build]
        appearance = None if self.appearance is None else self.appearance.value
        if self.platform is Platform.ANDROID:  # Rule 6: its own payload, never an iOS env's
            android: dict[str, Any] = {"format": _ANDROID_FORMAT, "platform": "android", "app": app}
            android.update(api=self.ios_major, kind=self.kind.value, locale=self.locale, appearance=appearance)
            return digest(android, ENV_DIGEST_LENGTH)
        payload: dict[str, Any] = {"format": _FORMAT, "app": app, "ios": self.ios_major, "kind": self.kind.value}
        if self.locale is not None or self.appearance is not None:
            payload.update(format=_ENV_FORMAT, locale=self.locale, appearance=appearance)
        return digest(payload, ENV_DIGEST_LENGTH)

    def describe_app(self) -> str:
        """The app's version as people write it: ``1.0 (1)``."""
        if self.app_version is not None and self.app_build is not None:
            return f"{self.app_version} ({self.app_build})"
        if self.app_version is not None:
            return self.app_version
        if self.app_build is not None:
            return f"build {self.app_build}"
        return "an unknown version"

    def describe(self, beside: Env | None = None) -> str:
        """Where a path was recorded, for people, naming only what differs from ``beside``.

        ``1.0 (1)``; ``1.0 (1) on iOS 26`` when iOS differs; ``iOS 26`` for an iPhone (its app
        version is not read); `` on a simulator`` or `` on an iPhone`` when the kind differs.
        With no ``beside``, everything: ``1.0 (1) on iOS 26 on a simulator`` (on Android:
        ``1.0 (1) on Android API 34 on an emulator``).
        """
        known = self.app_version is not None or self.app_build is not None
        text = self.describe_app() if known else self.os_text
        if known and (beside is None or (beside.platform, beside.ios_major) != (self.platform, self.ios_major)):
            text += f" on {self.os_text}"
        if beside is None or beside.kind is not self.kind:
            text += f" on {self.kind.named}"
        if self.locale is not None and (beside is None or beside.locale != self.locale):
            text += f" in {self.locale}"
        if self.appearance is not None and (beside is None or beside.appearance is not self.appearance):
            text += f" in {self.appearance.value} mode"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The env as stored readably beside a path, with its digest first (an Android env: Rule 6)."""
        if self.platform is Platform.ANDROID:
            return {
                "digest": self.digest,
                "platform": "android",
                "app_version": self.app_version,
                "app_build": self.app_build,
                "api_level": self.ios_major,
                "kind": self.kind.value,
                "locale": self.locale,
                "appearance": None if self.appearance is None else self.appearance.value,
            }
        return {
            "digest": self.digest,
            "app_version": self.app_version,
            "app_build": self.app_build,
            "ios_major": self.ios_major,
            "kind": self.kind.value,
            "locale": self.locale,
            "appearance": None if self.appearance is None else self.appearance.value,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Env:
        """Read an env back, strictly: exactly the keys of :meth:`to_dict`, no conversions.

        ``digest`` may be left out; when present it must be the env's digest. Raises
        ``ValueError`` naming the key and what was expected.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"env: expected a mapping, got {type(data).__name__}")
        android = data.get("platform") == "android"
        keys = _ANDROID_KEYS if android else _ENV_KEYS
        extra = sorted(str(k) for k in data if k not in (*keys, *_ENV_OPTIONAL, "digest"))
        if extra:
            hint = " (only an Android env, platform: android, has one)" if extra[0] in _ANDROID_KEYS else ""
            raise ValueError(f"env: unknown key {extra[0]!r}{hint}")
        missing = [k for k in keys if k not in data]
        if missing:
            raise ValueError(f"env: key {missing[0]!r} is missing")
        for key in ("app_version", "app_build"):
            if data[key] is not None and not isinstance(data[key], str):
                raise ValueError(f"env: key {key!r}: expected a string or null, got {data[key]!r}")
        major_key = "api_level" if android else "ios_major"
        ios_major, kind = data[major_key], data["kind"]
        if isinstance(ios_major, bool) or not isinstance(ios_major, int):
            raise ValueError(f"env: key {major_key!r}: expected a whole number, got {ios_major!r}")
        platform = Platform.ANDROID if android else Platform.IOS
        kinds = [k.value for k in DeviceKind if k.platform is platform]
        if not isinstance(kind, str) or kind not in kinds:
            raise ValueError(f"env: key 'kind': expected {' or '.join(map(repr, kinds))}, got {kind!r}")
        where = _where_from(data)
        try:
            env = cls(data["app_version"], data["app_build"], ios_major, DeviceKind(kind), **where)
        except ValueError as exc:
            raise ValueError(f"env: {exc}") from exc
        if "digest" in data and data["digest"] != env.digest:
            raise ValueError(f"env: key 'digest': {data['digest']!r} is not the digest of the env ({env.digest})")
        return env


def _is_locale(value: Any) -> bool:
    """A locale as :func:`~.device.normal_locale` writes it."""
    try:
        return isinstance(value, str) and normal_locale(value) == value
    except ValueError:
        return False


def _where_from(data: Mapping[str, Any]) -> dict[str, Any]:
    """An env dictionary's locale and appearance, checked strictly (absent: None)."""
    locale, appearance = data.get("locale"), data.get("appearance")
    if locale is not None and not _is_locale(locale):
        raise ValueError(f"env: key 'locale': expected a locale such as en_US or null, got {locale!r}")
    if appearance is not None and appearance not in {a.value for a in Appearance}:
        raise ValueError(f"env: key 'appearance': expected 'light', 'dark' or null, got {appearance!r}")
    return {"locale": locale, "appearance": appearance}


def why_fresh(current: Env, newest: Env | None) -> str:
    """Why a run records afresh, compared with the newest stored env (Rule 5).

    ``newest`` is the newest stored env of ``current``'s platform, else the newest of any.
    """
    if newest is None:
        return "no recorded path yet"
    return (
        _device_changed(current, newest) or _where_changed(current, newest) or "no recorded path for this environment"
    )


def _device_changed(current: Env, newest: Env) -> str | None:
    """Rule 5's first four: the platform, the device kind, the OS, the app."""
    if current.platform is not newest.platform:  # Rule 6
        return f"recorded on {newest.platform.written}, this is {current.platform.written}"
    if current.kind is not newest.kind:
        return f"recorded on {newest.kind.named}, this is {current.kind.named}"
    if current.ios_major != newest.ios_major:
        if current.platform is Platform.ANDROID:
            return f"Android changed (recorded on API {newest.ios_major}, this is API {current.ios_major})"
        return f"iOS changed (recorded on iOS {newest.ios_major}, this is iOS {current.ios_major})"
    if (current.app_version, current.app_build) != (newest.app_version, newest.app_build):
        return f"the app changed (recorded on {newest.describe_app()}, this is {current.describe_app()})"
    return None


def _where_changed(current: Env, newest: Env) -> str | None:
    """Rule 5's last two: the language and region, the appearance."""
    if current.locale != newest.locale:
        return _changed("the device's language", "in", newest.locale, current.locale)
    if current.appearance is not newest.appearance:
        was, now = (None if a is None else f"{a.value} mode" for a in (newest.appearance, current.appearance))
        return _changed("the device's appearance", "in", was, now)
    return None


def _changed(what: str, preposition: str, was: str | None, now: str | None) -> str:
    """``the device's language changed: recorded in en_US, this is de_DE`` (an unknown side said so)."""
    if was is None:
        return f"{what} is now part of the env: the path was recorded before it was read, this is {now}"
    if now is None:
        return f"{what} can't be read on this device (recorded {preposition} {was})"
    return f"{what} changed: recorded {preposition} {was}, this is {now}"
