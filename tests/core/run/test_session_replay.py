"""A live session reaches a check's screen: its recorded path replayed at $0, as ``mobster test --no-heal`` does.

``LiveSession.replay`` (``_run/session.py`` Rule 8) is what ``mobster inspect --after`` stands on:
the same launch, matcher, safety rules, journal and effect ledger as a run, stopped after a step,
and never a heal, a recording or a carried path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import FailureClass, Op, RunOptions, Verdict, load_check, run_check
from mobster_core._rules.replay.identity import Env
from mobster_core._store.cache import ReplayCache
from mobster_core.sessions import LiveSession, NoRecordedPath, NotInPath, Reached, SessionEnded, SessionError
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.helpers import NOW, LostSecondTap, step_on
from tests.samples import SIGNUP

PAYWALL = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
"""


@pytest.fixture
def project(project: Path) -> Path:
    checks = project / ".mobster" / "checks"
    (checks / "paywall.yaml").write_text(PAYWALL)
    (checks / "signup.yaml").write_text(SIGNUP)
    return project


def _phone(clock: FakeClock, text: str | None = None) -> ScriptedPhone:
    script = sample_path("yourapp").read_text() if text is None else text
    return ScriptedPhone(AppScript.from_text(script, "yourapp.yaml"), clock=clock)


def _record(project: Path, name: str, clock: FakeClock) -> mc.Check:
    """Smart records the check once, as ``mobster test --model scripted`` does."""
    check = load_check(project / ".mobster" / "checks" / name)
    result = clock.run(run_check(check, _phone(clock), clock, model=ScriptedModel(clock=clock)))
    assert (result.verdict, result.mode) == (Verdict.PASSED, "smart"), result.outcome.message
    return check


def _replay(
    project: Path, check: mc.Check, phone: ScriptedPhone, clock: FakeClock, until: int | None = None
) -> tuple[Reached, LiveSession]:
    session = LiveSession(phone, clock, project, RunOptions(secrets={}))

    async def scenario() -> Reached:
        await session.start()
        return await session.replay(check, until=until)

    return clock.run(scenario()), session


def _taps(phone: ScriptedPhone) -> list[str]:
    return [a.element.label for a in phone.actions if a.op is Op.TAP and a.element is not None]


def _journal(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "journal.jsonl").read_text().splitlines()]


def test_the_recorded_path_replays_to_its_end_with_no_model(project: Path) -> None:
    clock = FakeClock()
    check = _record(project, "paywall.yaml", clock)
    phone = _phone(clock)
    reached, session = _replay(project, check, phone, clock)
    assert reached.reached
    assert (reached.steps, reached.until, reached.outcome, reached.healed) == (2, None, None, False)
    assert [(r.index, r.text, r.source) for r in reached.reports] == [
        (1, 'Tap "Settings"', "replay"),
        (2, 'Tap "Upgrade to Pro"', "replay"),
    ]
    assert _taps(phone) == ["Settings", "Upgrade to Pro"]
    assert [b for b, _options in phone.launches] == ["com.example.yourapp"]
    screen = clock.run(phone.read())
    assert "Subscribe" in [e.label for e in screen.shown]
    # Journaled as a run's actions are: the launch, then each step, before it was sent.
    keys = [e["key"] for e in _journal(session.run_dir) if "outcome" not in e]
    assert keys == ["launch", "step-1", "step-2"]
    session.close()


def test_it_stops_after_the_step_asked_for(project: Path) -> None:
    clock = FakeClock()
    check = _record(project, "signup.yaml", clock)
    phone = _phone(clock)
    reached, _session = _replay(project, check, phone, clock, until=2)
    assert reached.reached
    assert (reached.steps, reached.until) == (3, 2)
    assert [r.text for r in reached.reports] == ['Tap "Sign up"', 'Type "ada@example.com" into "Email"']
    assert [(a.op, a.element.label if a.element else None) for a in phone.actions] == [
        (Op.TAP, "Sign up"),
        (Op.TYPE, "Email"),
    ]  # never Continue
    screen = clock.run(phone.read())
    assert "Continue" in [e.label for e in screen.shown]


def test_a_check_never_recorded_here_is_refused_before_anything_is_sent(project: Path) -> None:
    clock = FakeClock()
    check = load_check(project / ".mobster" / "checks" / "paywall.yaml")
    phone = _phone(clock)
    with pytest.raises(NoRecordedPath, match=r"paywall\.yaml has no recorded path to replay") as caught:
        _replay(project, check, phone, clock)
    assert caught.value.why == "no recorded path yet"
    assert (phone.launches, phone.actions) == ([], [])


def test_another_build_says_why_and_is_never_carried(project: Path) -> None:
    clock = FakeClock()
    check = _record(project, "paywall.yaml", clock)
    newer = sample_path("yourapp").read_text().replace('version: "1.0"', 'version: "1.1"')
    phone = _phone(clock, newer.replace('build: "1"', 'build: "2"'))
    session = LiveSession(phone, clock, project, RunOptions(carry=True))  # the run's carry is no session's

    async def scenario() -> Reached:
        await session.start()
        return await session.replay(check)

    with pytest.raises(NoRecordedPath) as caught:
        clock.run(scenario())
    assert caught.value.why == "the app changed (recorded on 1.0 (1), this is 1.1 (2))"
    assert (phone.launches, phone.actions) == ([], [])


@pytest.mark.parametrize("until", [0, -1, 3, 99])
def test_a_step_outside_the_path_is_refused_before_anything_is_sent(project: Path, until: int) -> None:
    clock = FakeClock()
    check = _record(project, "paywall.yaml", clock)
    phone = _phone(clock)
    with pytest.raises(NotInPath, match=r"is not a step of paywall.yaml's recorded path: it has 2 steps \(1 to 2\)"):
        _replay(project, check, phone, clock, until=until)
    assert (phone.launches, phone.actions) == ([], [])


def test_a_launch_only_check_has_no_step_to_stop_after(project: Path) -> None:
    clock = FakeClock()
    file = project / ".mobster" / "checks" / "launch.yaml"
    file.write_text("version: 1\nname: Opens\napp: {bundle: com.example.yourapp}\nexpect:\n  - text: Welcome\n")
    check = load_check(file)
    reached, _session = _replay(project, check, _phone(clock), clock)
    assert (reached.reached, reached.steps, reached.reports) == (True, 0, ())
    with pytest.raises(NotInPath, match="has no steps to stop after: it only launches its app") as caught:
        _replay(project, check, _phone(clock), clock, until=1)
    assert (caught.value.until, caught.value.steps) == (1, 0)


def test_a_step_that_drifts_stops_there_and_is_never_healed(project: Path) -> None:
    clock = FakeClock()
    check = _record(project, "signup.yaml", clock)
    renamed = _phone(clock, sample_path("yourapp-renamed").read_text())  # Continue is Next: same build
    reached, _session = _replay(project, check, renamed, clock)
    outcome = reached.outcome
    assert outcome is not None
    assert (outcome.verdict, outcome.failure_class, outcome.step) == (Verdict.FAILED, FailureClass.DRIFT, 3)
    assert outcome.message == 'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen (healing is off)'
    assert [(r.index, r.reason) for r in reached.reports][-1] == (3, '"Continue" isn\'t on the screen')
    assert [a.op for a in renamed.actions] == [Op.TAP, Op.TYPE]  # nothing after the drift
    assert not (project / ".mobster" / "checks" / "signup.heal.yaml").exists()


def test_a_purchase_in_the_path_is_refused_as_a_replay_refuses_it(project: Path) -> None:
    clock = FakeClock()
    check = _record(project, "paywall.yaml", clock)
    cache = ReplayCache(project)
    phone = _phone(clock)
    session = LiveSession(phone, clock, project)

    async def env() -> Env:
        return Env.of(await phone.info(), await phone.app_info("com.example.yourapp"))

    recorded = cache.lookup(check.identity, clock.run(env()))
    assert recorded.steps is not None
    paywall = clock.run(_paywall_screen(clock))
    subscribe = step_on(paywall, label="Subscribe")  # an edited path: no commit recorded, today's label counts
    cache.store(check.identity, clock.run(env()), [*recorded.steps, subscribe], recorded_at=NOW)

    async def scenario() -> Reached:
        await session.start()
        return await session.replay(check)

    reached = clock.run(scenario())
    outcome = reached.outcome
    assert outcome is not None
    assert (outcome.verdict, outcome.failure_class) == (Verdict.COULDNT_RUN, FailureClass.REFUSED)
    assert outcome.message == 'step 3 (Tap "Subscribe") was refused: a purchase is refused on a simulator'
    assert _taps(phone) == ["Settings", "Upgrade to Pro"]
    assert [e.get("outcome") for e in _journal(session.run_dir) if e["key"] == "step-3"] == ["refused"]


async def _paywall_screen(clock: FakeClock) -> mc.Screen:
    phone = _phone(clock)
    await phone.launch("com.example.yourapp", mc.LaunchOptions())
    for label in ("Settings", "Upgrade to Pro"):
        screen = await phone.read()
        await phone.act(mc.Action(Op.TAP, next(e for e in screen.shown if e.label == label)))
    return await phone.read()


def test_an_unknown_outcome_ends_the_session_nothing_more_is_sent(project: Path) -> None:
    clock = FakeClock()
    check = _record(project, "paywall.yaml", clock)
    phone = LostSecondTap(AppScript.from_text(sample_path("yourapp").read_text(), "yourapp.yaml"), clock=clock)
    session = LiveSession(phone, clock, project)

    async def scenario() -> tuple[Reached, str]:
        await session.start()
        reached = await session.replay(check)
        try:
            await session.act(Op.HOME)
        except SessionEnded as exc:
            return reached, exc.message
        return reached, "sent"

    reached, after = clock.run(scenario())
    assert reached.outcome is not None
    assert reached.outcome.failure_class is FailureClass.UNKNOWN_OUTCOME
    assert "Nothing more is sent" in after
    assert phone.taps == 2  # the lost tap, and nothing since


def test_after_a_replay_an_alert_is_a_screen_to_look_at(project: Path) -> None:
    # The check's alert policy (fail) is the replay's; afterwards a prompt is read as any other screen.
    clock = FakeClock()
    check = _record(project, "paywall.yaml", clock)
    asks = (
        sample_path("yourapp").read_text().replace("    launch: welcome\n", "    launch: welcome\n    open_in: true\n")
    )
    phone = _phone(clock, asks)
    session = LiveSession(phone, clock, project)

    async def scenario() -> mc.Screen:
        await session.start()
        assert (await session.replay(check)).reached
        return (await session.act(Op.OPEN_URL, text="yourapp://signup")).screen

    screen = clock.run(scenario())
    assert "Open in “YourApp”?" in [e.label for e in screen.elements]


def test_an_unset_secret_is_named_and_nothing_is_sent(project: Path) -> None:
    clock = FakeClock()
    file = project / ".mobster" / "checks" / "secret.yaml"
    file.write_text(
        SIGNUP.replace('  - Tap "Continue"\n', '  - Type "${PASSWORD}" into "Password"\n  - Tap "Continue"\n')
    )
    phone = _phone(clock)
    with pytest.raises(SessionError, match=r"the check names \$\{PASSWORD\}, and the variable PASSWORD isn't set"):
        _replay(project, load_check(file), phone, clock)
    assert (phone.launches, phone.actions) == ([], [])
