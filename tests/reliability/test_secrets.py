"""Private files and secrets: `.mobster/` stays 0700/0600 under a permissive umask, and neither a
password nor an API key reaches a file, a log line or the output."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP_BY_BUNDLE

#: The sample check with a password typed in a step: the secret no file, output or log line may hold.
CHECK = SIGNUP_BY_BUNDLE.replace(
    '  - Tap "Continue"', '  - Type "pa55-SECRET-word" into "Password"\n  - Tap "Continue"'
)


def test_everything_under_mobster_is_private_and_no_secret_is_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    permissive_umask: None,
    caplog: pytest.LogCaptureFixture,
    clean_env: None,
) -> None:
    caplog.set_level(logging.DEBUG)
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(CHECK)
    (tmp_path / "app.yaml").write_text(sample_path("yourapp").read_text())
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = ["test", "--scripted", "app.yaml", "--model", "scripted", "--json"]
    clock = FakeClock()  # the scripted phone on virtual time
    first = runner.invoke(cli, args, obj=Runtime(clock, clock.run))
    assert first.exit_code == 0, first.output
    second = runner.invoke(cli, args, obj=Runtime(clock, clock.run))
    assert second.exit_code == 0, second.output
    assert json.loads(second.stdout)["checks"][0]["steps"][2]["source"] == "live"
    written = [
        p for p in (tmp_path / ".mobster").rglob("*") if p.relative_to(tmp_path / ".mobster").parts[0] != "checks"
    ]
    assert written
    for p in written:
        mode = stat.S_IMODE(p.lstat().st_mode)
        if p.is_dir():
            assert mode == 0o700, p
        else:
            assert mode == 0o600, p
            assert b"pa55-SECRET-word" not in p.read_bytes(), p
    for output in (first.output, second.output, caplog.text):
        assert "pa55-SECRET-word" not in output
