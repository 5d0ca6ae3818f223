"""Files outside ``.mobster/``, and committed ones, handled carefully (issue 37, item 4), through the commands.

Each case runs ``mobster`` in-process on the scripted phone and a fake clock (``catch_exceptions=False``:
a traceback fails the test), under a 20 s alarm (a FIFO read or ``/dev/zero`` would hang).
"""

from __future__ import annotations

import json
import logging
import os
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core._rules.replay.identity import Env
from mobster_core._store.healfile import HealState, load_heal_state, state_name
from mobster_core._store.pathstores import CommittedPaths
from mobster_core.testing import FakeClock
from mobster_drivers.devices.appium._bundle import read_bundle_info
from mobster_drivers.devices.scripted import sample_path
from mobster_harness._lock import DeviceLock
from tests.samples import SIGNUP

HANG_SECONDS = 20
pytestmark = pytest.mark.usefixtures("no_hang")
ROOT = os.geteuid() == 0


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def one_line(result: Result) -> str:
    lines = [line for line in result.output.splitlines() if line.startswith("mobster: ")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def project(project: Path) -> Path:
    """The sign-up check on the sample app, recorded in the committed store."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    recorded = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", "committed")
    assert recorded.exit_code == 0, recorded.output
    return project


def committed(project: Path) -> Path:
    [file] = (project / ".mobster" / "paths").glob("*.json")
    return file


def device_clone(folder: Path) -> Path:
    """A character device of the test's own (the numbers of /dev/null), so /dev/null itself is never at stake."""
    device = folder / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return device


# -- paths export FILE ---------------------------------------------------------------------------


def test_export_never_writes_through_a_link_planted_at_a_temporary_name(project: Path) -> None:
    victim = project / "victim.txt"
    victim.write_text("precious")
    (project / ".bundle.json.tmp").symlink_to(victim)  # the name the export's temporary file had
    result = mobster("paths", "export", "bundle.json", "--paths", "committed")
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "precious"
    assert json.loads((project / "bundle.json").read_text())["schema"] == "mobster.paths/1"
    assert not [p for p in project.iterdir() if p.name.startswith(".tmp-")]


def test_export_onto_a_symlink_refuses_it_and_changes_neither(project: Path) -> None:
    victim = project / "victim.txt"
    victim.write_text("precious")
    (project / "bundle.json").symlink_to(victim)
    result = mobster("paths", "export", "bundle.json", "--paths", "committed")
    assert result.exit_code == 3
    assert one_line(result) == (
        "mobster: bundle.json: it is a symlink (mobster never writes through one); "
        "give the file itself, or delete the link"
    )
    assert victim.read_text() == "precious"
    assert (project / "bundle.json").is_symlink()


def test_export_onto_a_fifo_or_a_device_is_refused_at_once(project: Path) -> None:
    os.mkfifo(project / "fifo.json")
    targets = ["fifo.json"]
    if ROOT:
        targets.append(str(device_clone(project)))
    for target in targets:
        result = mobster("paths", "export", target, "--paths", "committed")
        assert result.exit_code == 3
        assert "it is not a regular file; give the name of a regular file" in one_line(result)
    if ROOT:
        assert stat.S_ISCHR((project / "null").lstat().st_mode)


# -- --junit FILE ----------------------------------------------------------------------------------


def test_junit_never_writes_through_a_symlink(project: Path) -> None:
    # It followed the link: the victim got the suite's junit.xml.
    victim = project / "victim.txt"
    victim.write_text("precious")
    (project / "out.xml").symlink_to(victim)
    result = mobster("test", "--scripted", "app.yaml", "--paths", "committed", "--junit", "out.xml")
    assert result.exit_code == 3
    assert "--junit out.xml: it is a symlink (mobster never writes through one)" in one_line(result)
    assert victim.read_text() == "precious"


def test_junit_onto_a_device_is_refused_and_the_device_stays(project: Path) -> None:
    if not ROOT:
        pytest.skip("making a device node needs root")
    device = device_clone(project)
    result = mobster("test", "--scripted", "app.yaml", "--paths", "committed", "--junit", str(device))
    assert result.exit_code == 3
    assert "it is not a regular file" in one_line(result)
    assert stat.S_ISCHR(device.lstat().st_mode)


def test_junit_replaces_a_regular_file_keeping_its_mode(project: Path) -> None:
    out = project / "out.xml"
    out.write_text("old")
    out.chmod(0o640)
    result = mobster("test", "--scripted", "app.yaml", "--paths", "committed", "--junit", "out.xml")
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<?xml")
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


# -- a committed path a replay can't use ----------------------------------------------------------


def test_a_strict_replay_never_renames_or_changes_a_corrupt_committed_path(project: Path) -> None:
    file = committed(project)
    file.write_bytes(b'{"format": 2, "steps": [')  # cut short (a bad merge, a truncated checkout)
    before = {p.name: p.read_bytes() for p in (project / ".mobster" / "paths").rglob("*") if p.is_file()}
    result = mobster("test", "--scripted", "app.yaml", "--paths", "committed", "--no-heal", "--json")
    assert result.exit_code == 3
    [check] = json.loads(result.stdout)["checks"]
    assert check["verdict"] == "couldnt_run"
    assert f"{file} can't be used and is left as it is: " in check["message"]
    assert "fix it or delete it; a run that records writes a new path in its place" in check["message"]
    assert check["path"]["why"].startswith(f"{file} can't be used and is left as it is: it is not valid JSON")
    assert check["class"] == "model"  # no model to record one: --no-heal says so, and what to do
    after = {p.name: p.read_bytes() for p in (project / ".mobster" / "paths").rglob("*") if p.is_file()}
    assert after == before  # byte for byte, and no .corrupt beside it


def test_a_run_that_records_replaces_the_corrupt_committed_path_under_its_name(project: Path) -> None:
    file = committed(project)
    file.write_bytes(b"not json")
    listed = mobster("paths", "list", "--paths", "committed")  # a listing changes nothing either
    assert listed.exit_code == 0, listed.output
    assert file.read_bytes() == b"not json"
    again = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "--paths", "committed")
    assert again.exit_code == 0, again.output
    assert json.loads(file.read_text())["format"] == 2  # the recording's new path, a diff the pull request shows
    assert sorted(p.name for p in file.parent.iterdir() if p.is_file()) == [file.name]


def test_a_committed_path_of_another_format_is_left_where_it_is(project: Path) -> None:
    file = committed(project)
    doc = json.loads(file.read_text())
    doc["format"] = 3  # a newer Mobster's, committed by a teammate who upgraded
    file.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    before = file.read_bytes()
    result = mobster("test", "--scripted", "app.yaml", "--paths", "committed", "--no-heal", "--json")
    [check] = json.loads(result.stdout)["checks"]
    assert check["verdict"] == "couldnt_run"
    assert "format 3" in check["path"]["why"]
    assert file.read_bytes() == before
    assert not file.with_name(file.name + ".format3").exists()


def test_a_committed_heal_state_of_another_format_is_left_where_it_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mobster")
    store = CommittedPaths(tmp_path)
    env = Env(app_version="1.0", app_build="1", ios_major=26, kind="simulator")
    name = state_name("b4f5b1de9d5b86e2", env, "0123456789ab")
    file = Path(store.where_document(name))
    file.parent.mkdir(parents=True)
    file.write_text(json.dumps({"format": 9, "healed": []}))
    before = file.read_bytes()
    assert load_heal_state(store, name, provenance=None) == HealState()
    assert file.read_bytes() == before
    assert not file.with_name(file.name + ".format9").exists()
    [record] = [r for r in caplog.records if r.getMessage() == "heal state of another format ignored"]
    assert "it is left as it is" in record.__dict__["reason"]


# -- other files the product reads or writes outside .mobster/ ------------------------------------


def test_an_app_given_as_a_fifo_or_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "YourApp.ipa")
    with pytest.raises(ValueError, match=r"can't read the \.ipa .*YourApp\.ipa: it is not a regular file"):
        read_bundle_info(tmp_path / "YourApp.ipa")
    app = tmp_path / "YourApp.app"
    app.mkdir()
    (app / "Info.plist").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match=r"YourApp\.app/Info\.plist: it is not a regular file"):
        read_bundle_info(app)
    (tmp_path / "odd").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match=r"neither a \.app folder nor an \.ipa file \(it is not a regular file\)"):
        read_bundle_info(tmp_path / "odd")
    real = tmp_path / "Real.ipa"
    with zipfile.ZipFile(real, "w") as archive:
        archive.writestr("Payload/Real.app/Info.plist", b"<plist><dict></dict></plist>")
    with pytest.raises(ValueError, match="has no CFBundleIdentifier"):  # a regular .ipa is still read
        read_bundle_info(real)


def test_the_device_locks_owner_file_is_never_written_through_a_link(tmp_path: Path) -> None:
    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    lock = DeviceLock("sim 1234", directory=locks)
    owner = lock.path.with_suffix(".owner")
    owner.symlink_to(victim)
    with lock.acquire():
        assert victim.read_text() == "precious"
        assert not owner.is_symlink()
        assert json.loads(owner.read_text())["pid"] == os.getpid()
    lock.release()
