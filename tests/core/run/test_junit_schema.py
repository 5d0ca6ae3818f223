"""Mobster's JUnit held to two consumers nobody here wrote: Jenkins' ``junit-10.xsd`` and junitparser.

Every kind of run writes it (results Rule 2, merge Rule 3): checks that passed, failed, couldn't
run or need review; retried checks that passed on a retry (flaky) and that never did; ``--repeat``
runs; each device of a pool; shards merged, one of them written by an earlier Mobster. Each file
must validate against the schema (``tests/junit_schema.py``), and junitparser's reader of Surefire's
format (``junitparser.xunit2``) must read from it what ``results.json`` says: one testcase per
entry with its verdict, its time, flaky or rerun with one element per earlier attempt, and the
suite's counts and properties. The sweep of ``tests/conftest.py`` validates every other JUnit
file the tests write; these tests add junitparser's reading and the runs that were never made.

Skipped, with the reason, where the schema could not be installed (``scripts/install-validators.sh``).
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("junitparser", reason="junitparser isn't installed: install the dev group (make test)")

from junitparser import Error, Failure, Skipped
from junitparser.xunit2 import JUnitXml, TestCase, TestSuite

import mobster_core as mc
from mobster_core.results import junit_xml, with_attempts
from mobster_core.testing import FakeClock
from mobster_core.text import xml_text
from mobster_report import merge_suites
from tests import junit_schema
from tests.core.run.test_suite_retries import FaultyPhone, record_path, suite
from tests.strategies import check_results, examples, maybe_texts, outcomes, texts

pytestmark = pytest.mark.skipif(junit_schema.unavailable() is not None, reason=str(junit_schema.unavailable()))

_VERDICT = {Failure: "failed", Error: "couldnt_run", Skipped: "needs_review"}


def read_back(source: Path | bytes) -> TestSuite:
    """The file's one testsuite, as junitparser's xunit2 reader reads it; the file must be valid first."""
    assert junit_schema.problems(source) == []
    xml = JUnitXml.fromfile(str(source)) if isinstance(source, Path) else JUnitXml.fromstring(source.decode())
    assert isinstance(xml, JUnitXml)
    (one,) = list(xml)
    assert isinstance(one, TestSuite)
    return one


def cases(one: TestSuite) -> list[TestCase]:
    """The suite's testcases, as the xunit2 reader types them."""
    found = []
    for case in one:
        assert isinstance(case, TestCase)
        found.append(case)
    return found


def properties(element: TestSuite | TestCase) -> dict[str, str]:
    """A suite's or a testcase's properties, by name (each name once)."""
    found = [(p.name, p.value) for p in element.properties()]  # type: ignore[no-untyped-call]
    assert len({name for name, _ in found}) == len(found), found
    return dict(found)


def case_facts(case: TestCase) -> tuple[Any, ...]:
    """What a reader learns of a testcase: its file, verdict, time, and its earlier attempts' elements."""
    final = case.result
    assert len(final) <= 1, final
    verdict = _VERDICT[type(final[0])] if final else "passed"
    earlier = [(type(r).__name__, r.type, r.message) for r in case.interim_result]
    assert properties(case) == {}  # junit-10.xsd allows none in a testcase
    return (case.classname, verdict, case.time, case.is_flaky, case.is_rerun, earlier)


def entry_facts(entry: dict[str, Any]) -> tuple[Any, ...]:
    """What ``results.json`` says of the same check (the facts :func:`case_facts` reads)."""
    attempts = entry["attempts"][:-1] if len(entry["attempts"]) > 1 else []
    kind = "Flaky" if entry["flaky"] else "Rerun"
    earlier = [
        (kind + ("Failure" if a["verdict"] == "failed" else "Error"), a["class"] or "", xml_text(a["message"]))
        for a in attempts
    ]
    seconds = entry["seconds"] if math.isfinite(entry["seconds"]) and entry["seconds"] >= 0 else 0.0
    rerun = bool(attempts) and not entry["flaky"]
    return (xml_text(entry["file"]), entry["verdict"], round(seconds, 3), entry["flaky"], rerun, earlier)


def agrees(one: TestSuite, doc: dict[str, Any], *, ordered: bool = True) -> None:
    """junitparser reads from the suite what ``doc`` (its ``results.json``) says."""
    checks, summary = doc["checks"], doc["summary"]
    assert (one.tests, one.failures, one.errors, one.skipped) == (
        len(checks),
        summary["failed"],
        summary["couldnt_run"],
        summary["needs_review"],
    )
    assert properties(one) == {
        "mobster.flaky": str(summary["flaky"]),
        "mobster.retried": str(sum(1 for c in checks if len(c["attempts"]) > 1)),
    }
    found = cases(one)
    got, want = [case_facts(c) for c in found], [entry_facts(c) for c in checks]
    if ordered:  # one suite's file: a testcase per entry, in its order, named for its check
        assert got == want
        for case, entry in zip(found, checks, strict=True):
            assert (case.name or "").startswith(xml_text(f"{entry['name']} on "))
    else:  # merged: the same testcases, in the shards' order
        assert sorted(got, key=repr) == sorted(want, key=repr)


def suite_file(result: mc.SuiteResult) -> tuple[TestSuite, dict[str, Any]]:
    """A suite's ``junit.xml`` read back, and its ``results.json``."""
    return read_back(result.folder / "junit.xml"), json.loads((result.folder / "results.json").read_text())


# -- the runs the suite makes -------------------------------------------------------------------


def test_a_check_that_passed_on_a_retry_is_valid_and_read_as_flaky(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    dying, good = FaultyPhone(clock), FaultyPhone(clock)
    dying.dies_at_launch = True
    result = suite(project, clock, {"dying": dying, "good": good}, retries=1)
    one, doc = suite_file(result)
    agrees(one, doc)
    (case,) = cases(one)
    assert case.is_flaky
    assert not case.is_rerun
    assert case.result == []  # JUnit counts it passed
    (flaky,) = case.flaky_errors()
    message = doc["checks"][0]["attempts"][0]["message"]
    assert (flaky.type, flaky.message, flaky.stack_trace) == ("device", message, f"attempt 1 of 2 on dying: {message}")
    assert flaky.system_out == f"[[ATTACHMENT|{result.checks[0].attempts[0].run_dir}/report.html]]"
    said = (case.system_out or "").splitlines()
    assert said[1:3] == [
        "attempts: 2 (flaky: passed on a retry)",
        f"attempt 1 of 2 on dying: couldnt_run (device): {message}",
    ]


def test_a_check_that_never_passed_is_valid_and_read_as_rerun(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.failing_launches = 10
    one, doc = suite_file(suite(project, clock, [phone], retries=2))
    agrees(one, doc)
    (case,) = cases(one)
    assert (case.is_rerun, case.is_flaky, len(case.rerun_errors())) == (True, False, 2)
    assert isinstance(case.result[0], Error)
    assert "attempts: 3 (never passed)" in (case.system_out or "")
    assert properties(one) == {"mobster.flaky": "0", "mobster.retried": "1"}


def test_repeated_runs_with_retries_are_valid_and_each_its_own_testcase(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    phone = FaultyPhone(clock)
    phone.failing_launches = 1  # run 1 passes on a retry
    phone.drop_run = 4  # the 4th launch is run 3's: it drifts
    result = suite(project, clock, [phone], repeat=3, retries=1, no_heal=True)
    assert [c.verdict for c in result.checks] == [mc.Verdict.PASSED, mc.Verdict.PASSED, mc.Verdict.FAILED]
    one, doc = suite_file(result)
    agrees(one, doc)
    assert [(c.name or "")[-12:] for c in cases(one)] == ["(run 1 of 3)", "(run 2 of 3)", "(run 3 of 3)"]
    assert [c.is_flaky for c in cases(one)] == [True, False, False]


def test_each_device_with_a_retry_is_valid(project: Path) -> None:
    clock = FakeClock()
    record_path(project, clock)
    refusing, other = FaultyPhone(clock), FaultyPhone(clock)
    refusing.failing_launches = 1
    result = suite(project, clock, {"refusing": refusing, "other": other}, retries=1, each_device=True)
    one, doc = suite_file(result)
    agrees(one, doc)
    assert sorted(c.is_flaky for c in cases(one)) == [False, True]


def _shard(root: Path, clock: FakeClock, devices: Any, **options: Any) -> mc.SuiteResult:
    (root / ".mobster" / "checks").mkdir(parents=True)
    return suite(root, clock, devices, **options)


def test_merged_shards_are_valid_and_read_as_their_results_say(project: Path) -> None:
    clock = FakeClock()
    first, second = project / "first", project / "second"
    dying, good = FaultyPhone(clock), FaultyPhone(clock)
    dying.dies_at_launch = True
    assert _shard(first, clock, [FaultyPhone(clock)]).exit_code == 0  # each shard's project records its path
    flaky = suite(first, clock, {"dying": dying, "good": good}, retries=1)
    assert _shard(second, clock, [FaultyPhone(clock)]).exit_code == 0
    never = FaultyPhone(clock)
    never.failing_launches = 10
    rerun = suite(second, clock, [never], retries=1, repeat=2)
    merged = merge_suites([flaky.folder, rerun.folder], project / "merged")
    one = read_back(project / "merged" / "junit.xml")
    agrees(one, merged, ordered=False)
    assert properties(one) == {"mobster.flaky": "1", "mobster.retried": "3"}


@pytest.mark.hand_made_junit  # the old shard is made here, and refused by the schema
def test_a_shard_an_earlier_mobster_wrote_merges_into_a_valid_file(project: Path) -> None:
    # Before this version a retried check's testcase held <properties> (mobster.flaky, mobster.attempts),
    # which junit-10.xsd refuses; its facts are in the flakyError beside it, so the merge leaves it out.
    clock = FakeClock()
    record_path(project, clock)
    dying, good = FaultyPhone(clock), FaultyPhone(clock)
    dying.dies_at_launch = True
    result = suite(project, clock, {"dying": dying, "good": good}, retries=1)
    junit = result.folder / "junit.xml"
    tree = ET.fromstring(junit.read_bytes())
    testsuite = tree.find("testsuite")
    assert testsuite is not None
    testsuite.remove(testsuite.find("properties"))  # type: ignore[arg-type]
    case = testsuite.find("testcase")
    assert case is not None
    props = ET.Element("properties")
    ET.SubElement(props, "property", name="mobster.flaky", value="true")
    ET.SubElement(props, "property", name="mobster.attempts", value="2")
    case.insert(0, props)
    old = ET.tostring(tree, encoding="utf-8", xml_declaration=True)
    assert junit_schema.problems(old) != []  # what the issue saw
    junit.write_bytes(old)
    merged = merge_suites([result.folder], project / "merged")
    one = read_back(project / "merged" / "junit.xml")
    agrees(one, merged)
    (back,) = cases(one)
    assert back.is_flaky


# -- any result --------------------------------------------------------------------------------


@st.composite
def any_check(draw: st.DrawFn) -> mc.CheckResult:
    """A check's result, tried up to three times (earlier attempts of any verdict), maybe one of repeated runs."""
    (base,) = _one_check()
    earlier = [
        attrs.evolve(base, outcome=draw(outcomes()), run_dir=draw(texts), device_label=draw(maybe_texts))
        for _ in range(draw(st.integers(0, 2)))
    ]  # what an attempt keeps of its run: its outcome, run folder, device and seconds
    result = with_attempts([*earlier, draw(check_results())])
    of = draw(st.integers(1, 5))
    return attrs.evolve(result, repeat=draw(st.none() | st.just((draw(st.integers(1, of)), of))))


@settings(max_examples=examples(50))
@given(
    checks=st.lists(any_check(), max_size=4),
    seconds=st.floats(),
    suite_id=texts,
    started=texts,
)
def test_any_suite_writes_junit_that_is_valid_and_read_as_its_results_say(
    checks: list[mc.CheckResult], seconds: float, suite_id: str, started: str
) -> None:
    result = mc.SuiteResult(suite_id, started, seconds, tuple(checks), Path())
    agrees(read_back(junit_xml(result)), result.to_dict())


@pytest.mark.parametrize("seconds", [math.nan, math.inf, -1.0, -0.0, 1e20])
def test_a_time_that_is_no_time_is_still_a_valid_one(seconds: float) -> None:
    (check,) = [attrs.evolve(c, seconds=seconds) for c in _one_check()]
    data = junit_xml(mc.SuiteResult("s", "", seconds, (check,), Path()))
    assert junit_schema.problems(data) == []
    times = {e.get("time") for e in ET.fromstring(data).iter() if e.get("time") is not None}
    assert times == ({"100000000000000000000.000"} if seconds == 1e20 else {"0.000"})


def _one_check() -> list[mc.CheckResult]:
    outcome = mc.Outcome(mc.Verdict.PASSED, None, "")
    return [
        mc.CheckResult(
            name="c", file="c.yaml", device=None, app=None, outcome=outcome, mode=None, seconds=0.0,
            cost=mc.results.Cost(), model_calls=0, identity=None, env=None, path_used=False, path_why=None,
            steps=(), heals=(), assertions=(), run_dir="",
        )
    ]  # fmt: skip
