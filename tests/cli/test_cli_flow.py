"""``mobster test --tag/--exclude-tag/--list/--retries/--repeat``, end to end on scripted phones and a fake clock.

The faults come from a ``--driver`` factory of this module: scripted phones that die while
launching the app, or whose actions change nothing in one run (its next step drifts).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.cli.test_cli import mobster
from tests.core.run.test_suite_retries import FaultyPhone
from tests.samples import SIGNUP

DRIVER = f"{__name__}:phone"
#: How many phones the factory made in this test (reset by the ``project`` fixture).
MADE: list[Any] = []


def phone(fault: str, *, clock: FakeClock) -> FaultyPhone:
    """The ``--driver`` factory: ``dies``, the first phone made dies at its first launch; ``fails-1``,
    each phone's first launch fails (it still answers); ``drops-2``, its second run's actions change nothing.
    """
    made = FaultyPhone(clock)
    made.dies_at_launch = fault == "dies" and not MADE
    made.failing_launches = 1 if fault == "fails-1" else 0
    made.drop_run = 2 if fault == "drops-2" else None
    MADE.append(made)
    return made


TAGGED = {
    "signup": ("smoke", "auth"),
    "welcome": ("smoke",),
    "slow": ("slow",),
}


@pytest.fixture
def project(project: Path) -> Path:
    """Three tagged checks of the sign-up flow, and the sample app as an app script."""
    MADE.clear()
    for name, tags in TAGGED.items():
        text = SIGNUP.replace("A new user signs up", f"Check {name}").replace("ada@", f"{name}@")
        text = text.replace("steps:", f"tags: [{', '.join(tags)}]\nsteps:", 1)
        (project / ".mobster" / "checks" / f"{name}.yaml").write_text(text)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    return project


def record_signup(project: Path) -> None:
    """Smart records the sign-up check's path; its suite's results go, so the next suite's are the only ones."""
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "signup").exit_code == 0
    shutil.rmtree(project / ".mobster" / "test-results")


def names(result: Result) -> list[str]:
    return [c["name"] for c in json.loads(result.stdout)["checks"]]


def test_tags_are_anded_and_any_excluded_tag_drops_a_check(project: Path) -> None:
    both = mobster("test", "--list", "--json", "--tag", "smoke", "--tag", "auth")
    assert both.exit_code == 0, both.output
    assert names(both) == ["Check signup"]
    smoke = mobster("test", "--list", "--json", "--tag", "smoke")
    assert names(smoke) == ["Check signup", "Check welcome"]
    excluded = mobster("test", "--list", "--json", "--exclude-tag", "slow", "--exclude-tag", "auth")
    assert names(excluded) == ["Check welcome"]
    ran = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--tag", "smoke", "--exclude-tag", "auth")
    assert ran.exit_code == 0, ran.output
    assert "Check welcome" in ran.output
    assert "Check signup" not in ran.output
    assert "1 passed" in ran.output


def test_a_tag_no_check_has_is_a_note_and_an_empty_selection_exits_3(project: Path) -> None:
    kept = mobster("test", "--list", "--tag", "smoke", "--exclude-tag", "nightly")
    assert kept.exit_code == 0
    assert "mobster: no check has the tag 'nightly'" in kept.stderr
    none = mobster("test", "--scripted", "app.yaml", "--tag", "nightly")
    assert none.exit_code == 3
    assert "no check has the tag 'nightly'" in none.stderr
    assert "--tag nightly keeps none of the 3 checks" in none.stderr


def test_a_check_file_that_cant_be_read_is_kept_by_a_tag_filter(project: Path) -> None:
    (project / ".mobster" / "checks" / "broken.yaml").write_text("version: 1\nname: [\n")
    listed = mobster("test", "--list", "--tag", "auth")
    assert listed.exit_code == 0
    lines = listed.stdout.splitlines()
    assert any(line.startswith(".mobster/checks/broken.yaml") and "can't be read" in line for line in lines), lines
    assert "2 checks selected; none run" in listed.stdout


def test_list_says_whether_a_path_is_recorded_for_this_devices_env(project: Path) -> None:
    before = mobster("test", "--list", "--scripted", "app.yaml", "signup")
    assert before.exit_code == 0, before.output
    assert ".mobster/checks/signup.yaml  Check signup  [smoke, auth]  no path for 1.0 (1)" in before.stdout
    assert not list((project / ".mobster").glob("runs/*"))  # nothing ran
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "signup").exit_code == 0
    after = mobster("test", "--list", "--scripted", "app.yaml", "--json")
    doc = json.loads(after.stdout)
    assert doc["schema"] == "mobster.list/1"
    assert doc["store"] == "local"
    rows = {r["name"]: r for r in doc["checks"]}
    assert rows["Check signup"]["recorded"] is True
    assert rows["Check signup"]["env"].startswith("1.0 (1) on iOS 26")
    assert rows["Check signup"]["tags"] == ["smoke", "auth"]
    assert rows["Check welcome"]["recorded"] is False
    assert rows["Check signup"]["paths"] == 1
    no_device = mobster("test", "--list")
    assert "Check signup  [smoke, auth]  1 path recorded" in no_device.stdout
    assert "Check welcome  [smoke]  no path recorded" in no_device.stdout
    committed = mobster("test", "--list", "--paths", "committed", "--json")
    assert {r["paths"] for r in json.loads(committed.stdout)["checks"]} == {0}  # the other store has none


def test_a_device_that_dies_launching_is_retried_on_the_other_and_is_flaky_everywhere(project: Path) -> None:
    record_signup(project)
    junit = project / "out.xml"
    result = mobster(
        "test", "--driver", DRIVER, "dies", "--parallel", "2", "--retries", "1", "signup", "--junit", str(junit)
    )
    assert result.exit_code == 0, result.output
    assert "✓ passed  Check signup  on Scripted iPhone, iOS 26.4  (flaky)" in result.stdout
    assert "    attempt 1 of 2: device: " in result.stdout
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("1 passed (1 flaky) in "), summary
    (folder,) = (project / ".mobster" / "test-results").iterdir()
    doc = json.loads((folder / "results.json").read_text())
    (check,) = doc["checks"]
    assert check["flaky"] is True
    assert [a["verdict"] for a in check["attempts"]] == ["couldnt_run", "passed"]
    assert doc["summary"]["flaky"] == 1
    tree = ET.fromstring(junit.read_bytes())
    assert {p.get("name"): p.get("value") for p in tree.iter("property")}["mobster.flaky"] == "1"
    case = next(tree.iter("testcase"))
    assert case.find("flakyError") is not None
    page = (folder / "index.html").read_text()
    assert "flaky" in page
    for attempt in check["attempts"]:
        assert f"{Path(attempt['run_dir']).name}/report.html" in page  # each attempt's report is linked
    assert MADE[0].launches == 1  # tried once on the dying phone, then on the other


def test_without_retries_the_dying_phones_check_couldnt_run(project: Path) -> None:
    record_signup(project)
    result = mobster("test", "--driver", DRIVER, "dies", "--parallel", "2", "signup", "--json")
    assert result.exit_code == 3
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["class"], check["attempts"], check["flaky"]) == ("device", [], False)


def test_a_drift_is_never_retried(project: Path) -> None:
    record_signup(project)
    result = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--retries", "3", "signup", "--json")
    assert result.exit_code == 1
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["class"], check["attempts"]) == ("drift", [])


def test_verify_takes_retries(project: Path) -> None:
    record_signup(project)
    check = str(project / ".mobster" / "checks" / "signup.yaml")
    result = mobster("verify", "--check", check, "--driver", DRIVER, "fails-1", "--retries", "1")
    assert result.exit_code == 0, result.output
    assert "(flaky)" in result.stdout


def test_repeat_reports_each_checks_pass_rate_and_exits_with_the_worst_run(project: Path) -> None:
    record_signup(project)
    result = mobster("test", "--driver", DRIVER, "drops-2", "--repeat", "3", "--no-heal", "signup")
    assert result.exit_code == 1, result.output
    assert "(run 2 of 3)" in result.stdout
    assert "pass rate: Check signup 2/3 (67%)" in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("2 passed, 1 failed in ")
    (folder,) = (project / ".mobster" / "test-results").iterdir()
    doc = json.loads((folder / "results.json").read_text())
    assert [(r["passed"], r["runs"]) for r in doc["pass_rates"]] == [(2, 3)]
    assert "2/3" in (folder / "index.html").read_text()


def test_an_appium_phone_that_dies_at_the_baseline_hands_its_check_to_the_other_as_a_retry(project: Path) -> None:
    from mobster_drivers.testing.appium import FakeAppium
    from tests.cli.test_cli_pool import Moment, script
    from tests.real_clock import mobster as real_mobster

    for name in ("welcome", "slow"):
        (project / ".mobster" / "checks" / f"{name}.yaml").unlink()
    with FakeAppium(script(), lifetime=120) as recorder:
        assert real_mobster("test", "--appium", recorder.url, "--model", "scripted").exit_code == 0
    with FakeAppium(script(), lifetime=120) as dying, FakeAppium(script(), lifetime=120) as good:
        death = Moment("the baseline")
        dying.die_when(death)
        result = real_mobster("test", "--appium", dying.url, "--appium", good.url, "--retries", "1", "--json")
        assert result.exit_code == 0, result.output
        (check,) = json.loads(result.stdout)["checks"]
        dead, alive = (f.url.split("//")[1].rstrip("/") for f in (dying, good))
        assert check["flaky"] is True
        assert [(a["device_label"], a["class"]) for a in check["attempts"]] == [(dead, "device"), (alive, None)]
        assert "couldn't read the screen for the baseline" in check["attempts"][0]["message"]
        assert check["device_label"] == alive
        assert death.hit is not None


def test_a_repeated_check_counts_its_waiting_heal_once(project: Path) -> None:
    # "3 healed steps wait" was said when one did: each of the 3 runs' results counted the same heal file.
    record_signup(project)
    result = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--repeat", "3", "signup")
    assert result.exit_code == 0, result.output
    assert "pass rate: Check signup 3/3 (100%)" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "1 healed step waits for review: mobster test heal"


LAUNCH_ONLY = """\
version: 1
name: The app opens on its welcome
app: {bundle: com.example.yourapp}
expect:
  - text: Sign up
"""


def test_list_says_a_launch_only_check_records_no_path(project: Path) -> None:
    # --list said such a check had "no path for ...: Smart records it on its first run"; it has no path to record.
    (project / ".mobster" / "checks" / "opens.yaml").write_text(LAUNCH_ONLY)
    for device in ((), ("--scripted", "app.yaml")):
        listed = mobster("test", "--list", *device, "opens")
        assert listed.exit_code == 0, listed.output
        line = ".mobster/checks/opens.yaml  The app opens on its welcome  launch only: no path to record"
        assert line in listed.stdout
        assert "Smart" not in listed.stdout
        doc = json.loads(mobster("test", "--list", "--json", *device, "opens").stdout)
        assert doc["checks"][0]["launch_only"] is True
        assert doc["checks"][0]["recorded"] is None
    ran = mobster("test", "--scripted", "app.yaml", "opens")  # and it runs so: no model, no path
    assert ran.exit_code == 0, ran.output
    signup = json.loads(mobster("test", "--list", "--json", "signup").stdout)["checks"][0]
    assert signup["launch_only"] is False
