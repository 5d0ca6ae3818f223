"""Reports: an Allure step per step with its frame, and the frames in pytest-html's extras."""

from __future__ import annotations

import json

import pytest

from .helpers import ALLURE, HTML, Project, record

pytest_plugins = ["pytester"]


def test_allure_gets_a_step_per_action_with_its_frame_and_the_drifted_step_is_broken(project: Project) -> None:
    pytest.importorskip("allure_pytest")
    record(project)
    project.app("renamed.yaml", renamed=True)
    results = project.root / "allure"
    run = project.run(*ALLURE, f"--alluredir={results}", "--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal")
    run.assert_outcomes(passed=1, failed=1)
    tests = {}
    for path in results.glob("*-result.json"):
        doc = json.loads(path.read_text())
        tests[doc["name"]] = doc
    assert set(tests) == {"paywall", "signup"}
    paywall = tests["paywall"]
    assert [s["name"] for s in paywall["steps"]] == ['step 1 (Tap "Settings")', 'step 2 (Tap "Upgrade to Pro")']
    assert all(s["status"] == "passed" for s in paywall["steps"])
    for step in paywall["steps"]:
        (frame,) = step["attachments"]
        assert (results / frame["source"]).read_bytes().startswith(b"\x89PNG")
    assert [a["name"] for a in paywall["attachments"]] == ["Settings offers Pro: final frame"]
    signup = tests["signup"]
    assert signup["status"] == "failed"  # a drift is a failure (CheckFailed is an AssertionError), not broken
    # Steps 1 and 2 were sent; step 3 drifted before its action, so it has no step of its own.
    sent = [s["name"] for s in signup["steps"]]
    assert sent == ['step 1 (Tap "Sign up")', 'step 2 (Type "ada@example.com" into "Email")']


def test_pytest_html_gets_the_frames(project: Project) -> None:
    pytest.importorskip("pytest_html")
    record(project)
    report = project.root / "report.html"
    run = project.run(*HTML, f"--html={report}", "--self-contained-html", "--mobster-scripted", "apps/yourapp.yaml")
    run.assert_outcomes(passed=2)
    text = report.read_text()
    assert text.count("data:image/png;base64,") >= 2 + 3 + 2  # a final frame per check, a frame per step
    assert "A new user signs up: final frame" in text


def test_no_frames_are_taken_without_a_report_that_shows_them(project: Project) -> None:
    record(project)
    project.pytester.makepyfile(
        test_frames="""
        def test_frames(mobster, request):
            mobster.run("paywall")
            from mobster_pytest._state import RECORDS
            (record,) = request.node.stash[RECORDS]
            assert record.frames == ()
        """
    )
    project.run("--mobster-scripted", "apps/yourapp.yaml", "test_frames.py").assert_outcomes(passed=1)


def test_allure_marks_an_action_whose_outcome_is_unknown_broken(project: Project) -> None:
    pytest.importorskip("allure_pytest")
    record(project)
    project.pytester.makepyfile(
        test_lost="""
        def test_lost(mobster, mobster_device):
            mobster_device.fail_next_action()  # the first tap's reply is lost
            mobster.run("paywall")
        """
    )
    results = project.root / "allure"
    run = project.run(*ALLURE, f"--alluredir={results}", "--mobster-scripted", "apps/yourapp.yaml", "test_lost.py")
    run.assert_outcomes(failed=1)
    (doc,) = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    assert doc["status"] == "broken"  # CheckOutcomeUnknown is no AssertionError: not the app's failure
    assert [(s["name"], s["status"]) for s in doc["steps"]] == [("the last action (it didn't complete)", "broken")]
