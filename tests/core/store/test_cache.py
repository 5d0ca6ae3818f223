from __future__ import annotations

import copy
import errno
import json
import logging
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._rules.vocabulary.steps import dump_path
from mobster_core._store import cache as _cache
from mobster_core._store import pathstores as _pathstores
from mobster_core._store.cache import KEEP_ENVS, Lookup, ReplayCache
from mobster_core._store.fsutil import MOBSTER_DIR
from mobster_core.exceptions import PathError, UnsafeFile
from tests.core.helpers import NOW, owned_by_another_user
from tests.samples import TAP

ID = "b4f5b1de9d5b86e2"
OTHER_ID = "7286775e3f4f9ecb"
SIM = Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR)
SIM_NEW_APP = Env("1.1", "2", 26, mc.DeviceKind.SIMULATOR)
PHONE = Env(None, None, 26, mc.DeviceKind.IPHONE)

STEPS = mc.load_path([TAP, {**TAP, "op": "TYPE", "text": "ada@example.com"}])


@pytest.fixture
def cache(tmp_path: Path) -> ReplayCache:
    return ReplayCache(tmp_path)


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger="mobster")
    return caplog


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def names(cache: ReplayCache) -> list[str]:
    return sorted(p.name for p in cache.folder.iterdir())


def envelope(**changes: Any) -> dict[str, Any]:
    data = {
        "format": 2,
        "identity": ID,
        "env": SIM.to_dict(),
        "recorded_at": "2026-05-01T09:30:00.123456+00:00",
        "seq": 1,
        "steps": [copy.deepcopy(TAP)],
    }
    data.update(changes)
    return data


def plant(cache: ReplayCache, content: bytes | dict[str, Any], env: Env = SIM) -> Path:
    """Write a cache file by hand, as a damaged or foreign one would be."""
    path = cache.file_for(ID, env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    path.chmod(0o600)
    return path


# -- store and lookup -----------------------------------------------------------------------


def test_a_stored_path_is_found_again(cache: ReplayCache) -> None:
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    found = cache.lookup(ID, SIM)
    assert found == Lookup(STEPS, None, ())
    assert found.hit


def test_the_file_is_private_readable_and_complete(
    cache: ReplayCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = os.umask(0)
    try:
        path = cache.store(ID, SIM, STEPS, recorded_at=datetime(2026, 5, 1, 9, 30, tzinfo=UTC))
    finally:
        os.umask(old)
    assert path == tmp_path / MOBSTER_DIR / "cache" / "replay" / f"{ID}-{SIM.digest}.json"
    assert mode(path) == 0o600
    for folder in (path.parent, path.parent.parent, tmp_path / MOBSTER_DIR):
        assert mode(folder) == 0o700
    data = json.loads(path.read_text())
    assert data == {
        "format": 2,
        "identity": ID,
        "env": {
            "digest": SIM.digest,
            "app_version": "1.0",
            "app_build": "1",
            "ios_major": 26,
            "kind": "simulator",
            "locale": None,
            "appearance": None,
        },
        "recorded_at": "2026-05-01T09:30:00.000000+00:00",
        "seq": 1,
        "steps": dump_path(STEPS),
    }


def test_recorded_at_is_utc_with_microseconds(cache: ReplayCache) -> None:
    path = cache.store(ID, SIM, STEPS, recorded_at=NOW)
    when = json.loads(path.read_text())["recorded_at"]
    assert when.endswith("+00:00")
    assert len(when.split(".")[1]) == len("123456+00:00")
    local = datetime(2026, 5, 1, 11, 30, 0, 5, tzinfo=UTC).astimezone(timezone_plus_two())
    path = cache.store(ID, SIM, STEPS, recorded_at=local)
    assert json.loads(path.read_text())["recorded_at"] == "2026-05-01T11:30:00.000005+00:00"


def timezone_plus_two() -> Any:
    from datetime import timezone

    return timezone(timedelta(hours=2))


def test_every_store_makes_sure_of_the_gitignore(cache: ReplayCache, tmp_path: Path) -> None:
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    gitignore = tmp_path / MOBSTER_DIR / ".gitignore"
    assert "cache/" in gitignore.read_text().splitlines()
    gitignore.write_text("edited\n")
    cache.store(ID, PHONE, STEPS, recorded_at=NOW)
    assert gitignore.read_text() == "edited\n"
    gitignore.unlink()
    cache.store(ID, PHONE, STEPS, recorded_at=NOW)
    assert gitignore.exists()


def test_an_empty_path_is_stored(cache: ReplayCache) -> None:
    cache.store(ID, SIM, [], recorded_at=NOW)
    assert cache.lookup(ID, SIM).steps == ()


def test_nothing_stored_is_no_recorded_path_yet(cache: ReplayCache, tmp_path: Path) -> None:
    assert cache.lookup(ID, SIM) == Lookup(None, "no recorded path yet", ())
    assert not (tmp_path / MOBSTER_DIR).exists()  # a lookup creates nothing
    assert cache.envs(ID) == []


def test_a_miss_says_why_against_the_newest_env(cache: ReplayCache) -> None:
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    found = cache.lookup(ID, SIM_NEW_APP)
    assert (found.steps, found.why, found.dropped) == (
        None,
        "the app changed (recorded on 1.0 (1), this is 1.1 (2))",
        (),
    )
    assert not found.hit
    # The newest path of another env is named, for a run that carries paths to a new build.
    assert found.carry is not None
    assert (found.carry.stored.env, found.carry.steps) == (SIM, STEPS)
    cache.store(ID, PHONE, STEPS, recorded_at=NOW)
    newer = cache.lookup(ID, SIM_NEW_APP)
    assert newer.why == "recorded on an iPhone, this is a simulator"
    assert newer.carry is not None
    assert newer.carry.stored.env == PHONE


def test_another_identity_is_not_a_match(cache: ReplayCache) -> None:
    cache.store(OTHER_ID, SIM, STEPS, recorded_at=NOW)
    assert cache.lookup(ID, SIM) == Lookup(None, "no recorded path yet", ())


def test_a_minor_ios_update_finds_the_same_path(cache: ReplayCache) -> None:
    app = mc.AppInfo("com.example.yourapp", "1.0", "1")
    cache.store(ID, Env.of(mc.DeviceInfo("sim", "26.4", mc.DeviceKind.SIMULATOR), app), STEPS, recorded_at=NOW)
    found = cache.lookup(ID, Env.of(mc.DeviceInfo("sim", "26.5", mc.DeviceKind.SIMULATOR), app))
    assert found.steps == STEPS
    later = cache.lookup(ID, Env.of(mc.DeviceInfo("sim", "27.0", mc.DeviceKind.SIMULATOR), app))
    assert later.why == "iOS changed (recorded on iOS 26, this is iOS 27)"


def test_storing_the_same_env_again_replaces_it_with_a_higher_seq(cache: ReplayCache) -> None:
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    cache.store(ID, SIM, STEPS[:1], recorded_at=NOW)
    assert cache.lookup(ID, SIM).steps == STEPS[:1]
    [only] = cache.envs(ID)
    assert only.seq == 2
    assert only.step_count == 1


def envs_of(count: int) -> list[Env]:
    return [Env(f"1.{i}", str(i), 26, mc.DeviceKind.SIMULATOR) for i in range(count)]


def test_the_four_newest_envs_are_kept_by_seq_not_by_clock(cache: ReplayCache) -> None:
    envs = envs_of(KEEP_ENVS + 1)
    base = datetime(2026, 5, 1, tzinfo=UTC)
    for i, env in enumerate(envs[:KEEP_ENVS]):
        # Clocks disagree: every later store claims an earlier time and an older file time.
        path = cache.store(ID, env, STEPS, recorded_at=base - timedelta(days=i))
        os.utime(path, (1_000_000 - i, 1_000_000 - i))
    assert [s.seq for s in cache.envs(ID)] == [4, 3, 2, 1]
    cache.store(ID, envs[KEEP_ENVS], STEPS, recorded_at=base - timedelta(days=10))
    stored = cache.envs(ID)
    assert [s.env for s in stored] == [envs[4], envs[3], envs[2], envs[1]]
    assert [s.seq for s in stored] == [5, 4, 3, 2]
    assert not cache.file_for(ID, envs[0]).exists()
    assert cache.lookup(ID, envs[0]).why == "the app changed (recorded on 1.4 (4), this is 1.0 (0))"
    assert stored[0].recorded_at == base - timedelta(days=10)
    assert stored[0].path == cache.file_for(ID, envs[4])


def test_pruning_keeps_other_identities(cache: ReplayCache) -> None:
    cache.store(OTHER_ID, SIM, STEPS, recorded_at=NOW)
    for env in envs_of(KEEP_ENVS + 2):
        cache.store(ID, env, STEPS, recorded_at=NOW)
    assert len(cache.envs(ID)) == KEEP_ENVS
    assert cache.lookup(OTHER_ID, SIM).hit


def test_a_file_removed_while_pruning_is_fine(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    envs = envs_of(KEEP_ENVS + 1)
    for env in envs[:KEEP_ENVS]:
        cache.store(ID, env, STEPS, recorded_at=NOW)
    oldest = cache.file_for(ID, envs[0])
    real = Path.unlink

    def racing(self: Path, missing_ok: bool = False) -> None:
        if self == oldest:
            real(self)  # another run pruned it first
        real(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", racing)
    cache.store(ID, envs[KEEP_ENVS], STEPS, recorded_at=NOW)
    assert len(cache.envs(ID)) == KEEP_ENVS


def test_a_path_over_the_size_limit_is_not_stored(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache, "MAX_CACHE_BYTES", 100)
    with pytest.raises(PathError, match="over the replay cache's limit of 100 bytes"):
        cache.store(ID, SIM, STEPS, recorded_at=NOW)
    assert cache.envs(ID) == []


@pytest.mark.parametrize("bad", ["B4F5B1DE9D5B86E2", "b4f5", "../../etc/passwd", 42])
def test_an_identity_is_16_hex_digits(cache: ReplayCache, bad: Any) -> None:
    with pytest.raises(ValueError, match="16 lowercase hex digits"):
        cache.lookup(bad, SIM)
    with pytest.raises(ValueError, match="16 lowercase hex digits"):
        cache.store(bad, SIM, STEPS, recorded_at=NOW)
    with pytest.raises(ValueError, match="16 lowercase hex digits"):
        cache.envs(bad)


def test_temps_and_foreign_names_are_ignored(cache: ReplayCache) -> None:
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    for name in (f".tmp-{ID}-{SIM.digest}.json-1a2b", f"{ID}-{PHONE.digest}.json.corrupt", "notes.txt"):
        (cache.folder / name).write_bytes(b"garbage")
    found = cache.lookup(ID, PHONE)
    assert (found.steps, found.why, found.dropped) == (None, "recorded on a simulator, this is an iPhone", ())
    assert found.carry is not None
    assert found.carry.stored.env == SIM
    assert len(cache.envs(ID)) == 1


# -- corrupt files: dropped and renamed aside -----------------------------------------------


def corrupt_cases() -> list[tuple[str, bytes | dict[str, Any], str]]:
    bad_step = {**TAP, "op": "FLY"}
    return [
        ("not json", b"{not json", "it is not valid JSON (line 1, column 2"),
        ("not utf-8", b'{"format": 1, "x": "\xff\xfe"}', "it is not UTF-8 text (byte 20)"),
        ("a list", b"[1, 2]", "expected a JSON object, got list"),
        ("nan", envelope(seq=float("nan")), "it is not valid JSON (NaN is not a number)"),
        ("duplicate key", b'{"seq": 1, "seq": 2}', "the key 'seq' appears twice"),
        ("too deep", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        ("unknown key", envelope(note="hi"), "unknown key 'note'"),
        ("missing key", {k: v for k, v in envelope().items() if k != "seq"}, "key 'seq' is missing"),
        ("format text", envelope(format="2"), "key 'format': expected 2, got '2'"),
        ("format true", envelope(format=True), "key 'format': expected 2, got True"),
        ("format 0", envelope(format=0), "key 'format': expected 2, got 0"),
        ("other identity", envelope(identity=OTHER_ID), f"holds '{OTHER_ID}'"),
        ("bad env", envelope(env={**SIM.to_dict(), "kind": "ipad"}), "env: key 'kind'"),
        ("env of another file", envelope(env=PHONE.to_dict()), f"holds env {PHONE.digest}"),
        ("seq zero", envelope(seq=0), "key 'seq': expected a whole number from 1 up, got 0"),
        ("seq bool", envelope(seq=True), "key 'seq': expected a whole number from 1 up, got True"),
        ("seq text", envelope(seq="1"), "key 'seq'"),
        ("time not text", envelope(recorded_at=1714555800), "key 'recorded_at'"),
        ("time not iso", envelope(recorded_at="yesterday"), "key 'recorded_at'"),
        ("time naive", envelope(recorded_at="2026-05-01T09:30:00.123456"), "key 'recorded_at'"),
        ("bad step", envelope(steps=[TAP, bad_step]), "key 'steps': step 2: key 'op': unknown op 'FLY'"),
        ("steps not list", envelope(steps={"op": "TAP"}), "key 'steps': a path is a list of steps"),
    ]


@pytest.mark.parametrize(("content", "reason"), [c[1:] for c in corrupt_cases()], ids=[c[0] for c in corrupt_cases()])
def test_a_corrupt_file_is_dropped_and_kept_aside(
    cache: ReplayCache, logs: pytest.LogCaptureFixture, content: bytes | dict[str, Any], reason: str
) -> None:
    path = plant(cache, content)
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert found.why == "no recorded path yet"
    [message] = found.dropped
    assert message.startswith(f"{path} was dropped: ")
    assert reason in message
    assert message.endswith(f"kept as {path.name}.corrupt, the next run records a new path")
    assert not path.exists()
    assert (cache.folder / f"{path.name}.corrupt").exists()
    [record] = [r for r in logs.records if r.getMessage() == "replay cache file dropped"]
    assert record.levelno == logging.WARNING
    assert record.__dict__["file"] == str(path)
    assert reason in record.__dict__["reason"]
    # The next recording goes ahead and is found.
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    assert cache.lookup(ID, SIM).steps == STEPS


def test_a_file_over_the_size_limit_is_dropped_aside(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plant(cache, envelope())
    monkeypatch.setattr(_cache, "MAX_CACHE_BYTES", 50)
    [message] = cache.lookup(ID, SIM).dropped
    assert "larger than the limit of 50 bytes" in message
    assert (cache.folder / f"{path.name}.corrupt").exists()


def test_a_dropped_file_of_this_env_falls_back_to_the_newest_other_env(cache: ReplayCache) -> None:
    cache.store(ID, SIM_NEW_APP, STEPS, recorded_at=NOW)
    plant(cache, b"junk", env=SIM)
    found = cache.lookup(ID, SIM)
    assert found.why == "the app changed (recorded on 1.1 (2), this is 1.0 (1))"
    assert len(found.dropped) == 1


def test_a_corrupt_other_env_is_reported_on_a_miss(cache: ReplayCache) -> None:
    plant(cache, b"junk", env=PHONE)
    found = cache.lookup(ID, SIM)
    assert found.why == "no recorded path yet"
    assert "is not valid JSON" in found.dropped[0]
    assert cache.envs(ID) == []


def test_a_file_that_cant_be_moved_aside_says_so(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plant(cache, b"junk")

    def refuse(self: Path, target: Any) -> Path:
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "replace", refuse)
    [message] = cache.lookup(ID, SIM).dropped
    assert message.endswith("it couldn't be moved aside (Permission denied); delete it")
    assert path.exists()


# -- unsafe files: dropped and left in place ------------------------------------------------


def check_left_in_place(cache: ReplayCache, path: Path, reason: str) -> None:
    before = path.lstat()
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert found.why == "no recorded path yet"
    [message] = found.dropped
    assert message.startswith(f"{path} was dropped and left in place: ")
    assert reason in message
    assert message.endswith("; delete it")
    after = path.lstat()
    assert (after.st_mode, after.st_mtime_ns, after.st_ino) == (
        before.st_mode,
        before.st_mtime_ns,
        before.st_ino,
    )
    assert not (cache.folder / f"{path.name}.corrupt").exists()
    assert cache.envs(ID) == []


def test_a_symlinked_cache_file_is_refused_and_its_target_untouched(cache: ReplayCache, tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text(json.dumps(envelope()))
    victim.chmod(0o600)
    before = victim.read_bytes()
    path = cache.file_for(ID, SIM)
    path.parent.mkdir(parents=True)
    path.symlink_to(victim)
    check_left_in_place(cache, path, "it is a symlink (never followed)")
    assert victim.read_bytes() == before
    assert mode(victim) == 0o600
    # A new recording replaces the link itself, never writing through it.
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    assert victim.read_bytes() == before
    assert not path.is_symlink()
    assert cache.lookup(ID, SIM).steps == STEPS


@pytest.mark.parametrize("wide", [0o644, 0o620, 0o660, 0o700])
def test_a_cache_file_with_a_wide_mode_is_refused(cache: ReplayCache, wide: int) -> None:
    path = plant(cache, envelope())
    path.chmod(wide)
    check_left_in_place(cache, path, f"its mode is {wide:04o}")


def test_a_cache_file_of_another_user_is_refused(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plant(cache, envelope())
    owned_by_another_user(monkeypatch)
    check_left_in_place(cache, path, "it belongs to another user")


def test_a_folder_in_place_of_a_cache_file_is_refused(cache: ReplayCache) -> None:
    path = cache.file_for(ID, SIM)
    path.mkdir(parents=True)
    check_left_in_place(cache, path, "it is not a regular file")


def test_a_cache_file_that_cant_be_opened_is_left(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    path = plant(cache, envelope())
    real = os.open

    def denied(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(file) == path:
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    check_left_in_place(cache, path, "it can't be read (Permission denied)")


def test_a_file_that_vanishes_after_listing_is_just_missing(
    cache: ReplayCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(cache, envelope())

    def vanished(path: Path, *, max_bytes: int) -> bytes:
        raise FileNotFoundError(errno.ENOENT, "No such file", str(path))

    monkeypatch.setattr(_pathstores, "read_private", vanished)
    assert cache.lookup(ID, SIM) == Lookup(None, "no recorded path yet", ())


def test_a_symlinked_cache_folder_is_a_miss_and_store_refuses_it(cache: ReplayCache, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "replay").mkdir(parents=True)
    (tmp_path / MOBSTER_DIR).mkdir()
    (tmp_path / MOBSTER_DIR / "cache").symlink_to(elsewhere)
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert found.why == "no recorded path yet"
    assert "is a symlink" in found.dropped[0]
    with pytest.raises(UnsafeFile):
        cache.store(ID, SIM, STEPS, recorded_at=NOW)
    assert list((elsewhere / "replay").iterdir()) == []


def test_an_unreadable_cache_folder_is_a_miss(cache: ReplayCache, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.store(ID, SIM, STEPS, recorded_at=NOW)

    def denied(_path: Any) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "scandir", denied)
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert found.dropped == (f"the replay cache {cache.folder} can't be read: [Errno 13] Permission denied",)


@pytest.mark.parametrize("content", [b"\x00" * 10, b"null", b'"text"', b"", b"\xef\xbb\xbf{}"])
def test_a_lookup_never_raises_for_a_bad_file(cache: ReplayCache, content: bytes) -> None:
    plant(cache, content)
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert len(found.dropped) == 1


# -- another format: set aside, never replayed ---------------------------------------------------


def format_1(**changes: Any) -> dict[str, Any]:
    """A path as an older Mobster wrote it: format 1, targets without count and nth."""
    old_tap = copy.deepcopy(TAP)
    del old_tap["target"]["count"], old_tap["target"]["nth"]
    return envelope(format=1, steps=[old_tap], **changes)


def test_a_path_in_an_older_format_is_set_aside_and_recorded_afresh(
    cache: ReplayCache, logs: pytest.LogCaptureFixture
) -> None:
    path = plant(cache, format_1())
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert found.carry is None
    assert found.why is not None
    assert found.why.startswith("the path recorded here was set aside: it is in format 1 of an older Mobster")
    [message] = found.dropped
    assert "don't record how many times their label was on the screen" in message
    assert message.endswith(f"kept as {path.name}.format1, the next run records a new path")
    assert not path.exists()
    assert (cache.folder / f"{path.name}.format1").read_bytes()  # kept, never deleted
    assert any(r.getMessage() == "replay cache file dropped" for r in logs.records)
    # The next recording goes ahead, and the file set aside stays out of its way.
    cache.store(ID, SIM, STEPS, recorded_at=NOW)
    assert cache.lookup(ID, SIM).steps == STEPS
    assert (cache.folder / f"{path.name}.format1").exists()


def test_a_path_of_a_newer_format_is_set_aside_too(cache: ReplayCache) -> None:
    path = plant(cache, envelope(format=3, steps=[{"whatever": "a newer Mobster writes"}]))
    found = cache.lookup(ID, SIM)
    assert found.steps is None
    assert found.why == (
        "the path recorded here was set aside: it is in format 3 of a newer Mobster (this Mobster reads format 2)"
    )
    assert (cache.folder / f"{path.name}.format3").exists()


def test_an_older_format_of_another_env_is_never_carried(cache: ReplayCache) -> None:
    plant(cache, format_1(env=SIM_NEW_APP.to_dict()), env=SIM_NEW_APP)
    found = cache.lookup(ID, SIM)
    assert (found.steps, found.carry, found.why) == (None, None, "no recorded path yet")
    assert len(found.dropped) == 1
    assert cache.envs(ID) == []


def test_a_lookup_carries_the_newest_other_env_by_seq(cache: ReplayCache) -> None:
    older = mc.load_path([TAP])
    cache.store(ID, PHONE, older, recorded_at=NOW)
    cache.store(ID, SIM_NEW_APP, STEPS, recorded_at=NOW)
    found = cache.lookup(ID, SIM)
    assert found.carry is not None
    assert (found.carry.stored.env, found.carry.steps, found.carry.stored.seq) == (SIM_NEW_APP, STEPS, 2)
    assert cache.lookup(ID, SIM_NEW_APP).carry is None  # a hit carries nothing


# -- paths recorded elsewhere (Rule 11) and shared stores (Rule 10) ------------------------------


def env_of(build: int) -> Env:
    return Env(f"1.{build}", str(build), 26, mc.DeviceKind.SIMULATOR)


def document(env: Env, when: datetime, seq: int = 7) -> _cache.Document:
    return _cache.Document(ID, env, when, seq, STEPS, None)


def test_a_path_recorded_elsewhere_takes_its_place_by_when_it_was_recorded(cache: ReplayCache) -> None:
    cache.store(ID, env_of(1), STEPS, recorded_at=NOW)
    cache.store(ID, env_of(3), STEPS, recorded_at=NOW + timedelta(days=3))
    assert cache.merge(document(env_of(2), NOW + timedelta(days=2), seq=99))
    order = [s.env for s in reversed(cache.envs(ID))]  # oldest first
    assert order == [env_of(1), env_of(2), env_of(3)]  # not newest for having come last
    assert [s.seq for s in reversed(cache.envs(ID))] == [1, 2, 3]
    assert cache.lookup(ID, env_of(4)).carry is not None
    assert cache.lookup(ID, env_of(4)).carry.stored.env == env_of(3)  # type: ignore[union-attr]


def test_a_path_older_than_the_four_kept_or_than_its_own_env_is_kept_out(cache: ReplayCache) -> None:
    for build in range(2, 2 + KEEP_ENVS):
        cache.store(ID, env_of(build), STEPS, recorded_at=NOW + timedelta(days=build))
    assert not cache.merge(document(env_of(1), NOW))  # older than the four newest here
    assert not cache.merge(document(env_of(2), NOW + timedelta(days=1)))  # older than this env's own
    assert cache.merge(document(env_of(9), NOW + timedelta(days=9)))
    assert [s.env for s in cache.envs(ID)] == [env_of(9), env_of(5), env_of(4), env_of(3)]


def test_a_committed_store_never_holds_text_the_replay_wouldnt_type(tmp_path: Path) -> None:
    committed = ReplayCache(tmp_path, "committed")
    typed = mc.load_path([{**TAP, "op": "TYPE", "text": "the model's own words"}])
    with pytest.raises(PathError, match="step 1: a committed path never holds text the replay wouldn't type"):
        committed.store(ID, SIM, typed, recorded_at=NOW)
    assert not (tmp_path / MOBSTER_DIR / "paths").exists() or not list((tmp_path / MOBSTER_DIR / "paths").iterdir())
    allowed = _cache.Origin("recorded", None, "c.yaml", _prov())  # the check's own words hold the text
    path = committed.store_path(ID, SIM, typed, recorded_at=NOW, origin=allowed)
    text = path.read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _prov() -> Provenance:
    return Provenance.of(steps=['Type "the model\'s own words" into "Name"'])
