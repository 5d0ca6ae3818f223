"""The exceptions of Mobster replay.

Exceptions are for misuse and infrastructure failures. What the app under test does (a drifted
step, a failed assertion) is a result with a class and a message, never an exception.

::

    MobsterError
    ├── PathError            a recorded path (or one step of it) is malformed
    ├── ScriptError          a scripted phone's app script is malformed
    ├── DeviceError          the device could not do what was asked; nothing was sent
    │   └── UnknownOutcome   an action may or may not have happened; never re-send it
    ├── ModelError           a model call failed or replied with something unusable
    ├── UnsafeFile           a file under .mobster/ is a symlink, someone else's, or too open
    ├── JournalError         the run's journal can't be written: no further action is sent
    └── DuplicateEffect      the effect ledger refused to send a side effect twice
        └── UnknownOutcomePending   ... or to send anything after an unknown outcome

(``UnsafeFile`` lives in ``_fsutil``; ``JournalError``, ``DuplicateEffect`` and
``UnknownOutcomePending`` in ``_journal``; all are re-exported by ``mobster_core``.)
"""

from __future__ import annotations

__all__ = [
    "DeviceError",
    "MobsterError",
    "ModelError",
    "PathError",
    "ScriptError",
    "UnknownOutcome",
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


class ScriptError(MobsterError):
    """A scripted phone's app script is malformed: the message names the file, line and key."""


class DeviceError(MobsterError):
    """The device failed before an action was sent, or a read failed. Nothing happened on it."""


class UnknownOutcome(DeviceError):
    """An action was sent and it is not known whether it happened.

    It is never re-sent: the run ends ``couldnt_run``, class ``unknown_outcome``.
    """


class ModelError(MobsterError):
    """A model call failed (network, rate limit, server error) or its reply was unusable."""
