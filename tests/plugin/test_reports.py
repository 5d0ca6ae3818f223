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


def test_under_allure_an_appium_check_tells_the_cloud_its_name_and_verdict(project: Project) -> None:
    # The plugin runs the device itself, never a wrapper: a cloud's CheckReports reach the runner
    # under --alluredir too, and the frames Allure attaches are the run's own.
    pytest.importorskip("allure_pytest")
    from mobster_drivers.devices.scripted import AppScript, sample_path
    from mobster_drivers.testing.appium import FakeAppium

    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    caps = project.root / "browserstack.json"
    caps.write_text(json.dumps({"bstack:options": {"userName": "ada", "accessKey": "k3y"}}))
    results = project.root / "allure"
    real_clock = ("-p", "no:cacheprovider", "-p", "mobster_pytest.plugin")  # Appium lives on the real clock
    with FakeAppium(AppScript.from_text(text, "yourapp.yaml"), lifetime=120, provider="browserstack") as cloud:
        run = project.pytester.runpytest(
            *real_clock, *ALLURE, f"--alluredir={results}", "--mobster-appium", cloud.url,
            "--mobster-caps", str(caps), "--mobster-model", "scripted", "-k", "signup",
        )  # fmt: skip
        run.assert_outcomes(passed=1)
        told = [(a["action"], a["arguments"]) for p, a in cloud.annotations if p == "browserstack"]
    assert ("setSessionName", {"name": "A new user signs up"}) in told
    statuses = [args for action, args in told if action == "setSessionStatus"]
    assert [s["status"] for s in statuses] == ["passed"]
    (doc,) = [json.loads(p.read_text()) for p in results.glob("*-result.json")]
    assert [s["name"] for s in doc["steps"]] == [
        'step 1 (Tap "Sign up")', 'step 2 (Type "ada@example.com" into "Email")', 'step 3 (Tap "Continue")',
    ]  # fmt: skip
    for step in doc["steps"]:
        (frame,) = step["attachments"]
        assert (results / frame["source"]).read_bytes().startswith(b"\x89PNG")  # the run's own frame, in full


def test_the_frames_attached_are_the_runs_own_files_and_no_extra_screenshot_is_taken(project: Project) -> None:
    pytest.importorskip("allure_pytest")
    record(project)
    project.pytester.makepyfile(
        test_own="""
        import json

        def test_own(mobster, mobster_device, request, pytestconfig):
            counted = []
            real = mobster_device.screenshot

            async def screenshot():
                counted.append(1)
                return await real()

            mobster_device.screenshot = screenshot
            result = mobster.run("paywall")
            from mobster_pytest._state import RECORDS
            (record,) = request.node.stash[RECORDS]
            run_dir = record.root / result.run_dir
            frames = [f.file.relative_to(run_dir).as_posix() for f in record.frames]
            name = "with.json" if pytestconfig.getoption("allure_report_dir") else "without.json"
            steps = [s.frame for s in result.steps]
            (pytestconfig.rootpath / name).write_text(
                json.dumps({"screenshots": len(counted), "frames": frames, "steps": steps})
            )
        """
    )
    results = project.root / "allure"
    base = ("--mobster-scripted", "apps/yourapp.yaml", "test_own.py")
    project.run(*ALLURE, f"--alluredir={results}", *base).assert_outcomes(passed=1)
    project.run(*ALLURE, *base).assert_outcomes(passed=1)
    with_allure = json.loads((project.root / "with.json").read_text())
    without = json.loads((project.root / "without.json").read_text())
    assert with_allure["frames"] == with_allure["steps"] == ["frames/step-001-before.png", "frames/step-002-before.png"]
    assert without["frames"] == []  # no report shows them
    # The frames Allure gets are the ones the run takes anyway for its report.html: no extra screenshot.
    assert with_allure["screenshots"] == without["screenshots"] > 0


def test_a_reports_run_it_again_names_the_device_as_mobster_test_takes_it(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plugin's report.html says how to run the check again with the command: ``--scripted``,
    # never the plugin's ``--mobster-scripted`` (no option of ``mobster test``), and the line runs.
    import re
    import shlex

    from click.testing import CliRunner

    from mobster_cli.main import Runtime, cli
    from mobster_core.testing import FakeClock

    record(project)
    project.app("renamed.yaml", renamed=True)
    project.run("--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal").assert_outcomes(passed=1, failed=1)
    reports = sorted((project.root / ".mobster" / "runs").glob("*/report.html"))
    assert len(reports) == 2
    monkeypatch.chdir(project.root)
    for report in reports:
        found = re.search(r"<h2>Run it again</h2><pre><code>([^<]+)</code>", report.read_text())
        assert found is not None
        words = shlex.split(found.group(1).replace("&#x27;", "'").replace("&quot;", '"'))
        assert words[:2] == ["mobster", "test"]
        assert words[3:5] == ["--scripted", "apps/renamed.yaml"], words  # relative to the project root
        assert len(words) == 5, words
        clock = FakeClock()
        again = CliRunner().invoke(cli, [*words[1:], "--no-heal", "--json"], obj=Runtime(clock, clock.run))
        assert again.stdout.startswith("{"), again.output
        (ran,) = json.loads(again.stdout)["checks"]
        assert ran["file"] == words[2]
        assert ran["model_calls"] == 0
        assert again.exit_code == (0 if ran["verdict"] == "passed" else 1), again.output
