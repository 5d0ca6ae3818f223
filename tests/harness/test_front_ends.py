"""Every front end goes through the one door: the same check gets the same run options from each.

The door's Rule 1 (``mobster_harness/door.py``): no front end opens a device, makes a model or
makes ``RunOptions`` itself. An import contract keeps the device, model and pool modules out of
their reach (``pyproject.toml``); the source test below holds what an import can't show (a
``RunOptions(...)`` of the core, an ``HtmlReport(...)`` of the report). Then one check runs through
``mobster test``, pytest (the plugin) and ``mobster mcp`` (the official MCP client calling
``run_check``), all three on the one project config, and the run options each run was given are
compared: the report's "Run it again" devices, the alerts, frames, video, budget and retries.
"""

from __future__ import annotations

import ast
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp.client import Client

import mobster_mcp
from mobster_cli.main import Runtime, cli
from mobster_core import RunOptions, run_check, run_suite
from mobster_core.checks import AlertMode, AlertPolicy
from mobster_core.results import FramesMode, VideoMode
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from mobster_report import HtmlReport
from tests.samples import SIGNUP_BY_BUNDLE

pytest_plugins = ["pytester"]

ROOT = Path(__file__).parents[2]
FRONT_ENDS = ("mobster_cli", "mobster_pytest", "mobster_mcp")

#: What only the harness makes: a front end calling one of these assembles a run of its own.
MADE_BY_THE_DOOR = frozenset(
    {
        "RunOptions", "to_run_options", "HtmlReport",  # the run options, and the report they always carry
        "open_device", "open_pool", "choose_models", "Models", "make_model",  # the harness's own parts
        "ScriptedPhone", "ScriptedModel", "WdaDevice", "SimulatorDevice", "UsbIphone", "appium_device",  # drivers
    }
)  # fmt: skip


def calls_made_by_the_door(source: str) -> list[str]:
    """The calls in ``source`` of a name only the harness calls (``RunOptions(...)``, ``x.to_run_options(...)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in MADE_BY_THE_DOOR:
                found.append(f"{node.lineno}: {name}")
    return found


@pytest.mark.parametrize("package", FRONT_ENDS)
def test_no_front_end_makes_a_device_a_model_or_run_options_itself(package: str) -> None:
    # ``--driver FACTORY ARG`` (mobster_cli/_devices.py) calls the user's own factory: a device the user's code
    # makes, which no settings name; everything the settings name comes through the door.
    found = {
        path.relative_to(ROOT).as_posix(): calls
        for path in sorted((ROOT / package).rglob("*.py"))
        if (calls := calls_made_by_the_door(path.read_text()))
    }
    assert found == {}


def test_the_source_test_sees_a_front_end_assembling_a_run() -> None:
    source = (
        "options = settings.to_run_options(root, reporter=HtmlReport())\n"
        "more = mc.RunOptions(root=root)\n"
        "opened = open_device(spec, clock)\n"
    )
    found = calls_made_by_the_door(source)
    assert sorted(found) == ["1: HtmlReport", "1: to_run_options", "2: RunOptions", "3: open_device"]


# -- one check, three front ends, one set of run options --------------------------------------------

CONFIG = """\
scripted = "apps/yourapp.yaml"
model = "scripted"
profile = "ci"

[profiles.ci]
alerts = "accept"
frames = "failed"
video = "retain-on-failure"
max-usd = 0.5
retries = 2
"""


class Spy:
    """Around a front end's real call (``run_check``, ``run_suite``): notes the run options it was given."""

    def __init__(self, real: Callable[..., Awaitable[Any]]) -> None:
        self.real = real
        self.options: list[RunOptions] = []

    async def __call__(self, *args: Any, options: RunOptions, **kwargs: Any) -> Any:
        self.options.append(options)
        return await self.real(*args, options=options, **kwargs)


def facts(options: RunOptions) -> dict[str, object]:
    """What the comparison holds the front ends to (the device label is the suite's, per device)."""
    assert isinstance(options.reporter, HtmlReport)
    return {
        "report devices": dict(options.reporter.devices),
        "alerts": options.alerts,
        "frames": options.frames,
        "video": options.video,
        "budget": options.max_usd,
        "retries": options.retries,
        "policy": options.policy,
        "paths": options.paths,
        "root": options.root,
        "no heal": options.no_heal,
    }


@pytest.fixture
def configured(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """A project in pytester's folder (the working folder) whose config's ``ci`` profile says how to run."""
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    root = pytester.path
    (root / "apps").mkdir()
    (root / "apps" / "yourapp.yaml").write_text(sample_path("yourapp").read_text())
    (root / ".mobster" / "checks").mkdir(parents=True)
    (root / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    (root / "mobster.toml").write_text(CONFIG)
    return root


def run_through_the_cli(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[RunOptions]:
    spy = Spy(run_suite)  # what run_on_pool hands the core's suite
    monkeypatch.setattr("mobster_harness.pool.run_suite", spy)
    clock = FakeClock()
    result = CliRunner().invoke(cli, ["test"], catch_exceptions=False, obj=Runtime(clock, clock.run))
    assert result.exit_code == 0, result.output
    return spy.options


def run_through_pytest(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> list[RunOptions]:
    spy = Spy(run_check)
    monkeypatch.setattr("mobster_pytest._session.run_check", spy)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "mobster_pytest.plugin", "--mobster-clock", "simulated")
    result.assert_outcomes(passed=1)
    return spy.options


def run_through_mcp(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[RunOptions]:
    spy = Spy(run_check)
    monkeypatch.setattr("mobster_mcp._bridge.run_check", spy)
    clock = FakeClock()
    verdicts: list[str] = []

    def serving(server: Any) -> Any:  # the stdio transport, replaced by the SDK's own client in process
        async def agent() -> None:
            async with Client(server) as client:
                ran = await client.call_tool("run_check", {"check": "signup"})
                assert not ran.is_error, ran.content
                assert isinstance(ran.structured_content, dict)
                verdicts.append(ran.structured_content["verdict"])

        return agent()

    monkeypatch.setattr(mobster_mcp, "stdio_serving", serving)
    runtime = Runtime(clock, clock.run)
    result = CliRunner().invoke(cli, ["mcp", "--project", str(root)], catch_exceptions=False, obj=runtime)
    assert result.exit_code == 0, result.output
    assert verdicts == ["passed"]
    return spy.options


def test_one_check_gets_the_same_run_options_through_the_cli_pytest_and_mcp(
    configured: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (cli_run,) = run_through_the_cli(configured, monkeypatch)
    (pytest_run,) = run_through_pytest(pytester, monkeypatch)
    (mcp_run,) = run_through_mcp(configured, monkeypatch)
    expected = {
        "report devices": {
            "yourapp": "--scripted apps/yourapp.yaml --profile ci",
            "": "--scripted apps/yourapp.yaml --profile ci",
        },
        "alerts": AlertPolicy(AlertMode.ACCEPT),
        "frames": FramesMode.FAILED,
        "video": VideoMode.RETAIN_ON_FAILURE,
        "budget": 0.5,
        "retries": 2,
    }
    assert {k: v for k, v in facts(cli_run).items() if k in expected} == expected
    assert facts(pytest_run) == facts(cli_run)
    assert facts(mcp_run) == facts(cli_run)
