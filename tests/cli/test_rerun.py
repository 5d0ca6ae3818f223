"""A report's "Run it again" line: the profile and env file the run used, paths from the project root; it runs."""

from __future__ import annotations

import html
import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli import _init
from mobster_cli._init import Found
from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock


@pytest.fixture
def made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """A project ``mobster init`` made in ``tmp_path/shop``, with a second scripted profile; the working folder."""
    monkeypatch.setattr(_init, "find_devices", Found)
    root = tmp_path / "shop"
    root.mkdir()
    monkeypatch.chdir(root)
    assert mobster("init").exit_code == 0
    with (root / "mobster.toml").open("a") as f:
        f.write('\n[profiles.other]\nscripted = "apps/yourapp.yaml"\nmodel = "scripted"\nframes = "none"\n')
    return root


def mobster(*args: str, env: dict[str, str] | None = None) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run), env=env)


def run_again(result: Result, root: Path) -> list[str]:
    """The words of the "Run it again" line of the one check ``result`` ran."""
    (check,) = json.loads(result.stdout)["checks"]
    page = (root / check["run_dir"] / "report.html").read_text()
    found = re.search(r"<h2>Run it again</h2><pre><code>([^<]+)</code>", page)
    assert found is not None
    return shlex.split(html.unescape(found.group(1)))


def test_the_line_names_the_profile_from_the_config_and_the_env_file_relative_to_the_project(made: Path) -> None:
    (made / ".env").write_text("GREETING=hello\n")
    first = mobster("test", "--env-file", ".env", "--json")
    assert first.exit_code == 0, first.output
    words = run_again(first, made)
    assert words == [
        "mobster", "test", ".mobster/checks/signup.yaml", "--scripted", "apps/yourapp.yaml",
        "--profile", "scripted", "--env-file", ".env",
    ]  # fmt: skip
    again = mobster(*words[1:], "--json")  # it runs, from the project root
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["checks"][0]["mode"] == "replay"


def test_a_profile_from_the_environment_is_carried_and_paths_stay_relative_from_a_sub_folder(
    made: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (made / "src").mkdir()
    monkeypatch.chdir(made / "src")  # the project is found above; the line is for the project root
    result = mobster("test", "--json", env={"MOBSTER_PROFILE": "other"})
    assert result.exit_code == 0, result.output
    words = run_again(result, made)
    assert words[2:] == [".mobster/checks/signup.yaml", "--scripted", "apps/yourapp.yaml", "--profile", "other"]
    monkeypatch.chdir(made)
    again = mobster(*words[1:], "--json")  # without $MOBSTER_PROFILE, the same profile
    assert again.exit_code == 0, again.output


def test_an_env_file_outside_the_project_is_named_whole(made: Path, tmp_path: Path) -> None:
    keys = tmp_path / "keys.env"
    keys.write_text("GREETING=hello\n")
    result = mobster("test", "--env-file", str(keys), "--profile", "other", "--json")
    assert result.exit_code == 0, result.output
    words = run_again(result, made)
    assert words[-4:] == ["--profile", "other", "--env-file", str(keys)]
    assert "--scripted" in words
    assert words[words.index("--scripted") + 1] == "apps/yourapp.yaml"


def test_without_a_config_the_line_has_no_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None
) -> None:
    from mobster_drivers.devices.scripted import sample_path

    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "signup.yaml").write_text(_init.starter_text())
    (tmp_path / "app.yaml").write_text(sample_path("yourapp").read_text())
    monkeypatch.chdir(tmp_path)
    result = mobster("test", "--scripted", str(tmp_path / "app.yaml"), "--model", "scripted", "--json")
    assert result.exit_code == 0, result.output
    assert run_again(result, tmp_path)[2:] == [".mobster/checks/signup.yaml", "--scripted", "app.yaml"]
