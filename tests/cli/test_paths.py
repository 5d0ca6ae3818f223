"""Recorded paths that travel: committed beside the checks, or exported and imported through a CI cache.

A project is recorded in one folder; a fresh folder gets only what a CI checkout or a restored
artifact brings (the checks, and the committed paths or a bundle), with the modes uploads keep
(0644 files, 0755 folders) and, where the test runs as root, another owner. It then replays every
check under ``--no-heal`` with zero model calls.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path

SIGNUP = """\
version: 1
name: A new user signs up
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
PRO = """\
version: 1
name: Settings offers Pro
app: {bundle: com.example.yourapp, path: YourApp.app}
steps:
  - Tap "Settings"
  - Tap "Upgrade to Pro"
expect:
  - text: Go Pro
"""
OTHER_UID = 4242


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def make_project(root: Path) -> Path:
    checks = root / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signup.yaml").write_text(SIGNUP)
    (checks / "pro.yaml").write_text(PRO)
    (root / "app.yaml").write_text(sample_path("yourapp").read_text())
    return root


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def checkout(source: Path, target: Path, *, folders: tuple[str, ...]) -> Path:
    """What a CI checkout (or a restored artifact) brings: those folders, 0644 files, 0755 folders, another owner."""
    (target / ".mobster").mkdir(parents=True)
    shutil.copy(source / "app.yaml", target / "app.yaml")
    for name in folders:
        shutil.copytree(source / ".mobster" / name, target / ".mobster" / name)
    for folder, _dirs, files in os.walk(target / ".mobster"):
        Path(folder).chmod(0o755)
        for file in files:
            path = Path(folder) / file
            path.chmod(0o644)
            if os.geteuid() == 0 and "paths" in path.parts:
                os.chown(path, OTHER_UID, OTHER_UID)
    return target


def replay_strictly(root: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> dict[str, Any]:
    monkeypatch.chdir(root)
    result = mobster("test", "--scripted", "app.yaml", "--no-heal", "--json", *extra)
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def test_committed_paths_replay_on_a_fresh_checkout_at_zero_model_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = make_project(tmp_path / "laptop")
    monkeypatch.chdir(recorded)
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", "committed")
    assert first.exit_code == 0, first.output
    committed = sorted((recorded / ".mobster" / "paths").glob("*.json"))
    assert len(committed) == 2
    assert not list((recorded / ".mobster" / "cache" / "replay").glob("*.json"))  # nothing went to the local store
    text = committed[0].read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"  # deterministic
    assert ".mobster/checks/" in text  # the check that recorded it, for the reviewer
    ci = checkout(recorded, tmp_path / "ci", folders=("checks", "paths"))
    doc = replay_strictly(ci, monkeypatch, "--paths", "committed")
    assert doc["summary"]["model_calls"] == 0
    assert [(c["verdict"], c["mode"], c["path"]["used"]) for c in doc["checks"]] == [("passed", "replay", True)] * 2
    for file in (ci / ".mobster" / "paths").glob("*.json"):
        assert stat.S_IMODE(file.stat().st_mode) == 0o644  # a replay never rewrites a committed path


def test_an_exported_bundle_imported_on_a_fresh_machine_replays_at_zero_model_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = make_project(tmp_path / "ci-1")
    monkeypatch.chdir(recorded)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    exported = mobster("paths", "export", str(tmp_path / "bundle.json"))
    assert exported.exit_code == 0, exported.output
    assert "exported 2 paths" in exported.output
    fresh = checkout(recorded, tmp_path / "ci-2", folders=("checks",))
    arrived = fresh / "restored" / "bundle.json"
    arrived.parent.mkdir()
    shutil.copy(tmp_path / "bundle.json", arrived)
    arrived.chmod(0o644)
    if os.geteuid() == 0:
        os.chown(arrived, OTHER_UID, OTHER_UID)
    monkeypatch.chdir(fresh)
    imported = mobster("paths", "import", str(arrived))
    assert imported.exit_code == 0, imported.output
    assert "2 added, 0 already here, 0 kept (newer here), 0 refused" in imported.output
    for file in (fresh / ".mobster" / "cache" / "replay").glob("*.json"):
        st = file.stat()
        assert (stat.S_IMODE(st.st_mode), st.st_uid) == (0o600, os.geteuid())  # our modes, whatever it came with
    doc = replay_strictly(fresh, monkeypatch)
    assert doc["summary"]["model_calls"] == 0
    again = mobster("paths", "import", str(arrived))
    assert "0 added, 2 already here, 0 kept (newer here), 0 refused" in again.output


def test_a_file_that_is_no_bundle_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    for name, body in (
        ("garbage.json", b"\x00\xffnot json"),
        ("list.json", b"[1, 2, 3]"),
        ("other.json", b'{"schema": "mobster.test/1", "checks": []}'),
        ("deep.json", b'{"schema": "mobster.paths/1", "paths": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ):
        (tmp_path / name).write_bytes(body)
        result = mobster("paths", "import", str(tmp_path / name))
        assert result.exit_code == 3, (name, result.output)
        assert name in result.output
        assert "Traceback" not in result.output
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    result = mobster("paths", "import", str(fifo))
    assert result.exit_code == 3
    assert "not a regular file" in result.output
    assert not (project / ".mobster" / "cache" / "replay").exists()


def test_a_bundle_with_a_forged_path_refuses_it_and_keeps_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("paths", "export", "bundle.json").exit_code == 0
    bundle = json.loads((project / "bundle.json").read_text())
    good, forged = bundle["paths"]
    forged["steps"][0]["op"] = "RM_RF"
    orphan = json.loads(json.dumps(good))
    orphan["identity"] = "0" * 16
    long_seq = json.loads(json.dumps(good))
    long_seq["seq"] = 10**300
    bundle["paths"] = [good, forged, orphan, long_seq, "a string", {"format": 2}]
    (project / "bundle.json").write_text(json.dumps(bundle))
    shutil.rmtree(project / ".mobster" / "cache" / "replay")
    result = mobster("paths", "import", "bundle.json")
    assert result.exit_code == 3, result.output
    assert "1 added, 0 already here, 0 kept (newer here), 5 refused" in result.output
    assert "unknown op" in result.output or "RM_RF" in result.output
    assert "no check of this project has its steps" in result.output
    assert "a number of 301 digits" in result.output
    assert len(list((project / ".mobster" / "cache" / "replay").glob("*.json"))) == 1


def test_list_show_and_forget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("test", "--scripted", "app.yaml", "signup").exit_code == 0  # a replay: "last replayed"
    listed = mobster("paths", "list", "--json")
    assert listed.exit_code == 0, listed.output
    entries = json.loads(listed.stdout)
    assert sorted(e["checks"][0] for e in entries) == [".mobster/checks/pro.yaml", ".mobster/checks/signup.yaml"]
    signup = next(e for e in entries if e["checks"] == [".mobster/checks/signup.yaml"])
    assert signup["origin"]["how"] == "recorded"
    assert signup["env"]["app_version"] == "1.0"
    assert signup["last_replayed"] is not None
    assert signup["steps"] == ['Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Tap "Continue"']
    pro = next(e for e in entries if e["checks"] == [".mobster/checks/pro.yaml"])
    assert pro["last_replayed"] is None
    text = mobster("paths", "list", "signup")
    assert "signup.yaml" in text.output
    assert "pro.yaml" not in text.output
    shown = mobster("paths", "show", "signup")
    assert '3. Tap "Continue"' in shown.output
    forgot = mobster("paths", "forget", "signup")
    assert forgot.exit_code == 0
    assert "forgot A new user signs up" in forgot.output
    after = json.loads(mobster("paths", "list", "--json").stdout)
    assert [e["checks"] for e in after] == [[".mobster/checks/pro.yaml"]]
    again = mobster("test", "--scripted", "app.yaml", "--no-heal", "signup", "--json")
    assert json.loads(again.stdout)["checks"][0]["class"] == "model"  # forgotten: it must record again


def test_a_symlink_in_the_committed_store_is_never_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", "committed").exit_code == 0
    (file, *_rest) = sorted((project / ".mobster" / "paths").glob("*.json"))
    secret = tmp_path / "elsewhere.json"
    secret.write_text(file.read_text())
    file.unlink()
    file.symlink_to(secret)
    result = mobster("test", "--scripted", "app.yaml", "--no-heal", "--paths", "committed", "--json")
    messages = [c["message"] for c in json.loads(result.stdout)["checks"]]
    assert any("symlink" in m for m in messages), messages
    assert file.is_symlink()  # left in place: it may not be ours to move


def test_a_path_with_a_5000_digit_seq_is_set_aside_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "signup").exit_code == 0
    (file,) = (project / ".mobster" / "cache" / "replay").glob("*.json")
    text = file.read_text()
    file.write_text(text.replace('"seq": 1', '"seq": ' + "9" * 5000))
    result = mobster("test", "--scripted", "app.yaml", "--no-heal", "signup", "--json")
    (check,) = json.loads(result.stdout)["checks"]
    assert check["class"] == "model"  # it records afresh, saying why: never "internal"
    assert "a number too long" in check["message"]
    assert (file.parent / f"{file.name}.corrupt").exists()


def test_a_path_whose_check_was_changed_or_removed_is_forgotten_by_its_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `paths forget` wanted a check: the path of a check that was deleted could not be forgotten.
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    (project / ".mobster" / "checks" / "pro.yaml").unlink()
    (orphan,) = [e for e in json.loads(mobster("paths", "list", "--json").stdout) if not e["checks"]]
    identity = orphan["identity"]
    listed = mobster("paths", "list")
    assert f"no check has it now (identity {identity}: mobster paths forget {identity} forgets it)" in listed.output
    forgot = mobster("paths", "forget", identity)
    assert forgot.exit_code == 0, forgot.output
    assert f"forgot identity {identity} (no check has it now)  1.0 (1) on iOS 26" in forgot.output
    left = json.loads(mobster("paths", "list", "--json").stdout)
    assert [e["checks"] for e in left] == [[".mobster/checks/signup.yaml"]]  # the other check's path stays
    again = mobster("paths", "forget", identity)
    assert "no recorded path in the local store to forget" in again.output
    # A live check's identity names it; a name that is neither a check nor an identity is one line, exit 3.
    signup = left[0]["identity"]
    assert "forgot A new user signs up  1.0 (1)" in mobster("paths", "forget", signup).output
    wrong = mobster("paths", "forget", "nosuchcheck")
    assert wrong.exit_code == 3
    assert "no check 'nosuchcheck': give a path, a name in .mobster/checks/, or a path's identity" in wrong.output


def test_import_says_which_paths_were_already_here_which_are_newer_here_and_which_are_too_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Importing a bundle twice said "2 kept (newer here)" of paths recorded at the same moment.
    project = make_project(tmp_path / "p")
    (project / ".mobster" / "checks" / "pro.yaml").unlink()
    monkeypatch.chdir(project)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    bundle = tmp_path / "bundle.json"
    assert mobster("paths", "export", str(bundle)).exit_code == 0
    same = mobster("paths", "import", str(bundle))
    assert "0 added, 1 already here, 0 kept (newer here), 0 refused" in same.output, same.output
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--fresh").exit_code == 0
    newer = mobster("paths", "import", str(bundle))
    assert "0 added, 0 already here, 1 kept (newer here), 0 refused" in newer.output, newer.output
    for n in range(1, 5):  # four newer builds: the bundle's 1.0 is older than every path kept here
        app = project / f"app-{n}.yaml"
        app.write_text((project / "app.yaml").read_text().replace('version: "1.0"', f'version: "2.{n}"'))
        assert mobster("test", "--scripted", str(app), "--model", "scripted").exit_code == 0
    older = mobster("paths", "import", str(bundle))
    assert older.exit_code == 0, older.output
    expected = "0 added, 0 already here, 0 kept (newer here), 1 left out (older than the newest paths kept here)"
    assert expected in older.output, older.output
