"""``mobster test`` and ``mobster paths`` on a team's store, against the real PostgreSQL and S3 API.

A project records into the store; another checkout of it replays at $0; ``mobster paths``
lists, shows (with who recorded it), prunes, exports and imports there; a pull request's run
(``--no-paths-write``) leaves the store byte for byte as it was and keeps its recording in a
bundle; a signed store refuses a row someone forged and records it again; a connection string
comes from ``${NAME}`` and its password is never printed; a bad setting is one line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.stores._s3 import S3Paths
from mobster_drivers.testing.stores import PostgresServer, S3Server
from tests.cli.test_paths import make_project
from tests.stores.conftest import BUCKET


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


@pytest.fixture
def pg(postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A store of this test's own in the session's PostgreSQL, named by ``${MOBSTER_TEST_PG}``."""
    monkeypatch.setenv("MOBSTER_TEST_PG", f"{postgres_server.url}#{store_name(request)}")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return "${MOBSTER_TEST_PG}"


def rows(server: PostgresServer, store: str) -> list[tuple[str, int, bytes]]:
    """Every row of the store, with its version: what byte-identical means for a table."""
    with psycopg.connect(server.url) as conn:
        found = conn.execute(
            "SELECT name, version, data FROM mobster_documents WHERE store = %s ORDER BY name", (store,)
        ).fetchall()
    return [(str(n), int(v), bytes(d)) for n, v, d in found]


def store_name(request: pytest.FixtureRequest) -> str:
    name: str = request.node.name
    return name.replace("_", "-")[-40:].lower()


def checkout(source: Path, target: Path) -> Path:
    """Another machine's checkout: the checks and the app, no local paths."""
    (target / ".mobster").mkdir(parents=True)
    shutil.copytree(source / ".mobster" / "checks", target / ".mobster" / "checks")
    shutil.copy(source / "app.yaml", target / "app.yaml")
    return target


def test_a_checkout_replays_what_another_recorded_into_postgres_at_no_cost(
    pg: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = make_project(tmp_path / "one")
    monkeypatch.chdir(first)
    recorded = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", pg)
    assert recorded.exit_code == 0, recorded.output
    assert "recorded a new path" in recorded.output
    monkeypatch.chdir(checkout(first, tmp_path / "two"))
    replayed = mobster("test", "--scripted", "app.yaml", "--paths", pg, "--json")
    assert replayed.exit_code == 0, replayed.output
    doc = json.loads(replayed.stdout)
    assert {c["mode"] for c in doc["checks"]} == {"replay"}
    assert [c["model_calls"] for c in doc["checks"]] == [0, 0]
    assert not (tmp_path / "two" / ".mobster" / "cache" / "replay").exists()  # nothing went to the local store


def test_mobster_paths_lists_shows_who_recorded_prunes_and_forgets_on_postgres(
    pg: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", pg).exit_code == 0
    listing = mobster("paths", "list", "--paths", pg, "--json")
    assert listing.exit_code == 0, listing.output
    assert sorted(e["checks"][0] for e in json.loads(listing.stdout)) == [
        ".mobster/checks/pro.yaml",
        ".mobster/checks/signup.yaml",
    ]
    shown = mobster("paths", "show", ".mobster/checks/signup.yaml", "--paths", pg)
    assert shown.exit_code == 0, shown.output
    assert "build 4242" in shown.output
    assert "model scripted" in shown.output
    assert "device Scripted iPhone (simulator, 26.4)" in shown.output
    # The sign-up check's steps change: its old path is no check's, and prune forgets it (and only it).
    signup = root / ".mobster" / "checks" / "signup.yaml"
    signup.write_text(signup.read_text().replace("ada@example.com", "grace@example.com"))
    dry = mobster("paths", "prune", "--dry-run", "--paths", pg)
    assert "would forget 1 path no check has" in dry.output, dry.output
    pruned = mobster("paths", "prune", "--paths", pg)
    assert "forgot 1 path no check has" in pruned.output, pruned.output
    left = json.loads(mobster("paths", "list", "--paths", pg, "--json").stdout)
    assert [e["checks"] for e in left] == [[".mobster/checks/pro.yaml"]]
    gone = mobster("paths", "forget", ".mobster/checks/pro.yaml", "--paths", pg)
    assert gone.exit_code == 0, gone.output
    assert json.loads(mobster("paths", "list", "--paths", pg, "--json").stdout) == []


def test_a_pull_request_s_run_leaves_the_store_byte_identical_and_keeps_its_recording_in_a_bundle(
    pg: str, postgres_server: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:  # fmt: skip
    main = make_project(tmp_path / "main")
    (main / ".mobster" / "checks" / "pro.yaml").unlink()  # main has recorded only the sign-up
    monkeypatch.chdir(main)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", pg).exit_code == 0
    before = rows(postgres_server, store_name(request))
    pr = make_project(tmp_path / "pr")  # the pull request adds the Pro check
    monkeypatch.chdir(pr)
    run = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", pg, "--no-paths-write", "--json")
    assert run.exit_code == 0, run.output
    modes = {c["name"]: c["mode"] for c in json.loads(run.stdout)["checks"]}
    assert modes == {"A new user signs up": "replay", "Settings offers Pro": "smart"}
    assert rows(postgres_server, store_name(request)) == before  # byte for byte, versions too
    [bundle] = (pr / ".mobster" / "test-results").glob("*/paths-bundle.json")
    assert bundle.stat().st_mode & 0o777 == 0o600  # under .mobster: private, written atomically
    assert "paths-bundle.json (mobster paths import it once this change is merged)" in run.stderr
    # Once merged, main imports the bundle: the Pro path is the store's.
    monkeypatch.chdir(main)
    shutil.copy(pr / ".mobster" / "checks" / "pro.yaml", main / ".mobster" / "checks" / "pro.yaml")
    imported = mobster("paths", "import", str(bundle), "--paths", pg)
    assert imported.exit_code == 0, imported.output
    assert "1 added" in imported.output


def test_a_signed_store_refuses_a_forged_row_and_records_it_again(
    pg: str, postgres_server: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:  # fmt: skip
    root = make_project(tmp_path)
    (root / ".mobster" / "checks" / "pro.yaml").unlink()
    (root / "mobster.toml").write_text('paths-key = "${MOBSTER_TEAM_KEY}"\n')
    monkeypatch.chdir(root)
    monkeypatch.setenv("MOBSTER_TEAM_KEY", "a-team-key-of-32-characters-long")
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", pg).exit_code == 0
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:  # someone with the table's rights, not the key
        conn.execute(
            "UPDATE mobster_documents SET data = convert_to(replace(convert_from(data, 'UTF8'), 'Continue', "
            "'Delete'), 'UTF8') WHERE store = %s AND name LIKE 'paths/%%'",
            (store_name(request),),
        )
    again = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", pg, "--json")
    assert again.exit_code == 0, again.output
    [check] = json.loads(again.stdout)["checks"]
    assert check["mode"] == "smart"
    assert "its signature doesn't match the team key" in check["path"]["why"]
    # A team's store is shared: the forged row is left as it is (the cache's Rule 12), and recorded over.
    assert "can't be used and is left as it is" in check["path"]["why"]
    replay = mobster("test", "--scripted", "app.yaml", "--paths", pg, "--json")
    assert {c["mode"] for c in json.loads(replay.stdout)["checks"]} == {"replay"}  # the new one is signed


def test_a_run_records_into_s3_and_mobster_paths_lists_it(
    s3_server: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path)
    monkeypatch.chdir(root)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    url = f"s3://{BUCKET}/cli-test/app?endpoint={s3_server.endpoint}"
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", url).exit_code == 0
    listing = json.loads(mobster("paths", "list", "--paths", url, "--json").stdout)
    assert len(listing) == 2
    assert all(e["where"].startswith(f"s3://{BUCKET}/cli-test/app/paths/") for e in listing)
    assert len(S3Paths(BUCKET, "cli-test/app", endpoint=s3_server.endpoint).names()) == 2


def test_a_store_s_password_is_never_printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    url = "postgresql://ci:hunter2-secret@127.0.0.1:1/mobster"
    shown = mobster("config", "--paths", url)
    assert "hunter2-secret" not in shown.output
    assert "postgresql://ci:***@127.0.0.1:1/mobster" in shown.output
    run = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", url, "--json")
    assert "hunter2-secret" not in run.output
    [*checks] = json.loads(run.stdout)["checks"]
    assert {c["class"] for c in checks} == {"environment"}
    assert all("postgresql://ci:***@127.0.0.1:1/mobster" in c["message"] for c in checks), checks[0]["message"]
    in_query = mobster("config", "--paths", "postgresql://127.0.0.1:1/mobster?user=ci&password=hunter2-secret")
    assert "hunter2-secret" not in in_query.output  # libpq takes a password in the query too
    assert "password=***" in in_query.output


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('paths = "postgresql://ci:pw@db/mobster"', "the config is committed, so it holds no password"),
        ('paths = "postgresql://db/mobster?sslpassword=pw"', "the config is committed, so it holds no password"),
        ('paths = "ftp://files/paths"', "is no path store: write one of local, committed, s3://BUCKET/PREFIX"),
        ('paths = "s3://Bad_Bucket/x"', "is no bucket name"),
        ('paths = "s3://bucket/x?token=abc"', "unknown key 'token'"),
        ('paths-key = "0123456789abcdef"', "write the name of the environment variable that holds it"),
        ("paths-lease = 0.5", "write a number from 1 to 3600, such as paths-lease = 60"),
    ],
)
def test_a_bad_store_setting_is_one_line_naming_the_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, said: str
) -> None:
    make_project(tmp_path)
    (tmp_path / "mobster.toml").write_text(line + "\n")
    monkeypatch.chdir(tmp_path)
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output
    [message] = [m for m in result.output.splitlines() if m.strip()]
    assert "mobster.toml" in message
    assert line.split(" =", maxsplit=1)[0] in message
    assert said in message
    assert "pw@" not in message


def test_an_unset_name_in_the_store_setting_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_SUCH_STORE", raising=False)
    result = mobster("test", "--scripted", "app.yaml", "--paths", "${NO_SUCH_STORE}")
    assert result.exit_code == 3, result.output
    assert "names ${NO_SUCH_STORE}, and NO_SUCH_STORE isn't set: set it" in result.output


def test_a_store_from_the_environment_that_is_no_url_is_refused_without_showing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEAM_STORE", "host=db.internal user=ci password=hunter2-secret dbname=mobster")
    result = mobster("test", "--scripted", "app.yaml", "--paths", "${TEAM_STORE}")
    assert result.exit_code == 3, result.output
    assert "hunter2-secret" not in result.output
    assert "the path store ${TEAM_STORE} (from the environment) is no store" in result.output
