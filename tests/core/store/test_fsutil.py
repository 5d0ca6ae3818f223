from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mobster_core import MobsterError
from mobster_core._store.fsutil import (
    GITIGNORE_TEXT,
    MOBSTER_DIR,
    atomic_write,
    ensure_gitignore,
    private_dir,
    read_private,
    remove_stale_temps,
)
from mobster_core.checks import find_project_root
from mobster_core.exceptions import Problem, UnsafeFile


@pytest.fixture
def strict_umask() -> Iterator[None]:
    old = os.umask(0o277)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".tmp-"))


def other_user(monkeypatch: pytest.MonkeyPatch) -> None:
    uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: uid + 1)


# -- find_project_root ----------------------------------------------------------------------


def test_project_root_is_the_first_folder_holding_mobster(tmp_path: Path) -> None:
    (tmp_path / MOBSTER_DIR).mkdir()
    deep = tmp_path / "app" / "Sources"
    deep.mkdir(parents=True)
    assert find_project_root(deep) == tmp_path
    assert find_project_root(tmp_path) == tmp_path


def test_no_project_root_without_mobster(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / MOBSTER_DIR).write_text("a file, not a folder")
    assert find_project_root(tmp_path / "a") is None


# -- private_dir ----------------------------------------------------------------------------


def test_private_dir_makes_every_folder_from_mobster_down_0700(tmp_path: Path, permissive_umask: None) -> None:
    target = tmp_path / "proj" / MOBSTER_DIR / "cache" / "replay"
    assert private_dir(target) == target
    for folder in (tmp_path / "proj" / MOBSTER_DIR, target.parent, target):
        assert folder.is_dir()
        assert mode(folder) == 0o700
    assert mode(tmp_path / "proj") != 0o700  # above .mobster: created as usual


def test_private_dir_under_a_strict_umask_is_still_0700(tmp_path: Path, strict_umask: None) -> None:
    target = tmp_path / MOBSTER_DIR / "runs"
    private_dir(target)
    assert mode(target) == 0o700
    assert mode(target.parent) == 0o700


def test_a_project_under_another_mobster_keeps_its_modes(tmp_path: Path) -> None:
    project = tmp_path / MOBSTER_DIR / "projects" / "app"
    project.mkdir(parents=True, mode=0o755)
    project.chmod(0o755)
    private_dir(project / MOBSTER_DIR / "cache")
    assert mode(project) == 0o755
    assert mode(project / MOBSTER_DIR) == 0o700


def test_a_large_file_is_read_whole(tmp_path: Path) -> None:
    data = os.urandom(1024 * 1024 + 7)
    path = private_file(tmp_path, data)
    assert read_private(path, max_bytes=len(data)) == data


def test_a_wider_existing_folder_is_narrowed(tmp_path: Path) -> None:
    folder = tmp_path / MOBSTER_DIR
    folder.mkdir()
    folder.chmod(0o777)
    private_dir(folder / "cache")
    assert mode(folder) == 0o700


def test_without_mobster_only_the_last_folder_is_private(tmp_path: Path, permissive_umask: None) -> None:
    target = tmp_path / "runs" / "r1"
    private_dir(target)
    assert mode(target) == 0o700
    assert mode(target.parent) == 0o777


def test_a_symlinked_folder_under_mobster_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / MOBSTER_DIR).mkdir()
    (tmp_path / MOBSTER_DIR / "cache").symlink_to(elsewhere)
    with pytest.raises(UnsafeFile) as info:
        private_dir(tmp_path / MOBSTER_DIR / "cache" / "replay")
    assert info.value.problem is Problem.SYMLINK
    assert info.value.path == tmp_path / MOBSTER_DIR / "cache"
    assert "symlink" in str(info.value)
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_mobster_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / MOBSTER_DIR).symlink_to(elsewhere)
    with pytest.raises(UnsafeFile, match="symlink"):
        private_dir(tmp_path / MOBSTER_DIR / "cache")
    assert list(elsewhere.iterdir()) == []


def test_a_file_in_place_of_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / MOBSTER_DIR).mkdir()
    (tmp_path / MOBSTER_DIR / "cache").write_text("x")
    with pytest.raises(UnsafeFile) as info:
        private_dir(tmp_path / MOBSTER_DIR / "cache" / "replay")
    assert info.value.problem is Problem.NOT_FOLDER


def test_a_folder_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / MOBSTER_DIR).mkdir()
    other_user(monkeypatch)
    with pytest.raises(UnsafeFile) as info:
        private_dir(tmp_path / MOBSTER_DIR)
    assert info.value.problem is Problem.OWNER
    assert "another user" in str(info.value)


# -- atomic_write ---------------------------------------------------------------------------


def test_atomic_write_leaves_a_0600_file_in_0700_folders(tmp_path: Path, permissive_umask: None) -> None:
    path = tmp_path / MOBSTER_DIR / "cache" / "replay" / "a.json"
    atomic_write(path, b'{"ok": true}')
    assert path.read_bytes() == b'{"ok": true}'
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert mode(tmp_path / MOBSTER_DIR) == 0o700
    assert temps(path.parent) == []


def test_atomic_write_under_a_strict_umask_is_0600(tmp_path: Path, strict_umask: None) -> None:
    path = tmp_path / MOBSTER_DIR / "a.json"
    atomic_write(path, b"x")
    assert mode(path) == 0o600


def test_atomic_write_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / MOBSTER_DIR / "a.json"
    atomic_write(path, b"old")
    path.chmod(0o644)
    atomic_write(path, b"new")
    assert path.read_bytes() == b"new"
    assert mode(path) == 0o600


def test_atomic_write_replaces_a_symlink_without_touching_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    path = tmp_path / MOBSTER_DIR / "a.json"
    path.parent.mkdir()
    path.symlink_to(victim)
    atomic_write(path, b"new")
    assert victim.read_bytes() == b"precious"
    assert not path.is_symlink()
    assert path.read_bytes() == b"new"


def test_the_temporary_file_is_removed_when_the_rename_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "replace", refuse)
    path = tmp_path / MOBSTER_DIR / "a.json"
    with pytest.raises(OSError, match="I/O error"):
        atomic_write(path, b"x")
    assert list(path.parent.iterdir()) == []


def test_the_temporary_file_is_removed_when_the_write_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    path = tmp_path / MOBSTER_DIR / "a.json"
    with pytest.raises(OSError, match="No space"):
        atomic_write(path, b"x")
    assert list(path.parent.iterdir()) == []


def test_atomic_write_fsyncs_the_file_then_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[bool] = []
    real = os.fsync

    def record(fd: int) -> None:
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real(fd)

    monkeypatch.setattr(os, "fsync", record)
    atomic_write(tmp_path / MOBSTER_DIR / "a.json", b"x")
    assert synced == [False, True]


def test_a_folder_that_cant_be_fsynced_is_tolerated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.fsync

    def no_dir_fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real(fd)

    monkeypatch.setattr(os, "fsync", no_dir_fsync)
    path = tmp_path / MOBSTER_DIR / "a.json"
    atomic_write(path, b"x")
    assert path.read_bytes() == b"x"


def test_other_folder_fsync_errors_are_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.fsync

    def broken_dir_fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EIO, "I/O error")
        real(fd)

    monkeypatch.setattr(os, "fsync", broken_dir_fsync)
    with pytest.raises(OSError, match="I/O error"):
        atomic_write(tmp_path / MOBSTER_DIR / "a.json", b"x")


# -- read_private ---------------------------------------------------------------------------


def private_file(tmp_path: Path, data: bytes = b"data") -> Path:
    path = tmp_path / MOBSTER_DIR / "a.json"
    atomic_write(path, data)
    return path


def test_read_private_reads_a_private_file(tmp_path: Path) -> None:
    path = private_file(tmp_path, b"hello")
    assert read_private(path, max_bytes=5) == b"hello"
    path.chmod(0o400)
    assert read_private(path, max_bytes=5) == b"hello"


def test_a_symlink_is_refused_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_bytes(b"precious")
    victim.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    with pytest.raises(UnsafeFile) as info:
        read_private(link, max_bytes=100)
    assert info.value.problem is Problem.SYMLINK
    assert victim.read_bytes() == b"precious"
    assert mode(victim) == 0o600


@pytest.mark.parametrize("wide", [0o644, 0o620, 0o640, 0o606, 0o700, 0o4600])
def test_a_file_with_a_wider_mode_is_refused(tmp_path: Path, wide: int) -> None:
    path = private_file(tmp_path)
    path.chmod(wide)
    with pytest.raises(UnsafeFile) as info:
        read_private(path, max_bytes=100)
    assert info.value.problem is Problem.MODE
    assert f"{wide:04o}" in str(info.value)
    assert mode(path) == wide  # left as it was


def test_a_file_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = private_file(tmp_path)
    other_user(monkeypatch)
    with pytest.raises(UnsafeFile) as info:
        read_private(path, max_bytes=100)
    assert info.value.problem is Problem.OWNER


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "a.json"
    os.mkfifo(fifo, 0o600)
    with pytest.raises(UnsafeFile) as info:
        read_private(fifo, max_bytes=100)
    assert info.value.problem is Problem.NOT_REGULAR


def test_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "a.json"
    folder.mkdir(mode=0o700)
    with pytest.raises(UnsafeFile) as info:
        read_private(folder, max_bytes=100)
    assert info.value.problem is Problem.NOT_REGULAR


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = private_file(tmp_path, b"123456")
    assert read_private(path, max_bytes=6) == b"123456"
    with pytest.raises(UnsafeFile) as info:
        read_private(path, max_bytes=5)
    assert info.value.problem is Problem.TOO_LARGE


def test_a_file_that_grows_after_the_check_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = private_file(tmp_path, b"123456")
    real = os.fstat

    def shrunk(fd: int) -> os.stat_result:
        fields = list(real(fd))[:10]
        fields[stat.ST_SIZE] = 1
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", shrunk)
    with pytest.raises(UnsafeFile) as info:
        read_private(path, max_bytes=5)
    assert info.value.problem is Problem.TOO_LARGE


def test_a_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_private(tmp_path / "nothing.json", max_bytes=5)


def test_the_message_names_the_file_the_problem_and_the_fix(tmp_path: Path) -> None:
    err = UnsafeFile(tmp_path / "a.json", "it is a symlink (never followed)", problem=Problem.SYMLINK)
    assert isinstance(err, MobsterError)
    assert str(err) == (
        f"refusing {tmp_path / 'a.json'}: it is a symlink (never followed); delete it; the next run records a new path"
    )
    assert err.reason == "it is a symlink (never followed)"
    assert err.fix == "delete it; the next run records a new path"


# -- ensure_gitignore -----------------------------------------------------------------------


def test_gitignore_is_created_when_missing(tmp_path: Path, permissive_umask: None) -> None:
    path = ensure_gitignore(tmp_path)
    assert path == tmp_path / MOBSTER_DIR / ".gitignore"
    lines = path.read_text().splitlines()
    for entry in ("cache/", "runs/", "test-results/"):
        assert entry in lines
    assert path.read_text() == GITIGNORE_TEXT
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert temps(path.parent) == []


def test_an_existing_gitignore_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / MOBSTER_DIR / ".gitignore"
    path.parent.mkdir()
    path.write_text("mine\n")
    ensure_gitignore(tmp_path)
    assert path.read_text() == "mine\n"


def test_a_gitignore_made_by_a_parallel_run_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / MOBSTER_DIR / ".gitignore"
    path.parent.mkdir()
    path.write_text("theirs\n")
    monkeypatch.setattr(os.path, "lexists", lambda _p: False)  # it appears between check and link
    ensure_gitignore(tmp_path)
    assert path.read_text() == "theirs\n"
    assert temps(path.parent) == []


# -- remove_stale_temps ---------------------------------------------------------------------


def age(path: Path, seconds: float) -> None:
    when = datetime.now(UTC).timestamp() - seconds
    os.utime(path, (when, when), follow_symlinks=False)


def test_stale_temps_are_removed_and_the_rest_kept(tmp_path: Path) -> None:
    old, fresh, data = tmp_path / ".tmp-a.json-1", tmp_path / ".tmp-b.json-2", tmp_path / "a.json"
    for p in (old, fresh, data):
        p.write_bytes(b"x")
    folder = tmp_path / ".tmp-folder"
    folder.mkdir()
    dangling = tmp_path / ".tmp-link"
    dangling.symlink_to(tmp_path / "nowhere")
    for p in (old, data, folder, dangling):
        age(p, 3600)
    assert remove_stale_temps(tmp_path, started_at=datetime.now(UTC)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmp-b.json-2", ".tmp-folder", "a.json"]


def test_temps_are_judged_against_the_start_of_the_run(tmp_path: Path) -> None:
    tmp = tmp_path / ".tmp-a"
    tmp.write_bytes(b"x")
    age(tmp, 120)
    assert remove_stale_temps(tmp_path, started_at=datetime.now(UTC) - timedelta(minutes=5)) == 0
    assert remove_stale_temps(tmp_path, started_at=datetime.now(UTC)) == 1


def test_stale_temps_of_a_missing_folder(tmp_path: Path) -> None:
    assert remove_stale_temps(tmp_path / "nothing", started_at=datetime.now(UTC)) == 0


def test_a_temp_removed_by_another_run_is_not_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp = tmp_path / ".tmp-a"
    tmp.write_bytes(b"x")
    age(tmp, 3600)

    def gone(self: Path, missing_ok: bool = False) -> None:
        raise FileNotFoundError(errno.ENOENT, "gone", str(self))

    monkeypatch.setattr(Path, "unlink", gone)
    assert remove_stale_temps(tmp_path, started_at=datetime.now(UTC)) == 0


def test_a_folder_this_user_cant_open_says_so_not_that_it_is_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another user running in root's project: .mobster is a folder, 0700, root's. (Root opens any
    # folder, so the refusal the other user gets is played here by os.open.)
    mobster = tmp_path / ".mobster"
    mobster.mkdir(mode=0o700)
    real_open = os.open

    def refused(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path) == ".mobster":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)  # fsutil calls os.open
    with pytest.raises(UnsafeFile) as caught:
        private_dir(mobster / "runs")
    assert "it is a folder this user can't open" in str(caught.value)
    assert "is not a folder" not in str(caught.value)
    assert "run as the user who owns the project" in str(caught.value)
