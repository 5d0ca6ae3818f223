"""`mobster inspect`: the scripted phone's screens, real WDA trees served by the fake, hostile labels, --watch."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core import Action, AppInfo, Clock, DeviceInfo, DeviceKind, Element, LaunchOptions, Op, Screen
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.testing.wda import FakeWda
from tests.wda_trees import NAMES, tree_path, truth

APP = "com.example.yourapp"
ELEMENT_KEYS = {
    "path", "role", "label", "value", "identifier", "placeholder", "frame", "enabled", "visible", "selected",
    "shown", "hidden", "why",
}  # fmt: skip


@pytest.fixture
def project(project: Path) -> Path:
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    return project


def mobster(*args: str, run: Any = None) -> Result:
    clock = FakeClock()
    runtime = Runtime(clock, clock.run if run is None else run(clock))
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=runtime)


def test_the_scripted_phones_home_screen(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "com.apple.springboard on Scripted iPhone, iOS 26.4: 402 x 874 pt"
    assert lines[1].startswith("1 elements, 1 shown; screen ")
    assert lines[2] == '✓ Button  "YourApp"  id=com.example.yourapp  /0/0 at 20,70 80x84'


def test_launch_reads_the_app_and_select_gives_what_a_check_writes(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml", "--app", APP, "--launch", "--select", "Sign up")
    assert result.exit_code == 0, result.output
    assert '✓ Button  "Sign up"  /0/1 at 24,157 354x52' in result.output
    tail = result.output.splitlines()[-5:]
    assert tail == [
        '"Sign up" is on the screen once',
        "  Button at /0/1:",
        '    step:   Tap "Sign up"',
        "    expect: - visible: {label: Sign up, role: button}",
        "    expect: - text: Sign up",
    ]


def test_an_app_not_in_front_is_said(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml", "--app", APP)
    assert result.exit_code == 0, result.output
    assert f"com.apple.springboard is in front, not {APP}: add --launch" in result.output


def test_json_is_the_documented_schema(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml", "--app", APP, "--launch", "--json", "--select", "Nope")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {
        "schema", "device", "app", "size", "read", "hash", "fingerprint", "elements", "fast_read_differences", "select",
        "link", "after",
    }  # fmt: skip
    assert (doc["link"], doc["after"]) == (None, None)  # the screen wasn't reached by a link or a replay
    assert (doc["schema"], doc["app"], doc["size"], doc["read"]) == ("mobster.inspect/1", APP, [402, 874], "read")
    assert doc["device"] == {"name": "Scripted iPhone", "ios": "26.4", "kind": "simulator"}
    assert doc["fast_read_differences"] is None  # the scripted phone's read is the verdict's
    assert [e["label"] for e in doc["elements"]] == ["Welcome", "Sign up", "Settings"]
    assert all(set(e) == ELEMENT_KEYS and e["shown"] and e["hidden"] is None for e in doc["elements"])
    assert doc["select"]["found"] == "absent"
    assert doc["select"]["message"].startswith('"Nope" isn\'t on the screen')


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--launch"], "mobster: --launch needs --app BUNDLE: the app to launch"),
        (["--scripted", "app.yaml", "--select", " "], "mobster: --select needs the label to look for"),
        ([], "mobster: choose a device: --scripted APP.yaml"),
        (["--scripted", "app.yaml", "--scripted", "app.yaml"], "mobster: inspect reads one device; the options name 2"),
    ],
)
def test_usage_problems_are_one_line_exit_3(project: Path, args: list[str], said: str) -> None:
    result = mobster("inspect", *args)
    assert result.exit_code == 3
    assert result.output.startswith(said)
    assert len(result.output.strip().splitlines()) == 1


def test_a_run_option_is_not_an_inspect_option(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml", "--model", "scripted")
    assert result.exit_code == 3
    assert "No such option '--model'" in result.output


# -- a still phone: any screen, for hidden and hostile elements -------------------------------------

HOSTILE = "\x1b[31mred\x1b[0m \u202eevil\u202c\nforged line"
LONG = "L" * 900_000
SCREENS = {
    "hidden": Screen(
        APP,
        (
            Element("Button", "Shown", frame=(0.1, 0.1, 0.5, 0.05), path="/0/0"),
            Element("Button", "Gone", frame=(0.1, 0.2, 0.5, 0.05), visible=False, path="/0/1"),
            Element("Button", "Below", frame=(0.1, 1.0, 0.5, 0.5), path="/0/2"),
            Element("Button", "Flat", frame=(0.1, 0.3, 0.0, 0.0), path="/0/3"),
        ),
    ),
    "hostile": Screen(
        APP,
        (
            Element("StaticText", HOSTILE, identifier="\x07bell", frame=(0.1, 0.1, 0.5, 0.05), path="/0/0"),
            Element("StaticText", LONG, value=HOSTILE, frame=(0.1, 0.2, 0.5, 0.05), path="/0/1"),
        ),
    ),
}


class StillPhone:
    """A device that shows one screen and never changes: what a driver of your own may return."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen

    async def info(self) -> DeviceInfo:
        return DeviceInfo("Still iPhone", "26.4", DeviceKind.SIMULATOR)

    async def app_info(self, bundle: str) -> AppInfo:
        return AppInfo(bundle=bundle, version="1.0", build="1")

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        return None

    async def read(self) -> Screen:
        return self.screen

    async def act(self, action: Action) -> None:
        return None


def still_phone(arg: str, *, clock: Clock) -> StillPhone:
    return StillPhone(SCREENS[arg])


def test_hidden_elements_say_why(project: Path) -> None:
    result = mobster("inspect", "--driver", "tests.cli.test_inspect:still_phone", "hidden", "--select", "Gone")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "4 elements, 1 shown" in out
    assert '· Button  "Gone"  /0/1 at 40,175 201x44  not shown: not visible (the phone reports it not visible)' in out
    assert "not shown: off screen (its frame is off the screen)" in out
    assert "not shown: zero size (its frame has no width or no height)" in out
    assert '"Gone" is in the tree but not shown: a check can\'t see it or act on it' in out
    assert "  Button at /0/1: not shown: not visible" in out


def test_hostile_labels_are_shown_safely(project: Path) -> None:
    result = mobster("inspect", "--driver", "tests.cli.test_inspect:still_phone", "hostile", "--select", HOSTILE)
    assert result.exit_code == 0, result.output
    out = result.output
    for raw in ("\x1b", "\u202e", "\u202c", "\x07"):
        assert raw not in out
    assert "forged line" not in out.replace("\\nforged line", "")  # the newline is an escape, never a line
    assert '"\\x1b[31mred\\x1b[0m \\u202eevil\\u202c\\nforged line"' in out
    assert "… (900,000 characters)" in out
    assert len(out) < 10_000  # the 900 KB label is cut on the terminal
    as_json = mobster("inspect", "--driver", "tests.cli.test_inspect:still_phone", "hostile", "--json")
    assert "\u202e" not in as_json.stdout
    assert "\x1b" not in as_json.stdout
    doc = json.loads(as_json.stdout)
    assert [e["label"] for e in doc["elements"]] == [HOSTILE, LONG]  # JSON keeps the text whole


# -- --watch on the fake clock ---------------------------------------------------------------------

PHONES: list[ScriptedPhone] = []


def watched_phone(arg: str, *, clock: Clock) -> ScriptedPhone:
    phone = ScriptedPhone.from_file(Path(arg), clock=clock)
    PHONES.append(phone)
    return phone


def test_watch_prints_again_when_the_screen_changes_and_ctrl_c_ends_it(project: Path) -> None:
    PHONES.clear()
    times: list[float] = []

    def run(clock: FakeClock) -> Any:
        def runner(coro: Coroutine[Any, Any, Any]) -> Any:
            async def drive() -> Any:
                task = asyncio.ensure_future(coro)
                await clock.sleep(3.5)  # three reads of the same screen: nothing printed again
                phone = PHONES[0]
                sign_up = next(e for e in (await phone.read()).elements if e.label == "Sign up")
                await phone.act(Action(Op.TAP, sign_up))
                times.append(clock.now())
                await clock.sleep(2.0)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                raise KeyboardInterrupt  # Ctrl+C

            return clock.run(drive())

        return runner

    args = ("inspect", "--driver", "tests.cli.test_inspect:watched_phone", "app.yaml", "--app", APP, "--launch")
    result = mobster(*args, "--watch", run=run)
    assert result.exit_code == 130, result.output
    headers = [line for line in result.output.splitlines() if line.startswith(f"{APP} on ")]
    assert len(headers) == 2  # the welcome screen, then the sign-up screen: once each
    assert '✓ StaticText  "Create your account"' in result.output
    assert result.output.index("Welcome") < result.output.index("Create your account")
    assert result.output.rstrip().endswith("stopped")
    assert times == [3.5]


def test_watch_json_is_one_document_a_line(project: Path) -> None:
    def run(clock: FakeClock) -> Any:
        def runner(coro: Coroutine[Any, Any, Any]) -> Any:
            async def drive() -> Any:
                task = asyncio.ensure_future(coro)
                await clock.sleep(2.5)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                raise KeyboardInterrupt

            return clock.run(drive())

        return runner

    result = mobster("inspect", "--scripted", "app.yaml", "--watch", "--json", run=run)
    assert result.exit_code == 130
    docs = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert [d["app"] for d in docs] == ["com.apple.springboard"]  # unchanged: printed once


# -- real trees served by the fake WDA --------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_a_real_tree_served_by_the_fake_wda(project: Path, private_locks: Path, name: str) -> None:
    with FakeWda(tree=tree_path(name), lifetime=60) as fake:
        args = ["inspect", "--wda", fake.url, "--app", str(fake.static_bundle), "--launch"]
        text = CliRunner().invoke(cli, [*args, "--select", "General"], catch_exceptions=False)
        result = CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False)
    assert text.exit_code == 0, text.output
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["read"], doc["app"]) == ("evidence", fake.static_bundle)
    assert isinstance(doc["fast_read_differences"], list)
    elements = {e["path"]: e for e in doc["elements"]}
    expected = {t.path: t for t in truth(name)}
    assert set(elements) == set(expected)
    # Shown or not, as the XML itself says by Mobster's rule (computed without the product's parser).
    assert {p: e["shown"] for p, e in elements.items()} == {p: t.shown for p, t in expected.items()}
    assert all(e["why"] for e in doc["elements"] if not e["shown"])
    assert all(e["label"] == expected[e["path"]].label for e in doc["elements"])
    assert f"{fake.static_bundle} on " in text.output
    said = [line for line in text.output.splitlines() if line.startswith('"General" ')]
    assert len(said) == 1, text.output  # --select's one line: once, several times, hidden or absent


def flaky_phone(arg: str, *, clock: Clock) -> ScriptedPhone:
    """The scripted phone whose first ``arg`` reads fail (``app.yaml:N``)."""
    file, failures = arg.split(":")
    phone = ScriptedPhone.from_file(Path(file), clock=clock)
    phone.fail_next_read(int(failures))
    return phone


def test_a_read_that_fails_once_is_tried_again_and_twice_is_one_line(project: Path) -> None:
    once = mobster("inspect", "--driver", "tests.cli.test_inspect:flaky_phone", "app.yaml:1")
    assert once.exit_code == 0, once.output
    assert '✓ Button  "YourApp"' in once.output
    twice = mobster("inspect", "--driver", "tests.cli.test_inspect:flaky_phone", "app.yaml:2")
    assert twice.exit_code == 3
    assert twice.output.startswith("mobster: ")
    assert len(twice.output.strip().splitlines()) == 1


# -- the project config and its profiles, as `mobster test` reads them ------------------------------


@pytest.fixture
def configured(project: Path) -> Path:
    """A config naming the sample phone; its ``other`` profile a phone of another name, its run keys moot here."""
    (project / "other.yaml").write_text(sample_path("yourapp").read_text().replace("Scripted iPhone", "Other Phone"))
    (project / "mobster.toml").write_text(
        'scripted = "app.yaml"\nparallel = 2\nmodel = "scripted"\nframes = "none"\n'
        '[profiles.other]\nscripted = "other.yaml"\n'
    )
    return project


def test_the_project_config_names_the_device(configured: Path) -> None:
    result = mobster("inspect")
    assert result.exit_code == 0, result.output  # the config's parallel is a run's, not inspect's: one device
    assert result.output.splitlines()[0] == "com.apple.springboard on Scripted iPhone, iOS 26.4: 402 x 874 pt"


def test_a_profile_of_the_config_chooses_the_device(configured: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "on Other Phone, iOS 26.4" in mobster("inspect", "--profile", "other").output
    monkeypatch.setenv("MOBSTER_PROFILE", "other")
    assert "on Other Phone, iOS 26.4" in mobster("inspect").output
    given = mobster("inspect", "--scripted", "app.yaml")  # the command line's device replaces the config's pool
    assert "on Scripted iPhone, iOS 26.4" in given.output


def test_an_unknown_profile_is_one_line_naming_the_config(configured: Path) -> None:
    result = mobster("inspect", "--profile", "nope")
    assert result.exit_code == 3
    assert result.output.startswith(f"mobster: {configured / 'mobster.toml'}: --profile nope: no such profile")
    assert len(result.output.strip().splitlines()) == 1


def test_a_bad_config_is_one_line_as_for_mobster_test(configured: Path) -> None:
    (configured / "mobster.toml").write_text('scripted = "app.yaml"\nscriptd = "x"\n')
    result = mobster("inspect")
    assert result.exit_code == 3
    assert 'mobster.toml: line 2: scriptd: not a setting; did you mean "scripted"?' in result.output
