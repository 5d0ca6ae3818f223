"""Heals in any path store, and never over one that waits (issue 35 items 2 and 3), through ``run_check``.

A harness's own store (``mobster_core.testing.MemoryPaths``: what an object store or a database
keeps, bytes by name with versions) carries a heal's healed path and a reject's mark beside its
paths, so a second machine with the same store replays the heal, accepts and rejects it. A store written before the
protocol had documents is refused, naming what it lacks. A heal waiting for review in one build's
heal state is never healed over by a run of another build.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import RunOptions, heals
from mobster_core._store.healfile import heal_file_for
from mobster_core.protocols import PathStore
from mobster_core.results import FixCode
from mobster_core.testing import MemoryPaths
from mobster_drivers.devices.scripted import sample_path
from tests.core.run.test_run import project, run
from tests.samples import SIGNUP

APP = sample_path("yourapp").read_text()
RENAMED = sample_path("yourapp-renamed").read_text()


def test_a_harness_s_own_store_carries_the_heal_beside_its_paths(tmp_path: Path) -> None:
    store: PathStore = MemoryPaths()
    check = project(tmp_path / "one", SIGNUP)
    assert run(check, APP, paths=store)[0].verdict is mc.Verdict.PASSED
    healed, _, _ = run(check, RENAMED, paths=store)
    assert (healed.verdict, [h.to for h in healed.heals]) == (mc.Verdict.PASSED, ['Tap "Next"'])
    assert isinstance(store, MemoryPaths)
    [name] = store.documents("heals/")
    assert not (tmp_path / "one" / ".mobster" / "cache" / "heals").exists()  # the heal went to the store
    # Another machine: the same store and the same checks (the heal file travels with them).
    other = project(tmp_path / "two", SIGNUP)
    heal_file_for(other).write_bytes(heal_file_for(check).read_bytes())
    theirs = store.copy()
    strict, _, _ = run(other, RENAMED, model=False, no_heal=True, paths=theirs)
    assert (strict.verdict, strict.mode, strict.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    [pending] = heals.pending_heals(mc.load_check(other), paths=theirs)
    assert pending.in_use
    assert heals.accept_heals(mc.load_check(other), paths=theirs) == 1
    assert theirs.documents("heals/") == []
    assert run(other, RENAMED, model=False, no_heal=True, paths=theirs)[0].verdict is mc.Verdict.PASSED
    # The first machine rejects it instead: the mark is kept in the store, and a run there keeps failing.
    assert heals.reject_heals(mc.load_check(check), paths=store) == 1
    assert store.documents("heals/") == [name]
    again, _, _ = run(check, RENAMED, paths=store.copy())
    assert (again.verdict, again.outcome.failure_class, again.model_calls) == (
        mc.Verdict.FAILED,
        mc.FailureClass.DRIFT,
        0,
    )
    # What to do is to undo the reject (a model alone never heals a rejected step); undone in the store, it heals.
    assert again.outcome.fix is not None
    assert (again.outcome.fix.code, again.outcome.step) == (FixCode.UNDO_REJECT, 3)
    assert again.outcome.fix.args == {"heal_file": ".mobster/checks/signup.heal.yaml", "check": "signup.yaml"}
    assert heals.rejected_steps(mc.load_check(check), paths=store) == (3,)
    assert heals.unreject_heals(mc.load_check(check), paths=store, step=2) == ()  # not a rejected step
    assert heals.unreject_heals(mc.load_check(check), paths=store, step=3) == (3,)
    assert heals.rejected_steps(mc.load_check(check), paths=store) == ()
    assert store.documents("heals/") == []  # the state held only the reject: nothing is left of it
    undone, _, _ = run(check, RENAMED, paths=store)
    assert (undone.verdict, [h.to for h in undone.heals]) == (mc.Verdict.PASSED, ['Tap "Next"'])


class PathsOnly:
    """A store written before the protocol kept documents: its paths' methods only."""

    name = "old"
    shared = False

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        return []

    def read(self, identity: str, env: str, *, max_bytes: int) -> bytes:
        raise FileNotFoundError(identity)

    def write(self, identity: str, env: str, data: bytes) -> None: ...

    def remove(self, identity: str, env: str) -> None: ...

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        return suffix

    def where(self, identity: str, env: str) -> str:
        return identity


def test_a_store_without_documents_is_refused_naming_what_it_lacks(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"not PathsOnly \(it has no documents, read_document, write_document, "):
        RunOptions(root=tmp_path, paths=PathsOnly())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"a PathStore, not int$"):
        RunOptions(root=tmp_path, paths=3)  # type: ignore[arg-type]


def test_a_heal_is_never_made_over_another_builds_waiting_heal_of_the_same_step(tmp_path: Path) -> None:
    check = project(tmp_path, SIGNUP)
    assert run(check, APP)[0].verdict is mc.Verdict.PASSED
    assert run(check, RENAMED)[0].verdict is mc.Verdict.PASSED
    waiting = heal_file_for(check).read_bytes()
    newer = APP.replace('version: "1.0"', 'version: "1.1"').replace('build: "1"', 'build: "2"')
    recorded, _, _ = run(check, newer)  # the next build records its own path: the older build's heal waits on
    assert (recorded.verdict, recorded.mode) == (mc.Verdict.PASSED, "smart")
    assert heal_file_for(check).read_bytes() == waiting
    # The next build renames step 3 its own way: healing it would take the older heal's place in the heal file.
    proceed = newer.replace("label: Continue,", "label: Proceed,")
    result, _, model = run(check, proceed)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    assert result.outcome.message == (
        'step 3 (Tap "Continue") drifted: "Continue" isn\'t on the screen; step 3 is a heal that waits for review in '
        '.mobster/checks/signup.heal.yaml (step 3, Tap "Continue" -> Tap "Next"), and this build doesn\'t fit it: '
        "a heal waiting for review is never healed over"
    )
    assert result.outcome.fix == mc.results.Fix(
        mc.results.FixCode.SETTLE_HEAL, {"heal_file": ".mobster/checks/signup.heal.yaml", "check": "signup.yaml"}
    )
    assert (result.model_calls, result.heals) == (0, ())
    assert model is not None
    assert heal_file_for(check).read_bytes() == waiting
