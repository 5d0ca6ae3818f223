"""The error boundary prints one line, whatever outside text a message holds (issue 37, item 6).

A profile's name (from ``--profile``, ``$MOBSTER_PROFILE`` or the config's ``profile`` key), a
``--tag``, ``inspect --app``'s bundle id, a check's name and a file's name reach a message of the
boundary; a newline in one of them used to print a line of its own (``mobster: all checks
passed``). Any string through each path now ends as exactly one ``mobster: …`` line on stderr,
with no raw control character in it, and nothing on stdout.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP_BY_BUNDLE
from tests.strategies import examples

FORGED = "mobster: all checks passed"
#: What a terminal acts on: C0 and C1 controls, DEL, line and paragraph separators, bidi controls.
RAW_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")

#: Outside text: anything, and often a newline that starts a forged line.
outside = st.one_of(
    st.text(min_size=1, max_size=40),
    st.builds(lambda a, b: f"{a}\n{FORGED}{b}", st.text(max_size=10), st.text(max_size=10)),
    st.builds(lambda a: f"{a}\r\x1b[2K{FORGED}\u202e", st.text(max_size=10)),
)
#: Outside text an environment variable or a UTF-8 file can hold (no NUL, no lone surrogate).
encodable = outside.map(lambda s: "".join(c for c in s if c != "\x00" and not 0xD800 <= ord(c) <= 0xDFFF))
HYPOTHESIS = settings(
    max_examples=examples(40),
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # the project is read, never changed
)


@pytest.fixture
def project(project: Path) -> Path:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(
        SIGNUP_BY_BUNDLE.replace("steps:", "tags: [smoke]\nsteps:")
    )
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / "mobster.toml").write_text('scripted = "app.yaml"\n[profiles.ci]\nno-heal = true\n')
    return project


def mobster(*args: str, env: dict[str, str] | None = None) -> Result:
    clock = FakeClock()
    runner = CliRunner()
    return runner.invoke(
        cli, list(args), obj=Runtime(clock, clock.run), env=env, catch_exceptions=False, prog_name="mobster"
    )


def one_line(result: Result) -> str:
    """The one ``mobster: …`` line a refused command printed (exit 3, stdout empty)."""
    assert result.exit_code == 3, result.output
    assert result.stdout == ""
    lines = result.stderr.split("\n")
    assert lines[-1] == "", result.stderr  # ends with its newline
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith("mobster: "), result.stderr
    assert not RAW_CONTROL.search(lines[0]), result.stderr
    return lines[0]


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: every control TOML forbids raw written as ``\\uXXXX``."""
    body = "".join(f"\\u{ord(c):04x}" if c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)
    return f'"{body}"'


@HYPOTHESIS
@given(name=outside)
def test_a_profile_named_on_the_command_line_is_one_line(project: Path, name: str) -> None:
    assume(name.strip() not in ("", "ci"))
    assert "no such profile" in one_line(mobster("config", "--profile", name))


@HYPOTHESIS
@given(name=encodable)
def test_a_profile_named_by_the_environment_is_one_line(project: Path, name: str) -> None:
    assume(name.strip() not in ("", "ci"))
    assert "no such profile" in one_line(mobster("config", env={"MOBSTER_PROFILE": name}))


@HYPOTHESIS
@given(name=encodable)
def test_a_profile_named_by_the_config_is_one_line(project: Path, name: str) -> None:
    assume(name.strip() not in ("", "ci"))
    (project / "mobster.toml").write_text(f"profile = {toml_string(name)}\n[profiles.ci]\nno-heal = true\n")
    one_line(mobster("config"))


@HYPOTHESIS
@given(tag=outside)
def test_a_tag_is_one_line(project: Path, tag: str) -> None:
    assume(tag != "smoke")
    assert "keeps none of the 1 checks" in one_line(mobster("test", "--tag", tag))


@HYPOTHESIS
@given(bundle=outside)
def test_an_app_id_is_one_line(project: Path, bundle: str) -> None:
    assume(bundle.strip() != "com.example.yourapp")
    one_line(mobster("inspect", "--app", bundle, "--launch"))


@HYPOTHESIS
@given(name=outside)
def test_a_check_name_is_one_line(project: Path, name: str) -> None:
    assume(not name.strip() or not (project / name.strip()).exists())
    for args in (["test", name], ["paths", "show", name], ["test", "heal", "--accept", name]):
        one_line(mobster(*args))


@HYPOTHESIS
@given(name=outside)
def test_a_file_name_is_one_line(project: Path, name: str) -> None:
    assume("\x00" in name or not (project / name).exists())
    for args in (["test", "--env-file", name], ["verify", "--check", name], ["report", "merge", name]):
        one_line(mobster(*args))


def test_the_issue_example_prints_no_line_of_its_own(project: Path) -> None:
    line = one_line(mobster("config", "--profile", f"x\n{FORGED}"))
    assert f'--profile "x\\n{FORGED}": no such profile' in line  # said as TOML writes the name: escaped


def test_a_usage_error_of_clicks_is_one_line_naming_the_option_and_the_help(project: Path) -> None:
    line = one_line(mobster("test", "--frames", f"a\n{FORGED}"))
    assert line == (
        f"mobster: Invalid value for '--frames': 'a\\n{FORGED}' is not one of 'auto', 'all', 'failed', 'none' "
        "(mobster test --help lists the options)"
    )
    assert one_line(mobster("--bogus")) == "mobster: No such option '--bogus' (mobster --help lists the options)"
    assert "mobster test heal --help" in one_line(mobster("test", "heal", "--bogus"))


def test_a_tag_no_check_has_is_said_once_beside_a_selection(project: Path) -> None:
    result = mobster("test", "--tag", "smoke", "--exclude-tag", f"n\n{FORGED}", "--list")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"mobster: no check has the tag 'n\\n{FORGED}'"]
