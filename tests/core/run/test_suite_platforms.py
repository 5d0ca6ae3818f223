"""A suite on a pool of iPhones and Android phones: each check on each platform, one selected (suite Rule 14).

The devices are the scripted iPhone and the scripted Android phone on one ``FakeClock``; a check
is platform-neutral, its path is per platform.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._run.suite import lanes_of
from mobster_core.protocols import Platform
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel

IOS, ANDROID = Platform.IOS, Platform.ANDROID
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


class Phone:
    """A scripted phone of either platform that can be made to stop answering, counting its infos."""

    def __init__(self, clock: FakeClock, app: str) -> None:
        self.phone = ScriptedPhone.from_file(sample_path(app), clock=clock)
        self.dead = False
        self.infos = 0

    def _check(self) -> None:
        if self.dead:
            raise mc.DeviceError("the phone isn't answering (connection refused)")

    async def info(self) -> mc.DeviceInfo:
        self.infos += 1
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
        return await self.phone.read()

    async def act(self, action: mc.Action) -> None:
        self._check()
        await self.phone.act(action)


@pytest.fixture
def project(project: Path) -> Path:
    """Three sign-up checks."""
    for n in range(1, 4):
        (project / ".mobster" / "checks" / f"signup{n}.yaml").write_text(CHECK.format(n=n))
    return project


def suite(project: Path, clock: FakeClock, devices: Any, *, model: bool = True, **options: Any) -> mc.SuiteResult:
    opts = mc.RunOptions(root=project, screenshots=False, **options)
    files = mc.find_checks(project)
    models = (lambda: ScriptedModel(clock=clock)) if model else (lambda: None)
    return clock.run(mc.run_suite(files, devices, clock, models=models, options=opts))


def mixed(clock: FakeClock) -> dict[str, Phone]:
    return {
        "iphone-1": Phone(clock, "yourapp"),
        "pixel-1": Phone(clock, "yourapp-android"),
        "iphone-2": Phone(clock, "yourapp"),
        "pixel-2": Phone(clock, "yourapp-android"),
    }


def platform(result: mc.CheckResult) -> str:
    assert result.device is not None
    return result.device.platform.value


def test_each_check_runs_once_on_each_platform_of_the_pool_and_replays_at_no_cost(project: Path) -> None:
    clock = FakeClock()
    recorded = suite(project, clock, mixed(clock))
    assert recorded.exit_code == 0, [c.outcome for c in recorded.checks]
    # By file, then platform in the order the pool first holds it.
    assert [(c.name, platform(c)) for c in recorded.checks] == [
        (f"Sign up {n}", p) for n in range(1, 4) for p in ("ios", "android")
    ]
    assert {c.mode for c in recorded.checks} == {"smart"}
    # Work stealing inside each platform's lane: no check runs on the other platform's phones twice.
    by_label = Counter((c.device_label or "")[:-2] for c in recorded.checks)
    assert by_label == {"iphone": 3, "pixel": 3}
    again = suite(project, clock, mixed(clock), model=False)
    assert again.exit_code == 0
    assert all(c.mode == "replay" and c.model_calls == 0 and c.cost.usd == 0 for c in again.checks)
    assert [c["platform"] for c in again.to_dict()["checks"]] == ["ios", "android"] * 3


@pytest.mark.parametrize("chosen", [IOS, ANDROID])
def test_a_selected_platform_runs_the_checks_on_its_devices_only(project: Path, chosen: Platform) -> None:
    clock = FakeClock()
    result = suite(project, clock, mixed(clock), platform=chosen)
    assert result.exit_code == 0
    assert [platform(c) for c in result.checks] == [chosen.value] * 3


def test_a_selected_platform_the_pool_lacks_is_a_usage_problem_saying_what_it_holds(project: Path) -> None:
    clock = FakeClock()
    phones = {"iphone-1": Phone(clock, "yourapp")}
    result = suite(project, clock, phones, platform="android")
    assert result.exit_code == 3
    assert {(c.verdict, c.outcome.failure_class) for c in result.checks} == {
        (mc.Verdict.COULDNT_RUN, mc.FailureClass.USAGE)
    }
    assert result.checks[0].outcome.message == (
        "no device of the pool runs Android, the platform this run selects: the pool holds iOS devices"
    )
    assert phones["iphone-1"].infos == 1  # asked what it is, and nothing else


def test_a_pool_of_one_platform_runs_as_before_and_one_device_is_not_asked_first(project: Path) -> None:
    clock = FakeClock()
    one = Phone(clock, "yourapp-android")
    result = suite(project, clock, [one])
    assert result.exit_code == 0
    assert one.infos == 3  # once per check: the suite asked nothing more of a pool of one


def test_a_lost_android_phone_hands_its_check_to_the_other_android_phone_not_an_iphone(project: Path) -> None:
    clock = FakeClock()
    phones = mixed(clock)
    dead = phones["pixel-1"]
    original = dead.info

    async def dies_after_saying_what_it_is() -> mc.DeviceInfo:
        info = await original()
        dead.dead = True
        return info

    dead.info = dies_after_saying_what_it_is  # type: ignore[method-assign]
    result = suite(project, clock, phones)
    assert result.exit_code == 0, [c.outcome for c in result.checks]
    android = [c.device_label for c in result.checks if platform(c) == "android"]
    assert android == ["pixel-2"] * 3


@pytest.mark.parametrize(
    ("platforms", "each_device", "selected", "lanes"),
    [
        ([IOS, IOS], False, None, [[0, 1]]),
        ([IOS, ANDROID, IOS, ANDROID], False, None, [[0, 2], [1, 3]]),
        ([ANDROID, IOS], False, None, [[0], [1]]),  # the pool's order of platforms
        ([None, ANDROID, IOS], False, None, [[0, 1], [2]]),  # one that can't say joins the first lane
        ([None, None], False, None, [[0, 1]]),
        ([IOS, ANDROID, IOS], True, None, [[0], [1], [2]]),
        ([IOS, ANDROID, IOS], False, IOS, [[0, 2]]),
        ([IOS, ANDROID, None], False, ANDROID, [[1, 2]]),
        ([IOS, ANDROID, IOS], True, IOS, [[0], [2]]),
        ([IOS, IOS], False, ANDROID, []),
        ([None], False, ANDROID, []),  # one that can't say is no reason to run
    ],
)
def test_lanes_come_from_each_devices_platform(
    platforms: list[Platform | None], each_device: bool, selected: Platform | None, lanes: list[list[int]]
) -> None:
    assert lanes_of(platforms, each_device=each_device, selected=selected) == lanes
