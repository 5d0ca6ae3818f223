"""Before a run records: the store's recording lease (``_store/lease.py``), taken or waited for.

Rule 1: a run takes a lease only when ``options.lease`` is set and it must record: no path to
        replay, not launch-only, not ``fresh`` (a person asked this run to record again).
Rule 2: the wait is the lease's pure :class:`~mobster_core._store.lease.LeaseWait`, driven by the one
        wait loop (``wait.py``) on the run's clock; each read looks the path up by the cache's
        rules (a corrupt, forged or unsigned path is no path: set aside in a private store, left as
        it is in a shared one, the cache's Rule 12) and reads the lease.
Rule 3: a path another machine stored meanwhile is replayed: the plan is chosen again, and its
        line says the run waited for it. A lease just taken is given back when the path is there
        now (its recorder stored it and released the lease between this run's read of the path
        and its read of the lease): the run replays it instead of recording it a second time.
Rule 4: a lease this run takes is held while the run goes on: a task on the run's clock renews it
        every third of its ``lease_s``, and it is released when the run ends, however it ended
        (the lease's Rule 5). A take another machine won waits again, counting from the first
        wait's start.
Rule 5: after ``wait_s`` the run records without the lease, and its line says how long it waited
        and for which holder. A store that can't be reached is the store's error (``environment``).
Rule 6 (flows): a check whose path is in parts (``plan`` Rule 7) leases the first part it would
        record, by that part's identity: a flow's segment is recorded by one machine while every
        other machine that needs it, whichever check it runs, waits and then replays it. When the
        part it waited for is there and a later part still has no path (the check's own steps),
        the run claims that part the same way, counting from the first wait's start.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import attrs

from mobster_core._clock import utc_now
from mobster_core._log import get_logger
from mobster_core._store.cache import ReplayCache
from mobster_core._store.lease import (
    Claimant,
    GiveUp,
    Lease,
    LeaseSight,
    LeaseWait,
    Replay,
    Take,
    lease_name,
    look,
    new_holder,
    release,
    renew,
    take,
)
from mobster_core.exceptions import MobsterError

from .context import Run
from .plan import Plan, Prepared, choose_path
from .wait import drive

__all__ = ["claim", "holding"]

log = get_logger(__name__)


async def claim(run: Run, prepared: Prepared, plan: Plan) -> tuple[Plan, Lease | None]:
    """Rules 1-6: the plan to run (another machine's path, when one came) and the lease this run holds."""
    policy = run.options.lease
    if policy is None or run.check.launch_only or run.options.fresh:
        return plan, None
    began = run.clock.now()
    while (identity := _first_recorded(prepared, plan)) is not None:
        plan, lease, replayed = await _claim_one(run, prepared, plan, identity, began)
        if not replayed:
            return plan, lease
    return plan, None


def _first_recorded(prepared: Prepared, plan: Plan) -> str | None:
    """Rules 1, 6: the identity of what this run records first (None: it replays all of its path)."""
    if plan.parts:
        return next((p.part.identity for p in plan.parts if p.path is None), None)
    return prepared.identity if plan.path is None else None


async def _claim_one(
    run: Run, prepared: Prepared, plan: Plan, identity: str, began: float
) -> tuple[Plan, Lease | None, bool]:
    """Rules 2-5 for one identity: the plan, the lease taken, and whether another machine's path came."""
    policy = run.options.lease
    assert policy is not None
    cache = ReplayCache(run.root, run.options.paths)
    store, env = cache.backend, prepared.env
    name = lease_name(identity, env.digest)
    claimant = Claimant(name, new_holder(run.options.recorder.machine), policy.lease_s)

    async def read() -> LeaseSight:
        return look(store, name, path=cache.lookup(identity, env).hit)

    while True:
        decision = await drive(LeaseWait(policy, began), run.clock, read)
        waited = run.clock.now() - began
        if isinstance(decision, Replay):
            again = choose_path(run, prepared)
            if _first_recorded(prepared, again) == identity:
                continue  # gone again (forgotten, set aside) before this run could plan on it
            line = f"waited {waited:.1f} s for another machine's recording; replaying the path it stored"
            log.info("replaying the path another machine recorded", lease=name, waited_s=round(waited, 3))
            return attrs.evolve(again, why=_joined(again.why, line)), None, True
        if isinstance(decision, Take):
            lease = take(store, claimant, expect=decision.expect, now=utc_now())
            if lease is None:
                continue  # Rule 4: another machine took it first: wait for its recording
            if cache.lookup(identity, env).hit:  # Rule 3: stored and released between this run's two reads
                release(store, lease, now=utc_now())
                continue
            if decision.expired is not None:
                line = f"the recording lease of {decision.expired} expired; this run records"
                plan = attrs.evolve(plan, why=_joined(plan.why, line))
            log.debug("recording lease taken", lease=name, holder=claimant.holder, waited_s=round(waited, 3))
            return plan, lease, False
        assert isinstance(decision, GiveUp)
        line = (
            f"waited {decision.waited_s:.0f} s for the recording of {decision.holder or 'another machine'}; "
            "this run records without the lease"
        )
        log.warning("recording without the lease", lease=name, waited_s=round(waited, 3))
        return attrs.evolve(plan, why=_joined(plan.why, line)), None, False


def _joined(*lines: str | None) -> str:
    return "; ".join(w for w in lines if w)


@contextlib.asynccontextmanager
async def holding(run: Run, lease: Lease | None) -> AsyncIterator[None]:
    """Rule 4: keep ``lease`` renewed while the block runs, and release it when the block ends."""
    if lease is None:
        yield
        return
    store = ReplayCache(run.root, run.options.paths).backend
    held: list[Lease | None] = [lease]

    async def keep_renewing() -> None:
        while (current := held[0]) is not None:
            await run.clock.sleep(current.lease_s / 3)
            try:
                held[0] = renew(store, current, now=utc_now())
            except (OSError, MobsterError) as exc:
                log.warning("the recording lease couldn't be renewed", lease=current.name, error=str(exc))
                continue  # tried again at the next third: the lease may live on meanwhile
            if held[0] is None:
                log.warning("the recording lease was taken over by another machine", lease=current.name)

    task = asyncio.create_task(keep_renewing())
    try:
        yield
    finally:
        task.cancel()
        current = held[0]
        if current is not None:
            try:
                release(store, current, now=utc_now())
            except (OSError, MobsterError) as exc:
                log.warning("the recording lease couldn't be released; it expires", lease=current.name, error=str(exc))
