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
Rule 4: an audit issue (:class:`AuditIssue`) is the device's fact: its type, Apple's description,
        and the element it is about as the device names it (type, label, identifier). A device
        that can't audit says why (:attr:`AuditReport.unavailable`): the assertion can't run, and
        never passes.
"""

from __future__ import annotations

import enum
import math

import attrs

from .device import Appearance

__all__ = [
    "AUDIT_TYPES",
    "CONTENT_SIZES",
    "AuditIssue",
    "AuditReport",
    "DeviceSettings",
    "Recording",
    "VideoMode",
    "audit_type_name",
]

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
