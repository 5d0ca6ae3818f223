"""``mobster test`` on pools: ``--appium`` against the fake Appium server, a device killed mid-suite, usage.

The real Appium-Python-Client talks to fake Appium servers on loopback, each in front of its own
fake WDA and scripted phone; these runs use the system clock (real sockets), with the
zero-latency app script, so they take about a second each.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mobster_cli.main import Runtime, cli
from mobster_core import PollPolicy, RunOptions
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing.appium import AppiumRequest, FakeAppium
from tests.real_clock import mobster
from tests.samples import SIGNUP

LAUNCH = """\
version: 1
name: The welcome screen shows {n}
app: {{bundle: com.example.yourapp}}
expect:
  - text: Sign up
"""
KEY = "k3y-SECRET-0042"


def script(name: str = "yourapp") -> AppScript:
    text = sample_path(name).read_text("utf-8").replace("kind: simulator", "kind: iphone")
    return AppScript.from_text(text, f"{name}.yaml")


def signup_named(n: int) -> str:
    """The sign-up check under another name: the same steps, so the same recorded path."""
    return SIGNUP.replace("A new user signs up", f"A new user signs up {n}")


def is_source(request: AppiumRequest, *, evidence: bool) -> bool:
    """A ``mobile: source``: the evidence read (WDA's own ``visible`` kept) or the fast read."""
    if request.command != "mobile: source":
        return False
    args = request.body.get("args") or [{}]
    return ("visible" not in str(args[0].get("excludedAttributes", ""))) is evidence


class Moment:
    """When the dying phone loses power: a predicate over its requests, counting as it goes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.taps = 0
        self.launched = False
        self.hit: AppiumRequest | None = None

    def __call__(self, request: AppiumRequest) -> bool:
        if self._now(request):
            self.hit = request
            return True
        return False

    def _now(self, request: AppiumRequest) -> bool:
        if request.command == "mobile: launchApp":
            self.launched = True
            return self.name == "launching"
        if request.command == "mobile: tap":
            self.taps += 1
            # step 2 types into "Email" (a tap on the field first); step 3 is the heal's tap on "Next"
            return (self.name, self.taps) in {("a step", 2), ("a heal", 3)}
        if is_source(request, evidence=False):  # the baseline settles on fast reads (the first after the launch)
            return self.name == "the baseline" and self.launched and self.taps == 0
        if is_source(request, evidence=True):  # the verdict is judged on one evidence read
            return self.name == "the verdict's read" and self.taps == 3
        return False


def test_a_check_records_replays_and_heals_through_appium(project: Path) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    with FakeAppium(script(), lifetime=120) as fake:
        first = mobster("test", "--appium", fake.url, "--model", "scripted")
        assert first.exit_code == 0, first.output
        assert "✓ passed  A new user signs up  on Scripted iPhone, iOS 26.4" in first.output
        before = len(fake.requests)
        second = mobster("test", "--appium", fake.url, "--json")
        assert second.exit_code == 0, second.output
        (check,) = json.loads(second.stdout)["checks"]
        assert (check["mode"], check["model_calls"], check["path"]["used"]) == ("replay", 0, True)
        taps = [r.command for r in fake.requests[before:] if r.command == "mobile: tap"]
        assert len(taps) == 3  # each action sent once: "Sign up", the field before typing, "Continue"
        assert fake.sessions == {} or len(fake.sessions) <= 1  # the suite's session was ended
    with FakeAppium(script("yourapp-renamed"), lifetime=120) as renamed:
        strict = mobster("test", "--appium", renamed.url, "--no-heal")
        assert strict.exit_code == 1, strict.output
        assert "drift" in strict.output
        healed = mobster("test", "--appium", renamed.url, "--model", "scripted")
        assert healed.exit_code == 0, healed.output
        assert 'healed step 3: Tap "Continue" → Tap "Next"' in healed.output


#: Where each death shows in what the device said last (the check's own message, kept after the pool's).
DETAIL = {
    "launching": "launching com.example.yourapp: the outcome is unknown",
    "the baseline": "couldn't read the screen for the baseline",
    "a step": 'step 2 (Type "ada@example.com" into "Email"): the outcome is unknown',
    "a heal": 'step 3 (Tap "Next"): the outcome is unknown',
    "the verdict's read": "couldn't read the screen for the verdict",
}


@pytest.mark.parametrize("moment", list(DETAIL))
def test_a_pool_with_a_device_killed_mid_suite(project: Path, monkeypatch: pytest.MonkeyPatch, moment: str) -> None:
    checks = project / ".mobster" / "checks"
    for n in range(1, 5):
        (checks / f"signup{n}.yaml").write_text(signup_named(n))
    with FakeAppium(script(), lifetime=120) as recorder:  # one recorded path serves the four checks
        assert mobster("test", "--appium", recorder.url, "--model", "scripted", "signup1.yaml").exit_code == 0
    caps = project / "browserstack.json"
    caps.write_text(json.dumps({"bstack:options": {"userName": "ada", "accessKey": "${BROWSERSTACK_ACCESS_KEY}"}}))
    monkeypatch.setenv("BROWSERSTACK_ACCESS_KEY", KEY)
    require = {"bstack:options": {"userName": "ada", "accessKey": KEY}}
    app = script("yourapp-renamed" if moment == "a heal" else "yourapp")
    with (
        FakeAppium(app, lifetime=120, provider="browserstack", require=require) as good,
        FakeAppium(app, lifetime=120, provider="browserstack", require=require) as dying,
    ):
        death = Moment(moment)
        dying.die_when(death)
        heal = ("--model", "scripted") if moment == "a heal" else ("--no-heal",)
        result = mobster("test", "--appium", good.url, "--appium", dying.url, "--caps", str(caps), *heal, "--json")
        doc = json.loads(result.stdout)
        dead = dying.url.split("//")[1].rstrip("/")
        by = Counter((c["device_label"] == dead, c["verdict"]) for c in doc["checks"])
        assert by == {(False, "passed"): 3, (True, "couldnt_run"): 1}, doc["checks"]
        lost = next(c for c in doc["checks"] if c["verdict"] == "couldnt_run")
        assert lost["class"] == "device"
        said = f"the device {dead} stopped answering during this check and is out of the pool; "
        assert lost["message"].startswith(f"{said}the other 1 device goes on with the suite. What it said last: ")
        assert DETAIL[moment] in lost["message"]
        assert result.exit_code == 3
        assert death.hit is dying.requests[-1]  # the phone died at that request: nothing reached it after
        # The provider was told each check's name and verdict, on the session that ran it.
        statuses = [a for p, a in good.annotations if p == "browserstack" and a["action"] == "setSessionStatus"]
        assert [s["arguments"]["status"] for s in statuses] == ["passed"] * 3
        named = [a["arguments"]["name"] for p, a in good.annotations if a["action"] == "setSessionName"]
        assert set(named) == {c["name"] for c in doc["checks"] if c["verdict"] == "passed"}
        assert KEY not in result.output
        assert KEY not in json.dumps(doc)
    written = json.loads((project / lost["run_dir"] / "result.json").read_text())
    assert written["message"] == lost["message"]  # the run's own file agrees
    junit = ET.fromstring((project / ".mobster" / "test-results" / doc["suite_id"] / "junit.xml").read_bytes())
    names = [case.get("name") or "" for case in junit.iter("testcase")]
    assert len(names) == 4
    assert all(" on 127.0.0.1:" in n for n in names), names


def test_one_session_per_device_for_the_whole_suite(project: Path) -> None:
    for n in range(1, 5):
        (project / ".mobster" / "checks" / f"welcome{n}.yaml").write_text(LAUNCH.format(n=n))
    with FakeAppium(script(), lifetime=120) as a, FakeAppium(script(), lifetime=120) as b:
        result = mobster("test", "--appium", a.url, "--appium", b.url, "--json")
        assert result.exit_code == 0, result.output
        labels = {c["device_label"] for c in json.loads(result.stdout)["checks"]}
        assert labels == {a.url.split("//")[1], b.url.split("//")[1]}  # work went to both
        for fake in (a, b):
            assert [r.command for r in fake.requests].count("POST /session") == 1  # not one per check
            assert [r.method for r in fake.requests if r.session].count("DELETE") == 1  # ended at the end
            assert fake.sessions == {}


def test_sessions_beyond_the_clouds_limit_leave_the_pool_and_their_checks_run_elsewhere(project: Path) -> None:
    for n in range(1, 4):
        (project / ".mobster" / "checks" / f"welcome{n}.yaml").write_text(LAUNCH.format(n=n))
    with FakeAppium(script(), lifetime=120, max_sessions=1) as cloud:  # a plan with one parallel session
        result = mobster("test", "--appium", cloud.url, "--sessions", "2", "--json")
        assert result.exit_code == 0, result.output
        checks = json.loads(result.stdout)["checks"]
        assert [c["verdict"] for c in checks] == ["passed"] * 3
        assert len({c["device_label"] for c in checks}) == 1  # the refused session's check ran on the other
        refused = [r for r in cloud.requests if r.command == "POST /session"]
        assert len(refused) >= 2


def test_a_session_per_check_when_asked(project: Path) -> None:
    for n in range(1, 3):
        (project / ".mobster" / "checks" / f"welcome{n}.yaml").write_text(LAUNCH.format(n=n))
    caps = project / "sauce.json"
    caps.write_text(json.dumps({"sauce:options": {"username": "ada"}}))  # the provider, from its vendor block
    with FakeAppium(script(), lifetime=120, provider="sauce") as cloud:
        result = mobster("test", "--appium", cloud.url, "--caps", str(caps), "--session-per-check")
        assert result.exit_code == 0, result.output
        assert [r.command for r in cloud.requests].count("POST /session") == 2
        assert [r.method for r in cloud.requests if r.session].count("DELETE") == 2
        # each session was named after its check and marked with its verdict before it ended
        assert [a for p, a in cloud.annotations if p == "sauce"] == [
            "job-name=The welcome screen shows 1",
            "job-result=passed",
            "job-name=The welcome screen shows 2",
            "job-result=passed",
        ]


def _usage(*args: str) -> str:
    result = mobster("test", *args)
    assert result.exit_code == 3, result.output
    return result.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--sessions", "2", "--scripted", "app.yaml"), "--sessions N goes with --appium URL"),
        (("--sim", "A", "--caps", "c.json"), "--caps FILE goes with --appium URL"),
        (("--sim", "A", "--wda", "http://127.0.0.1:9"), "choose one device option, not --sim and --wda"),
        (("--wda", "http://127.0.0.1:9", "--wda", "http://127.0.0.1:10", "--parallel", "3"), "--parallel 3 needs 3"),
        (
            (
                "--appium",
                "http://a:4723",
                "--appium",
                "http://b:4723",
                "--caps",
                "1.json",
                "--caps",
                "2.json",
                "--caps",
                "3.json",
            ),
            "3 caps files for 2",
        ),
        (("--driver", "x:y", "z", "--sim", "A"), "not --driver and --sim"),
        ((), "choose a device"),
        (("--sim", "A", "--session-per-check"), "--session-per-check goes with --appium URL"),
    ],
)
def test_bad_mixes_are_usage_problems(project: Path, args: tuple[str, ...], said: str) -> None:
    (project / ".mobster" / "checks" / "w.yaml").write_text(LAUNCH.format(n=1))
    assert said in _usage(*args)


def test_a_caps_file_with_an_unset_variable_names_it_and_prints_no_secret(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".mobster" / "checks" / "w.yaml").write_text(LAUNCH.format(n=1))
    caps = project / "sauce.json"
    caps.write_text(
        json.dumps({"sauce:options": {"username": "${SAUCE_USERNAME}", "accessKey": "${SAUCE_ACCESS_KEY}"}})
    )
    monkeypatch.setenv("SAUCE_USERNAME", KEY)
    monkeypatch.delenv("SAUCE_ACCESS_KEY", raising=False)
    out = _usage("--appium", "http://127.0.0.1:9/wd/hub", "--caps", str(caps))
    assert "SAUCE_ACCESS_KEY" in out
    assert "sauce.json" in out
    assert KEY not in out


def test_verify_runs_on_one_device(project: Path) -> None:
    check = project / ".mobster" / "checks" / "w.yaml"
    check.write_text(LAUNCH.format(n=1))
    result = mobster("verify", "--check", str(check), "--wda", "http://127.0.0.1:9", "--wda", "http://127.0.0.1:10")
    assert result.exit_code == 3
    assert "verify runs one check on one device" in result.output


def test_each_device_runs_every_check_on_every_device(project: Path) -> None:
    for n in range(1, 3):
        (project / ".mobster" / "checks" / f"welcome{n}.yaml").write_text(LAUNCH.format(n=n))
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    clock = FakeClock()
    args = ["test", "--scripted", "app.yaml", "--parallel", "2", "--each-device", "--json"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False, obj=Runtime(clock, clock.run))
    assert result.exit_code == 0, result.output
    runs = [(c["name"], c["device_label"]) for c in json.loads(result.stdout)["checks"]]
    assert runs == [
        ("The welcome screen shows 1", "app-1"),
        ("The welcome screen shows 1", "app-2"),
        ("The welcome screen shows 2", "app-1"),
        ("The welcome screen shows 2", "app-2"),
    ]
    assert "on app-2 (Scripted iPhone, iOS 26.4)" in result.stderr + result.output
    assert "on 2 devices: app-1, app-2" in result.stderr + result.output


def test_the_wait_timing_options_reach_the_run(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / ".mobster" / "checks" / "w.yaml").write_text(LAUNCH.format(n=1))
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    seen: list[RunOptions] = []

    async def run_on_pool(files: Any, pool: Any, clock: Any, *, models: Any, options: RunOptions) -> Any:
        seen.append(options)
        pool.release()
        raise SystemExit(0)

    monkeypatch.setattr("mobster_harness.pool.run_on_pool", run_on_pool)
    args = ["--scripted", "app.yaml", "--poll-interval", "0.5", "--drift-after", "2.5", "--give-up-after", "6"]
    CliRunner().invoke(cli, ["test", *args, "--each-device"], catch_exceptions=False)
    (options,) = seen
    assert options.policy == PollPolicy(interval=0.5, drift_after=2.5, give_up_after=6.0)
    assert options.each_device
    bad = CliRunner().invoke(cli, ["test", "--scripted", "app.yaml", "--poll-interval", "0"])
    assert bad.exit_code == 3  # click's usage error, one line naming the option
    assert "--poll-interval" in bad.output
