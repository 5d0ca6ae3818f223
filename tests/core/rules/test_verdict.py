"""The settled read (on a fake clock), the verdict and its precedence, and exit codes."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core import FailureClass, Outcome, Verdict
from mobster_core._rules.assertions import Assertion, evaluate, parse_expect
from mobster_core._rules.replay.settle import (
    BASELINE_POLICY,
    DEFAULT_READ_POLICY,
    Done,
    Opening,
    PollPolicy,
    Read,
    ReadPolicy,
    SettledRead,
    SettledReadWait,
    Sleep,
)
from mobster_core._rules.verdict.verdict import Grounds as Evidence
from mobster_core._rules.verdict.verdict import decide, suite_exit_code
from mobster_core._run.judge import settled_read
from mobster_core.protocols import SPRINGBOARD
from mobster_core.results import AssertionResult
from mobster_core.testing import FakeClock

APP = "com.example.yourapp"


def screen(label: str, app: str = APP) -> mc.Screen:
    return mc.Screen.from_dict(
        {"app": app, "elements": [{"role": "StaticText", "label": label, "frame": [0.1, 0.1, 0.8, 0.1]}]}
    )


class ScriptedReads:
    """A device whose reads return scripted screens in turn (the last one repeats).

    Each read takes ``read_s`` seconds of the clock; ``times`` records when each read started.
    """

    def __init__(self, clock: FakeClock, screens: Sequence[mc.Screen], read_s: float = 0.0) -> None:
        self._clock = clock
        self._screens = list(screens)
        self._read_s = read_s
        self.times: list[float] = []

    async def info(self) -> mc.DeviceInfo:
        raise NotImplementedError

    async def app_info(self, bundle: str) -> mc.AppInfo:
        raise NotImplementedError

    async def launch(self, bundle: str, options: mc.LaunchOptions) -> None:
        raise NotImplementedError

    async def act(self, action: mc.Action) -> None:
        raise NotImplementedError

    async def read(self) -> mc.Screen:
        self.times.append(self._clock.now())
        index = min(len(self.times) - 1, len(self._screens) - 1)
        if self._read_s:
            await self._clock.sleep(self._read_s)
        return self._screens[index]


class FailingReads(ScriptedReads):
    async def read(self) -> mc.Screen:
        raise mc.DeviceError("WDA is gone")


def run(
    screens: Sequence[mc.Screen], policy: ReadPolicy = DEFAULT_READ_POLICY, read_s: float = 0.0, **kw: object
) -> tuple[SettledRead, list[float]]:
    clock = FakeClock(start=100.0)
    device = ScriptedReads(clock, screens, read_s)
    assert isinstance(device, mc.Device)
    result = clock.run(settled_read(device.read, clock, policy, **kw))  # type: ignore[arg-type]
    return result, [t - 100.0 for t in device.times]


# -- the settled read -----------------------------------------------------------------------


def test_a_still_screen_settles_after_two_reads_0_3_s_apart() -> None:
    result, times = run([screen("Welcome")])
    assert result.stable
    assert result.reads == 2
    assert times == pytest.approx([0.0, 0.3])
    assert result.seconds == pytest.approx(0.3)
    assert result.screen == screen("Welcome")


def test_a_screen_that_never_settles_reads_every_0_5_s_and_the_last_read_decides() -> None:
    frames = [screen(f"frame {i}") for i in range(100)]
    result, times = run(frames)
    assert not result.stable
    assert times == pytest.approx([0.0, 0.3, 0.8, 1.3, 1.8, 2.3, 2.8, 3.3, 3.8, 4.3, 4.8, 5.0])
    assert result.reads == 12
    assert result.screen == frames[11]
    assert result.seconds == pytest.approx(5.0)


def test_a_screen_that_settles_later_decides_then() -> None:
    frames = [screen("a"), screen("b"), screen("c"), screen("done")]
    result, times = run(frames)
    assert result.stable
    assert times == pytest.approx([0.0, 0.3, 0.8, 1.3, 1.8])
    assert result.screen == screen("done")


def test_slow_reads_follow_each_other_at_once() -> None:
    frames = [screen(f"frame {i}") for i in range(100)]
    result, times = run(frames, read_s=0.75)
    assert times == pytest.approx([0.0, 0.75, 1.5, 2.25, 3.0, 3.75, 4.5, 5.25])
    assert not result.stable
    assert result.seconds == pytest.approx(6.0)  # the last read started after the timeout ends the wait


def test_a_settled_read_that_accept_refuses_keeps_reading() -> None:
    loading, loaded = screen("Loading"), screen("Welcome")
    frames = [loading, loading, loading, loaded, loaded]
    result, times = run(frames, accept=lambda s: s == loaded)
    assert result.stable
    assert result.screen == loaded
    assert times == pytest.approx([0.0, 0.3, 0.8, 1.3, 1.8])


def test_at_the_timeout_stable_says_whether_the_last_two_reads_agreed() -> None:
    result, times = run([screen("Loading")], accept=lambda s: False)
    assert result.stable
    assert len(times) == 12
    assert result.seconds == pytest.approx(5.0)


def test_a_zero_timeout_still_reads_twice() -> None:
    result, times = run([screen("a"), screen("b")], ReadPolicy(timeout=0.0))
    assert times == pytest.approx([0.0, 0.3])
    assert not result.stable


def test_the_baseline_reads_every_0_3_s_for_3_s() -> None:
    frames = [screen(f"frame {i}") for i in range(100)]
    result, times = run(frames, BASELINE_POLICY)
    assert not result.stable
    assert times == pytest.approx([round(0.3 * i, 1) for i in range(11)])
    assert (BASELINE_POLICY.settle_gap, BASELINE_POLICY.interval, BASELINE_POLICY.timeout) == (0.3, 0.3, 3.0)


# -- how a settled read opens (Rule 5a) -----------------------------------------------------


def test_after_an_action_reads_come_every_0_15_s_until_the_screen_changes_then_settle() -> None:
    acted_on = screen("before")
    frames = [acted_on, acted_on, screen("after")]
    result, times = run(frames, opening=Opening(after=acted_on.fingerprint))
    assert result.stable
    assert result.screen == screen("after")
    assert times == pytest.approx([0.0, 0.15, 0.3, 0.6])  # 0.15 s apart, then read, 0.3 s, read
    assert result.reads == 4
    assert result.seconds == pytest.approx(0.6)


def test_after_an_action_that_changed_nothing_reads_over_0_3_s_that_agree_decide() -> None:
    acted_on = screen("Saved")
    result, times = run([acted_on], opening=Opening(after=acted_on.fingerprint))
    assert result.stable
    assert times == pytest.approx([0.0, 0.15, 0.3])
    assert result.screen == acted_on


def test_after_an_action_slow_reads_follow_each_other_until_the_change() -> None:
    acted_on = screen("before")
    frames = [screen("moving 1"), screen("moving 2"), screen("after")]
    result, times = run(frames, read_s=0.234, opening=Opening(after=acted_on.fingerprint))
    # The first read already differs and is accepted: Rule 5 starts on it (read, 0.3 s, read, then every 0.5 s).
    assert times == pytest.approx([0.0, 0.3, 0.8, 1.3])
    assert result.stable
    assert result.screen == screen("after")


def test_after_an_action_the_timeout_counts_from_the_first_changed_read() -> None:
    acted_on = screen("before")
    flicker = [acted_on if i % 2 == 0 else screen("glitch") for i in range(200)]
    poll = PollPolicy(interval=0.25)
    result, times = run(flicker, opening=Opening(after=acted_on.fingerprint, poll=poll), accept=lambda s: False)
    assert not result.stable
    assert times[:4] == pytest.approx([0.0, 0.25, 0.5, 0.75])  # no read is accepted: the poll cadence goes on
    assert times[-1] == pytest.approx(0.25 + 5.0)  # the timeout runs from the glitch, the first read of another screen


def test_after_an_action_another_screen_that_settles_failing_reads_on_as_rule_5() -> None:
    acted_on = screen("before")
    frames = [acted_on, screen("moving"), screen("Error")]
    result, times = run(frames, opening=Opening(after=acted_on.fingerprint), accept=lambda s: False)
    assert result.stable
    assert result.screen == screen("Error")
    # 0.15 s apart until "Error" stays 0.3 s (0.3 to 0.6), then every 0.5 s until 5 s after the change at 0.15 s
    assert times[:6] == pytest.approx([0.0, 0.15, 0.3, 0.45, 0.6, 1.1])
    assert times[-1] == pytest.approx(0.15 + 5.0)


def test_after_an_action_that_changed_nothing_and_fails_reads_on_as_rule_5() -> None:
    acted_on = screen("Saved")
    result, times = run([acted_on], opening=Opening(after=acted_on.fingerprint), accept=lambda s: False)
    assert result.stable  # it agreed with the read before it
    assert times[:4] == pytest.approx([0.0, 0.15, 0.3, 0.8])  # then every 0.5 s until 5 s after the first read
    assert times[-1] == pytest.approx(5.0)


def test_a_first_read_that_decides_alone_ends_the_settled_read_unsettled() -> None:
    result, times = run([screen("Welcome")], BASELINE_POLICY, opening=Opening(alone=lambda s: s.app == APP))
    assert times == pytest.approx([0.0])
    assert (result.stable, result.reads, result.screen) == (False, 1, screen("Welcome"))
    elsewhere, times = run(
        [screen("Home", SPRINGBOARD), screen("Welcome")], BASELINE_POLICY, opening=Opening(alone=lambda s: s.app == APP)
    )
    assert times == pytest.approx([0.0, 0.3, 0.6])  # the app wasn't in front: it settles as before
    assert elsewhere.stable


def test_a_failed_read_raises_the_device_error() -> None:
    clock = FakeClock()
    device = FailingReads(clock, [screen("a")])
    with pytest.raises(mc.DeviceError, match="WDA is gone"):
        clock.run(settled_read(device.read, clock))


def test_defaults_are_the_spec_numbers_in_one_place() -> None:
    assert (DEFAULT_READ_POLICY.settle_gap, DEFAULT_READ_POLICY.interval, DEFAULT_READ_POLICY.timeout) == (
        0.3,
        0.5,
        5.0,
    )
    with pytest.raises(ValueError, match="interval"):
        ReadPolicy(interval=0)
    with pytest.raises(ValueError, match="timeout"):
        ReadPolicy(timeout=-1)


def test_the_policy_is_pure() -> None:
    wait = SettledReadWait()
    state = wait.start(10.0)
    assert wait.next(state, 10.0) == Read()
    state = wait.saw(state, 10.0, screen("a"))
    assert wait.next(state, 10.0) == Sleep(pytest.approx(10.3))  # type: ignore[arg-type]
    assert wait.next(state, 10.5) == Read()  # late: read at once
    state = wait.saw(state, 10.3, screen("a"))
    assert state.sighting is not None
    assert state.sighting.settled
    done = wait.next(state, 10.3)
    assert isinstance(done, Done)
    assert (done.result.stable, done.result.reads, done.result.screen) == (True, 2, screen("a"))
    refusing = SettledReadWait(accept=lambda s: False)
    refused = refusing.saw(refusing.saw(refusing.start(10.0), 10.0, screen("a")), 10.3, screen("a"))
    assert refusing.next(refused, 10.3) == Sleep(pytest.approx(10.8))  # type: ignore[arg-type]


# -- verdicts, classes and exit codes --------------------------------------------------------


def test_verdicts_and_exit_codes() -> None:
    assert [(v.value, v.exit_code) for v in Verdict] == [
        ("passed", 0),
        ("failed", 1),
        ("needs_review", 2),
        ("couldnt_run", 3),
    ]


def test_every_failure_class_of_the_spec_and_mobster() -> None:
    # Mobster's simulator, wda, install and launch are ``device`` here: nothing tells them apart.
    assert {c.value for c in FailureClass} == {
        "assertion", "app_not_running", "no_assertions", "held_before_flow", "drift", "heal_limit",
        "unknown_outcome", "refused", "model", "budget", "usage", "device", "stopped", "blocked",
        "internal", "environment", "busy", "steps_skipped",
    }  # fmt: skip


def test_an_outcome_has_a_class_exactly_when_it_did_not_pass() -> None:
    assert Outcome("passed").exit_code == 0
    assert Outcome(Verdict.COULDNT_RUN, FailureClass.USAGE, "bad file").exit_code == 3
    with pytest.raises(ValueError, match="failure class"):
        Outcome(Verdict.PASSED, FailureClass.ASSERTION)
    with pytest.raises(ValueError, match="failure class"):
        Outcome(Verdict.FAILED)


EXPECT = parse_expect([{"text": "Welcome aboard"}, {"no_text": "Error"}])
DONE = screen("Welcome aboard")
START = screen("Create your account")


def verdict(
    *,
    assertions: Sequence[Assertion] = EXPECT,
    end: mc.Screen = DONE,
    baseline: mc.Screen | None = START,
    app: str = APP,
) -> Outcome:
    before = None if baseline is None else evaluate(assertions, baseline)
    return decide(assertions, Evidence(evaluate(assertions, end), end.app, before), app)


def test_every_assertion_holds_with_the_app_in_front() -> None:
    assert verdict() == Outcome(Verdict.PASSED, None, "")
    assert verdict(baseline=None) == Outcome(Verdict.PASSED)  # a launch-only check has no baseline


def test_steps_skipped_when_the_check_asks_for_every_step() -> None:
    results = evaluate(EXPECT, DONE)
    skipped = Evidence(results, DONE.app, evaluate(EXPECT, START), skipped='step 2 (Tap "Go") was not performed')
    assert decide(EXPECT, skipped, APP) == Outcome(
        Verdict.FAILED, FailureClass.STEPS_SKIPPED, 'step 2 (Tap "Go") was not performed'
    )
    # A failed assertion outranks it, and it outranks needs_review (nothing left to decide).
    failing = attrs.evolve(skipped, results=evaluate(EXPECT, screen("Error")))
    assert decide(EXPECT, failing, APP).failure_class is FailureClass.ASSERTION
    held = attrs.evolve(skipped, baseline=results)
    assert decide(EXPECT, held, APP).failure_class is FailureClass.STEPS_SKIPPED


def test_a_failing_assertion_fails_and_names_the_first() -> None:
    outcome = verdict(end=screen("Error: try again"))
    assert outcome.verdict is Verdict.FAILED
    assert outcome.failure_class is FailureClass.ASSERTION
    assert outcome.message == (
        'text "Welcome aboard" failed: not on the screen; closest: "Error: try again" (and 1 more failed)'
    )
    single = verdict(end=screen("Welcome"), assertions=parse_expect([{"count": {"role": "text"}, "equals": 3}]))
    assert single.message == 'count role=text == 3 failed: found 1: "Welcome"'


def test_the_app_not_in_front_fails_first() -> None:
    outcome = verdict(end=screen("Welcome aboard", app=SPRINGBOARD))
    assert outcome == Outcome(
        Verdict.FAILED,
        FailureClass.APP_NOT_RUNNING,
        "com.apple.springboard is in front, not com.example.yourapp: the app crashed or the flow left it",
    )
    failing_too = verdict(end=screen("Error", app=SPRINGBOARD))
    assert failing_too.failure_class is FailureClass.APP_NOT_RUNNING
    no_assertions = verdict(assertions=(), end=screen("x", app=SPRINGBOARD))
    assert no_assertions.failure_class is FailureClass.APP_NOT_RUNNING


def test_no_assertions_needs_review() -> None:
    outcome = verdict(assertions=())
    assert (outcome.verdict, outcome.failure_class) == (Verdict.NEEDS_REVIEW, FailureClass.NO_ASSERTIONS)
    assert outcome.exit_code == 2
    assert "no expectations" in outcome.message


def test_everything_held_before_the_flow_needs_review() -> None:
    outcome = verdict(baseline=DONE)
    assert (outcome.verdict, outcome.failure_class) == (Verdict.NEEDS_REVIEW, FailureClass.HELD_BEFORE_FLOW)
    assert outcome.message.startswith("all 2 expectations already held before the first step")
    # some held before, not all: the steps did something
    half = parse_expect([{"text": "Welcome aboard"}, {"no_text": "Create your account"}])
    assert verdict(assertions=half, baseline=screen("Welcome aboard, Create your account")).verdict is Verdict.PASSED
    # no baseline taken (or no steps): nothing to compare with
    assert verdict(baseline=None).verdict is Verdict.PASSED


def test_a_failure_outranks_held_before_flow() -> None:
    assert verdict(baseline=DONE, end=screen("Error")).failure_class is FailureClass.ASSERTION


def test_decide_needs_one_result_per_assertion() -> None:
    with pytest.raises(ValueError, match="1 results for 2 assertions"):
        decide(EXPECT, Evidence(evaluate(EXPECT[:1], DONE), APP), APP)


@pytest.mark.parametrize(
    ("verdicts", "code"),
    [
        ([], 0),
        (["passed", "passed"], 0),
        (["passed", "needs_review"], 2),
        (["needs_review", "couldnt_run"], 3),
        (["couldnt_run", "failed", "needs_review"], 1),
    ],
)
def test_suite_exit_code(verdicts: list[str], code: int) -> None:
    assert suite_exit_code(Verdict(v) for v in verdicts) == code


@given(st.lists(st.sampled_from(list(Verdict))))
def test_suite_exit_code_follows_the_precedence(verdicts: list[Verdict]) -> None:
    code = suite_exit_code(verdicts)
    if Verdict.FAILED in verdicts:
        assert code == 1
    elif Verdict.COULDNT_RUN in verdicts:
        assert code == 3
    elif Verdict.NEEDS_REVIEW in verdicts:
        assert code == 2
    else:
        assert code == 0
    assert code == max((v.exit_code for v in verdicts), key=[0, 2, 3, 1].index, default=0)


def test_results_from_elsewhere_are_accepted() -> None:
    one = parse_expect([{"text": "x"}])
    result = AssertionResult(text='text "x"', ok=False, observed="not on the screen")
    outcome = decide(one, Evidence((result,), APP, ()), APP)
    assert outcome.message == 'text "x" failed: not on the screen'


def test_every_failure_class_is_made_somewhere_in_the_core() -> None:
    # A class the product never produces is a promise it can't keep: each is made where it happens.
    import pathlib
    import re

    core = pathlib.Path(mc.__file__).parent
    made: set[str] = set()
    for file in core.rglob("*.py"):
        text = file.read_text()
        if file.name == "verdict.py":
            text = text[text.index("def decide(") :]  # not the enum itself
        made |= set(re.findall(r"FailureClass\.([A-Z_]+)", text))
    assert {c.name for c in FailureClass} <= made
