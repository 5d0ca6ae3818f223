"""Helpers of the pytest plugin's tests: a project in pytester's folder, and its reports.

Every test runs pytest in-process with ``pytester`` (xdist's workers are processes of their own,
started by the in-process controller). Checks run on the scripted phone on the simulated clock
(``--mobster-clock simulated``), so nothing waits for real.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP_BY_BUNDLE

#: The sample check, with two tags.
SIGNUP = SIGNUP_BY_BUNDLE.replace("steps:", "tags: [smoke, signup]\nsteps:")

PAYWALL = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp}
tags: [paywall]
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
  - visible: {label: Restore Purchases, role: button}
"""

#: Options every run gets: the simulated clock, no pytest cache in the project, and the plugin by
#: name: the runs start with plugin autoloading off (``project`` sets it), so an xdist worker (a
#: process of its own) imports only what its test asks for, not every plugin installed.
BASE = ("-p", "no:cacheprovider", "-p", "mobster_pytest.plugin", "--mobster-clock", "simulated")
#: The ``-p`` options of the other plugins a test uses.
XDIST = ("-p", "xdist.plugin")
RERUNS = ("-p", "pytest_rerunfailures")
HTML = ("-p", "pytest_metadata.plugin", "-p", "pytest_html.plugin")
ALLURE = ("-p", "allure_pytest.plugin")


def app_script(
    device: str = "Phone A", *, renamed: bool = False, version: str = "1.0", build: str = "1", ios: str = "26.4"
) -> str:
    """The sample app's script (``yourapp``), on a phone named ``device``; ``renamed``: Continue is Next."""
    text = sample_path("yourapp-renamed" if renamed else "yourapp").read_text()
    text = text.replace("name: Scripted iPhone", f"name: {device}").replace('ios: "26.4"', f'ios: "{ios}"')
    return text.replace('version: "1.0"', f'version: "{version}"').replace('build: "1"', f'build: "{build}"')


@dataclass
class Project:
    """A Mobster project in pytester's folder: app scripts in ``apps/``, checks in ``.mobster/checks/``."""

    pytester: pytest.Pytester
    #: The replay cache of the two sample checks, recorded once a session (``record``).
    recorded: Path | None = None

    @property
    def root(self) -> Path:
        return self.pytester.path

    def app(self, name: str, **kwargs: object) -> Path:
        path = self.root / "apps" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(app_script(**kwargs))  # type: ignore[arg-type]
        return path

    def check(self, stem: str, text: str, *, suffix: str = ".yaml") -> Path:
        path = self.root / ".mobster" / "checks" / f"{stem}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest(*BASE, *args)

    def junit(self, *args: str) -> tuple[pytest.RunResult, list[Case]]:
        """Run with ``--junitxml`` and read back each testcase and its properties."""
        report = self.root / "junit.xml"
        result = self.run(f"--junitxml={report}", *args)
        return result, read_junit(report)


@dataclass
class Case:
    """A JUnit testcase: its name, its outcome element (failure/error/skipped or None) and Mobster's facts.

    The facts are the ``mobster.<fact>: <value>`` lines the plugin writes into the testcase's
    ``system-out`` (``_reports``' Rule 4), in order: ``properties`` keeps the name it had when they
    were ``<property>`` entries, which ``junit-10.xsd`` refuses inside a testcase.
    """

    name: str
    classname: str
    outcome: str | None
    message: str
    properties: list[tuple[str, str]]

    def prop(self, name: str) -> str:
        values = [v for k, v in self.properties if k == name]
        assert len(values) == 1, (name, self.properties)
        return values[0]

    def props(self, name: str) -> list[str]:
        return [v for k, v in self.properties if k == name]


def read_junit(path: Path) -> list[Case]:
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        assert case.find("properties") is None, "junit-10.xsd allows no properties inside a testcase"
        lines = [line for out in case.findall("system-out") for line in (out.text or "").splitlines()]
        props = [(k, v) for k, _, v in (line.partition(": ") for line in lines if line.startswith("mobster."))]
        cases.append(
            Case(
                name=case.get("name", ""),
                classname=case.get("classname", ""),
                outcome=None if outcome is None else outcome.tag,
                message="" if outcome is None else outcome.get("message", ""),
                properties=props,
            )
        )
    return cases


def record_paths(folder: Path) -> Path:
    """Record both sample checks in a project at ``folder`` with the core API; its replay cache.

    What a first ``pytest --mobster-model scripted`` run records (the tests that need that run
    itself make it): done once a session, then copied into each project by :func:`record`.
    """
    from mobster_core import RunOptions, run_suite
    from mobster_core.testing import FakeClock
    from mobster_drivers.devices.scripted import ScriptedPhone
    from mobster_drivers.models.scripted import ScriptedModel

    checks = folder / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(SIGNUP)
    (checks / "paywall.yaml").write_text(PAYWALL)
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app_script(), clock=clock)
    files = sorted(checks.glob("*.yaml"))
    suite = clock.run(
        run_suite(files, [phone], clock, models=lambda: ScriptedModel(clock=clock), options=RunOptions(root=folder))
    )
    assert [c.verdict.value for c in suite.checks] == ["passed", "passed"], suite
    return folder / ".mobster" / "cache"


def record(project: Project) -> None:
    """Both sample checks recorded on ``apps/yourapp.yaml``, as a first run with the scripted model leaves them."""
    assert project.recorded is not None
    shutil.copytree(project.recorded, project.root / ".mobster" / "cache", dirs_exist_ok=True)
