"""Reviewing heals: what healed, how its screen changed, and keeping or rejecting it.

A heal waits for review in the heal file beside the check (``signup.yaml`` -> ``signup.heal.yaml``,
``signup.yml`` -> ``signup.heal.yml``); until then the healed path replays for that check file
only. Accepting makes the healed steps the recorded path and removes the heal file; rejecting
drops them, marks the recorded steps keep-failing (they fail, class ``drift``, when they change
again) and removes the heal file; undoing a reject (:func:`unreject_heals`) takes those marks
away, so the step heals again on its next drift. Each takes the project's lock.
``mobster test heal`` is these functions.

The heal states are kept in the project's path store beside the paths (``paths``): with
``"committed"`` they are in ``.mobster/paths/heals/``, tracked in git with the heal file, so a
heal made on one clone is in use, accepted or rejected on any other.

Every function takes the check (``load_check``) and the project folder (by default the one
holding the check file).

A flow's heals (``docs/flows.md``) wait in the heal file beside the flow (``login.heal.yaml``):
one entry, one review, for every check that uses it. ``accept_flow_heals`` and
``reject_flow_heals`` take the flow file and apply to each segment of the flow (one per set of
names its inputs are bound to), so they apply to every check that uses it.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from ._clock import utc_now
from ._rules.replay.typing_rules import Provenance
from ._store import healfile
from ._store.cache import ReplayCache
from ._store.checks import Check, project_of
from ._store.healfile import (
    HealEntry,
    HealFileError,
    check_key,
    heal_file_for,
    heal_states,
    not_kept_reason,
    parse_state_name,
    read_heal_file,
    waiting,
)
from .exceptions import MobsterError
from .protocols import PathStore

__all__ = [
    "HealEntry",
    "HealFileError",
    "PendingHeal",
    "accept_flow_heals",
    "accept_heals",
    "heal_file_for",
    "pending_heals",
    "read_heal_file",
    "reject_flow_heals",
    "reject_heals",
    "rejected_steps",
    "unreject_heals",
]

Pair = tuple[str, str]


@attrs.frozen
class PendingHeal:
    """A heal waiting for review, and how the screen of its step changed.

    ``entry`` is the heal file's entry; ``env`` the app version the screens are from
    (``1.0 (1)``), None when no recording of them is left; ``gone`` the ``(role, label)`` pairs of
    the recorded step's screen the healed one lacks, ``came`` those it has that the recorded one
    didn't. ``in_use`` is False for an entry no healed path holds: it replays nothing, and
    ``accept_heals`` refuses it; ``why`` then says why and what to do (the file was edited, a run
    stopped between writing it and keeping its path, or it was made on another machine whose
    paths are local), None while it is in use.
    """

    entry: HealEntry
    env: str | None = None
    gone: tuple[Pair, ...] = ()
    came: tuple[Pair, ...] = ()
    in_use: bool = True
    why: str | None = None


def pending_heals(
    check: Check, root: Path | None = None, *, paths: str | PathStore = "local"
) -> tuple[PendingHeal, ...]:
    """The heals of ``check`` waiting for review, in step order. Raises ``HealFileError``.

    ``paths`` is the project's path store (``"local"``, ``"committed"`` or a ``PathStore``): the
    heal states are read from it, beside the paths they heal.
    """
    entries = read_heal_file(heal_file_for(check.file))
    if not entries:
        return ()
    root = root or project_of(check.file)
    cache, key = ReplayCache(root, paths), check_key(root, check.file)
    states = [(i, env, st) for i in _own(check) for env, st in heal_states(cache, i, key, provenance=check.provenance)]
    held = [e for _env, e in waiting([(env, st) for _i, env, st in states], entries)]
    pending = []
    for entry in entries:
        in_use = entry in held
        why = None if in_use else not_kept_reason(root, cache.backend, entry)
        found = PendingHeal(entry, in_use=in_use, why=why)
        for identity, env, state in states:
            recorded = cache.lookup(identity, env).steps
            healed = state.healed
            if recorded is None or healed is None or entry not in state.adopts or entry.step > len(recorded):
                continue
            before = set(recorded[entry.step - 1].screen.signature)
            after = set(healed[entry.step - 1].screen.signature) if entry.step <= len(healed) else set()
            found = attrs.evolve(
                found, env=env.describe_app(), gone=tuple(sorted(before - after)), came=tuple(sorted(after - before))
            )
            break
        pending.append(found)
    return tuple(pending)


def _own(check: Check) -> tuple[str, ...]:
    """The identities the check's own heals are kept under: its own parts' (between and after its flows).

    A check that uses no flow has one part, its identity; one that does keeps the heals of its own
    steps under the parts they are in (a flow's heals are the flow's: :func:`accept_flow_heals`).
    """
    return tuple(p.identity for p in check.parts if p.flow is None) or (check.identity,)


def accept_heals(check: Check, root: Path | None = None, *, paths: str | PathStore = "local") -> int:
    """Keep the healed steps of ``check`` as its recorded path (in the store ``paths``); return how many heals."""
    cache = ReplayCache(root or project_of(check.file), paths)
    return healfile.accept_heals(cache, check.file, _own(check), recorded_at=utc_now(), provenance=check.provenance)


def reject_heals(check: Check, root: Path | None = None, *, paths: str | PathStore = "local") -> int:
    """Bring the recorded steps of ``check`` back, marked keep-failing (in the store ``paths``); how many heals."""
    cache = ReplayCache(root or project_of(check.file), paths)
    return healfile.reject_heals(cache, check.file, _own(check), provenance=check.provenance)


def _flow_segments(flow_file: Path, root: Path, paths: str | PathStore = "local") -> tuple[list[str], Provenance]:
    """The segment identities of a flow that have heal states in the store, and the words of the checks that use it.

    A segment is keyed by the names its inputs are bound to, so a flow has one for each set of
    bindings; the heal states name them (``heals/<segment>-<env>-<flow key>.json``).
    """
    from ._store.checks import find_checks, load_check

    cache = ReplayCache(root, paths)
    key = check_key(root, flow_file)
    found = [parse_state_name(n) for n in cache.backend.documents("heals/")]
    identities = sorted({f[0] for f in found if f is not None and f[2] == key})
    sources: list[str] = []
    for file in find_checks(root):
        try:
            check = load_check(file)
        except MobsterError:
            continue  # a check that can't be read uses no flow here; `mobster test` says why
        if any(flow_file.resolve() in {f.resolve() for f in c.files} for c in check.calls):
            sources += check.provenance.sources
    return identities, Provenance(tuple(sources))


def accept_flow_heals(flow_file: Path, root: Path | None = None, *, paths: str | PathStore = "local") -> int:
    """Keep the healed steps of the flow's segments (every check that uses it replays them); return how many heals."""
    root = root or project_of(flow_file)
    identities, words = _flow_segments(flow_file, root, paths)
    cache = ReplayCache(root, paths)
    return healfile.accept_heals(cache, flow_file, identities, recorded_at=utc_now(), provenance=words)


def reject_flow_heals(flow_file: Path, root: Path | None = None, *, paths: str | PathStore = "local") -> int:
    """Bring the flow's recorded steps back, marked keep-failing, for every check that uses it; how many heals."""
    root = root or project_of(flow_file)
    identities, words = _flow_segments(flow_file, root, paths)
    return healfile.reject_heals(ReplayCache(root, paths), flow_file, identities, provenance=words)


def rejected_steps(check: Check, root: Path | None = None, *, paths: str | PathStore = "local") -> tuple[int, ...]:
    """The steps of ``check`` its review rejected: they keep failing when they change (in the store ``paths``)."""
    cache = ReplayCache(root or project_of(check.file), paths)
    found = {n for i in _own(check) for n in healfile.rejected_steps(cache, check.file, i, provenance=check.provenance)}
    return tuple(sorted(found))


def unreject_heals(
    check: Check, root: Path | None = None, *, paths: str | PathStore = "local", step: int | None = None
) -> tuple[int, ...]:
    """Undo the reject of ``check``'s heals (of ``step`` only, when given): those steps heal again; which did."""
    cache = ReplayCache(root or project_of(check.file), paths)
    words = check.provenance
    undone = {
        n for i in _own(check) for n in healfile.unreject_heals(cache, check.file, i, step=step, provenance=words)
    }
    return tuple(sorted(undone))
