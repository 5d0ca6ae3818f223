"""Live sessions: actions from outside a run, under the run's rules, recorded into a check that replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobster_core import FailureClass, Op, RunOptions, Screen, Verdict, load_check, run_check
from mobster_core.sessions import ActionRefused, LiveSession, SessionEnded, SessionError
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from tests.core.helpers import LostSecondTap

APP = "com.example.yourapp"


def _path_of(screen: Screen, label: str) -> str:
    found = [e.path for e in screen.shown if e.label == label]
    assert len(found) == 1, (label, found)
    return found[0]


def _journal(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]


async def _sign_up(session: LiveSession) -> None:
    screen = await session.start_recording(APP)
    screen = (await session.act(Op.TAP, target=_path_of(screen, "Sign up"))).screen
    screen = (await session.act(Op.TYPE, target=_path_of(screen, "Email"), text="ada@example.com")).screen
    await session.act(Op.TAP, target=_path_of(screen, "Continue"))


def test_a_recorded_session_is_a_check_that_replays_with_no_model(project: Path) -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    session = LiveSession(phone, clock, project)

    async def scenario() -> object:
        await session.start()
        await _sign_up(session)
        assert session.steps == ('Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Tap "Continue"')
        return await session.record("A new user signs up", [{"text": "Welcome aboard"}])

    recorded = clock.run(scenario())
    session.close()
    file = project / ".mobster" / "checks" / "a-new-user-signs-up.yaml"
    assert recorded.file == file  # type: ignore[attr-defined]
    check = load_check(file)
    assert check.steps == ('Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Tap "Continue"')
    again = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    result = clock.run(run_check(check, again, clock, options=RunOptions(no_heal=True)))
    assert (result.verdict, result.mode, result.model_calls) == (Verdict.PASSED, "replay", 0)
    assert result.replayed_with_no_model


def test_a_failing_verdict_writes_nothing(project: Path) -> None:
    clock = FakeClock()
    session = LiveSession(ScriptedPhone.from_file(sample_path("yourapp"), clock=clock), clock, project)

    async def scenario() -> None:
        await session.start()
        await _sign_up(session)
        await session.record("Signs up", [{"text": "Something else"}])

    with pytest.raises(SessionError, match=r"the verdict is failed: .*nothing was written") as caught:
        clock.run(scenario())
    assert caught.value.outcome is not None
    assert caught.value.outcome.verdict is Verdict.FAILED
    assert list((project / ".mobster" / "checks").iterdir()) == []
    assert not (project / ".mobster" / "cache").exists()


def test_a_check_file_outside_the_project_is_refused(project: Path) -> None:
    clock = FakeClock()
    session = LiveSession(ScriptedPhone.from_file(sample_path("yourapp"), clock=clock), clock, project)

    async def scenario(file: str) -> None:
        await session.start()
        await _sign_up(session)
        await session.record("Signs up", [{"text": "Welcome aboard"}], file=file)

    for file in ("../../escape.yaml", "/tmp/x.yaml", "sub/x.yaml", "x.heal.yaml", "x.txt"):
        with pytest.raises(SessionError, match="is not a check file of this project"):
            clock.run(scenario(file))
    assert not (project.parent / "escape.yaml").exists()
    assert list((project / ".mobster" / "checks").iterdir()) == []


def test_a_purchase_is_refused_and_journaled_never_sent(project: Path) -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    session = LiveSession(phone, clock, project)

    async def scenario() -> None:
        await session.start()
        screen = await session.start_recording(APP)
        screen = (await session.act(Op.TAP, target=_path_of(screen, "Settings"))).screen
        screen = (await session.act(Op.TAP, target=_path_of(screen, "Upgrade to Pro"))).screen
        await session.act(Op.TAP, target=_path_of(screen, "Subscribe"))

    with pytest.raises(ActionRefused, match="a purchase is refused on a simulator"):
        clock.run(scenario())
    entries = _journal(session.run_dir)
    assert [e.get("outcome") for e in entries if e["key"] == "live-3"] == ["refused"]
    assert [a.element.label for a in phone.actions if a.element is not None] == ["Settings", "Upgrade to Pro"]


def test_masked_text_is_not_recorded_but_a_reference_is(project: Path) -> None:
    clock = FakeClock()
    session = LiveSession(
        ScriptedPhone.from_file(sample_path("yourapp"), clock=clock),
        clock,
        project,
        RunOptions(secrets={"PASSWORD": "hunter2"}),
    )

    async def scenario(text: str) -> str:
        await session.start()
        screen = await session.start_recording(APP)
        screen = (await session.act(Op.TAP, target=_path_of(screen, "Sign up"))).screen
        return (await session.act(Op.TYPE, target=_path_of(screen, "Password"), text=text)).said

    with pytest.raises(SessionError, match=r'"Password" is masked: .*Type a \$\{NAME\} reference'):
        clock.run(scenario("hunter2"))
    assert clock.run(scenario("${PASSWORD}")) == 'Type "${PASSWORD}" into "Password"'
    text = (session.run_dir / "journal.jsonl").read_text()
    assert "hunter2" not in text


def test_an_empty_reference_is_refused_before_it_is_typed(project: Path) -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    session = LiveSession(phone, clock, project, RunOptions(secrets={"PASSWORD": ""}))

    async def scenario() -> None:
        await session.start()
        screen = await session.start_recording(APP)
        screen = (await session.act(Op.TAP, target=_path_of(screen, "Sign up"))).screen
        await session.act(Op.TYPE, target=_path_of(screen, "Password"), text="${PASSWORD}")

    with pytest.raises(SessionError, match=r"names \$\{PASSWORD\}, and the variable PASSWORD is set but empty"):
        clock.run(scenario())
    sent = (session.run_dir / "journal.jsonl").read_text()
    session.close()
    assert '"op":"TAP"' in sent
    assert '"op":"TYPE"' not in sent  # the tap before it was sent; the typing never was


def test_an_unknown_outcome_ends_the_recording(project: Path) -> None:
    clock = FakeClock()
    phone = LostSecondTap.from_file(sample_path("yourapp"), clock=clock)
    session = LiveSession(phone, clock, project)

    async def scenario() -> None:
        await session.start()
        await _sign_up(session)

    with pytest.raises(SessionEnded, match="the outcome is unknown") as caught:
        clock.run(scenario())
    assert caught.value.outcome is not None
    assert caught.value.outcome.failure_class is FailureClass.UNKNOWN_OUTCOME
    assert not session.recording
    with pytest.raises(SessionEnded, match="Nothing more is sent: start_recording launches the app again"):
        clock.run(session.act(Op.HOME))
    with pytest.raises(SessionError, match="nothing is being recorded"):
        clock.run(session.record("x", [{"text": "Welcome"}]))
