"""What a run says happened (issue 28 items 5 and 6): each test failed before its change.

- Smart that ends before the check's last step, the expectations holding, says so on the
  terminal, in ``results.json`` and in the report; a replay of the short path says it too; a
  check with ``all_steps: true`` fails then, class ``steps_skipped``.
- A heal waiting for review that doesn't fit this build names the heal file and ``mobster test heal``;
  a run of the original build never heals over the rebuild's waiting heal (issue 35 item 3).
- ``mobster test heal -h`` is its help, as ``-h`` is everywhere else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP

DISMISS = """\
version: 1
name: Dismiss the paywall
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
  - Tap "Not now"
expect:
  - visible: {label: Account}
"""


@pytest.fixture
def project(project: Path) -> Path:
    """The paywall and sign-up checks, the sample app, its rebuild, and a build with "Upgrade to Pro" renamed."""
    checks = project / ".mobster" / "checks"
    (checks / "dismiss-paywall.yaml").write_text(DISMISS)
    (checks / "signup.yaml").write_text(SIGNUP)
    app = sample_path("yourapp").read_text()
    (project / "app.yaml").write_text(app)
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    assert "label: Upgrade to Pro," in app
    (project / "pro.yaml").write_text(app.replace("label: Upgrade to Pro,", "label: Go Premium,"))
    return project


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def results(project: Path, result: Result) -> dict[str, object]:
    line = next(x for x in result.output.splitlines() if x.startswith("report: "))
    folder = project / Path(line.removeprefix("report: ").strip()).parent
    (check,) = json.loads((folder / "results.json").read_text())["checks"]
    assert isinstance(check, dict)
    return check


def report_html(project: Path, check: dict[str, object]) -> str:
    return (project / str(check["run_dir"]) / "report.html").read_text()


def test_smart_that_finished_early_says_so_and_the_replay_of_its_path_too(project: Path) -> None:
    first = mobster("test", "dismiss-paywall", "--scripted", "pro.yaml", "--model", "scripted", "--fresh")
    assert first.exit_code == 0, first.output
    said = (
        "    Smart finished after step 1 of 3: the expectations held "
        '(the model was blocked: step 2: "Upgrade to Pro" isn\'t on the screen once)'
    )
    assert said in first.output.splitlines()
    check = results(project, first)
    assert check["finished_early"] == {
        "after_step": 1,
        "of": 3,
        "by": "smart",
        "why": 'the model was blocked: step 2: "Upgrade to Pro" isn\'t on the screen once',
    }
    assert "Smart finished after step 1 of 3: the expectations held" in report_html(project, check)
    # The 1-step path it recorded replays at $0, and says it covers 1 of the 3 steps.
    again = mobster("test", "dismiss-paywall", "--scripted", "pro.yaml")
    assert again.exit_code == 0, again.output
    assert "    the recorded path covers 1 of 3 steps: the expectations held" in again.output.splitlines()
    replayed = results(project, again)
    assert replayed["finished_early"] == {"after_step": 1, "of": 3, "by": "replay", "why": None}
    assert "the recorded path covers 1 of 3 steps: the expectations held" in report_html(project, replayed)


def test_a_run_of_every_step_says_nothing_of_finishing_early(project: Path) -> None:
    full = mobster("test", "dismiss-paywall", "--scripted", "app.yaml", "--model", "scripted")
    assert full.exit_code == 0, full.output
    assert "finished" not in full.output
    assert "covers" not in full.output
    check = results(project, full)
    assert check["finished_early"] is None
    assert "finished-early" not in report_html(project, check)


def test_all_steps_makes_skipping_a_failure_naming_the_steps_not_performed(project: Path) -> None:
    mobster("test", "dismiss-paywall", "--scripted", "pro.yaml", "--model", "scripted")  # the 1-step path
    file = project / ".mobster" / "checks" / "dismiss-paywall.yaml"
    file.write_text(DISMISS.replace("steps:\n", "all_steps: true\nsteps:\n"))
    replayed = mobster("test", "dismiss-paywall", "--scripted", "pro.yaml")
    assert replayed.exit_code == 1, replayed.output
    assert (
        '    steps_skipped: the recorded path covers 1 of 3 steps: step 2 (Tap "Upgrade to Pro"), step 3 '
        '(Tap "Not now") were not performed, and the check asks for all its steps (all_steps: true)'
    ) in replayed.output.splitlines()
    check = results(project, replayed)
    assert (check["verdict"], check["class"]) == ("failed", "steps_skipped")
    assert check["finished_early"] == {"after_step": 1, "of": 3, "by": "replay", "why": None}
    fresh = mobster("test", "dismiss-paywall", "--scripted", "pro.yaml", "--model", "scripted", "--fresh", "--json")
    assert fresh.exit_code == 1, fresh.output
    (check,) = json.loads(fresh.stdout)["checks"]
    assert (check["verdict"], check["class"]) == ("failed", "steps_skipped")
    assert check["message"].startswith(
        'Smart finished after step 1 of 3 (the model was blocked: step 2: "Upgrade to Pro" isn\'t on the screen '
        'once): step 2 (Tap "Upgrade to Pro"), step 3 (Tap "Not now") were not performed'
    )
    assert check["path"]["why"] == "asked to record again"  # and nothing was stored: it failed
    # On the build where every step can run, the check passes with all_steps: true.
    whole = mobster("test", "dismiss-paywall", "--scripted", "app.yaml", "--model", "scripted", "--fresh")
    assert whole.exit_code == 0, whole.output


def test_a_heal_waiting_for_review_that_doesnt_fit_names_the_heal_file_and_mobster_test_heal(project: Path) -> None:
    assert mobster("test", "signup", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    healed = mobster("test", "signup", "--scripted", "renamed.yaml", "--model", "scripted")
    assert 'healed step 3: Tap "Continue" → Tap "Next"' in healed.output
    # A build where another step changed too: the breaker stops the heal of step 1, and says the
    # path replayed holds a heal that waits for review.
    both = (project / "renamed.yaml").read_text().replace("label: Sign up,", "label: Join,")
    (project / "both.yaml").write_text(both)
    back = mobster("test", "signup", "--scripted", "both.yaml", "--model", "scripted")
    assert back.exit_code == 1, back.output
    line = next(x for x in back.output.splitlines() if x.startswith("    heal_limit: "))
    assert line == (
        '    heal_limit: step 1 (Tap "Sign up") drifted: "Sign up" isn\'t on the screen; the path replayed holds a '
        'heal that waits for review in .mobster/checks/signup.heal.yaml (step 3, Tap "Continue" -> Tap "Next"), and '
        "it doesn't fit this build: healing step 1 would make 2 of 3 recorded steps healed; the most a heal may "
        "change is half of a check; review it with mobster test heal, then mobster test heal --accept signup.yaml "
        "or --reject signup.yaml (or run it with --fresh to record it again)"
    )
    check = results(project, back)
    assert check["fix"] == {
        "code": "review_heal",
        "args": {"heal_file": ".mobster/checks/signup.heal.yaml", "check": "signup.yaml"},
    }
    page = report_html(project, check)
    hint = "<p class=hint>A heal waits for review, and this build doesn't fit it: review it (<code>mobster test heal"
    assert hint in page
    assert "Too many recorded steps changed" not in page


def test_a_run_of_the_original_build_never_heals_over_the_rebuilds_waiting_heal(project: Path) -> None:
    assert mobster("test", "signup", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("test", "signup", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    heal_file = project / ".mobster" / "checks" / "signup.heal.yaml"
    waiting = heal_file.read_bytes()
    # The original build again, with a model: "Continue" is back, and the heal that waits is not healed over.
    back = mobster("test", "signup", "--scripted", "app.yaml", "--model", "scripted")
    assert back.exit_code == 1, back.output
    line = next(x for x in back.output.splitlines() if x.startswith("    drift: "))
    assert line == (
        '    drift: step 3 (Tap "Next") drifted: "Next" isn\'t on the screen; step 3 is a heal that waits for review '
        'in .mobster/checks/signup.heal.yaml (step 3, Tap "Continue" -> Tap "Next"), and this build doesn\'t fit '
        "it: a heal waiting for review is never healed over; settle it first: mobster test heal --accept "
        "signup.yaml keeps it, mobster test heal --reject signup.yaml brings the recorded step back (mobster test "
        "heal shows it)"
    )
    check = results(project, back)
    assert (check["class"], check["model_calls"], check["heals"]) == ("drift", 0, [])
    assert check["fix"] == {
        "code": "settle_heal",
        "args": {"heal_file": ".mobster/checks/signup.heal.yaml", "check": "signup.yaml"},
    }
    assert "<p class=hint>A heal waits for review at this step" in report_html(project, check)
    assert heal_file.read_bytes() == waiting  # the rebuild's heal still waits, as it was
    listing = mobster("test", "heal")
    assert 'step 3: Tap "Continue" → Tap "Next"' in listing.output
    assert "+ Button 'Next'" in listing.output  # never an empty before/after
    # Without a model (strict CI) the drift says the same: a heal waits, and how to settle it.
    strict = mobster("test", "signup", "--scripted", "app.yaml", "--no-heal", "--json")
    (check,) = json.loads(strict.stdout)["checks"]
    assert check["class"] == "drift"
    assert "is a heal that waits for review in .mobster/checks/signup.heal.yaml" in check["message"]
    assert check["fix"]["code"] == "settle_heal"
    assert heal_file.read_bytes() == waiting
    # The advice works: rejecting the heal brings the recorded steps back, and they pass on this build.
    assert mobster("test", "heal", "--reject", "signup.yaml").exit_code == 0
    assert mobster("test", "signup", "--scripted", "app.yaml").exit_code == 0


def test_a_heal_past_the_limit_in_one_run_still_says_to_record_again(project: Path) -> None:
    mobster("test", "signup", "--scripted", "app.yaml", "--model", "scripted")
    both = (project / "renamed.yaml").read_text().replace("label: Sign up,", "label: Join,")
    (project / "both.yaml").write_text(both)
    result = mobster("test", "signup", "--scripted", "both.yaml", "--model", "scripted", "--json")
    (check,) = json.loads(result.stdout)["checks"]
    assert (check["class"], check["fix"]["code"]) == ("heal_limit", "record_again")
    assert "waits for review" not in check["message"]


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_mobster_test_heal_takes_h_for_help(flag: str) -> None:
    result = mobster("test", "heal", flag)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].endswith(" test heal [OPTIONS] [CHECKS]...")
    assert "--accept CHECK" in result.output


def test_the_demo_prints_a_pytest_command_that_runs_this_pytest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It printed a bare `pytest`: the system's, without the plugin (0 items, exit 5).
    import os
    import subprocess
    import sys

    from mobster_cli._demo import run_demo

    assert run_demo(tmp_path / "demo") == 0
    demo_reports = sorted((tmp_path / "demo" / ".mobster" / "runs").glob("*/report.html"))
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Under pytest: "))
    command = line.removeprefix("Under pytest: ").split("   (", 1)[0]
    beside = Path(sys.executable).with_name("pytest")
    assert command.endswith(f" && {beside}" if beside.exists() else f" && {sys.executable} -m pytest")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_", "PYTEST_"))}
    env["PATH"] = "/usr/bin:/bin"  # no virtualenv on the PATH: the command names its own
    out = subprocess.run(
        ["/bin/sh", "-c", f"{command} -p no:cacheprovider -q"], capture_output=True, text=True, env=env,
        check=False, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout
    # Each of the demo's reports says how to run its check again on the phone it ran on.
    assert demo_reports
    for report in demo_reports:
        assert "<h2>Run it again</h2><pre><code>mobster test .mobster/checks/" in report.read_text()
        assert " --scripted apps/yourapp" in report.read_text()


def _columns(page: str) -> list[list[str]]:
    import re

    head = page.split("<thead>", 1)[1].split("</thead>", 1)[0]
    return [re.sub(r"<[^>]+>", " ", th).split() for th in re.findall(r"<th scope=col>(.*?)</th>", head)][1:]


def test_the_suite_page_has_a_column_per_device_and_each_report_a_run_it_again_that_runs(project: Path) -> None:
    import re
    import shlex

    (project / ".mobster" / "checks" / "signup.yaml").unlink()
    (project / ".mobster" / "checks" / "a-paywall.yaml").write_text(DISMISS.replace("Dismiss", "Also dismiss"))
    (project / "phone-b.yaml").write_text((project / "app.yaml").read_text())
    both = ("--scripted", "app.yaml", "--scripted", "phone-b.yaml", "--each-device", "--model", "scripted")
    result = mobster("test", *both, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    folder = project / ".mobster" / "test-results" / doc["suite_id"]
    page = (folder / "index.html").read_text()
    # Two phones of one model are two columns, each with the pool's label and the device's name.
    assert _columns(page) == [
        ["app", "Scripted", "iPhone,", "iOS", "26.4"],
        ["phone-b", "Scripted", "iPhone,", "iOS", "26.4"],
    ]
    # Rows in the order of the check files, each with one run a column.
    rows = re.findall(r"<tr><th scope=row>.*?<div class=file>([^<]+)</div></th>(.*?)</tr>", page)
    assert [file for file, _cells in rows] == [".mobster/checks/a-paywall.yaml", ".mobster/checks/dismiss-paywall.yaml"]
    assert all(cells.count("<td>") == 2 and cells.count('class="cell') == 2 for _file, cells in rows)
    # Each report's "Run it again" names the device it ran on, and the command runs (it exited 3).
    for check in doc["checks"]:
        report = report_html(project, check)
        command = re.search(r"<h2>Run it again</h2><pre><code>([^<]+)</code>", report)
        assert command is not None
        script = {"app": "app.yaml", "phone-b": "phone-b.yaml"}[check["device_label"]]
        words = shlex.split(command.group(1).replace("&#x27;", "'").replace("&quot;", '"'))
        assert words == ["mobster", "test", check["file"], "--scripted", script]
        again = mobster(*words[1:], "--json")
        assert again.exit_code == 0, again.output
        (ran,) = json.loads(again.stdout)["checks"]
        assert (ran["name"], ran["mode"], ran["model_calls"]) == (check["name"], "replay", 0)


def test_the_suite_page_orders_rows_by_file_and_columns_by_label() -> None:
    from mobster_report._suite_page import render_suite

    def run(file: str, label: str, seconds: float) -> dict[str, object]:
        device = {"name": "iPhone 17", "kind": "simulator", "ios": "26.4"}
        return {"name": file, "file": file, "device": device, "device_label": label, "verdict": "passed",
                "run_dir": f".mobster/runs/{file}-{label}-{seconds}", "seconds": seconds, "mode": "replay"}  # fmt: skip

    checks = [
        run("b.yaml", "sim-10", 1),
        run("a.yaml", "sim-2", 2),
        run("b.yaml", "sim-2", 3),
        run("a.yaml", "sim-2", 4),
    ]
    page = render_suite({"suite_id": "s", "checks": checks})
    assert [c[0] for c in _columns(page)] == ["sim-2", "sim-10"]
    body = page.split("<tbody>", 1)[1]
    assert body.index(">a.yaml</div>") < body.index(">b.yaml</div>")
    a_row = body.split(">a.yaml</div>", 1)[1].split("</tr>", 1)[0]
    assert a_row.index("2.00 s") < a_row.index("4.00 s")  # the attempts in the order the results list them
    assert "<td class=none>—</td>" in a_row  # a.yaml never ran on sim-10


def test_the_heal_review_shows_the_screen_as_it_was_recorded(project: Path) -> None:
    import re
    import shutil
    import stat

    from mobster_report._recorded import MAX_RECORDED_BYTES

    first = mobster("test", "signup", "--scripted", "app.yaml", "--model", "scripted", "--json")
    recorded = json.loads(first.stdout)["checks"][0]
    path = recorded["path"]
    folder = project / ".mobster" / "cache" / "screens" / f"{path['identity']}-{path['env']}"
    # One thumbnail a recorded step, private, small, a PNG or a JPEG, written as the path was stored.
    names = sorted(p.name for p in folder.iterdir())
    assert [re.sub(r"\.(png|jpg)$", "", n) for n in names] == ["step-001.thumb", "step-002.thumb", "step-003.thumb"]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for file in folder.iterdir():
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
        data = file.read_bytes()
        assert len(data) <= MAX_RECORDED_BYTES
        assert data.startswith((b"\x89PNG", b"\xff\xd8"))
    third = next(folder.glob("step-003.thumb.*"))
    healed = mobster("test", "signup", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    check = json.loads(healed.stdout)["checks"][0]
    assert check["heals"]
    # The listing names it beside the frames before and after the heal; the report shows it.
    listing = mobster("test", "heal")
    shown = f"recorded:     {third.relative_to(project)}"
    assert shown in [line.strip() for line in listing.output.splitlines()]
    heals = report_html(project, check).split("<section id=heals>", 1)[1].split("</section>", 1)[0]
    figures = re.findall(r"<figure class=\"shot (\w+)\">(.*?)</figure>", heals)
    assert [(size, '<img src="data:image/' in body, "As recorded" in body) for size, body in figures][:2] == [
        ("thumb", True, True),
        ("view", True, False),
    ]
    # On a machine that didn't record the path (a committed path), the review says so.
    shutil.rmtree(folder)
    assert "recorded:     not kept on this machine" in mobster("test", "heal").output
