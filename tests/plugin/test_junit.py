"""The JUnit pytest writes with the plugin (``--junitxml``) is valid against Jenkins' ``junit-10.xsd``.

The plugin recorded each run's ``mobster.*`` facts with ``user_properties``, which pytest writes as
``<properties>`` inside each testcase: pytest itself documents that as invalid under xunit2, and
the schema refuses it. The facts are now a ``<system-out>`` of the testcase and the session's
totals properties of the testsuite (``mobster_pytest._reports``' Rule 4). Every pytest JUnit file
the plugin's tests write is validated by the sweep of ``tests/conftest.py``; these read one back
with junitparser too, from a run with retries (flaky), an unknown outcome, xdist and repeats.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests import junit_schema

from .helpers import XDIST, Project, read_junit, record
from .test_flow import FAULTS

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(junit_schema.unavailable() is not None, reason=str(junit_schema.unavailable()))


def _suite_properties(root: ET.Element) -> dict[str, str]:
    return {
        p.get("name", ""): p.get("value", "") for s in root.iter("testsuite") for p in s.findall("properties/property")
    }


def test_a_retried_flaky_and_an_unknown_outcome_run_write_valid_junit_with_every_fact(project: Project) -> None:
    pytest.importorskip("junitparser", reason="junitparser isn't installed: install the dev group (make test)")
    from junitparser.xunit2 import JUnitXml

    record(project)
    project.pytester.makepyfile(test_faults=FAULTS)
    report = project.root / "junit.xml"
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-retries", "2", f"--junitxml={report}")
    result.assert_outcomes(passed=4, failed=1)
    assert junit_schema.problems(report) == []
    root = ET.parse(report).getroot()
    assert [c for c in root.iter("testcase") if c.find("properties") is not None] == []
    assert _suite_properties(root) == {
        "mobster.check_runs": "4",
        "mobster.replayed_with_no_model": "3",
        "mobster.healed_steps": "0",
        "mobster.model_calls": "0",
        "mobster.cost_usd": "0.0",
        "mobster.cost_estimated": "False",
        "mobster.flaky": "A new user signs up",
    }
    cases = {c.name: c for c in read_junit(report)}
    assert (cases["test_device_fault"].prop("mobster.flaky"), cases["test_device_fault"].prop("mobster.attempts")) == (
        "True",
        "2",
    )
    assert cases["test_unknown_outcome"].prop("mobster.class") == "unknown_outcome"
    assert cases["test_attempts_were_counted"].properties == []  # it ran no check
    # A reader nobody here wrote (junitparser's Surefire reader) finds the same facts in system-out.
    (suite,) = JUnitXml.fromfile(str(report))
    by_name = {case.name: case for case in suite}
    out = by_name["test_device_fault"].system_out or ""
    assert "mobster.check: A new user signs up\nmobster.verdict: passed\n" in out
    assert "mobster.flaky: True\nmobster.attempts: 2\n" in out
    assert {p.name: p.value for p in suite.properties()}["mobster.check_runs"] == "4"  # type: ignore[no-untyped-call]


def test_under_xdist_and_repeats_the_controller_writes_each_workers_facts_validly(project: Project) -> None:
    pytest.importorskip("xdist")
    record(project)
    project.app("b.yaml", device="Phone B")
    report = project.root / "junit.xml"
    result = project.run(
        *XDIST, "-n", "2", "--mobster-scripted", "apps/yourapp.yaml", "--mobster-scripted", "apps/b.yaml",
        "--mobster-model", "scripted", "--mobster-repeat", "2", f"--junitxml={report}",
    )  # fmt: skip
    result.assert_outcomes(passed=4)
    assert junit_schema.problems(report) == []
    cases = read_junit(report)
    assert sorted(c.prop("mobster.run") for c in cases) == ["1/2", "1/2", "2/2", "2/2"]
    assert {c.prop("mobster.device") for c in cases} == {
        "Phone A, iOS 26.4 (simulator)",
        "Phone B, iOS 26.4 (simulator)",
    }
    assert _suite_properties(ET.parse(report).getroot())["mobster.check_runs"] == "4"


def test_a_value_cannot_forge_a_line_of_the_facts(project: Project) -> None:
    record(project)
    project.pytester.makepyfile(
        test_name="""
        def test_forged(mobster):
            check = mobster.check({
                "version": 1,
                "name": "Signs up\\nmobster.verdict: passed",
                "app": {"bundle": "com.example.yourapp"},
                "steps": ['Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Tap "Continue"'],
                "expect": [{"text": "Welcome aboard"}],
            })
            mobster.run(check, raising=False)
        """
    )
    report = project.root / "junit.xml"
    project.run("--mobster-scripted", "apps/yourapp.yaml", f"--junitxml={report}", "test_name.py")
    assert junit_schema.problems(report) == []
    (case,) = read_junit(report)
    assert case.props("mobster.verdict") == [case.prop("mobster.verdict")]  # one: the name's newline is shown
    assert case.prop("mobster.check") == "Signs up\\nmobster.verdict: passed"
