"""Where recorded paths are kept: the two stores a project can choose, behind one small protocol.

A store keeps one document (bytes) per identity and env digest; what a document holds, which is
newest, how many envs an identity keeps and what a file that can't be used means are the replay
cache's rules (``cache.py``), the same for every store.

Rule 1 (local, the default): ``.mobster/cache/replay/<identity>-<env>.json``, private to this
        machine and git-ignored: 0700 folders, 0600 files, read only when they are regular files
        of the current user, mode 0600 or narrower (``fsutil``'s Rule 3). A file that isn't
        (a symlink, another user's, 0644) is refused and left in place.
Rule 2 (committed): ``.mobster/paths/<identity>-<env>.json``, tracked in git beside the checks
        and reviewed in pull requests like heal files. A file may be readable by others and owned
        by another user (a CI checkout, a restored artifact: uploads keep no modes): it is read
        when it is a regular file, never through a symlink, within the size cap. Files are
        written atomically with our modes (0600, in a 0700 folder: git keeps no folder modes and
        a file's only as executable or not). The cache writes a committed path deterministically
        (sorted keys) and refuses one holding text the typing rules would not replay (``shared``).
Rule 3: names that aren't ``<16 hex>-<12 hex>.json`` (``.tmp-*`` files, ``.corrupt`` copies, a
        README) are not paths: they are never listed.
Rule 4: ``set_aside`` renames a document that can't be used to ``<name><suffix>`` beside it, so it
        is kept for inspection and out of the way of the next recording.
Rule 5 (the index): a folder's names are listed once and kept by identity (``identity -> env
        digests``) while the folder is unchanged (its inode and modification time), so a suite's
        lookups cost one listing, not one per check. This process's own writes, removals and
        renames update the index in place; any other change to the folder (another process, a
        person) is seen at the next lookup, and the folder is listed again.
Rule 6 (documents): beside its paths, a store keeps other documents, bytes keyed by a name
        ``<kind>/<key>`` (each part lowercase letters, digits, ``.``, ``_``, ``-``; see
        :func:`check_document_name`). Today one kind: ``heals``, each check file's heal state
        (``heals/<identity>-<env>-<check key>.json``, ``healfile``'s Rules). A store keeps them
        where it keeps its paths, so a heal travels with the path it heals: the ``local`` store
        in ``.mobster/cache/heals/`` (private, as Rule 1), the ``committed`` one in
        ``.mobster/paths/heals/`` (tracked in git beside the paths and read as Rule 2: a regular
        file, never through a symlink, the folders on the way no symlinks either). A remote store
        (an object store, a database) keeps a name as its key; what a document holds and whether
        it can be used are the core's rules, as for paths. Kinds: ``heals`` (heal states) and
        ``leases`` (``lease``'s recording leases).
Rule 7 (the conditional write): every ``read`` gives a document with its version tag
        (:class:`Versioned`), and every ``write`` is conditional: ``expect=None`` creates only (it
        loses when a document is there), a tag replaces only that version (it loses when the
        document is gone or another version is there). It says whether it won; a loss writes
        nothing, and of writers racing on one expectation exactly one wins. The engines answer it
        with their own compare-and-swap (an object store's ``If-None-Match: *`` / ``If-Match``, a
        database's ``INSERT ... ON CONFLICT DO NOTHING`` / ``UPDATE ... WHERE version = n``).
Rule 8 (the file stores' tags): a file's tag is the SHA-256 of its bytes (32 hex digits), and a
        conditional write holds an exclusive ``flock`` on the folder while it compares and
        renames, so processes of one machine race fairly. An entry that is no document of ours
        (a symlink, another user's file, a mode wider than the store reads) has no version: a
        create replaces it by renaming over the name, never through it (the cache's Rule 5).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import attrs

from mobster_core._rules.replay.identity import ENV_DIGEST_LENGTH, IDENTITY_LENGTH

from .fsutil import (
    MOBSTER_DIR,
    TEMP_PREFIX,
    Problem,
    UnsafeFile,
    atomic_write,
    private_dir,
    read_private,
    read_user_file,
)

__all__ = [
    "BUNDLE_DIR",
    "COMMITTED_DIR",
    "DOCUMENT_KINDS",
    "LOCAL_DIR",
    "PATH_STORE_MEMBERS",
    "STORE_NAMES",
    "BundlePaths",
    "CommittedPaths",
    "FilePaths",
    "LocalPaths",
    "PathStore",
    "StoreName",
    "Versioned",
    "check_document_name",
    "current_tag",
    "missing_members",
    "put_document",
    "tag_of",
]

#: Rule 1's folder, under the project root.
LOCAL_DIR = Path(MOBSTER_DIR) / "cache" / "replay"
#: Rule 2's folder, under the project root.
COMMITTED_DIR = Path(MOBSTER_DIR) / "paths"
#: Where a read-only run keeps what it recorded or healed (``readonly``), under the project root.
BUNDLE_DIR = Path(MOBSTER_DIR) / "cache" / "read-only"
#: The stores a project setting can name.
StoreName = Literal["local", "committed"]
STORE_NAMES: tuple[StoreName, ...] = ("local", "committed")

_FILE_NAME = re.compile(rf"([0-9a-f]{{{IDENTITY_LENGTH}}})-([0-9a-f]{{{ENV_DIGEST_LENGTH}}})\.json")
#: Rule 5: a folder as it was listed (device, inode, modification time) and its names by identity.
_Stamp = tuple[int, int, int]
_INDEXES: OrderedDict[str, tuple[_Stamp, dict[str, set[str]]]] = OrderedDict()
_INDEXES_KEPT = 8  # folders (a process seldom uses more than one store)
#: Rule 6: the kinds of documents a store keeps beside its paths.
DOCUMENT_KINDS = ("heals", "leases")
_DOCUMENT_PART = r"[a-z0-9][a-z0-9._-]{0,199}"
_DOCUMENT_NAME = re.compile(rf"({'|'.join(DOCUMENT_KINDS)})/({_DOCUMENT_PART})")


@attrs.frozen
class Versioned:
    """Rule 7: a document as a store read it: its bytes and its version tag (what a conditional write expects)."""

    data: bytes = attrs.field(repr=lambda d: f"<{len(d)} bytes>")
    tag: str


def tag_of(data: bytes) -> str:
    """Rule 8: a file store's version tag of ``data`` (32 hex digits of its SHA-256)."""
    return hashlib.sha256(data).hexdigest()[:32]


#: Rule 8: the largest file a file store hashes for its tag before a conditional write.
_TAG_BYTES = 64 * 1024 * 1024


def check_document_name(name: str) -> tuple[str, str]:
    """Rule 6: a document's ``(kind, key)``; ``ValueError`` for a name that isn't ``<kind>/<key>`` of a known kind."""
    m = _DOCUMENT_NAME.fullmatch(name) if isinstance(name, str) else None
    if m is None or m.group(2) in (".", "..") or m.group(2).startswith(TEMP_PREFIX):
        kinds = ", ".join(DOCUMENT_KINDS)
        raise ValueError(f"a store's document is named <kind>/<key> ({kinds}; lowercase, digits, . _ -), not {name!r}")
    return m.group(1), m.group(2)


@runtime_checkable
class PathStore(Protocol):
    """**Protocol:** where recorded paths are kept: one document of bytes per identity and env digest.

    The project's setting picks one of the two built in (``"local"``, git-ignored and private;
    ``"committed"``, tracked in git beside the checks: ``docs/ci.md``); a harness may give its own
    (an object store, a database) as ``RunOptions(paths=store)``. A store keeps bytes; what they
    hold, which is newest, how many envs an identity keeps and what a document that can't be
    used means are the core's rules, the same for every store. Every write is conditional
    (Rule 7): a read gives the document's version tag, a write expects one (or none: create
    only) and says whether it won. ``name`` names it in messages;
    ``shared`` says others read its documents (the core then writes them deterministically and
    never with text the typing rules wouldn't replay).
    """

    name: str
    shared: bool

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """``(identity, env digest)`` of every document kept (of ``identity`` only, when given)."""
        ...

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """One document and its tag; ``FileNotFoundError`` when it is gone, ``UnsafeFile`` when it must not be read."""
        ...

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 7: keep one document, atomically, when the one there is ``expect`` (None: none is); whether it won."""
        ...

    def remove(self, identity: str, env: str) -> None:
        """Forget one document (nothing when it is already gone)."""
        ...

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """Keep a document that can't be used under another name (``OSError`` when it can't be)."""
        ...

    def where(self, identity: str, env: str) -> str:
        """Where a document is kept, for people (a file, a URL)."""
        ...

    # -- Rule 6: the documents beside the paths (a heal state), bytes keyed by ``<kind>/<key>`` --

    def documents(self, prefix: str) -> list[str]:
        """The names of the documents that start with ``prefix`` (``heals/`` or longer), sorted."""
        ...

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """One document and its tag; ``FileNotFoundError`` when it is gone, ``UnsafeFile`` when it must not be read."""
        ...

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 7: keep one document, atomically, when the one there is ``expect`` (None: none is); whether it won."""
        ...

    def remove_document(self, name: str) -> None:
        """Forget one document (nothing when it is already gone)."""
        ...

    def where_document(self, name: str) -> str:
        """Where a document is kept, for people (a file, a URL)."""
        ...


#: What a store must have (the protocol's members), for a message naming what one lacks.
PATH_STORE_MEMBERS = (
    "name",
    "shared",
    "names",
    "read",
    "write",
    "remove",
    "set_aside",
    "where",
    "documents",
    "read_document",
    "write_document",
    "remove_document",
    "where_document",
)


def missing_members(store: object) -> list[str]:
    """The members of :class:`PathStore` that ``store`` lacks (empty: it is one)."""
    return [m for m in PATH_STORE_MEMBERS if not hasattr(store, m)]


def current_tag(store: PathStore, name: str, *, max_bytes: int) -> str | None:
    """The tag of the document ``name`` now (None: none is there, or one that is no document of ours).

    A document a signed store refused is there: its version is the refusal's (``UnsafeFile.tag``).
    """
    try:
        return store.read_document(name, max_bytes=max_bytes).tag
    except FileNotFoundError:
        return None
    except UnsafeFile as exc:
        return exc.tag


def put_document(store: PathStore, name: str, data: bytes, *, max_bytes: int, tries: int = 3) -> None:
    """Keep ``data`` under ``name`` whatever version is there (the latest wins): for what no writer can lose.

    A copy set aside for inspection, never a document another run reads and updates: those expect
    the version they read (Rule 7). ``OSError`` when other writers won ``tries`` times in a row.
    """
    for _ in range(tries):
        if store.write_document(name, data, expect=current_tag(store, name, max_bytes=max_bytes)):
            return
    raise OSError(errno.EAGAIN, f"other writers kept replacing {store.where_document(name)}")


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """Rule 8: an exclusive ``flock`` on a store's folder while a conditional write compares and renames."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class FilePaths:
    """A folder of path documents, one file per identity and env (Rules 3, 4)."""

    #: The store's name in messages and settings.
    name: str = "files"
    #: Rule 2: whether its files are shared with others (reviewed in git).
    shared: bool = False

    def __init__(self, folder: Path, documents: Path | None = None) -> None:
        self.folder = folder
        #: Rule 6: the folder that holds one folder per kind of document (``<this>/heals/…``).
        self.documents_folder = folder if documents is None else documents

    def file_for(self, identity: str, env: str) -> Path:
        """The file of one document."""
        return self.folder / f"{identity}-{env}.json"

    def where(self, identity: str, env: str) -> str:
        """Where a document is kept, for people."""
        return str(self.file_for(identity, env))

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """``(identity, env digest)`` of every document kept (of ``identity`` only, when given), sorted."""
        if not os.path.lexists(self.folder):
            return []
        self._check_folder()
        index = self._index()
        if identity is not None:
            return [(identity, env) for env in sorted(index.get(identity, ()))]
        return sorted((i, env) for i, envs in index.items() for env in envs)

    def _stamp(self) -> _Stamp | None:
        try:
            st = self.folder.lstat()
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_mtime_ns)

    def _index(self) -> dict[str, set[str]]:
        """Rule 5: the folder's names by identity, listed again only when the folder changed."""
        key = os.fspath(self.folder)
        stamp = self._stamp()
        kept = _INDEXES.get(key)
        if kept is not None and stamp is not None and kept[0] == stamp:
            _INDEXES.move_to_end(key)
            return kept[1]
        index: dict[str, set[str]] = {}
        with os.scandir(self.folder) as entries:
            for entry in entries:
                m = _FILE_NAME.fullmatch(entry.name)
                if m is not None:
                    index.setdefault(m.group(1), set()).add(m.group(2))
        if stamp is not None:
            _INDEXES[key] = (stamp, index)
            _INDEXES.move_to_end(key)
            while len(_INDEXES) > _INDEXES_KEPT:
                _INDEXES.popitem(last=False)
        return index

    def _noted(self, before: _Stamp | None, identity: str, env: str, *, kept: bool) -> None:
        """Rule 5: this process changed one name; keep the index when nobody else changed the folder."""
        key = os.fspath(self.folder)
        entry = _INDEXES.pop(key, None)
        after = self._stamp()
        if entry is None or before is None or after is None or entry[0] != before:
            return  # listed again at the next lookup
        index = entry[1]
        if kept:
            index.setdefault(identity, set()).add(env)
        else:
            index.get(identity, set()).discard(env)
        _INDEXES[key] = (after, index)

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """One document and its tag (Rule 8); ``FileNotFoundError`` when it is gone, ``UnsafeFile`` when refused."""
        data = self._read_file(self.file_for(identity, env), max_bytes=max_bytes)
        return Versioned(data, tag_of(data))

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rules 7, 8: write one document atomically, mode 0600, when the one there is ``expect``."""
        before = self._stamp()
        won = self._swap(self.file_for(identity, env), data, expect)
        if won:
            self._noted(before, identity, env, kept=True)
        return won

    def _swap(self, file: Path, data: bytes, expect: str | None) -> bool:
        """Rule 8: compare the file's tag with ``expect`` and rename ``data`` over it, under the folder's lock."""
        folder = private_dir(file.parent)
        with _folder_lock(folder):
            try:
                current: str | None = tag_of(self._read_file(file, max_bytes=_TAG_BYTES))
            except (FileNotFoundError, UnsafeFile):
                current = None  # Rule 8: no document of ours is there
            if current != expect:
                return False
            atomic_write(file, data)
            return True

    def remove(self, identity: str, env: str) -> None:
        """Delete one document (nothing when it is already gone)."""
        before = self._stamp()
        self.file_for(identity, env).unlink(missing_ok=True)
        self._noted(before, identity, env, kept=False)

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """Rule 4: rename the document to ``<name><suffix>``; the new name (``OSError`` when it can't)."""
        file = self.file_for(identity, env)
        aside = file.with_name(file.name + suffix)
        before = self._stamp()
        file.replace(aside)
        self._noted(before, identity, env, kept=False)
        return aside.name

    def _check_folder(self) -> None:
        """Refuse a folder that is a symlink or not ours (raises ``UnsafeFile``)."""

    # -- Rule 6: documents ---------------------------------------------------------------------

    def document_file(self, name: str) -> Path:
        """The file of one document (``<documents folder>/<kind>/<key>``); ``ValueError`` for a bad name."""
        kind, key = check_document_name(name)
        return self.documents_folder / kind / key

    def where_document(self, name: str) -> str:
        """Where a document is kept, for people."""
        return str(self.document_file(name))

    def documents(self, prefix: str) -> list[str]:
        """Rule 6: the names of the documents that start with ``prefix``, sorted (``.tmp-*`` files are none)."""
        kind, _, start = prefix.partition("/")
        if kind not in DOCUMENT_KINDS:
            raise ValueError(f"a document prefix starts with a kind ({', '.join(DOCUMENT_KINDS)}/), not {prefix!r}")
        folder = self.documents_folder / kind
        if not os.path.lexists(folder):
            return []
        self._check_documents(folder)
        found = []
        with os.scandir(folder) as entries:
            for entry in entries:
                name = f"{kind}/{entry.name}"
                usable = _DOCUMENT_NAME.fullmatch(name) is not None and not entry.name.startswith(TEMP_PREFIX)
                if usable and entry.name.startswith(start):
                    found.append(name)
        return sorted(found)

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """One document and its tag (as the store reads its paths); ``FileNotFoundError`` when it is gone."""
        file = self.document_file(name)
        if os.path.lexists(file.parent):
            self._check_documents(file.parent)
        data = self._read_file(file, max_bytes=max_bytes)
        return Versioned(data, tag_of(data))

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rules 7, 8: write one document atomically, mode 0600 (in 0700 folders), when the one there is ``expect``."""
        file = self.document_file(name)
        if os.path.lexists(file.parent):
            self._check_documents(file.parent)
        return self._swap(file, data, expect)

    def remove_document(self, name: str) -> None:
        """Delete one document (nothing when it is already gone)."""
        file = self.document_file(name)
        if os.path.lexists(file.parent):
            self._check_documents(file.parent)
        file.unlink(missing_ok=True)

    def _read_file(self, file: Path, *, max_bytes: int) -> bytes:
        raise NotImplementedError

    def _check_documents(self, folder: Path) -> None:
        """Rule 6: refuse a kind's folder, or one above it up to ``.mobster``, that is a symlink or no folder.

        Outside a ``.mobster`` folder (a harness's own file store) the folders are checked up to
        the store's documents folder: the ones above are the user's.
        """
        here = folder
        inside = MOBSTER_DIR in self.documents_folder.parts
        while True:
            st = here.lstat()
            if stat.S_ISLNK(st.st_mode):
                raise UnsafeFile(
                    here, "it is a symlink (never followed)", problem=Problem.SYMLINK, fix="delete the link"
                )
            if not stat.S_ISDIR(st.st_mode):
                raise UnsafeFile(here, "it is not a folder", problem=Problem.NOT_FOLDER, fix="move it out of the way")
            if here.name == MOBSTER_DIR or here.parent == here or (not inside and here == self.documents_folder):
                return
            here = here.parent


class LocalPaths(FilePaths):
    """Rule 1: the private, git-ignored store of this machine."""

    name = "local"
    shared = False

    def __init__(self, root: Path) -> None:
        super().__init__(root / LOCAL_DIR, root / MOBSTER_DIR / "cache")

    def _read_file(self, file: Path, *, max_bytes: int) -> bytes:
        """Rule 1: a private file only."""
        return read_private(file, max_bytes=max_bytes)

    def _check_folder(self) -> None:
        private_dir(self.folder)


class BundlePaths(LocalPaths):
    """A private folder of this machine holding what a read-only run wrote (``readonly``'s overlay).

    Laid out as the local store (``<folder>/replay/``, ``<folder>/heals/``, 0700 and 0600, read as
    Rule 1); ``mobster paths export`` of it is the bundle a pull request's job uploads.
    """

    name = "bundle"

    def __init__(self, folder: Path) -> None:
        FilePaths.__init__(self, folder / "replay", folder)


class CommittedPaths(FilePaths):
    """Rule 2: the store tracked in git beside the checks."""

    name = "committed"
    shared = True

    def __init__(self, root: Path) -> None:
        super().__init__(root / COMMITTED_DIR)

    def _read_file(self, file: Path, *, max_bytes: int) -> bytes:
        """Rule 2: a regular file, whoever owns it and whatever its mode; never through a symlink."""
        return read_user_file(file, max_bytes=max_bytes, follow=False)

    def _check_folder(self) -> None:
        if self.folder.is_symlink():
            raise UnsafeFile(self.folder, "it is a symlink (never followed)", problem=Problem.SYMLINK)
