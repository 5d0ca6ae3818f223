"""A path store's index (``pathstores``' Rule 5): one listing of the folder per change, not one per lookup."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

from mobster_core._store.pathstores import CommittedPaths, LocalPaths

IDS = [f"{n:016x}" for n in range(1, 6)]
ENV = "abcdef012345"


@pytest.fixture
def listings() -> Iterator[list[str]]:
    """The folders listed, one entry per ``os.scandir``."""
    seen: list[str] = []
    real = os.scandir

    def counting(path: str | os.PathLike[str]) -> object:
        seen.append(os.fspath(path))
        return real(path)

    with mock.patch.object(os, "scandir", counting):  # the os module pathstores lists folders with
        yield seen


@pytest.mark.parametrize("kind", [LocalPaths, CommittedPaths])
def test_lookups_list_the_folder_once_and_own_writes_keep_the_index(
    tmp_path: Path, listings: list[str], kind: type[LocalPaths]
) -> None:
    store = kind(tmp_path)
    for identity in IDS:
        store.write(identity, ENV, b"{}")
    assert [store.names(i) for i in IDS] == [[(i, ENV)] for i in IDS]
    assert len(listings) <= 1  # one listing for every lookup
    store.write(IDS[0], "111111111111", b"{}")
    store.remove(IDS[1], ENV)
    store.set_aside(IDS[2], ENV, ".corrupt")
    assert store.names(IDS[0]) == [(IDS[0], "111111111111"), (IDS[0], ENV)]
    assert store.names(IDS[1]) == store.names(IDS[2]) == []
    assert len(listings) <= 1  # this process's own changes update the index in place
    assert store.names() == sorted([(IDS[0], "111111111111"), (IDS[0], ENV), (IDS[3], ENV), (IDS[4], ENV)])


def test_a_change_by_someone_else_is_seen_at_the_next_lookup(tmp_path: Path, listings: list[str]) -> None:
    store = LocalPaths(tmp_path)
    store.write(IDS[0], ENV, b"{}")
    assert store.names(IDS[0]) == [(IDS[0], ENV)]
    listed = len(listings)
    other = store.file_for(IDS[1], ENV)
    other.write_bytes(b"{}")  # another process records a path
    os.utime(store.folder, ns=(1, 1))  # whatever the clock's granularity, the folder's time moved
    assert store.names(IDS[1]) == [(IDS[1], ENV)]
    store.file_for(IDS[0], ENV).unlink()  # a person deletes one
    os.utime(store.folder, ns=(2, 2))
    assert store.names(IDS[0]) == []
    assert len(listings) == listed + 2
