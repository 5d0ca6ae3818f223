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


LABELS = (
    "Passwort", "Contraseña", "密码", "パスワード", "PINCode", "SMSCode", "Mot de passe", "Senha", "Пароль",
    "비밀번호", "Şifre", "Hasło", "كلمة المرور", "CVV", "Card number",
)  # fmt: skip


@pytest.mark.parametrize("label", LABELS)
def test_a_password_typed_into_a_field_labelled_in_any_language_is_in_no_file_and_no_output(
    label: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, clean_env: None
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "pa55-SECRET-word"
    field = "{role: TextField, label: " + json.dumps(label, ensure_ascii=False) + "}"
    app = sample_path("yourapp").read_text().replace("{role: SecureTextField, label: Password}", field)
    (tmp_path / "app.yaml").write_text(app)
    check = SIGNUP_BY_BUNDLE.replace(
        '  - Tap "Continue"',
        f'  - Type {json.dumps(secret)} into {json.dumps(label, ensure_ascii=False)}\n  - Tap "Continue"',
    )
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(check)
    monkeypatch.chdir(tmp_path)
    clock = FakeClock()
    args = ["test", "--scripted", "app.yaml", "--model", "scripted", "--json", "--junit", "out.xml"]
    result = CliRunner().invoke(cli, args, obj=Runtime(clock, clock.run))
    assert result.exit_code == 0, result.output
    step = json.loads(result.stdout)["checks"][0]["steps"][2]
    assert step["op"] == "TYPE"
    files = [p for p in tmp_path.rglob("*") if p.is_file() and "checks" not in p.relative_to(tmp_path).parts]
    assert files
    assert [p for p in files if secret.encode() in p.read_bytes()] == []
    assert secret not in result.output
    assert secret not in caplog.text


def test_text_typed_into_a_secure_field_of_any_label_is_in_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None
) -> None:
    app = sample_path("yourapp").read_text().replace("label: Password}", "label: Favourite colour}")
    (tmp_path / "app.yaml").write_text(app)
    check = SIGNUP_BY_BUNDLE.replace(
        '  - Tap "Continue"', '  - Type "pa55-SECRET-word" into "Favourite colour"\n  - Tap "Continue"'
    )
    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / ".mobster" / "checks" / "signup.yaml").write_text(check)
    monkeypatch.chdir(tmp_path)
    clock = FakeClock()
    result = CliRunner().invoke(
        cli, ["test", "--scripted", "app.yaml", "--model", "scripted"], obj=Runtime(clock, clock.run)
    )
    assert result.exit_code == 0, result.output
    files = [p for p in (tmp_path / ".mobster").rglob("*") if p.is_file() and "checks" not in p.parts]
    assert [p for p in files if b"pa55-SECRET-word" in p.read_bytes()] == []
