"""Smart on the scripted phone with the scripted model, on the fake clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

import mobster_core as mc
from mobster_core import Price, PriceTable
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._rules.vocabulary.steps import dump_path
from mobster_core._run.agent import Agent, Brief, Limits, ModelCalls, Recorded, _relocate
from mobster_core._run.dispatch import Dispatcher
from mobster_core._run.replay import Replayer
from mobster_core._store.cache import ReplayCache
from mobster_core._store.journal import Journal
from mobster_core.testing import FakeClock, MemoryJournal
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.helpers import NOW
from tests.samples import APP_SCRIPT_HEAD

APP = "com.example.yourapp"
STEPS = ('Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Type "hunter22" into "Password"', 'Tap "Continue"')


@attrs.frozen
class Ran:
    """What a Smart run returned, with the run's model calls (their count and cost)."""

    recorded: Recorded
    calls: ModelCalls

    @property
    def stop(self) -> str:
        failure = self.recorded.failure
        if failure is not None:
            assert failure.failure_class is not None
            return failure.failure_class.value
        return "done" if self.recorded.blocked is None else "blocked"

    @property
    def message(self) -> str:
        failure = self.recorded.failure
        return failure.message if failure is not None else self.recorded.blocked or ""

    @property
    def path(self) -> tuple[mc.Step, ...]:
        return self.recorded.path

    @property
    def refusals(self) -> tuple[str, ...]:
        return self.recorded.refusals


def brief(steps: tuple[str, ...] = STEPS, limits: Limits | None = None, request: str | None = None) -> Brief:
    return Brief(
        request=request or "Check: a new user signs up\nSteps:\n" + "\n".join(steps),
        kind=mc.DeviceKind.SIMULATOR,
        provenance=Provenance.of(steps=steps),
        steps=steps,
        limits=limits or Limits(),
    )


def run_smart(
    phone: ScriptedPhone,
    clock: FakeClock,
    model: Any,
    the_brief: Brief,
    *,
    prices: PriceTable | None = None,
    journal: Any = None,
    before: Any = None,
) -> Ran:
    calls = ModelCalls(model, prices)
    agent = Agent(calls, Dispatcher(phone, clock, MemoryJournal() if journal is None else journal), the_brief)

    async def go() -> Recorded:
        await phone.launch(APP, mc.LaunchOptions())
        if before is not None:
            before()
        return await agent.run()

    return Ran(clock.run(go()), calls)


def smart(
    steps: tuple[str, ...] = STEPS,
    *,
    phone_name: str = "yourapp",
    text: str | None = None,
    journal: Any = None,
    limits: Limits | None = None,
    model: Any = None,
    delay: float = 0.0,
) -> tuple[Ran, ScriptedPhone, FakeClock]:
    clock = FakeClock()
    phone = (
        ScriptedPhone.from_text(text, clock=clock)
        if text
        else ScriptedPhone.from_file(sample_path(phone_name), clock=clock)
    )
    model = model or ScriptedModel(clock=clock, delay=delay)
    return run_smart(phone, clock, model, brief(steps, limits), journal=journal), phone, clock


def test_smart_records_the_signup_path_and_it_validates() -> None:
    result, phone, _ = smart()
    assert result.stop == "done"
    assert result.calls.count == 5  # four steps and "done"
    assert phone.screen_name(APP) == "done"
    path = mc.load_path(dump_path(result.path))
    assert [s.describe() for s in path] == [
        'Tap "Sign up"',
        'Type "ada@example.com" into "Email"',
        'Type into "Password"',
        'Tap "Continue"',
    ]
    password = path[2]
    assert (password.text, password.live) == (None, True)
    assert path[1].text == "ada@example.com"
    assert not path[1].live
    assert all(s.app == APP for s in path)
    assert result.calls.usage.estimated
    assert result.calls.cost.usd == 0.0


def test_the_recorded_path_replays_with_zero_model_calls_except_live_steps() -> None:
    result, _, _ = smart(STEPS[:2] + STEPS[3:])  # no password step
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    dispatch = Dispatcher(phone, clock, MemoryJournal())
    replayer = Replayer(dispatch, mc.DeviceKind.SIMULATOR, Provenance.of(steps=STEPS))

    async def go() -> Any:
        await dispatch.launch(APP, mc.LaunchOptions())
        return await replayer.run(result.path)

    replayed = clock.run(go())
    assert replayed.completed
    assert phone.screen_name(APP) == "done"


def test_a_password_typed_while_recording_is_nowhere_on_disk(tmp_path: Path) -> None:
    journal = Journal(tmp_path / ".mobster" / "runs" / "r1")
    result, _, _ = smart(journal=journal)
    journal.close()
    cache = ReplayCache(tmp_path)
    env = Env(app_version="1.0", app_build="1", ios_major=26, kind=mc.DeviceKind.SIMULATOR)
    cache.store("0123456789abcdef", env, result.path, recorded_at=NOW)
    files = [f for f in (tmp_path / ".mobster").rglob("*") if f.is_file()]
    assert len(files) >= 3
    for f in files:
        assert b"hunter22" not in f.read_bytes(), f


def test_a_purchase_is_refused_and_told_to_the_model() -> None:
    steps = ('Tap "Settings"', 'Tap "Upgrade to Pro"', 'Tap "Subscribe"')
    result, phone, _ = smart(steps)
    assert result.stop == "done"
    assert result.refusals == ('Tap "Subscribe" was refused: a purchase is refused on a simulator',)
    assert [a.element.label for a in phone.actions if a.element] == ["Settings", "Upgrade to Pro"]
    assert [s.describe() for s in result.path] == ['Tap "Settings"', 'Tap "Upgrade to Pro"']


def test_blocked_when_the_element_is_missing() -> None:
    result, _, _ = smart(('Tap "Nope"',))
    assert result.stop == "blocked"
    assert '"Nope"' in result.message


def test_the_turn_limit_stops_a_run() -> None:
    result, _, _ = smart(limits=Limits(max_turns=2))
    assert result.stop == "budget"
    assert "2 turns" in result.message


def test_the_usd_budget_stops_a_run() -> None:
    class Pricey(ScriptedModel):
        pass

    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    prices = PriceTable().extend({"claude-opus-x": Price(1000.0, 1000.0)})
    result = run_smart(
        phone, clock, Pricey(name="claude-opus-x"), brief(request="r", limits=Limits(max_usd=0.25)), prices=prices
    )
    assert result.stop == "budget"
    assert result.calls.count == 1
    assert "$0.25" in result.message


def test_the_time_budget_stops_a_run() -> None:
    result, _, clock = smart(limits=Limits(max_seconds=5.0), delay=2.5)
    assert result.stop == "budget"
    assert "time budget" in result.message
    assert clock.now() == pytest.approx(5.0)  # the call in flight is cut at the deadline


class ScriptedReplies:
    """A model that plays back decisions (a typed fake for the invalid-reply paths)."""

    name = "scripted"

    def __init__(self, replies: list[mc.Decision]) -> None:
        self.replies = replies
        self.prompts: list[mc.Prompt] = []

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.prompts.append(prompt)
        return self.replies.pop(0)


def act(*actions: mc.ModelAction) -> mc.Decision:
    return mc.Decision(kind=mc.DecisionKind.ACT, actions=actions)


def test_invalid_actions_are_told_back_and_never_sent() -> None:
    model = ScriptedReplies(
        [
            act(mc.ModelAction(mc.Op.TAP, target="e99")),
            act(mc.ModelAction(mc.Op.TAP)),
            act(mc.ModelAction(mc.Op.TYPE, target="e1")),
            mc.Decision(kind=mc.DecisionKind.DONE),
        ]
    )
    result, phone, _ = smart(model=model)
    assert result.stop == "done"
    assert phone.actions == []
    history = model.prompts[-1].history
    assert history == (
        "Not done: action 1: e99 is not a row of the current screen",
        "Not done: action 1: TAP needs a target row",
        "Not done: action 1: TYPE needs text",
    )


def test_too_many_invalid_turns_stop_the_run() -> None:
    model = ScriptedReplies([act(mc.ModelAction(mc.Op.TAP, target="e99"))] * 5)
    result, _, _ = smart(model=model, limits=Limits(max_invalid=2))
    assert result.stop == "model"
    assert "invalid actions 3 times" in result.message


def test_several_actions_in_one_turn_follow_the_screen() -> None:
    # Sign up (e1 on welcome), then Settings (e2 on welcome): after the first tap the screen
    # changed, so the second action's element is gone and the rest of the turn is dropped.
    model = ScriptedReplies(
        [
            act(mc.ModelAction(mc.Op.TAP, target="e1"), mc.ModelAction(mc.Op.TAP, target="e2")),
            mc.Decision(kind=mc.DecisionKind.DONE),
        ]
    )
    _, phone, _ = smart(model=model)
    assert len(phone.actions) == 1
    assert "(the screen changed, so the rest of that turn was not done)" in model.prompts[-1].history


def test_an_action_that_raises_ends_the_run_with_unknown_outcome() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    result = run_smart(phone, clock, ScriptedModel(), brief(request="r"), before=phone.fail_next_action)
    assert result.stop == "unknown_outcome"
    assert len(phone.actions) == 1


def test_the_prompt_shows_rows_and_quotes_labels() -> None:
    model = ScriptedReplies([mc.Decision(kind=mc.DecisionKind.DONE)])
    smart(model=model)
    prompt = model.prompts[0]
    assert 'Button "Sign up"' in prompt.screen
    assert prompt.tool_schema["name"] == "act"
    assert "never instructions" in prompt.system
    assert prompt.screenshot is not None
    assert prompt.screenshot.startswith(b"\x89PNG")


TWO_CONTINUES = (
    APP_SCRIPT_HEAD
    + """\
    launch: welcome
    screens:
      welcome:
        - {role: StaticText, label: Welcome}
        - {role: Button, label: Continue, tap: welcome}
        - {role: Button, label: Continue, id: as-guest, tap: done}
      done:
        - {role: StaticText, label: Welcome aboard}
"""
)


def test_a_recorded_target_keeps_how_many_shared_its_label_and_which_it_was() -> None:
    model = ScriptedReplies([act(mc.ModelAction(mc.Op.TAP, target="e2")), mc.Decision(kind=mc.DecisionKind.DONE)])
    result, phone, _ = smart(('Tap "Continue"',), text=TWO_CONTINUES, model=model)
    assert phone.screen_name(APP) == "done"
    (step,) = result.path
    assert step.target is not None
    assert (step.target.id, step.target.count, step.target.nth) == ("/0/2", 2, 1)


def element(path: str, label: str = "Membership", role: str = "Cell") -> mc.Element:
    return mc.Element(role=role, label=label, path=path)


def read(*elements: mc.Element) -> mc.Screen:
    return mc.Screen(app=APP, elements=elements)


def test_a_model_action_is_not_moved_to_a_copy_that_took_its_place() -> None:
    # The model chose the Membership cell at /0/1; while it thought, a second one was inserted above.
    seen = read(element("/0/0", "Account", "StaticText"), element("/0/1"))
    now = read(element("/0/0", "Account", "StaticText"), element("/0/1"), element("/0/2"))
    assert _relocate(seen, now, seen.elements[1]) is None
    moved = read(element("/0/0", "Banner", "StaticText"), element("/0/1", "Account", "StaticText"), element("/0/2"))
    relocated = _relocate(seen, moved, seen.elements[1])
    assert relocated is not None
    assert relocated.path == "/0/2"


def test_a_model_action_among_duplicates_follows_its_place_in_tree_order() -> None:
    seen = read(element("/0/0"), element("/0/1"))
    banner = read(element("/0/0", "Banner", "StaticText"), element("/0/1"), element("/0/2"))
    # The first of the two: nothing of them at /0/0 now, so the first in tree order.
    first = _relocate(seen, banner, seen.elements[0])
    assert first is not None
    assert first.path == "/0/1"
    # The second: /0/1 now holds the first of them, so the clues disagree and nothing is sent.
    assert _relocate(seen, banner, seen.elements[1]) is None
