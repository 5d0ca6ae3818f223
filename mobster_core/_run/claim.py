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
    """Rules 1-5: the plan to run (another machine's path, when one came) and the lease this run holds."""
    policy, check = run.options.lease, run.check
    if policy is None or plan.path is not None or check.launch_only or run.options.fresh:
        return plan, None
    cache = ReplayCache(run.root, run.options.paths)
    store, identity, env = cache.backend, prepared.identity, prepared.env
    name = lease_name(identity, env.digest)
    claimant = Claimant(name, new_holder(run.options.recorder.machine), policy.lease_s)

    async def read() -> LeaseSight:
        return look(store, name, path=cache.lookup(identity, env).hit)

    began = run.clock.now()
    while True:
        decision = await drive(LeaseWait(policy, began), run.clock, read)
        waited = run.clock.now() - began
        if isinstance(decision, Replay):
            again = choose_path(run, prepared)
            if again.path is None:
                continue  # gone again (forgotten, set aside) before this run could plan on it
            line = f"waited {waited:.1f} s for another machine's recording; replaying the path it stored"
            log.info("replaying the path another machine recorded", lease=name, waited_s=round(waited, 3))
            return attrs.evolve(again, why=again.why or line), None
        if isinstance(decision, Take):
            lease = take(store, claimant, expect=decision.expect, now=utc_now())
            if lease is None:
                continue  # Rule 4: another machine took it first: wait for its recording
            if cache.lookup(identity, env).hit:  # Rule 3: stored and released between this run's two reads
                release(store, lease, now=utc_now())
                continue
            if decision.expired is not None:
                line = f"the recording lease of {decision.expired} expired; this run records"
                plan = attrs.evolve(plan, why="; ".join(w for w in (plan.why, line) if w))
            log.debug("recording lease taken", lease=name, holder=claimant.holder, waited_s=round(waited, 3))
            return plan, lease
        assert isinstance(decision, GiveUp)
        line = (
            f"waited {decision.waited_s:.0f} s for the recording of {decision.holder or 'another machine'}; "
            "this run records without the lease"
        )
        log.warning("recording without the lease", lease=name, waited_s=round(waited, 3))
        return attrs.evolve(plan, why="; ".join(w for w in (plan.why, line) if w)), None


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
