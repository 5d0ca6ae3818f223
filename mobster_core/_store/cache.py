"""The replay cache: one recorded path per check identity and env.

A path lives in ``<root>/.mobster/cache/replay/<identity>-<env digest>.json``::

    {"format": 2, "identity": "…", "env": {"digest", "app_version", "app_build", "ios_major", "kind"},
     "recorded_at": "2026-05-01T09:30:00.123456+00:00", "seq": 3, "steps": [{…}, …]}

(Format 2: every target keeps ``count`` and ``nth``. Format 1 had neither.)

Rule 1: files are written atomically, mode 0600, in 0700 folders (``_fsutil``), and every store
        makes sure ``.mobster/.gitignore`` exists.
Rule 2: ``seq`` is one more than the highest ``seq`` among the identity's readable files: "newest"
        is decided by ``seq``, never by a clock or a file time.
Rule 3: an identity keeps its four newest envs (by ``seq``); storing a fifth deletes the oldest.
Rule 4: a cache file is at most :data:`MAX_CACHE_BYTES` (8 MiB); a larger one is dropped.
Rule 5: a file that can't be used is dropped, never followed and never a crash: the lookup
        misses, logs the file and the reason, and reports it in :attr:`Lookup.dropped`.

        - A refused unsafe file (a symlink, another user's file, a mode wider than 0600, something
          that isn't a regular file) is left in place untouched: it may not be ours to move. The
          message says to delete it. A later store of the same env renames a new file over the
          name (a rename replaces a symlink itself, never its target).
        - A corrupt file of our own (not UTF-8, not JSON, too large, a wrong envelope, a step that
          fails validation) is renamed aside to ``<name>.corrupt``, kept for inspection and out of
          the way of the next recording (one ``.corrupt`` per name, the latest wins).
        - A file of our own in another format (an older Mobster's, whose steps replay under an
          older matcher rule, or a newer one's) is never replayed: it is renamed aside to
          ``<name>.format<N>`` the same way, and a lookup of its own env says why it records afresh.
Rule 6: readers skip ``.tmp-*`` files and every name that isn't ``<identity>-<env>.json``.
Rule 7: a miss names the newest readable path of another env recorded in the same locale
        (:attr:`Lookup.carry`): a run that carries paths to a new build replays it. A path is never
        carried into another language: its labels are that language's.
Rule 8: :func:`recorded_paths` lists a check's readable paths, newest first, for people and tools.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.identity import ENV_DIGEST_LENGTH, IDENTITY_LENGTH, Env, why_fresh
from mobster_core._rules.steps import Step, dump_path, load_path
from mobster_core._rules.text import utf8
from mobster_core.exceptions import PathError

from .checks import Check, project_of
from .fsutil import (
    MOBSTER_DIR,
    Problem,
    UnsafeFile,
    atomic_write,
    ensure_gitignore,
    private_dir,
    read_private,
)

__all__ = [
    "FORMAT",
    "KEEP_ENVS",
    "MAX_CACHE_BYTES",
    "Lookup",
    "RecordedPath",
    "ReplayCache",
    "StoredEnv",
    "StoredPath",
    "recorded_paths",
]

log = get_logger(__name__)

#: The largest cache file read or written, in bytes (Rule 4).
MAX_CACHE_BYTES = 8 * 1024 * 1024
#: How many envs an identity keeps (Rule 3).
KEEP_ENVS = 4

#: The cache file's format: 2 since targets keep ``count`` and ``nth``.
FORMAT = 2
_FORMAT = FORMAT
_KEYS = ("format", "identity", "env", "recorded_at", "seq", "steps")
_IDENTITY = re.compile(rf"[0-9a-f]{{{IDENTITY_LENGTH}}}")
_FILE_NAME = re.compile(rf"([0-9a-f]{{{IDENTITY_LENGTH}}})-([0-9a-f]{{{ENV_DIGEST_LENGTH}}})\.json")
_UNSAFE = frozenset({Problem.SYMLINK, Problem.NOT_REGULAR, Problem.OWNER, Problem.MODE})


@attrs.frozen
class StoredEnv:
    """One stored path of an identity: its env, ``seq``, when it was recorded, its file."""

    env: Env
    seq: int
    recorded_at: datetime
    path: Path
    step_count: int


@attrs.frozen
class StoredPath:
    """One stored path and its steps."""

    stored: StoredEnv
    steps: tuple[Step, ...]


@attrs.frozen
class Lookup:
    """What a lookup found: the path to replay, or why the run records afresh.

    ``steps`` is None on a miss, and ``why`` then says why (``why_fresh`` against the newest
    readable stored env of the identity, or why this env's own file was set aside).
    ``dropped`` has one message per file dropped. ``carry`` is, on a miss, the newest readable
    path of another env (Rule 7).
    """

    steps: tuple[Step, ...] | None
    why: str | None
    dropped: tuple[str, ...] = ()
    carry: StoredPath | None = None

    @property
    def hit(self) -> bool:
        """True when there is a path to replay."""
        return self.steps is not None


_Record = StoredPath


_CORRUPT = ".corrupt"


class _Dropped(Exception):
    def __init__(self, message: str, suffix: str = _CORRUPT) -> None:
        super().__init__(message)
        self.message = message
        self.suffix = suffix


class ReplayCache:
    """The replay cache of the project at ``root`` (the folder that holds ``.mobster/``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / MOBSTER_DIR / "cache" / "replay"

    def file_for(self, identity: str, env: Env) -> Path:
        """The file that holds ``identity``'s path for ``env``."""
        _check_identity(identity)
        return self.folder / f"{identity}-{env.digest}.json"

    def lookup(self, identity: str, env: Env) -> Lookup:
        """The stored path of ``identity`` for ``env``, or why there is none (Rule 5)."""
        _check_identity(identity)
        try:
            files = self._files(identity)
        except UnsafeFile as exc:
            log.warning("replay cache folder refused", file=str(exc.path), reason=exc.reason)
            return Lookup(None, why_fresh(env, None), (str(exc),))
        except OSError as exc:
            log.warning("replay cache folder unreadable", file=str(self.folder), reason=exc.strerror)
            return Lookup(None, why_fresh(env, None), (f"the replay cache {self.folder} can't be read: {exc}",))
        dropped: list[str] = []
        mine = files.pop(env.digest, None)
        set_aside: list[str] = []
        if mine is not None:
            record = self._load(mine, identity, env.digest, dropped, set_aside)
            if record is not None:
                log.debug("replay cache hit", file=str(mine), steps=len(record.steps))
                return Lookup(record.steps, None, ())
        others = [r for d, f in files.items() if (r := self._load(f, identity, d, dropped)) is not None]
        newest = max(others, key=_newest_key) if others else None
        why = why_fresh(env, None if newest is None else newest.stored.env)
        if set_aside:
            why = f"the path recorded here was set aside: {set_aside[0]}"
        # Rule 7: a path is carried to a new build only in its own language: its labels are that language's.
        same_language = [r for r in others if r.stored.env.locale == env.locale]
        carry = max(same_language, key=_newest_key) if same_language else None
        return Lookup(None, why, tuple(dropped), carry)

    def store(self, identity: str, env: Env, steps: Sequence[Step], *, recorded_at: datetime) -> Path:
        """Store ``steps`` as ``identity``'s path for ``env``; keep the four newest envs (Rules 2, 3).

        ``recorded_at`` (timezone-aware) is informational: order comes from ``seq``.
        Raises :class:`PathError` when the path is larger than :data:`MAX_CACHE_BYTES`, and
        :class:`UnsafeFile` when a cache folder is a symlink or another user's.
        """
        target = self.file_for(identity, env)
        ensure_gitignore(self.root)
        when = recorded_at.astimezone(UTC)
        records = self._records(identity)
        seq = 1 + max((r.stored.seq for r in records), default=0)
        payload = {
            "format": _FORMAT,
            "identity": identity,
            "env": env.to_dict(),
            "recorded_at": when.isoformat(timespec="microseconds"),
            "seq": seq,
            "steps": dump_path(steps),
        }
        data = utf8(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        if len(data) > MAX_CACHE_BYTES:
            raise PathError(
                f"the path of {len(steps)} steps is {len(data)} bytes, over the replay cache's limit of "
                f"{MAX_CACHE_BYTES} bytes; it is not stored"
            )
        atomic_write(target, data)
        log.debug("replay path stored", file=str(target), seq=seq, steps=len(steps))
        kept = sorted((r for r in records if r.stored.path != target), key=_newest_key, reverse=True)
        for old in kept[KEEP_ENVS - 1 :]:
            try:
                old.stored.path.unlink()
            except FileNotFoundError:
                continue
            log.debug("older replay env deleted", file=str(old.stored.path), seq=old.stored.seq)
        return target

    def envs(self, identity: str) -> list[StoredEnv]:
        """The readable stored envs of ``identity``, newest first (unusable files are dropped)."""
        _check_identity(identity)
        return [r.stored for r in sorted(self._records(identity), key=_newest_key, reverse=True)]

    # -- reading -------------------------------------------------------------------------

    def _files(self, identity: str) -> dict[str, Path]:
        """``identity``'s files by env digest (Rule 6); empty when there is no cache folder."""
        if not os.path.lexists(self.folder):
            return {}
        private_dir(self.folder)
        found: dict[str, Path] = {}
        with os.scandir(self.folder) as entries:
            for entry in entries:
                m = _FILE_NAME.fullmatch(entry.name)
                if m is not None and m.group(1) == identity:
                    found[m.group(2)] = Path(entry.path)
        return found

    def _records(self, identity: str) -> list[_Record]:
        dropped: list[str] = []
        loaded = (self._load(f, identity, d, dropped) for d, f in self._files(identity).items())
        return [r for r in loaded if r is not None]

    def _load(
        self, file: Path, identity: str, env_digest: str, dropped: list[str], formats: list[str] | None = None
    ) -> _Record | None:
        """Read one cache file; on any flaw drop it (Rule 5), add the message, return None.

        A file set aside for its format also adds the reason to ``formats``.
        """
        suffix = _CORRUPT
        try:
            return _parse(file, identity, env_digest)
        except FileNotFoundError:
            return None  # removed since the folder was listed: nothing to say
        except UnsafeFile as exc:
            if exc.problem in _UNSAFE:
                message = f"{file} was dropped and left in place: {exc.reason}; delete it"
                log.warning("replay cache file refused", file=str(file), reason=exc.reason)
                dropped.append(message)
                return None
            reason = exc.reason
        except OSError as exc:
            message = f"{file} was dropped and left in place: it can't be read ({exc.strerror}); delete it"
            log.warning("replay cache file unreadable", file=str(file), reason=exc.strerror)
            dropped.append(message)
            return None
        except _Dropped as exc:
            reason, suffix = exc.message, exc.suffix
            if suffix != _CORRUPT and formats is not None:
                formats.append(reason)
        aside = file.with_name(file.name + suffix)
        try:
            file.replace(aside)
        except OSError as exc:
            message = f"{file} was dropped: {reason}; it couldn't be moved aside ({exc.strerror}); delete it"
        else:
            message = f"{file} was dropped: {reason}; kept as {aside.name}, the next run records a new path"
        log.warning("replay cache file dropped", file=str(file), reason=reason)
        dropped.append(message)
        return None


@attrs.frozen
class RecordedPath:
    """A path recorded for a check (Rule 8).

    ``env`` says where it was recorded, in words (``1.0 (1) on iOS 26 on a simulator``), and
    ``env_digest`` as its 12-hex-digit key; ``recorded_at`` is when (UTC); ``steps`` are the steps
    it replays; ``file`` is where it is kept.
    """

    env: str
    env_digest: str
    recorded_at: datetime
    steps: tuple[Step, ...]
    file: Path


def recorded_paths(check: Check, root: Path | None = None) -> tuple[RecordedPath, ...]:
    """The readable recorded paths of ``check``, newest first (Rule 8).

    ``root`` is the project (by default the one holding the check file). A file that can't be
    used is dropped by the cache's rules (Rule 5), as a run would.
    """
    cache = ReplayCache(root or project_of(check.file))
    identity = check.identity
    paths = []
    for stored in cache.envs(identity):
        steps = cache.lookup(identity, stored.env).steps
        if steps is not None:
            paths.append(RecordedPath(stored.env.describe(), stored.env.digest, stored.recorded_at, steps, stored.path))
    return tuple(paths)


def _check_identity(identity: str) -> None:
    if not isinstance(identity, str) or not _IDENTITY.fullmatch(identity):
        raise ValueError(f"an identity is {IDENTITY_LENGTH} lowercase hex digits, got {identity!r}")


def _newest_key(record: _Record) -> tuple[int, datetime, str]:
    s = record.stored
    return (s.seq, s.recorded_at, s.path.name)


def _drop(reason: str) -> NoReturn:
    raise _Dropped(reason)


def _no_constant(name: str) -> NoReturn:
    _drop(f"it is not valid JSON ({name} is not a number)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            _drop(f"it is not valid JSON (the key {key!r} appears twice)")
        result[key] = value
    return result


def _parse(file: Path, identity: str, env_digest: str) -> _Record:
    """Read and validate one file; raises ``_Dropped``, ``UnsafeFile`` or ``OSError``."""
    data = _envelope(read_private(file, max_bytes=MAX_CACHE_BYTES))
    if data["identity"] != identity:
        _drop(f"key 'identity': the file is named for {identity}, but holds {data['identity']!r}")
    try:
        env = Env.from_dict(data["env"])
    except ValueError as exc:
        _drop(str(exc))
    if env.digest != env_digest:
        _drop(f"key 'env': the file is named for env {env_digest}, but holds env {env.digest}")
    recorded_at = _timestamp(data["recorded_at"])
    seq = data["seq"]
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        _drop(f"key 'seq': expected a whole number from 1 up, got {seq!r}")
    try:
        steps = load_path(data["steps"])
    except PathError as exc:
        _drop(f"key 'steps': {exc}")
    return _Record(StoredEnv(env, seq, recorded_at, file, len(steps)), steps)


def _envelope(raw: bytes) -> dict[str, Any]:
    """The file as a JSON object with exactly the keys of this format (Rule 5's corrupt files)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        _drop(f"it is not UTF-8 text (byte {exc.start})")
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        _drop(f"it is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    except RecursionError:
        _drop("it is not valid JSON (nested too deeply)")
    if not isinstance(data, dict):
        _drop(f"expected a JSON object, got {type(data).__name__}")
    _check_format(data.get("format"))
    extra = sorted(k for k in data if k not in _KEYS)
    if extra:
        _drop(f"unknown key {extra[0]!r}")
    missing = [k for k in _KEYS if k not in data]
    if missing:
        _drop(f"key {missing[0]!r} is missing")
    if data["format"] != _FORMAT or isinstance(data["format"], bool):
        _drop(f"key 'format': expected {_FORMAT}, got {data['format']!r}")
    return data


def _check_format(value: Any) -> None:
    """Rule 5: a path of another format is set aside, never replayed (a missing one is corrupt)."""
    if isinstance(value, bool) or not isinstance(value, int) or value == _FORMAT or not 1 <= value < 1000:
        return  # ours, or not a format number at all: the envelope's checks say what is wrong
    if value < _FORMAT:
        why = (
            f"it is in format {value} of an older Mobster, whose steps don't record how many times their "
            f"label was on the screen (this Mobster reads format {_FORMAT})"
        )
    else:
        why = f"it is in format {value} of a newer Mobster (this Mobster reads format {_FORMAT})"
    raise _Dropped(why, f".format{value}")


def _timestamp(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if when.utcoffset() is not None:
                return when.astimezone(UTC)
    _drop(f"key 'recorded_at': expected an ISO-8601 time with a UTC offset, got {value!r}")
