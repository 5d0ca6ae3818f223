"""What a passing run keeps: the recorded path, the heal state and the heal file.

Rule 1: only a passing verdict keeps anything; a run that failed, couldn't run or was stopped
        leaves the cache and the heal file as they were.
Rule 2: Smart's recording becomes the path of this env, and the check's heal file and heal states
        are retired (a line says so): their heals were of the path recorded before.
Rule 3: a healed replay never touches the shared recorded path. Its heals are merged into the heal
        file beside the check first, then the healed path and the entries it holds are written
        to the check's own heal state, in the path store the run uses (beside its paths, so a
        committed heal travels with them): the healed path is adopted only with its durable heal
        file (the heal file's rules). Entries of the heal file no heal state holds (a run stopped
        between the two writes) are dropped. The state keeps its keep-failing steps and its
        rejected heals.
Rule 4: a carried path, as recorded, becomes this env's path; its heals wait for review as usual,
        and the source env's keep-failing steps (and rejected heals) come with it.
Rule 5: the read-modify-write happens under the project's lock: another mobster process may
        write the same files.
Rule 6: a passing replay notes when this machine last replayed the path (``pathbook``'s Rule 2),
        never in the path itself.
Rule 8: every write expects the version the plan read (the cache's Rule 13, the heal file's
        Rule 11): a recording whose env another machine stored since is not kept (theirs stays,
        and a line says so); a heal state another run wrote since is not written over.
Rule 7: a heal waiting for review is never replaced (the heal file's Rule 9): a heal of this run
        that would take the place of one that waits (of its step, or over the actions of the
        replayed path's own) is not kept, and the check fails, class ``drift``, naming it (another
        run may have written it since this one began; the runner refuses to heal such a step in
        the first place). A heal that changed nothing (its lines read the same) is never written.
"""

from __future__ import annotations

import attrs

from mobster_core._clock import utc_now
from mobster_core._results.results import Mode
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._rules.verdict.verdict import FailureClass
from mobster_core._store.cache import Origin, RecordedBy, Recording, ReplayCache, check_name
from mobster_core._store.fsutil import project_lock
from mobster_core._store.healfile import (
    HealEntry,
    HealFileError,
    HealState,
    check_key,
    heal_file_for,
    heal_states,
    load_heal_state,
    merge_entries,
    read_heal_file,
    replaced,
    retire,
    save_heal_state,
    state_name,
    waiting,
    write_heal_file,
)
from mobster_core._store.pathbook import note_replayed

from .context import Run
from .ended import couldnt, failed
from .plan import Prepared
from .steps import Executed

__all__ = ["keep"]


def keep(run: Run, prepared: Prepared, executed: Executed) -> str | None:
    """Rules 2-7, for a run whose verdict passed; returns a line to show, if any."""
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
    store, words = cache.backend, run.provenance
    plan = executed.plan
    heals = [h for h in executed.heals if h.changed]  # Rule 7: a heal that changed nothing is no heal
    name = check_name(root, file)
    if executed.mode is Mode.SMART:
        origin = Origin("recorded", None, name, words, by=_recorded_by(run, prepared))
        kept = cache.keep_path(identity, env, Recording(executed.ran, utc_now(), origin), expect=plan.tag)
        if not kept.won:
            return f"another run stored this path first ({kept.file}): theirs is kept, this recording is not"
        retired = retire(cache, file, identity, env, provenance=words)
        if retired:
            heals_of = f"{retired} heal{'s' if retired != 1 else ''} of {heal_file_for(file).name}"
            return f"retired {heals_of}: they were of the path recorded before"
        return None
    key = check_key(root, file)
    keep_failing, rejected = plan.state.keep_failing, plan.state.rejected
    if plan.carried is not None:
        source = load_heal_state(store, state_name(identity, plan.carried.stored.env, key), provenance=words)
        keep_failing, rejected = source.keep_failing, source.rejected
        origin = Origin("carried", plan.carried_from, name, words, by=_recorded_by(run, prepared))
        steps = plan.carried.steps if heals else executed.ran
        kept = cache.keep_path(identity, env, Recording(tuple(steps), utc_now(), origin), expect=plan.tag)
        if not kept.won:
            return f"another run stored this path first ({kept.file}): theirs is kept, the carried one is not"
    if not heals:
        return None
    entries = read_heal_file(heal_file_for(file))  # again, under the lock: it may have changed meanwhile
    states = heal_states(cache, identity, key, provenance=words)
    mine = list(plan.state.adopts) if plan.adopted else []
    _never_replace(run, replaced(states, entries, env, mine, heals))
    others = [e for other, e in waiting(states, entries) if other.digest != env.digest]
    write_heal_file(file, merge_entries(merge_entries(others, mine), heals))  # first: durable before adopted
    state = HealState(executed.ran, tuple(merge_entries(mine, heals)), keep_failing, rejected)
    name = state_name(identity, env, key)
    # Rule 8: the version the plan read (a carried path's new env: the one there now)
    expect = plan.state.tag if plan.carried is None else load_heal_state(store, name, provenance=words).tag
    save_heal_state(store, name, state, provenance=words, expect=expect)
    return None


def _recorded_by(run: Run, prepared: Prepared) -> RecordedBy:
    """The cache's Rule 14: the machine and build the front end named, this device and this run's model."""
    info, calls = prepared.info, run.calls
    return attrs.evolve(
        run.options.recorder,
        device=f"{info.name} ({info.kind.value}, {info.ios})"[:200],
        model=None if calls is None else str(calls.model.name)[:200],
    )


def _never_replace(run: Run, found: tuple[HealEntry, HealEntry] | None) -> None:
    """Rule 7: fail the check, keeping nothing, when one of its heals would replace a heal that waits."""
    if found is None:
        return
    heal, entry = found
    shown = check_name(run.root, heal_file_for(run.check.file))
    raise failed(
        FailureClass.DRIFT,
        f"the heal of step {heal.step} ({heal.from_} -> {heal.to}) was not kept: it would take the place of the "
        f"heal that waits for review in {shown} (step {entry.step}, {entry.from_} -> {entry.to}), and a heal "
        "waiting for review is never healed over",
        step=heal.step,
        fix=Fix(FixCode.SETTLE_HEAL, {"heal_file": shown, "check": run.check.file.name}),
    )
