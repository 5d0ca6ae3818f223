"""The `mobster` command, end to end on the scripted phone and a fake clock (zero-latency app script).

The command gets its clock and its way of running a coroutine from the ``Runtime`` in click's
``obj``: each invocation here gets a fresh ``FakeClock``, so a drift's 1 s or a settled read's
5 s cost no real time. A test that talks to a real socket keeps the system clock.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import EntryPoint
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner, Result

from mobster_cli import _devices
from mobster_cli._render import summary_line
from mobster_cli.main import Runtime, cli
from mobster_core import CheckResult, Clock, Outcome, SuiteResult, Verdict
from mobster_core.results import Cost, Mode
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from tests.browser import CHROMIUM, Browser
from tests.samples import SIGNUP


@pytest.fixture
def project(project: Path) -> Path:
    """The sign-up check, and the sample app and its rebuild as app scripts."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    return project


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def real_clock_mobster(*args: str) -> Result:
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
    assert last.endswith(" s, $0.00, 1 replayed with no model, 0 model calls")


def test_no_heal_with_a_renamed_button_fails_with_drift(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    result = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    check = doc["checks"][0]
    assert (check["verdict"], check["class"]) == ("failed", "drift")
    assert '"Continue" isn\'t on the screen' in check["message"]
    assert check["steps"][-1]["reason"] == '"Continue" isn\'t on the screen'
    assert (check["step"], check["fix"]["code"]) == (3, "run_without_no_heal")
    # A drifted check replayed a path but not to its verdict: it is not "replayed with no model".
    assert (check["replayed_with_no_model"], doc["summary"]["replayed_with_no_model"]) == (False, 0)
    shown = mobster("test", "--scripted", "renamed.yaml", "--no-heal")
    assert (
        'drift: step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen (healing is off); '
        "run it without --no-heal (or with --fresh to record it again)"
    ) in shown.output
    assert "replayed" not in shown.output.strip().splitlines()[-1]


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
    # The frames before and after the heal, and the page that shows them side by side.
    named = {
        line.split(":", 1)[0].strip(): line.split(":", 1)[1].strip()
        for line in listing.output.splitlines()
        if line.strip().startswith(("frame before:", "frame after:", "report:"))
    }
    run_dir = str(Path(named["report"]).parent)
    assert named == {
        "frame before": f"{run_dir}/frames/step-003-before.png",
        "frame after": f"{run_dir}/frames/final.png",
        "report": f"{run_dir}/report.html",
    }
    assert all((project / path).is_file() for path in named.values())
    rejected = mobster("test", "heal", "--reject", "signup.yaml")
    assert rejected.exit_code == 0
    assert "rejected 1 heal of signup.yaml" in rejected.output
    again = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert again.exit_code == 1
    assert json.loads(again.stdout)["checks"][0]["class"] == "drift"


def test_a_rejected_step_says_how_to_undo_the_reject_and_heals_again_once_it_is_undone(project: Path) -> None:
    # The report said "let the step heal (run with a model)", which a reject refuses; only --fresh undid a reject.
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert mobster("test", "heal", "--reject", "signup.yaml").exit_code == 0
    failed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert failed.exit_code == 1
    (check,) = json.loads(failed.stdout)["checks"]
    assert (check["class"], check["step"], check["fix"]["code"]) == ("drift", 3, "undo_reject")
    assert "(you chose to keep this step failing)" in check["message"]
    shown = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert "undo the reject with mobster test heal --unreject signup.yaml, then run it with a model" in shown.output
    page = (project / check["run_dir"] / "report.html").read_text()
    assert "mobster test heal --unreject" in page
    assert "let the step heal (run with a model)" not in page
    listing = mobster("test", "heal")
    assert "no heals wait for review" in listing.output
    assert (
        "A new user signs up (signup.yaml): step 3 keeps failing (a heal was rejected): "
        "mobster test heal --unreject signup.yaml lets it heal again"
    ) in listing.output
    wrong = mobster("test", "heal", "--unreject", "signup.yaml", "--step", "2")
    assert wrong.exit_code == 3
    assert "step 2 of signup.yaml isn't a rejected step (its rejected steps: 3)" in wrong.output
    assert mobster("test", "heal", "--step", "3").exit_code == 3  # --step goes with --unreject
    undone = mobster("test", "heal", "--unreject", "signup.yaml", "--step", "3")
    assert undone.exit_code == 0, undone.output
    assert "undid the reject of signup.yaml's step 3: it heals again on the next drift" in undone.output
    assert "nothing to undo" in mobster("test", "heal", "--unreject", "signup").output
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert healed.exit_code == 0, healed.output
    assert '    healed step 3: Tap "Continue" → Tap "Next"' in healed.output
    assert (project / ".mobster" / "checks" / "signup.heal.yaml").exists()


def test_accept_keeps_the_healed_path(project: Path) -> None:
    mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    accepted = mobster("test", "heal", "--accept", "signup")
    assert accepted.exit_code == 0, accepted.output
    assert not (project / ".mobster" / "checks" / "signup.heal.yaml").exists()
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal")
    assert strict.exit_code == 0, strict.output


@pytest.mark.skipif(shutil.which("git") is None, reason="git isn't installed")
def test_git_add_all_commits_the_checks_and_heals_and_never_the_lock(project: Path) -> None:
    # .mobster/.lock was committed by `git add -A`: no .gitignore the project was given ignored it.
    mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", "committed")
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--paths", "committed")
    assert healed.exit_code == 0, healed.output  # the heal is written under the project's lock
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    added = subprocess.run(
        ["git", "add", "-A", "--dry-run"], cwd=project, check=True, env=env, capture_output=True, text=True
    ).stdout
    files = {line.removeprefix("add ").strip("'") for line in added.splitlines()}
    mobster_files = {f for f in files if f.startswith(".mobster/")}
    assert ".mobster/checks/signup.yaml" in mobster_files
    assert ".mobster/checks/signup.heal.yaml" in mobster_files
    assert any(f.startswith(".mobster/paths/") for f in mobster_files)
    assert [f for f in mobster_files if f.rsplit("/", 1)[-1] == ".lock" or f.startswith(LEFT_BY_RUNS)] == []
    assert (project / ".mobster" / "cache" / ".lock").is_file()  # in the cache, which every .gitignore ignores


LEFT_BY_RUNS = (".mobster/cache/", ".mobster/runs/", ".mobster/test-results/")


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
    result = real_clock_mobster("test", "--scripted", "app.yaml", "--env-file", "keys.env", "--model",
                                "claude-sonnet-5-5", "--max-usd", "0.01", "--json")  # fmt: skip
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
    # Both checks use the flow create-account: the first records it, the other replays it at $0 on its
    # first run (run 1: 7 calls, not 7 + 4); a renamed "Continue" heals once, for both (run 3: 1 call).
    runs = out.stdout.split("\n== ")[1:5]
    assert ", 1 replayed with no model, 7 model calls" in runs[0], runs[0]
    assert ", 1 replayed with no model, 1 model call\n" in runs[2], runs[2]
    assert 'healed step 3 (create-account › step 3): Tap "Continue" → Tap "Next"' in out.stdout
    assert "the app changed (recorded on 1.0 (1), this is 1.1 (2))" in out.stdout
    assert (tmp_path / "demo" / ".mobster" / "flows" / "create-account.heal.yaml").exists()
    # The same two checks, written once, on a scripted Android phone: a path of their own, a heal of its own.
    assert "on Scripted Pixel, Android 14 (API 34)" in out.stdout
    assert out.stdout.count("$0.00, 2 replayed with no model, 0 model calls") == 2
    assert 'healed step 5: Tap "Upgrade to Pro" → Tap "Go Premium"' in out.stdout
    # Two heal files: the flow's (the iPhone's rename, for both checks), the paywall's own steps' (Android's).
    heal_files = sorted(p.name for p in (tmp_path / "demo" / ".mobster").rglob("*.heal.yaml"))
    assert heal_files == ["create-account.heal.yaml", "paywall.heal.yaml"]
    # The paywall's own step's heal is in use and can be accepted: a check that uses a flow keeps its
    # own steps' heal states under its own parts' identities, and the review looks there (it said
    # "not in use: no healed path is kept with it" and --accept refused it, exit 3).
    review = [sys.executable, "-c", "from mobster_cli.main import main; main()", "test", "heal"]
    listed = subprocess.run(review, cwd=tmp_path / "demo", capture_output=True, text=True, env=env, check=False)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert 'Tap "Upgrade to Pro" → Tap "Go Premium"' in listed.stdout
    assert "not in use" not in listed.stdout
    accepted = subprocess.run(
        [*review, "--accept", "paywall"], cwd=tmp_path / "demo", capture_output=True, text=True, env=env, check=False
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "kept 1 heal of paywall.yaml" in accepted.stdout
    # The lines to try it yourself name the command by its full path: no virtualenv to activate.
    mobster_path = Path(sys.executable).with_name("mobster")
    assert mobster_path.exists()
    assert f" && {mobster_path} test --scripted apps/yourapp-rebuild.yaml" in out.stdout
    # It ends with the page that shows the record, the $0 replay and the heal, each run linked.
    page = Path(out.stdout.strip().splitlines()[-1].strip())
    page = page if page.is_absolute() else Path.cwd() / page
    assert page == tmp_path / "demo" / ".mobster" / "test-results" / "demo" / "index.html"
    text = page.read_text()
    for word in ("recorded by Smart", "replayed · $0", "healed"):
        assert word in text
    links = set(re.findall(r'href="([^"]+/report\.html)"', text))
    assert len(links) == 14
    assert all((page.parent / link).is_file() for link in links)
    if CHROMIUM.exists():
        with Browser() as browser:
            assert browser.load(page) == []
            for link in links:
                assert browser.load(page.parent / link) == [], link


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


# -- what a new user tripped on ------------------------------------------------------------------


def make_phone(arg: str, *, clock: Clock) -> ScriptedPhone:
    """A driver factory as ``--driver`` calls it: the scripted phone, as a stand-in for a farm's."""
    if arg == "unplugged":
        raise ConnectionRefusedError("the farm isn't answering")  # what a driver's own library raises
    return ScriptedPhone.from_file(Path(arg), clock=clock)


def test_an_env_file_that_isnt_there_is_one_usage_line(project: Path) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--env-file", "missing.env")
    assert result.exit_code == 3
    assert result.output.strip().splitlines() == [
        "mobster: --env-file missing.env: can't read it (No such file or directory); check the path"
    ]
    assert "Traceback" not in result.output


def test_json_on_a_device_error_still_prints_and_writes_the_results(project: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = real_clock_mobster("test", "--wda", f"http://127.0.0.1:{port}", "--json")
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    (check,) = doc["checks"]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "device")
    assert "isn't answering" in check["message"]
    saved = project / ".mobster" / "test-results" / doc["suite_id"] / "results.json"
    assert json.loads(saved.read_text()) == doc


def test_the_summary_line_counts_model_calls_and_marks_an_estimated_cost(project: Path) -> None:
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    # The scripted model's usage is estimated: the cost says so, even when it rounds to nothing.
    assert first.output.strip().splitlines()[-1].endswith(", ~$0.00, 4 model calls")
    suite = SuiteResult("s", "2026-11-30T12:00:00Z", 3.0, (), project)
    assert summary_line(attrs.evolve(suite)) == "no checks in 3 s, $0.00, 0 model calls"
    priced = attrs.evolve(json_result(first), cost=Cost(0.0123, estimated=True), model_calls=1)
    assert summary_line(attrs.evolve(suite, checks=(priced,))) == "1 passed in 3 s, ~$0.01, 1 model call"


def json_result(result: Result) -> CheckResult:
    """The check result a run of the command wrote (its run folder's result.json), rebuilt."""
    root = Path.cwd()
    (run_json,) = sorted((root / ".mobster" / "runs").glob("*/result.json"))[-1:]
    data = json.loads(run_json.read_text())
    return CheckResult(
        name=data["name"], file=data["file"], device=None, app=None,
        outcome=Outcome(Verdict(data["verdict"])), mode=Mode(data["mode"]), seconds=data["seconds"], cost=Cost(),
        model_calls=data["model_calls"], identity=None, env=None, path_used=data["path"]["used"],
        path_why=data["path"]["why"], steps=(), heals=(), assertions=(), run_dir=data["run_dir"],
    )  # fmt: skip


def test_a_new_path_is_said_to_be_recorded_only_when_it_was_stored(project: Path) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP.replace("Welcome aboard", "Goodbye"))
    failed = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    assert failed.exit_code == 1
    assert "recorded a new path" not in failed.output
    assert "ran with Smart (no recorded path yet); no path was stored: the check didn't pass" in failed.output
    assert not list((project / ".mobster" / "cache" / "replay").glob("*.json"))


def test_replayed_counts_only_the_checks_that_replayed(project: Path) -> None:
    nothing = mobster("test", "--scripted", "app.yaml")  # no path, no model: nothing replayed
    assert nothing.exit_code == 3
    assert "replayed" not in nothing.output.strip().splitlines()[-1]
    assert (
        "model: no recorded path yet, and there is no model to record one; "
        "set ANTHROPIC_API_KEY or OPENAI_API_KEY (or --env-file), or pass --model scripted"
    ) in nothing.output
    never = json.loads(mobster("test", "--scripted", "app.yaml", "--json").stdout)
    assert (never["checks"][0]["mode"], never["summary"]["replayed_with_no_model"]) == (None, 0)


def test_no_heal_with_a_key_set_says_no_heal_is_why_there_is_no_model(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-set-but-unused")
    result = mobster("test", "--scripted", "app.yaml", "--no-heal", "--json")
    check = json.loads(result.stdout)["checks"][0]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "model")
    assert "there is no model to record one: healing is off" in check["message"]
    assert check["fix"] == {"code": "run_without_no_heal", "args": {}}
    assert "ANTHROPIC_API_KEY" not in check["message"]
    # The terminal spells the fix with this command's options; results.json names none.
    shown = mobster("test", "--scripted", "app.yaml", "--no-heal")
    assert "healing is off; run it without --no-heal (or with --fresh to record it again)" in shown.output
    assert "ANTHROPIC_API_KEY" not in shown.output
    assert "--no-heal" not in check["message"]


def test_heal_and_verify_help_describe_their_own_options() -> None:
    heal = mobster("test", "heal", "--help")
    assert heal.exit_code == 0
    assert heal.output.splitlines()[0].endswith(" test heal [OPTIONS] [CHECKS]...")
    assert "--accept CHECK" in heal.output
    assert "--scripted" not in heal.output
    verify = mobster("verify", "--help")
    assert "--check FILE  " in verify.output
    assert "The check file to run." in verify.output
    assert "--parallel" not in verify.output
    assert "Exit codes: 0 passed, 1 failed, 2 needs review, 3 couldn't run." in verify.output
    test = mobster("test", "--help")
    assert "--accept" not in test.output
    assert "mobster test heal --help" in test.output


def test_a_driver_by_import_path(project: Path) -> None:
    first = mobster("test", "--driver", "tests.cli.test_cli:make_phone", "app.yaml", "--model", "scripted")
    assert first.exit_code == 0, first.output
    again = mobster("test", "--driver", "tests.cli.test_cli:make_phone", "app.yaml", "--json")
    assert json.loads(again.stdout)["checks"][0]["mode"] == "replay"


def test_a_driver_by_entry_point(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    farm = EntryPoint(name="farm", value="tests.cli.test_cli:make_phone", group="mobster.drivers")

    def installed(group: str) -> list[EntryPoint]:
        return [farm] if group == "mobster.drivers" else []

    monkeypatch.setattr(_devices, "entry_points", installed)
    result = mobster("test", "--driver", "farm", "app.yaml", "--model", "scripted", "--parallel", "2")
    assert result.exit_code == 0, result.output
    unknown = mobster("test", "--driver", "nope", "app.yaml")
    assert unknown.exit_code == 3
    assert "no driver of that name in the mobster.drivers entry points (farm)" in unknown.output


def test_a_driver_that_fails_to_start_is_a_device_problem(project: Path) -> None:
    result = mobster("test", "--driver", "tests.cli.test_cli:make_phone", "unplugged", "--json")
    assert result.exit_code == 3
    check = json.loads(result.stdout)["checks"][0]
    assert check["class"] == "device"
    assert check["message"] == (
        "--driver tests.cli.test_cli:make_phone unplugged: the driver failed to start "
        "(ConnectionRefusedError: the farm isn't answering)"
    )
    # A driver that says its own argument is wrong (a MobsterError) is a usage problem: one line.
    usage = mobster("test", "--driver", "tests.cli.test_cli:make_phone", "no-such-app.yaml")
    assert usage.exit_code == 3
    assert "no-such-app.yaml: can't read the app script" in usage.output


def test_the_demo_folder_is_ignored_by_git() -> None:
    ignored = (Path(__file__).parents[2] / ".gitignore").read_text().splitlines()
    assert "/mobster-demo/" in ignored


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("def make_phone(:\n", "importing brokendrv failed (SyntaxError: invalid syntax at"),
        (
            "raise RuntimeError('the farm library needs a licence')\n",
            "(RuntimeError: the farm library needs a licence)",
        ),
        ("import no_such_module_anywhere\n", "can't import brokendrv (No module named 'no_such_module_anywhere')"),
    ],
)
def test_a_driver_module_that_fails_to_import_is_one_line_naming_it(project: Path, source: str, said: str) -> None:
    (project / "brokendrv.py").write_text(source)
    result = mobster("test", "--driver", "brokendrv:make_phone", "x")
    assert result.exit_code == 3, result.output
    assert said in result.output
    assert "internal error" not in result.output
    assert "Traceback" not in result.output


def test_a_driver_beside_the_project_is_found_without_pythonpath(project: Path) -> None:
    (project / "farmdriver.py").write_text(
        "from mobster_drivers.devices.scripted import ScriptedPhone\n"
        "def make_phone(arg, *, clock):\n"
        "    return ScriptedPhone.from_file(arg, clock=clock)\n"
    )
    result = mobster("test", "--driver", "farmdriver:make_phone", "app.yaml", "--model", "scripted")
    assert result.exit_code == 0, result.output  # found in the current folder: no PYTHONPATH was set
    assert "✓ passed  A new user signs up" in result.output


BROKEN_DRIVER = """\
import attrs
from mobster_drivers.devices.scripted import ScriptedPhone

class Broken:
    def __init__(self, flaw, clock):
        self.flaw = flaw
        self.phone = ScriptedPhone.from_file("app.yaml", clock=clock)

    async def info(self):
        info = await self.phone.info()
        return attrs.evolve(info, kind="simulator") if self.flaw == "kind" else info

    async def app_info(self, bundle):
        return {"bundle": bundle} if self.flaw == "app_info" else await self.phone.app_info(bundle)

    async def launch(self, bundle, options):
        await self.phone.launch(bundle, options)

    async def read(self):
        screen = await self.phone.read()
        return {"app": screen.app} if self.flaw == "read" else screen

    async def act(self, action):
        await self.phone.act(action)

    async def screenshot(self):
        return "not a png" if self.flaw == "screenshot" else await self.phone.screenshot()

    async def check_target(self, element):
        return "yes" if self.flaw == "check_target" else True

def make(flaw, *, clock):
    return Broken(flaw, clock)
"""


@pytest.mark.parametrize(
    ("flaw", "said"),
    [
        ("read", "the device's read() returned dict {'app': 'com.example.yourapp'}, not a Screen"),
        ("kind", "the device's info().kind returned str 'simulator', not a DeviceKind"),
        ("app_info", "the device's app_info() returned dict"),
        ("check_target", "the device's check_target() returned str 'yes', not a bool"),
    ],
)
def test_a_driver_that_breaks_the_contract_is_a_device_problem_naming_the_method(
    project: Path, flaw: str, said: str
) -> None:
    (project / "brokendriver.py").write_text(BROKEN_DRIVER)
    recorded = mobster("test", "--driver", "brokendriver:make", "none", "--model", "scripted")
    assert recorded.exit_code == 0, recorded.output
    result = mobster("test", "--driver", "brokendriver:make", flaw, "--json")  # a replay: the target is checked
    assert result.exit_code == 3, result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert check["class"] == "device", check["message"]
    assert said in check["message"]
    assert "fix the driver" in check["message"]


def test_a_screenshot_that_isnt_bytes_is_a_missing_frame_not_a_crash(project: Path) -> None:
    (project / "brokendriver.py").write_text(BROKEN_DRIVER)
    result = mobster("test", "--driver", "brokendriver:make", "screenshot", "--model", "scripted", "--json")
    assert result.exit_code == 0, result.output
    (check,) = json.loads(result.stdout)["checks"]
    assert check["verdict"] == "passed"
    assert all(step["frame"] is None for step in check["steps"])


def test_video_is_an_option_of_mobster_test_and_a_device_without_video_is_no_outcome(project: Path) -> None:
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--video", "on", "--json")
    assert first.exit_code == 0, first.output
    check = json.loads(first.stdout)["checks"][0]
    assert (check["verdict"], check["video"], check["video_url"]) == ("passed", None, None)  # the phone can't record
    bad = mobster("test", "--scripted", "app.yaml", "--video", "sometimes")
    assert bad.exit_code == 3  # a usage line, exit 3: 2 means "needs review"
    assert "'sometimes' is not one of 'off', 'on', 'retain-on-failure'" in bad.output
