"""A suite on a pool of devices: work stealing, every check on every device, a device lost mid-suite.

The devices are scripted phones on one ``FakeClock`` (so "slow" costs no real time), wrapped to
be slow or to die; the model is the scripted one.
"""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel

CHECK = """\
version: 1
name: Sign up {n}
app: {{bundle: com.example.yourapp}}
steps:
  - Tap "Sign up"
  - Type "ada{n}@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""


class Wrapped:
    """A device that delegates to a scripted phone; ``slow`` adds seconds to each read; ``dead`` kills it."""

    def __init__(self, clock: FakeClock, *, slow: float = 0.0) -> None:
        self.phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
        self.clock = clock
        self.slow = slow
        self.dead = False
        self.die_after_acts: int | None = None
        self.acts = 0
        self.started: list[str] = []
        self.ended: list[tuple[str, mc.Verdict, str]] = []

    def _check(self) -> None:
        if self.dead:
            raise mc.DeviceError("the phone isn't answering (connection refused)")

    async def info(self) -> mc.DeviceInfo:
        self._check()
        return await self.phone.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        self._check()
        return await self.phone.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        self._check()
        await self.phone.launch(bundle, options)

    async def read(self) -> mc.Screen:
        self._check()
        await self.clock.sleep(self.slow)
        return await self.phone.read()

    async def act(self, action: mc.Action) -> None:
        self._check()
        self.acts += 1
        if self.die_after_acts is not None and self.acts > self.die_after_acts:
            self.dead = True
            raise mc.UnknownOutcome("the connection dropped while the tap was in flight")
        await self.phone.act(action)


class Reporting(Wrapped):
    """Also takes ``CheckReports``."""

    async def check_started(self, name: str) -> None:
        self.started.append(name)

    async def check_ended(self, name: str, verdict: mc.Verdict, reason: str) -> None:
        self.ended.append((name, verdict, reason))


@pytest.fixture
def project(project: Path) -> Path:
    """Four sign-up checks."""
    for n in range(1, 5):
        (project / ".mobster" / "checks" / f"signup{n}.yaml").write_text(CHECK.format(n=n))
    return project


def suite(project: Path, clock: FakeClock, devices: Any, **options: Any) -> mc.SuiteResult:
    opts = mc.RunOptions(root=project, screenshots=False, **options)
    files = mc.find_checks(project)
    return clock.run(mc.run_suite(files, devices, clock, models=lambda: ScriptedModel(clock=clock), options=opts))


def test_work_stealing_gives_more_checks_to_the_faster_device(project: Path) -> None:
    clock = FakeClock()
    fast, slow = Wrapped(clock), Wrapped(clock, slow=2.0)
    result = suite(project, clock, {"fast": fast, "slow": slow})
    assert result.exit_code == 0, [c.outcome for c in result.checks]
    ran = Counter(c.device_label for c in result.checks)
    assert ran["fast"] > ran["slow"] >= 1, ran
    assert sum(ran.values()) == 4
    assert [c.name for c in result.checks] == [f"Sign up {n}" for n in range(1, 5)]  # file order, not finish order


def test_each_device_runs_every_check_on_every_device(project: Path) -> None:
    clock = FakeClock()
    result = suite(project, clock, {"sim-1": Wrapped(clock), "sim-2": Wrapped(clock, slow=1.0)}, each_device=True)
    assert result.exit_code == 0
    assert [(c.name, c.device_label) for c in result.checks][:4] == [
        ("Sign up 1", "sim-1"),
        ("Sign up 1", "sim-2"),
        ("Sign up 2", "sim-1"),
        ("Sign up 2", "sim-2"),
    ]
    assert len(result.checks) == 8
    doc = result.to_dict()
    assert {c["device_label"] for c in doc["checks"]} == {"sim-1", "sim-2"}
    names = [case.get("name") for case in ET.fromstring((result.folder / "junit.xml").read_bytes()).iter("testcase")]
    assert len(set(names)) == 8, names  # one testcase per check and device
    assert "Sign up 1 on sim-2 (Scripted iPhone, iOS 26.4)" in names


def test_a_device_killed_mid_suite_leaves_its_check_couldnt_run_and_the_rest_pass(project: Path) -> None:
    clock = FakeClock()
    healthy, dying = Wrapped(clock), Wrapped(clock)
    dying.die_after_acts = 1  # its first check's second action is lost in flight
    seen: list[str] = []
    result = suite(project, clock, {"good": healthy, "dying": dying}, on_result=lambda r: seen.append(r.name))
    by_device = Counter((c.device_label, c.verdict) for c in result.checks)
    assert by_device == {("good", mc.Verdict.PASSED): 3, ("dying", mc.Verdict.COULDNT_RUN): 1}, result.checks
    lost = next(c for c in result.checks if c.device_label == "dying")
    assert lost.outcome.failure_class is mc.FailureClass.DEVICE
    assert "out of the pool" in lost.outcome.message
    assert "in flight" in lost.outcome.message
    written = json.loads((project / lost.run_dir / "result.json").read_text())
    assert (written["verdict"], written["class"]) == ("couldnt_run", "device")  # the run's file agrees
    assert dying.acts == 2  # never sent again: a check whose action's outcome is unknown isn't retried
    assert len(seen) == 4  # each result told once


def test_a_device_dead_before_anything_was_sent_hands_its_check_to_another(project: Path) -> None:
    clock = FakeClock()
    healthy, dead = Wrapped(clock), Wrapped(clock)
    dead.dead = True
    seen: list[mc.CheckResult] = []
    result = suite(project, clock, {"good": healthy, "dead": dead}, on_result=seen.append)
    assert result.exit_code == 0
    assert {c.device_label for c in result.checks} == {"good"}
    assert len(seen) == 4  # the dead device's attempt is never reported


def test_every_device_lost_leaves_the_rest_couldnt_run_saying_so(project: Path) -> None:
    clock = FakeClock()
    a, b = Wrapped(clock), Wrapped(clock)
    a.die_after_acts = b.die_after_acts = 1
    result = suite(project, clock, {"a": a, "b": b})
    assert len(result.checks) == 4
    assert all(c.verdict is mc.Verdict.COULDNT_RUN for c in result.checks)
    assert all(
        c.outcome.failure_class in {mc.FailureClass.DEVICE, mc.FailureClass.UNKNOWN_OUTCOME} for c in result.checks
    )
    rest = [c for c in result.checks if c.device_label is None]
    assert len(rest) == 2
    assert all("no device of the pool answers" in c.outcome.message for c in rest)
    assert all(c.name.startswith("Sign up") for c in rest)
    assert result.exit_code == 3


def test_each_device_with_a_lost_device_runs_the_rest_on_the_others(project: Path) -> None:
    clock = FakeClock()
    good, dying = Wrapped(clock), Wrapped(clock)
    dying.die_after_acts = 4  # its second check dies
    result = suite(project, clock, {"good": good, "dying": dying}, each_device=True)
    verdicts = Counter((c.device_label, c.verdict) for c in result.checks)
    assert verdicts[("good", mc.Verdict.PASSED)] == 4
    assert verdicts[("dying", mc.Verdict.PASSED)] == 1
    assert verdicts[("dying", mc.Verdict.COULDNT_RUN)] == 3
    later = [c for c in result.checks if c.device_label == "dying" and c.device is None]
    assert all("dying stopped answering earlier in the suite" in c.outcome.message for c in later)


def test_a_device_that_takes_check_reports_is_told_the_name_and_the_verdict(project: Path) -> None:
    clock = FakeClock()
    device = Reporting(clock)
    result = suite(project, clock, [device])
    assert device.started == [f"Sign up {n}" for n in range(1, 5)]
    assert [(n, v) for n, v, _ in device.ended] == [(c.name, c.verdict) for c in result.checks]
    assert isinstance(device, mc.protocols.CheckReports)


def test_a_device_whose_reports_fail_still_gets_the_verdict(project: Path) -> None:
    clock = FakeClock()

    class Broken(Reporting):
        async def check_ended(self, name: str, verdict: mc.Verdict, reason: str) -> None:
            raise RuntimeError("the dashboard is down")

    result = suite(project, clock, [Broken(clock)])
    assert result.exit_code == 0


def test_a_list_of_devices_keeps_no_label(project: Path) -> None:
    clock = FakeClock()
    result = suite(project, clock, [Wrapped(clock)])
    assert {c.device_label for c in result.checks} == {None}
    assert result.to_dict()["checks"][0]["device_label"] is None


def test_a_stop_while_asking_a_failed_device_keeps_its_result(project: Path) -> None:
    clock = FakeClock()
    device = Wrapped(clock)
    device.die_after_acts = 1
    hung = False

    async def read() -> mc.Screen:
        nonlocal hung
        if device.dead:  # asked whether it still answers: it never does
            hung = True
            await clock.sleep(10_000)
        return await device.phone.read()

    device.read = read  # type: ignore[method-assign]
    device._check = lambda: None  # type: ignore[method-assign]

    async def stop_while_asking() -> mc.SuiteResult:
        options = mc.RunOptions(root=project, screenshots=False)
        files = mc.find_checks(project)
        task = asyncio.ensure_future(
            mc.run_suite(files, [device], clock, models=lambda: ScriptedModel(clock=clock), options=options)
        )
        while not hung:
            await clock.sleep(1)
        task.cancel()
        return await task

    with pytest.raises(mc.SuiteStopped) as stopped:
        clock.run(stop_while_asking())
    (result,) = stopped.value.suite.checks
    assert result.outcome.failure_class is mc.FailureClass.UNKNOWN_OUTCOME  # the check's own result, kept


class _Told:
    """A reporter that keeps the suites it is told of."""

    def __init__(self) -> None:
        self.suites: list[mc.SuiteResult] = []

    def check_ended(self, result: mc.CheckResult, folder: Path, frames: Any) -> None:
        raise AssertionError("no check ran")

    def suite_ended(self, suite: mc.SuiteResult) -> None:
        self.suites.append(suite)


def test_a_suite_stopped_before_it_began_writes_its_files_each_check_stopped(tmp_path: Path) -> None:
    from mobster_core.results import stopped_suite

    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    files = [checks / f"signup-{n}.yaml" for n in (1, 2)]
    for n, file in enumerate(files, 1):
        file.write_text(CHECK.format(n=n))
    told = _Told()
    suite = stopped_suite(
        files, "stopped by SIGINT while the devices were being opened", options=mc.RunOptions(reporter=told)
    )
    assert told.suites == [suite]
    assert [(c.name, c.verdict, c.outcome.failure_class) for c in suite.checks] == [
        ("Sign up 1", mc.Verdict.COULDNT_RUN, mc.FailureClass.STOPPED),
        ("Sign up 2", mc.Verdict.COULDNT_RUN, mc.FailureClass.STOPPED),
    ]
    assert json.loads((suite.folder / "results.json").read_text()) == suite.to_dict()
    cases = ET.parse(suite.folder / "junit.xml").getroot().iter("testcase")
    assert [c.get("name") for c in cases] == ["Sign up 1 on no device", "Sign up 2 on no device"]
    assert not (tmp_path / ".mobster" / "runs").exists()  # no check ran: no run folder
