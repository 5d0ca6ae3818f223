"""The project config under pytest: the same devices and options as ``mobster test``, profiles, precedence."""

from __future__ import annotations

import pytest

from mobster_cli._init import Found, init_project
from mobster_pytest._state import settings_of

from .helpers import BASE, Project

pytest_plugins = ["pytester"]

CONFIG = """\
profile = "a"
model = "scripted"

[profiles.a]
scripted = "apps/a.yaml"

[profiles.b]
scripted = "apps/b.yaml"
parallel = 2

[profiles.strict]
scripted = "apps/renamed.yaml"
no-heal = true
"""


@pytest.fixture
def configured(project: Project) -> Project:
    project.app("a.yaml", device="Phone A")
    project.app("b.yaml", device="Phone B")
    project.app("renamed.yaml", device="Phone R", renamed=True)
    (project.root / "mobster.toml").write_text(CONFIG)
    return project


def test_the_config_names_the_pool_and_the_profile_switches_it(configured: Project) -> None:
    first = configured.run("-k", "signup")
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(["mobster: 1 scripted phone (a); *"])
    by_option = configured.run("-k", "signup", "--mobster-profile", "b")
    by_option.assert_outcomes(passed=1)
    by_option.stdout.fnmatch_lines(["mobster: 2 scripted phones (b-1, b-2); *"])


def test_mobster_profile_switches_it_too(configured: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBSTER_PROFILE", "strict")
    result = configured.run("-k", "signup")
    result.stdout.fnmatch_lines(["mobster: 1 scripted phone (renamed); *; no-heal"])
    result.assert_outcomes(failed=1)  # the renamed build, no model: the changed step is a drift
    monkeypatch.setenv("MOBSTER_PROFILE", "b")
    configured.run("-k", "signup", "--mobster-profile", "a").stdout.fnmatch_lines(["mobster: 1 scripted phone (a); *"])


def test_an_ini_key_wins_over_the_config_and_the_command_line_over_both(configured: Project) -> None:
    configured.pytester.makeini("[pytest]\nmobster_scripted = apps/b.yaml\n")
    configured.run("-k", "signup").stdout.fnmatch_lines(["mobster: 1 scripted phone (b); *"])
    given = configured.run("-k", "signup", "--mobster-scripted", "apps/renamed.yaml", "--mobster-profile", "b")
    given.stdout.fnmatch_lines(["mobster: 1 scripted phone (renamed); *"])


def test_a_bad_config_stops_pytest_with_one_line(configured: Project) -> None:
    (configured.root / "mobster.toml").write_text('[profiles.a]\nscripted = "apps/a.yaml"\nparalel = 2\n')
    result = configured.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ['ERROR: mobster: */mobster.toml: line 3: paralel [[]profiles.a[]]: not a setting; did you mean "parallel"?']
    )
    (configured.root / "mobster.toml").write_text(CONFIG)
    unknown = configured.run("--mobster-profile", "grid")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(["*--mobster-profile grid: no such profile (profiles: a, b, strict)*"])


def test_init_then_pytest_runs_the_starter_check(project: Project) -> None:
    for check in (project.root / ".mobster" / "checks").glob("*.yaml"):
        check.unlink()
    init_project(project.root, Found())
    result = project.pytester.runpytest(*BASE)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["mobster: 1 scripted phone (yourapp); *"])


def test_the_config_env_file_is_read_under_pytest(configured: Project) -> None:
    (configured.root / ".env").write_text("LOGIN_EMAIL=ada@example.com\n")
    (configured.root / "mobster.toml").write_text('env-file = ".env"\n' + CONFIG)
    config = configured.pytester.parseconfigure(*BASE)
    secrets = settings_of(config).harness.secrets
    assert secrets is not None
    assert secrets["LOGIN_EMAIL"] == "ada@example.com"
    (configured.root / ".env").unlink()
    missing = configured.run()
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(
        ["ERROR: mobster: env-file in mobster.toml: */.env: can't read it (*); check the path"]
    )


def test_the_team_store_options_are_mobster_test_s(configured: Project) -> None:
    (configured.root / "mobster.toml").write_text(
        'paths-write = false\npaths-key = "${TEAM_KEY}"\npaths-lease = 90\n' + CONFIG
    )
    from_config = settings_of(configured.pytester.parseconfigure(*BASE)).harness
    assert (from_config.paths_write, from_config.paths_key, from_config.paths_lease) == (False, "${TEAM_KEY}", 90.0)
    store = ("--mobster-paths-write", "true", "--mobster-paths-key", "OTHER_KEY", "--mobster-paths-lease", "30")
    options = (*store, "--mobster-paths-wait", "120.5")
    given = settings_of(configured.pytester.parseconfigure(*BASE, *options)).harness
    assert (given.paths_write, given.paths_key, given.paths_lease, given.paths_wait) == (
        True,
        "${OTHER_KEY}",
        30.0,
        120.5,
    )
    configured.pytester.makeini("[pytest]\nmobster_paths_write = false\n")
    (configured.root / "mobster.toml").write_text(CONFIG)
    assert settings_of(configured.pytester.parseconfigure(*BASE)).harness.paths_write is False


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (("--mobster-paths-lease", "0.5"), "--mobster-paths-lease: '0.5' is not a number of seconds from 1 to 3600;*"),
        (("--mobster-paths-wait", "nan"), "--mobster-paths-wait: 'nan' is not a number of seconds above 0 to 86400;*"),
        (("--mobster-paths-key", "s3cr3t key!"), "--mobster-paths-key: write the name of the environment variable*"),
    ],
)
def test_a_bad_team_store_option_is_one_line_naming_it(configured: Project, option: tuple[str, str], said: str) -> None:
    result = configured.run(*option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: mobster: {said}"])
    assert "s3cr3t" not in result.stderr.str()  # a key typed by mistake is never shown


def test_a_read_only_run_under_pytest_writes_nothing_to_the_store(configured: Project) -> None:
    result = configured.run("-k", "signup", "--mobster-paths", "committed", "--mobster-paths-write", "false")
    result.assert_outcomes(passed=1)
    assert not list((configured.root / ".mobster" / "paths").glob("*.json"))  # the team's store is untouched
    assert list((configured.root / ".mobster" / "cache" / "read-only" / "replay").glob("*.json"))
