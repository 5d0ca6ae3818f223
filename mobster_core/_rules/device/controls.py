"""What a check asks of the device beyond its screen: settings, video, and the accessibility audit.

Rule 1: a check's ``device:`` settings (:class:`DeviceSettings`) are a simulator's: a location
        (latitude from -90 to 90, longitude from -180 to 180, degrees), an appearance (``light``
        or ``dark``), a content size (one of :data:`CONTENT_SIZES`, the names ``xcrun simctl ui
        <udid> content_size`` takes) and whether Face ID / Touch ID is enrolled. They are applied
        once, before the app is launched; a device that can't apply them (an iPhone, a cloud) is
        no place for the check (``couldnt_run``, class ``environment``).
Rule 2: ``--video`` is ``off`` (the default), ``on`` or ``retain-on-failure`` (:class:`VideoMode`):
        a recording is kept unless the mode is ``retain-on-failure`` and the check passed.
        A recording that can't start, or can't be finalized, is a warning, never the outcome.
Rule 3: the audit types are XCUIAccessibilityAuditType's names (``XCUIAccessibilityAuditType``
        and a lower-case first letter: ``contrast``, ``dynamicType``, …; :data:`AUDIT_TYPES`);
        none given means all of them, as WebDriverAgent reads an empty list.
Rule 5: a check's device steps (:class:`DeviceEvent`) are a biometric prompt matched or failed
        (``faceId`` or ``touchId``) and a push notification: a JSON object with an ``aps``
        object (what ``xcrun simctl push`` and APNs take), at most :data:`MAX_PUSH_BYTES` (4 KB,
        APNs' limit for a notification's payload), nested at most :data:`MAX_PUSH_DEPTH` deep
        (so it parses wherever it is checked again, whatever the stack's depth). The path records
        a push by its file name and the first 16 hex digits of its content's SHA-256 (:attr:`DeviceEvent.digest`), never
        the payload (it may hold a token or a user's data).
Rule 6: a recorded path fits the check's device steps when its own, in order, are the check's
        first ones (:func:`device_misfit`): each the same op and sensor, or a push of the same file
        (its content may have changed: Rule 5). Fewer is a Smart run that ended early; any other
        path would send what the check doesn't say (an edited or imported path): it isn't replayed.
Rule 4: an audit issue (:class:`AuditIssue`) is the device's fact: its type, Apple's description,
        and the element it is about as the device names it (type, label, identifier). A device
        that can't audit says why (:attr:`AuditReport.unavailable`): the assertion can't run, and
        never passes.
"""

from __future__ import annotations

import enum
import hashlib
import json
import math
from collections.abc import Sequence

import attrs

from mobster_core._rules.formats.text import bom_problem
from mobster_core._rules.vocabulary.steps import SENSORS, Op, Step, describe_action

from .device import Appearance

__all__ = [
    "AUDIT_TYPES",
    "CONTENT_SIZES",
    "MAX_PUSH_BYTES",
    "AuditIssue",
    "AuditReport",
    "DeviceEvent",
    "DeviceSettings",
    "Recording",
    "VideoMode",
    "audit_type_name",
    "device_misfit",
    "push_problem",
]

#: Rule 5: the most bytes a push payload may have (APNs' limit for a notification).
MAX_PUSH_BYTES = 4096
#: Rule 5: how deep a push payload's arrays and objects may nest (far below Python's recursion limit).
MAX_PUSH_DEPTH = 64
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPENS, _CLOSES = frozenset(b"[{"), frozenset(b"]}")

#: ``xcrun simctl ui <udid> content_size``'s sizes, smallest first (UIContentSizeCategory's).
CONTENT_SIZES = (
    "extra-small",
    "small",
    "medium",
    "large",
    "extra-large",
    "extra-extra-large",
    "extra-extra-extra-large",
    "accessibility-medium",
    "accessibility-large",
    "accessibility-extra-large",
    "accessibility-extra-extra-large",
    "accessibility-extra-extra-extra-large",
)

#: The audit types (Rule 3): XCUIAccessibilityAuditType's members as WebDriverAgent 16 knows them
#: (``XCUIApplication+FBHelpers.m``), without the prefix and with a lower-case first letter.
AUDIT_TYPES = (
    "contrast",
    "elementDetection",
    "hitRegion",
    "sufficientElementDescription",
    "dynamicType",
    "textClipped",
    "trait",
    "action",
    "parentChild",
)
_AUDIT_PREFIX = "XCUIAccessibilityAuditType"


def audit_type_name(written: str) -> str:
    """Rule 3: ``contrast`` -> ``XCUIAccessibilityAuditTypeContrast``, the name WDA takes."""
    return _AUDIT_PREFIX + written[:1].upper() + written[1:]


def _location(
    _inst: object, _attribute: attrs.Attribute[tuple[float, float] | None], value: tuple[float, float] | None
) -> None:
    if value is None:
        return
    lat, lon = value
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        raise ValueError(f"a location is [latitude -90..90, longitude -180..180], got {list(value)}")


def _content_size(_inst: object, _attribute: attrs.Attribute[str | None], value: str | None) -> None:
    if value is not None and value not in CONTENT_SIZES:
        raise ValueError(f"unknown content size {value!r}; one of {', '.join(CONTENT_SIZES)}")


@attrs.frozen
class DeviceSettings:
    """A check's ``device:`` settings (Rule 1); every field None: nothing to apply."""

    location: tuple[float, float] | None = attrs.field(default=None, validator=_location)
    appearance: Appearance | None = None
    content_size: str | None = attrs.field(default=None, validator=_content_size)
    biometrics_enrolled: bool | None = None

    @property
    def empty(self) -> bool:
        """True when the check asks for no setting."""
        return all(v is None for v in (self.location, self.appearance, self.content_size, self.biometrics_enrolled))

    def show(self) -> str:
        """One line, such as ``location 52.52,13.405, appearance dark``."""
        location, enrolled = self.location, self.biometrics_enrolled
        said = (
            None if location is None else f"location {location[0]:g},{location[1]:g}",
            None if self.appearance is None else f"appearance {self.appearance}",
            None if self.content_size is None else f"content size {self.content_size}",
            None if enrolled is None else ("biometrics enrolled" if enrolled else "biometrics not enrolled"),
        )
        return ", ".join(part for part in said if part is not None)


class VideoMode(enum.StrEnum):
    """``--video`` (Rule 2)."""

    OFF = "off"
    ON = "on"
    RETAIN_ON_FAILURE = "retain-on-failure"

    def keeps(self, *, passed: bool) -> bool:
        """Whether a recording of a check that ``passed`` (or not) is kept."""
        return self is VideoMode.ON or (self is VideoMode.RETAIN_ON_FAILURE and not passed)


@attrs.frozen
class Recording:
    """What a recording left: the file it wrote, and a cloud's own video link.

    ``file`` is the path the device was given, when it wrote it; ``url`` a cloud's own video of
    the session (a link only, never downloaded).
    """

    file: str | None = None
    url: str | None = None


@attrs.frozen
class AuditIssue:
    """One accessibility issue the device found (Rule 4).

    ``type`` is an :data:`AUDIT_TYPES` name (or the device's own word for one it doesn't name);
    ``element`` is how the device names the element: ``StaticText "Forgot password?" (id=forgot)``.
    """

    type: str
    description: str
    element: str = ""
    label: str = ""
    identifier: str = ""

    def show(self) -> str:
        """``contrast on StaticText "Forgot password?": Contrast failed``."""
        where = f" on {self.element}" if self.element else ""
        return f"{self.type}{where}: {self.description}" if self.description else f"{self.type}{where}"


@attrs.frozen
class AuditReport:
    """An audit of the screen in front: its issues, or why the device couldn't audit (Rule 4)."""

    issues: tuple[AuditIssue, ...] = ()
    unavailable: str | None = None


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def _no_constant(name: str) -> object:
    """Python's ``json`` reads NaN and Infinity; JSON (RFC 8259), simctl and APNs don't."""
    raise ValueError(f"{name} is no JSON number")


def _depth(data: bytes) -> int:
    """How deep ``data``'s arrays and objects nest, counted without recursion (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == _BACKSLASH, byte != _QUOTE)
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPENS:
            depth += 1
            deepest = max(deepest, depth)
        elif byte in _CLOSES:
            depth -= 1
    return deepest


def _bytes_problem(data: bytes) -> str | None:
    """Rule 5: what is wrong with ``data`` before it is parsed: its size, its depth, a BOM."""
    if len(data) > MAX_PUSH_BYTES:
        return f"it is {len(data)} bytes; a push payload is at most {MAX_PUSH_BYTES} (APNs' limit)"
    if _depth(data) > MAX_PUSH_DEPTH:  # parsed the same wherever it is parsed, however deep the stack
        return f"its arrays and objects nest more than {MAX_PUSH_DEPTH} deep"
    return bom_problem(data)


def push_problem(data: bytes) -> str | None:
    """Rule 5: what is wrong with ``data`` as a push payload (one phrase), or None when it is one."""
    problem = _bytes_problem(data)
    if problem is not None:
        return problem
    try:
        parsed = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return f"it isn't JSON ({exc})"
    if not isinstance(parsed, dict):
        return f"it is a JSON {_JSON_KINDS.get(type(parsed), 'value')}, not an object"
    if not isinstance(parsed.get("aps"), dict):
        return 'it has no "aps" object (what iOS shows: {"aps": {"alert": "Hi"}})'
    return None


@attrs.frozen
class DeviceEvent:
    """A check's device step (Rule 5): what the runner sends, and what the path records of it.

    ``op`` is ``BIOMETRIC_MATCH``, ``BIOMETRIC_FAIL`` or ``PUSH``; ``sensor`` the biometric's
    (``faceId``, ``touchId``); a push's ``file`` (as the check names it), its ``payload`` (the
    file's bytes, checked by :func:`push_problem`) and the ``bundle`` it goes to (the runner sets
    the app under test's).
    """

    op: Op
    sensor: str = "faceId"
    file: str = ""
    payload: bytes = attrs.field(default=b"", repr=False)
    bundle: str = ""

    def __attrs_post_init__(self) -> None:
        if not self.op.is_device:
            raise ValueError(f"{self.op} is not a device step")
        if self.sensor not in SENSORS:
            raise ValueError(f"unknown sensor {self.sensor!r}; one of {', '.join(SENSORS)}")
        if self.op is Op.PUSH:
            problem = push_problem(self.payload) if self.file else "it names no file"
            if problem is not None:
                raise ValueError(f"{self.file or 'the push'}: {problem}")

    @property
    def match(self) -> bool:
        """A biometric match (True) or a failed match (False)."""
        return self.op is Op.BIOMETRIC_MATCH

    @property
    def digest(self) -> str:
        """Rule 5: the payload's SHA-256, its first 16 hex digits (empty for a biometric step)."""
        return hashlib.sha256(self.payload).hexdigest()[:16] if self.op is Op.PUSH else ""

    @property
    def text(self) -> str:
        """The recorded step's ``text`` (``steps`` Rule 4): the sensor, or ``file sha256:digest``."""
        return f"{self.file} sha256:{self.digest}" if self.op is Op.PUSH else self.sensor

    def show(self) -> str:
        """``Match the Face ID prompt``, ``Send the push notification in payload.json``."""
        return describe_action(self.op, None, self.text)


def device_misfit(path: Sequence[Step], events: Sequence[DeviceEvent]) -> str | None:
    """Rule 6: why ``path``'s device steps don't fit the check's ``events`` (one phrase), or None."""
    recorded = [step.describe() for step in path if step.op.is_device]
    wanted = [event.show() for event in events]
    if recorded == wanted[: len(recorded)]:
        return None
    return (
        f"the recorded path's device steps ({'; '.join(recorded)}) aren't the check's ({'; '.join(wanted) or 'none'})"
    )
