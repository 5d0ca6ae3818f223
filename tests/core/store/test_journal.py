from __future__ import annotations

import errno
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._store import journal as _journal
from mobster_core._store.fsutil import MOBSTER_DIR
from mobster_core._store.journal import Effect, EffectLedger, Journal, read_journal
from mobster_core.exceptions import DuplicateEffect, JournalError, UnknownOutcomePending
from tests.core.helpers import owned_by_another_user

SECRET = "hunter2-correct-horse"
TAP = {"op": "TAP", "step": 1, "target": {"label": "Continue", "role": "Button", "path": "/0/3/1"}}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return tmp_path / MOBSTER_DIR / "runs" / "r1"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- writing --------------------------------------------------------------------------------


def test_intents_and_outcomes_are_lines_in_order(run_dir: Path) -> None:
    with Journal(run_dir) as journal:
        assert journal.intent("step-1", TAP) == 1
        journal.outcome("step-1", Effect.OK)
        assert journal.intent("step-2", {"op": "SUBMIT"}) == 3
        journal.outcome("step-2", Effect.UNKNOWN, "timed out after 10 s")
    assert journal.path == run_dir / "journal.jsonl"
    assert lines(journal.path) == [
        {"seq": 1, "event": "intent", "key": "step-1", **TAP},
        {"seq": 2, "event": "outcome", "key": "step-1", "outcome": "ok", "detail": ""},
        {"seq": 3, "event": "intent", "key": "step-2", "op": "SUBMIT"},
        {
            "seq": 4,
            "event": "outcome",
            "key": "step-2",
            "outcome": "unknown",
            "detail": "timed out after 10 s",
        },
    ]
    assert read_journal(journal.path) == lines(journal.path)


def test_the_journal_is_private_under_a_permissive_umask(run_dir: Path, tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        with Journal(run_dir) as journal:
            journal.intent("launch", {"op": "LAUNCH"})
    finally:
        os.umask(old)
    assert mode(journal.path) == 0o600
    for folder in (run_dir, run_dir.parent, tmp_path / MOBSTER_DIR):
        assert mode(folder) == 0o700


def test_the_intent_is_fsynced_before_intent_returns(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_write, real_fsync = os.write, os.fsync

    def write(fd: int, data: Any) -> int:
        events.append("write")
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        events.append("fsync")
        real_fsync(fd)

    journal = Journal(run_dir)
    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)
    journal.intent("step-1", TAP)
    assert events == ["write", "fsync"]  # on disk by the time the caller may send
    journal.outcome("step-1", Effect.OK)
    assert events == ["write", "fsync", "write", "fsync"]
    journal.close()


def test_a_short_write_is_finished(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def dribble(fd: int, data: Any) -> int:
        return real_write(fd, bytes(data[:3]))

    journal = Journal(run_dir)
    monkeypatch.setattr(os, "write", dribble)
    journal.intent("step-1", TAP)
    monkeypatch.undo()
    journal.close()
    assert lines(journal.path) == [{"seq": 1, "event": "intent", "key": "step-1", **TAP}]


def test_every_outcome_value() -> None:
    assert [o.value for o in Effect] == ["ok", "unknown", "refused", "not_sent"]


def test_an_outcome_may_be_given_as_its_value(run_dir: Path) -> None:
    with Journal(run_dir) as journal:
        journal.outcome("step-1", "refused", "a purchase on a simulator")  # type: ignore[arg-type]
    assert lines(journal.path)[0]["outcome"] == "refused"


# -- masked text ----------------------------------------------------------------------------


def every_file(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_masked_text_is_never_written(run_dir: Path, tmp_path: Path) -> None:
    with Journal(run_dir) as journal:
        journal.intent(
            "step-2",
            {
                "op": "TYPE",
                "text": SECRET,
                "target": {"label": "Password", "text": SECRET},
                "also": [{"text": SECRET}],
            },
            masked=True,
        )
        journal.outcome("step-2", Effect.OK)
    for path in every_file(tmp_path):
        assert SECRET.encode() not in path.read_bytes(), path
    [intent, _] = lines(journal.path)
    assert intent["text"] is None
    assert intent["target"] == {"label": "Password", "text": None}
    assert intent["also"] == [{"text": None}]
    assert intent["masked"] is True


def test_text_without_saying_whether_it_is_masked_is_refused(run_dir: Path, tmp_path: Path) -> None:
    with Journal(run_dir) as journal:
        for entry in (
            {"op": "TYPE", "text": SECRET},
            {"op": "TYPE", "target": {"text": SECRET}},
            {"x": [{"text": 1}]},
        ):
            with pytest.raises(ValueError, match="masked=True"):
                journal.intent("step-2", entry)
    assert journal.path.read_bytes() == b""
    for path in every_file(tmp_path):
        assert SECRET.encode() not in path.read_bytes()


def test_unmasked_text_is_written_when_the_caller_says_so(run_dir: Path) -> None:
    with Journal(run_dir) as journal:
        journal.intent("step-2", {"op": "TYPE", "text": "ada@example.com"}, masked=False)
        journal.intent("launch", {"op": "LAUNCH"}, masked=False)
    first, second = lines(journal.path)
    assert first["text"] == "ada@example.com"
    assert first["masked"] is False
    assert second["masked"] is False


@pytest.mark.parametrize("key", ["seq", "event", "key", "masked"])
def test_an_entry_cant_overwrite_the_journals_own_keys(run_dir: Path, key: str) -> None:
    with Journal(run_dir) as journal, pytest.raises(ValueError, match=f"entry key '{key}'"):
        journal.intent("step-1", {key: 99})


@pytest.mark.parametrize("key", ["", None, 3])
def test_a_key_is_a_non_empty_string(run_dir: Path, key: Any) -> None:
    with Journal(run_dir) as journal, pytest.raises(ValueError, match="non-empty string"):
        journal.intent(key, TAP)


# -- failures -------------------------------------------------------------------------------


def test_a_failed_write_stops_every_later_action(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = Journal(run_dir)
    journal.intent("step-1", TAP)

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(JournalError, match="no further action is sent") as info:
        journal.intent("step-2", TAP)
    assert isinstance(info.value, mc.MobsterError)
    assert isinstance(info.value.__cause__, OSError)
    monkeypatch.undo()
    with pytest.raises(JournalError, match=r"an earlier write .* failed .*no further action is sent"):
        journal.outcome("step-1", Effect.OK)
    journal.close()


def test_an_entry_that_isnt_json_is_a_journal_error(run_dir: Path) -> None:
    with Journal(run_dir) as journal:
        with pytest.raises(JournalError, match=r"isn't JSON.*no further action is sent"):
            journal.intent("step-1", {"op": object()})
        with pytest.raises(JournalError, match="isn't JSON"):
            journal.intent("step-1", {"x": float("nan")})
        assert journal.intent("step-1", TAP) == 1  # nothing was written, the journal goes on


def test_a_closed_journal_sends_nothing(run_dir: Path) -> None:
    journal = Journal(run_dir)
    journal.close()
    journal.close()
    with pytest.raises(JournalError, match="closed; no further action is sent"):
        journal.intent("step-1", TAP)


def test_a_symlinked_journal_is_refused(run_dir: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    run_dir.mkdir(parents=True)
    (run_dir / "journal.jsonl").symlink_to(victim)
    with pytest.raises(JournalError, match=r"can't open the journal.*no further action is sent"):
        Journal(run_dir)
    assert victim.read_bytes() == b"precious"


def test_a_run_folder_under_a_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / MOBSTER_DIR).mkdir()
    (tmp_path / MOBSTER_DIR / "runs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(JournalError, match="symlink"):
        Journal(tmp_path / MOBSTER_DIR / "runs" / "r1")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_journal_that_isnt_a_regular_file_is_refused(run_dir: Path) -> None:
    run_dir.mkdir(parents=True)
    os.mkfifo(run_dir / "journal.jsonl", 0o600)
    with pytest.raises(JournalError, match="not a regular file"):
        Journal(run_dir)


def test_a_journal_of_another_user_is_refused(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Journal(run_dir).close()
    owned_by_another_user(monkeypatch)
    with pytest.raises(JournalError, match="belongs to another user"):
        Journal(run_dir)


# -- reopening and reading ------------------------------------------------------------------


def test_reopening_goes_on_from_the_last_seq(run_dir: Path) -> None:
    with Journal(run_dir) as journal:
        journal.intent("launch", {"op": "LAUNCH"})
        journal.outcome("launch", Effect.OK)
    journal.path.chmod(0o644)
    with Journal(run_dir) as again:
        assert again.intent("step-1", TAP) == 3
    assert mode(journal.path) == 0o600
    assert [e["seq"] for e in read_journal(journal.path)] == [1, 2, 3]


def test_reopening_cuts_a_torn_last_line(run_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mobster")
    with Journal(run_dir) as journal:
        journal.intent("step-1", TAP)
    with journal.path.open("ab") as f:
        f.write(b'{"seq": 2, "event": "outc')
    with Journal(run_dir) as again:
        assert again.intent("step-2", TAP) == 2
    assert [e["seq"] for e in read_journal(journal.path)] == [1, 2]
    assert any(r.getMessage() == "cut the torn last line of a journal" for r in caplog.records)


def test_reopening_a_journal_over_the_size_limit_is_refused(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Journal(run_dir) as journal:
        journal.intent("step-1", TAP)
    monkeypatch.setattr(_journal, "MAX_JOURNAL_BYTES", 10)
    with pytest.raises(JournalError, match="over 10 bytes"):
        Journal(run_dir)


def test_a_torn_last_line_is_left_out_and_reported(run_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mobster")
    with Journal(run_dir) as journal:
        journal.intent("step-1", TAP)
        journal.outcome("step-1", Effect.OK)
    with journal.path.open("ab") as f:
        f.write('{"seq": 3, "event": "intent", "key": "step-2", "label": "Caf\u00e9'.encode()[:-1])  # mid-character
    entries = read_journal(journal.path)
    assert [e["seq"] for e in entries] == [1, 2]
    [record] = [r for r in caplog.records if "torn" in r.getMessage()]
    assert record.levelno == logging.WARNING
    assert record.__dict__["line"] == 3
    assert record.__dict__["file"] == str(journal.path)


def test_a_whole_last_line_without_its_newline_was_never_written(run_dir: Path) -> None:
    with Journal(run_dir) as journal:
        journal.intent("step-1", TAP)
    with journal.path.open("ab") as f:
        f.write(b'{"seq": 2, "event": "outcome", "key": "step-1", "outcome": "ok", "detail": ""}')
    assert [e["seq"] for e in read_journal(journal.path)] == [1]


@pytest.mark.parametrize("bad", [b"not json", b"[1, 2]", b"\xff\xfe", b""])
def test_a_damaged_complete_line_is_an_error(run_dir: Path, bad: bytes) -> None:
    with Journal(run_dir) as journal:
        journal.intent("step-1", TAP)
    with journal.path.open("ab") as f:
        f.write(bad + b"\n")
    with pytest.raises(JournalError, match="line 2 is not a journal entry"):
        read_journal(journal.path)


def test_reading_a_symlinked_journal_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b'{"seq": 1}\n')
    link = tmp_path / "journal.jsonl"
    link.symlink_to(victim)
    with pytest.raises(JournalError, match=r"refusing the journal .*symlink"):
        read_journal(link)


def test_an_empty_journal_reads_as_nothing(run_dir: Path) -> None:
    Journal(run_dir).close()
    assert read_journal(run_dir / "journal.jsonl") == []


# -- the effect ledger ----------------------------------------------------------------------


def test_a_key_is_dispatched_at_most_once() -> None:
    ledger = EffectLedger()
    ledger.begin("step-1")
    ledger.settle("step-1", Effect.OK)
    with pytest.raises(DuplicateEffect, match="'step-1' was already dispatched") as info:
        ledger.begin("step-1")
    assert info.value.key == "step-1"
    assert isinstance(info.value, mc.MobsterError)
    ledger.begin("step-2")


def test_nothing_is_sent_after_an_unknown_outcome() -> None:
    ledger = EffectLedger()
    ledger.begin("step-1")
    ledger.settle("step-1", Effect.UNKNOWN)
    assert ledger.unknown == ("step-1",)
    with pytest.raises(UnknownOutcomePending, match="the outcome of 'step-1' is unknown") as info:
        ledger.begin("step-2")
    assert info.value.key == "step-2"
    assert info.value.pending == "step-1"
    assert isinstance(info.value, DuplicateEffect)
    assert "look at the app" in str(info.value)


def test_a_key_begun_and_never_settled_counts_as_unknown() -> None:
    ledger = EffectLedger()
    ledger.begin("step-1")
    assert ledger.unknown == ("step-1",)
    with pytest.raises(UnknownOutcomePending, match="'step-1'"):
        ledger.begin("step-2")
    with pytest.raises(DuplicateEffect):
        ledger.begin("step-1")


def test_a_key_not_sent_is_released() -> None:
    ledger = EffectLedger()
    ledger.begin("step-1")
    ledger.not_sent("step-1")
    assert ledger.unknown == ()
    ledger.begin("step-1")
    ledger.settle("step-1", Effect.REFUSED)
    ledger.begin("step-1")
    ledger.settle("step-1", "ok")  # type: ignore[arg-type]
    assert ledger.unknown == ()


def test_unknown_lists_keys_in_the_order_they_were_begun() -> None:
    ledger = EffectLedger()
    ledger.begin("b")
    ledger.settle("b", Effect.UNKNOWN)
    ledger._effects["a"] = None  # a second one can't be begun through the front door
    ledger._unknown["a"] = None
    assert ledger.unknown == ("b", "a")


def test_settling_a_key_that_isnt_open_is_a_mistake() -> None:
    ledger = EffectLedger()
    with pytest.raises(ValueError, match="never begun"):
        ledger.settle("step-1", Effect.OK)
    with pytest.raises(ValueError, match="never begun"):
        ledger.not_sent("step-1")
    ledger.begin("step-1")
    ledger.settle("step-1", Effect.OK)
    with pytest.raises(ValueError, match="already settled: ok"):
        ledger.settle("step-1", Effect.UNKNOWN)
