"""What a passing run keeps: the recorded path, the heal state and the heal file.

Rule 1: only a passing verdict keeps anything; a run that failed, couldn't run or was stopped
        leaves the cache and the heal file as they were.
Rule 2: Smart's recording becomes the path of this env, and the check's heal file and heal states
        are retired (a line says so): their heals were of the path recorded before.
Rule 3: a healed replay never touches the shared recorded path. Its heals are merged into the heal
        file beside the check first, then the healed path and the entries it holds are written
        to the check's own heal state: the healed path is adopted only with its durable heal file
        (the heal file's rules). Entries of the heal file no heal state holds (a run stopped
        between the two writes) are dropped.
Rule 4: a carried path, as recorded, becomes this env's path; its heals wait for review as usual,
        and the source env's keep-failing steps come with it.
Rule 5: the read-modify-write happens under the project's lock: another mobster process may
        write the same files.
Rule 6: a passing replay notes when this machine last replayed the path (``pathbook``'s Rule 2),
        never in the path itself.
"""

from __future__ import annotations

from mobster_core._clock import utc_now
from mobster_core._rules.identity import Env
from mobster_core._rules.verdict import FailureClass
from mobster_core._store.cache import Origin, ReplayCache, check_name
from mobster_core._store.fsutil import project_lock
from mobster_core._store.healfile import (
    HealEntry,
    HealFileError,
    HealState,
    adopted,
    check_key,
    heal_file_for,
    load_heal_state,
    merge_entries,
    read_heal_file,
    retire,
    save_heal_state,
    write_heal_file,
)
from mobster_core._store.pathbook import note_replayed

from .context import Run
from .ended import couldnt
from .plan import Prepared
from .results import Mode
from .steps import Executed

__all__ = ["keep"]


def keep(run: Run, prepared: Prepared, executed: Executed) -> str | None:
    """Rules 2-5, for a run whose verdict passed; returns a line to show, if any."""
    try:
        with project_lock(run.root):
            note = _keep(run, prepared, executed)
            if executed.mode is not Mode.SMART:  # Rule 6, last: the heal file and state come first
                note_replayed(run.root, prepared.identity, prepared.env, utc_now())
            return note
    except HealFileError as exc:
        raise couldnt(FailureClass.USAGE, str(exc)) from exc


def _keep(run: Run, prepared: Prepared, executed: Executed) -> str | None:
    root, identity, env, file = run.root, prepared.identity, prepared.env, run.check.file
    cache = ReplayCache(root, run.options.paths)
    plan, heals = executed.plan, executed.heals
    name = check_name(root, file)
    if executed.mode is Mode.SMART:
        origin = Origin("recorded", None, name, run.provenance)
        cache.store_path(identity, env, executed.ran, recorded_at=utc_now(), origin=origin)
        retired = retire(root, file, identity, env, run.options.paths)
        if retired:
            heals_of = f"{retired} heal{'s' if retired != 1 else ''} of {heal_file_for(file).name}"
            return f"retired {heals_of}: they were of the path recorded before"
        return None
    key = check_key(root, file)
    keep_failing = plan.state.keep_failing
    if plan.carried is not None:
        keep_failing = load_heal_state(root, identity, plan.carried.stored.env, key).keep_failing
        origin = Origin("carried", plan.carried_from, name, run.provenance)
        steps = plan.carried.steps if heals else executed.ran
        cache.store_path(identity, env, steps, recorded_at=utc_now(), origin=origin)
    if not heals:
        return None
    mine = list(plan.state.adopts) if plan.adopted else []
    entries = merge_entries(merge_entries(_held_by_others(run, identity, env, key), mine), heals)
    write_heal_file(file, entries)  # first: the heal file is durable before its path is adopted
    state = HealState(executed.ran, tuple(merge_entries(mine, heals)), keep_failing)
    save_heal_state(root, identity, env, key, state)
    return None


def _held_by_others(run: Run, identity: str, env: Env, key: str) -> list[HealEntry]:
    """The heal file's entries other envs' healed paths hold (Rule 3)."""
    entries = read_heal_file(heal_file_for(run.check.file))  # again: it may have changed meanwhile
    held: list[HealEntry] = []
    for stored in ReplayCache(run.root, run.options.paths).envs(identity):
        state = load_heal_state(run.root, identity, stored.env, key)
        if stored.env.digest != env.digest and adopted(state, entries):
            held.extend(state.adopts)
    return merge_entries(held, [])
