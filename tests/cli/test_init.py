"""``mobster init``: then ``mobster test`` passes in an empty folder, and pytest runs the same config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from ruamel.yaml import YAML

from mobster_cli import _init
from mobster_cli._init import Found, config_text, find_devices, init_project
from mobster_cli.main import Runtime, cli
from mobster_core import load_check
from mobster_core.testing import FakeClock
from mobster_drivers.testing.usbmuxd import FakeIphone, FakeUsbmuxd
from mobster_drivers.testing.xcrun import FakeSimctl
from mobster_harness.config import load_config

#: The actions the workflow uses: real ones, at the newest major each publishes (test_workflow.py).
REAL_ACTIONS = {
    "actions/checkout@v7",
    "actions/setup-python@v7",
    "actions/upload-artifact@v7",
    "peter-evans/create-pull-request@v8",
}


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """An empty folder as the working folder, on a machine with no simulator and no USB iPhone."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_init, "find_devices", Found)
    return tmp_path


def mobster(*args: str, env: dict[str, str] | None = None) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run), env=env)


def test_init_then_test_passes_in_an_empty_folder(empty: Path) -> None:
    made = mobster("init")
    assert made.exit_code == 0, made.output
    assert made.output.splitlines() == [
        "wrote .mobster/checks/signup.yaml",
        "wrote .mobster/check.schema.json",
        "wrote apps/yourapp.yaml",
        "wrote mobster.toml",
        "wrote pytest.ini",
        "wrote .gitignore",
        "wrote .github/workflows/mobster.yml",
        "devices found: none (the scripted phone)",
        "next: mobster test   (the scripted profile; mobster config shows the settings)",
    ]
    first = mobster("test", "--json")
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    assert [c["verdict"] for c in doc["checks"]] == ["passed"]
    assert list((empty / ".mobster" / "paths").rglob("*")), "the scripted profile keeps paths in .mobster/paths"
    listed = mobster("paths", "list")  # the config's store: committed
    assert listed.exit_code == 0, listed.output
    assert "signup.yaml" in listed.output
    assert "recorded, 3 steps" in listed.output
    strict = mobster("test", "--no-heal")  # what the CI workflow's strict job runs
    assert strict.exit_code == 0, strict.output
    assert "0 model calls" in strict.output
    assert (empty / ".mobster").stat().st_mode & 0o777 == 0o700
    assert (empty / ".mobster" / "checks" / "signup.yaml").stat().st_mode & 0o777 == 0o600


def test_init_never_overwrites_and_says_what_it_left(empty: Path) -> None:
    (empty / ".gitignore").write_text("node_modules/\n.env\n")
    (empty / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    (empty / "mobster.toml").write_text('model = "scripted"\n')
    result = mobster("init")
    assert result.exit_code == 0, result.output
    assert "left mobster.toml (it is there)" in result.output
    assert "left pytest.ini (pytest is set up there; the plugin reads the project config by itself)" in result.output
    assert "wrote .gitignore (3 lines added at its end)" in result.output
    assert (empty / "mobster.toml").read_text() == 'model = "scripted"\n'
    assert (empty / "pytest.ini").read_text() == "[pytest]\naddopts = -q\n"
    assert (empty / ".gitignore").read_text() == (
        "node_modules/\n.env\n\n# Mobster replay\n.mobster/runs/\n.mobster/test-results/\n.mobster/cache/\n"
    )
    again = mobster("init")
    assert "wrote" not in again.output
    assert "left .mobster/checks/ (it holds checks already)" in again.output


def test_an_existing_pyproject_gets_its_tables_appended_byte_for_byte(empty: Path) -> None:
    original = b'[project]\r\nname = "shop"\r\n# no newline at the end'
    (empty / "pyproject.toml").write_bytes(original)
    result = mobster("init")
    assert result.exit_code == 0, result.output
    assert "wrote pyproject.toml [tool.mobster] (added at its end)" in result.output
    assert "wrote pyproject.toml [tool.pytest.ini_options] (added at its end)" in result.output
    assert not (empty / "mobster.toml").exists()
    assert not (empty / "pytest.ini").exists()
    data = (empty / "pyproject.toml").read_bytes()
    assert data.startswith(original + b"\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # its line endings are kept
    config = load_config(empty, env={})
    assert config.profile == "scripted"
    assert config.values["scripted"] == (str(empty / "apps" / "yourapp.yaml"),)
    assert mobster("test").exit_code == 0


def test_the_starter_check_names_the_schema_and_loads(empty: Path) -> None:
    mobster("init")
    check = empty / ".mobster" / "checks" / "signup.yaml"
    assert check.read_text().splitlines()[0] == "# yaml-language-server: $schema=../check.schema.json"
    assert load_check(check).name == "A new user signs up"
    schema = json.loads((empty / ".mobster" / "check.schema.json").read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_workflow_parses_and_names_real_actions(empty: Path) -> None:
    mobster("init")
    doc = YAML(typ="safe").load((empty / ".github" / "workflows" / "mobster.yml").read_text())
    assert set(doc["jobs"]) == {"strict", "heal"}
    uses = {step["uses"] for job in doc["jobs"].values() for step in job["steps"] if "uses" in step}
    assert uses == REAL_ACTIONS
    runs = [step["run"] for step in doc["jobs"]["strict"]["steps"] if "run" in step]
    assert "mobster test --no-heal --junit junit.xml" in runs
    heal = doc["jobs"]["heal"]
    assert heal["permissions"] == {"contents": "write", "pull-requests": "write"}
    pull = next(s for s in heal["steps"] if s.get("uses", "").startswith("peter-evans/"))
    assert ".mobster/checks/*.heal.yaml" in pull["with"]["add-paths"]
    assert "workflow_dispatch" in doc["on"]


def test_a_profile_for_each_simulator_and_usb_iphone_found(tmp_path: Path) -> None:
    simctl = FakeSimctl(tmp_path / "sim")
    iphone = FakeIphone("00008140-001A2B3C4D5E801E", "Ada's iPhone", ios="26.4")
    with FakeUsbmuxd([iphone]) as mux:
        found = find_devices(simctl, usbmux_address=mux.address, lockdown=mux.lockdown())
    assert found == Found(simulators=(("iPhone 17 Pro", "26.4"),), iphones=(("Ada's iPhone", iphone.udid, "26.4"),))
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "mobster.toml").write_text(config_text(found))
    assert "No simulator or USB iPhone was found" not in config_text(found)
    sim = load_config(tmp_path / "p", profile="sim-iphone-17-pro", env={})
    assert sim.values["sim"] == ("iPhone 17 Pro",)
    assert "scripted" not in sim.values
    phone = load_config(tmp_path / "p", profile="iphone-ada-s-iphone", env={})
    assert phone.values["device"] == (iphone.udid,)


def test_no_device_found_is_the_scripted_phone_and_a_comment(tmp_path: Path) -> None:
    found = find_devices(FakeSimctl(tmp_path, devices='{"devices": {}}'), usbmux_address=str(tmp_path / "none.sock"))
    assert found == Found()
    text = config_text(found)
    assert "No simulator or USB iPhone was found. To add one, add a profile such as:" in text
    assert '# sim = "iPhone 17 Pro"' in text


def test_init_into_a_new_folder(empty: Path) -> None:
    report = init_project(empty / "shop", Found())
    assert "mobster.toml" in report.wrote
    result = mobster("init", "shop")
    assert "next: cd shop && mobster test" in result.output


def test_init_then_test_in_a_subprocess(tmp_path: Path) -> None:
    """The commands a new user types, each its own process, on the real clock (zero-latency app)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_"))}
    command = [sys.executable, "-m", "mobster_cli.main"]
    made = subprocess.run([*command, "init"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    ran = subprocess.run([*command, "test"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "✓ passed  A new user signs up" in ran.stdout


def test_init_agents_writes_the_skill_where_agents_look_and_never_over_yours(empty: Path) -> None:
    from mobster_cli._init import SKILL_HOMES, skill_files

    bundle = skill_files()["SKILL.md"]
    plain = mobster("init")
    assert not (empty / ".claude").exists()  # only with --agents
    assert not (empty / ".agents").exists()
    assert plain.exit_code == 0
    made = mobster("init", "--agents")
    assert made.exit_code == 0, made.output
    for home in SKILL_HOMES:
        assert f"wrote {home}/mobster/SKILL.md" in made.output
        assert (empty / home / "mobster" / "SKILL.md").read_text(encoding="utf-8") == bundle
    again = mobster("init", "--agents")
    assert "left .claude/skills/mobster/SKILL.md (it is there)" in again.output
    # One of another version (or yours, edited) is left as it is, saying how to update it.
    mine = empty / ".claude" / "skills" / "mobster" / "SKILL.md"
    mine.write_text("---\nname: mobster\ndescription: ours\n---\nOur own words.\n")
    (empty / "AGENTS.md").write_text("# How we work\n")
    older = mobster("init", "--agents")
    assert (
        "left .claude/skills/mobster/SKILL.md (it is there, and isn't this version's: delete it and run "
        "mobster init --agents to write this one)"
    ) in older.output
    assert mine.read_text() == "---\nname: mobster\ndescription: ours\n---\nOur own words.\n"
    assert 'add a line such as "Mobster replay checks: read .agents/skills/mobster/SKILL.md"' in older.output
    assert (empty / "AGENTS.md").read_text() == "# How we work\n"  # AGENTS.md is never written
    (empty / "AGENTS.md").write_text("Mobster replay checks: read .agents/skills/mobster/SKILL.md\n")
    assert "AGENTS.md" not in mobster("init", "--agents").output  # it names the skill: nothing to say
