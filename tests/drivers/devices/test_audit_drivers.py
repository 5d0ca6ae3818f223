"""The accessibility audit through WebDriverAgent: the fake serves the app script's findings as WDA would."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from mobster_core import DeviceError, LaunchOptions
from mobster_core.protocols import AuditReport, Audits
from mobster_drivers._xcuitest.audit import MAX_ISSUES, parse_audit
from mobster_drivers.devices.scripted import AppScript
from mobster_drivers.devices.wda import WdaDevice
from mobster_drivers.testing.wda import FakeWda
from tests.core.run.test_audit import AUDITED_APP
from tests.drivers.testing.test_wda_fake import raw

APP = "com.example.yourapp"


def _fake(script: str) -> FakeWda:
    return FakeWda(AppScript.from_text(script), lifetime=60)


@pytest.fixture
def fake() -> Iterator[FakeWda]:
    with _fake(AUDITED_APP) as server:
        yield server


def _audit(fake: FakeWda, types: tuple[str, ...]) -> AuditReport:
    device = WdaDevice(fake.url)
    assert isinstance(device, Audits)

    async def go() -> AuditReport:
        await device.launch(APP, LaunchOptions())
        return await device.audit(types)

    try:
        return asyncio.run(go())
    finally:
        device.close()


def test_the_wda_device_names_the_low_contrast_label(fake: FakeWda) -> None:
    report = _audit(fake, ("contrast",))
    assert report.unavailable is None
    [issue] = report.issues
    assert (issue.type, issue.description) == ("contrast", "Contrast failed")
    assert issue.element == 'StaticText "Forgot password?" (id=forgot)'
    posted = [r for r in fake.requests if r.route == "/wda/performAccessibilityAudit"]
    assert posted[-1].body == {"auditTypes": ["XCUIAccessibilityAuditTypeContrast"]}


def test_no_types_is_every_type(fake: FakeWda) -> None:
    assert [i.type for i in _audit(fake, ()).issues] == ["contrast", "hitRegion"]
    posted = [r for r in fake.requests if r.route == "/wda/performAccessibilityAudit"]
    assert posted[-1].body == {"auditTypes": []}


def _session(fake: FakeWda) -> str:
    device = WdaDevice(fake.url)
    asyncio.run(device.launch(APP, LaunchOptions()))
    sid = device.session_id
    device.close()
    assert sid is not None
    return f"/session/{sid}/wda/performAccessibilityAudit"


def test_the_fake_answers_in_wdas_shape(fake: FakeWda) -> None:
    route = _session(fake)
    status, body = raw(fake, "POST", route, {"auditTypes": []})
    assert status == 200
    first: dict[str, Any] = body["value"][0]
    assert set(first) == {
        "detailedDescription", "compactDescription", "auditType", "element", "elementDescription", "elementAttributes"
    }  # fmt: skip
    assert first["auditType"] == "XCUIAccessibilityAuditTypeContrast"
    assert first["elementAttributes"]["label"] == "Forgot password?"
    status, body = raw(fake, "POST", route, {"auditTypes": ["Contrast"]})
    assert status == 400
    assert body["value"]["error"] == "invalid argument"
    assert "Audit type value 'Contrast' is not known" in body["value"]["message"]


def test_ios_16_is_not_asked() -> None:
    with _fake(AUDITED_APP.replace('ios: "26.4"', 'ios: "16.4"')) as fake:
        report = _audit(fake, ())
        assert report.unavailable == "iOS 16.4 has no accessibility audit (iOS 17 and later do)"
        assert not [r for r in fake.requests if r.route == "/wda/performAccessibilityAudit"]
        status, body = raw(fake, "POST", _session(fake), {})
        assert status == 500
        assert "only supported since iOS 17/Xcode 15" in body["value"]["message"]


def test_a_garbage_reply_is_a_device_error(fake: FakeWda) -> None:
    device = WdaDevice(fake.url)

    async def go() -> AuditReport:
        await device.launch(APP, LaunchOptions())
        fake.garbage_next_reply()
        return await device.audit(())

    with pytest.raises(DeviceError):
        asyncio.run(go())
    device.close()


@pytest.mark.parametrize(
    "reply",
    [
        {"issues": []},
        ["not an issue"],
        [{"compactDescription": "no type"}],
        [{"auditType": True}],
        [{"auditType": "XCUIAccessibilityAuditTypeContrast"}] * (MAX_ISSUES + 1),
    ],
)
def test_a_reply_that_is_not_an_audit_is_refused(reply: Any) -> None:
    with pytest.raises(DeviceError, match="audit"):
        parse_audit(reply, "WebDriverAgent at http://127.0.0.1:1")


def test_an_unnamed_type_and_element_keep_what_wda_said() -> None:
    report = parse_audit([{"auditType": 1 << 40, "element": "Other, {{0, 0}, {1, 1}}"}], "WDA")
    assert report.issues[0].type == str(1 << 40)
    assert report.issues[0].element == "Other, {{0, 0}, {1, 1}}"
