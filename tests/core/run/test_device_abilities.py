"""A device's optional abilities: the verdict reads with ``EvidenceReads``, the replay checks its
target with ``TargetChecks`` before acting (on the scripted phone and the fake clock)."""

from __future__ import annotations

from typing import Any

import attrs

import mobster_core as mc
from mobster_core import Element, FailureClass, Screen
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.judge import settled_read
from mobster_core._run.replay import Replayed, Replayer
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from tests.core.helpers import step_on

APP = "com.example.yourapp"


class Wrapped:
    """The scripted phone with a fast read that shows hidden content, and the abilities around it."""

    def __init__(self, phone: ScriptedPhone, *, hide: str = "") -> None:
        self.phone = phone
        self.hide = hide  # a label the phone "fades out": the fast read can't tell
        self.checked: list[str] = []
        self.reads: list[str] = []
        self.fail_checks = 0

    async def info(self) -> mc.DeviceInfo:
        return await self.phone.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.phone.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        await self.phone.launch(bundle, options)

    async def read(self) -> Screen:
        self.reads.append("fast")
        return await self.phone.read()

    async def read_evidence(self) -> Screen:
        self.reads.append("evidence")
        screen = await self.phone.read()
        return attrs.evolve(
            screen, elements=tuple(attrs.evolve(e, visible=e.visible and e.label != self.hide) for e in screen.elements)
        )

    async def check_target(self, element: Element) -> bool:
        self.checked.append(element.label)
        if self.fail_checks:
            self.fail_checks -= 1
            raise mc.DeviceError("the check's reply was garbled")
        return element.label != self.hide

    async def act(self, action: mc.Action) -> None:
        await self.phone.act(action)


def device(clock: FakeClock, hide: str = "") -> Wrapped:
    return Wrapped(ScriptedPhone.from_file(sample_path("yourapp"), clock=clock), hide=hide)


def test_the_settled_read_uses_the_evidence_read_when_the_device_has_one() -> None:
    clock = FakeClock()
    d = device(clock, hide="Sign up")

    async def go() -> Any:
        await d.launch(APP, mc.LaunchOptions())
        dispatch = Dispatcher(d, clock, MemoryJournal())
        return await settled_read(lambda: dispatch.read_evidence("the verdict"), clock)

    read = clock.run(go())
    assert d.reads == ["evidence", "evidence"]
    assert read.stable
    assert ["Button", "Sign up"] not in read.screen.signature
    assert isinstance(d, mc.EvidenceReads)
    assert isinstance(d, mc.TargetChecks)


def test_a_device_without_an_evidence_read_is_read_as_it_is() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

    async def go() -> Any:
        await phone.launch(APP, mc.LaunchOptions())
        dispatch = Dispatcher(phone, clock, MemoryJournal())
        return await settled_read(lambda: dispatch.read_evidence("the verdict"), clock)

    assert not isinstance(phone, mc.EvidenceReads)
    assert clock.run(go()).stable


def replay(d: Wrapped, clock: FakeClock, label: str) -> Replayed:
    async def go() -> Replayed:
        await d.launch(APP, mc.LaunchOptions())
        screen = await d.read()
        step = step_on(screen, label=label)
        replayer = Replayer(Dispatcher(d, clock, MemoryJournal()), mc.DeviceKind.SIMULATOR, Provenance())
        return await replayer.run([step])

    return clock.run(go())


def test_a_replayed_tap_on_a_target_the_device_says_is_hidden_drifts_and_is_never_sent() -> None:
    clock = FakeClock()
    d = device(clock, hide="Sign up")
    result = replay(d, clock, "Sign up")
    assert result.drift is not None
    assert result.message == (
        'step 1 (Tap "Sign up") drifted: "Sign up" is in the tree but hidden: the device says it isn\'t visible'
    )
    assert d.phone.actions == []  # never tapped
    assert set(d.checked) == {"Sign up"}
    assert len(d.checked) >= 2  # asked on every read that matched, until the step drifted
    assert clock.now() >= 1.0  # the drift rule, as for any step that doesn't match


def test_a_target_the_device_confirms_is_tapped_after_one_check() -> None:
    clock = FakeClock()
    d = device(clock)
    result = replay(d, clock, "Sign up")
    assert result.completed
    assert d.checked == ["Sign up"]
    assert [a.op for a in d.phone.actions] == [mc.Op.TAP]


def test_a_check_that_fails_once_is_asked_again_and_twice_is_a_device_problem() -> None:
    clock = FakeClock()
    d = device(clock)
    d.fail_checks = 1
    assert replay(d, clock, "Sign up").completed
    clock = FakeClock()
    d = device(clock)
    d.fail_checks = 2
    result = replay(d, clock, "Sign up")
    assert result.failure is not None
    assert result.failure.failure_class is FailureClass.DEVICE
    assert result.message.startswith("couldn't check the target: the check's reply was garbled")
    assert d.phone.actions == []
