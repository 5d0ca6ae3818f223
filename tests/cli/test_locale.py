"""The device's language in the env: a German phone never replays an English path; ``--locale``.

On the scripted phone (a fake clock): the app script gives German labels; the phone reports its
locale. On the simulator driver: the fake ``xcrun`` records the launch arguments that run the app
in a locale, and the fake WDA serves the app.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import mobster_core as mc
from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone, sample_path
from mobster_drivers.devices.simulator import SimulatorDevice
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.wda import FakeWda
from mobster_drivers.testing.xcrun import FakeSimctl
from tests.real_clock import QUICK_POLICY

GERMAN = """\
    locales:
      de_DE: {Sign up: Registrieren, Continue: Weiter, Welcome aboard: Willkommen an Bord, Welcome: Willkommen}
"""
CHECK = """\
version: 1
name: A new user signs up
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Sign up"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
GERMAN_CHECK = """\
version: 1
name: Ein neuer Nutzer meldet sich an
app: {bundle: com.example.yourapp, path: YourApp.app}
launch: {locale: de_DE}
steps:
  - Tap "Registrieren"
  - Tap "Weiter"
expect:
  - text: Willkommen an Bord
"""


def app_script(*, locale: str = "en_US", kind: str = "simulator") -> str:
    text = sample_path("yourapp").read_text().replace("kind: simulator", f"kind: {kind}, locale: {locale}")
    return text.replace("    screens:\n", GERMAN + "    screens:\n", 1)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    (tmp_path / "english.yaml").write_text(app_script())
    (tmp_path / "german.yaml").write_text(app_script(locale="de_DE"))
    (tmp_path / "german-iphone.yaml").write_text(app_script(locale="de_DE", kind="iphone"))
    (tmp_path / "english-iphone.yaml").write_text(app_script(kind="iphone"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def only(result: Result) -> dict[str, Any]:
    (check,) = json.loads(result.stdout)["checks"]
    assert isinstance(check, dict)
    return check


def test_the_phone_shows_its_locale_and_says_it() -> None:
    clock = FakeClock()
    phone = ScriptedPhone(AppScript.from_text(app_script(locale="de_DE"), "german.yaml"), clock=clock)

    async def scenario() -> list[str]:
        info = await phone.info()
        assert (info.locale, info.appearance) == ("de_DE", mc.protocols.Appearance.LIGHT)
        await phone.launch("com.example.yourapp", mc.LaunchOptions())
        return [e.label for e in (await phone.read()).elements]

    assert clock.run(scenario()) == ["Willkommen", "Registrieren", "Settings"]


def test_a_german_phone_never_replays_the_english_path_and_says_why(project: Path) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(CHECK)
    assert mobster("test", "--scripted", "english.yaml", "--model", "scripted").exit_code == 0
    replay = mobster("test", "--scripted", "english.yaml", "--no-heal", "--json")
    assert (only(replay)["verdict"], only(replay)["model_calls"]) == ("passed", 0)
    german = mobster("test", "--scripted", "german.yaml", "--no-heal", "--json")
    check = only(german)
    assert (check["verdict"], check["class"]) == ("couldnt_run", "model")
    assert "the device's language changed: recorded in en_US, this is de_DE" in str(check["message"])
    assert check["steps"] == []  # nothing of the English path was tried on the German screens
    carried = mobster("test", "--scripted", "german.yaml", "--carry", "--no-heal", "--json")
    assert "the device's language changed" in str(only(carried)["message"])  # never carried into German
    assert (only(carried)["steps"], only(carried)["path"]["carried_from"]) == ([], None)


def test_locale_launches_the_app_in_it_on_a_simulator_and_keys_the_env(project: Path) -> None:
    (project / ".mobster" / "checks" / "anmelden.yaml").write_text(GERMAN_CHECK)
    first = mobster("test", "--scripted", "english.yaml", "--model", "scripted", "--json")
    assert only(first)["verdict"] == "passed", first.output
    replay = mobster("test", "--scripted", "english.yaml", "--no-heal", "--json")
    assert (only(replay)["verdict"], only(replay)["mode"], only(replay)["model_calls"]) == ("passed", "replay", 0)
    stored = json.loads(next((project / ".mobster" / "cache" / "replay").glob("*.json")).read_text())
    assert stored["env"]["locale"] == "de_DE"  # the locale the app ran in, not the phone's


def test_the_locale_option_is_over_the_checks_own(project: Path) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(CHECK)
    german = mobster("test", "--scripted", "english.yaml", "--locale", "de-DE", "--model", "scripted", "--json")
    check = only(german)
    # the app ran in German (the option over the check's English): Smart finds no "Sign up" there
    assert (check["verdict"], check["class"]) == ("failed", "blocked")
    assert 'closest: "Willkommen"' in str(check["message"])
    bad = mobster("test", "--scripted", "english.yaml", "--locale", "Deutsch")
    assert bad.exit_code == 3
    assert "--locale" in bad.output
    assert "is not a locale" in bad.output or "written like" in bad.output


@pytest.mark.parametrize(("script", "says"), [("english-iphone.yaml", "runs in en_US")])
def test_an_iphone_in_another_language_cant_run_a_locale_check(project: Path, script: str, says: str) -> None:
    (project / ".mobster" / "checks" / "anmelden.yaml").write_text(GERMAN_CHECK)
    result = mobster("test", "--scripted", script, "--model", "scripted", "--json")
    check = only(result)
    assert (check["verdict"], check["class"]) == ("couldnt_run", "environment")
    message = str(check["message"])
    assert "asks for the locale de_DE" in message
    assert says in message
    assert "run the check on a simulator" in message
    journal = (project / str(check["run_dir"]) / "journal.jsonl").read_text()
    assert journal.strip() == ""  # refused before the launch


def test_an_iphone_already_in_that_language_runs_it(project: Path) -> None:
    (project / ".mobster" / "checks" / "anmelden.yaml").write_text(GERMAN_CHECK)
    result = mobster("test", "--scripted", "german-iphone.yaml", "--model", "scripted", "--json")
    assert only(result)["verdict"] == "passed", result.output


def test_the_simulator_driver_launches_the_app_in_the_locale(tmp_path: Path) -> None:
    script = AppScript.from_text(app_script(), "english.yaml")
    with FakeWda(script, lifetime=60) as wda:
        simctl = FakeSimctl(tmp_path, wda=wda)
        device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)
        try:
            assert isinstance(device, mc.protocols.LocaleLaunches)
            assert device.launches_in_locale()
            check = tmp_path / ".mobster" / "checks" / "anmelden.yaml"
            check.parent.mkdir(parents=True)
            check.write_text(GERMAN_CHECK)
            options = mc.RunOptions(root=tmp_path, policy=QUICK_POLICY)
            clock = mc.SystemClock()
            outcome = asyncio.run(
                mc.run_check(mc.load_check(check), device, clock, model=ScriptedModel(clock=clock), options=options)
            )
            assert outcome.verdict is mc.Verdict.PASSED, outcome.outcome.message
            (launch, *_) = simctl.calls_of("launch")
            assert launch.args[-4:] == ("-AppleLanguages", "(de)", "-AppleLocale", "de_DE")
            assert (asyncio.run(device.info())).locale == "en_US"  # the simulator keeps its own
        finally:
            device.close()
