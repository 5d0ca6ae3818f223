"""The `mobster` command, end to end on the scripted phone (real clock, zero-latency app script)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import cli
from mobster_drivers.scripted import sample_path

SIGNUP = """\
version: 1
name: A new user signs up
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(SIGNUP)
    (tmp_path / "app.yaml").write_text(sample_path("yourapp").read_text())
    (tmp_path / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def mobster(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_record_then_replay_with_no_model_call(project: Path) -> None:
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    assert first.exit_code == 0, first.output
    assert "✓ passed  A new user signs up  on Scripted iPhone, iOS 26.4" in first.output
    assert "recorded a new path: no recorded path yet" in first.output
    second = mobster("test", "--scripted", "app.yaml", "--json")
    assert second.exit_code == 0, second.output
    doc = json.loads(second.stdout)
    assert doc["schema"] == "mobster.test/1"
    assert doc["summary"]["model_calls"] == 0
    assert doc["summary"]["passed"] == 1
    check = doc["checks"][0]
    assert (check["mode"], check["path"]["used"], check["cost_usd"]) == ("replay", True, 0.0)
    assert set(check) >= {
        "name", "file", "device", "app", "verdict", "class", "message", "mode", "seconds",
        "cost_usd", "cost_estimated", "model_calls", "path", "steps", "heals", "assertions", "run_dir",
    }  # fmt: skip
    assert check["file"] == ".mobster/checks/signup.yaml"
    results = project / ".mobster" / "test-results" / doc["suite_id"]
    assert json.loads((results / "results.json").read_text()) == doc
    assert (project / check["run_dir"] / "result.json").exists()
    assert (project / check["run_dir"] / "journal.jsonl").exists()


def test_the_summary_line(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    second = mobster("test", "--scripted", "app.yaml")
    last = second.output.strip().splitlines()[-1]
    assert last.startswith("1 passed in ")
    assert last.endswith(" s, $0.00, 1 replayed with no model")


def test_no_heal_with_a_renamed_button_fails_with_drift(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    result = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert result.exit_code == 1
    check = json.loads(result.stdout)["checks"][0]
    assert (check["verdict"], check["class"]) == ("failed", "drift")
    assert '"Continue" isn\'t on the screen' in check["message"]
    assert check["steps"][-1]["reason"] == '"Continue" isn\'t on the screen'


def test_carry_replays_the_previous_builds_path_and_says_so(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    newer = (
        sample_path("yourapp")
        .read_text()
        .replace('version: "1.0"', 'version: "2.3"')
        .replace('build: "1"', 'build: "45"')
    )
    (project / "newer.yaml").write_text(newer)
    without = mobster("test", "--scripted", "newer.yaml", "--json")
    assert without.exit_code == 3  # no path for 2.3 (45), and no model to record one
    (project / "later.yaml").write_text(
        newer.replace('version: "2.3"', 'version: "2.4"').replace('build: "45"', 'build: "46"')
    )
    carried = mobster("test", "--scripted", "newer.yaml", "--carry")
    assert carried.exit_code == 0, carried.output
    assert "    carried the path from 1.0 (1)" in carried.output
    later = mobster("test", "--scripted", "later.yaml", "--carry", "--json")
    assert later.exit_code == 0, later.output
    check = json.loads(later.stdout)["checks"][0]
    assert check["path"]["carried_from"] == "2.3 (45)"
    assert (check["mode"], check["path"]["used"], check["model_calls"]) == ("replay", True, 0)
    assert "carried the path from 2.3 (45)" in later.stderr
    junit = project / ".mobster" / "test-results" / json.loads(later.stdout)["suite_id"] / "junit.xml"
    assert "carried the path from 2.3 (45)" in junit.read_text()


def test_a_heal_is_listed_accepted_and_rejected(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert healed.exit_code == 0, healed.output
    assert '    healed step 3: Tap "Continue" → Tap "Next"' in healed.output
    assert healed.output.strip().splitlines()[-1] == "1 healed step waits for review: mobster test heal"
    listing = mobster("test", "heal")
    assert listing.exit_code == 0
    assert 'step 3: Tap "Continue" → Tap "Next"' in listing.output
    assert "- Button 'Continue'" in listing.output
    assert "+ Button 'Next'" in listing.output
    rejected = mobster("test", "heal", "--reject", "signup.yaml")
    assert rejected.exit_code == 0
    assert "rejected 1 heal of signup.yaml" in rejected.output
    again = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert again.exit_code == 1
    assert json.loads(again.stdout)["checks"][0]["class"] == "drift"


def test_accept_keeps_the_healed_path(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    accepted = mobster("test", "heal", "--accept", "signup")
    assert accepted.exit_code == 0, accepted.output
    assert not (project / ".mobster" / "checks" / "signup.heal.yaml").exists()
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal")
    assert strict.exit_code == 0, strict.output


def test_junit_is_valid_and_lists_heals(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    result = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--junit", "out.xml")
    assert result.exit_code == 0
    root = ET.fromstring((project / "out.xml").read_bytes())
    assert root.tag == "testsuites"
    (suite,) = root
    assert suite.tag == "testsuite"
    assert suite.get("tests") == "1"
    assert suite.get("failures") == "0"
    (case,) = suite.findall("testcase")
    assert case.get("name") == "A new user signs up on Scripted iPhone, iOS 26.4"
    assert case.get("classname") == ".mobster/checks/signup.yaml"
    out = case.findtext("system-out") or ""
    assert 'healed step 3: Tap "Continue" -> Tap "Next"' in out


def test_junit_failure_and_error_elements(project: Path) -> None:
    (project / ".mobster" / "checks" / "broken.yaml").write_text("version: 1\nname: x\nstepz: []\n")
    result = mobster("test", "--scripted", "app.yaml", "--junit", "out.xml")
    assert result.exit_code == 3  # nothing failed; both couldn't run
    suite = ET.fromstring((project / "out.xml").read_bytes())[0]
    assert suite.get("errors") == "2"
    errors = [c.find("error") for c in suite.findall("testcase")]
    assert all(e is not None for e in errors)
    types = sorted(e.get("type", "") for e in errors if e is not None)
    assert types == ["model", "usage"]


def test_a_bad_check_names_the_file_and_line(project: Path) -> None:
    (project / ".mobster" / "checks" / "broken.yaml").write_text("version: 1\nname: x\nstepz: []\n")
    result = mobster("test", "broken.yaml", "--scripted", "app.yaml", "--json")
    check = json.loads(result.stdout)["checks"][0]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "usage")
    assert "broken.yaml:3" in check["message"]
    assert "did you mean 'steps'" in check["message"]


def test_no_path_and_no_key(project: Path) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--json")
    assert result.exit_code == 3
    check = json.loads(result.stdout)["checks"][0]
    assert check["class"] == "model"
    assert check["message"].startswith("no recorded path yet, and there is no model")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "choose a device"),
        (("--scripted", "app.yaml", "--wda", "http://127.0.0.1:8100"), "choose one device option"),
        (("--wda", "http://127.0.0.1:9"), "isn't answering"),
        (("--scripted", "app.yaml", "--shard", "3/2"), "--shard"),
        (("nope.yaml", "--scripted", "app.yaml"), "no check 'nope.yaml'"),
        (("--scripted", "app.yaml", "--model", "llama"), "unknown model 'llama'"),
        (("--scripted", "app.yaml", "--model", "claude-sonnet-5-5"), "set ANTHROPIC_API_KEY"),
        (("--scripted", "missing.yaml"), "missing.yaml"),
    ],
)
def test_usage_problems_exit_3_with_a_message(project: Path, args: tuple[str, ...], message: str) -> None:
    result = CliRunner().invoke(cli, ["test", *args])
    assert result.exit_code == 3, result.output
    assert message in result.output


def test_shard_and_parallel(project: Path) -> None:
    checks = project / ".mobster" / "checks"
    for n in range(3):
        (checks / f"launch{n}.yaml").write_text(
            f"version: 1\nname: Launch {n}\napp: {{bundle: com.example.yourapp}}\nexpect:\n  - text: Welcome\n"
        )
    (checks / "signup.yaml").unlink()
    both = mobster("test", "--scripted", "app.yaml", "--parallel", "2", "--json")
    assert both.exit_code == 0, both.output
    assert [c["name"] for c in json.loads(both.stdout)["checks"]] == ["Launch 0", "Launch 1", "Launch 2"]
    half = mobster("test", "--scripted", "app.yaml", "--shard", "2/2", "--json")
    assert [c["name"] for c in json.loads(half.stdout)["checks"]] == ["Launch 1"]


def test_verify_one_check(project: Path) -> None:
    result = mobster(
        "verify", "--check", ".mobster/checks/signup.yaml", "--scripted", "app.yaml", "--model", "scripted"
    )
    assert result.exit_code == 0, result.output


def test_env_file_gives_keys_without_printing_them(project: Path) -> None:
    # Port 9 on loopback refuses the connection: the call fails at once, with no network used.
    (project / "keys.env").write_text(
        "# keys\nexport ANTHROPIC_API_KEY='sk-ant-test-SECRET'\nANTHROPIC_BASE_URL=http://127.0.0.1:9\n"
    )
    result = mobster("test", "--scripted", "app.yaml", "--env-file", "keys.env", "--model", "claude-sonnet-5-5",
                     "--max-usd", "0.01", "--json")  # fmt: skip
    assert "SECRET" not in result.output
    check = json.loads(result.stdout)["checks"][0]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "model")
    for f in (project / ".mobster").rglob("*"):
        if f.is_file():
            assert b"SECRET" not in f.read_bytes()


def test_help_is_fast_and_lists_the_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mobster_cli.main", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("test", "verify", "demo"):
        assert command in out.stdout
    code = (
        "import sys, mobster_cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('anthropic', 'openai', 'wda', 'rich', 'mobster_drivers')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_the_demo_runs(tmp_path: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("ANTHROPIC_API_KEY", None)
    out = subprocess.run(
        [sys.executable, "-c", "from mobster_cli.main import main; main()", "demo", str(tmp_path / "demo")],
        capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed in" in out.stdout
    assert "$0.00, 2 replayed with no model, 0 model calls" in out.stdout
    assert 'healed step 3: Tap "Continue" → Tap "Next"' in out.stdout
    assert "the app changed (recorded on 1.0 (1), this is 1.1 (2))" in out.stdout
    assert (tmp_path / "demo" / ".mobster" / "checks" / "signup.heal.yaml").exists()


def test_no_heal_never_constructs_a_model(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-would-be-used")
    made: list[str] = []

    def spy(name: str, **_: object) -> object:
        made.append(name)
        raise AssertionError("no adapter may be constructed under --no-heal")

    import mobster_drivers.models

    monkeypatch.setattr(mobster_drivers.models, "make_model", spy)
    result = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["checks"][0]["class"] == "drift"
    assert made == []
    with_model = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--model", "claude-sonnet-5-5", "--json")
    assert with_model.exit_code == 1
    assert made == []
