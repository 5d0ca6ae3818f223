"""A team store's errors and secrets, tried as a hostile user would: each one line, masked, naming the fix.

libpq quotes a piece of a connection string it can't read (a password's bad percent-escape
among them): the store's line masks every secret of the string, as written and decoded, and a
run's results, JUnit and logs never hold it. A role that may use the table but not ``CREATE`` in
its schema (PostgreSQL 15's default for ``public``) uses the table another role made. An S3
endpoint never holds credentials. A setting Python can't read as a URL is one line, masked. An
S3 object whose body comes short of its length is the store's failure, never a corrupt path.
"""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from botocore.response import StreamingBody
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.exceptions import StoreUnavailable
from mobster_core.testing import FakeClock, check_path_store
from mobster_drivers.stores import check_setting, open_store, shown
from mobster_drivers.stores._postgres import PostgresPaths, secrets_of
from mobster_drivers.stores._s3 import S3Paths
from mobster_drivers.testing.stores import PostgresServer
from tests.cli.test_paths import make_project

# Each fails in libpq before a connection is tried: its error line quotes the piece it can't read.
LEAKY = [
    ("postgresql://ci:hunter2%ZZsecret@127.0.0.1:1/mobster", "hunter2%ZZsecret"),
    ("postgresql://ci@127.0.0.1:1/mobster?password=hunter2%ZZsecret", "hunter2%ZZsecret"),
    ("postgresql://ci:hunter%202%ZZ@127.0.0.1:1/mobster", "hunter"),
]


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


@pytest.mark.parametrize(("url", "secret"), LEAKY)
@pytest.mark.parametrize("from_env", [False, True], ids=["written", "from ${NAME}"])
def test_a_password_libpq_quotes_in_its_error_is_masked_in_the_store_s_line(
    tmp_path: Path, url: str, secret: str, *, from_env: bool
) -> None:
    setting = "${TEAM_PG}" if from_env else url
    store = open_store(setting, tmp_path, env={"TEAM_PG": url})
    assert not isinstance(store, str)
    with pytest.raises(StoreUnavailable) as raised:
        store.names()
    line = str(raised.value)
    assert secret not in line
    assert "connecting failed" in line
    assert "***" in line  # said, masked: the user learns which piece is wrong
    assert "\n" not in line


def test_every_secret_of_a_connection_string_is_found_as_written_and_decoded() -> None:
    assert set(secrets_of("postgresql://ci:a%20b@db/x?sslpassword=s%26t&user=ci")) == {"a%20b", "a b", "s%26t", "s&t"}
    assert secrets_of("host=db user=ci password='a b' dbname=x") == ("a b",)
    assert secrets_of("postgresql://ci:pw%ZZ@[::1/x") == ("pw%ZZ",)  # no URL Python reads: by pattern
    assert secrets_of("postgresql://ci@db/x") == ()


@pytest.mark.parametrize(("url", "secret"), LEAKY[:2])
def test_a_run_on_a_store_libpq_refuses_writes_its_secret_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, secret: str
) -> None:
    root = make_project(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setenv("TEAM_PG", url)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    run = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", "${TEAM_PG}", "--junit", "j.xml")
    assert run.exit_code != 0
    assert secret not in run.output
    assert "connecting failed" in run.output
    written = [p for p in root.rglob("*") if p.is_file() and p.name != "app.yaml"]
    assert any(p.name == "results.json" for p in written)
    assert (root / "j.xml") in written
    leaked = [p for p in written if secret.encode() in p.read_bytes()]
    assert leaked == []


@pytest.mark.parametrize(
    "url",
    [
        "s3://mobster/app?endpoint=https://AKIAEXAMPLE:verysecret@minio.internal:9000",
        "s3://mobster/app?region=auto&endpoint=http://:verysecret@minio.internal",
    ],
)
def test_an_s3_endpoint_with_credentials_is_refused_without_showing_them(url: str) -> None:
    with pytest.raises(ValueError, match="holds no credentials") as raised:
        check_setting(url)
    assert "verysecret" not in str(raised.value)
    assert "verysecret" not in shown(url)


def test_mobster_config_never_shows_an_s3_endpoint_s_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = mobster("config", "--paths", "s3://mobster/app?endpoint=https://AKIAEXAMPLE:verysecret@minio.internal")
    assert "verysecret" not in result.output
    assert "holds no credentials" in result.output


@pytest.mark.parametrize("committed", [False, True])
def test_a_setting_that_is_no_url_is_one_line_without_its_password(tmp_path: Path, *, committed: bool) -> None:
    url = "postgresql://ci:hunter2-secret@[::1/mobster"
    with pytest.raises(ValueError, match="is no URL") as raised:
        check_setting(url, committed=committed)
    assert "hunter2-secret" not in str(raised.value)
    with pytest.raises(ValueError, match="is no URL") as opened:
        open_store(url, tmp_path, env={})
    assert "hunter2-secret" not in str(opened.value)
    assert "(from the environment)" not in str(opened.value)  # it was written out, not from ${NAME}


def test_a_role_without_create_in_the_schema_uses_the_table_another_role_made(postgres_server: PostgresServer) -> None:
    owner = PostgresPaths(postgres_server.url, store=f"t-{uuid.uuid4().hex[:12]}")
    owner.names()  # the table is there (made by a role that may CREATE)
    owner.close()
    role = f"ci_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")  # PostgreSQL 15: no CREATE on public for it
        conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON mobster_documents TO {role}")
        conn.execute(f"GRANT USAGE ON SEQUENCE mobster_document_versions TO {role}")
    ci = PostgresPaths(postgres_server.url.replace("mobster@", f"{role}@"), store=f"t-{uuid.uuid4().hex[:12]}")
    try:
        check_path_store(ci)
    finally:
        ci.close()


def test_a_role_without_a_right_on_the_table_is_one_line_naming_the_rights(postgres_server: PostgresServer) -> None:
    PostgresPaths(postgres_server.url).close()
    role = f"ro_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT SELECT ON mobster_documents TO {role}")
    store = PostgresPaths(postgres_server.url.replace("mobster@", f"{role}@"), shown="postgresql://ro@db/mobster")
    try:
        assert store.names() == []
        with pytest.raises(StoreUnavailable) as raised:
            store.write_document("heals/x.json", b"{}", expect=None)
    finally:
        store.close()
    line = str(raised.value)
    assert line.startswith("postgresql://ro@db/mobster: writing heals/x.json failed (permission denied")
    assert "SELECT, INSERT, UPDATE, DELETE on mobster_documents and USAGE on its sequence" in line


class _ShortBodies:
    """boto3's S3 client as it is, but every object's body comes short of its length (a broken connection).

    The body is botocore's own ``StreamingBody`` over the first half of the bytes, with the
    object's real ``ContentLength``: what botocore hands back when the connection breaks.
    """

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def get_object(self, **kwargs: Any) -> dict[str, Any]:
        got: dict[str, Any] = self._client.get_object(**kwargs)
        data = got["Body"].read()
        got["Body"] = StreamingBody(io.BytesIO(data[: len(data) // 2]), len(data))
        return got


def test_an_s3_object_that_comes_short_is_the_store_s_failure_never_a_corrupt_path(s3_store: S3Paths) -> None:
    document = b'{"format": 2, "steps": []}\n'
    assert s3_store.write_document("heals/a.json", document, expect=None)
    s3_store._client = _ShortBodies(s3_store.client)  # the store's client, as boto3 made it, its bodies cut
    with pytest.raises(StoreUnavailable, match=r"reading .*heals/a.json failed \(the object came 13 of its 27 bytes"):
        s3_store.read_document("heals/a.json", max_bytes=1024)
