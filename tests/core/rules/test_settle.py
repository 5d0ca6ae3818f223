"""The poll policy on its own, fed by hand: pure, no clock."""

from __future__ import annotations

import itertools
from typing import TypeVar

import pytest

from mobster_core import PollPolicy, Screen, Step
from mobster_core._rules.replay.matcher import MatchRule
from mobster_core._rules.replay.settle import (
    DEFAULT_POLICY,
    WATCH_SLOWEST,
    ChangeWait,
    Done,
    Drifted,
    Found,
    Read,
    SettleWait,
    Sighting,
    Sleep,
    StepWait,
    TypingWait,
    Wait,
    WatchWait,
)
from mobster_core._rules.replay.settle import CheckTarget as Check
from mobster_core._rules.replay.settle import Pace as PollVerdict
from mobster_core._rules.replay.settle import PollState as WaitState

S = TypeVar("S")
R = TypeVar("R")


def run(fingerprints: list[str], read_s: float = 0.0, policy: PollPolicy = DEFAULT_POLICY) -> tuple[float, list[float]]:
    """Drive the policy like the runner does, on a hand-moved clock; return (drift time, read starts)."""
    now = 0.0
    state = policy.start(now)
    starts: list[float] = []
    i = 0
    while True:
        d = policy.next(state, now)
        if d.verdict is PollVerdict.DRIFTED:
            return now, starts
        if d.verdict is PollVerdict.SLEEP:
            assert d.until > now
            now = d.until
            continue
        starts.append(now)
        fp = fingerprints[min(i, len(fingerprints) - 1)]
        i += 1
        now += read_s
        state = state.observe(started=starts[-1], fingerprint=fp)


def test_a_still_wrong_screen_drifts_at_one_second() -> None:
    at, starts = run(["same"])
    assert at == pytest.approx(1.0)
    assert starts[:3] == pytest.approx([0.0, 0.15, 0.3])


def test_never_drifts_before_two_reads_agree() -> None:
    # every read differs until the last: no drift at 1.0 s
    fps = [f"f{i}" for i in range(9)] + ["still"]
    at, _ = run(fps)
    assert at > 1.0
    assert at == pytest.approx(1.5)  # reads 9 and 10 (at 1.35 and 1.5) agree


def test_a_screen_that_never_settles_drifts_at_three_seconds() -> None:
    at, starts = run([f"f{i}" for i in range(1000)])
    assert at == pytest.approx(3.0)
    assert starts[-1] < 3.0


def test_slow_reads_follow_each_other_at_once() -> None:
    _, starts = run([f"f{i}" for i in range(1000)], read_s=0.25)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(g == pytest.approx(0.25) for g in gaps)


def test_reads_are_spaced_from_their_start() -> None:
    _, starts = run(["a", "b", "c", "c"], read_s=0.05)
    assert starts[:3] == pytest.approx([0.0, 0.15, 0.3])


def test_observe_tracks_agreement() -> None:
    s = WaitState(began=0.0).observe(started=0.0, fingerprint="a")
    assert not s.settled
    s = s.observe(started=0.15, fingerprint="a")
    assert s.settled
    s = s.observe(started=0.3, fingerprint="b")
    assert not s.settled
    assert s.reads == 3


def test_defaults_are_the_spec_numbers_in_one_place() -> None:
    assert (DEFAULT_POLICY.interval, DEFAULT_POLICY.drift_after, DEFAULT_POLICY.give_up_after) == (
        0.15,
        1.0,
        3.0,
    )


def test_policy_validates() -> None:
    with pytest.raises(ValueError, match="interval"):
        PollPolicy(interval=0)


def test_drift_reasons() -> None:
    p = DEFAULT_POLICY
    settled = WaitState(began=0.0, reads=2, last_read_started=0.9, last_fingerprint="a", settled=True)
    assert "settled" in p.next(settled, 1.0).why
    moving = WaitState(began=0.0, reads=20, last_read_started=2.85, last_fingerprint="a", settled=False)
    assert "kept changing" in p.next(moving, 3.0).why


def test_a_deadline_a_hair_away_in_float_arithmetic_is_the_deadline() -> None:
    # 0.3 + 1.0 lands on 1.2999999999999998 in floats: that is the 1.0 s deadline, not a new sleep.
    state = WaitState(began=0.3, reads=2, last_read_started=1.2, last_fingerprint="a", settled=True)
    assert DEFAULT_POLICY.next(state, 0.1 + 0.2 + 0.9999999999999999).verdict is PollVerdict.DRIFTED


def test_sleep_is_always_in_the_future() -> None:
    state = WaitState(began=0.0, reads=1, last_read_started=0.0, last_fingerprint="a", settled=False)
    d = DEFAULT_POLICY.next(state, 0.05)
    assert d.verdict is PollVerdict.SLEEP
    assert d.until == pytest.approx(0.15)


# -- every wait is a pure policy the one loop drives --------------------------------------------


def screen_of(label: str, value: str = "") -> Screen:
    return Screen.from_dict(
        {"app": "com.example.app", "elements": [{"role": "TextField", "label": label, "value": value}]}
    )


def drive_by_hand(wait: Wait[S, R], reads: list[Screen], read_s: float = 0.0) -> tuple[R, list[float]]:
    """The one loop's moves, on a hand-moved clock; the last screen repeats."""
    now, starts = 0.0, list[float]()
    state = wait.start(now)
    while True:
        move = wait.next(state, now)
        if isinstance(move, Done):
            return move.result, starts
        if isinstance(move, Sleep):
            assert move.until > now
            now = move.until
            continue
        assert isinstance(move, Read)
        starts.append(now)
        screen = reads[min(len(starts) - 1, len(reads) - 1)]
        now += read_s
        state = wait.saw(state, starts[-1], screen)


def test_after_an_action_the_wait_reads_until_a_change_then_until_it_settles() -> None:
    before, after = screen_of("Old"), screen_of("New")
    wait: ChangeWait[None] = ChangeWait(before.fingerprint)
    changed, starts = drive_by_hand(wait, [before, before, after, after, after])
    assert changed.sighting.screen == after
    assert changed.sighting.settled
    # two reads of the old screen, the change, and one more read that agrees with it
    assert starts == pytest.approx([0.0, 0.15, 0.3, 0.45])


def test_a_tap_that_changes_nothing_settles_after_give_up_after() -> None:
    same = screen_of("Same")
    wait: ChangeWait[None] = ChangeWait(same.fingerprint)
    changed, starts = drive_by_hand(wait, [same])
    assert changed.sighting.screen == same
    assert changed.sighting.settled
    assert starts[-1] == pytest.approx(3.0)  # the read at the deadline ends it: it agrees with the one before


def test_a_watch_after_an_action_answers_from_the_first_changed_read() -> None:
    before, after = screen_of("Old"), screen_of("New")
    wait = ChangeWait(before.fingerprint, watch=lambda s: "matched" if s.screen == after else None)
    changed, starts = drive_by_hand(wait, [before, after])
    assert (changed.answer, changed.sighting.settled) == ("matched", False)
    assert starts == pytest.approx([0.0, 0.15])


def test_typing_is_confirmed_when_the_field_holds_the_text() -> None:
    field = screen_of("Email").elements[0]
    held, starts = drive_by_hand(TypingWait(field, "ada"), [screen_of("Email"), screen_of("Email", "ada")], 0.05)
    assert held is None
    assert starts == pytest.approx([0.0, 0.15])


def test_typing_that_never_shows_says_what_the_field_shows_after_drift_after() -> None:
    field = screen_of("Email").elements[0]
    shown, starts = drive_by_hand(TypingWait(field, "ada"), [screen_of("Email", "ad")], 0.05)
    assert shown == "'ad'"
    assert starts[-1] < 1.0 <= starts[-1] + 0.15


def test_a_watch_reads_every_interval_until_it_answers() -> None:
    screens = [screen_of("a"), screen_of("b"), screen_of("c")]
    wait = WatchWait(Sighting.first(0.0, screens[0]), lambda s: "seen c" if s.screen == screens[2] else None)
    (answer, seen), starts = drive_by_hand(wait, screens[1:])
    assert (answer, seen.screen) == ("seen c", screens[2])
    assert starts == pytest.approx([0.15, 0.3])


def test_the_heals_watch_reads_less_often_while_the_screen_stays_the_same() -> None:
    a, b, c = screen_of("a"), screen_of("b"), screen_of("c")
    wait = WatchWait(Sighting.first(0.0, a), lambda s: "seen c" if s.screen == c else None, slowest=WATCH_SLOWEST)
    (answer, seen), starts = drive_by_hand(wait, [a, a, a, a, b, b, c])
    assert (answer, seen.screen) == ("seen c", c)
    # 0.15, 0.3, 0.6, then at most 1.0 s apart while it stays "a"; "b" is another screen: 0.15 again.
    assert starts == pytest.approx([0.15, 0.45, 1.05, 2.05, 3.05, 3.2, 3.5])


def test_a_watch_whose_slowest_is_under_its_interval_reads_every_interval() -> None:
    a, b = screen_of("a"), screen_of("b")
    wait = WatchWait(Sighting.first(0.0, a), lambda s: "b" if s.screen == b else None, PollPolicy(interval=0.5), 0.2)
    _, starts = drive_by_hand(wait, [a, a, b])
    assert starts == pytest.approx([0.5, 1.0, 1.5])


def test_a_step_wait_checks_a_matched_target_before_acting() -> None:
    s = screen_of("Email")
    step = Step.from_dict(
        {
            "op": "TAP", "app": s.app, "screen": {"hash": s.hash, "signature": s.signature}, "text": None,
            "commit": None, "live": False,
            "target": {"label": "Email", "role": "TextField", "id": "/0/0", "frame": [0, 0, 0, 0],
                       "count": 1, "nth": 0},
        }
    )  # fmt: skip
    wait = StepWait(step)
    state = wait.saw(wait.start(0.0), 0.0, s)
    move = wait.next(state, 0.1)
    assert move == Check(s.elements[0])
    hidden = wait.checked(state, False)
    assert hidden.match is not None
    assert (hidden.match.ok, hidden.match.rule) == (False, MatchRule.TARGET)
    shown = wait.next(wait.checked(state, True), 0.1)
    assert isinstance(shown, Done)
    assert isinstance(shown.result, Found)


def test_a_step_wait_on_a_settled_earlier_read_drifts_as_soon_as_its_screen_has_been_there_long_enough() -> None:
    # The first step starts on the baseline's last read: the screen appeared 0.5 s before the
    # wait began, so the 1.0 s drift timer runs from then, not from the wait's start.
    s = screen_of("Email")
    seed = Sighting(s, started=-0.2, since=-0.5, settled=True)
    step = Step.from_dict(
        {
            "op": "TAP", "app": s.app, "screen": {"hash": s.hash, "signature": s.signature}, "text": None,
            "commit": None, "live": False,
            "target": {"label": "Gone", "role": "Button", "id": "/0/0", "frame": [0, 0, 0, 0],
                       "count": 1, "nth": 0},
        }
    )  # fmt: skip
    drifted, starts = drive_by_hand(StepWait(step, seed=seed), [s])
    assert isinstance(drifted, Drifted)
    assert starts[-1] < 0.5 <= starts[-1] + 0.15  # drifted at 0.5 s: 1.0 s after the screen appeared
    unseeded, later = drive_by_hand(StepWait(step), [s])
    assert isinstance(unseeded, Drifted)
    assert later[-1] >= 0.85  # a wait with no earlier read counts from its own start


def test_a_step_that_matches_the_seed_is_acted_on_without_a_read() -> None:
    s = screen_of("Email")
    step = Step.from_dict(
        {
            "op": "TAP", "app": s.app, "screen": {"hash": s.hash, "signature": s.signature}, "text": None,
            "commit": None, "live": False,
            "target": {"label": "Email", "role": "TextField", "id": "/0/0", "frame": [0, 0, 0, 0],
                       "count": 1, "nth": 0},
        }
    )  # fmt: skip
    wait = StepWait(step, seed=Sighting.first(0.0, s))
    state = wait.start(0.1)
    assert wait.next(state, 0.1) == Check(s.elements[0])
    found = wait.next(wait.checked(state, True), 0.1)
    assert isinstance(found, Done)
    assert isinstance(found.result, Found)


def test_a_settle_wait_on_a_settled_seed_needs_no_read() -> None:
    s = screen_of("Email")
    seed = Sighting(s, started=0.0, since=-0.3, settled=True)
    seen, starts = drive_by_hand(SettleWait(seed=seed), [s])
    assert (seen, starts) == (seed, [])
