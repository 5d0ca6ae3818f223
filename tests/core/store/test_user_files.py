"""A user's files outside ``.mobster/``: read and written as a careful server does (fsutil's Rules 6 and 7)."""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mobster_core._store import fsutil
from mobster_core.exceptions import Problem, UnsafeFile
from mobster_core.files import open_user_file, read_user_file, write_user_file

HANG_SECONDS = 20
ROOT = os.geteuid() == 0


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def left_behind(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(fsutil.TEMP_PREFIX))


def test_a_new_file_gets_the_umasks_mode_like_any_programs(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "bundle.json"
    write_user_file(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert mode(target) == 0o644  # the user's file, not a private one
    assert left_behind(tmp_path) == []


def test_a_replaced_file_keeps_its_mode_and_owner(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "pyproject.toml"
    target.write_bytes(b"old")
    target.chmod(0o664)
    if ROOT:
        os.chown(target, 4242, 4243)
    write_user_file(target, b"new")
    assert target.read_bytes() == b"new"
    assert mode(target) == 0o664
    if ROOT:
        assert (target.stat().st_uid, target.stat().st_gid) == (4242, 4243)


def test_a_symlink_at_the_target_is_refused_and_neither_it_nor_its_target_changes(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    link = tmp_path / "junit.xml"
    link.symlink_to(victim)
    with pytest.raises(UnsafeFile) as caught:
        write_user_file(link, b"bundle")
    assert caught.value.problem is Problem.SYMLINK
    assert str(caught.value) == (
        f"refusing {link}: it is a symlink (mobster never writes through one); give the file itself, or delete the link"
    )
    assert victim.read_bytes() == b"precious"
    assert link.is_symlink()
    assert left_behind(tmp_path) == []


def test_a_dangling_symlink_is_refused_too(tmp_path: Path) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "would-be-created")
    with pytest.raises(UnsafeFile, match="symlink"):
        write_user_file(link, b"x")
    assert not (tmp_path / "would-be-created").exists()


@pytest.mark.usefixtures("no_hang")
def test_a_fifo_a_folder_and_a_device_are_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    targets = [fifo, folder]
    if ROOT:  # a character device of the test's own (the same numbers as /dev/null): never /dev/null itself
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        targets.append(device)
    for target in targets:
        with pytest.raises(UnsafeFile) as caught:
            write_user_file(target, b"x")
        assert caught.value.problem is Problem.NOT_REGULAR
        assert caught.value.reason == "it is not a regular file"
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    if ROOT:
        assert stat.S_ISCHR((tmp_path / "null").lstat().st_mode)  # never replaced by a regular file
    assert left_behind(tmp_path) == []


def test_the_temporary_file_is_never_opened_through_a_planted_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link at the temporary file's very name (made predictable here) fails the write; the victim is untouched."""
    monkeypatch.setattr(secrets, "token_hex", lambda _n: "feedfacecafe")
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    target = tmp_path / "bundle.json"
    (tmp_path / f"{fsutil.TEMP_PREFIX}bundle.json-feedfacecafe").symlink_to(victim)
    with pytest.raises(FileExistsError) as caught:
        write_user_file(target, b"bundle")
    assert caught.value.filename == str(target)  # the user's file is named, not the temporary one
    assert victim.read_bytes() == b"precious"
    assert not target.exists()


def test_new_never_replaces_a_file(tmp_path: Path) -> None:
    target = tmp_path / "mobster.toml"
    target.write_bytes(b"mine")
    with pytest.raises(FileExistsError):
        write_user_file(target, b"theirs", new=True)
    assert target.read_bytes() == b"mine"
    assert left_behind(tmp_path) == []


def test_new_keeps_a_file_that_appeared_while_it_was_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "mobster.toml"
    real = fsutil._write_temp

    def racing(folder: Path, name: str, data: bytes, **kw: Any) -> Path:
        tmp = real(folder, name, data, **kw)
        target.write_bytes(b"a parallel init's")
        return tmp

    monkeypatch.setattr(fsutil, "_write_temp", racing)
    with pytest.raises(FileExistsError):
        write_user_file(target, b"ours", new=True)
    assert target.read_bytes() == b"a parallel init's"
    assert left_behind(tmp_path) == []


def test_new_works_where_the_filesystem_has_no_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(_src: object, _dst: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "pytest.ini"
    write_user_file(target, b"[pytest]\n", new=True)
    assert target.read_bytes() == b"[pytest]\n"
    with pytest.raises(FileExistsError):
        write_user_file(target, b"again", new=True)
    assert target.read_bytes() == b"[pytest]\n"
    assert left_behind(tmp_path) == []


def test_an_edit_never_loses_a_change_made_meanwhile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / ".gitignore"
    target.write_bytes(b"node_modules/\n")
    original = target.read_bytes()
    real = fsutil._write_temp

    def racing(folder: Path, name: str, data: bytes, **kw: Any) -> Path:
        tmp = real(folder, name, data, **kw)
        target.write_bytes(b"node_modules/\ndist/\n")  # the user saved in an editor meanwhile
        return tmp

    monkeypatch.setattr(fsutil, "_write_temp", racing)
    with pytest.raises(UnsafeFile) as caught:
        write_user_file(target, original + b".env\n", replacing=original)
    assert caught.value.problem is Problem.CHANGED
    assert "it changed while mobster was editing it" in str(caught.value)
    assert target.read_bytes() == b"node_modules/\ndist/\n"
    assert left_behind(tmp_path) == []


def test_an_edit_of_an_unchanged_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / ".gitignore"
    target.write_bytes(b"a\n")
    write_user_file(target, b"a\nb\n", replacing=b"a\n")
    assert target.read_bytes() == b"a\nb\n"


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        write_user_file(tmp_path / "nowhere" / "junit.xml", b"x")
    assert caught.value.filename == str(tmp_path / "nowhere" / "junit.xml")


def test_a_full_disk_names_the_users_file_and_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "bundle.json"
    target.write_bytes(b"old")
    with pytest.raises(OSError, match="No space left") as caught:
        write_user_file(target, b"new")
    assert caught.value.filename == str(target)
    assert target.read_bytes() == b"old"
    assert left_behind(tmp_path) == []


@pytest.mark.usefixtures("no_hang")
def test_reads_follow_a_link_to_a_regular_file_but_never_to_a_fifo_or_a_device(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.write_bytes(b"patterns")
    link = tmp_path / "link"
    link.symlink_to(real)
    assert read_user_file(link, max_bytes=100) == b"patterns"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in (fifo, Path("/dev/zero")):
        to_it = tmp_path / f"to-{target.name}"
        to_it.symlink_to(target)
        with pytest.raises(UnsafeFile, match="not a regular file"):
            read_user_file(to_it, max_bytes=100)
        with pytest.raises(UnsafeFile, match="not a regular file"), open_user_file(to_it):
            pass


def test_open_user_file_streams_a_regular_file(tmp_path: Path) -> None:
    file = tmp_path / "app.ipa"
    file.write_bytes(b"PK" + b"\0" * 10)
    with open_user_file(file) as f:
        assert f.read(2) == b"PK"
    (tmp_path / "link.ipa").symlink_to(file)
    with pytest.raises(UnsafeFile, match="symlink"), open_user_file(tmp_path / "link.ipa", follow=False):
        pass
