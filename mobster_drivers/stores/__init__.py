"""The path stores a setting names, opened: local, committed, S3 and PostgreSQL; read-only and signed.

Rule 1 (the setting): ``paths`` is ``local``, ``committed``, ``s3://BUCKET[/PREFIX][?endpoint=URL&
        region=R]`` or ``postgresql://…`` / ``postgres://…`` (a libpq URI; ``#NAME`` keeps several
        projects in one database). ``${NAME}`` anywhere in it is the environment's ``NAME`` (a
        whole connection string from a CI secret); an unset one is a one-line error naming it.
Rule 2 (never printed): a store is shown by its setting with the URL's password masked
        (``postgresql://ci:***@db/mobster``; a query's ``password=``, ``sslpassword=`` or token
        too) and ``${NAME}`` as written, never its value. An error the client library says (which
        may quote a piece of the connection string) is said with those secrets masked.
Rule 3: a literal password in the config's ``paths`` is refused (the config is committed): write
        ``${NAME}`` and set it in the environment (:func:`check_setting`, ``committed=True``). An
        ``s3://`` URL holds no credentials at all, in its endpoint neither (boto3's chain has them).
Rule 4: ``paths-write = false`` (a pull request's job): the store is read, never written; what
        the run records or heals goes to the project's bundle folder (``.mobster/cache/read-only/``,
        ``mobster_core.paths.ReadOnlyPaths``), exported for the artifact.
Rule 5: ``paths-key = "${NAME}"``: every document is signed with the environment's ``NAME``
        (``mobster_core.paths.SignedPaths``), and one without a good signature is refused and
        recorded again. The key comes from the environment only, and is never printed.
Rule 6: a shared remote store (S3, PostgreSQL) takes the recording lease (``paths-lease`` seconds,
        default 60; ``paths-wait`` seconds a run waits for another's recording, default 900);
        ``local`` and ``committed`` take none (one machine: the project's lock serializes it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from mobster_core.paths import LeasePolicy
    from mobster_core.protocols import PathStore

__all__ = [
    "REMOTE_SCHEMES",
    "check_setting",
    "expand",
    "is_remote",
    "lease_policy",
    "open_store",
    "shown",
]

#: Rule 1: the schemes of a remote store.
REMOTE_SCHEMES = ("s3", "postgresql", "postgres")
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WHOLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]")
_S3_KEYS = frozenset({"endpoint", "region"})
#: Rule 2: a query key whose value is a secret (libpq's ``password``, ``sslpassword``; a token).
_SECRET_QUERY = re.compile(r"((?:^|&)[^=&]*(?:pass|secret|token)[^=&]*=)([^&]*)", re.IGNORECASE)
#: Rule 2: the user and password of a URL inside a query value (an S3 ``?endpoint=https://KEY:SECRET@host``).
_USERINFO = re.compile(r"//[^/?#@&]*@")
_FORMS = 'local, committed, s3://BUCKET/PREFIX, postgresql://HOST/DB, or "${NAME}" for one from the environment'


def is_remote(setting: str) -> bool:
    """Rule 1: whether the setting names a remote store (a ``${NAME}`` is, once expanded)."""
    return setting.split(":", 1)[0].lower() in REMOTE_SCHEMES or _REFERENCE.search(setting) is not None


def check_setting(setting: object, *, committed: bool = False) -> str:
    """Rules 1, 3: the setting as written, or ``ValueError`` saying what a setting may be."""
    if not isinstance(setting, str) or not setting.strip():
        raise ValueError(f"write one of {_FORMS}")
    value = setting.strip()
    if value in ("local", "committed") or _WHOLE.fullmatch(value):
        return value
    scheme = value.split(":", 1)[0].lower()
    if scheme not in REMOTE_SCHEMES or "://" not in value:
        raise ValueError(f"{shown(value)!r} is no path store: write one of {_FORMS}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - urlsplit checks the port only when asked
    except ValueError as exc:
        raise ValueError(f"{shown(value)!r} is no URL ({exc}): write one of {_FORMS}") from None
    if committed and parts.password and not _REFERENCE.fullmatch(parts.password):
        raise ValueError(
            f"{shown(value)}: the config is committed, so it holds no password: write the password as "
            '${NAME} (paths = "postgresql://user:${PG_PASSWORD}@host/db") or the whole string as "${NAME}", '
            "and set NAME in the environment"
        )
    if scheme == "s3":
        _check_s3(value)  # its query takes endpoint and region only
    literal = [m.group(2) for m in _SECRET_QUERY.finditer(parts.query) if not _REFERENCE.fullmatch(m.group(2))]
    if committed and any(literal):
        raise ValueError(
            f"{shown(value)}: the config is committed, so it holds no password: write the query's secret as "
            '${NAME} (?sslpassword=${PG_SSL_PASSWORD}) or the whole string as "${NAME}", and set NAME in the '
            "environment"
        )
    return value


def _check_s3(value: str) -> None:
    parts = urlsplit(value)
    endpoints = parse_qs(parts.query, keep_blank_values=True).get("endpoint", [])
    if parts.username or parts.password or any(_USERINFO.search(e) for e in endpoints):
        raise ValueError(
            f"{shown(value)}: an s3:// URL (and its endpoint) holds no credentials: boto3 takes them from the "
            "environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or a profile"
        )
    if not _REFERENCE.search(parts.netloc) and not _BUCKET.fullmatch(parts.netloc):
        raise ValueError(f"{shown(value)}: {parts.netloc!r} is no bucket name (3-63 lowercase letters, digits, . -)")
    unknown = sorted(set(parse_qs(parts.query, keep_blank_values=True)) - _S3_KEYS)
    if unknown:
        raise ValueError(f"{shown(value)}: unknown key {unknown[0]!r}: an s3:// URL takes ?endpoint=URL&region=NAME")


def shown(setting: str) -> str:
    """Rule 2: the setting with its URL's password masked (a query's ``password=``, too); ``${NAME}`` as written."""
    try:
        parts = urlsplit(setting)
        password = parts.password
    except ValueError:
        return re.sub(r"//[^/@]*@", "//***@", setting)
    query = _SECRET_QUERY.sub(lambda m: m.group(1) + ("***" if not _REFERENCE.fullmatch(m.group(2)) else m.group(2)),
                              parts.query)  # fmt: skip
    query = _USERINFO.sub("//***@", query)
    parts = parts._replace(query=query)
    if not password or _REFERENCE.fullmatch(password):
        return parts.geturl() if query != urlsplit(setting).query else setting
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def expand(setting: str, env: Mapping[str, str]) -> str:
    """Rule 1: ``${NAME}`` replaced by the environment's ``NAME``; ``ValueError`` naming an unset one."""

    def value(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in env or not env[name]:
            raise ValueError(f"the path store {shown(setting)} names ${{{name}}}, and {name} isn't set: set it")
        return env[name]

    return _REFERENCE.sub(value, setting)


def _open_remote(setting: str, env: Mapping[str, str]) -> PathStore:
    if _REFERENCE.search(setting) is None:
        check_setting(setting)  # written out: its own line says what is wrong, masked (Rule 2)
    value = expand(setting, env)
    try:
        check_setting(value)
    except ValueError:
        # Rule 2: the value came from the environment and may be a secret in any form: never shown.
        raise ValueError(
            f"the path store {shown(setting)} (from the environment) is no store: its value must be an "
            "s3://BUCKET/PREFIX or postgresql://… URL (a libpq keyword string such as host=… password=… isn't taken)"
        ) from None
    parts = urlsplit(value)
    if parts.scheme.lower() == "s3":
        from ._s3 import S3Paths

        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        return S3Paths(parts.netloc, parts.path, endpoint=query.get("endpoint"), region=query.get("region"))
    from ._postgres import PostgresPaths

    conninfo = parts._replace(fragment="").geturl()
    return PostgresPaths(conninfo, store=parts.fragment or "default", shown=_shown_remote(setting, value))


def _shown_remote(setting: str, value: str) -> str:
    """Rule 2: how the store is named: the setting as written when it names ``${NAME}``, else masked."""
    return shown(setting) if _REFERENCE.search(setting) and not _WHOLE.fullmatch(setting) else shown(value)


def open_store(
    setting: str, root: Path, *, env: Mapping[str, str], write: bool = True, key: str | None = None
) -> str | PathStore:
    """Rules 1, 4, 5: the store a run or ``mobster paths`` uses: a built-in's name, or the store itself.

    ``key`` is the ``paths-key`` setting (``${NAME}``); ``write`` False wraps the store read-only.
    """
    from mobster_core.paths import BUNDLE_DIR, BundlePaths, ReadOnlyPaths, SignedPaths, TeamKey, path_store

    plain = setting in ("local", "committed")
    if plain and write and key is None:
        return setting
    store: PathStore = path_store(root, setting) if plain else _open_remote(setting, env)
    if key is not None:
        if not _WHOLE.fullmatch(key.strip()):
            raise ValueError('paths-key is the name of the variable that holds the team key: paths-key = "${NAME}"')
        try:
            store = SignedPaths(store, TeamKey(expand(key.strip(), env)))
        except ValueError as exc:
            raise ValueError(f"paths-key {key.strip()}: {exc}") from None
    if not write:
        store = ReadOnlyPaths(store, BundlePaths(root / BUNDLE_DIR))
    return store


def lease_policy(setting: str, *, lease_s: float | None = None, wait_s: float | None = None) -> LeasePolicy | None:
    """Rule 6: the recording lease a run of this store takes (None: a local or committed store takes none)."""
    from mobster_core.paths import LeasePolicy

    if not is_remote(setting):
        return None
    given = {"lease_s": lease_s, "wait_s": wait_s}
    return LeasePolicy(**{k: v for k, v in given.items() if v is not None})
