"""The ``mobster`` fixture: runs by stem, path or ``Check``; ``mobster_device``; ``mobster_model``."""

from __future__ import annotations

import re
from pathlib import Path

from .helpers import Project, record

pytest_plugins = ["pytester"]

SCRIPTED = ("--mobster-scripted", "apps/yourapp.yaml")


def test_run_by_stem_path_and_check_built_in_code(project: Project) -> None:
    record(project)
    project.pytester.makepyfile(
        test_app="""
        from pathlib import Path

        from mobster_core import Check, CheckResult, Verdict
        from mobster_core.results import Mode


        def test_by_stem(mobster):
            result = mobster.run("signup")
            assert isinstance(result, CheckResult)
            assert (result.verdict, result.mode, result.model_calls) == (Verdict.PASSED, Mode.REPLAY, 0)


        def test_by_path(mobster):
            result = mobster.run(Path(".mobster/checks/paywall.yaml"))
            assert result.name == "Settings offers Pro"


        def test_by_check_built_in_code(mobster):
            check = mobster.check({
                "version": 1,
                "name": "Sign up, written in Python",
                "app": {"bundle": "com.example.yourapp"},
                "steps": ['Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Tap "Continue"'],
                "expect": [{"text": "Welcome aboard"}],
            })
            assert isinstance(check, Check)
            assert check.file.name == "test_app.sign-up-written-in-python.yaml"
            # The same steps as signup.yaml: the identity is the check's content, so signup's path replays.
            first = mobster.run(check)
            assert first.file == "test_app.sign-up-written-in-python.yaml"
            again = mobster.run(check)
            assert (again.mode, again.model_calls) == (Mode.REPLAY, 0)


        def test_device_and_model(mobster, mobster_device, mobster_model):
            from mobster_drivers.devices.scripted import ScriptedPhone
            from mobster_drivers.models.scripted import ScriptedModel

            assert isinstance(mobster_device, ScriptedPhone)
            assert mobster_device is mobster.device
            assert isinstance(mobster_model, ScriptedModel)
            info = mobster.drive(mobster_device.info())
            assert info.name == "Phone A"
        """
    )
    result, cases = project.junit(*SCRIPTED, "--mobster-model", "scripted", "test_app.py")
    result.assert_outcomes(passed=4)
    by_name = {c.name: c for c in cases}
    assert by_name["test_by_stem"].prop("mobster.check") == "A new user signs up"
    assert by_name["test_by_check_built_in_code"].props("mobster.mode") == ["replay", "replay"]
    assert by_name["test_device_and_model"].properties == []  # it ran no check
    assert not list(project.root.glob("test_app.*.yaml"))  # a check built in code needs no file


def test_a_check_that_fails_raises_and_raising_false_returns_it(project: Project) -> None:
    record(project)
    project.app("renamed.yaml", renamed=True)
    project.pytester.makepyfile(
        test_drift="""
        import pytest
        from mobster_core import FailureClass, Verdict
        from mobster_pytest import CheckFailed, CheckNotPassed


        def test_returned(mobster, mobster_model):
            assert mobster_model is None  # --mobster-no-heal: no model, no key read
            result = mobster.run("signup", raising=False)
            assert (result.verdict, result.outcome.failure_class) == (Verdict.FAILED, FailureClass.DRIFT)


        def test_raised(mobster):
            with pytest.raises(CheckFailed) as info:
                mobster.run("signup")
            assert isinstance(info.value, CheckNotPassed)
            assert str(info.value) == "failed (drift)"
            assert info.value.result is not None
            assert info.value.where == ".mobster/checks/signup.yaml:8"


        def test_unknown_name(mobster):
            mobster.run("nosuchcheck")
        """
    )
    result = project.run("--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal", "test_drift.py")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*couldnt_run (usage): no check 'nosuchcheck': give a path, a name in *"])


def test_a_check_built_in_code_that_fails_is_located_at_the_line_that_built_it(project: Project) -> None:
    # CheckFailed.where was None for a check built with mobster.check(...): pytest's line named no place.
    record(project)
    project.app("renamed.yaml", renamed=True)
    code = """
        import pytest
        from mobster_pytest import CheckFailed


        def build(mobster):
            return mobster.check({
                "version": 1,
                "name": "Sign up, written in Python",
                "app": {"bundle": "com.example.yourapp"},
                "steps": ['Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Tap "Continue"'],
                "expect": [{"text": "Welcome aboard"}],
            })


        def test_raised(mobster):
            check = build(mobster)
            with pytest.raises(CheckFailed) as info:
                mobster.run(check)
            assert info.value.where == "test_built.py:LINE"
            assert info.value.headline.startswith("test_built.py:LINE: failed (drift): step 3")
            assert info.value.result is not None


        def test_shown(mobster):
            mobster.run(build(mobster))
        """
    line = next(n for n, text in enumerate(code.splitlines()[1:], 1) if "mobster.check(" in text)
    project.pytester.makepyfile(test_built=code.replace("LINE", str(line)))
    result = project.run("--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal", "test_built.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"*test_built.py:{line}: failed (drift): step 3 (Tap ?Continue?) drifted*"])


def test_options_override_per_run_and_the_marker_selects_fixture_users(project: Project) -> None:
    project.pytester.makepyfile(
        test_opts="""
        from mobster_core.results import Mode


        def test_fresh(mobster):
            assert mobster.options.no_heal is False
            result = mobster.run("paywall", fresh=True)
            assert result.mode is Mode.SMART


        def test_plain():
            pass
        """
    )
    result = project.run(*SCRIPTED, "--mobster-model", "scripted", "-m", "mobster", "test_opts.py")
    result.assert_outcomes(passed=1, deselected=1)


def test_the_docs_example_runs(project: Project) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "pytest.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
    record(project)
    project.pytester.makepyfile(test_docs_example=code)
    project.run(*SCRIPTED, "test_docs_example.py").assert_outcomes(passed=4)
