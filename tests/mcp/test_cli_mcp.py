"""`mobster mcp`'s usage problems: one line each, exit 3, before anything is served."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mobster_cli.main import cli
from mobster_core.distribution import install_hint
from mobster_drivers.devices.scripted import sample_path


def test_it_serves_exactly_one_device(project: Path) -> None:
    app = str(sample_path("yourapp"))
    for args in ([], ["--scripted", app, "--scripted", app], ["--scripted", app, "--wda", "http://127.0.0.1:1"]):
        result = CliRunner().invoke(cli, ["mcp", *args])
        assert result.exit_code == 3, result.output
        assert "mobster mcp serves one device: give one of --scripted APP.yaml" in result.output


def test_without_the_sdk_it_says_what_to_install(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    monkeypatch.delitem(sys.modules, "mobster_mcp._server", raising=False)
    result = CliRunner().invoke(cli, ["mcp", "--scripted", str(sample_path("yourapp"))])
    assert result.exit_code == 3, result.output
    said = f"mobster mcp needs the mcp extra (mcp.server.mcpserver is missing): {install_hint('mcp')}"
    assert said in result.output


def test_a_bad_locale_is_a_usage_line(project: Path) -> None:
    result = CliRunner().invoke(cli, ["mcp", "--scripted", str(sample_path("yourapp")), "--locale", "x"])
    assert result.exit_code != 0
    assert "--locale" in result.output


def test_the_project_config_names_the_device(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The config's profile gives the device: the command gets past choosing it, to the SDK."""
    (project / "mobster.toml").write_text(
        f'profile = "phone"\n[profiles.phone]\nscripted = "{sample_path("yourapp")}"\nmodel = "scripted"\n'
    )
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    monkeypatch.delitem(sys.modules, "mobster_mcp._server", raising=False)
    result = CliRunner().invoke(cli, ["mcp", "--project", str(project)])
    assert result.exit_code == 3, result.output
    assert "needs the mcp extra" in result.output  # the device came from the config
    two = CliRunner().invoke(cli, ["mcp", "--project", str(project), "--scripted", "a.yaml", "--scripted", "b.yaml"])
    assert "serves one device" in two.output  # the command line's devices replace the config's


def test_a_bad_config_is_one_line_naming_the_file(project: Path) -> None:
    (project / "mobster.toml").write_text('scripted = "a.yaml"\npoll-intervall = 0.2\n')
    result = CliRunner().invoke(cli, ["mcp", "--project", str(project)])
    assert result.exit_code == 3, result.output
    assert "mobster.toml: line 2" in result.output
    assert "poll-interval" in result.output


def test_a_project_folder_that_isnt_there_is_refused_at_start(project: Path) -> None:
    """`--project` naming a folder that doesn't exist would make it on the first call: one line instead."""
    app = str(sample_path("yourapp"))
    missing = project / "no" / "such"
    result = CliRunner().invoke(cli, ["mcp", "--scripted", app, "--project", str(missing)])
    assert result.exit_code == 3, result.output
    assert result.output.strip().splitlines() == [
        (
            f"mobster: --project {missing}: there is no such folder; give the project's folder (the one holding "
            ".mobster), or make it first"
        )
    ]
    assert not (project / "no").exists()
    (project / "file.txt").write_text("x")
    result = CliRunner().invoke(cli, ["mcp", "--scripted", app, "--project", str(project / "file.txt")])
    assert result.exit_code == 3, result.output
    assert result.output.strip().splitlines() == [
        f"mobster: --project {project / 'file.txt'}: it is a file; give the project's folder (the one holding .mobster)"
    ]


def test_an_android_device_is_served_as_any_other(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--android [SERIAL]` (or the config's ``android`` key) names the one device, as for `mobster test`."""
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    monkeypatch.delitem(sys.modules, "mobster_mcp._server", raising=False)
    for args in (["--android", "emulator-5554"], ["--android"]):
        result = CliRunner().invoke(cli, ["mcp", "--project", str(project), *args])
        assert result.exit_code == 3, result.output
        assert "needs the mcp extra" in result.output  # past choosing the device, to the SDK
    (project / "mobster.toml").write_text('android = "emulator-5554"\n')
    from_config = CliRunner().invoke(cli, ["mcp", "--project", str(project)])
    assert "needs the mcp extra" in from_config.output, from_config.output
    app = str(sample_path("yourapp"))
    two = CliRunner().invoke(cli, ["mcp", "--android", "emulator-5554", "--scripted", app])
    assert two.exit_code == 3, two.output
    assert "--appium URL or --android [SERIAL]" in two.output
