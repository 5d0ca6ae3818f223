"""`mobster inspect` reaches any screen: `--link`, `--after CHECK [--step N]`, and the taps of `--watch`.

On the scripted phone (the fake clock), then through the fake WebDriverAgent and the fake Appium
(real sockets, the real clock with short waits). Every action an inspection sends goes through a
live session: judged by the safety rules, journaled first (``_inspect`` Rules 7-10).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mobster_cli._demo import PAYWALL, SIGNUP
from mobster_cli._init import Found, init_project
from mobster_cli.main import Runtime, cli
from mobster_core import Action, AppInfo, Clock, DeviceInfo, DeviceKind, Element, LaunchOptions, Screen, load_check
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing.appium import FakeAppium
from mobster_drivers.testing.wda import FakeWda
from tests.core.helpers import LostSecondTap
from tests.real_clock import QUICK_OPTIONS
from tests.samples import ROOT

APP = "com.example.yourapp"
#: A watch that never reads its ``quit`` fails the test instead of blocking the run (``no_hang``).
HANG_SECONDS = 60
pytestmark = pytest.mark.usefixtures("no_hang")


@pytest.fixture
def project(project: Path) -> Path:
    """The sample app as ``app.yaml`` (the README's name for it) and the demo's two checks."""
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / ".mobster" / "checks" / "paywall.yaml").write_text(PAYWALL)
    return project


def mobster(*args: str, stdin: str | bytes | None = None) -> Result:
    """``mobster ARGS`` on the fake clock, ``stdin`` as its input."""
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False, obj=Runtime(clock, clock.run))


def recorded(*device: str) -> None:
    """The demo's checks recorded once with the scripted model, as ``mobster test --model scripted`` does."""
    result = mobster("test", *device, "--model", "scripted")
    assert result.exit_code == 0, result.output


def runs(project: Path) -> set[Path]:
    """The project's run folders."""
    return set((project / ".mobster" / "runs").glob("*"))


def journal(project: Path, before: set[Path] | None = None) -> list[dict[str, Any]]:
    """Every entry of the journals of the project's runs (those not in ``before``), each run's in order."""
    entries = []
    for folder in sorted(runs(project) - (before or set())):
        file = folder / "journal.jsonl"
        entries += [json.loads(line) for line in file.read_text().splitlines()] if file.exists() else []
    return entries


def sent(project: Path) -> list[tuple[str, str | None]]:
    """What the inspection's session sent: each live action's op and its target's label (or its text)."""
    done = {e["key"] for e in journal(project) if e.get("outcome") == "ok"}
    return [
        (e["op"], (e["target"] or {}).get("label") or e.get("text"))
        for e in journal(project)
        if e["key"].startswith("live-") and "outcome" not in e and e["key"] in done
    ]


def one_line(result: Result, said: str) -> None:
    assert result.exit_code == 3, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"mobster: {said}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# -- the README's lines, exactly as written -------------------------------------------------------


def readme_line(starting: str) -> list[str]:
    """The README line that starts so, as its arguments (the comment and the ``mobster`` left out)."""
    lines = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith(starting)]
    assert len(lines) == 1, lines
    words = shlex.split(lines[0], comments=True)
    assert words[0] == "mobster"
    return words[1:]


def test_the_readmes_link_line_finds_continue(project: Path) -> None:
    args = readme_line("mobster inspect --scripted app.yaml")
    result = mobster(*args)
    assert result.exit_code == 0, result.output
    assert '"Continue" is on the screen once' in result.output
    assert '    step:   Tap "Continue"' in result.output


def test_the_readmes_after_line_runs_in_a_starter_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `mobster init && mobster test` (the README's first line), then its inspect line, word for word.
    folder = tmp_path / "shop"
    init_project(folder, Found())
    monkeypatch.chdir(folder)
    first = mobster("test")
    assert first.exit_code == 0, first.output
    result = mobster(*readme_line("mobster inspect --after"))
    assert result.exit_code == 0, result.output
    assert "replayed .mobster/checks/signup.yaml's recorded path at $0 (steps 1 to 2 of 3):" in result.output
    assert '"Continue" is on the screen once' in result.output


def test_the_python_examples_of_the_page_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/inspect.md's ```python blocks, in order, in one namespace, in an empty folder.
    monkeypatch.chdir(tmp_path)
    page = (ROOT / "docs" / "inspect.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```$", page, re.DOTALL | re.MULTILINE)
    assert len(blocks) == 2
    namespace: dict[str, object] = {"__name__": "inspect_md"}
    for number, code in enumerate(blocks, 1):
        exec(compile(code, f"docs/inspect.md, block {number}", "exec"), namespace)


# -- --after CHECK [--step N] ----------------------------------------------------------------------


def test_after_a_check_finds_the_paywall_button(project: Path) -> None:
    recorded("--scripted", "app.yaml")
    before = runs(project)
    result = mobster("inspect", "--scripted", "app.yaml", "--after", "paywall", "--select", "Subscribe")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:3] == [
        "replayed .mobster/checks/paywall.yaml's recorded path at $0 (steps 1 to 2 of 2):",
        '  1 Tap "Settings"',
        '  2 Tap "Upgrade to Pro"',
    ]
    assert lines[3] == f"{APP} on Scripted iPhone, iOS 26.4: 402 x 874 pt"
    assert '"Subscribe" is on the screen once' in lines
    assert '    step:   Tap "Subscribe"' in lines
    # Replayed, never recorded again or healed: the path and the check's files are as they were.
    assert not (project / ".mobster" / "checks" / "paywall.heal.yaml").exists()
    ops = [(e["key"], e["op"]) for e in journal(project, before) if "outcome" not in e]
    assert ops == [("launch", "LAUNCH"), ("step-1", "TAP"), ("step-2", "TAP")]  # journaled as a run's are


def test_after_in_json_says_how_the_screen_was_reached(project: Path) -> None:
    recorded("--scripted", "app.yaml")
    result = mobster("inspect", "--scripted", "app.yaml", "--after", "signup", "--step", "2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["link"] is None
    assert doc["after"] == {
        "check": ".mobster/checks/signup.yaml",
        "steps": 3,
        "until": 2,
        "healed": False,
        "replayed": [
            {"index": 1, "text": 'Tap "Sign up"', "source": "replay", "reason": None},
            {"index": 2, "text": 'Type "ada@example.com" into "Email"', "source": "replay", "reason": None},
        ],
        "stopped": None,
    }
    email = next(e for e in doc["elements"] if e["label"] == "Email")
    assert email["value"] == "ada@example.com"  # the screen after step 2, before step 3


def test_a_drift_says_which_step_and_inspects_the_screen_it_drifted_on(project: Path) -> None:
    recorded("--scripted", "app.yaml")
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())  # Continue is Next
    result = mobster("inspect", "--scripted", "renamed.yaml", "--after", "signup")
    assert result.exit_code == 1, result.output  # mobster test --no-heal fails the check there
    assert result.stderr.splitlines() == [
        (
            'mobster: --after signup: step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen '
            "(healing is off); the screen it drifted on is below"
        )
    ]
    out = result.stdout.splitlines()
    assert (
        out[0] == "replayed .mobster/checks/signup.yaml's recorded path at $0 (steps 1 to 2 of 3 ran, then it stopped):"
    )
    assert out[3] == '  3 Tap "Continue"  drifted: "Continue" isn\'t on the screen'
    assert '✓ Button  "Next"  /0/3 at 24,297 354x52' in out
    as_json = mobster("inspect", "--scripted", "renamed.yaml", "--after", "signup", "--json")
    assert as_json.exit_code == 1
    stopped = json.loads(as_json.stdout)["after"]["stopped"]
    assert {k: stopped[k] for k in ("step", "verdict", "class")} == {"step": 3, "verdict": "failed", "class": "drift"}
    assert not (project / ".mobster" / "checks" / "signup.heal.yaml").exists()  # never healed


def test_the_replay_never_sends_what_a_run_would_refuse(project: Path) -> None:
    # A path edited to subscribe: the replay refuses the purchase on a simulator, as a run's replay does.
    recorded("--scripted", "app.yaml")
    identity = load_check(project / ".mobster" / "checks" / "paywall.yaml").identity
    [file] = (project / ".mobster" / "cache" / "replay").glob(f"{identity}-*.json")
    doc = json.loads(file.read_text())
    signature = [["Button", "Not now"], ["Button", "Restore Purchases"], ["Button", "Subscribe"]]
    signature += [["StaticText", "Go Pro"], ["StaticText", "Unlimited checks"]]
    target = {"label": "Subscribe", "role": "Button", "id": "/0/2", "frame": [0.06, 0.26, 0.88, 0.06]}
    subscribe = {
        "target": {**target, "count": 1, "nth": 0},
        "screen": {"hash": "282652d2e4abef95", "signature": signature},
    }
    doc["steps"].append({**doc["steps"][-1], **subscribe, "commit": None})  # no commit recorded: today's label counts
    file.write_text(json.dumps(doc))
    before = runs(project)
    result = mobster("inspect", "--scripted", "app.yaml", "--after", "paywall")
    assert result.exit_code == 3, result.output
    assert result.stderr.splitlines() == [
        (
            'mobster: --after paywall: step 3 (Tap "Subscribe") was refused: a purchase is refused on a simulator; the '
            "screen the replay stopped on is below"
        )
    ]
    assert '✓ Button  "Subscribe"' in result.stdout
    refused = [e for e in journal(project, before) if e["key"] == "step-3"]
    assert [e.get("outcome") for e in refused] == ["refused"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--step", "2"], "--step needs --after CHECK: the check whose recorded path it stops in"),
        (["--after", "signup", "--step", "0"], ("--step 0: the recorded path of .mobster/checks/signup.yaml has 3 "
         "steps: give --step 1 to 3 (mobster paths show signup lists them)")),
        (["--after", "signup", "--step", "4"], ("--step 4: the recorded path of .mobster/checks/signup.yaml has 3 "
         "steps: give --step 1 to 3")),
        (["--after", "signup", "--step", "two"], "--step 'two': give the number of a step of the recorded path"),
        (["--after", "signup", "--step", "-1"], "--step '-1': give the number of a step of the recorded path"),
        (["--after", "nope"], "no check 'nope': give a path, or a name in .mobster/checks/"),
        (["--after", " "], "--after needs the check to replay, such as --after signup"),
        (["--after", "signup", "--app", APP, "--launch"], "--after launches the check's app as its run does"),
        (["--link", " "], "--link needs the URL to open, such as --link yourapp://signup"),
        (["--link", "nowhere://x"], ("--link nowhere://x: step 1 (Open link \"nowhere://x\") couldn't be sent: "
         "OPEN_URL: no app opens 'nowhere://x' (links: yourapp://signup)")),
    ],
)  # fmt: skip
def test_usage_problems_are_one_line_and_nothing_is_sent(project: Path, args: list[str], said: str) -> None:
    recorded("--scripted", "app.yaml")
    before = runs(project)
    one_line(mobster("inspect", "--scripted", "app.yaml", *args), said)
    assert [e for e in journal(project, before) if e.get("outcome") == "ok"] == []


def test_a_check_with_no_path_here_says_why_as_mobster_test_would(project: Path) -> None:
    before = runs(project)
    one_line(
        mobster("inspect", "--scripted", "app.yaml", "--after", "paywall"),
        "--after paywall: .mobster/checks/paywall.yaml has no recorded path for this device and app to replay "
        "(no recorded path yet): record it first with mobster test paywall",
    )
    assert journal(project, before) == []  # nothing launched, nothing sent
    recorded("--scripted", "app.yaml")
    newer = sample_path("yourapp").read_text().replace('version: "1.0"', 'version: "1.1"')
    (project / "app-1.1.yaml").write_text(newer.replace('build: "1"', 'build: "2"'))
    before = runs(project)
    one_line(
        mobster("inspect", "--scripted", "app-1.1.yaml", "--after", "paywall"),
        "--after paywall: .mobster/checks/paywall.yaml has no recorded path for this device and app to replay "
        "(the app changed (recorded on 1.0 (1), this is 1.1 (2)))",
    )
    assert journal(project, before) == []


def test_a_check_that_cant_be_read_is_its_one_line(project: Path) -> None:
    (project / ".mobster" / "checks" / "broken.yaml").write_text("version: 1\nname: x\nstpes: []\n")
    result = mobster("inspect", "--scripted", "app.yaml", "--after", "broken")
    assert result.exit_code == 3
    assert result.stderr.startswith(f"mobster: {project / '.mobster' / 'checks' / 'broken.yaml'}:3: stpes: ")
    assert "did you mean 'steps'?" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_healed_path_waiting_for_review_is_the_one_replayed(project: Path) -> None:
    recorded("--scripted", "app.yaml")
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert healed.exit_code == 0, healed.output
    result = mobster("inspect", "--scripted", "renamed.yaml", "--after", "signup", "--select", "Welcome aboard")
    assert result.exit_code == 0, result.output
    assert "(steps 1 to 3 of 3; the healed path, whose heal waits for review):" in result.output
    assert '  3 Tap "Next"' in result.output
    assert '"Welcome aboard" is on the screen once' in result.output


def test_a_secret_of_the_check_never_reaches_the_output_nor_a_file(project: Path) -> None:
    # A check that only launches, its link naming a secret the phone's app doesn't open: the launch fails.
    (project / ".mobster" / "checks" / "linked.yaml").write_text(
        "version: 1\nname: Opens in\napp: {bundle: com.example.yourapp}\n"
        'launch: {url: "yourapp://in?t=${TOKEN}"}\nexpect:\n  - text: Welcome\n'
    )
    (project / ".env").write_text("TOKEN=s3cr3t-tok\n")
    result = mobster("inspect", "--scripted", "app.yaml", "--env-file", ".env", "--after", "linked", "--json")
    assert result.exit_code == 3, result.output
    assert "opens no link 'yourapp://in?t=${TOKEN}'" in result.stderr
    assert "s3cr3t-tok" not in result.output
    for file in (project / ".mobster").rglob("*"):
        assert not file.is_file() or b"s3cr3t-tok" not in file.read_bytes(), file
    text = mobster("inspect", "--scripted", "app.yaml", "--env-file", ".env", "--after", "linked")
    assert "tried to launch .mobster/checks/linked.yaml's app as its run does (it has no steps)" in text.stdout


# -- --link URL ------------------------------------------------------------------------------------


def test_a_link_is_opened_as_a_step_would_and_journaled(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml", "--link", "yourapp://signup", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["app"], doc["link"], doc["after"]) == (APP, "yourapp://signup", None)
    assert "Create your account" in [e["label"] for e in doc["elements"]]
    assert sent(project) == [("OPEN_URL", "yourapp://signup")]


def test_a_link_after_the_launch_and_after_a_replay(project: Path) -> None:
    launched = mobster("inspect", "--scripted", "app.yaml", "--app", APP, "--launch", "--link", "yourapp://signup")
    assert launched.exit_code == 0, launched.output
    assert "opened the link yourapp://signup" in launched.output
    recorded("--scripted", "app.yaml")
    after = mobster("inspect", "--scripted", "app.yaml", "--after", "paywall", "--link", "yourapp://signup")
    assert after.exit_code == 0, after.output
    assert after.output.index("replayed ") < after.output.index("opened the link") < after.output.index(f"{APP} on")
    assert '✓ StaticText  "Create your account"' in after.output


def test_a_link_naming_a_secret_is_opened_with_its_value_and_kept_as_its_reference(project: Path) -> None:
    script = (
        sample_path("yourapp")
        .read_text()
        .replace('{"yourapp://signup": signup}', '{"yourapp://signup": signup, "yourapp://in?t=s3cr3t-tok": done}')
    )
    (project / "app.yaml").write_text(script)
    (project / ".env").write_text("TOKEN=s3cr3t-tok\n")
    link = "yourapp://in?t=${TOKEN}"
    result = mobster("inspect", "--scripted", "app.yaml", "--env-file", ".env", "--link", link)
    assert result.exit_code == 0, result.output
    assert '✓ StaticText  "Welcome aboard"' in result.output  # the phone got the value
    assert "s3cr3t-tok" not in result.output
    assert sent(project) == [("OPEN_URL", link)]
    for file in (project / ".mobster").rglob("*"):
        assert not file.is_file() or b"s3cr3t-tok" not in file.read_bytes(), file


# -- the taps of --watch -----------------------------------------------------------------------------


def watch(*args: str, commands: str | bytes) -> Result:
    return mobster("inspect", "--scripted", "app.yaml", *args, "--watch", stdin=commands)


def test_watch_taps_by_label_and_by_row_and_reads_again(project: Path) -> None:
    result = watch("--app", APP, "--launch", commands="tap Settings\ntap 4\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output.splitlines()
    assert '3 ✓ Button  "Settings"  /0/2 at 24,227 354x52' in out  # numbered rows under --watch
    assert 'tapped: Tap "Settings"' in out
    assert '4 ✓ Button  "Upgrade to Pro"  /0/3 at 24,297 354x52' in out
    assert 'tapped: Tap "Upgrade to Pro"' in out
    assert '3 ✓ Button  "Subscribe"  /0/2 at 24,227 354x52' in out
    assert out.index('tapped: Tap "Settings"') < out.index('tapped: Tap "Upgrade to Pro"')
    assert sent(project) == [("TAP", "Settings"), ("TAP", "Upgrade to Pro")]


def test_a_purchase_tapped_on_a_simulator_is_refused_saying_so(project: Path) -> None:
    recorded("--scripted", "app.yaml")
    result = watch("--after", "paywall", commands='tap Subscribe\ntap "Restore Purchases"\nquit\n')
    assert result.exit_code == 0, result.output
    assert 'Tap "Subscribe" was refused: a purchase is refused on a simulator; it was not sent' in result.output
    assert 'tapped: Tap "Restore Purchases"' in result.output  # not a purchase: it is sent
    lives = [e for e in journal(project) if e["key"].startswith("live-")]
    assert [(e["key"], e.get("outcome")) for e in lives if e.get("outcome") == "refused"] == [("live-1", "refused")]
    assert sent(project) == [("TAP", "Restore Purchases")]


class StillPhone:
    """A phone on one screen whatever is tapped, that counts the actions it is sent."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.actions: list[Action] = []

    async def info(self) -> DeviceInfo:
        return DeviceInfo("Still iPhone", "26.4", DeviceKind.SIMULATOR)

    async def app_info(self, bundle: str) -> AppInfo:
        return AppInfo(bundle=bundle, version="1.0", build="1")

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        return None

    async def read(self) -> Screen:
        return self.screen

    async def act(self, action: Action) -> None:
        self.actions.append(action)


STILL: list[StillPhone] = []
DUPLICATES = Screen(
    APP,
    (
        Element("StaticText", "Buy", frame=(0.1, 0.1, 0.5, 0.05), path="/0/0"),
        Element("Button", "Buy", frame=(0.1, 0.2, 0.5, 0.05), path="/0/1"),
        Element("Button", "Gone", frame=(0.1, 0.3, 0.5, 0.05), visible=False, path="/0/2"),
        Element("Button", "7", frame=(0.1, 0.4, 0.5, 0.05), path="/0/3"),
        Element("Button", "Close", frame=(0.1, 0.5, 0.5, 0.05), path="/0/4"),
    ),
)


def still_phone(_arg: str, *, clock: Clock) -> StillPhone:
    phone = StillPhone(DUPLICATES)
    STILL.append(phone)
    return phone


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("tap 9", "there is no row 9: the screen has rows 1 to 5; nothing was sent"),
        ("tap #0", "there is no row 0: the screen has rows 1 to 5; nothing was sent"),
        ("tap 3", ('row 3 (Button "Gone") is not shown: not visible (the phone reports it not visible); a tap can\'t '
         "reach it, nothing was sent")),
        ("tap Gone", '"Gone" is in the tree but not shown: a check can\'t see it or act on it'),
        ("tap Buy", '"Buy" is on the screen 2 times: tap one by its row (1 (StaticText), 2 (Button))'),
        ("tap Clsoe", '"Clsoe" isn\'t on the screen; did you mean "Close"?; nothing was sent'),
        ("tap", "tap what? type tap LABEL or tap ROW"),
        ('tap ""', "tap what? type tap LABEL or tap ROW"),
        ("tpa Close", "'tpa Close' is no command: type tap LABEL or tap ROW"),
        ("read now", "'read now' is no command"),
        ("tap " + "x" * 5000, "a command is one line of at most 4,096 characters"),
    ],
)  # fmt: skip
def test_a_command_that_names_no_shown_element_sends_nothing(project: Path, command: str, said: str) -> None:
    STILL.clear()
    args = ("inspect", "--driver", "tests.cli.test_inspect_reach:still_phone", "x", "--watch")
    result = mobster(*args, stdin=f"{command}\nquit\n")
    assert result.exit_code == 0, result.output
    assert any(line.startswith(said) for line in result.output.splitlines()), result.output
    assert STILL[0].actions == []
    assert not (project / ".mobster" / "runs").exists() or sent(project) == []


def test_quotes_make_digits_a_label_and_a_row_is_a_number(project: Path) -> None:
    STILL.clear()
    args = ("inspect", "--driver", "tests.cli.test_inspect_reach:still_phone", "x", "--watch")
    result = mobster(*args, stdin='tap "7"\ntap 5\nquit\n')
    assert result.exit_code == 0, result.output
    assert [a.element.label for a in STILL[0].actions if a.element is not None] == ["7", "Close"]


def test_bytes_that_arent_utf8_are_read_as_a_replacement(project: Path) -> None:
    STILL.clear()
    args = ("inspect", "--driver", "tests.cli.test_inspect_reach:still_phone", "x", "--watch")
    result = mobster(*args, stdin=b"tap Cl\xffose\ntap Close\nquit\n")
    assert result.exit_code == 0, result.output
    assert '"Cl\ufffdose" isn\'t on the screen' in result.output
    assert [a.element.label for a in STILL[0].actions if a.element is not None] == ["Close"]


def test_a_tap_on_a_screen_that_changed_since_it_was_printed_is_not_sent(project: Path) -> None:
    # "Go" is gone 0.1 s after the screen shows: printed at once, no longer there once a settled read is taken.
    settings = "        - {role: Button, label: Settings, tap: settings}\n"
    script = (
        sample_path("yourapp")
        .read_text()
        .replace(settings, settings + "        - {role: Button, label: Go, until: 0.1}\n")
    )
    (project / "app.yaml").write_text(script)
    result = watch("--app", APP, "--launch", commands="tap Go\nquit\n")
    assert result.exit_code == 0, result.output
    assert "the screen changed since it was printed: nothing was sent; type read to print it again" in result.output
    assert sent(project) == []


def test_watch_under_json_prints_documents_and_says_the_rest_on_stderr(project: Path) -> None:
    result = watch("--app", APP, "--launch", "--json", commands="tap Settings\nhelp\nquit\n")
    assert result.exit_code == 0, result.output
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [next(e["label"] for e in d["elements"]) for d in docs] == ["Welcome", "Settings"]
    assert result.stderr.splitlines() == [
        'tapped: Tap "Settings"',
        "type tap LABEL or tap ROW to tap an element, read to read the screen again, help, or quit",
    ]


def lost_second_tap(arg: str, *, clock: Clock) -> LostSecondTap:
    """The scripted phone whose second action's reply never comes (``tests.core.helpers``)."""
    return LostSecondTap(AppScript.from_text(Path(arg).read_text(), arg), clock=clock)


def test_every_document_of_a_watch_says_how_it_began_and_the_text_says_it_once(project: Path) -> None:
    recorded("--scripted", "app.yaml")
    as_json = watch("--after", "paywall", "--json", commands='tap "Not now"\nquit\n')
    assert as_json.exit_code == 0, as_json.output
    docs = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert len(docs) == 2
    assert docs[0]["after"] == docs[1]["after"]
    assert docs[1]["after"]["replayed"][-1]["text"] == 'Tap "Upgrade to Pro"'
    text = watch("--after", "paywall", commands='tap "Not now"\nquit\n')
    assert text.output.count("replayed .mobster/checks/paywall.yaml's recorded path") == 1


def test_an_unknown_outcome_ends_the_taps(project: Path) -> None:
    args = ("inspect", "--driver", "tests.cli.test_inspect_reach:lost_second_tap", "app.yaml", "--app", APP, "--launch")
    result = mobster(*args, "--watch", stdin="tap Settings\ntap Back\ntap Settings\nquit\n")
    assert result.exit_code == 0, result.output
    assert "the outcome is unknown" in result.output
    assert "Nothing more is sent in this inspection: look at the app, then inspect again" in result.output
    assert sent(project) == [("TAP", "Settings")]


def test_commands_from_a_real_pipe_are_read_as_they_come(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A terminal or a pipe is read when the loop's selector says a line is ready (``_watch`` Rule 3),
    # here a line split across two writes; the command runs in-process (CliRunner would replace stdin).
    read, write = os.pipe()
    os.write(write, b"tap Settings\nqu")
    os.write(write, b"it\n")
    clock = FakeClock()
    args = ["inspect", "--scripted", "app.yaml", "--app", APP, "--launch", "--watch"]
    with os.fdopen(read, "r") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        with pytest.raises(SystemExit) as ended:
            cli.main(args, standalone_mode=False, obj=Runtime(clock, clock.run))
    os.close(write)
    assert ended.value.code == 0
    assert 'tapped: Tap "Settings"' in capsys.readouterr().out
    assert sent(project) == [("TAP", "Settings")]


# -- through the fake WebDriverAgent and the fake Appium (real sockets, real clock) -----------------


@pytest.fixture
def wda(project: Path, private_locks: Path) -> Iterator[FakeWda]:
    with FakeWda(sample_path("yourapp"), lifetime=120) as fake:
        yield fake


def real(*args: str, stdin: str | None = None) -> Result:
    """``mobster ARGS`` on the real clock with short waits (a fake server's phone is on real time)."""
    timing = QUICK_OPTIONS if args[:1] in (("test",), ("inspect",)) else ()
    return CliRunner().invoke(cli, [*args, *timing], input=stdin, catch_exceptions=False)


def test_through_the_fake_wda(project: Path, wda: FakeWda) -> None:
    first = real("test", "--wda", wda.url, "--model", "scripted")
    assert first.exit_code == 0, first.output
    after = real("inspect", "--wda", wda.url, "--after", "paywall", "--select", "Subscribe")
    assert after.exit_code == 0, after.output
    assert '"Subscribe" is on the screen once' in after.output
    assert "the evidence read (read_evidence)" in after.output
    step = real("inspect", "--wda", wda.url, "--after", "signup", "--step", "2", "--select", "Continue")
    assert step.exit_code == 0, step.output
    assert '"Continue" is on the screen once' in step.output
    linked = real("inspect", "--wda", wda.url, "--link", "yourapp://signup", "--select", "Email", "--json")
    assert linked.exit_code == 0, linked.output
    assert json.loads(linked.stdout)["select"]["found"] == "unique"
    tapped = real(
        "inspect", "--wda", wda.url, "--after", "paywall", "--watch", stdin="tap Subscribe\ntap Not now\nquit\n"
    )
    assert tapped.exit_code == 0, tapped.output
    assert 'Tap "Subscribe" was refused: a purchase is refused on a simulator; it was not sent' in tapped.output
    assert 'tapped: Tap "Not now"' in tapped.output
    assert '✓ Button  "Upgrade to Pro"' in tapped.output  # the settings screen, read again after the tap
    labels = [a.element.label for a in wda.phone.actions if a.element is not None]
    assert "Subscribe" not in labels
    assert labels[-1] == "Not now"


def test_a_drift_through_the_fake_wda(project: Path, wda: FakeWda) -> None:
    first = real("test", "--wda", wda.url, "--model", "scripted")
    assert first.exit_code == 0, first.output
    with FakeWda(sample_path("yourapp-renamed"), lifetime=120) as renamed:
        result = real("inspect", "--wda", renamed.url, "--after", "signup")
    assert result.exit_code == 1, result.output
    assert 'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen (healing is off)' in result.stderr
    assert '"Next"' in result.stdout


def test_through_a_simulator_on_the_fake_simctl(project: Path, wda: FakeWda, monkeypatch: pytest.MonkeyPatch) -> None:
    # The simulator's driver hosts the WDA device: --after launches through simctl as the check's run does.
    import mobster_drivers.devices.simulator._simctl as simctl_module
    from mobster_drivers.testing.xcrun import FakeSimctl

    fake = FakeSimctl(project / "sim", wda=wda)
    monkeypatch.setattr(simctl_module, "XcrunSimctl", lambda: fake)
    monkeypatch.setenv("MOBSTER_WDA_PORT", str(wda.port))
    first = real("test", "--sim", "iPhone 17 Pro", "--model", "scripted")
    assert first.exit_code == 0, first.output
    before = len(fake.calls)
    after = real("inspect", "--sim", "iPhone 17 Pro", "--after", "paywall", "--select", "Subscribe")
    assert after.exit_code == 0, after.output
    assert '"Subscribe" is on the screen once' in after.output
    assert [c.command for c in fake.calls[before:] if c.command in ("install", "launch")] == ["install", "launch"]
    linked = real("inspect", "--sim", "iPhone 17 Pro", "--link", "yourapp://signup", "--select", "Continue")
    assert linked.exit_code == 0, linked.output
    assert '"Continue" is on the screen once' in linked.output


def appium_phone() -> AppScript:
    return AppScript.from_text(sample_path("yourapp").read_text(), "yourapp.yaml")


def test_through_the_fake_appium(project: Path, private_locks: Path) -> None:
    with FakeAppium(appium_phone(), lifetime=120) as fake:
        first = real("test", "--appium", fake.url, "--model", "scripted")
        assert first.exit_code == 0, first.output
        after = real("inspect", "--appium", fake.url, "--after", "paywall", "--select", "Subscribe")
        assert after.exit_code == 0, after.output
        assert '"Subscribe" is on the screen once' in after.output
        step = real("inspect", "--appium", fake.url, "--after", "signup", "--step", "1", "--select", "Email")
        assert step.exit_code == 0, step.output
        assert '"Email" is on the screen once' in step.output
        linked = real("inspect", "--appium", fake.url, "--link", "yourapp://signup", "--select", "Continue")
        assert linked.exit_code == 0, linked.output
        assert '"Continue" is on the screen once' in linked.output
        tapped = real(
            "inspect", "--appium", fake.url, "--after", "paywall", "--watch", stdin="tap Subscribe\ntap 5\nquit\n"
        )
    assert tapped.exit_code == 0, tapped.output
    assert 'Tap "Subscribe" was refused: a purchase is refused on a simulator; it was not sent' in tapped.output
    assert 'tapped: Tap "Not now"' in tapped.output
