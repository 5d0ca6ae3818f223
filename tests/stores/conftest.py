"""The real servers the store tests share, one of each per test session (per xdist worker).

``postgres_server`` is a throwaway PostgreSQL 15 on a unix socket, ``s3_server`` moto's S3 API on
127.0.0.1 serving one request at a time (``mobster_drivers.testing.stores``' rules). Each starts
at the first test that asks for it and stops at the end of the session; where one can't start,
the tests that need it skip, saying why. ``postgres_store`` and ``s3_store`` give each test a
store of its own on the shared server (a store name, a prefix), empty.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from mobster_drivers.stores._postgres import PostgresPaths
from mobster_drivers.stores._s3 import S3Paths
from mobster_drivers.testing.stores import PostgresServer, S3Server, postgres_unavailable, s3_unavailable

BUCKET = "mobster-test"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    why = postgres_unavailable()
    if why is not None:
        pytest.skip(why)
    try:
        server = PostgresServer().start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"PostgreSQL couldn't start here: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    why = s3_unavailable()
    if why is not None:
        pytest.skip(why)
    saved = {k: os.environ.get(k) for k in S3Server.ENVIRONMENT}
    os.environ.update(S3Server.ENVIRONMENT)
    try:
        try:
            server = S3Server().start()
            server.bucket(BUCKET)
        except OSError as exc:
            pytest.skip(f"the S3 API server couldn't start here: {exc}")
        try:
            yield server
        finally:
            server.stop()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def postgres_store(postgres_server: PostgresServer) -> Iterator[PostgresPaths]:
    store = PostgresPaths(postgres_server.url, store=f"t-{uuid.uuid4().hex[:12]}", shown="postgresql://test")
    yield store
    store.close()


@pytest.fixture
def s3_store(s3_server: S3Server) -> S3Paths:
    return S3Paths(BUCKET, f"t-{uuid.uuid4().hex[:12]}", endpoint=s3_server.endpoint)
