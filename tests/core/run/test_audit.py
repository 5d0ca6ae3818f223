"""The ``accessibility_audit`` assertion: a device fact read once on the verdict's settled screen."""

from __future__ import annotations

from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import FailureClass, RunOptions, Verdict, load_check, run_check
from mobster_core._rules.assertions import ExpectError, evaluate, parse_expect
from mobster_core._rules.verdict.verdict import Grounds as Evidence
from mobster_core._rules.verdict.verdict import decide
from mobster_core.protocols import AuditReport
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone
from tests.samples import APP_SCRIPT_HEAD

AUDITED_APP = (
    APP_SCRIPT_HEAD
    + """\
    launch: login
    screens:
      login:
        - {role: StaticText, label: Sign in}
        - {role: StaticText, label: Forgot password?, id: forgot}
        - {role: Button, label: Continue}
      plain:
        - {role: StaticText, label: Sign in}
    audit:
      login:
        - {type: contrast, element: forgot, description: Contrast failed}
        - {type: hitRegion, element: Continue, description: Hit region too small}
"""
)

AUDIT_CHECK = """\
version: 1
name: The login screen is readable
app: {bundle: com.example.yourapp}
expect:
  - text: Sign in
  - accessibility_audit: {types: [contrast, dynamicType], max: 0}
"""


def _run(tmp_path: Path, script: str, check: str = AUDIT_CHECK) -> mc.CheckResult:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True)
    (folder / "audit.yaml").write_text(check)
    clock = FakeClock()
    phone = ScriptedPhone.from_text(script, clock=clock)
    return clock.run(run_check(load_check(folder / "audit.yaml"), phone, clock, options=RunOptions(root=tmp_path)))


def test_a_low_contrast_label_fails_the_check_naming_it(tmp_path: Path) -> None:
    result = _run(tmp_path, AUDITED_APP)
    assert result.verdict is Verdict.FAILED
    assert result.outcome.failure_class is FailureClass.ASSERTION
    audit = result.assertions[1]
    assert not audit.ok
    assert audit.observed == '1 issue: contrast on StaticText "Forgot password?" (id=forgot): Contrast failed'
    assert "Forgot password?" in result.outcome.message


def test_types_not_asked_for_are_not_counted(tmp_path: Path) -> None:
    check = AUDIT_CHECK.replace("[contrast, dynamicType], max: 0", "[dynamicType]")
    result = _run(tmp_path, AUDITED_APP, check)
    assert result.verdict is Verdict.PASSED
    assert result.assertions[1].observed == "no issue found"


def test_max_allows_that_many_issues(tmp_path: Path) -> None:
    check = AUDIT_CHECK.replace("{types: [contrast, dynamicType], max: 0}", "{max: 2}")
    result = _run(tmp_path, AUDITED_APP, check)
    assert result.verdict is Verdict.PASSED
    assert result.assertions[1].observed.startswith("2 issues: contrast on")


def test_a_screen_the_script_lists_no_issue_for_passes(tmp_path: Path) -> None:
    result = _run(tmp_path, AUDITED_APP.replace("launch: login", "launch: plain"))
    assert result.verdict is Verdict.PASSED


def test_an_app_without_a_declared_audit_cant_run_never_passes(tmp_path: Path) -> None:
    script = AUDITED_APP.split("    audit:")[0]
    result = _run(tmp_path, script)
    assert result.verdict is Verdict.COULDNT_RUN
    assert result.outcome.failure_class is FailureClass.ENVIRONMENT
    assert "declares no audit for com.example.yourapp" in result.outcome.message


def test_ios_16_cant_audit(tmp_path: Path) -> None:
    result = _run(tmp_path, AUDITED_APP.replace('ios: "26.4"', 'ios: "16.4"'))
    assert result.verdict is Verdict.COULDNT_RUN
    assert result.outcome.failure_class is FailureClass.ENVIRONMENT
    assert "iOS 16.4 has no accessibility audit" in result.outcome.message


class _NoAudit:
    """The scripted phone without the ``Audits`` ability (a driver that has none)."""

    def __init__(self, phone: ScriptedPhone) -> None:
        self._phone = phone
        self.info, self.app_info, self.launch = phone.info, phone.app_info, phone.launch
        self.read, self.act = phone.read, phone.act


def _run_wrapped(tmp_path: Path, wrap: type[_NoAudit], check: str = AUDIT_CHECK) -> mc.CheckResult:
    """The audit check on the scripted phone behind ``wrap`` (a driver with another audit, or none)."""
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True)
    (folder / "audit.yaml").write_text(check)
    clock = FakeClock()
    device = wrap(ScriptedPhone.from_text(AUDITED_APP, clock=clock))
    return clock.run(run_check(load_check(folder / "audit.yaml"), device, clock, options=RunOptions(root=tmp_path)))


def test_a_driver_without_the_ability_cant_run_it(tmp_path: Path) -> None:
    assert not isinstance(_NoAudit(ScriptedPhone.from_text(AUDITED_APP, clock=FakeClock())), mc.protocols.Audits)
    result = _run_wrapped(tmp_path, _NoAudit)
    assert result.verdict is Verdict.COULDNT_RUN
    assert result.outcome.failure_class is FailureClass.ENVIRONMENT
    assert "can't run Apple's accessibility audit" in result.outcome.message


def test_another_failing_assertion_still_fails_the_check() -> None:
    expect = parse_expect([{"text": "Nowhere"}, {"accessibility_audit": {}}])
    screen = mc.Screen(app="x", elements=(mc.Element(path="/0", role="StaticText", label="Here"),))
    results = evaluate(expect, screen, AuditReport(unavailable="no audit"))
    outcome = decide(expect, Evidence(results, "x"), "x")
    assert outcome.verdict is Verdict.FAILED


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"types": ["contrst"]}, "unknown audit type 'contrst' (did you mean 'contrast'?)"),
        ({"types": "contrast"}, "expected a list of audit types"),
        ({"max": -1}, "expected a whole number from 0"),
        ({"max": True}, "expected a whole number from 0"),
        ({"mx": 1}, "unknown key 'mx'"),
        ("contrast", "expected a mapping of types and max"),
    ],
)
def test_a_malformed_audit_assertion_is_refused(body: object, problem: str) -> None:
    with pytest.raises(ExpectError) as caught:
        parse_expect([{"accessibility_audit": body}])
    assert problem in str(caught.value)


def test_the_audit_assertion_round_trips_to_the_check_format() -> None:
    (assertion,) = parse_expect([{"accessibility_audit": {"types": ["contrast"], "max": 1}}])
    assert assertion.to_dict() == {"accessibility_audit": {"types": ["contrast"], "max": 1}}
    assert assertion.show() == "accessibility_audit contrast <= 1"


class _GarbageAudit(_NoAudit):
    """A device whose audit reply can't be read (its driver raises ``DeviceError``)."""

    async def audit(self, types: tuple[str, ...]) -> AuditReport:
        raise mc.DeviceError(f"WebDriverAgent sent an audit reply that is not a list: 'garbage' ({types})")


def test_an_audit_reply_that_is_garbage_cant_run_class_device(tmp_path: Path) -> None:
    result = _run_wrapped(tmp_path, _GarbageAudit)
    assert result.verdict is Verdict.COULDNT_RUN
    assert result.outcome.failure_class is FailureClass.DEVICE
    assert "the accessibility audit failed: WebDriverAgent sent an audit reply that is not a list" in (
        result.outcome.message
    )


def test_the_audit_is_asked_once_for_every_type_the_assertions_name(tmp_path: Path) -> None:
    asked: list[tuple[str, ...]] = []

    class Counting(_NoAudit):
        async def audit(self, types: tuple[str, ...]) -> AuditReport:
            asked.append(types)
            return AuditReport()

    result = _run_wrapped(tmp_path, Counting, AUDIT_CHECK + "  - accessibility_audit: {types: [hitRegion, contrast]}\n")
    assert result.verdict is Verdict.PASSED
    assert asked == [("contrast", "dynamicType", "hitRegion")]
