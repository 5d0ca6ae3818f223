"""Check files as pytest items: collection, markers, ``-k``, the failure report, JUnit properties."""

from __future__ import annotations

import os

import pytest

from .helpers import ALLURE, PAYWALL, SIGNUP, Project, record

pytest_plugins = ["pytester"]


def test_every_check_file_is_one_item_and_nothing_else_under_mobster_is(project: Project) -> None:
    project.check("settings", PAYWALL.replace("Settings offers Pro", "Settings, again"), suffix=".yml")
    project.check("signup.heal", "version: 1\ncheck: signup.yaml\nheals: []\n")  # a heal file
    project.check(".hidden", SIGNUP)
    nested = project.root / ".mobster" / "checks" / "drafts"
    nested.mkdir()
    (nested / "draft.yaml").write_text(SIGNUP)
    # Test files where pytest would look, if it looked inside the run folders or the cache:
    for folder in ("runs/20260101T000000Z-abcdef", "cache/replay"):
        path = project.root / ".mobster" / folder
        path.mkdir(parents=True)
        (path / "test_trap.py").write_text("def test_trap():\n    assert False\n")
    result = project.run("--collect-only", "-q")
    assert result.ret == 0
    assert sorted(line for line in result.outlines if "::" in line) == [
        ".mobster/checks/paywall.yaml::paywall",
        ".mobster/checks/settings.yml::settings",
        ".mobster/checks/signup.yaml::signup",
    ]


def test_tags_are_markers_registered_for_strict_markers(project: Project) -> None:
    record(project)
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "--strict-markers", "-m", "smoke", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*signup.yaml::signup PASSED*"])
    every = project.run("--mobster-scripted", "apps/yourapp.yaml", "--strict-markers", "-m", "mobster")
    every.assert_outcomes(passed=2)


def test_a_tag_that_names_a_marker_pytest_acts_on_stays_a_keyword(project: Project) -> None:
    record(project)
    project.check("signup", SIGNUP.replace("tags: [smoke, signup]", "tags: [skip, xfail, flaky]"))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "--strict-markers", "-k", "xfail", "-v")
    # Neither skipped nor expected to fail: a label never changes what a check does.
    result.assert_outcomes(passed=1, deselected=1)


def test_k_selects_by_the_check_name_and_the_file_stem(project: Project) -> None:
    record(project)
    by_name = project.run("--mobster-scripted", "apps/yourapp.yaml", "-k", "Pro", "-v")
    by_name.assert_outcomes(passed=1, deselected=1)
    by_name.stdout.fnmatch_lines(["*paywall.yaml::paywall PASSED*"])
    by_stem = project.run("--mobster-scripted", "apps/yourapp.yaml", "-k", "signup and not paywall")
    by_stem.assert_outcomes(passed=1, deselected=1)


def test_first_run_records_and_the_second_replays_at_no_cost(project: Project) -> None:
    first, cases = project.junit("--mobster-scripted", "apps/yourapp.yaml", "--mobster-model", "scripted")
    first.assert_outcomes(passed=2)
    assert {c.prop("mobster.mode") for c in cases} == {"smart"}
    calls = sum(int(c.prop("mobster.model_calls")) for c in cases)
    assert calls == 7  # one a step and the one that says done: 3 + 1 and 2 + 1
    first.stdout.fnmatch_lines([f"mobster: 2 check runs, 0 healed steps, {calls} model calls, ~$0.00"])
    second, cases = project.junit("--mobster-scripted", "apps/yourapp.yaml", "--mobster-model", "scripted")
    second.assert_outcomes(passed=2)
    signup = next(c for c in cases if c.prop("mobster.check") == "A new user signs up")
    assert [k for k, _ in signup.properties] == [
        "mobster.check",
        "mobster.verdict",
        "mobster.class",
        "mobster.mode",
        "mobster.model_calls",
        "mobster.cost_usd",
        "mobster.cost_estimated",
        "mobster.healed_steps",
        "mobster.replayed_with_no_model",
        "mobster.device",
        "mobster.run_dir",
        "mobster.flaky",
        "mobster.attempts",
        "mobster.run",
    ]
    assert (signup.prop("mobster.flaky"), signup.prop("mobster.attempts"), signup.prop("mobster.run")) == (
        "False",
        "1",
        "",
    )
    assert signup.prop("mobster.verdict") == "passed"
    assert signup.prop("mobster.mode") == "replay"
    assert signup.prop("mobster.replayed_with_no_model") == "True"
    assert (signup.prop("mobster.model_calls"), signup.prop("mobster.cost_usd")) == ("0", "0.0")
    assert signup.prop("mobster.device") == "Phone A, iOS 26.4 (simulator)"
    run_dir = signup.prop("mobster.run_dir")
    assert run_dir.startswith(".mobster/runs/")
    assert (project.root / run_dir / "result.json").is_file()
    second.stdout.fnmatch_lines(
        ["mobster: 2 check runs (2 replayed with no model), 0 healed steps, 0 model calls, $0.00", "*2 passed*"]
    )


def test_a_drift_is_one_line_with_the_file_and_the_steps_line_and_no_traceback(project: Project) -> None:
    record(project)
    project.app("renamed.yaml", renamed=True)
    result = project.run("--mobster-scripted", "apps/renamed.yaml", "--mobster-no-heal", "-k", "signup", "-rf")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "*_ mobster check signup _*",
            (
                '.mobster/checks/signup.yaml:8: failed (drift): step 3 (Tap "Continue") drifted: '
                '"Continue" isn\'t on the screen (healing is off); run it without --mobster-no-heal '
                "(nor mobster_no_heal in the ini), or with --mobster-fresh to record it again"
            ),
            "    on Phone A, iOS 26.4; mode replay; 0 model calls, $0.00",
            "    run folder: .mobster/runs/*",
            "FAILED .mobster/checks/signup.yaml::signup - .mobster/checks/signup.yaml:8: f*",
        ]
    )
    text = result.stdout.str()
    assert "Traceback" not in text
    assert "mobster_pytest" not in text
    assert "CheckFailed" not in text  # our lines, not the exception's
    assert " --no-heal" not in text  # pytest's options only, never the mobster command's
    assert " --fresh" not in text


def test_a_failed_assertion_points_at_its_expect_line(project: Project) -> None:
    record(project)
    project.check("paywall", PAYWALL.replace("text: Go Pro", "text: Go Platinum"))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "-k", "paywall")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        [
            '.mobster/checks/paywall.yaml:9: failed (assertion): text "Go Platinum" failed: *',
            '    failed: text "Go Platinum": *',
        ]
    )


def test_a_check_file_that_does_not_load_fails_alone_with_its_file_line_and_key(project: Project) -> None:
    record(project)
    project.check("broken", SIGNUP.replace("app: {bundle: com.example.yourapp}", "app: {bundel: com.example.yourapp}"))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "*.mobster/checks/broken.yaml:3: couldnt_run (usage): app.bundel: unknown key 'bundel' "
                "(did you mean 'bundle'?)*"
            )
        ]
    )


def test_text_from_outside_is_shown_with_escapes(project: Project) -> None:
    record(project)
    project.check("paywall", PAYWALL.replace("text: Go Pro", 'text: "Go \\e[31mPro"'))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "-k", "paywall")
    result.assert_outcomes(failed=1, deselected=1)
    assert "\x1b" not in result.stdout.str()
    result.stdout.fnmatch_lines([r'*failed (assertion): text "Go \u001b[[]31mPro"*'])


def test_without_a_device_every_check_says_how_to_choose_one(project: Project) -> None:
    result = project.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        ['couldnt_run (usage): no device for Mobster: pass --mobster-scripted APP.yaml, *-m "not mobster"']
    )
    project.run("-m", "not mobster").assert_outcomes(deselected=2)


def test_an_ini_path_is_relative_to_the_ini_file_and_an_option_path_to_the_current_folder(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.pytester.makeini("[pytest]\nmobster_scripted = apps/yourapp.yaml\nmobster_model = scripted\n")
    sub = project.root / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    project.run(str(project.root)).assert_outcomes(passed=2)  # recorded through the ini's app script
    project.app("renamed.yaml", renamed=True)
    given = project.run("--mobster-scripted", "../apps/renamed.yaml", "--mobster-no-heal", str(project.root))
    given.assert_outcomes(passed=1, failed=1)  # the option won over the ini: signup drifted there


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--mobster-scripted", "a.yaml", "--mobster-wda", "http://x"),
            "*choose one device option, not --mobster-scripted and --mobster-wda: a pool holds devices of one kind*",
        ),
        (("--mobster-max-usd", "lots"), "*--mobster-max-usd: 'lots' is not a number of US dollars*"),
        (("--mobster-max-usd", "-1"), "*must be more than 0 US dollars*"),
        (("--mobster-wda", "http://127.0.0.1:1"), "*--mobster-clock simulated runs the scripted phone only*"),
        (("--mobster-model", "claude-sonnet-5-5"), "*--mobster-clock simulated runs the scripted model only*"),
        (("--mobster-caps", "c.json", "--mobster-scripted", "a.yaml"), "*--mobster-caps goes with --mobster-appium*"),
        (
            ("--mobster-android", "emulator-5554", "--mobster-scripted", "a.yaml"),
            "*choose one device option, not --mobster-scripted and --mobster-android*",
        ),
        (("--mobster-android", "emulator-5554"), "*--mobster-clock simulated runs the scripted phone only*"),
    ],
)
def test_a_mistake_in_the_options_stops_pytest_at_once(project: Project, args: tuple[str, ...], message: str) -> None:
    result = project.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: mobster: {message}"])


#: The plugin on the real clock (a real device or a vendor's model lives there).
REAL_CLOCK = ("-p", "no:cacheprovider", "-p", "mobster_pytest.plugin")


def test_the_video_mode_is_checked_on_the_command_line_and_in_the_ini(project: Project) -> None:
    result = project.run("--mobster-video", "sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mobster-video: invalid choice: 'sometimes'*"])
    project.pytester.makeini("[pytest]\nmobster_video = sometimes\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: mobster: mobster_video (ini): 'sometimes' is not one of off, on, retain-on-failure"]
    )


def test_a_pool_mistake_names_an_ini_key_as_the_user_wrote_it(project: Project) -> None:
    # The pool is the harness's (mobster test's rules and words); the spelling is the plugin's.
    project.pytester.makeini("[pytest]\nmobster_scripted = apps/yourapp.yaml\n")
    result = project.run("--mobster-wda", "http://127.0.0.1:1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = (
        "ERROR: mobster: choose one device option, not mobster_scripted (ini) and --mobster-wda: "
        "a pool holds devices of one kind, or Android devices (--mobster-android) beside one kind of iOS device "
        "or Appium URLs"
    )
    result.stderr.fnmatch_lines([said])


def test_a_pool_of_simulators_puts_each_on_its_own_wda_port(project: Project) -> None:
    # As mobster test's --sim pool: one WDA port each, and two on one port are refused at once.
    result = project.pytester.runpytest(*REAL_CLOCK, "--mobster-sim", "A@8101", "--mobster-sim", "B@8101")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    said = "ERROR: mobster: two simulators of the pool on one WDA port (A@8101, B@8101): give each its own NAME@PORT"
    result.stderr.fnmatch_lines([said])


def test_a_mistake_never_shows_a_urls_secret(project: Project) -> None:
    # The one spec scrubs what the plugin's own copy printed as given: a URL's password and token.
    token = "a1B2c3D4e5F6g7H8i9J0k1L2"
    result = project.run("--mobster-appium", f"https://ada:s3cret-KEY@hub.example.com/wd/hub/{token}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: mobster: --mobster-clock simulated runs the scripted phone only, not --mobster-appium https://ada:***@*"
        ]
    )
    assert "s3cret-KEY" not in result.stderr.str()
    assert token not in result.stderr.str()


def test_a_model_without_its_key_ends_the_check_couldnt_run(project: Project) -> None:
    # The harness's chooser, as mobster test's; the plugin says it per check, naming its option.
    result = project.pytester.runpytest(
        *REAL_CLOCK, "--mobster-scripted", "apps/yourapp.yaml", "--mobster-model", "claude-sonnet-5-5", "-k", "signup"
    )
    result.assert_outcomes(failed=1, deselected=1)
    said = (
        "*couldnt_run (model): --mobster-model claude-sonnet-5-5: no Anthropic key for claude-sonnet-5-5: "
        "set ANTHROPIC_API_KEY or pass --env-file"
    )
    result.stdout.fnmatch_lines([said])


def test_each_device_makes_an_item_per_check_and_device(project: Project) -> None:
    record(project)
    project.app("b.yaml", device="Phone B")
    pool = ("--mobster-scripted", "apps/yourapp.yaml", "--mobster-scripted", "apps/b.yaml")
    result, cases = project.junit(*pool, "--mobster-each-device", "-k", "signup", "-v")
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(["*signup.yaml::signup[[]yourapp[]] PASSED*", "*signup.yaml::signup[[]b[]] PASSED*"])
    devices = {c.name: c.prop("mobster.device") for c in cases}
    assert devices == {"signup[b]": "Phone B, iOS 26.4 (simulator)", "signup[yourapp]": "Phone A, iOS 26.4 (simulator)"}


def test_every_option_is_an_ini_key(project: Project) -> None:
    record(project)
    project.app("renamed.yaml", renamed=True)
    project.pytester.makeini("[pytest]\nmobster_scripted = apps/renamed.yaml\nmobster_no_heal = true\n")
    result = project.run("-k", "signup")
    result.assert_outcomes(failed=1, deselected=1)
    result.stdout.fnmatch_lines(["*failed (drift)*(healing is off); run it without --mobster-no-heal *"])


def test_the_paths_store_is_chosen_as_with_mobster_test(project: Project) -> None:
    store = ("--mobster-paths", "committed")
    first = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-model", "scripted", *store)
    first.assert_outcomes(passed=2)
    assert len(list((project.root / ".mobster" / "paths").glob("*.json"))) == 2
    again, cases = project.junit("--mobster-scripted", "apps/yourapp.yaml", "--mobster-no-heal", *store)
    again.assert_outcomes(passed=2)
    assert {c.prop("mobster.mode") for c in cases} == {"replay"}
    bad = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-paths", "s3")
    assert bad.ret != 0
    bad.stderr.fnmatch_lines(["*--mobster-paths: 's3' is no path store: write one of local, committed, s3://*"])
    locale = project.run("--mobster-scripted", "apps/yourapp.yaml", "--mobster-locale", "Deutsch")
    locale.stderr.fnmatch_lines(["*--mobster-locale: 'Deutsch' is not a locale*"])


def test_a_check_file_name_with_an_escape_and_a_newline_forges_no_line(project: Project) -> None:
    record(project)
    (project.root / ".mobster" / "checks" / "x\x1b[32m\nPASSED.yaml").write_text(SIGNUP)
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", "-v")
    out = result.stdout.str()
    assert "\x1b" not in out
    assert not any(line.startswith("PASSED") for line in out.splitlines())
    assert "x\\x1b[32m\\nPASSED.yaml" in out  # shown, escaped


def test_a_fifo_check_file_fails_as_a_file_that_does_not_load_without_waiting(project: Project) -> None:
    record(project)
    os.mkfifo(project.root / ".mobster" / "checks" / "waiting.yaml")
    result = project.run("--mobster-scripted", "apps/yourapp.yaml")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*waiting.yaml*not a regular file*"])


def test_a_tag_that_names_a_plugins_marker_stays_a_keyword(project: Project) -> None:
    record(project)
    project.check("signup", SIGNUP.replace("tags: [smoke, signup]", "tags: [smoke, allure_label, allure_link]"))
    result = project.run("--mobster-scripted", "apps/yourapp.yaml", *ALLURE, f"--alluredir={project.root / 'al'}")
    result.assert_outcomes(passed=2)
    assert project.run("--mobster-scripted", "apps/yourapp.yaml", "-k", "allure_label").ret == 0
