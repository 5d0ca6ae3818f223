"""The run's journal and effect ledger: no side effect is sent twice, or after an unknown one.

Rule 1: an action's intent is appended to ``<run_dir>/journal.jsonl`` and fsynced before
        :meth:`Journal.intent` returns; the caller sends the action only after that. Its outcome
        (``ok``, ``unknown``, ``refused``, ``not_sent``) is appended and fsynced after.
Rule 2: a journal that can't be written stops the run: :class:`JournalError` says "no further
        action is sent", and every later write raises it too.
Rule 3: masked text never reaches the journal. An entry holding a key named ``text`` (at any
        depth) is refused unless the caller says whether it is masked: ``masked=True`` writes
        every ``text`` as null, ``masked=False`` writes it as is. A caller that forgets gets an
        error before anything is written, never a secret on disk. Typed text goes under ``text``
        and nowhere else (not in ``detail``).
Rule 4: a line is written whole with its newline in one append; a last line without its newline
        was never written (its call never returned), so readers drop it and say so.
Rule 5: the ledger lets a key be dispatched at most once per run, and nothing at all once an
        outcome is unknown. A key begun and never settled counts as unknown. A key whose action
        was not sent (refused, or failed before dispatch) is released and may be begun again.

The journal file is mode 0600 in a 0700 folder, opened with ``O_NOFOLLOW`` in append mode. The
ledger lives in memory, one per run.
"""

from __future__ import annotations

import enum
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from mobster_core._log import get_logger
from mobster_core._rules.formats.text import utf8
from mobster_core.exceptions import DuplicateEffect, JournalError, UnknownOutcomePending

from .fsutil import UnsafeFile, private_dir, read_private

__all__ = [
    "JOURNAL_NAME",
    "MAX_JOURNAL_BYTES",
    "DuplicateEffect",
    "Effect",
    "EffectLedger",
    "Journal",
    "JournalError",
    "JournalWriter",
    "UnknownOutcomePending",
    "read_journal",
]

log = get_logger(__name__)

JOURNAL_NAME = "journal.jsonl"
#: The largest journal :func:`read_journal` (and a reopened :class:`Journal`) reads, in bytes.
MAX_JOURNAL_BYTES = 64 * 1024 * 1024

_NO_MORE = "no further action is sent"
_RESERVED = frozenset({"seq", "event", "key", "masked"})
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | _CLOEXEC


class Effect(enum.StrEnum):
    """What became of an action: done, maybe done, refused, or never sent."""

    OK = "ok"
    UNKNOWN = "unknown"
    REFUSED = "refused"
    NOT_SENT = "not_sent"


class JournalWriter:
    """The journal's rules (1-3) without a file: subclasses write a record and return its ``seq``.

    :class:`Journal` appends to ``journal.jsonl``; ``mobster_core.testing.MemoryJournal`` keeps the
    records in memory for tests and benchmarks, under the same rules.
    """

    _seq = 0

    def intent(self, key: str, entry: Mapping[str, Any], *, masked: bool | None = None) -> int:
        """Append the intent to send ``key`` (Rules 1, 3); return its ``seq`` once it is written.

        ``entry`` is what is about to be sent (op, step, target, …). When it holds a ``text`` key,
        ``masked`` is required: True writes the text as null.
        """
        if not isinstance(key, str) or not key:
            raise ValueError(f"a journal key is a non-empty string, got {key!r}")
        clash = sorted(_RESERVED & set(entry))
        if clash:
            raise ValueError(f"entry key {clash[0]!r} is the journal's own; rename it")
        if masked is None and _has_text(entry):
            raise ValueError(
                f"the entry for {key!r} holds text: pass masked=True (it is written as null) or masked=False"
            )
        body = _masked(entry) if masked else dict(entry)
        record: dict[str, Any] = {"seq": self._seq + 1, "event": "intent", "key": key, **body}
        if masked is not None:
            record["masked"] = masked
        return self._append(record)

    def outcome(self, key: str, outcome: Effect, detail: str = "") -> None:
        """Append the outcome of ``key`` (Rule 1). ``detail`` never holds typed text (Rule 3)."""
        record = {
            "seq": self._seq + 1,
            "event": "outcome",
            "key": key,
            "outcome": Effect(outcome).value,
            "detail": detail,
        }
        self._append(record)

    def _append(self, record: dict[str, Any]) -> int:
        raise NotImplementedError


class Journal(JournalWriter):
    """The run's journal at ``<run_dir>/journal.jsonl`` (see the module rules); a context manager.

    Opening an existing journal appends to it: ``seq`` goes on from its last entry, and a torn last
    line (Rule 4) is cut off first. Raises :class:`JournalError` when it can't be opened.
    """

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / JOURNAL_NAME
        try:
            private_dir(run_dir)
            fd = os.open(self.path, _OPEN_FLAGS, 0o600)
        except (OSError, UnsafeFile) as exc:
            raise JournalError(f"can't open the journal {self.path}: {exc}; {_NO_MORE}") from exc
        try:
            self._seq = _prepare(fd, self.path)
        except BaseException:
            os.close(fd)
            raise
        self._fd: int | None = fd
        self._broken: str | None = None

    def close(self) -> None:
        """Close the file (every entry is already on disk). Closing twice is fine."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _append(self, record: dict[str, Any]) -> int:
        if self._fd is None:
            raise JournalError(f"the journal {self.path} is closed; {_NO_MORE}")
        if self._broken is not None:
            raise JournalError(f"an earlier write to the journal {self.path} failed ({self._broken}); {_NO_MORE}")
        try:
            text = json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise JournalError(f"the journal entry for {record['key']!r} isn't JSON ({exc}); {_NO_MORE}") from exc
        line = memoryview(utf8(text + "\n"))
        try:
            while line:
                line = line[os.write(self._fd, line) :]
            os.fsync(self._fd)
        except OSError as exc:
            self._broken = str(exc)
            raise JournalError(f"couldn't write the journal {self.path}: {exc}; {_NO_MORE}") from exc
        self._seq += 1
        return self._seq


def _prepare(fd: int, path: Path) -> int:
    """Check an opened journal, cut a torn last line, and return the last ``seq`` in it."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise JournalError(f"the journal {path} is not a regular file; delete it; {_NO_MORE}")
    if st.st_uid != os.getuid():
        raise JournalError(f"the journal {path} belongs to another user (uid {st.st_uid}); {_NO_MORE}")
    if stat.S_IMODE(st.st_mode) != 0o600:
        os.fchmod(fd, 0o600)
    if st.st_size == 0:
        return 0
    if st.st_size > MAX_JOURNAL_BYTES:
        raise JournalError(f"the journal {path} is over {MAX_JOURNAL_BYTES} bytes; {_NO_MORE}")
    data = os.pread(fd, st.st_size, 0)
    entries, torn = _parse(data, path)
    if torn:
        os.ftruncate(fd, len(data) - torn)
        os.fsync(fd)
        log.warning("cut the torn last line of a journal", file=str(path), torn_bytes=torn)
    seqs = [e["seq"] for e in entries if isinstance(e.get("seq"), int)]
    return max(seqs, default=0)


def read_journal(path: Path) -> list[dict[str, Any]]:
    """The entries of a journal, in order. A torn last line (Rule 4) is left out and logged.

    Raises :class:`JournalError` when the file is refused or a complete line isn't an entry.
    """
    try:
        data = read_private(path, max_bytes=MAX_JOURNAL_BYTES)
    except UnsafeFile as exc:
        raise JournalError(f"refusing the journal {path}: {exc.reason}") from exc
    entries, torn = _parse(data, path)
    if torn:
        log.warning(
            "the journal's last line is torn (a writer was killed); it is left out",
            file=str(path),
            line=len(entries) + 1,
            torn_bytes=torn,
        )
    return entries


def _parse(data: bytes, path: Path) -> tuple[list[dict[str, Any]], int]:
    """The entries of complete lines, and how many bytes follow the last newline."""
    *lines, tail = data.split(b"\n")
    entries: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, 1):
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise JournalError(f"{path} line {number} is not a journal entry ({exc}); it is damaged") from exc
        if not isinstance(entry, dict):
            raise JournalError(f"{path} line {number} is not a journal entry (not an object); it is damaged")
        entries.append(entry)
    return entries, len(tail)


def _has_text(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(k == "text" or _has_text(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_text(v) for v in value)
    return False


def _masked(value: Any) -> Any:
    """``value`` with every ``text`` key, at any depth, set to null."""
    if isinstance(value, Mapping):
        return {k: None if k == "text" else _masked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(v) for v in value]
    return value


class EffectLedger:
    """Which actions of this run were dispatched and how they ended (Rule 5). In memory, one per run."""

    def __init__(self) -> None:
        # key -> its outcome; None while begun and not settled (it counts as unknown).
        self._effects: dict[str, Effect | None] = {}
        # The keys whose outcome is unknown, in the order begun: kept apart so that ``begin``
        # stays O(1) however long the run (a dict used as an ordered set).
        self._unknown: dict[str, None] = {}

    def begin(self, key: str) -> None:
        """Claim ``key`` before its action is sent.

        Raises :class:`DuplicateEffect` when ``key`` was begun before in this run, and
        :class:`UnknownOutcomePending` when an earlier action's outcome is unknown.
        """
        if key in self._effects:
            raise DuplicateEffect(key)
        if self._unknown:
            raise UnknownOutcomePending(key, next(iter(self._unknown)))
        self._effects[key] = None
        self._unknown[key] = None

    def settle(self, key: str, outcome: Effect) -> None:
        """Record how ``key``'s action ended. ``not_sent`` and ``refused`` release the key."""
        outcome = Effect(outcome)
        self._check_open(key)
        if outcome in (Effect.NOT_SENT, Effect.REFUSED):
            del self._effects[key]
        else:
            self._effects[key] = outcome
        if outcome is not Effect.UNKNOWN:
            self._unknown.pop(key, None)

    def not_sent(self, key: str) -> None:
        """Release ``key``: its action was refused or failed before dispatch, so nothing ran."""
        self.settle(key, Effect.NOT_SENT)

    @property
    def unknown(self) -> tuple[str, ...]:
        """The keys whose outcome is unknown (settled ``unknown``, or begun and never settled)."""
        return tuple(self._unknown)

    def _check_open(self, key: str) -> None:
        if key not in self._effects:
            raise ValueError(f"{key!r} was never begun (or was released)")
        if self._effects[key] is not None:
            raise ValueError(f"{key!r} is already settled: {self._effects[key]}")
