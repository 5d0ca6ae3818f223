"""The recording lease: one machine of many records an identity and env; the others wait and replay.

The wait is a pure policy (``_store/lease.py``'s ``LeaseWait``) tested on its own, then two and
three "machines" (runs of one check on their own scripted phones, sharing one store) run at once
on one fake clock: one records, the others wait for it and replay at $0; a recorder that died
holding the lease blocks nobody past its expiry; a run that waited ``wait_s`` records itself.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core._rules.replay.settle import Done, Read, Sleep
from mobster_core._store.lease import (
    Claimant,
    GiveUp,
    Lease,
    LeasePolicy,
    LeaseSight,
    LeaseWait,
    Replay,
    Take,
    lease_name,
    look,
    release,
    renew,
    take,
)
from mobster_core.paths import RecordedBy
from mobster_core.testing import FakeClock, MemoryPaths
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.samples import SIGNUP

POLICY = LeasePolicy(lease_s=30.0, wait_s=300.0, poll_s=1.0)
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
APP = sample_path("yourapp").read_text()


# -- the pure wait ---------------------------------------------------------------------------------


def held(tag: str = "v1", *, path: bool = False) -> LeaseSight:
    return LeaseSight(path, tag, held=True, lease_s=30.0, holder="ci-3/41/ab")


def test_the_wait_reads_first_and_takes_a_lease_nobody_holds() -> None:
    wait = LeaseWait(POLICY)
    state = wait.start(0.0)
    assert wait.next(state, 0.0) == Read()
    assert wait.next(wait.saw(state, 0.0, LeaseSight(False)), 0.0) == Done(Take(None))
    free = LeaseSight(False, "v7", held=False)
    assert wait.next(wait.saw(state, 0.0, free), 0.0) == Done(Take("v7"))


def test_a_path_that_arrives_is_replayed() -> None:
    wait = LeaseWait(POLICY)
    state = wait.saw(wait.start(0.0), 0.0, held())
    assert wait.next(state, 0.5) == Sleep(1.0)
    assert wait.next(wait.saw(state, 1.0, held(path=True)), 1.0) == Done(Replay())


def test_a_lease_whose_version_stays_for_lease_s_has_expired() -> None:
    wait = LeaseWait(POLICY)
    state = wait.saw(wait.start(0.0), 0.0, held("v1"))
    for t in range(1, 30):
        state = wait.saw(state, float(t), held("v1"))
        assert wait.next(state, float(t)) == Sleep(t + 1.0)
    assert wait.next(state, 30.0) == Done(Take("v1", expired="ci-3/41/ab"))


def test_a_renewed_lease_counts_its_expiry_again() -> None:
    wait = LeaseWait(POLICY)
    state = wait.saw(wait.start(0.0), 0.0, held("v1"))
    state = wait.saw(state, 20.0, held("v2"))  # the holder renewed it
    assert wait.next(state, 30.0) == Read()  # not expired: v2 was first seen at 20
    state = wait.saw(state, 30.0, held("v2"))
    assert wait.next(state, 49.0) == Read()
    assert wait.next(wait.saw(state, 50.0, held("v2")), 50.0) == Done(Take("v2", expired="ci-3/41/ab"))


def test_the_wait_is_bounded_and_never_sleeps_past_a_decision() -> None:
    policy = LeasePolicy(lease_s=30.0, wait_s=45.0, poll_s=10.0)
    wait = LeaseWait(policy, began=0.0)
    state = wait.saw(wait.start(5.0), 0.0, held("v1"))
    assert wait.next(state, 1.0) == Sleep(10.0)
    state = wait.saw(state, 25.0, held("v2"))
    assert wait.next(state, 40.0) == Read()  # the read due at 35 is late: read now
    state = wait.saw(state, 40.0, held("v2"))
    assert wait.next(state, 41.0) == Sleep(45.0)  # the deadline comes before the next read (50) and the expiry (55)
    assert wait.next(state, 45.0) == Done(GiveUp("ci-3/41/ab", 45.0))


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True])
def test_a_policy_of_no_seconds_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="seconds"):
        LeasePolicy(wait_s=bad)


def test_a_lease_is_taken_once_renewed_by_its_holder_and_released() -> None:
    store = MemoryPaths()
    name = lease_name("0123456789abcdef", "abcdef012345")
    a = take(store, Claimant(name, "a/1/x", 30.0), expect=None, now=NOW)
    assert a is not None
    assert take(store, Claimant(name, "b/2/y", 30.0), expect=None, now=NOW) is None  # b lost the race
    sight = look(store, name, path=False)
    assert (sight.held, sight.holder, sight.tag) == (True, "a/1/x", a.tag)
    renewed = renew(store, a, now=NOW)
    assert renewed is not None
    assert renewed.tag != a.tag
    assert renew(store, a, now=NOW) is None  # a stale version: renewing it loses
    assert release(store, renewed, now=NOW) is True
    assert look(store, name, path=False).held is False
    # A lease taken over after it expired is the new holder's: the old holder's release leaves it.
    b = take(store, Claimant(name, "b/2/y", 30.0), expect=look(store, name, path=False).tag, now=NOW)
    assert b is not None
    assert release(store, renewed, now=NOW) is False
    assert look(store, name, path=False).holder == "b/2/y"


@pytest.mark.parametrize(
    "raw",
    [b"not json", b"[]", b'{"format": 2, "state": "held"}', b'{"format": 1, "state": "held", "holder": "a b"}',
     b'{"format": 1, "state": "held", "holder": "a", "lease_s": "NaN"}'],
)  # fmt: skip
def test_a_document_that_is_no_lease_is_taken_over_by_its_version(raw: bytes) -> None:
    store = MemoryPaths()
    name = lease_name("0123456789abcdef", "abcdef012345")
    store.write_document(name, raw)
    sight = look(store, name, path=False)
    assert sight.held is False
    assert take(store, Claimant(name, "a/1/x", 30.0), expect=sight.tag, now=NOW) is not None


def test_a_forged_lease_of_a_year_expires_within_the_longest_lease() -> None:
    store = MemoryPaths()
    name = lease_name("0123456789abcdef", "abcdef012345")
    store.write_document(name, b'{"format": 1, "state": "held", "holder": "x", "lease_s": 31536000}')
    assert look(store, name, path=False).lease_s == 3600.0


# -- machines at once, on one store ------------------------------------------------------------------


def machine(tmp_path: Path, n: int) -> Path:
    folder = tmp_path / f"machine-{n}" / ".mobster" / "checks"
    folder.mkdir(parents=True)
    (folder / "signup.yaml").write_text(SIGNUP)
    return folder / "signup.yaml"


async def fleet(
    clock: FakeClock, checks: list[Path], store: MemoryPaths, policy: LeasePolicy, delay: float = 2.0
) -> list[tuple[mc.CheckResult, int]]:
    async def one(file: Path, n: int) -> tuple[mc.CheckResult, int]:
        model = ScriptedModel(clock=clock, delay=delay)
        options = RunOptions(root=file.parent.parent.parent, paths=store, lease=policy, recorder=RecordedBy(f"ci-{n}"))
        phone = ScriptedPhone.from_text(APP, clock=clock)
        return await run_check(load_check(file), phone, clock, model=model, options=options), model.calls

    return list(await asyncio.gather(*(one(f, n) for n, f in enumerate(checks))))


def test_of_three_machines_that_find_no_path_one_records_and_two_replay_at_no_cost(tmp_path: Path) -> None:
    store, clock = MemoryPaths(), FakeClock()
    results = clock.run(fleet(clock, [machine(tmp_path, n) for n in range(3)], store, POLICY))
    assert [r.verdict for r, _ in results] == [mc.Verdict.PASSED] * 3
    modes = sorted((r.mode, calls) for r, calls in results)
    assert [m for m, _ in modes] == ["replay", "replay", "smart"]
    assert [calls for m, calls in modes if m == "replay"] == [0, 0]
    waited = [r.path_why for r, _ in results if r.mode == "replay"]
    assert all(w is not None and "replaying the path it stored" in w for w in waited), waited
    [(identity, env)] = store.names()
    lease = look(store, lease_name(identity, env), path=True)
    assert lease.held is False  # released when the recording ended
    raw = store.read(identity, env, max_bytes=1 << 20).data  # the recorder named itself in the path
    assert b'"machine": "ci-' in raw


def test_a_recorder_killed_holding_the_lease_blocks_nobody_past_its_expiry(tmp_path: Path) -> None:
    store, clock = MemoryPaths(), FakeClock()
    check = machine(tmp_path, 0)
    identity = load_check(check).identity
    # A machine took the lease and died: no renewal ever comes. Its env is this device's.
    first = clock.run(fleet(clock, [check], MemoryPaths(), POLICY))[0][0]
    assert first.env is not None
    dead = take(store, Claimant(lease_name(identity, first.env), "ci-9/1/dead", 30.0), expect=None, now=NOW)
    assert dead is not None
    began = clock.now()
    [(result, calls)] = clock.run(fleet(clock, [check], store, POLICY))
    assert (result.verdict, result.mode, calls > 0) == (mc.Verdict.PASSED, "smart", True)
    assert result.path_why is not None
    assert "the recording lease of ci-9/1/dead expired" in result.path_why
    assert 30.0 <= clock.now() - began < 30.0 + 20.0  # the expiry, then the recording itself


def test_a_run_that_waited_its_wait_s_records_without_the_lease(tmp_path: Path) -> None:
    store, clock = MemoryPaths(), FakeClock()
    check = machine(tmp_path, 0)
    first = clock.run(fleet(clock, [check], MemoryPaths(), POLICY))[0][0]
    assert first.env is not None
    name = lease_name(load_check(check).identity, first.env)
    alive = take(store, Claimant(name, "ci-2/7/live", 30.0), expect=None, now=NOW)
    assert alive is not None

    async def a_live_holder_and_a_waiter() -> tuple[mc.CheckResult, int]:
        async def keep_renewing() -> None:
            current: Lease | None = alive
            while current is not None:
                await clock.sleep(10.0)
                current = renew(store, current, now=NOW)

        renewing = asyncio.create_task(keep_renewing())
        try:
            [done] = await fleet(clock, [check], store, LeasePolicy(lease_s=30.0, wait_s=60.0, poll_s=1.0))
        finally:
            renewing.cancel()
        return done

    result, calls = clock.run(a_live_holder_and_a_waiter())
    assert (result.verdict, result.mode, calls > 0) == (mc.Verdict.PASSED, "smart", True)
    assert result.path_why is not None
    assert "waited 60 s for the recording of ci-2/7/live; this run records without the lease" in result.path_why


def test_a_run_stopped_while_waiting_for_a_lease_is_stopped_at_once(tmp_path: Path) -> None:
    store, clock = MemoryPaths(), FakeClock()
    check = machine(tmp_path, 0)
    first = clock.run(fleet(clock, [check], MemoryPaths(), POLICY))[0][0]
    assert first.env is not None
    take(store, Claimant(lease_name(load_check(check).identity, first.env), "x/1/y", 30.0), expect=None, now=NOW)

    async def stop_after_five_seconds() -> None:
        task = asyncio.ensure_future(fleet(clock, [check], store, POLICY))
        await clock.sleep(5.0)
        task.cancel()
        with pytest.raises(mc.RunStopped) as stopped:
            await task
        assert stopped.value.result.outcome.failure_class is mc.FailureClass.STOPPED

    began = clock.now()
    clock.run(stop_after_five_seconds())
    assert clock.now() - began == pytest.approx(5.0)
    assert store.names() == []  # nothing recorded, nothing written


def test_a_path_stored_between_the_two_reads_of_a_wait_is_replayed_not_recorded_again(tmp_path: Path) -> None:
    recorded = MemoryPaths()
    check = machine(tmp_path, 0)
    clock = FakeClock()
    assert clock.run(fleet(clock, [check], recorded, POLICY))[0][0].mode == "smart"
    [(key, value)] = recorded.paths.items()

    class StoredMeanwhile(MemoryPaths):
        """Another machine stores the path (and frees its lease) just after this run read the paths."""

        def read_document(self, name: str, *, max_bytes: int) -> mc.paths.Versioned:
            if name.startswith("leases/") and not self.paths:
                self.paths[key] = value
            return super().read_document(name, max_bytes=max_bytes)

    store = StoredMeanwhile()
    [(result, calls)] = clock.run(fleet(clock, [check], store, POLICY))
    assert (result.verdict, result.mode, calls) == (mc.Verdict.PASSED, "replay", 0)
    [lease] = store.documents("leases/")
    assert look(store, lease, path=True).held is False  # the lease it took was given back


@pytest.mark.parametrize("size", [5000, 2 * 1024 * 1024])
def test_a_lease_document_too_large_to_be_one_blocks_nobody(size: int) -> None:
    store = MemoryPaths()
    name = lease_name("0123456789abcdef", "abcdef012345")
    store.write_document(
        name, b'{"format": 1, "state": "held", "holder": "x", "lease_s": 60, "pad": "' + b"x" * size + b'"}'
    )
    sight = look(store, name, path=False)
    assert sight.held is False
    assert take(store, Claimant(name, "a/1/x", 30.0), expect=sight.tag, now=NOW) is not None
    assert look(store, name, path=False).holder == "a/1/x"
