"""A writer killed with SIGKILL at any moment leaves the old file or the new one, never a torn one,
and never a temporary file that breaks the next run; two processes writing the same heal file
through the project lock lose nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from mobster_core._store.fsutil import remove_stale_temps
from mobster_core._store.journal import read_journal
from mobster_core.heals import heal_file_for, read_heal_file

WRITER = r"""
import json, sys
from pathlib import Path
from mobster_core._store.fsutil import atomic_write
from mobster_core._store.journal import Journal
target = Path(sys.argv[1])
journal = Journal(target.parent / "run")
n = 0
print("ready", flush=True)
while True:
    n += 1
    # A big value so a write takes long enough to be killed in the middle of it.
    atomic_write(target, json.dumps({"n": n, "pad": "x" * 200_000}).encode())
    journal.intent(f"k{n}", {"op": "TAP", "n": n})
"""


def test_sigkill_at_many_points_never_tears_a_file(tmp_path: Path) -> None:
    target = tmp_path / ".mobster" / "cache" / "replay" / "state.json"
    kills = 0
    for delay in (0.0, 0.003, 0.007, 0.011, 0.019, 0.023, 0.031, 0.047, 0.061, 0.083, 0.097, 0.13):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        kills += 1
        if target.exists():
            data = json.loads(target.read_text())  # whole: the old file or the new one
            assert isinstance(data["n"], int)
            assert oct(target.stat().st_mode & 0o777) == "0o600"
        events = read_journal(tmp_path / ".mobster" / "cache" / "replay" / "run" / "journal.jsonl")
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert kills == 12
    # Temporary files a killed writer left are ignored by readers and swept by the next run.
    temps = list(target.parent.glob(".tmp-*"))
    for t in temps:
        os.utime(t, (time.time() - 3600, time.time() - 3600))
    remove_stale_temps(target.parent, started_at=datetime.now(UTC))
    assert not list(target.parent.glob(".tmp-*"))


MERGER = r"""
import sys
from pathlib import Path
from mobster_core._store.fsutil import project_lock
from mobster_core._store.healfile import HealEntry, heal_file_for, merge_entries, read_heal_file, write_heal_file
root, check, first = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
for step in range(first, first + 40, 2):
    with project_lock(root):
        entries = read_heal_file(heal_file_for(check))
        write_heal_file(check, merge_entries(entries, [HealEntry(step, "a", "b", "why", (), ())]))
"""


def test_two_processes_writing_one_heal_file_lose_nothing(tmp_path: Path) -> None:
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    check = checks / "signup.yaml"
    check.write_text("version: 1\n")
    procs = [
        subprocess.Popen([sys.executable, "-c", MERGER, str(tmp_path), str(check), str(first)]) for first in (1, 2)
    ]
    for p in procs:
        assert p.wait(timeout=60) == 0
    steps = [e.step for e in read_heal_file(heal_file_for(check))]
    assert steps == list(range(1, 41))
