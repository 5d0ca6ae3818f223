"""The PostgreSQL path store (extra ``postgres``: psycopg 3): a team's paths in one table.

Rule 1 (the table): ``mobster_documents (store text, name text, version bigint, data bytea,
        PRIMARY KEY (store, name))``, created when missing (with its sequence
        ``mobster_document_versions``) under an advisory lock, so machines that start at once
        never race on the ``CREATE``. A connection that finds both there creates nothing: a
        role without ``CREATE`` on the schema (PostgreSQL 15's default for ``public``) uses a
        table another role made (it needs ``SELECT``, ``INSERT``, ``UPDATE``, ``DELETE`` on the
        table and ``USAGE`` on the sequence). ``store`` is the URL's fragment (``#myapp``: several projects
        in one database), else ``default``. A path is the row ``paths/<identity>-<env>.json``, a
        document ``<kind>/<key>``, a path set aside ``aside/<name><suffix>`` (never listed).
Rule 2 (the conditional write): a create is ``INSERT ... ON CONFLICT DO NOTHING`` (0 rows: it
        lost), a replace ``UPDATE ... SET version = nextval(...) WHERE version = <read>`` (0 rows:
        it lost). Versions come from one sequence, so a version never comes back (a document
        removed and created again has a new one: no ABA). The tag is the version in decimal.
Rule 3: the connection string is the setting (``postgresql://…``, often from ``${NAME}``); the
        connection is made at first use, in autocommit, with a 10 s connect timeout, and made
        again once after it broke. Its password is never printed (the store is named by its URL
        with the password masked), nor is any secret of it inside psycopg's error line (libpq
        quotes a piece it can't read, a password's percent-escape among them): the password and
        a query's ``password=``, ``sslpassword=`` or token, as written and decoded, are masked
        (:func:`secrets_of`).
Rule 4: a read past the size asked for is refused from the row's length, before its bytes are
        sent (:class:`UnsafeFile`, ``too_large``).
Rule 5: any other failure is :class:`StoreUnavailable`: one line naming the store and the fix,
        psycopg's error as ``__cause__``. psycopg is imported when the store is first used.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from mobster_core.exceptions import Problem, StoreUnavailable, UnsafeFile
from mobster_core.paths import DOCUMENT_KINDS, Versioned, check_document_name

__all__ = ["TABLE", "PostgresPaths", "secrets_of"]

TABLE = "mobster_documents"
_PATH = re.compile(r"paths/([0-9a-f]{16})-([0-9a-f]{12})\.json")
_LOCK = 0x6D6F6273  # "mobs": the advisory lock that serializes creating the table
# The statements, written out whole: the table's name is this module's, never an input.
_CREATE = """
CREATE SEQUENCE IF NOT EXISTS mobster_document_versions;
CREATE TABLE IF NOT EXISTS mobster_documents (
    store text NOT NULL,
    name text NOT NULL,
    version bigint NOT NULL DEFAULT nextval('mobster_document_versions'),
    data bytea NOT NULL,
    PRIMARY KEY (store, name)
)"""
#: Rule 1: whether the table and its sequence are there (as the search path finds them, as the statements do).
_THERE = "SELECT to_regclass('mobster_documents') IS NOT NULL AND to_regclass('mobster_document_versions') IS NOT NULL"
_READ = (
    "SELECT version, length(data), CASE WHEN length(data) <= %s THEN data END FROM mobster_documents "
    "WHERE store = %s AND name = %s"
)
_CREATE_ROW = "INSERT INTO mobster_documents (store, name, data) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"
_REPLACE_ROW = (
    "UPDATE mobster_documents SET data = %s, version = nextval('mobster_document_versions') "
    "WHERE store = %s AND name = %s AND version = %s"
)
_DELETE_ROW = "DELETE FROM mobster_documents WHERE store = %s AND name = %s"
_LIST_ROWS = "SELECT name FROM mobster_documents WHERE store = %s AND name LIKE %s"
_RENAME_ROW = "UPDATE mobster_documents SET name = %s WHERE store = %s AND name = %s"


_SECRET_KEY = re.compile(r"pass|secret|token", re.IGNORECASE)
#: Rule 3: a keyword string's secret (``password=… `` or ``password='…'``), for a string given so.
_KEYWORD_SECRET = re.compile(r"\b\w*(?:pass|secret|token)\w*\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def secrets_of(conninfo: str) -> tuple[str, ...]:
    """Rule 3: the pieces of a connection string that are secrets, as written and decoded, longest first."""
    if "://" not in conninfo:  # a keyword string (host=… password=…)
        return tuple(sorted({m.group(1).strip("'") for m in _KEYWORD_SECRET.finditer(conninfo)}, key=len, reverse=True))
    found: set[str] = set()
    try:
        parts = urlsplit(conninfo)
    except ValueError:  # no URL Python reads (a broken IPv6 host): its user info, by pattern
        parts = None
        found.update(m.group(1) for m in re.finditer(r"//[^:/@]*:([^@/]*)@", conninfo))
    if parts is not None:
        raw = parts.netloc.rpartition("@")[0].partition(":")[2]
        found.update({raw, unquote(raw)})
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if _SECRET_KEY.search(key):
                found.update({value, quote(value, safe="")})
        for piece in parts.query.split("&"):
            key, _, raw = piece.partition("=")
            if _SECRET_KEY.search(key):
                found.add(raw)
    return tuple(sorted((f for f in found if f), key=len, reverse=True))


class PostgresPaths:
    """Rules 1-5: the path store in the database ``conninfo`` names, as ``store``."""

    name = "postgres"
    shared = True

    def __init__(self, conninfo: str, *, store: str = "default", shown: str = "postgresql://") -> None:
        self._conninfo = conninfo
        self._secrets = secrets_of(conninfo)
        self.store = store
        self.url = shown
        self._conn: Any = None

    def __repr__(self) -> str:
        return f"PostgresPaths({self.url!r}, store={self.store!r})"

    def _connect(self) -> Any:
        try:
            import psycopg  # the extra is imported only when the store is used
        except ImportError as exc:
            raise StoreUnavailable(
                f"{self.url}: the PostgreSQL path store needs psycopg: pip install 'mobster-replay[postgres]'"
            ) from exc
        try:
            conn = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise self._failed("connecting", exc) from exc
        try:
            there = conn.execute(_THERE).fetchone()
            if not (there and there[0]):  # Rule 1: only a missing table is created (CREATE needs its right)
                with conn.transaction(), conn.cursor() as cur:
                    cur.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
                    cur.execute(_CREATE)
        except psycopg.Error as exc:
            conn.close()
            raise self._failed("making its table", exc) from exc
        return conn

    def _failed(self, what: str, exc: Exception) -> StoreUnavailable:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        detail = detail.replace(self._conninfo, self.url)
        for secret in self._secrets:  # Rule 3: libpq quotes pieces of the string ("invalid ... token: "p%ZZ…"")
            detail = detail.replace(secret, "***")
        return StoreUnavailable(
            f"{self.url}: {what} failed ({detail}); check the connection string, the server and the role's "
            f"rights (CREATE on first use, then SELECT, INSERT, UPDATE, DELETE on {TABLE} and USAGE on its sequence "
            "mobster_document_versions)"
        )

    def _run(self, what: str, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]] | int:
        """One statement; its rows (a ``SELECT``) or how many rows it changed (Rule 3: again once, reconnected)."""
        import psycopg

        for attempt in (1, 2):
            if self._conn is None or self._conn.closed:
                self._conn = self._connect()
            try:
                with self._conn.cursor() as cur:
                    cur.execute(sql, params)
                    return cur.fetchall() if cur.description is not None else int(cur.rowcount)
            except psycopg.OperationalError as exc:
                self._conn = None
                if attempt == 2:
                    raise self._failed(what, exc) from exc
            except psycopg.Error as exc:
                raise self._failed(what, exc) from exc
        raise AssertionError("unreachable")

    def _rows(self, what: str, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        rows = self._run(what, sql, params)
        assert isinstance(rows, list)
        return rows

    def _count(self, what: str, sql: str, params: tuple[Any, ...]) -> int:
        count = self._run(what, sql, params)
        assert isinstance(count, int)
        return count

    def close(self) -> None:
        """Close the connection (the store connects again when used)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- rows by name ------------------------------------------------------------------------------

    def _read(self, name: str, max_bytes: int) -> Versioned:
        rows = self._rows(
            f"reading {name}",
            _READ,
            (max_bytes, self.store, name),
        )
        if not rows:
            raise FileNotFoundError(f"{self.url}/{name}")
        version, size, data = rows[0]
        if data is None:
            raise UnsafeFile(
                Path(f"{self.url}/{name}"), f"it is {size} bytes, over {max_bytes}", problem=Problem.TOO_LARGE
            )
        return Versioned(bytes(data), str(version))

    def _write(self, name: str, data: bytes, expect: str | None) -> bool:
        if expect is None:
            return self._count(f"writing {name}", _CREATE_ROW, (self.store, name, data)) == 1
        if not expect.isdigit() or len(expect) > 19:
            return False  # no version this store ever gave
        return self._count(f"writing {name}", _REPLACE_ROW, (data, self.store, name, int(expect))) == 1

    def _delete(self, name: str) -> None:
        self._count(f"deleting {name}", _DELETE_ROW, (self.store, name))

    def _names(self, start: str) -> list[str]:
        like = start.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._rows(f"listing {start}", _LIST_ROWS, (self.store, like))
        return [str(r[0]) for r in rows]

    # -- the protocol ------------------------------------------------------------------------------

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """Every ``(identity, env)`` kept (of ``identity`` only), sorted."""
        found = [m.groups() for n in self._names(f"paths/{identity or ''}") if (m := _PATH.fullmatch(n))]
        return sorted((i, e) for i, e in found if identity is None or i == identity)

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """One path and its version."""
        return self._read(f"paths/{identity}-{env}.json", max_bytes)

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 2."""
        return self._write(f"paths/{identity}-{env}.json", data, expect)

    def remove(self, identity: str, env: str) -> None:
        """Forget one path."""
        self._delete(f"paths/{identity}-{env}.json")

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """Rule 1: rename the row to ``aside/<name><suffix>`` (over an older copy)."""
        name = f"paths/{identity}-{env}.json"
        aside = f"aside/{identity}-{env}.json{suffix}"
        self._delete(aside)
        moved = self._count(
            f"setting {name} aside",
            _RENAME_ROW,
            (aside, self.store, name),
        )
        if moved != 1:
            raise FileNotFoundError(f"{self.url}/{name}")
        return f"{self.url}/{aside}"

    def where(self, identity: str, env: str) -> str:
        """The row, for people."""
        return f"{self.url}/paths/{identity}-{env}.json"

    def documents(self, prefix: str) -> list[str]:
        """Documents whose names start with ``prefix``, sorted."""
        if prefix.partition("/")[0] not in DOCUMENT_KINDS:
            raise ValueError(f"a document prefix starts with a kind ({', '.join(DOCUMENT_KINDS)}/), not {prefix!r}")
        found = []
        for name in self._names(prefix):
            try:
                check_document_name(name)
            except ValueError:
                continue
            found.append(name)
        return sorted(found)

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """One document and its version."""
        check_document_name(name)
        return self._read(name, max_bytes)

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 2."""
        check_document_name(name)
        return self._write(name, data, expect)

    def remove_document(self, name: str) -> None:
        """Forget one document."""
        check_document_name(name)
        self._delete(name)

    def where_document(self, name: str) -> str:
        """The row, for people."""
        check_document_name(name)
        return f"{self.url}/{name}"
