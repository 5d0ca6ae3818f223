"""Two writers racing on one document: one wins, the other reads the winner's; never a lost update.

Against each engine for real: threads on their own connections to PostgreSQL and to the S3 API,
and processes on one folder for the file stores (the folder's flock). Every writer reads the
same version, then all write at once (a barrier): exactly one write wins, the document holds the
winner's bytes, and every loser reads them. Creates race the same way.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mobster_core.paths import LocalPaths
from mobster_core.protocols import PathStore
from mobster_drivers.stores._postgres import PostgresPaths
from mobster_drivers.stores._s3 import S3Paths

ID, ENV = "0123456789abcdef", "abcdef012345"
WRITERS = 6


def race(stores: list[PathStore], expect: str | None, word: str) -> tuple[list[bool], list[bytes]]:
    """Each store writes its own bytes expecting ``expect``, all at once; who won, and what each reads after.

    Each round's bytes differ from the last's: on the content-addressed engines (S3's ETag, a file
    store's hash) a write of the very bytes expected keeps the tag, so a second writer would still
    match it (nothing is lost: the document held those bytes already).
    """
    start = threading.Barrier(len(stores))
    won = [False] * len(stores)

    def write(n: int) -> None:
        start.wait()
        won[n] = stores[n].write(ID, ENV, f"{word} {n}".encode(), expect=expect)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return won, [s.read(ID, ENV, max_bytes=1024).data for s in stores]


def check_one_wins(make: Callable[[], PathStore]) -> None:
    stores = [make() for _ in range(WRITERS)]
    won, seen = race(stores, None, "created by")
    assert won.count(True) == 1, won
    assert seen == [f"created by {won.index(True)}".encode()] * WRITERS, "every loser reads the winner's"
    tag = stores[0].read(ID, ENV, max_bytes=1024).tag
    won, seen = race(stores, tag, "replaced by")  # replaces of the one version all read
    assert won.count(True) == 1, won
    assert seen == [f"replaced by {won.index(True)}".encode()] * WRITERS


def test_racing_writers_on_postgres_one_wins_and_the_others_read_it(postgres_store: PostgresPaths) -> None:
    url, name = postgres_store._conninfo, postgres_store.store
    check_one_wins(lambda: PostgresPaths(url, store=name, shown="postgresql://test"))


def test_racing_writers_on_s3_one_wins_and_the_others_read_it(s3_store: S3Paths) -> None:
    check_one_wins(lambda: S3Paths(s3_store.bucket, s3_store.prefix, endpoint=s3_store.endpoint))


def _write_in_process(root: str, n: int, expect: str | None, start: Any, results: Any) -> None:
    start.wait()
    results.put((n, LocalPaths(Path(root)).write(ID, ENV, f"{expect} {n}".encode(), expect=expect)))


def test_racing_processes_on_one_folder_one_wins(tmp_path: Path) -> None:
    (tmp_path / ".mobster").mkdir()
    context = multiprocessing.get_context("fork")
    for round_ in ("create", "replace"):
        expect = None if round_ == "create" else LocalPaths(tmp_path).read(ID, ENV, max_bytes=1024).tag
        start, results = context.Barrier(4), context.Queue()
        workers = [
            context.Process(target=_write_in_process, args=(str(tmp_path), n, expect, start, results)) for n in range(4)
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        won = dict(results.get(timeout=10) for _ in workers)
        assert list(won.values()).count(True) == 1, won
        winner = next(n for n, w in won.items() if w)
        assert LocalPaths(tmp_path).read(ID, ENV, max_bytes=1024).data == f"{expect} {winner}".encode()
