"""The exceptions of Mobster replay, in one tree.

Exceptions are for misuse and infrastructure failures. What the app under test does (a drifted
step, a failed assertion) is a result with a class and a message, never an exception.

::

    MobsterError
    ├── PathError            a recorded path (or one step of it) is malformed
    ├── CheckError           a check file can't be used: the message names the file, line and key
    ├── ScriptError          a scripted phone's app script is malformed
    ├── DeviceError          the device could not do what was asked; nothing was sent
    │   ├── UnknownOutcome   an action may or may not have happened; never re-send it
    │   └── DeviceBusy       another run holds the device (its lock): nothing was sent
    ├── ModelError           a model call failed or replied with something unusable
    ├── UnsafeFile           a file under .mobster/ is a symlink, someone else's, or too open
    ├── HealFileError        a heal file or heal state can't be read
├── ResultsError         a results.json (or a check's result.json) can't be read: the message names the key
    ├── JournalError         the run's journal can't be written: no further action is sent
    ├── StoreUnavailable     a remote path store (S3, PostgreSQL) can't be reached or refused a call
    │                        (also an OSError: a run that meets it is class ``environment``)
    └── DuplicateEffect      the effect ledger refused to send a side effect twice
        └── UnknownOutcomePending   ... or to send anything after an unknown outcome

A run maps each to the class of the check's result where it happens: ``DeviceBusy`` is ``busy``,
another ``DeviceError`` ``device`` (``unknown_outcome`` for ``UnknownOutcome``), ``ModelError``
``model``, ``CheckError`` and ``HealFileError`` ``usage``, ``UnsafeFile`` and ``JournalError``
``environment``.
"""

from __future__ import annotations

import enum
import errno
from pathlib import Path

__all__ = [
    "CheckError",
    "DeviceBusy",
    "DeviceError",
    "DuplicateEffect",
    "HealFileError",
    "JournalError",
    "MobsterError",
    "ModelError",
    "PathError",
    "Problem",
    "ResultsError",
    "ScriptError",
    "StoreUnavailable",
    "UnknownOutcome",
    "UnknownOutcomePending",
    "UnsafeFile",
    "os_error_message",
]


class MobsterError(Exception):
    """The root of every error Mobster raises on purpose."""


class PathError(MobsterError):
    """A recorded path or step is malformed.

    The message names the step (counted from 1) and the key, and says what was expected.
    """

    def __init__(self, message: str, *, step: int | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.step = step
        self.key = key


class CheckError(MobsterError):
    """A check file that can't be used (Rule 4): a run of it is ``couldnt_run``, class ``usage``.

    ``file`` names the file, ``line`` is the 1-based line (None when unknown), ``key`` the dotted
    key path (None for the whole file); ``detail`` is the message without the file and line, for
    a front end that shows those apart.
    """

    def __init__(
        self, message: str, *, file: str, line: int | None = None, key: str | None = None, detail: str | None = None
    ) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.key = key
        self.detail = message if detail is None else detail


class ScriptError(MobsterError):
    """A scripted phone's app script is malformed: the message names the file, line and key."""


class DeviceError(MobsterError):
    """The device failed before an action was sent, or a read failed. Nothing happened on it."""


class UnknownOutcome(DeviceError):
    """An action was sent and it is not known whether it happened.

    It is never re-sent: the run ends ``couldnt_run``, class ``unknown_outcome``.
    """


class DeviceBusy(DeviceError):
    """Another run holds the device (its lock): nothing was sent. A run ends ``couldnt_run``, ``busy``.

    Drivers raise it when they find the device held; the CLI when its device lock is taken.
    """


class ModelError(MobsterError):
    """A model call failed (network, rate limit, server error) or its reply was unusable."""


class ResultsError(MobsterError):
    """A ``results.json`` document, or one check's ``result.json``, that can't be read back.

    ``key`` is the dotted key path of the value that is wrong (``checks[2].steps[0].waited_s``),
    None for the whole document. The message names it and says what was expected.
    """

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class Problem(enum.StrEnum):
    """What is wrong with a refused file or folder."""

    SYMLINK = "symlink"
    NOT_REGULAR = "not_regular"
    NOT_FOLDER = "not_folder"
    OWNER = "owner"
    MODE = "mode"
    TOO_LARGE = "too_large"
    CHANGED = "changed"
    #: A signed store's document without a signature, or with one the team key didn't make.
    UNSIGNED = "unsigned"
    FORGED = "forged"


class UnsafeFile(MobsterError):
    """A file or folder that is refused: never followed, never trusted (under ``.mobster/``, or a user's file).

    ``path`` is the file, ``reason`` what is wrong, ``problem`` the same as a stable value, and
    ``fix`` what the user does about it. ``tag`` is the store's version tag of a document that was
    read and then refused (a signed store's ``unsigned`` or ``forged``), None otherwise: what a
    write that replaces it expects (a shared store's document is left in place and replaced).
    """

    def __init__(
        self,
        path: Path,
        reason: str,
        *,
        problem: Problem | None = None,
        fix: str = "delete it; the next run records a new path",
        tag: str | None = None,
    ) -> None:
        super().__init__(f"refusing {path}: {reason}; {fix}")
        self.path = path
        self.reason = reason
        self.problem = problem
        self.fix = fix
        self.tag = tag


class HealFileError(MobsterError):
    """A heal file or heal state that can't be read; the message names the file and line."""


class JournalError(MobsterError):
    """The journal can't be written (or read): the run stops and no further action is sent."""


class DuplicateEffect(MobsterError):
    """The ledger refused to dispatch ``key``: it was dispatched before in this run.

    Its subclass :class:`UnknownOutcomePending` is the other refusal: an earlier outcome is unknown.
    """

    def __init__(self, key: str, message: str | None = None) -> None:
        super().__init__(message or f"{key!r} was already dispatched in this run; a step is dispatched at most once")
        self.key = key


class UnknownOutcomePending(DuplicateEffect):
    """The ledger refused to dispatch ``key``: the outcome of ``pending`` is unknown."""

    def __init__(self, key: str, pending: str) -> None:
        super().__init__(
            key,
            f"{key!r} is not sent: the outcome of {pending!r} is unknown, and nothing is sent after an "
            "unknown outcome; look at the app before running again",
        )
        self.pending = pending


_OS_FIXES = {
    "ENOSPC": "the disk is full: free some space and run again",
    "EDQUOT": "the disk quota is used up: free some space and run again",
    "EACCES": "Mobster may not use it: check its owner and permissions",
    "EPERM": "Mobster may not use it: check its owner and permissions",
    "EROFS": "the filesystem is read-only: run where Mobster may write",
    "ENOENT": "it doesn't exist: create the folder, or check the path",
    "EISDIR": "it is a folder: move it out of the way, or give a file",
    "ENOTDIR": "a part of the path is not a folder: move that file out of the way",
    "ELOOP": "it is a symlink, never followed: delete the link",
    "EEXIST": "something is in the way: move it aside",
    "EMFILE": "too many files are open: raise the limit (ulimit -n)",
}


class StoreUnavailable(MobsterError, OSError):
    """A remote path store can't be reached or refused a call (an ``OSError`` too).

    The one line says which store (its URL with no credentials), what failed and the fix; the
    store's own error stays as ``__cause__``.
    """

    def __init__(self, message: str) -> None:
        super().__init__(errno.EIO, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def os_error_message(exc: OSError) -> str:
    """One line for an ``OSError``: the file, what the system said, and the fix."""
    if isinstance(exc, StoreUnavailable):
        return exc.message
    name = errno.errorcode.get(exc.errno or 0, "")
    where = exc.filename if exc.filename is not None else "a file"
    fix = _OS_FIXES.get(name, "check the path and its permissions")
    return f"{where}: {exc.strerror or type(exc).__name__}; {fix}"
