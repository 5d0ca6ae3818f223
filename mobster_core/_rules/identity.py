"""Which recorded path a run may replay: the identity of a check and the env it was recorded in.

Rule 1: the identity is 16 hex digits over what the path replays: the steps (whitespace
        collapsed), the bundle id, the app file's name, the launch args, env and URL, and the reset.
        Never the check's name, expectations, tags or budget: rewording an assertion keeps the path.
Rule 2: the env is 12 hex digits over where the path was recorded: the app's version and build,
        the iOS major version and the device kind. On an iPhone the app's version is not read, so
        it is not part of the env (an iPhone env's version and build are always None).
Rule 3: both payloads carry ``"format": 1``; changing what is hashed means a new format number,
        and the golden digests in the tests change on purpose, never by accident.
Rule 4: iOS 26.4 and 26.5 are one env: only the major version counts.
Rule 5: why a run records afresh is decided by comparing with the newest stored env, in this
        order: the device kind, then iOS, then the app.

Everything here is pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import attrs

from .canon import digest
from .device import AppInfo, DeviceInfo, DeviceKind, LaunchOptions, Reset

__all__ = ["ENV_DIGEST_LENGTH", "IDENTITY_LENGTH", "Env", "path_identity", "why_fresh"]

IDENTITY_LENGTH = 16
ENV_DIGEST_LENGTH = 12
_FORMAT = 1
_ENV_KEYS = ("app_version", "app_build", "ios_major", "kind")


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


def _ios_major(_inst: object, _attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ios_major is a whole number from 1 up, got {value!r}")


@attrs.frozen
class Env:
    """Where a path was recorded (Rule 2). Build it with :meth:`of`."""

    app_version: str | None
    app_build: str | None
    ios_major: int = attrs.field(validator=_ios_major)
    kind: DeviceKind = attrs.field(converter=DeviceKind)

    def __attrs_post_init__(self) -> None:
        if self.kind is DeviceKind.IPHONE and (self.app_version is not None or self.app_build is not None):
            raise ValueError("on an iPhone the app's version is not read: app_version and app_build are None")

    @classmethod
    def of(cls, device: DeviceInfo, app: AppInfo) -> Env:
        """The env of ``app`` on ``device`` (on an iPhone the version and build are left out)."""
        if device.kind is DeviceKind.IPHONE:
            return cls(None, None, device.ios_major, device.kind)
        return cls(app.version, app.build, device.ios_major, device.kind)

    @property
    def digest(self) -> str:
        """12 lowercase hex digits over the env (Rule 2)."""
        app = None if self.kind is DeviceKind.IPHONE else [self.app_version, self.app_build]
        payload = {"format": _FORMAT, "app": app, "ios": self.ios_major, "kind": self.kind.value}
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
        With no ``beside``, everything: ``1.0 (1) on iOS 26 on a simulator``.
        """
        known = self.app_version is not None or self.app_build is not None
        text = self.describe_app() if known else f"iOS {self.ios_major}"
        if known and (beside is None or beside.ios_major != self.ios_major):
            text += f" on iOS {self.ios_major}"
        if beside is None or beside.kind is not self.kind:
            text += " on a simulator" if self.kind is DeviceKind.SIMULATOR else " on an iPhone"
        return text

    def to_dict(self) -> dict[str, Any]:
        """The env as stored readably beside a path, with its digest first."""
        return {
            "digest": self.digest,
            "app_version": self.app_version,
            "app_build": self.app_build,
            "ios_major": self.ios_major,
            "kind": self.kind.value,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Env:
        """Read an env back, strictly: exactly the keys of :meth:`to_dict`, no conversions.

        ``digest`` may be left out; when present it must be the env's digest. Raises
        ``ValueError`` naming the key and what was expected.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"env: expected a mapping, got {type(data).__name__}")
        extra = sorted(str(k) for k in data if k not in (*_ENV_KEYS, "digest"))
        if extra:
            raise ValueError(f"env: unknown key {extra[0]!r}")
        missing = [k for k in _ENV_KEYS if k not in data]
        if missing:
            raise ValueError(f"env: key {missing[0]!r} is missing")
        for key in ("app_version", "app_build"):
            if data[key] is not None and not isinstance(data[key], str):
                raise ValueError(f"env: key {key!r}: expected a string or null, got {data[key]!r}")
        ios_major, kind = data["ios_major"], data["kind"]
        if isinstance(ios_major, bool) or not isinstance(ios_major, int):
            raise ValueError(f"env: key 'ios_major': expected a whole number, got {ios_major!r}")
        if not isinstance(kind, str) or kind not in {k.value for k in DeviceKind}:
            raise ValueError(f"env: key 'kind': expected 'simulator' or 'iphone', got {kind!r}")
        try:
            env = cls(data["app_version"], data["app_build"], ios_major, DeviceKind(kind))
        except ValueError as exc:
            raise ValueError(f"env: {exc}") from exc
        if "digest" in data and data["digest"] != env.digest:
            raise ValueError(f"env: key 'digest': {data['digest']!r} is not the digest of the env ({env.digest})")
        return env


def why_fresh(current: Env, newest: Env | None) -> str:
    """Why a run records afresh, compared with the newest stored env (Rule 5)."""
    if newest is None:
        return "no recorded path yet"
    if current.kind is not newest.kind:
        if newest.kind is DeviceKind.SIMULATOR:
            return "recorded on a simulator, this is an iPhone"
        return "recorded on an iPhone, this is a simulator"
    if current.ios_major != newest.ios_major:
        return f"iOS changed (recorded on iOS {newest.ios_major}, this is iOS {current.ios_major})"
    if (current.app_version, current.app_build) != (newest.app_version, newest.app_build):
        return f"the app changed (recorded on {newest.describe_app()}, this is {current.describe_app()})"
    return "no recorded path for this environment"
