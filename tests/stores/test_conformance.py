"""Every path store passes one conformance suite (``mobster_core.testing.check_path_store``).

The built-in file stores, the in-memory fake, the S3 store against moto's S3 API and the
PostgreSQL store against a real PostgreSQL, and the signed and read-only wrappers over each: the
same reads with a version tag, the same conditional writes, the same listing and naming rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core._rules.replay.identity import Env
from mobster_core._store.cache import ReplayCache
from mobster_core.paths import BundlePaths, CommittedPaths, LocalPaths, ReadOnlyPaths
from mobster_core.protocols import PathStore
from mobster_core.testing import MemoryPaths, check_path_store
from mobster_drivers.stores._postgres import PostgresPaths
from mobster_drivers.stores._s3 import S3Paths


def project(tmp_path: Path) -> Path:
    (tmp_path / ".mobster").mkdir()
    return tmp_path


MAKERS: dict[str, Callable[[Path], PathStore]] = {
    "memory": lambda _tmp: MemoryPaths(),
    "local": lambda tmp: LocalPaths(project(tmp)),
    "committed": lambda tmp: CommittedPaths(project(tmp)),
    "bundle": lambda tmp: BundlePaths(project(tmp) / ".mobster" / "cache" / "read-only"),
    "read-only over memory": lambda tmp: ReadOnlyPaths(MemoryPaths(), BundlePaths(project(tmp) / ".mobster" / "b")),
}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_each_built_in_store_passes_the_conformance_suite(kind: str, tmp_path: Path) -> None:
    check_path_store(MAKERS[kind](tmp_path))


def test_the_postgres_store_passes_the_conformance_suite(postgres_store: PostgresPaths) -> None:
    check_path_store(postgres_store)


def test_the_s3_store_passes_the_conformance_suite(s3_store: S3Paths) -> None:
    check_path_store(s3_store)


def test_a_store_that_breaks_a_rule_fails_the_suite_naming_it() -> None:
    class LastWriterWins(MemoryPaths):
        """A store that ignores ``expect``: what the issue's fleet had before (two writes, the later one wins)."""

        def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
            current = self.paths.get((identity, env))
            return super().write(identity, env, data, expect=None if current is None else current[1])

    with pytest.raises(AssertionError, match="a second create loses"):
        check_path_store(LastWriterWins())


def test_the_s3_store_lists_past_one_page_of_objects(s3_store: S3Paths) -> None:
    # A listing comes a page at a time (S3's pages are at most 1,000 keys; some engines' smaller):
    # the store follows the continuation token to the end.
    paged = S3Paths(s3_store.bucket, s3_store.prefix, endpoint=s3_store.endpoint, page_size=2)
    for n in range(5):
        assert paged.write(f"{n:016x}", "abcdef012345", b"{}", expect=None)
        assert paged.write_document(f"heals/{n:016x}-abcdef012345-000000000000.json", b"{}", expect=None)
    assert paged.names() == [(f"{n:016x}", "abcdef012345") for n in range(5)]
    assert len(paged.documents("heals/")) == 5


def test_a_store_written_for_the_old_protocol_is_refused_naming_what_it_lacks(tmp_path: Path) -> None:
    class Unversioned(MemoryPaths):
        """A store whose reads give bytes and whose writes say nothing: the protocol before issue 42."""

        def read(self, identity: str, env: str, *, max_bytes: int) -> bytes:  # type: ignore[override]
            return super().read(identity, env, max_bytes=max_bytes).data

    store = Unversioned()
    env = Env("1.0", "1", 26, mc.DeviceKind.SIMULATOR)
    assert store.write("b4f5b1de9d5b86e2", env.digest, b"{}")
    with pytest.raises(TypeError, match=r"the memory store's read gave bytes, not a Versioned\(data, tag\)"):
        ReplayCache(tmp_path, store).lookup("b4f5b1de9d5b86e2", env)  # type: ignore[arg-type]  # what it is about
    with pytest.raises(AssertionError, match="read gives a Versioned, not bytes"):
        check_path_store(Unversioned())
