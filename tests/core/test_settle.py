"""The poll policy on its own, fed by hand: pure, no clock."""

from __future__ import annotations

import itertools

import pytest

from mobster_core._rules.settle import DEFAULT_POLICY, PollPolicy, PollVerdict, WaitState


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
