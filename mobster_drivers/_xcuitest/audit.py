"""Apple's accessibility audit as WebDriverAgent answers it: for the WDA and Appium devices.

Pure: no I/O. Facts from appium/WebDriverAgent (``FBCustomCommands.m`` ``handlePerformAccessibilityAudit``,
``XCUIApplication+FBHelpers.m`` ``fb_performAccessibilityAuditWithAuditTypes``):

Rule 1: the request's ``auditTypes`` are XCUIAccessibilityAuditType's full names
        (``XCUIAccessibilityAuditTypeContrast``); an empty list means all of them.
Rule 2: the reply is a list of objects, one per issue: ``auditType`` (the full name, or the
        number for a type WDA doesn't name), ``compactDescription``, ``detailedDescription``,
        ``element`` (XCUIElement's description) and ``elementAttributes`` (the element's source
        node: ``type``, ``label``, ``name``, ``rawIdentifier``, …). Anything else is a
        ``DeviceError`` that quotes at most 80 characters of it; a reply of more than
        :data:`MAX_ISSUES` issues too.
Rule 3: before iOS 17 there is no audit (``respondsToSelector`` fails: "Accessibility audit is only
        supported since iOS 17/Xcode 15"): the report says so and nothing is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mobster_core import DeviceError
from mobster_core.checks import AUDIT_TYPES, audit_type_name
from mobster_core.protocols import AuditIssue, AuditReport

__all__ = ["AUDIT_SINCE_IOS", "MAX_ISSUES", "audit_request", "parse_audit", "too_old"]

#: Rule 3: the first iOS with an audit.
AUDIT_SINCE_IOS = 17
#: Rule 2: the most issues a reply may hold (a screen holds at most a few thousand elements).
MAX_ISSUES = 5000
_NAMES = {audit_type_name(t): t for t in AUDIT_TYPES}
_PREFIX = "XCUIAccessibilityAuditType"


def audit_request(types: tuple[str, ...]) -> dict[str, Any]:
    """Rule 1: the body of ``/wda/performAccessibilityAudit`` (and ``mobile: performAccessibilityAudit``)."""
    return {"auditTypes": [audit_type_name(t) for t in types]}


def too_old(ios_major: int, ios: str) -> AuditReport | None:
    """Rule 3: the report of a device too old to audit, else None."""
    if ios_major < AUDIT_SINCE_IOS:
        return AuditReport(unavailable=f"iOS {ios} has no accessibility audit (iOS 17 and later do)")
    return None


def parse_audit(value: Any, where: str) -> AuditReport:
    """Rule 2: the issues of an audit reply from ``where``; ``DeviceError`` when it isn't one."""
    if not isinstance(value, list):
        raise DeviceError(f"{where} sent an audit reply that is not a list: {value!r:.80}")
    if len(value) > MAX_ISSUES:
        raise DeviceError(f"{where} sent an audit reply of {len(value)} issues (at most {MAX_ISSUES})")
    return AuditReport(tuple(_issue(item, where) for item in value))


def _issue(item: Any, where: str) -> AuditIssue:
    if not isinstance(item, Mapping):
        raise DeviceError(f"{where} sent an audit issue that is not an object: {item!r:.80}")
    kind = item.get("auditType")
    if isinstance(kind, str) and kind:
        name = _NAMES.get(kind, kind.removeprefix(_PREFIX))
    elif isinstance(kind, int) and not isinstance(kind, bool):
        name = str(kind)
    else:
        raise DeviceError(f"{where} sent an audit issue without an auditType: {dict(item)!r:.80}")
    description = _text(item.get("compactDescription")) or _text(item.get("detailedDescription"))
    attributes = item.get("elementAttributes")
    attributes = attributes if isinstance(attributes, Mapping) else {}
    role = _text(attributes.get("type")).removeprefix("XCUIElementType")
    label = _text(attributes.get("label"))
    identifier = _text(attributes.get("rawIdentifier")) or (
        _text(attributes.get("name")) if _text(attributes.get("name")) != label else ""
    )
    element = role or "element"
    if label:
        element += f' "{label}"'
    if identifier:
        element += f" (id={identifier})"
    if not (role or label or identifier):
        element = _text(item.get("element"))[:120]
    return AuditIssue(name, description[:500], element, label=label[:500], identifier=identifier[:500])


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
