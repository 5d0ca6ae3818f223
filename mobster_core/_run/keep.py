"""What a passing run keeps: the recorded path, the heal state and the heal file.

Rule 1: only a passing verdict keeps anything; a run that failed, couldn't run or was stopped
        leaves the cache and the heal file as they were.
Rule 2: Smart's recording becomes the path of this env, and its heal state is emptied.
Rule 3: a healed replay stores the healed path, keeps the path as recorded before its first
        pending heal (for ``--reject``), and merges its heals into the heal file beside the check.
Rule 4: a carried path, as it ran (heals applied), becomes this env's path; its heals wait for
        review as usual, and the source env's pending review and keep-failing steps come with it.
Rule 5: the read-modify-write happens under the project's lock: another mobster process may
        write the same files.
"""

from __future__ import annotations

from mobster_core._clock import utc_now
from mobster_core._rules.verdict import FailureClass
from mobster_core._store.cache import ReplayCache
from mobster_core._store.fsutil import project_lock
from mobster_core._store.healfile import (
    HealFileError,
    HealState,
    heal_file_for,
    load_heal_state,
    merge_entries,
    read_heal_file,
    save_heal_state,
    write_heal_file,
)

from .context import Run
from .ended import couldnt
from .plan import Prepared
from .results import Mode
from .steps import Executed

__all__ = ["keep"]


def keep(run: Run, prepared: Prepared, executed: Executed) -> None:
    """Rules 2-5, for a run whose verdict passed."""
    try:
        with project_lock(run.root):
            _keep(run, prepared, executed)
    except HealFileError as exc:
        raise couldnt(FailureClass.USAGE, str(exc)) from exc


def _keep(run: Run, prepared: Prepared, executed: Executed) -> None:
    root, identity, env = run.root, prepared.identity, prepared.env
    cache = ReplayCache(root)
    plan, heals = executed.plan, executed.heals
    if executed.mode is Mode.SMART:
        cache.store(identity, env, executed.ran, recorded_at=utc_now())
        save_heal_state(root, identity, env, HealState())
        return
    if plan.carried is not None:
        source = load_heal_state(root, identity, plan.carried.stored.env)
        original = source.original
        if original is None and heals:
            original = plan.carried.steps
        state = HealState(original, source.keep_failing)
    elif heals:
        state = load_heal_state(root, identity, env)
        if state.original is None:
            assert plan.path is not None  # heals happen only in a replay
            state = HealState(plan.path, state.keep_failing)
    else:
        return
    save_heal_state(root, identity, env, state)
    cache.store(identity, env, executed.ran, recorded_at=utc_now())
    if heals:
        pending = read_heal_file(heal_file_for(run.check.file))  # again: it may have changed meanwhile
        write_heal_file(run.check.file, merge_entries(pending, heals))
