"""The core's rules hold in every store: the in-memory one, S3 (moto) and PostgreSQL.

The same replay cache over each: an identity keeps its four newest envs, a corrupt document is
never replayed and never a crash, left as it is (a shared store's reader never moves it; a private
store sets it aside) and the next recording replaces it, a shared store never takes
text the typing rules wouldn't replay, a recording whose env another machine stored meanwhile
keeps theirs; and a heal made on one machine travels in the store to another, which replays it,
and a reject's mark too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import heals
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._store.cache import KEEP_ENVS, Origin, Recording, ReplayCache, parse_document
from mobster_core._store.healfile import heal_file_for
from mobster_core._store.pathstores import Versioned
from mobster_core.exceptions import PathError
from mobster_core.protocols import PathStore, Platform
from mobster_core.testing import MemoryPaths
from mobster_drivers.devices.scripted import sample_path
from tests.core.run.test_run import project, run
from tests.samples import SIGNUP, TAP

ID = "b4f5b1de9d5b86e2"
NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
STEPS = mc.load_path([TAP])
TYPED = mc.load_path([{**TAP, "op": "TYPE", "text": "what the model wrote"}])


def envs(count: int) -> list[Env]:
    return [Env(f"1.{i}", str(i), 26, mc.DeviceKind.SIMULATOR) for i in range(count)]


@pytest.fixture(params=["memory", "postgres", "s3"])
def store(request: pytest.FixtureRequest) -> PathStore:
    makers: dict[str, Callable[[], PathStore]] = {
        "memory": MemoryPaths,
        "postgres": lambda: request.getfixturevalue("postgres_store"),
        "s3": lambda: request.getfixturevalue("s3_store"),
    }
    return makers[request.param]()


def test_an_identity_keeps_its_four_newest_envs(store: PathStore, tmp_path: Path) -> None:
    cache = ReplayCache(tmp_path, store)
    for i, env in enumerate(envs(KEEP_ENVS + 1)):
        cache.store(ID, env, STEPS, recorded_at=NOW + timedelta(minutes=i))
    assert [s.env.app_version for s in cache.envs(ID)] == ["1.4", "1.3", "1.2", "1.1"]
    assert len(store.names(ID)) == KEEP_ENVS


def android_envs(count: int) -> list[Env]:
    return [Env(f"1.{i}", str(i), 34, mc.DeviceKind.EMULATOR) for i in range(count)]


def test_each_platform_keeps_its_four_newest_envs_and_none_is_carried_across(store: PathStore, tmp_path: Path) -> None:
    # Issue 40 meets issue 42: the platform rule (the cache's Rules 3, 7, 11) in a team's store too.
    cache = ReplayCache(tmp_path, store)
    ios = envs(KEEP_ENVS)
    for i, env in enumerate(ios):
        cache.store(ID, env, STEPS, recorded_at=NOW + timedelta(minutes=i))
    later = NOW + timedelta(hours=1)
    for i, env in enumerate(android_envs(KEEP_ENVS + 1)):  # a fifth Android env: the oldest Android one goes
        looked = cache.lookup(ID, env)
        assert cache.keep_path(ID, env, Recording(STEPS, later + timedelta(minutes=i)), expect=looked.tag).won
    stored = [s.env for s in cache.envs(ID)]
    assert [e for e in stored if e.platform is Platform.IOS] == ios[::-1]  # recording on Android dropped none
    assert [e.app_version for e in stored if e.platform is Platform.ANDROID] == ["1.4", "1.3", "1.2", "1.1"]
    assert len(store.names(ID)) == 2 * KEEP_ENVS
    new_build = Env("2.0", "9", 34, mc.DeviceKind.EMULATOR)
    assert cache.lookup(ID, new_build).carry is not None
    assert cache.lookup(ID, new_build).carry.stored.env.platform is Platform.ANDROID  # type: ignore[union-attr]
    other = ReplayCache(tmp_path / "other", MemoryPaths())
    other.store(ID, envs(1)[0], STEPS, recorded_at=NOW)
    missed = other.lookup(ID, new_build)
    assert (missed.steps, missed.carry, missed.why) == (None, None, "recorded on iOS, this is Android")


def test_an_imported_path_takes_its_place_among_its_own_platforms_paths(store: PathStore, tmp_path: Path) -> None:
    cache = ReplayCache(tmp_path, store)
    for i, env in enumerate(envs(KEEP_ENVS)):
        cache.store(ID, env, STEPS, recorded_at=NOW + timedelta(minutes=i))
    elsewhere = ReplayCache(tmp_path / "elsewhere", MemoryPaths())
    [android] = android_envs(1)
    elsewhere.store(ID, android, STEPS, recorded_at=NOW - timedelta(days=1))  # older than every iOS path here
    [doc] = [parse_document(store_doc.data) for store_doc in _documents(elsewhere)]
    assert cache.merge(doc)  # four iOS paths are no reason to keep an Android one out
    platforms = [s.env.platform for s in cache.envs(ID)]
    assert platforms.count(Platform.IOS) == KEEP_ENVS
    assert platforms.count(Platform.ANDROID) == 1


def _documents(cache: ReplayCache) -> list[Versioned]:
    return [cache.backend.read(i, e, max_bytes=1 << 20) for i, e in cache.backend.names()]


def test_a_corrupt_document_is_left_as_it_is_and_the_next_recording_replaces_it(
    store: PathStore, tmp_path: Path
) -> None:
    # Every store here is shared (a team's): a reader never moves its document (the cache's Rule 12).
    cache = ReplayCache(tmp_path, store)
    [env] = envs(1)
    corrupt = b'{"format": 2, "identity": "b4f5b1de9d5b86e2", "steps": ['
    assert store.write(ID, env.digest, corrupt, expect=None)
    there = store.read(ID, env.digest, max_bytes=1 << 20)
    found = cache.lookup(ID, env)
    assert not found.hit
    assert found.tag == there.tag  # the version left in place: what the recording replaces
    [said] = found.dropped
    assert "it is not valid JSON" in said
    assert "can't be used and is left as it is" in said
    assert store.names(ID) == [(ID, env.digest)]
    assert store.read(ID, env.digest, max_bytes=1 << 20).data == corrupt
    kept = cache.keep_path(ID, env, Recording(STEPS, NOW), expect=found.tag)
    assert kept.won
    assert cache.lookup(ID, env).steps == STEPS


def test_a_private_store_sets_a_corrupt_document_aside_and_the_next_recording_is_stored(tmp_path: Path) -> None:
    store = MemoryPaths(shared=False)
    cache = ReplayCache(tmp_path, store)
    [env] = envs(1)
    assert store.write(ID, env.digest, b'{"format": 2, "identity": "b4f5b1de9d5b86e2", "steps": [', expect=None)
    found = cache.lookup(ID, env)
    assert not found.hit
    assert found.tag is None
    [said] = found.dropped
    assert "it is not valid JSON" in said
    assert ".corrupt" in said
    assert store.names(ID) == []
    kept = cache.keep_path(ID, env, Recording(STEPS, NOW), expect=found.tag)
    assert kept.won
    assert cache.lookup(ID, env).steps == STEPS


def test_a_shared_store_never_takes_text_the_typing_rules_would_not_replay(store: PathStore, tmp_path: Path) -> None:
    cache = ReplayCache(tmp_path, store)
    [env] = envs(1)
    with pytest.raises(PathError, match="never holds text the replay wouldn't type"):
        cache.store_path(ID, env, TYPED, recorded_at=NOW, origin=Origin(provenance=Provenance(("Tap Sign up",))))
    assert store.names() == []


def test_a_recording_whose_env_another_machine_stored_meanwhile_keeps_theirs(store: PathStore, tmp_path: Path) -> None:
    mine, theirs = ReplayCache(tmp_path / "a", store), ReplayCache(tmp_path / "b", store)
    [env] = envs(1)
    looked = mine.lookup(ID, env)  # both machines miss
    assert theirs.keep_path(ID, env, Recording(STEPS, NOW), expect=theirs.lookup(ID, env).tag).won
    lost = mine.keep_path(ID, env, Recording(STEPS[:0], NOW + timedelta(seconds=1)), expect=looked.tag)
    assert not lost.won
    assert mine.lookup(ID, env).steps == STEPS  # the winner's, whole


APP = sample_path("yourapp").read_text()
RENAMED = sample_path("yourapp-renamed").read_text()


def test_a_heal_and_a_reject_travel_in_the_store_to_another_machine(store: PathStore, tmp_path: Path) -> None:
    check = project(tmp_path / "one", SIGNUP)
    assert run(check, APP, paths=store)[0].verdict is mc.Verdict.PASSED
    healed, _, _ = run(check, RENAMED, paths=store)
    assert (healed.verdict, len(healed.heals)) == (mc.Verdict.PASSED, 1)
    assert len(store.documents("heals/")) == 1
    other = project(tmp_path / "two", SIGNUP)
    heal_file_for(other).write_bytes(heal_file_for(check).read_bytes())  # the heal file travels with the checks
    strict, _, _ = run(other, RENAMED, model=False, no_heal=True, paths=store)
    assert (strict.verdict, strict.mode, strict.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert heals.reject_heals(mc.load_check(other), paths=store) == 1
    again, _, _ = run(check, RENAMED, paths=store)
    assert (again.verdict, again.outcome.failure_class, again.model_calls) == (
        mc.Verdict.FAILED,
        mc.FailureClass.DRIFT,
        0,
    )
