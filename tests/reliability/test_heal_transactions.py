"""Heals are transactions: a healed path is adopted only together with its heal file, per check file.

A crash is injected before each durable change (a rename that lands a file, a delete) of record,
heal, accept and reject: the exception is a ``BaseException`` the runner can't catch, as a kill
would be. After each crash the invariant is checked (a replay under ``--no-heal`` passes on the
changed app only while the heal file shows the heal, or after it was accepted) and the next run
and the next decision end clean: nothing is reviewed that wasn't, no review is lost.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core._store import healfile
from mobster_core._store.healfile import accept_heals, heal_file_for, read_heal_file, reject_heals
from mobster_core.exceptions import HealFileError
from tests.core.helpers import NOW
from tests.core.run.test_run import FOUR_STEPS_APP, FOUR_STEPS_CHECK, project, renamed, run

CHANGED = renamed(FOUR_STEPS_APP, "CONTINUE", "NEXT")


class Crash(BaseException):
    """A kill at a write point: nothing after it runs, nothing catches it."""


@contextmanager
def crash_at(point: int | None, seen: list[str]) -> Iterator[None]:
    """Raise :class:`Crash` before the ``point``-th durable change under the project (None: count them)."""
    real_replace, real_unlink = Path.replace, Path.unlink

    def durable(path: Path) -> bool:
        text = str(path)
        return "/runs/" not in text and "/test-results/" not in text and not path.name.startswith(".tmp-")

    def before(what: str) -> None:
        seen.append(what)
        if point is not None and len(seen) == point + 1:
            raise Crash(what)

    def replace(self: Path, target: str | os.PathLike[str]) -> Path:
        if durable(Path(target)):
            before(f"write {Path(target).name}")
        return real_replace(self, target)

    def unlink(self: Path, missing_ok: bool = False) -> None:
        if durable(self) and os.path.lexists(self):
            before(f"delete {self.name}")
        real_unlink(self, missing_ok=missing_ok)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "replace", replace)
        mp.setattr(Path, "unlink", unlink)
        yield


def recorded(tmp_path: Path) -> Path:
    check = project(tmp_path, FOUR_STEPS_CHECK)
    assert run(check, FOUR_STEPS_APP)[0].verdict is mc.Verdict.PASSED
    return check


def strict_replay_passes(check: Path) -> bool:
    result, _, _ = run(check, CHANGED, model=False, no_heal=True)
    assert result.verdict in (mc.Verdict.PASSED, mc.Verdict.FAILED), result.outcome
    return result.verdict is mc.Verdict.PASSED


def heal(check: Path) -> mc.CheckResult:
    result, _, _ = run(check, CHANGED)
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    return result


def identity_of(check: Path) -> str:
    return mc.load_check(check).identity


def points(action: Callable[[], object]) -> list[str]:
    seen: list[str] = []
    with crash_at(None, seen):
        action()
    return seen


def test_a_crash_at_each_write_point_of_a_heal_leaves_the_old_state_or_the_new(tmp_path: Path) -> None:
    first = recorded(tmp_path / "count")
    writes = points(lambda: heal(first))
    assert writes[0] == "write signup.heal.yaml"
    # the heal's two writes, then when this machine last replayed the path (a fact for people only)
    assert len(writes) == 3
    assert writes[2] == "write replayed.json"
    for n in range(len(writes)):
        check = recorded(tmp_path / str(n))
        with pytest.raises(Crash), crash_at(n, []):
            heal(check)
        shown = read_heal_file(heal_file_for(check))
        # never a healed path in use without its heal file (a heal file whose path wasn't kept,
        # from a crash between the two writes, adopts nothing and is dropped by the next write)
        if strict_replay_passes(check):
            assert shown, (n, writes[n])
        # the next run is clean: it heals again if it must, and then file and path agree
        heal(check)
        assert [e.step for e in read_heal_file(heal_file_for(check))] == [3]
        assert strict_replay_passes(check)


@pytest.mark.parametrize("decision", ["accept", "reject"])
def test_a_crash_at_each_write_point_of_a_decision_loses_no_review(tmp_path: Path, decision: str) -> None:
    def decide(check: Path) -> int:
        if decision == "accept":
            return accept_heals(check.parents[2], check, identity_of(check), recorded_at=NOW)
        return reject_heals(check.parents[2], check, identity_of(check))

    first = recorded(tmp_path / "count")
    heal(first)
    writes = points(lambda: decide(first))
    assert writes, "a decision writes something"
    for n in range(len(writes)):
        check = recorded(tmp_path / str(n))
        heal(check)
        with pytest.raises(Crash), crash_at(n, []):
            decide(check)
        pending = read_heal_file(heal_file_for(check))
        if strict_replay_passes(check) and decision == "reject":
            assert pending, (n, writes[n])  # a rejected path in use is still shown
        if pending:  # the heal still waits and can be decided again, which finishes the decision
            assert decide(check) == 1
        # decided: accepted heals are the recorded path, rejected ones fail (class drift)
        assert not heal_file_for(check).exists()
        assert strict_replay_passes(check) == (decision == "accept"), (n, writes[n])


def test_a_crash_at_each_write_point_of_a_recording_retires_a_stale_heal_whole(tmp_path: Path) -> None:
    def record_again(check: Path) -> mc.CheckResult:
        result, _, _ = run(check, FOUR_STEPS_APP, fresh=True)
        assert result.verdict is mc.Verdict.PASSED
        return result

    first = recorded(tmp_path / "count")
    heal(first)
    writes = points(lambda: record_again(first))
    for n in range(len(writes)):
        check = recorded(tmp_path / str(n))
        heal(check)
        with pytest.raises(Crash), crash_at(n, []):
            record_again(check)
        # the old state (the heal, in use, shown) or the new (the recording, no heal file)
        if strict_replay_passes(check):
            assert read_heal_file(heal_file_for(check)), (n, writes[n])
        again = record_again(check)
        assert not heal_file_for(check).exists()
        assert again.path_why is not None


def test_recording_afresh_retires_the_heal_file_with_a_line(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    heal(check)
    result, _, _ = run(check, FOUR_STEPS_APP, fresh=True)
    assert (
        result.path_why
        == "asked to record again; retired 1 heal of signup.heal.yaml: they were of the path recorded before"
    )
    assert not heal_file_for(check).exists()


def test_the_heal_file_is_written_before_the_healed_path_is_kept(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    writes = points(lambda: heal(check))
    state = next((tmp_path / ".mobster" / "cache" / "heals").iterdir())
    # and the shared cache is untouched: the last write is the replay ledger, no path
    assert writes == ["write signup.heal.yaml", f"write {state.name}", "write replayed.json"]


def test_a_heal_file_that_cant_be_written_adopts_nothing(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    real = getattr(healfile, "atomic_write")  # noqa: B009 - not in its __all__

    def full(path: Path, data: bytes) -> None:
        if path.name.endswith(".heal.yaml"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(healfile, "atomic_write", full)
        result, _, _ = run(check, CHANGED)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.ENVIRONMENT)
    assert "No space left on device" in result.outcome.message
    assert "free some space" in result.outcome.message
    assert not heal_file_for(check).exists()
    assert not strict_replay_passes(check)  # --no-heal does not pass on the changed app


def test_a_hand_edited_heal_file_adopts_nothing_and_accept_says_why(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    heal(check)
    file = heal_file_for(check)
    file.write_text(file.read_text().replace('to: Tap "NEXT"', 'to: Tap "Delete account"'))
    assert not strict_replay_passes(check)
    with pytest.raises(HealFileError, match="edited"):
        accept_heals(tmp_path, check, identity_of(check), recorded_at=NOW)
    assert file.exists()  # nothing changed
    assert reject_heals(tmp_path, check, identity_of(check)) == 1


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ("version: 1", "version: 2"),
        ("- step: 3", "- step: three"),
        ("op: TAP", "op: [TAP]"),
        ("label: NEXT", "label: NEXT, extra: 1"),
    ],
)
def test_a_heal_file_is_validated_strictly_naming_its_line(tmp_path: Path, edit: str, says: str) -> None:
    check = recorded(tmp_path)
    heal(check)
    file = heal_file_for(check)
    text = file.read_text()
    assert edit in text
    file.write_text(text.replace(edit, says, 1))
    with pytest.raises(HealFileError) as info:
        read_heal_file(file)
    assert str(file) in str(info.value)
    assert "delete" in str(info.value)
    result, _, _ = run(check, CHANGED, model=False, no_heal=True)
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.USAGE)


def test_x_yaml_and_x_yml_have_their_own_heal_files(tmp_path: Path) -> None:
    yaml = project(tmp_path, FOUR_STEPS_CHECK, "x.yaml")
    yml = project(tmp_path, FOUR_STEPS_CHECK.replace("Pick the free plan", "Other"), "x.yml")
    assert heal_file_for(yaml).name == "x.heal.yaml"
    assert heal_file_for(yml).name == "x.heal.yml"
    for check in (yaml, yml):
        assert run(check, FOUR_STEPS_APP)[0].verdict is mc.Verdict.PASSED
    heal(yaml)
    assert heal_file_for(yaml).exists()
    assert not heal_file_for(yml).exists()
    assert x_names(tmp_path) == ["x.heal.yaml", "x.yaml", "x.yml"]


def x_names(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".mobster" / "checks").iterdir())


def test_two_checks_with_the_same_steps_never_share_a_heal_or_a_review(tmp_path: Path) -> None:
    one = project(tmp_path, FOUR_STEPS_CHECK, "one.yaml")
    two = project(tmp_path, FOUR_STEPS_CHECK, "two.yaml")
    assert identity_of(one) == identity_of(two)  # they share the recorded path
    assert run(one, FOUR_STEPS_APP)[0].verdict is mc.Verdict.PASSED
    assert run(two, FOUR_STEPS_APP, model=False)[0].path_used
    heal(one)
    # the healed path is one's, waiting for review: two still replays the recorded one
    assert not heal_file_for(two).exists()
    assert not strict_replay_passes(two)
    assert strict_replay_passes(one)
    heal(two)
    assert reject_heals(tmp_path, one, identity_of(one)) == 1
    # rejecting one leaves two's heal, and its review, as they were
    assert not strict_replay_passes(one)
    assert strict_replay_passes(two)
    assert [e.step for e in read_heal_file(heal_file_for(two))] == [3]


def test_the_breaker_counts_only_the_heals_of_the_path_replayed(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    heal(check)
    stale = heal_file_for(check).read_text()
    # The check is recorded again on the unchanged app; a stale heal file is put back by hand
    # (a merge, a restore): its heals are of no path that replays, so they don't count.
    run(check, FOUR_STEPS_APP, fresh=True)
    heal_file_for(check).write_text(stale.replace("step: 3", "step: 1"))
    other = renamed(FOUR_STEPS_APP, "FREE", "BASIC")
    result, _, _ = run(check, other)
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    assert [e.step for e in read_heal_file(heal_file_for(check))] == [4]  # the stale entry was dropped


@pytest.mark.parametrize("decision", ["accept", "reject"])
def test_accept_and_reject_write_under_the_project_lock(tmp_path: Path, decision: str) -> None:
    check = recorded(tmp_path)
    heal(check)
    held: list[bool] = []
    real = healfile.write_heal_file

    def probe(check_file: Path, entries: list[healfile.HealEntry]) -> Path:
        fd = os.open(tmp_path / ".mobster" / "cache" / ".lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(True)
        else:
            held.append(False)
        finally:
            os.close(fd)
        return real(check_file, entries)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(healfile, "write_heal_file", probe)
        if decision == "accept":
            accept_heals(tmp_path, check, identity_of(check), recorded_at=NOW)
        else:
            reject_heals(tmp_path, check, identity_of(check))
    assert held == [True]


def test_a_heal_whose_path_wasnt_kept_is_listed_as_not_in_use(tmp_path: Path) -> None:
    from mobster_core.heals import pending_heals

    check = recorded(tmp_path)
    with pytest.raises(Crash), crash_at(1, []):  # after the heal file, before its heal state
        heal(check)
    (pending,) = pending_heals(mc.load_check(check), tmp_path)
    assert not pending.in_use
    assert not strict_replay_passes(check)
    heal(check)
    (pending,) = pending_heals(mc.load_check(check), tmp_path)
    assert pending.in_use
    assert pending.gone == (("Button", "CONTINUE"),)
