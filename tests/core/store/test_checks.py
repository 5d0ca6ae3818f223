"""Check files: Mobster's version-1 format, loaded strictly, with file:line messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mobster_core import Check, LaunchOptions, Reset, find_checks, load_check
from mobster_core._rules.assertions import Kind, Pattern, Selector
from mobster_core._store.checks import DEFAULT_MAX_SECONDS, DEFAULT_MAX_USD
from mobster_core.checks import Budget, CheckApp, CheckError, CheckLaunch, load_check_text
from mobster_core.yaml import MAX_YAML_BYTES
from tests.samples import DATA as TEST_DATA

DATA = TEST_DATA / "checks"
APP = "app: {bundle: com.example.yourapp}\n"


def load(text: str) -> Check:
    return load_check_text(text, "c.yaml")


def error(text: str) -> CheckError:
    with pytest.raises(CheckError) as info:
        load(text)
    return info.value


# -- the example checks ---------------------------------------------------------------------


def test_launch_only_check_with_a_deep_link() -> None:
    check = load_check(DATA / "paywall.yaml")
    assert check.file == DATA / "paywall.yaml"
    assert check.version == 1
    assert check.name == "The paywall shows three plans with Annual at $39.99 a year"
    assert check.app == CheckApp(
        bundle="dev.mobster.daybreak", path=".build/Build/Products/Debug-iphonesimulator/Daybreak.app"
    )
    assert check.tags == ("smoke", "paywall")
    assert check.launch == CheckLaunch(url="daybreak://paywall")
    assert check.launch_only
    assert check.steps == ()
    assert check.steps_raw is None
    assert [a.kind for a in check.expect] == [Kind.TEXT, Kind.COUNT, Kind.VALUE, Kind.VISIBLE, Kind.NO_TEXT]
    assert [a.show() for a in check.expect] == [
        'text "Choose your plan"',
        "count id=/^plan_/ == 3",
        'value id=plan_annual == "$39.99 / year"',
        'visible label="Restore Purchases" role=button',
        'no_text "Loading"',
    ]
    assert check.budget == Budget(max_seconds=DEFAULT_MAX_SECONDS, max_usd=DEFAULT_MAX_USD)
    assert check.budget == Budget(180.0, 0.25)
    assert check.reset is None
    assert check.effective_reset is Reset.REINSTALL  # auto, with an app file


def test_steps_as_a_list_and_a_budget() -> None:
    check = load_check(DATA / "onboarding.yaml")
    assert check.steps == ('Tap "Get started"', 'Choose the morning reminder time and tap "Continue"')
    assert check.steps_raw == check.steps
    assert not check.launch_only
    assert check.budget == Budget(max_seconds=180.0, max_usd=0.15)
    assert check.reset is Reset.DATA
    assert check.expect[0].name == "Onboarding finished"
    assert check.expect[0].show() == "text /you're all set/i"


def test_steps_as_one_string_launch_values_and_a_boolean_value() -> None:
    check = load_check(DATA / "reminder.yaml")
    assert check.steps == ('Turn on "Daily reminder"',)
    assert check.steps_raw == 'Turn on "Daily reminder"'
    assert check.launch.args == ("-DaybreakSkipOnboarding", "YES")
    assert dict(check.launch.env) == {"DAYBREAK_SEED": "42"}
    assert check.expect[0].equals is True
    assert check.launch_options() == LaunchOptions(
        args=("-DaybreakSkipOnboarding", "YES"),
        env={"DAYBREAK_SEED": "42"},
        url="daybreak://settings/reminders",
        reset=Reset.DATA,  # auto, without an app file
    )


def test_a_multi_line_string_holds_one_step_per_non_empty_line() -> None:
    check = load_check(DATA / "settings.yaml")
    assert check.steps == ('Tap "Settings"', "Scroll to the bottom")
    assert check.steps_raw == 'Tap "Settings"\n\nScroll to the bottom\n'
    assert (check.device, check.runtime) == ("iPhone 17 Pro", "iOS 26.4")
    assert check.expect[0].subject == Selector(role="navbar", id=Pattern.parse("Settings"))
    assert check.expect[1].at_least == 3


def test_text_as_a_list_expands_into_one_assertion_each() -> None:
    check = load_check(DATA / "today.yaml")
    assert [a.show() for a in check.expect] == ['text "Today"', 'text "Morning routine"', 'text "Evening routine"']
    assert check.name == "Launch check"
    assert check.version == 1


def test_the_smallest_check_is_an_app() -> None:
    check = load(APP)
    assert check.app == CheckApp(bundle="com.example.yourapp")
    assert check.expect == ()
    assert check.tags == ()
    assert check.launch == CheckLaunch()
    assert check.budget == Budget()


def test_an_app_file_alone_is_an_app() -> None:
    check = load("app: {path: build/YourApp.app}\nexpect: []\n")
    assert check.app == CheckApp(path="build/YourApp.app")
    assert check.expect == ()


def test_json_is_yaml_too() -> None:
    check = load('{"app": {"bundle": "com.example.yourapp"}, "steps": ["Tap Continue"]}')
    assert check.steps == ("Tap Continue",)


# -- defaults and derived values ------------------------------------------------------------


def test_the_default_name_is_the_first_step_cut_to_120_characters() -> None:
    assert load(APP + "steps: [Tap Sign up, Tap Continue]\n").name == "Tap Sign up"
    long = "x" * 130
    name = load(APP + f"steps: [{long}]\n").name
    assert name == "x" * 119 + "\u2026"
    assert len(name) == 120
    exact = "y" * 120
    assert load(APP + f"steps: [{exact}]\n").name == exact


def test_names_and_steps_are_stripped() -> None:
    check = load(APP + 'name: "  Sign up  "\nsteps: ["  Tap Sign up  "]\n')
    assert check.name == "Sign up"
    assert check.steps == ("Tap Sign up",)


@pytest.mark.parametrize(
    ("app", "reset", "effective"),
    [
        ("{bundle: com.example.yourapp}", None, Reset.DATA),
        ("{bundle: com.example.yourapp, path: A.app}", None, Reset.REINSTALL),
        ("{bundle: com.example.yourapp, path: A.app}", "auto", Reset.REINSTALL),
        ("{bundle: com.example.yourapp}", "none", Reset.NONE),
        ("{bundle: com.example.yourapp}", "reinstall", Reset.REINSTALL),
        ("{bundle: com.apple.Preferences}", None, Reset.NONE),
        ("{bundle: com.apple.Preferences}", "data", Reset.NONE),
        ("{path: A.app}", None, Reset.REINSTALL),
    ],
)
def test_effective_reset(app: str, reset: str | None, effective: Reset) -> None:
    text = f"app: {app}\n" + (f"reset: {reset}\n" if reset else "")
    check = load(text)
    assert check.effective_reset is effective
    assert check.launch_options().reset is effective
    if reset == "auto":
        assert check.reset is None


def test_app_file_resolves_against_the_project_root(tmp_path: Path) -> None:
    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    file = tmp_path / ".mobster" / "checks" / "a.yaml"
    file.write_text("app: {path: build/YourApp.app}\n")
    assert load_check(file).app_file() == tmp_path / "build" / "YourApp.app"
    file.write_text("app: {path: /opt/YourApp.app}\n")
    assert load_check(file).app_file() == Path("/opt/YourApp.app")
    file.write_text(APP)
    assert load_check(file).app_file() is None


def test_app_file_without_a_project_resolves_against_the_check_folder(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_text("app: {path: YourApp.app}\n")
    assert load_check(file).app_file() == tmp_path / "YourApp.app"


def test_request_text_has_the_name_steps_and_expectations() -> None:
    check = load_check(DATA / "onboarding.yaml")
    assert check.request_text() == (
        "Check: A new user finishes onboarding\n"
        "Steps:\n"
        '1. Tap "Get started"\n'
        '2. Choose the morning reminder time and tap "Continue"\n'
        "Afterwards the screen must show (checked by the SDK, not by you):\n"
        "- text /you're all set/i  (Onboarding finished)\n"
        '- absent label="Get started"'
    )


def test_request_text_of_a_launch_check_without_expectations() -> None:
    assert load(APP).request_text() == (
        "Check: Launch check\nSteps: none (the check only launches the app).\nExpectations: none."
    )


def test_a_check_is_frozen_and_its_env_read_only() -> None:
    check = load_check(DATA / "reminder.yaml")
    with pytest.raises(TypeError):
        check.launch.env["X"] = "1"  # type: ignore[index]
    assert hash(check.launch) == hash(CheckLaunch(args=check.launch.args, env={}, url=check.launch.url))


# -- finding checks -------------------------------------------------------------------------


def test_find_checks_lists_yaml_files_sorted_without_heal_files(tmp_path: Path) -> None:
    folder = tmp_path / ".mobster" / "checks"
    (folder / "nested").mkdir(parents=True)
    for name in ("b.yaml", "a.yml", "c.yaml", "c.heal.yaml", "d.heal.yml", "notes.md", ".hidden.yaml"):
        (folder / name).write_text(APP)
    (folder / "nested" / "e.yaml").write_text(APP)
    (folder / "dir.yaml").mkdir()
    assert find_checks(tmp_path) == [folder / "a.yml", folder / "b.yaml", folder / "c.yaml"]


def test_find_checks_without_a_checks_folder(tmp_path: Path) -> None:
    assert find_checks(tmp_path) == []


# -- files that can't be read ---------------------------------------------------------------


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CheckError) as info:
        load_check(tmp_path / "missing.yaml")
    assert "missing.yaml: can't read the check file" in str(info.value)
    assert info.value.line is None


def test_a_folder_is_not_a_check(tmp_path: Path) -> None:
    with pytest.raises(CheckError, match="can't read the check file"):
        load_check(tmp_path)


def test_non_utf8_bytes(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"app: {bundle: \xff\xfe}\n")
    with pytest.raises(CheckError) as info:
        load_check(file)
    assert "not UTF-8" in str(info.value)
    assert info.value.file == str(file)
    assert info.value.line is None


def test_a_file_over_one_mebibyte(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(APP.encode() + b"#" * MAX_YAML_BYTES)
    with pytest.raises(CheckError, match="larger than the limit of 1048576 bytes"):
        load_check(file)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_text(APP)
    file.chmod(0)
    with pytest.raises(CheckError, match="Permission denied"):
        load_check(file)


# -- every bad input names the file, the line, the key, the problem and the fix ---------------


BAD = [
    # YAML itself
    ("a: 1\na: 2\n", 2, "a", "the key is written twice (lines 1 and 2); keep one of them"),
    (APP + "name: !custom x\n", 2, "name", "could not determine a constructor"),
    (APP + "name: !!python/object:os.system x\n", 2, "name", "could not determine a constructor"),
    (APP + "name: [unclosed\n", 3, None, "fix the YAML there"),
    ("", None, None, "the file is empty"),
    ("- app\n", None, None, "expected a mapping of version, name"),
    # unknown keys, with hints
    ("app: {bundle: a.b}\nnmae: x\n", 2, "nmae", "unknown key 'nmae' (did you mean 'name'?); rename it"),
    ("app: {bundle: a.b}\nzzz: x\n", 2, "zzz", "(allowed: alerts, all_steps, app, budget, device, expect, launch,"),
    # alerts: the policy, and the services it may name
    (APP + "alerts: always\n", 2, "alerts", "unknown policy 'always'; write fail, accept, dismiss or {allow"),
    (APP + "alerts: {allow: [locaton]}\n", 2, "alerts.allow[0]", "unknown service 'locaton'; write one of location,"),
    (APP + "alerts: {allow: [camera], deny: [camera]}\n", 2, "alerts", "camera is both allowed and denied"),
    (APP + "alerts: {grant: [camera]}\n", 2, "alerts.grant", "unknown key 'grant'; write allow"),
    (APP + "alerts: {allow: location}\n", 2, "alerts.allow", "expected a list of services"),
    ("app: {bundel: a.b}\n", 1, "app.bundel", "unknown key 'bundel' (did you mean 'bundle'?)"),
    (APP + "launch: {urls: a://b}\n", 2, "launch.urls", "(did you mean 'url'?)"),
    (APP + "budget: {max_usd: 0.1, max_secs: 5}\n", 2, "budget.max_secs", "(did you mean 'max_seconds'?)"),
    (APP + "expect:\n  - txt: Hello\n", 3, "expect[0].txt", "(did you mean 'text'?)"),
    (APP + "expect:\n  - visible: {lable: Go}\n", 3, "expect[0].visible.lable", "(did you mean 'label'?)"),
    ("bundle_id: a.b\n", 1, "bundle_id", "in a check file write app: {bundle: …}"),
    ("app: {bundle: a.b}\nopen_url: a://b\n", 2, "open_url", "write launch: {url: …}"),
    ("app: {bundle: a.b}\nimage: x.png\n", 2, "image", "image is a key of the tool shape only"),
    # required and null
    ("name: x\n", None, None, "the app is missing; add app:"),
    ("app: {}\n", 1, "app", "names no app"),
    ("app:\n", 1, "app", "has no value (null); give it a value"),
    (APP + "expect:\n", 2, "expect", "has no value (null)"),
    (APP + "launch: {url: ~}\n", 2, "launch.url", "has no value (null)"),
    # version
    ("version: 2\n" + APP, 1, "version", "only version 1 exists, got 2 (a number); write version: 1"),
    ('version: "1"\n' + APP, 1, "version", "got '1' (a string)"),
    ("version: true\n" + APP, 1, "version", "got true (a flag)"),
    ("version: 1.0\n" + APP, 1, "version", "got 1.0 (a number)"),
    # strings are strings (YAML 1.2: yes is a string, numbers are numbers)
    (APP + "name: 3\n", 2, "name", 'expected a string, got 3 (a number); quote it: name: "3"'),
    (APP + "name: true\n", 2, "name", 'quote it: name: "true"'),
    (APP + "name: 2024-01-01\n", 2, "name", "a date (from a YAML tag or an unquoted date)"),
    (APP + "name: !!binary aGk=\n", 2, "name", "a bytes"),
    (APP + "name: [a]\n", 2, "name", "got a list; write a string"),
    (APP + "name: '  '\n", 2, "name", "is blank; write the name"),
    (APP + f"name: {'n' * 121}\n", 2, "name", "is 121 characters long; the limit is 120; shorten it"),
    (APP + "device: ''\n", 2, "device", "is blank"),
    (APP + f"runtime: {'r' * 201}\n", 2, "runtime", "the limit is 200"),
    # app
    ("app: com.example.app\n", 1, "app", "expected a mapping of bundle, path, got 'com.example.app' (a string)"),
    ("app: {bundle: yourapp}\n", 1, "app.bundle", "'yourapp' is not a bundle id"),
    ("app: {bundle: 'com.example/app'}\n", 1, "app.bundle", "write the reverse-DNS id"),
    ("app: {bundle: 3.5}\n", 1, "app.bundle", 'quote it: bundle: "3.5"'),
    (f"app: {{bundle: a.{'b' * 254}}}\n", 1, "app.bundle", "the limit is 255"),
    ('app: {path: "a\\0b"}\n', 1, "app.path", "holds a NUL character"),
    # all_steps
    (APP + "all_steps: yes\n", 2, "all_steps", "expected true or false, got 'yes' (a string); write all_steps: true"),
    (APP + "all_steps: 1\n", 2, "all_steps", "got 1 (a number)"),
    (APP + "all_step: true\n", 2, "all_step", "(did you mean 'all_steps'?)"),
    # reset
    (APP + "reset: no\n", 2, "reset", "unknown reset 'no' (a string) (did you mean 'none'?)"),
    (APP + "reset: everything\n", 2, "reset", "(allowed: auto, data, none, reinstall)"),
    (APP + "reset: 1\n", 2, "reset", "unknown reset 1 (a number) (allowed: auto, none, data, reinstall)"),
    # tags
    (APP + "tags: smoke\n", 2, "tags", "expected a list of strings, got 'smoke' (a string); write tags: [a, b]"),
    (APP + "tags: [Smoke]\n", 2, "tags[0]", "'Smoke' is not a tag: lowercase"),
    (APP + "tags: [-x]\n", 2, "tags[0]", "write a tag such as x"),
    (APP + "tags: ['!!']\n", 2, "tags[0]", "write a tag such as smoke"),
    (APP + f"tags: [{'t' * 41}]\n", 2, "tags[0]", "is 41 characters long; the limit is 40"),
    (APP + f"tags: [{', '.join(f't{i}' for i in range(11))}]\n", 2, "tags", "has 11 items; the limit is 10"),
    (APP + "tags: [1]\n", 2, "tags[0]", 'quote it: "1"'),
    # launch
    (APP + "launch: [a]\n", 2, "launch", "expected a mapping of args, env, url"),
    (APP + "launch: {args: [-count, 3]}\n", 2, "launch.args[1]", 'expected a string, got 3 (a number); quote it: "3"'),
    (APP + f"launch: {{args: [{', '.join('a' * 21)}]}}\n", 2, "launch.args", "has 21 items; the limit is 20"),
    (APP + f"launch: {{args: [{'a' * 1001}]}}\n", 2, "launch.args[0]", "the limit is 1000"),
    (APP + "launch: {env: [A]}\n", 2, "launch.env", "expected a mapping of names to strings"),
    (APP + "launch: {env: {lower: x}}\n", 2, "launch.env.lower", "digit); write a name such as LOWER"),
    (APP + "launch: {env: {1X: x}}\n", 2, 'launch.env."1X"', "write a name such as MY_FLAG"),
    (APP + "launch: {env: {1: x}}\n", 2, 'launch.env."1"', "1 (a number) is not a variable name"),
    (APP + "launch: {env: {SEED: 42}}\n", 2, "launch.env.SEED", 'quote it: SEED: "42"'),
    (APP + "launch: {env: {SEED: yes}}\n", 2, None, None),  # yes is a string: fine
    (APP + f"launch: {{env: {{{', '.join(f'K{i}: v' for i in range(21))}}}}}\n", 2, "launch.env", "21 variables"),
    (APP + f"launch: {{env: {{K: {'v' * 1001}}}}}\n", 2, "launch.env.K", "the limit is 1000"),
    (APP + "launch: {url: yourapp/signup}\n", 2, "launch.url", "has no scheme; write a deep link such as"),
    (APP + f"launch: {{url: 'a://{'u' * 2000}'}}\n", 2, "launch.url", "the limit is 2000"),
    # steps
    (APP + "steps: []\n", 2, "steps", "is an empty list; write at least one step, or remove steps"),
    (APP + "steps: '  \n\n  '\n", 2, "steps", "is blank"),
    (APP + "steps: {a: b}\n", 2, "steps", "expected a step or a list of steps, got a mapping"),
    (APP + "steps: [Tap, 3]\n", 2, "steps[1]", 'quote it: "3"'),
    (APP + "steps: [Tap, '']\n", 2, "steps[1]", "is blank; remove the empty item"),
    (APP + f"steps: [{'s' * 501}]\n", 2, "steps[0]", "is 501 characters long; the limit is 500"),
    (APP + f"steps: '{'s' * 501}'\n", 2, "steps", "step 1 is 501 characters long; the limit is 500; split it"),
    (APP + f"steps: [{', '.join(['Tap'] * 21)}]\n", 2, "steps", "has 21 steps; the limit is 20"),
    (APP + "steps: |\n" + "".join(f"  Tap {i}\n" for i in range(21)), 2, "steps", "has 21 steps"),
    # budget
    (APP + "budget: 5\n", 2, "budget", "expected a mapping of max_seconds, max_usd"),
    (APP + 'budget: {max_seconds: "60"}\n', 2, "budget.max_seconds", "write it without quotes: max_seconds: 60"),
    (APP + "budget: {max_seconds: true}\n", 2, "budget.max_seconds", "write a number of seconds"),
    (APP + "budget: {max_seconds: 0}\n", 2, "budget.max_seconds", "must be more than 0 and at most 600 seconds"),
    (APP + "budget: {max_seconds: 601}\n", 2, "budget.max_seconds", "at most 600"),
    (APP + "budget: {max_seconds: .inf}\n", 2, "budget.max_seconds", "got inf"),
    (APP + "budget: {max_seconds: .nan}\n", 2, "budget.max_seconds", "got nan"),
    (APP + "budget: {max_usd: 1.5}\n", 2, "budget.max_usd", "at most 1 US dollars"),
    (APP + "budget: {max_usd: -1}\n", 2, "budget.max_usd", "must be more than 0"),
    # expect
    (APP + "expect: {text: Hi}\n", 2, "expect", "expected a list of assertions, got a mapping"),
    (APP + "expect:\n  - Welcome\n", 3, "expect[0]", 'write - text: "Welcome"'),
    (APP + "expect:\n  - 3\n", 3, "expect[0]", "write - text: Welcome"),
    (APP + "expect:\n  - text: []\n", 3, "expect[0].text", "the list is empty"),
    (APP + "expect:\n  - text: '//'\n", 3, "expect[0].text", "an empty regex matches everything"),
    (APP + "expect:\n  - text: '/a(/i'\n", 3, "expect[0].text", "is not a valid regex"),
    (APP + "expect:\n  - text: 3\n", 3, "expect[0].text", 'quote it: text: "3"'),
    (APP + "expect:\n  - count: {id: x}\n    equals: 3\n    at_least: 1\n", 3, "expect[0]", "got equals and at_least"),
    (APP + "expect:\n  - visible: {enabled: yes}\n", 3, "expect[0].visible.enabled", "yes and no are strings"),
    (APP + "expect:\n  - visible: {role: buton}\n", 3, "expect[0].visible.role", "(did you mean 'button'?)"),
    (APP + "expect:\n  - text: [a, 2]\n", 3, "expect[0].text[1]", 'quote it: "2"'),
    (APP + "expect:\n" + "  - text: [" + ", ".join(f"t{i}" for i in range(51)) + "]\n", 2, "expect", "51 assertions"),
]


@pytest.mark.parametrize(("text", "line", "key", "message"), BAD)
def test_bad_input_names_file_line_key_and_fix(
    text: str, line: int | None, key: str | None, message: str | None
) -> None:
    if message is None:
        load(text)
        return
    err = error(text)
    assert message in str(err)
    assert err.file == "c.yaml"
    assert err.line == line
    assert err.key == key
    prefix = "c.yaml" if line is None else f"c.yaml:{line}"
    assert str(err).startswith(prefix + ": " + (f"{key}: " if key else ""))
    assert "; " in str(err)  # what is wrong; what to write instead


def test_all_steps_is_a_flag_off_by_default_and_outside_the_identity() -> None:
    plain = load(APP + 'steps: [Tap "Go"]\n')
    every = load(APP + 'all_steps: true\nsteps: [Tap "Go"]\n')
    assert (plain.all_steps, every.all_steps) == (False, True)
    assert plain.identity == every.identity  # asking for every step keeps the recorded path


def test_yes_is_a_string_not_a_flag() -> None:
    check = load(APP + "name: yes\nlaunch: {args: [-Skip, YES, no]}\n")
    assert check.name == "yes"
    assert check.launch.args == ("-Skip", "YES", "no")


def test_launch_arguments_keep_their_spaces_and_may_be_empty() -> None:
    check = load(APP + "launch: {args: [' a ', ''], env: {E: ''}}\n")
    assert check.launch.args == (" a ", "")
    assert dict(check.launch.env) == {"E": ""}


def test_the_limits_themselves_are_allowed() -> None:
    tags = ", ".join(f"t{i}" for i in range(10))
    args = ", ".join(f"a{i}" for i in range(20))
    steps = ", ".join(f"s{i}" for i in range(20))
    texts = ", ".join(f"x{i}" for i in range(50))
    check = load(
        APP
        + f"name: {'n' * 120}\ntags: [{tags}, ]\nlaunch: {{args: [{args}], url: 'a://{'u' * 1996}'}}\n"
        + f"steps: [{steps}]\nexpect:\n  - text: [{texts}]\nbudget: {{max_seconds: 600, max_usd: 1}}\n"
    )
    assert len(check.tags) == 10
    assert len(check.launch.args) == 20
    assert check.launch.url is not None
    assert len(check.launch.url) == 2000
    assert len(check.steps) == 20
    assert len(check.expect) == 50
    assert check.budget == Budget(max_seconds=600.0, max_usd=1.0)
    assert isinstance(check.budget.max_usd, float)


# -- issue 15: numbers are bounded when a check is loaded ---------------------------------------


@pytest.mark.parametrize(
    ("bound", "message"),
    [
        ("equals: .nan", "expect[0].equals: expected a finite number, got nan"),
        ("equals: -.inf", "expect[0].equals: expected a finite number, got -inf"),
        ("equals: 1e300", "expect[0].equals: the number 1e+300 is out of range"),
        ("equals: 0.000000000001", "expect[0].equals: the number 1e-12 is out of range"),
        ("equals: 1" + "0" * 30, "a number of 31 digits; numbers here have at most 30"),
        ("equals: 1" + "0" * 5000, "a number of 5001 digits; numbers here have at most 30"),
    ],
)
def test_equals_numbers_are_bounded_with_the_file_and_line(bound: str, message: str) -> None:
    text = f"version: 1\napp: {{bundle: a.b}}\nexpect:\n  - value: {{id: price}}\n    {bound}\n"
    with pytest.raises(CheckError) as info:
        load_check_text(text, "price.yaml")
    assert str(info.value).startswith("price.yaml:")
    assert message in str(info.value)
    assert info.value.line in (4, 5)


@pytest.mark.parametrize(
    "value", ["39.99", "12345678901234567890", "-0.5", "0.0000000001", "999999999999999999999999999999"]
)
def test_equals_numbers_a_screen_may_show_load(value: str) -> None:
    text = f"version: 1\napp: {{bundle: a.b}}\nexpect:\n  - value: {{id: price}}\n    equals: {value}\n"
    assert load_check_text(text, "price.yaml").expect[0].equals is not None


@pytest.mark.parametrize("bound", ["equals", "at_least", "at_most"])
def test_counts_are_bounded_by_what_a_screen_holds(bound: str) -> None:
    text = f"version: 1\napp: {{bundle: a.b}}\nexpect:\n  - count: {{role: cell}}\n    {bound}: 20001\n"
    with pytest.raises(CheckError, match=rf"count\.yaml:5: expect\[0\]\.{bound}: 20001 is more elements than a screen"):
        load_check_text(text, "count.yaml")
    ok = text.replace("20001", "20000")
    assert load_check_text(ok, "count.yaml").expect[0].bound == (bound, 20000)
