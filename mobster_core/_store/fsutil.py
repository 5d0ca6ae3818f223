"""Private, atomic files under ``.mobster/``: the only way the core writes to disk.

Rule 1: every folder from ``.mobster`` down is mode 0700 and owned by the current user, whatever
        the umask; a wider existing folder is narrowed; a folder that is a symlink is refused.
Rule 2: every file is written atomically: a temporary file (``.tmp-…``, created exclusively, never
        through a symlink, mode 0600) in the same folder, flushed and fsynced, renamed over the
        target, then the folder is fsynced. A failed write removes its temporary file.
Rule 3: a file is read only through :func:`read_private`: never through a symlink, and only a
        regular file of the current user, mode 0600 or narrower, within a size limit. Anything
        else raises :class:`UnsafeFile`, naming the file, what is wrong, and the fix.
Rule 4: readers ignore ``.tmp-*`` files; :func:`remove_stale_temps` clears the ones a killed writer
        left behind, at start-up.
Rule 5: ``.mobster/.gitignore`` is created when missing and never overwritten.
Rule 6: a user's file outside ``.mobster/`` (a check given by path, an env file, a caps file, a
        bundle, a ``pyproject.toml``) is read only through :func:`read_user_file`: a regular file
        (a FIFO, a device or a socket is refused without waiting), within a size limit, its owner
        and mode the user's business; a symlink to a regular file is followed (the user's own
        file may be one) unless ``follow=False``. :func:`open_user_file` opens one the same way
        for a reader that streams it (an ``.ipa``).
Rule 7: a user's file outside ``.mobster/`` (a ``pyproject.toml`` or ``.gitignore`` that ``mobster
        init`` edits, the files it starts, a bundle of ``mobster paths export``, a ``--junit`` copy)
        is written only through :func:`write_user_file`. The file, when it is there, must be a
        regular file: a symlink, a FIFO, a device or a folder is refused, never written through
        and never replaced (it is the user's). The bytes go to a temporary file beside it (Rule
        2's: created exclusively, never through a symlink), fsynced, with the old file's mode
        and owner (a new file gets the umask's mode, as any program's), then renamed onto it, and
        the folder is fsynced. ``new=True`` links it into place instead, so a file that appeared
        meanwhile is kept (``FileExistsError``); with ``replacing`` the file must still hold
        exactly those bytes when it is replaced, else nothing is written (an edit never loses one
        made meanwhile). An error names the user's file, never the temporary one.
Rule 8: the project's lock is ``.mobster/cache/.lock``: inside a folder every ``.gitignore`` the
        project was given ignores (the one of Rule 5, and ``mobster init``'s), so ``git add -A``
        never commits it, in a project made before the lock moved too. (It was ``.mobster/.lock``,
        which neither ignored.)

Folders are opened one component at a time relative to their parent (``dir_fd``) with
``O_NOFOLLOW``, so a component swapped for a symlink between a check and a use is still refused.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import suppress
from datetime import datetime, timedelta
from pathlib import Path
from typing import BinaryIO

from mobster_core._log import get_logger
from mobster_core.exceptions import Problem, UnsafeFile

__all__ = [
    "LOCK_FILE",
    "MOBSTER_DIR",
    "STALE_TEMP_GRACE",
    "TEMP_PREFIX",
    "Problem",
    "UnsafeFile",
    "atomic_write",
    "ensure_gitignore",
    "find_project_root",
    "open_user_file",
    "private_dir",
    "project_lock",
    "read_private",
    "read_user_file",
    "remove_stale_temps",
    "write_user_file",
]

log = get_logger(__name__)

#: The folder that marks a project root and holds everything Mobster writes.
MOBSTER_DIR = ".mobster"
#: Rule 8: the project's lock, relative to the project root: in the git-ignored cache folder.
LOCK_FILE = Path(MOBSTER_DIR) / "cache" / ".lock"
#: Temporary files start with this; readers skip them.
TEMP_PREFIX = ".tmp-"
#: A temporary file is debris only when it is this much older than the run that clears it, so a
#: parallel run that is writing one right now keeps it.
STALE_TEMP_GRACE = timedelta(seconds=60)

GITIGNORE_TEXT = (
    "# Written by mobster when missing, never overwritten: what stays out of version control.\n"
    "cache/\n"
    "runs/\n"
    "test-results/\n"
)

_DIR_MODE = 0o700
_FILE_MODE = 0o600
_READ_CHUNK = 256 * 1024
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC


def find_project_root(start: Path) -> Path | None:
    """The first of ``start`` and its parents that holds a ``.mobster/`` folder, or None.

    A ``.mobster`` that is a symlink to a folder counts here; :func:`private_dir` refuses it when
    it is used, with a message that says so.
    """
    here = start.absolute()
    for folder in (here, *here.parents):
        if (folder / MOBSTER_DIR).is_dir():
            return folder
    return None


def private_dir(path: Path) -> Path:
    """Make ``path`` a private folder (Rule 1) and return it.

    The folders from the last ``.mobster`` component of ``path`` down to ``path`` itself are
    created when missing, mode 0700, and checked one by one: a symlink, a non-folder or a folder
    of another user raises :class:`UnsafeFile`. When ``path`` has no ``.mobster`` component it is
    the user's folder and keeps its mode (created 0700 when missing). Folders above are created
    as usual when missing.
    """
    path = Path(os.path.abspath(path))  # noqa: PTH100 - resolve() would follow the links refused here
    parts = path.parts
    if MOBSTER_DIR not in parts:
        # A folder outside .mobster/ (a check beside a heal file in /tmp or the project root) is
        # the user's: it keeps its own mode; only a folder Mobster creates is made private.
        if not path.is_dir():
            path.mkdir(mode=_DIR_MODE, parents=True)
        return path
    # The last .mobster: a project that happens to live under another .mobster keeps its modes.
    first = len(parts) - 1 - parts[::-1].index(MOBSTER_DIR) if MOBSTER_DIR in parts else len(parts) - 1
    first = max(first, 1)  # the filesystem root is never ours to chmod
    base = Path(*parts[:first])
    base.mkdir(parents=True, exist_ok=True)
    fd = os.open(base, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        here = base
        for name in parts[first:]:
            here = here / name
            child = _private_child(fd, name, here)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)
    return path


def _private_child(parent_fd: int, name: str, shown: Path) -> int:
    """Open (creating when missing) the private folder ``name`` inside ``parent_fd``."""
    with suppress(FileExistsError):
        os.mkdir(name, _DIR_MODE, dir_fd=parent_fd)
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeFile(
                shown, "it is a symlink (never followed)", problem=Problem.SYMLINK, fix="delete the link"
            ) from exc
        if stat.S_ISDIR(st.st_mode):  # a folder this user may not open: another user's, or closed to us
            owner = "another user's" if st.st_uid != os.getuid() else "yours"
            raise UnsafeFile(
                shown,
                f"it is a folder this user can't open ({owner}, uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):04o})",
                problem=Problem.OWNER if st.st_uid != os.getuid() else Problem.MODE,
                fix="run as the user who owns the project, or give the project to this user",
            ) from exc
        raise UnsafeFile(shown, "it is not a folder", problem=Problem.NOT_FOLDER, fix="move it out of the way") from exc
    try:
        _make_private(fd, shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _make_private(fd: int, shown: Path) -> None:
    """Refuse a folder of another user; narrow (or widen to) mode 0700."""
    st = os.fstat(fd)
    if st.st_uid != os.getuid():
        raise UnsafeFile(
            shown,
            f"it belongs to another user (uid {st.st_uid})",
            problem=Problem.OWNER,
            fix="delete it, or run as the user who owns it",
        )
    if stat.S_IMODE(st.st_mode) != _DIR_MODE:
        os.fchmod(fd, _DIR_MODE)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, mode 0600 (Rule 2); the folder is made private.

    A symlink at ``path`` is replaced, never followed: a rename acts on the name, not its target.
    """
    folder = private_dir(path.parent)
    tmp = _write_temp(folder, path.name, data)
    try:
        tmp.replace(path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    _fsync_dir(folder)


def _write_temp(
    folder: Path, name: str, data: bytes, *, private: bool = True, like: os.stat_result | None = None
) -> Path:
    """A fsynced temporary copy of ``data`` in ``folder``; removed on any error.

    ``private``: mode 0600 (Rule 2). Else a user's file (Rule 7): the mode and owner of ``like``
    (the file it replaces), or the umask's mode for a new one.
    """
    tmp = folder / f"{TEMP_PREFIX}{name}-{secrets.token_hex(6)}"
    fd = os.open(tmp, _TEMP_FLAGS, 0o666 if not private and like is None else _FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as f:
            if private:
                os.fchmod(f.fileno(), _FILE_MODE)  # the umask may have taken bits off
            elif like is not None:
                _take_owner_and_mode(f.fileno(), like)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def _take_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """Rule 7: the new file keeps the old one's owner (where this user may give it) and mode."""
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        with suppress(OSError):  # only root may give a file away: the file is then this user's
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)


def _unlink_quietly(path: Path) -> None:
    path.unlink(missing_ok=True)


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable. Filesystems that can't fsync a folder say EINVAL."""
    fd = os.open(folder, _DIR_FLAGS)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def read_private(path: Path, *, max_bytes: int) -> bytes:
    """The bytes of a private file (Rule 3); raises :class:`UnsafeFile` for anything else.

    A missing or unreadable file raises the ``OSError`` of ``open`` (``FileNotFoundError``, …).
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(path, "it is a symlink (never followed)", problem=Problem.SYMLINK) from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(path, "it is not a regular file", problem=Problem.NOT_REGULAR)
        if st.st_uid != os.getuid():
            raise UnsafeFile(path, f"it belongs to another user (uid {st.st_uid})", problem=Problem.OWNER)
        mode = stat.S_IMODE(st.st_mode)
        if mode & ~_FILE_MODE:
            raise UnsafeFile(path, f"its mode is {mode:04o}; a private file is 0600 or narrower", problem=Problem.MODE)
        if st.st_size > max_bytes:
            raise _too_large(path, max_bytes)
        return _read_capped(fd, path, max_bytes)
    finally:
        os.close(fd)


def read_user_file(path: Path, *, max_bytes: int, follow: bool = True) -> bytes:
    """The bytes of a user's file (a check, an env file), opened as a careful server opens one (Rule 6).

    Regular files only: a FIFO, a device or a socket is refused without blocking (the open is
    non-blocking, then ``fstat``), so a FIFO never waits for a writer and ``/dev/zero`` is never
    read. The size is capped before and while reading. ``follow=False`` refuses a symlink (files
    Mobster writes itself, such as heal files). Unlike :func:`read_private`, the owner and mode are
    the user's business. Raises :class:`UnsafeFile`, or the ``OSError`` of ``open``.
    """
    fd = _open_regular(path, follow=follow)
    try:
        if os.fstat(fd).st_size > max_bytes:
            raise _too_large(path, max_bytes)
        return _read_capped(fd, path, max_bytes)
    finally:
        os.close(fd)


@contextlib.contextmanager
def open_user_file(path: Path, *, follow: bool = True) -> Iterator[BinaryIO]:
    """A user's file open for reading as :func:`read_user_file` opens it (Rule 6), for a reader that streams it.

    The reader bounds what it reads (a zip reads its directory, then the members it wants).
    """
    fd = _open_regular(path, follow=follow)
    os.set_blocking(fd, True)  # a regular file never blocks; a reader may expect a blocking one
    with os.fdopen(fd, "rb") as f:
        yield f


def _open_regular(path: Path, *, follow: bool) -> int:
    """A descriptor of the regular file ``path`` (Rule 6), or :class:`UnsafeFile`, or the ``OSError`` of ``open``."""
    flags = _READ_FLAGS if not follow else _READ_FLAGS & ~os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise UnsafeFile(path, "it is a symlink (never followed)", problem=Problem.SYMLINK) from exc
        raise
    try:
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnsafeFile(path, "it is not a regular file", problem=Problem.NOT_REGULAR)
    return fd


def write_user_file(path: Path, data: bytes, *, new: bool = False, replacing: bytes | None = None) -> None:
    """Write ``data`` to a user's file outside ``.mobster/`` (Rule 7), atomically; its folder must be there.

    ``new``: only when nothing is at ``path`` (else ``FileExistsError``, and nothing is written).
    ``replacing``: the bytes the caller read and edited; the file must still hold them. Raises
    :class:`UnsafeFile` (a symlink, a FIFO, a device or a folder at ``path``; a file that changed),
    or an ``OSError`` naming ``path``.
    """
    folder = path.parent
    try:
        old = _user_target(path, new=new)
        if not folder.is_dir():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
        tmp = _write_temp(folder, path.name, data, private=False, like=old)
    except OSError as exc:
        raise _named(exc, path) from exc
    try:
        if replacing is not None:
            _still_holds(path, replacing)
        if new:
            _link_new(tmp, path)
        else:
            tmp.replace(path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise _named(exc, path) from exc
    except BaseException:
        _unlink_quietly(tmp)
        raise
    _fsync_dir(folder)


def _user_target(path: Path, *, new: bool) -> os.stat_result | None:
    """Rule 7: what is at ``path`` now: nothing (None), or a regular file; anything else is refused."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if new:
        raise FileExistsError(errno.EEXIST, "File exists", str(path))
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeFile(
            path,
            "it is a symlink (mobster never writes through one)",
            problem=Problem.SYMLINK,
            fix="give the file itself, or delete the link",
        )
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(
            path,
            "it is not a regular file",
            problem=Problem.NOT_REGULAR,
            fix="give the name of a regular file",
        )
    return st


def _still_holds(path: Path, expected: bytes) -> None:
    """Rule 7: the file still holds the bytes its edit was made from."""
    try:
        now: bytes | None = read_user_file(path, max_bytes=len(expected) + 1, follow=False)
    except (UnsafeFile, FileNotFoundError):
        now = None
    if now != expected:
        raise UnsafeFile(
            path,
            "it changed while mobster was editing it, so it is left as it is",
            problem=Problem.CHANGED,
            fix="run the command again",
        )


def _link_new(tmp: Path, path: Path) -> None:
    """Rule 7's ``new``: the temporary file linked into place, so a file that appeared meanwhile is kept."""
    try:
        os.link(tmp, path)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
        # A filesystem without hard links (some network and FUSE mounts): a check, then the rename.
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "File exists", str(path)) from exc
        tmp.replace(path)
    else:
        _unlink_quietly(tmp)


def _named(exc: OSError, path: Path) -> OSError:
    """The same error, naming the user's file rather than the temporary one (Rule 7)."""
    if exc.filename is None or Path(exc.filename).name.startswith(TEMP_PREFIX):
        return type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno or 0), str(path))
    return exc


def _read_capped(fd: int, path: Path, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, min(_READ_CHUNK, max_bytes + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:  # it grew after the fstat
            raise _too_large(path, max_bytes)
    return b"".join(chunks)


def _too_large(path: Path, max_bytes: int) -> UnsafeFile:
    return UnsafeFile(path, f"it is larger than the limit of {max_bytes} bytes", problem=Problem.TOO_LARGE)


def ensure_gitignore(root: Path) -> Path:
    """Create ``<root>/.mobster/.gitignore`` when missing (Rule 5); return its path.

    The file appears whole or not at all (a temporary file hard-linked into place, which fails
    rather than overwrite), so a file the user edited, or one made by a parallel run, is kept.
    """
    folder = private_dir(root / MOBSTER_DIR)
    target = folder / ".gitignore"
    if os.path.lexists(target):
        return target
    tmp = _write_temp(folder, target.name, GITIGNORE_TEXT.encode("utf-8"))
    try:
        os.link(tmp, target)
    except FileExistsError:
        pass
    else:
        _fsync_dir(folder)
        log.debug("created .mobster/.gitignore", file=str(target))
    finally:
        _unlink_quietly(tmp)
    return target


def remove_stale_temps(folder: Path, *, started_at: datetime) -> int:
    """Delete the ``.tmp-*`` files a killed writer left in ``folder``; return how many.

    A temporary file is stale when it was last written more than :data:`STALE_TEMP_GRACE` before
    ``started_at`` (the run's start, timezone-aware). Only files directly in ``folder`` are looked
    at; a symlink named ``.tmp-*`` is removed itself, never its target.
    """
    cutoff = (started_at - STALE_TEMP_GRACE).timestamp()
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:  # missing, not a folder, not ours to read: housekeeping never fails a run
        return 0
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) or st.st_mtime >= cutoff:
                continue
            Path(entry.path).unlink()
        except FileNotFoundError:
            continue  # another run cleared it first
        removed += 1
        log.debug("removed a stale temporary file", file=entry.path)
    return removed


@contextlib.contextmanager
def project_lock(root: Path) -> Iterator[None]:
    """Serialize read-modify-write of shared files (the cache, heal files) between processes.

    An exclusive ``flock`` on ``.mobster/cache/.lock`` (Rule 8), held only for the few milliseconds
    a write takes, so two ``mobster test`` processes in one project never lose each other's heal or path.
    """
    lock = private_dir(root / LOCK_FILE.parent) / LOCK_FILE.name
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, _FILE_MODE)
    except OSError as exc:
        raise _lock_problem(lock, exc) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafeFile(lock, "it is not a regular file", problem=Problem.NOT_REGULAR, fix="delete it")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _lock_problem(lock: Path, exc: OSError) -> Exception:
    """The lock file can't be opened: say what is in the way, and the fix."""
    if exc.errno == errno.ELOOP:
        return UnsafeFile(lock, "it is a symlink (never followed)", problem=Problem.SYMLINK, fix="delete the link")
    if exc.errno == errno.EISDIR:
        return UnsafeFile(lock, "it is a folder, not a lock file", problem=Problem.NOT_REGULAR, fix="delete it")
    return exc
