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
