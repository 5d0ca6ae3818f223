"""The replay cache: one recorded path per check identity and env, in the project's path store.

A path is one document of its store (``pathstores.py``: ``local``, by default
``<root>/.mobster/cache/replay/<identity>-<env digest>.json``, or ``committed``,
``<root>/.mobster/paths/…``, or a harness's own ``protocols.PathStore``)::

    {"format": 2, "identity": "…", "env": {"digest", "app_version", "app_build", "ios_major", "kind",
     "locale", "appearance"}, "recorded_at": "2026-05-01T09:30:00.123456+00:00", "seq": 3,
     "steps": [{…}, …], "origin": {"how": "recorded", "from": null, "check": ".mobster/checks/signup.yaml"}}

(Format 2: every target keeps ``count`` and ``nth``. Format 1 had neither. ``origin`` may be
absent: a path stored before it was written.)

Rule 1: files are written atomically, mode 0600, in 0700 folders (``_fsutil``), and every store
        makes sure ``.mobster/.gitignore`` exists.
Rule 2: ``seq`` is one more than the highest ``seq`` among the identity's readable files: "newest"
        is decided by ``seq``, never by a clock or a file time.
Rule 3: an identity keeps its four newest envs of each platform (by ``seq``); storing a fifth deletes
        the oldest of its platform, so recording on Android never deletes an iOS path.
Rule 4: a cache file is at most :data:`MAX_CACHE_BYTES` (8 MiB); a larger one is dropped.
Rule 5: a file that can't be used is dropped, never followed and never a crash: the lookup
        misses, logs the file and the reason, and reports it in :attr:`Lookup.dropped`.

        - A refused unsafe file (a symlink, another user's file, a mode wider than 0600, something
          that isn't a regular file) is left in place untouched: it may not be ours to move. The
          message says to delete it. A later store of the same env renames a new file over the
          name (a rename replaces a symlink itself, never its target).
        - A corrupt file of our own (not UTF-8, not JSON, too large, a wrong envelope, a step that
          fails validation) is renamed aside to ``<name>.corrupt``, kept for inspection and out of
          the way of the next recording (one ``.corrupt`` per name, the latest wins); in a shared
          store it is left as it is (Rule 12).
        - A file of our own in another format (an older Mobster's, whose steps replay under an
          older matcher rule, or a newer one's) is never replayed: it is renamed aside to
          ``<name>.format<N>`` the same way, and a lookup of its own env says why it records afresh.
        - A path a signed store refuses (``signing`` Rule 2: unsigned, forged) is renamed aside to
          ``<name>.unsigned`` or ``<name>.forged`` the same way: never replayed, recorded again;
          in a shared store it is left as it is (Rule 12) and the recording replaces it.
Rule 6: readers skip ``.tmp-*`` files and every name that isn't ``<identity>-<env>.json``.
Rule 7: a miss names the newest readable path of another env recorded on the same platform in the
        same locale (:attr:`Lookup.carry`): a run that carries paths to a new build replays it. A
        path is never carried into another language (its labels are that language's) nor to the
        other platform (its roles and tree paths are that platform's).
Rule 8: :func:`recorded_paths` lists a check's readable paths, newest first, for people and tools.
Rule 9: ``origin`` says how a path came to be: ``recorded`` by Smart, ``carried`` from another
        build's env (``from`` names it), or ``healed`` (heals accepted into it), and which check
        file stored it.
Rule 11: a path recorded on another machine (``mobster paths import``) takes its place by when it
        was recorded (``seq`` counts within one store only): the identity's paths are numbered
        again in ``recorded_at`` order, and the four newest of each platform kept. ``seq`` stays the order within a
        store; ``recorded_at`` orders paths that come from two.
Rule 12: a document of a ``shared`` store (committed, reviewed in git; a remote store others
        read) is never renamed, removed or rewritten by a lookup, a listing or an export: one that
        can't be used (corrupt, in another format, or refused by a signed store: unsigned,
        forged) is dropped and said, naming it and the fix, and left byte for byte, so a replay
        (``--no-heal`` above all) changes no committed file and a reader never writes a team's
        store (an object store has no rename: a reader's copy-and-delete could remove the path
        another machine stored in between). Nothing of it is replayed. Only a run that records
        replaces it, writing its new path under the same name over the version the lookup saw
        (:attr:`Lookup.tag`, Rule 13: a change the pull request shows), as ``mobster paths
        forget`` and an import may.
Rule 13 (conditional writes): every write expects the version of the document it replaces
        (the store's Rule 7). A run's recording expects what its lookup saw (:attr:`Lookup.tag`:
        a path of this env there, usable or left in place by Rule 12, or none): when another
        machine stored that env's path since, the write loses, nothing is written and the
        winner's path stays (two writers racing on one document: one wins, the other keeps the
        winner's; never a lost update). An import and a review's accept expect the version they
        read just before.
Rule 14 (provenance): a path says who recorded it (``recorded_by``: the machine, the CI build, the
        device and the model, each or null; when is ``recorded_at``); ``mobster paths show``
        shows it. It is informational: nothing is decided by it.
Rule 10: a store that is ``shared`` (committed, reviewed in git) gets each path written
        deterministically (sorted keys, two-space indentation, a final newline: a re-record is a
        readable diff) and never holds text the typing rules would not replay: a ``TYPE`` step
        that isn't live must hold text the check's own words allow (or a search field's query);
        anything else is a :class:`PathError` and nothing is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.formats.text import utf8
from mobster_core._rules.replay.identity import IDENTITY_LENGTH, Env, why_fresh
from mobster_core._rules.replay.typing_rules import SEARCH_ROLES, Provenance
from mobster_core._rules.vocabulary.steps import Op, Step, dump_path, load_path
from mobster_core.exceptions import PathError, StoreUnavailable

from .checks import Check, project_of
from .fsutil import Problem, UnsafeFile, ensure_gitignore
from .pathstores import STORE_NAMES, CommittedPaths, FilePaths, LocalPaths, PathStore, Versioned

__all__ = [
    "FORMAT",
    "KEEP_ENVS",
    "LATEST",
    "MAX_CACHE_BYTES",
    "DocumentError",
    "Kept",
    "Latest",
    "Lookup",
    "Origin",
    "RecordedBy",
    "RecordedPath",
    "Recording",
    "ReplayCache",
    "StoredEnv",
    "StoredPath",
    "check_name",
    "parse_document",
    "path_store",
    "recorded_paths",
    "shared_text_problem",
    "stored_version",
    "write_won",
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
_OPTIONAL_KEYS = ("origin", "recorded_by", "signature")
_BY_KEYS = ("machine", "build", "device", "model")
_ORIGIN_KEYS = ("how", "from", "check")
_HOWS = ("recorded", "carried", "healed")
_IDENTITY = re.compile(rf"[0-9a-f]{{{IDENTITY_LENGTH}}}")
_UNSAFE = frozenset({Problem.SYMLINK, Problem.NOT_REGULAR, Problem.OWNER, Problem.MODE})
_REFUSED = frozenset({Problem.UNSIGNED, Problem.FORGED})


class Latest:
    """The version of a document there now, as :meth:`ReplayCache.keep_path` reads it before writing."""


#: Rule 13: a write that replaces the version read just before (an import, a review's accept).
LATEST = Latest()


def stored_version(store: PathStore, got: object) -> Versioned:
    """A store's read as the protocol says it (a :class:`Versioned`); ``TypeError`` naming the store otherwise."""
    if not isinstance(got, Versioned):
        raise TypeError(
            f"the {store.name} store's read gave {type(got).__name__}, not a Versioned(data, tag): a PathStore's "
            "reads give the document's version tag and its writes are conditional (docs/paths.md)"
        )
    return got


def write_won(store: PathStore, won: object) -> bool:
    """A store's conditional write as the protocol says it (a bool); ``TypeError`` naming the store otherwise."""
    if not isinstance(won, bool):
        raise TypeError(
            f"the {store.name} store's write gave {type(won).__name__}, not whether it won: a PathStore's writes "
            "are conditional (expect=None creates only, a tag replaces only that version; docs/paths.md)"
        )
    return won


def path_store(root: Path, paths: str | PathStore = "local") -> PathStore:
    """The store a setting names: ``"local"``, ``"committed"``, or a harness's own store as it is."""
    if not isinstance(paths, str):
        return paths
    if paths == "local":
        return LocalPaths(root)
    if paths == "committed":
        return CommittedPaths(root)
    raise ValueError(f"paths is one of {', '.join(STORE_NAMES)}, or a PathStore; got {paths!r}")


@attrs.frozen
class RecordedBy:
    """Rule 14: who recorded a path: the machine, the CI build, the device and the model (each may be unknown)."""

    machine: str | None = None
    build: str | None = None
    device: str | None = None
    model: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        """The ``recorded_by`` key of a path document."""
        return {"machine": self.machine, "build": self.build, "device": self.device, "model": self.model}

    def describe(self) -> str:
        """In words, for ``mobster paths show`` (``on ci-7, build 1234, iPhone 17 (sim), model claude-...``)."""
        parts = [
            f"on {self.machine}" if self.machine else None,
            f"build {self.build}" if self.build else None,
            f"device {self.device}" if self.device else None,
            f"model {self.model}" if self.model else None,
        ]
        return ", ".join(p for p in parts if p) or "by an unknown machine"


@attrs.frozen
class Origin:
    """Rule 9: how a path came to be, and which check file stored it; Rule 14: who recorded it (``by``).

    ``provenance`` (the check's own words, never stored) is what a shared store's text is checked
    against (Rule 10).
    """

    how: str = "recorded"
    came_from: str | None = None
    check: str | None = None
    provenance: Provenance = attrs.field(factory=Provenance, eq=False, repr=False)
    by: RecordedBy | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``origin`` key of a path document."""
        return {"how": self.how, "from": self.came_from, "check": self.check}


@attrs.frozen
class StoredEnv:
    """One stored path of an identity: its env, ``seq``, when it was recorded, its file."""

    env: Env
    seq: int
    recorded_at: datetime
    path: Path
    step_count: int
    origin: Origin | None = None
    #: The store's version tag of the document as it was read (the store's Rule 7).
    tag: str | None = attrs.field(default=None, eq=False, repr=False)
    #: Where it is kept in the store's own words (a file, an ``s3://`` or ``postgresql://`` URL).
    where: str = attrs.field(default="", eq=False)

    @property
    def shown(self) -> str:
        """Where it is kept, for people: :attr:`where`, else the file."""
        return self.where or str(self.path)


@attrs.frozen
class Recording:
    """A path to store: its steps, when they were recorded (timezone-aware) and how they came (Rules 2, 9, 13)."""

    steps: tuple[Step, ...]
    recorded_at: datetime
    origin: Origin | None = None


@attrs.frozen
class Kept:
    """What storing a path did (Rule 13): where it is kept, and whether this write won (False: another's stays)."""

    file: Path
    won: bool


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
    path of another env (Rule 7). ``tag`` is the version of this env's document the lookup read,
    one it replays or one it left in place (Rule 12; None: none is there): what a recording of this
    env expects (Rule 13).
    """

    steps: tuple[Step, ...] | None
    why: str | None
    dropped: tuple[str, ...] = ()
    carry: StoredPath | None = None
    tag: str | None = attrs.field(default=None, eq=False)

    @property
    def hit(self) -> bool:
        """True when there is a path to replay."""
        return self.steps is not None


_Record = StoredPath


_CORRUPT = ".corrupt"


class DocumentError(Exception):
    """A path document that can't be used: ``message`` says which key and why (Rule 5)."""

    def __init__(self, message: str, suffix: str = _CORRUPT) -> None:
        super().__init__(message)
        self.message = message
        self.suffix = suffix


class ReplayCache:
    """The recorded paths of the project at ``root`` (the folder that holds ``.mobster/``), in ``store``.

    ``store`` is ``"local"`` (the default), ``"committed"`` or a :class:`~mobster_core.protocols.PathStore`
    (kept as :attr:`backend`).
    """

    def __init__(self, root: Path, store: str | PathStore = "local") -> None:
        self.root = root
        self.backend = path_store(root, store)

    @property
    def folder(self) -> Path:
        """The store's folder (a file store only)."""
        backend = self.backend
        if not isinstance(backend, FilePaths):
            raise TypeError(f"the {backend.name} store keeps no folder")
        return backend.folder

    def file_for(self, identity: str, env: Env) -> Path:
        """The file that holds ``identity``'s path for ``env`` (a file store only)."""
        _check_identity(identity)
        return self.folder / f"{identity}-{env.digest}.json"

    def lookup(self, identity: str, env: Env) -> Lookup:
        """The stored path of ``identity`` for ``env``, or why there is none (Rule 5)."""
        _check_identity(identity)
        try:
            digests = self._digests(identity)
        except UnsafeFile as exc:
            log.warning("replay cache folder refused", file=str(exc.path), reason=exc.reason)
            return Lookup(None, why_fresh(env, None), (str(exc),))
        except StoreUnavailable:
            raise  # a remote store that can't be reached: the run can neither replay nor keep a recording
        except OSError as exc:
            where = self.backend.where(identity, "")
            log.warning("replay cache folder unreadable", file=where, reason=exc.strerror)
            folder = str(self.folder) if isinstance(self.backend, FilePaths) else where
            return Lookup(None, why_fresh(env, None), (f"the replay cache {folder} can't be read: {exc}",))
        dropped: list[str] = []
        unusable = _Unusable()
        if env.digest in digests:
            digests.remove(env.digest)
            record = self._load(identity, env.digest, dropped, unusable)
            if record is not None:
                log.debug("replay cache hit", file=str(record.stored.path), steps=len(record.steps))
                return Lookup(record.steps, None, (), tag=record.stored.tag)
        others = [r for d in digests if (r := self._load(identity, d, dropped)) is not None]
        # Rule 5: compared with the newest path of this platform, else the newest of any.
        mine = [r for r in others if r.stored.env.platform is env.platform]
        newest = max(mine or others, key=_newest_key) if others else None
        why = why_fresh(env, None if newest is None else newest.stored.env)
        if unusable.why is not None:
            why = unusable.why
        # Rule 7: a path is carried to a new build only on its own platform and in its own language:
        # its labels are that language's, its roles and paths that platform's.
        same_language = [r for r in mine if r.stored.env.locale == env.locale]
        carry = max(same_language, key=_newest_key) if same_language else None
        return Lookup(None, why, tuple(dropped), carry, tag=unusable.tag)  # Rule 13: a version left in place

    def store_path(
        self, identity: str, env: Env, steps: Sequence[Step], *, recorded_at: datetime, origin: Origin | None = None
    ) -> Path:
        """Store ``steps`` as ``identity``'s path for ``env`` over the version there now (Rules 2, 3, 9, 10, 12).

        :meth:`keep_path` expecting the version read just before; where it is kept.
        """
        return self.keep_path(identity, env, Recording(tuple(steps), recorded_at, origin)).file

    def keep_path(self, identity: str, env: Env, recording: Recording, *, expect: str | Latest | None = LATEST) -> Kept:
        """Store ``steps`` as ``identity``'s path for ``env``; keep the four newest envs (Rules 2, 3, 9, 10, 12).

        ``expect`` is the version of this env's document the write replaces (None: none, create
        only; :data:`LATEST`: the one read now). ``recorded_at`` (timezone-aware) is informational:
        order comes from ``seq``. Raises :class:`PathError` when the path is larger than
        :data:`MAX_CACHE_BYTES` or holds text a shared store may not (checked against
        ``origin.provenance``), and :class:`UnsafeFile` when a folder is refused. A write that
        loses (another writer's version is there) writes and removes nothing.
        """
        _check_identity(identity)
        steps, recorded_at, origin = recording.steps, recording.recorded_at, recording.origin
        if self.backend.shared:
            _check_shared_text(steps, Provenance() if origin is None else origin.provenance)
        ensure_gitignore(self.root)
        records = self._records(identity)
        seq = 1 + max((r.stored.seq for r in records), default=0)
        data = _document(identity, env, steps, (recorded_at, seq, origin), shared=self.backend.shared)
        if isinstance(expect, Latest):
            expect = self._version_there(identity, env.digest, records)
        target = Path(self.backend.where(identity, env.digest))
        if not write_won(self.backend, self.backend.write(identity, env.digest, data, expect=expect)):
            log.debug("replay path not stored: another writer's version is there", file=str(target))
            return Kept(target, won=False)
        log.debug("replay path stored", file=str(target), seq=seq, steps=len(steps))
        # Rule 3: the newest of this platform are kept; the other platform's paths are not this one's to drop.
        mine = (r for r in records if r.stored.env.digest != env.digest and r.stored.env.platform is env.platform)
        kept = sorted(mine, key=_newest_key, reverse=True)
        for old in kept[KEEP_ENVS - 1 :]:
            self.backend.remove(identity, old.stored.env.digest)
            log.debug("older replay env deleted", file=str(old.stored.path), seq=old.stored.seq)
        return Kept(target, won=True)

    def store(self, identity: str, env: Env, steps: Sequence[Step], *, recorded_at: datetime) -> Path:
        """:meth:`store_path` with no origin (a path recorded by Smart)."""
        return self.store_path(identity, env, steps, recorded_at=recorded_at)

    def merge(self, doc: Document, origin: Origin | None = None) -> bool:
        """Rule 11: add a path recorded elsewhere, in the order it was recorded; False when it is kept out.

        It is kept out when this store has the same env recorded at the same time or later, or
        when it is older than the :data:`KEEP_ENVS` newest paths of its identity and platform here.
        """
        _check_identity(doc.identity)
        records = self._records(doc.identity)
        if any(r.stored.env == doc.env and r.stored.recorded_at >= doc.recorded_at for r in records):
            return False
        if self.backend.shared:
            _check_shared_text(doc.steps, Provenance() if origin is None else origin.provenance)
        others = [r for r in records if r.stored.env.digest != doc.env.digest]
        new = _record(doc, Path(self.backend.where(doc.identity, doc.env.digest)))
        platform = doc.env.platform  # Rule 3: each platform keeps its own newest
        order = sorted(
            [*(r for r in others if r.stored.env.platform is platform), new],
            key=lambda r: (r.stored.recorded_at, r.stored.seq),
        )
        mine, dropped = order[-KEEP_ENVS:], order[:-KEEP_ENVS]
        if new not in mine:
            return False
        rest = [r for r in others if r.stored.env.platform is not platform]
        kept = sorted([*rest, *mine], key=lambda r: (r.stored.recorded_at, r.stored.seq))
        ensure_gitignore(self.root)
        here = self._version_there(doc.identity, doc.env.digest, records)
        for seq, record in enumerate(kept, 1):
            if record is new or record.stored.seq != seq:
                meta = (record.stored.recorded_at, seq, origin if record is new else record.stored.origin)
                shared = self.backend.shared
                data = _document(doc.identity, record.stored.env, record.steps, meta, shared=shared)
                expect = here if record is new else record.stored.tag
                won = write_won(
                    self.backend, self.backend.write(doc.identity, record.stored.env.digest, data, expect=expect)
                )
                if record is new and not won:
                    return False  # Rule 13: another writer stored this env meanwhile: theirs stays
        for record in dropped:
            self.backend.remove(doc.identity, record.stored.env.digest)
        return True

    def envs(self, identity: str) -> list[StoredEnv]:
        """The readable stored envs of ``identity``, newest first (unusable files are dropped)."""
        _check_identity(identity)
        return [r.stored for r in sorted(self._records(identity), key=_newest_key, reverse=True)]

    def paths(self, identity: str) -> list[StoredPath]:
        """The readable stored paths of ``identity``, newest first (unusable files are dropped)."""
        _check_identity(identity)
        return sorted(self._records(identity), key=_newest_key, reverse=True)

    def identities(self) -> list[str]:
        """Every identity with at least one document in the store, sorted."""
        return sorted({identity for identity, _env in self.backend.names()})

    def forget(self, identity: str, env: str | None = None) -> list[StoredEnv]:
        """Remove ``identity``'s paths (of the env digest ``env`` only, when given); what was removed."""
        gone = [s for s in self.envs(identity) if env is None or s.env.digest == env]
        for stored in gone:
            self.backend.remove(identity, stored.env.digest)
        return gone

    # -- reading -------------------------------------------------------------------------

    def _digests(self, identity: str) -> list[str]:
        """``identity``'s env digests (Rule 6); empty when the store has none."""
        return [env for _identity, env in self.backend.names(identity)]

    def _version_there(self, identity: str, env_digest: str, records: list[_Record]) -> str | None:
        """Rule 13: the version of ``env_digest``'s document now: a usable one's, else one left in place (Rule 12)."""
        tag = next((r.stored.tag for r in records if r.stored.env.digest == env_digest), None)
        if tag is not None or not self.backend.shared:
            return tag  # a private store sets what it can't use aside: none is left in the way
        try:
            got = stored_version(self.backend, self.backend.read(identity, env_digest, max_bytes=MAX_CACHE_BYTES))
        except UnsafeFile as exc:
            return exc.tag  # refused by a signed store (its version), or no document of ours (none)
        except StoreUnavailable:
            raise
        except OSError:
            return None  # gone, or unreadable: a create (a file store renames over what is no document of ours)
        return got.tag

    def _records(self, identity: str) -> list[_Record]:
        dropped: list[str] = []
        loaded = (self._load(identity, d, dropped) for d in self._digests(identity))
        return [r for r in loaded if r is not None]

    def _load(
        self, identity: str, env_digest: str, dropped: list[str], unusable: _Unusable | None = None
    ) -> _Record | None:
        """Read one document; on any flaw drop it (Rule 5), add the message, return None.

        ``unusable`` (the lookup's own env) learns why the lookup records afresh, for a document
        set aside for its format or any document of a shared store left as it is (Rule 12), and
        the version of the document still there (Rule 13: what the recording replaces).
        """
        where = self.backend.where(identity, env_digest)
        try:
            got = stored_version(self.backend, self.backend.read(identity, env_digest, max_bytes=MAX_CACHE_BYTES))
        except FileNotFoundError:
            return None  # removed since the folder was listed: nothing to say
        except UnsafeFile as exc:
            if exc.problem in _UNSAFE:
                log.warning("replay cache file refused", file=where, reason=exc.reason)
                dropped.append(f"{where} was dropped and left in place: {exc.reason}; delete it")
                return None
            # A signed store's refusal (``signing`` Rule 2) is never replayed; it carries the version read.
            suffix = f".{exc.problem.value}" if exc.problem in _REFUSED else _CORRUPT
            self._drop(identity, env_digest, (exc.reason, suffix, exc.tag), dropped, unusable)
            return None
        except OSError as exc:
            log.warning("replay cache file unreadable", file=where, reason=exc.strerror)
            dropped.append(f"{where} was dropped and left in place: it can't be read ({exc.strerror}); delete it")
            return None
        try:
            return _record(parse_document(got.data, identity, env_digest), Path(where), got.tag, where)
        except DocumentError as exc:
            self._drop(identity, env_digest, (exc.message, exc.suffix, got.tag), dropped, unusable)
            return None

    def _drop(
        self,
        identity: str,
        env_digest: str,
        why: tuple[str, str, str | None],
        dropped: list[str],
        unusable: _Unusable | None,
    ) -> None:
        """Rules 5, 12: a document that can't be used (its reason, the suffix it is set aside with, its version)."""
        reason, suffix, tag = why
        where = self.backend.where(identity, env_digest)
        if self.backend.shared:
            _left_in_place(where, reason, dropped, unusable, tag)
            return
        if suffix != _CORRUPT and unusable is not None:
            unusable.why = f"the path recorded here was set aside: {reason}"
        try:
            aside = self.backend.set_aside(identity, env_digest, suffix)
        except OSError as exc:
            message = f"{where} was dropped: {reason}; it couldn't be moved aside ({exc.strerror}); delete it"
            if unusable is not None:
                unusable.tag = tag  # still there: a recording replaces the version read
        else:
            message = f"{where} was dropped: {reason}; kept as {aside}, the next run records a new path"
        log.warning("replay cache file dropped", file=where, reason=reason)
        dropped.append(message)


@attrs.define
class _Unusable:
    """What a lookup learns of its own env's document that can't be used (Rules 5, 12, 13)."""

    #: Why the lookup records afresh, when the document says more than ``why_fresh`` would.
    why: str | None = None
    #: The version of the document left where it is (None: none is there now).
    tag: str | None = None


def _left_in_place(where: str, reason: str, dropped: list[str], unusable: _Unusable | None, tag: str | None) -> None:
    """Rule 12: a shared store's document that can't be used is said and left exactly as it is."""
    fix = "fix it or delete it; a run that records writes a new path in its place"
    dropped.append(f"{where} can't be used and is left as it is: {reason}; {fix}")
    if unusable is not None:
        unusable.why = f"the path recorded here can't be used (it is left as it is): {reason}"
        unusable.tag = tag
    log.warning("shared path can't be used", file=where, reason=reason)


@attrs.frozen
class RecordedPath:
    """A path recorded for a check (Rule 8).

    ``env`` says where it was recorded, in words (``1.0 (1) on iOS 26 on a simulator``), and
    ``env_digest`` as its 12-hex-digit key; ``recorded_at`` is when (UTC); ``steps`` are the steps
    it replays; ``file`` is where it is kept; ``origin`` how it came to be (Rule 9; None for a path
    stored before that was written).
    """

    env: str
    env_digest: str
    recorded_at: datetime
    steps: tuple[Step, ...]
    file: Path
    origin: Origin | None = None
    #: Where it is kept in the store's own words (``file`` as a file store says it, or a URL).
    where: str = attrs.field(default="", eq=False)


def recorded_paths(
    check: Check, root: Path | None = None, *, paths: str | PathStore = "local"
) -> tuple[RecordedPath, ...]:
    """The readable recorded paths of ``check``, newest first (Rule 8), in the store ``paths`` names.

    ``root`` is the project (by default the one holding the check file). A file that can't be
    used is dropped by the cache's rules (Rule 5), as a run would.
    """
    cache = ReplayCache(root or project_of(check.file), paths)
    return tuple(
        RecordedPath(s.env.describe(), s.env.digest, s.recorded_at, steps, s.path, s.origin, s.shown)
        for s, steps in ((r.stored, r.steps) for r in cache.paths(check.identity))
    )


def check_name(root: Path, file: Path) -> str:
    """A check file as a path document names it: relative to the project when inside it (posix)."""
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return file.resolve().as_posix()


def _check_identity(identity: str) -> None:
    if not isinstance(identity, str) or not _IDENTITY.fullmatch(identity):
        raise ValueError(f"an identity is {IDENTITY_LENGTH} lowercase hex digits, got {identity!r}")


def _newest_key(record: _Record) -> tuple[int, datetime, str]:
    s = record.stored
    return (s.seq, s.recorded_at, s.path.name)


def _drop(reason: str) -> NoReturn:
    raise DocumentError(reason)


def _no_constant(name: str) -> NoReturn:
    _drop(f"it is not valid JSON ({name} is not a number)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            _drop(f"it is not valid JSON (the key {key!r} appears twice)")
        result[key] = value
    return result


@attrs.frozen
class Document:
    """A path document, validated whole (Rules 5, 9)."""

    identity: str
    env: Env
    recorded_at: datetime
    seq: int
    steps: tuple[Step, ...]
    origin: Origin | None


def parse_document(raw: bytes, identity: str | None = None, env_digest: str | None = None) -> Document:
    """Read and validate one path document strictly (Rule 5); raises ``DocumentError`` naming the key.

    ``identity`` and ``env_digest``, when given, are what the document's name says it holds.
    """
    data = _envelope(raw)
    if identity is not None and data["identity"] != identity:
        _drop(f"key 'identity': the file is named for {identity}, but holds {data['identity']!r}")
    if not isinstance(data["identity"], str) or not _IDENTITY.fullmatch(data["identity"]):
        _drop(f"key 'identity': expected {IDENTITY_LENGTH} lowercase hex digits, got {data['identity']!r}")
    try:
        env = Env.from_dict(data["env"])
    except ValueError as exc:
        _drop(str(exc))
    if env_digest is not None and env.digest != env_digest:
        _drop(f"key 'env': the file is named for env {env_digest}, but holds env {env.digest}")
    recorded_at = _timestamp(data["recorded_at"])
    seq = data["seq"]
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        _drop(f"key 'seq': expected a whole number from 1 up, got {_short(seq)}")
    if seq >= _MAX_SEQ:
        _drop(f"key 'seq': {_short(seq)} is no count of recordings (a seq is under {_MAX_SEQ:,})")
    try:
        steps = load_path(data["steps"])
    except PathError as exc:
        _drop(f"key 'steps': {exc}")
    origin = _origin(data.get("origin"))
    by = _recorded_by(data.get("recorded_by"))
    if by is not None and origin is not None:
        origin = attrs.evolve(origin, by=by)
    return Document(data["identity"], env, recorded_at, seq, steps, origin)


#: Rule 2: a ``seq`` past this is no count of recordings (a forged file): the file is corrupt.
_MAX_SEQ = 10**12


def _short(value: Any) -> str:
    """``repr`` of a value, cut for a message (a 5,000-digit number is not shown whole)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else f"a number of {len(str(value))} digits"
    return text if len(text) <= 60 else text[:57] + "..."


def _origin(value: Any) -> Origin | None:
    if value is None:
        return None
    if not isinstance(value, dict) or sorted(value) != sorted(_ORIGIN_KEYS):
        _drop(f"key 'origin': expected an object with {', '.join(_ORIGIN_KEYS)}, got {_short(value)}")
    how, came, check = value["how"], value["from"], value["check"]
    if how not in _HOWS:
        _drop(f"key 'origin.how': expected one of {', '.join(_HOWS)}, got {_short(how)}")
    for key, text in (("from", came), ("check", check)):
        if text is not None and (not isinstance(text, str) or len(text) > 4096):
            _drop(f"key 'origin.{key}': expected a string or null, got {_short(text)}")
    return Origin(how, came, check)


def _recorded_by(value: Any) -> RecordedBy | None:
    """Rule 14: ``recorded_by``, strictly: an object of four strings or nulls (a short line each)."""
    if value is None:
        return None
    if not isinstance(value, dict) or sorted(value) != sorted(_BY_KEYS):
        _drop(f"key 'recorded_by': expected an object with {', '.join(_BY_KEYS)}, got {_short(value)}")
    for key in _BY_KEYS:
        text = value[key]
        if text is not None and (not isinstance(text, str) or len(text) > 200 or not text.isprintable()):
            _drop(f"key 'recorded_by.{key}': expected a line of at most 200 characters or null, got {_short(text)}")
    return RecordedBy(value["machine"], value["build"], value["device"], value["model"])


def _record(doc: Document, where: Path, tag: str | None = None, words: str = "") -> _Record:
    stored = StoredEnv(doc.env, doc.seq, doc.recorded_at, where, len(doc.steps), doc.origin, tag, words)
    return _Record(stored, doc.steps)


def _document(
    identity: str, env: Env, steps: Sequence[Step], meta: tuple[datetime, int, Origin | None], *, shared: bool
) -> bytes:
    """A path document's bytes (Rule 10: sorted keys for a shared store)."""
    recorded_at, seq, origin = meta
    payload: dict[str, Any] = {
        "format": _FORMAT,
        "identity": identity,
        "env": env.to_dict(),
        "recorded_at": recorded_at.astimezone(UTC).isoformat(timespec="microseconds"),
        "seq": seq,
        "steps": dump_path(steps),
    }
    if origin is not None:
        payload["origin"] = origin.to_dict()
        if origin.by is not None:
            payload["recorded_by"] = origin.by.to_dict()
    data = utf8(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False, sort_keys=shared) + "\n")
    if len(data) > MAX_CACHE_BYTES:
        raise PathError(
            f"the path of {len(steps)} steps is {len(data)} bytes, over the replay cache's limit of "
            f"{MAX_CACHE_BYTES} bytes; it is not stored"
        )
    return data


def _check_shared_text(steps: Sequence[Step], provenance: Provenance) -> None:
    """Rule 10: a shared store never holds text the typing rules would not replay."""
    problem = shared_text_problem(steps, provenance)
    if problem is not None:
        raise PathError(problem)


def shared_text_problem(steps: Sequence[Step], provenance: Provenance) -> str | None:
    """Rule 10: the first step of ``steps`` holding text the typing rules would not replay, in words; else None."""
    for n, step in enumerate(steps, 1):
        if step.op is not Op.TYPE or step.text is None:
            continue
        search = step.target is not None and step.target.role in SEARCH_ROLES
        if step.live or not (search or provenance.allows(step.text)):
            return (
                f"step {n}: a committed path never holds text the replay wouldn't type (text that is "
                "masked, or that the model wrote); the step must be live with text null"
            )
    return None


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
    except ValueError:  # a number of more digits than Python reads (4,300): no path holds one
        _drop("it holds a number too long to be a count or a frame (over 4,300 digits)")
    if not isinstance(data, dict):
        _drop(f"expected a JSON object, got {type(data).__name__}")
    _check_format(data.get("format"))
    extra = sorted(k for k in data if k not in (*_KEYS, *_OPTIONAL_KEYS))
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
    raise DocumentError(why, f".format{value}")


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
