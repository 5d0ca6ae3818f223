"""The replayer on the scripted phone and the fake clock: no real sleeping anywhere."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core import FailureClass
from mobster_core._rules.replay.identity import Env, path_identity
from mobster_core._rules.replay.typing_rules import Provenance, record_text
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.ended import Ended
from mobster_core._run.replay import FromCheck, Replayed, Replayer
from mobster_core._store.cache import ReplayCache
from mobster_core._store.journal import Journal, read_journal
from mobster_core.results import Fix, FixCode, StepSource
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from tests.core.helpers import NOW

APP = "com.example.yourapp"
CHECK_STEPS = [
    'Tap "Sign up"',
    'Type "ada@example.com" into "Email"',
    'Type "hunter22" into "Password"',
    'Tap "Continue"',
]
PROVENANCE = Provenance.of(steps=CHECK_STEPS)


def phone_of(clock: FakeClock, name: str = "yourapp") -> ScriptedPhone:
    return ScriptedPhone.from_file(sample_path(name), clock=clock)


def script(screens: str, *, latency: str = "zero", kind: str = "simulator") -> str:
    return f"""
version: 1
device: {{name: Test iPhone, ios: "26.4", kind: {kind}}}
latency: {latency}
apps:
  {APP}:
    name: YourApp
    version: "1.0"
    build: "1"
    launch: start
    screens:
{screens}
"""


async def record(phone: mc.Device, actions: list[tuple[str, str | None, str | None, str | None]]) -> list[mc.Step]:
    """Do ``(op, role, label, text)`` actions on the phone and keep them as steps, as recording does."""
    steps: list[mc.Step] = []
    for op, role, label, text in actions:
        screen = await phone.read()
        element = None
        target = None
        if label is not None:
            assert role is not None
            (element,) = screen.find(role, label)
            target = {
                "label": element.label,
                "role": element.role,
                "id": element.path,
                "frame": list(element.frame),
                "count": 1,
                "nth": 0,
            }
        stored, live = text, False
        if op == "TYPE":
            assert element is not None
            assert text is not None
            kept = record_text(
                text,
                role=element.role,
                label=element.label,
                identifier=element.identifier,
                provenance=PROVENANCE,
            )
            stored, live = kept.text, kept.live
        steps.append(
            mc.Step.from_dict(
                {"op": op, "app": screen.app, "target": target,
                 "screen": {"hash": screen.hash, "signature": screen.signature},
                 "text": stored, "commit": None, "live": live}
            )
        )  # fmt: skip
        await phone.act(mc.Action(mc.Op(op), element=element, text=text))
    return steps


SIGNUP_ACTIONS: list[tuple[str, str | None, str | None, str | None]] = [
    ("TAP", "Button", "Sign up", None),
    ("TYPE", "TextField", "Email", "ada@example.com"),
    ("TAP", "Button", "Continue", None),
]


def recorded_signup() -> list[mc.Step]:
    clock = FakeClock()
    phone = phone_of(clock)

    async def go() -> list[mc.Step]:
        await phone.launch(APP, mc.LaunchOptions())
        return await record(phone, SIGNUP_ACTIONS)

    return clock.run(go())


def replay(
    phone: ScriptedPhone,
    clock: FakeClock,
    steps: list[mc.Step],
    *,
    kind: mc.DeviceKind = mc.DeviceKind.SIMULATOR,
    journal: Journal | None = None,
    live: Callable[[int, mc.Step, mc.Screen], Awaitable[None]] | None = None,
    before: Callable[[], None] | None = None,
) -> Any:
    dispatch = Dispatcher(phone, clock, MemoryJournal() if journal is None else journal)
    replayer = Replayer(dispatch, kind, PROVENANCE, check=FromCheck(live=live))

    async def go() -> Any:
        await dispatch.launch(APP, mc.LaunchOptions())
        if before is not None:
            before()
        return await replayer.run(steps)

    return clock.run(go())


def failure_of(result: Replayed) -> FailureClass | None:
    return None if result.failure is None else result.failure.failure_class


def test_a_recorded_path_replays_on_the_same_app() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, steps)
    assert result.completed
    assert [r.source for r in result.steps] == [StepSource.REPLAY] * 3
    assert [r.text for r in result.steps] == [
        'Tap "Sign up"',
        'Type "ada@example.com" into "Email"',
        'Tap "Continue"',
    ]
    assert phone.screen_name(APP) == "done"
    assert [a.op for a in phone.actions] == [mc.Op.TAP, mc.Op.TYPE, mc.Op.TAP]


def test_renamed_button_drifts_at_one_second_once_settled() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock, "yourapp-renamed")
    result = replay(phone, clock, steps)
    assert result.drift is not None
    assert len(result.reports) == 2
    assert result.drift.match.reason == '"Continue" isn\'t on the screen'
    drifted = result.steps[-1]
    assert (drifted.index, drifted.waited_s, drifted.settled) == (3, pytest.approx(1.0), True)
    assert result.message == 'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen'
    assert len(phone.actions) == 2  # nothing sent for the drifted step


def test_a_screen_that_never_settles_drifts_at_three_seconds() -> None:
    screens = """
      start:
        - {role: Button, label: Go, tap: next}
      next:
        - {role: StaticText, label: Loading, ticks: 0.125}
        - {role: Button, label: Other}
"""
    clock = FakeClock()
    phone = ScriptedPhone.from_text(script(screens), clock=clock)

    async def make() -> list[mc.Step]:
        await phone.launch(APP, mc.LaunchOptions())
        return await record(phone, [("TAP", "Button", "Go", None)])

    steps = clock.run(make())
    # a step recorded on "next" whose target never appears there
    start_screen = steps[0]
    never = mc.Step.from_dict(
        {
            **start_screen.to_dict(),
            "target": {"label": "Missing", "role": "Button", "id": "/0/0", "frame": [0, 0, 1, 1], "count": 1, "nth": 0},
        }
    )
    clock2 = FakeClock()
    phone2 = ScriptedPhone.from_text(script(screens), clock=clock2)
    result = replay(phone2, clock2, [steps[0], never])
    assert result.drift is not None
    assert result.steps[-1].waited_s == pytest.approx(3.0)
    assert not result.steps[-1].settled


def test_a_target_that_appears_later_is_acted_on_at_the_first_read_that_shows_it() -> None:
    screens = """
      start:
        - {role: StaticText, label: Hello}
        - {role: StaticText, label: Wait}
        - {role: Button, label: Go, after: 0.6, tap: next}
      next:
        - {role: StaticText, label: Done}
"""
    clock = FakeClock()
    phone = ScriptedPhone.from_text(script(screens), clock=clock)

    async def make() -> list[mc.Step]:
        await phone.launch(APP, mc.LaunchOptions())
        await clock.sleep(1)
        return await record(phone, [("TAP", "Button", "Go", None)])

    steps = clock.run(make())
    clock2 = FakeClock()
    phone2 = ScriptedPhone.from_text(script(screens), clock=clock2)
    result = replay(phone2, clock2, steps)
    assert result.completed
    assert result.steps[0].waited_s == pytest.approx(0.6)
    assert phone2.screen_name(APP) == "next"


def test_banner_case_runs_only_once_two_reads_agree() -> None:
    form = """
      start:
        - {role: StaticText, label: Create your account}
        - {role: TextField, label: Email}
        - {role: Button, label: Continue, tap: next}
      next:
        - {role: StaticText, label: Done}
"""
    banner = form.replace("      start:\n", "      start:\n        - {role: StaticText, label: New: faster sign in}\n")
    banner = banner.replace("New: faster sign in", "'New: faster sign in'")
    clock = FakeClock()
    phone = ScriptedPhone.from_text(script(form), clock=clock)

    async def make() -> list[mc.Step]:
        await phone.launch(APP, mc.LaunchOptions())
        return await record(phone, [("TAP", "Button", "Continue", None)])

    steps = clock.run(make())
    clock2 = FakeClock()
    phone2 = ScriptedPhone.from_text(script(banner), clock=clock2)
    result = replay(phone2, clock2, steps)
    assert result.completed
    report = result.steps[0]
    assert (report.waited_s, report.settled, report.similarity) == (pytest.approx(0.15), True, 0.75)


class ReadLog:
    """A device wrapper that notes when each read starts (a typed fake, not a mock)."""

    def __init__(self, inner: ScriptedPhone, clock: FakeClock) -> None:
        self.inner = inner
        self.clock = clock
        self.starts: list[float] = []

    async def info(self) -> mc.DeviceInfo:
        return await self.inner.info()

    async def app_info(self, bundle: str) -> mc.AppInfo:
        return await self.inner.app_info(bundle)

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        await self.inner.launch(bundle, options)

    async def read(self) -> mc.Screen:
        self.starts.append(self.clock.now())
        return await self.inner.read()

    async def act(self, action: mc.Action) -> None:
        await self.inner.act(action)


def test_a_slow_read_is_followed_by_the_next_read_at_once() -> None:
    steps = recorded_signup()
    slow = sample_path("yourapp").read_text().replace("latency: zero", "latency: {read: 0.25}")
    clock = FakeClock()
    phone = ScriptedPhone.from_text(slow, clock=clock)
    logged = ReadLog(phone, clock)
    dispatch = Dispatcher(logged, clock, MemoryJournal())
    replayer = Replayer(dispatch, mc.DeviceKind.SIMULATOR, PROVENANCE)
    # a step that never matches: the reads run back to back, 0.25 s apart, not 0.15
    never = mc.Step.from_dict(
        {
            **steps[0].to_dict(),
            "target": {"label": "Missing", "role": "Button", "id": "/0/0", "frame": [0, 0, 1, 1], "count": 1, "nth": 0},
        }
    )

    async def go() -> Any:
        await dispatch.launch(APP, mc.LaunchOptions())
        return await replayer.run([never])

    result = clock.run(go())
    assert result.drift is not None
    gaps = [b - a for a, b in zip(logged.starts, logged.starts[1:], strict=False)]
    assert gaps
    assert all(g == pytest.approx(0.25) for g in gaps)


def test_the_replay_acts_on_the_current_frame_not_the_recorded_one() -> None:
    steps = recorded_signup()
    moved = (
        sample_path("yourapp")
        .read_text()
        .replace(
            "{role: Button, label: Continue, tap: done}",
            "{role: Button, label: Continue, tap: done, frame: [0.2, 0.9, 0.6, 0.05]}",
        )
    )
    clock = FakeClock()
    phone = ScriptedPhone.from_text(moved, clock=clock)
    result = replay(phone, clock, steps)
    assert result.completed
    last = phone.actions[-1]
    assert last.element is not None
    assert last.element.frame == (0.2, 0.9, 0.6, 0.05)
    assert steps[2].target is not None
    assert steps[2].target.frame != last.element.frame


# -- unknown outcomes (§9) ---------------------------------------------------------------------


def test_an_action_that_raises_ends_with_unknown_outcome_and_nothing_after() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, steps, before=phone.fail_next_action)
    assert failure_of(result) is FailureClass.UNKNOWN_OUTCOME
    assert result.failure is not None
    assert (result.failure.step, result.failure.fix) == (1, None)  # where it ended, as a field
    assert len(result.reports) == 0
    assert "Look at the app before running again" in result.message
    assert "It was not sent again" in result.message
    assert len(phone.actions) == 1


def test_a_field_that_drops_typed_text_is_an_unknown_outcome() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, steps, before=phone.drop_typing)
    assert failure_of(result) is FailureClass.UNKNOWN_OUTCOME
    assert result.failure is not None
    assert result.failure.step == 2
    assert len(result.reports) == 1
    assert 'the field "Email" shows' in result.message
    assert [a.op for a in phone.actions] == [mc.Op.TAP, mc.Op.TYPE]


def test_a_read_after_an_action_that_fails_twice_is_an_unknown_outcome() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, steps, before=lambda: phone.fail_next_read(2))
    assert failure_of(result) is FailureClass.UNKNOWN_OUTCOME
    assert "reading the screen for step 1" in result.message
    assert result.failure is not None
    assert result.failure.step == 1
    assert phone.actions == []


def test_one_failed_read_is_read_again() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, steps, before=lambda: phone.fail_next_read(1))
    assert result.completed


def test_a_read_that_fails_before_any_action_is_a_device_problem() -> None:
    clock = FakeClock()
    phone = phone_of(clock)
    replayer = Replayer(Dispatcher(phone, clock, MemoryJournal()), mc.DeviceKind.SIMULATOR, PROVENANCE)
    phone.fail_next_read(2)
    result = clock.run(replayer.run(recorded_signup()))
    assert failure_of(result) is FailureClass.DEVICE
    assert result.message.startswith("couldn't read the screen")


def test_a_step_is_never_dispatched_twice_in_a_run() -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    dispatch = Dispatcher(phone, clock, MemoryJournal())
    replayer = Replayer(dispatch, mc.DeviceKind.SIMULATOR, PROVENANCE)

    async def go() -> Any:
        await dispatch.launch(APP, mc.LaunchOptions())
        first = await replayer.run(steps[:1])
        await phone.launch(APP, mc.LaunchOptions())
        return first, await replayer.run(steps[:1])

    first, again = clock.run(go())
    assert first.completed
    assert failure_of(again) is FailureClass.UNKNOWN_OUTCOME
    assert "step-1" in again.message
    assert len(phone.actions) == 1


def test_a_launch_that_fails(tmp_path: Path) -> None:
    clock = FakeClock()
    phone = phone_of(clock)
    dispatch = Dispatcher(phone, clock, MemoryJournal())
    with pytest.raises(Ended) as ended:
        clock.run(dispatch.launch("com.example.missing", mc.LaunchOptions()))
    assert ended.value.outcome.failure_class is FailureClass.DEVICE
    assert "couldn't launch com.example.missing" in ended.value.outcome.message


# -- safety (§8) -------------------------------------------------------------------------------


def paywall_steps(kind: str) -> tuple[list[mc.Step], str]:
    text = sample_path("yourapp").read_text().replace("kind: simulator", f"kind: {kind}")
    clock = FakeClock()
    phone = ScriptedPhone.from_text(text, clock=clock)

    async def make() -> list[mc.Step]:
        await phone.launch(APP, mc.LaunchOptions())
        return await record(
            phone,
            [
                ("TAP", "Button", "Settings", None),
                ("TAP", "Button", "Upgrade to Pro", None),
                ("TAP", "Button", "Subscribe", None),
            ],
        )

    return clock.run(make()), text


@pytest.mark.parametrize("kind", ["simulator", "iphone"])
def test_a_purchase_is_refused_and_never_sent(kind: str) -> None:
    steps, text = paywall_steps(kind)
    clock = FakeClock()
    phone = ScriptedPhone.from_text(text, clock=clock)
    result = replay(phone, clock, steps, kind=mc.DeviceKind(kind))
    assert failure_of(result) is FailureClass.REFUSED
    assert len(result.reports) == 2
    assert result.message.startswith('step 3 (Tap "Subscribe") was refused: a purchase is refused on')
    assert result.failure is not None
    assert (result.failure.step, result.failure.fix) == (3, None)
    assert [a.element.label for a in phone.actions if a.element] == ["Settings", "Upgrade to Pro"]


def test_a_recorded_commit_is_refused_even_when_the_label_looks_harmless() -> None:
    steps = recorded_signup()
    sneaky = mc.Step.from_dict({**steps[2].to_dict(), "commit": "send"})
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, [*steps[:2], sneaky], kind=mc.DeviceKind.IPHONE)
    assert failure_of(result) is FailureClass.REFUSED
    assert "a send is refused on an iPhone" in result.message
    assert len(phone.actions) == 2


# -- typing (§7) -------------------------------------------------------------------------------


def test_a_live_step_without_a_model_cannot_run() -> None:
    steps = recorded_signup()
    live = mc.Step.from_dict({**steps[1].to_dict(), "text": None, "live": True})
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, [steps[0], live, steps[2]])
    assert failure_of(result) is FailureClass.MODEL
    assert len(result.reports) == 1
    assert "is typed by the model on every run, and there is no model" in result.message
    assert result.failure is not None
    assert (result.failure.step, result.failure.fix) == (2, Fix(FixCode.GIVE_MODEL))
    assert "--model" not in result.message  # the fix is data: each front end spells it
    assert len(phone.actions) == 1


def test_text_not_in_the_checks_words_is_never_replayed() -> None:
    steps = recorded_signup()
    invented = mc.Step.from_dict({**steps[1].to_dict(), "text": "someone@else.com"})
    clock = FakeClock()
    phone = phone_of(clock)
    result = replay(phone, clock, [steps[0], invented])
    assert failure_of(result) is FailureClass.MODEL
    assert all(a.text != "someone@else.com" for a in phone.actions)


def test_a_password_never_reaches_the_disk(tmp_path: Path) -> None:
    secret = "hunter22"
    clock = FakeClock()
    phone = phone_of(clock)
    password_actions = [
        *SIGNUP_ACTIONS[:2],
        ("TYPE", "SecureTextField", "Password", secret),
        SIGNUP_ACTIONS[2],
    ]

    async def make() -> list[mc.Step]:
        await phone.launch(APP, mc.LaunchOptions())
        return await record(phone, password_actions)

    steps = clock.run(make())
    assert steps[2].text is None
    assert steps[2].live

    identity = path_identity(CHECK_STEPS, bundle=APP, app_path="YourApp.app", launch=mc.LaunchOptions())
    env = Env.of(clock.run(phone.info()), clock.run(phone.app_info(APP)))
    cache = ReplayCache(tmp_path)
    cache.store(identity, env, steps, recorded_at=NOW)

    clock2 = FakeClock()
    phone2 = phone_of(clock2)
    journal = Journal(tmp_path / ".mobster" / "runs" / "run-1")

    async def model_types_the_password(index: int, step: mc.Step, screen: mc.Screen) -> None:
        assert step.target is not None
        (field,) = screen.find(step.target.role, step.target.label)
        journal.intent(f"live-{index}", {"op": "TYPE", "text": secret}, masked=True)
        await phone2.act(mc.Action(mc.Op.TYPE, element=field, text=secret))
        journal.outcome(f"live-{index}", mc_outcome_ok())

    lookup = cache.lookup(identity, env)
    assert lookup.steps is not None
    result = replay(phone2, clock2, list(lookup.steps), journal=journal, live=model_types_the_password)
    journal.close()
    assert result.completed
    assert [r.source for r in result.steps] == [
        StepSource.REPLAY,
        StepSource.REPLAY,
        StepSource.LIVE,
        StepSource.REPLAY,
    ]
    for file in (tmp_path / ".mobster").rglob("*"):
        if file.is_file():
            assert secret.encode() not in file.read_bytes(), file
    events = read_journal(tmp_path / ".mobster" / "runs" / "run-1" / "journal.jsonl")
    intents = [e for e in events if e["event"] == "intent"]
    assert [e["key"] for e in intents] == ["launch", "step-1", "step-2", "live-3", "step-4"]
    assert all(e["event"] == "intent" for e in events[::2])
    assert json.dumps(events).count(secret) == 0


def mc_outcome_ok() -> Any:
    from mobster_core._store.journal import Effect

    return Effect.OK


def test_the_journal_has_each_intent_before_its_outcome(tmp_path: Path) -> None:
    steps = recorded_signup()
    clock = FakeClock()
    phone = phone_of(clock)
    journal = Journal(tmp_path / "run")
    result = replay(phone, clock, steps, journal=journal, before=phone.fail_next_action)
    journal.close()
    assert failure_of(result) is FailureClass.UNKNOWN_OUTCOME
    events = read_journal(tmp_path / "run" / "journal.jsonl")
    assert [(e["event"], e["key"], e.get("outcome")) for e in events] == [
        ("intent", "launch", None),
        ("outcome", "launch", "ok"),
        ("intent", "step-1", None),
        ("outcome", "step-1", "unknown"),
    ]
