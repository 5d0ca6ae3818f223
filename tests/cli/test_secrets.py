"""Secrets as environment variables: ``${NAME}`` typed with no model, never stored or shown.

On the scripted phone and a fake clock: a check types ``${SIGNUP_PASSWORD}`` into the secure
field and ``${SIGNUP_EMAIL}`` into a plain text field (whose value then shows on the screen, so
every read has to be scrubbed), records with the scripted model, then replays with no model and no
key. Every byte under the project and everything printed is searched for the values.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path

PASSWORD = "hunter2-Sup3r-S3cret"
EMAIL = "ada.secret@example.com"
CHECK = """\
version: 1
name: A new user signs up with secrets
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Sign up"
  - Type ${SIGNUP_EMAIL} into Email
  - Type "${SIGNUP_PASSWORD}" into "Password"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "SIGNUP_PASSWORD", "SIGNUP_EMAIL"):
        monkeypatch.delenv(key, raising=False)
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(CHECK)
    (tmp_path / "app.yaml").write_text(sample_path("yourapp").read_text())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def leaks(root: Path, *outputs: str) -> list[str]:
    """Where a value shows: files under ``root`` (every byte, in the forms a writer may use) and outputs."""
    forms = [v.encode() for v in (PASSWORD, EMAIL)] + [json.dumps(v).encode() for v in (PASSWORD, EMAIL)]
    found = [str(f) for f in root.rglob("*") if f.is_file() and any(v in f.read_bytes() for v in forms)]
    found += [f"output {n}" for n, text in enumerate(outputs) if PASSWORD in text or EMAIL in text]
    return found


def test_a_secret_replays_with_no_model_and_is_never_stored_or_shown(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNUP_PASSWORD", PASSWORD)
    monkeypatch.setenv("SIGNUP_EMAIL", EMAIL)
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--json", "--junit", "junit.xml")
    assert first.exit_code == 0, first.output
    replay = mobster("test", "--scripted", "app.yaml", "--no-heal", "--json")
    assert replay.exit_code == 0, replay.output
    (check,) = json.loads(replay.stdout)["checks"]
    assert (check["verdict"], check["mode"], check["model_calls"]) == ("passed", "replay", 0)
    assert [s["source"] for s in check["steps"]] == ["replay"] * 4  # the secure field replays too: no live step
    typed = [s["text"] for s in check["steps"] if s["op"] == "TYPE"]
    assert typed == ['Type "${SIGNUP_EMAIL}" into "Email"', 'Type "${SIGNUP_PASSWORD}" into "Password"']
    listing = mobster("test", "heal")
    assert leaks(project, first.output, first.stderr, replay.output, replay.stderr, listing.output) == []
    stored = next((project / ".mobster" / "cache" / "replay").glob("*.json")).read_text()
    assert "${SIGNUP_PASSWORD}" in stored
    assert "${SIGNUP_EMAIL}" in stored


def test_a_check_missing_two_secrets_names_both(project: Path) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--json")
    assert result.exit_code == 3, result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert check["class"] == "usage"
    assert (
        "the check names ${SIGNUP_EMAIL} and ${SIGNUP_PASSWORD}, and the variables SIGNUP_EMAIL and "
        "SIGNUP_PASSWORD aren't set: set them in the environment (or in an env file) and run again"
    ) in check["message"]


def test_the_env_file_gives_the_value(project: Path) -> None:
    (project / "secrets.env").write_text(f"SIGNUP_PASSWORD={PASSWORD}\nexport SIGNUP_EMAIL='{EMAIL}'\n")
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--env-file", "secrets.env")
    assert first.exit_code == 0, first.output
    replay = mobster("test", "--scripted", "app.yaml", "--env-file", "secrets.env", "--no-heal")
    assert replay.exit_code == 0, replay.output
    assert leaks(project / ".mobster", first.output, replay.output) == []


def test_a_missing_variable_is_a_usage_problem_naming_it_before_anything_is_sent(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNUP_EMAIL", EMAIL)
    result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--json")
    assert result.exit_code == 3, result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert check["class"] == "usage"
    assert "${SIGNUP_PASSWORD}" in check["message"]
    assert "SIGNUP_PASSWORD isn't set" in check["message"]
    journal = (project / check["run_dir"] / "journal.jsonl").read_text()
    assert journal.strip() == ""  # nothing was sent, not even the launch
    assert leaks(project, result.output) == []


@pytest.mark.parametrize("given", ["environment", "env file"])
def test_an_empty_variable_is_a_usage_problem_naming_it_before_anything_is_sent(
    project: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    # Issue 37: SIGNUP_EMAIL="" sent the launch and a tap, then ended `internal` ("TYPE needs text").
    monkeypatch.setenv("SIGNUP_PASSWORD", PASSWORD)
    if given == "environment":
        monkeypatch.setenv("SIGNUP_EMAIL", "")
        result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--json")
    else:
        (project / "secrets.env").write_text("SIGNUP_EMAIL=\n")
        result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--env-file", "secrets.env", "--json")
    assert result.exit_code == 3, result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "usage")
    assert "the check names ${SIGNUP_EMAIL}, and the variable SIGNUP_EMAIL is set but empty" in check["message"]
    assert "a check can't type nothing: set it to the text to type" in check["message"]
    journal = (project / check["run_dir"] / "journal.jsonl").read_text()
    assert journal.strip() == ""  # nothing was sent, not even the launch
    assert leaks(project, result.output) == []


def test_an_unset_and_an_empty_variable_are_named_in_one_line_each_as_it_is(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 38's "every missing secret named" with issue 37's "an empty secret refused": one run says both.
    monkeypatch.setenv("SIGNUP_PASSWORD", "")
    result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--json")
    assert result.exit_code == 3, result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "usage")
    assert (
        "the check names ${SIGNUP_EMAIL} and ${SIGNUP_PASSWORD}, and the variable SIGNUP_EMAIL isn't set and "
        "the variable SIGNUP_PASSWORD is set but empty: set SIGNUP_EMAIL in the environment (or in an env file) "
        "and run again; a check can't type nothing: set SIGNUP_PASSWORD to the text to type, or leave the step "
        "out of the check"
    ) in check["message"]
    assert "\n" not in check["message"]
    journal = (project / check["run_dir"] / "journal.jsonl").read_text()
    assert journal.strip() == ""  # nothing was sent, not even the launch


def test_an_empty_variable_in_a_launch_value_is_refused_too(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check = CHECK.replace("steps:", "launch: {env: {API_TOKEN: '${STAGING_TOKEN}'}}\nsteps:")
    (project / ".mobster" / "checks" / "signup.yaml").write_text(check)
    for name, value in (("SIGNUP_PASSWORD", PASSWORD), ("SIGNUP_EMAIL", EMAIL), ("STAGING_TOKEN", "")):
        monkeypatch.setenv(name, value)
    result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--json")
    assert result.exit_code == 3, result.output
    (check_result,) = json.loads(result.stdout)["checks"]
    assert "the variable STAGING_TOKEN is set but empty" in check_result["message"]


def test_a_renamed_secure_field_heals_typing_the_reference_and_no_output_holds_the_value(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 35: the scripted model healed this step as a tap on the renamed field; nothing was
    # typed and the check passed. It types the secret into the renamed field now.
    monkeypatch.setenv("SIGNUP_PASSWORD", PASSWORD)
    monkeypatch.setenv("SIGNUP_EMAIL", EMAIL)
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    assert first.exit_code == 0, first.output
    (project / "passcode.yaml").write_text(
        (project / "app.yaml").read_text().replace("label: Password}", "label: Passcode}")
    )
    healed = mobster("test", "--scripted", "passcode.yaml", "--model", "scripted", "--json")
    assert healed.exit_code == 0, healed.output
    (check,) = json.loads(healed.stdout)["checks"]
    assert [(h["from"], h["to"]) for h in check["heals"]] == [
        ('Type "${SIGNUP_PASSWORD}" into "Password"', 'Type "${SIGNUP_PASSWORD}" into "Passcode"')
    ]
    heal_file = (project / ".mobster" / "checks" / "signup.heal.yaml").read_text()
    assert 'to: Type "${SIGNUP_PASSWORD}" into "Passcode"' in heal_file
    replay = mobster("test", "--scripted", "passcode.yaml", "--no-heal")
    assert replay.exit_code == 0, replay.output
    listing = mobster("test", "heal")
    outputs = (first.output, healed.output, healed.stderr, replay.output, replay.stderr, listing.output)
    assert leaks(project, *outputs) == []
