"""Every example of the hostile-world report (issue 15's "Why"), run again through the command.

Each runs ``mobster`` in-process on the scripted phone and a fake clock (``catch_exceptions=False``:
a traceback fails the test) and checks what ``docs/reliability.md`` promises: one ``mobster: …``
line or the check's own class naming the file and the fix, exit 3 (exit 1 only for a failed
check), results written when the suite got that far, nothing lost. Examples that other files
already hold are named in ``docs/reliability.md`` (safety, hostile text, key echoes, Ctrl+C).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core._log import get_logger
from mobster_core._store import fsutil
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP

OTHER_UID = 65534  # nobody
#: A hang (a FIFO read, /dev/zero) fails the test after 20 s instead of blocking CI (``no_hang``).
HANG_SECONDS = 20
pytestmark = pytest.mark.usefixtures("no_hang")


@pytest.fixture
def project(project: Path) -> Path:
    """The sign-up check, recorded once on the sample app; its rebuild as ``renamed.yaml``."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    return project


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def cached(project: Path) -> Path:
    [file] = (project / ".mobster" / "cache" / "replay").glob("*.json")
    return file


def one_line(result: Result) -> str:
    lines = [line for line in result.output.splitlines() if line.startswith("mobster: ")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def results_written(project: Path) -> dict[str, object]:
    suites = sorted((project / ".mobster" / "test-results").glob("*/results.json"), key=lambda p: p.stat().st_mtime_ns)
    data: dict[str, object] = json.loads(suites[-1].read_text())
    return data


# -- a cache file that is set aside ---------------------------------------------------------------


def make_corrupt(file: Path) -> None:
    file.write_text("{ not json")


def make_0644(file: Path) -> None:
    file.chmod(0o644)


def make_foreign(file: Path) -> None:
    os.chown(file, OTHER_UID, OTHER_UID)


def make_symlink(file: Path) -> None:
    target = file.with_name("elsewhere.txt")
    target.write_text(file.read_text())
    file.unlink()
    file.symlink_to(target)


@pytest.mark.parametrize("spoil", [make_corrupt, make_0644, make_foreign, make_symlink])
def test_a_cache_file_set_aside_never_crashes_a_run(
    project: Path, spoil: object, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mobster")  # a handler is attached: the log calls really run
    assert callable(spoil)
    spoil(cached(project))
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output  # couldn't run: no path and no model
    assert "Traceback" not in result.output
    assert "cache/replay/" in result.output  # which file
    assert "delete it" in result.output or "kept as" in result.output  # and what to do
    again = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    assert again.exit_code == 0, again.output


def test_a_log_call_with_any_key_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mobster")
    log = get_logger("mobster_core._store.cache")
    log.warning("dropped", message="m", args=(1,), msg="x", name="n", levelname="L", asctime="t", message_="kept")
    [record] = caplog.records
    assert record.name == "mobster.core._store.cache"  # under the one mobster logger
    assert (record.__dict__["message_"], record.__dict__["args_"], record.__dict__["name_"]) == ("kept", (1,), "n")
    assert record.__dict__["message__"] == "m"
    assert record.getMessage() == "dropped"


def test_the_library_prints_nothing_unless_asked(project: Path, capfd: pytest.CaptureFixture[str]) -> None:
    logging.getLogger("mobster").propagate = False
    try:
        make_corrupt(cached(project))
        capfd.readouterr()
        get_logger("mobster_core.x").warning("no handler is configured", message="m")
        assert capfd.readouterr() == ("", "")
    finally:
        logging.getLogger("mobster").propagate = True
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("mobster").handlers)


# -- a heal is never adopted without review ------------------------------------------------------


def test_a_symlinked_checks_folder_adopts_no_heal(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    checks = project / ".mobster" / "checks"
    (elsewhere / "signup.yaml").write_text(SIGNUP)
    (checks / "signup.yaml").unlink()
    checks.rmdir()
    checks.symlink_to(elsewhere)
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert healed.exit_code == 3, healed.output
    assert "symlink" in healed.output
    assert "Traceback" not in healed.output
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal")
    assert strict.exit_code != 0, strict.output  # never passes on the changed app
    assert not list(elsewhere.glob("*.heal.*"))


def test_a_heal_file_that_cant_be_written_adopts_no_heal(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = fsutil._write_temp

    def refuse(folder: Path, name: str, data: bytes) -> Path:
        if name.endswith(".heal.yaml"):
            raise PermissionError(errno.EACCES, "Permission denied", str(folder / name))
        return real(folder, name, data)

    with monkeypatch.context() as mp:
        mp.setattr(fsutil, "_write_temp", refuse)
        healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert healed.exit_code == 3, healed.output
    assert "Permission denied; Mobster may not use it: check its owner and permissions" in healed.output
    assert mobster("test", "--scripted", "renamed.yaml", "--no-heal").exit_code == 1
    assert "no heals wait for review" in mobster("test", "heal").output


def test_listing_heals_with_a_heal_file_that_is_no_heal_file_is_a_usage_problem(project: Path) -> None:
    # An alias bomb in place of the heal file: refused at its line, never expanded, and the
    # listing ends exit 3 instead of saying that no heals wait.
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    heal = project / ".mobster" / "checks" / "signup.heal.yaml"
    rows = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    rows += [f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]" for a, b in zip("abcde", "bcdef", strict=True)]
    heal.write_text("\n".join(rows) + "\n")
    listing = mobster("test", "heal")
    assert listing.exit_code == 3, listing.output
    assert "signup.heal.yaml:1: a: anchors and aliases (&name, *name) are not allowed" in listing.output
    assert "no heals wait for review" not in listing.output


# -- mobster demo . in a real project ----------------------------------------------------------


def test_mobster_demo_in_a_real_project_deletes_nothing(project: Path) -> None:
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    before = {p: p.read_bytes() for p in (project / ".mobster").rglob("*") if p.is_file()}
    result = mobster("demo", ".")
    assert result.exit_code == 3
    assert "is not empty and holds no earlier demo" in one_line(result)
    assert {p: p.read_bytes() for p in (project / ".mobster").rglob("*") if p.is_file()} == before


def test_mobster_demo_writes_private_files_under_umask_0(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        result = mobster("demo", str(tmp_path / "demo"))
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    made = [tmp_path / "demo", *(tmp_path / "demo").rglob("*")]
    wide = [(p, oct(p.stat().st_mode)) for p in made if stat.S_IMODE(p.stat().st_mode) & 0o077]
    assert wide == []
    assert mobster("demo", str(tmp_path / "demo")).exit_code == 0  # an earlier demo is started afresh


def test_an_earlier_demo_someone_changed_is_never_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = tmp_path / "demo"
    assert mobster("demo", str(demo)).exit_code == 0
    monkeypatch.chdir(demo)
    # the README's experiment: a replay on the rebuild changes no file of the demo's state
    assert mobster("test", "--scripted", "apps/yourapp-rebuild.yaml").exit_code == 0
    assert mobster("demo", str(demo)).exit_code == 0
    signup = demo / ".mobster" / "checks" / "signup.yaml"
    edited = signup.read_text().replace("Welcome aboard", "Welcome aboard, Ada")
    signup.write_text(edited)
    result = mobster("demo", str(demo))
    assert result.exit_code == 3
    assert ".mobster/checks/signup.yaml was changed" in one_line(result)
    assert signup.read_text() == edited  # the edit stands
    signup.write_text(edited.replace(", Ada", ""))
    (demo / ".mobster" / "checks" / "mine.yaml").write_text("version: 1\nname: mine\n")
    assert ".mobster/checks/mine.yaml was added" in one_line(mobster("demo", str(demo)))
    (demo / ".mobster" / "checks" / "mine.yaml").unlink()
    assert mobster("test", "heal", "--accept", "signup.yaml").exit_code == 0  # an accepted heal changes paths
    result = mobster("demo", str(demo))
    assert result.exit_code == 3
    assert "changed since" in one_line(result)


def test_running_the_demo_again_keeps_the_runs_you_made_in_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `make demo` again wiped .mobster/runs and test-results: the runs of the README's own experiment too.
    demo = tmp_path / "demo"
    assert mobster("demo", str(demo)).exit_code == 0
    runs, results = demo / ".mobster" / "runs", demo / ".mobster" / "test-results"
    demos_runs = set(runs.iterdir())
    monkeypatch.chdir(demo)
    mine = mobster("test", "--scripted", "apps/yourapp-rebuild.yaml", "--json")
    assert mine.exit_code == 0, mine.output
    doc = json.loads(mine.stdout)
    my_runs = [demo / c["run_dir"] for c in doc["checks"]]
    assert my_runs
    assert all(r.is_dir() for r in my_runs)
    # The marker is a file anyone may edit: what it lists outside the runs' and results' folders stays.
    marker = demo / ".mobster-demo"
    head, listed = marker.read_text().split("\n", 1)
    written = json.loads(listed)
    bystander = tmp_path / "bystander"
    bystander.mkdir()
    written["made"] += ["../bystander", ".mobster/runs/..", ".mobster/checks", ".mobster/runs"]
    marker.write_text(head + "\n" + json.dumps(written))
    assert mobster("demo", str(demo)).exit_code == 0
    assert all(r.is_dir() for r in my_runs)  # yours stay
    assert (results / doc["suite_id"] / "results.json").is_file()
    assert not any(r.exists() for r in demos_runs)  # the earlier demo's own went
    assert bystander.is_dir()
    assert (demo / ".mobster" / "checks" / "signup.yaml").is_file()
    # this demo's seven suites of two checks: four on the scripted iPhone, three on the scripted Android phone
    assert len([r for r in runs.iterdir() if r not in my_runs]) == 14


# -- no traceback, exit 3, for a hostile machine ------------------------------------------------


def test_runs_a_symlink_is_the_checks_environment_class_with_results_written(project: Path) -> None:
    runs = project / ".mobster" / "runs"
    shutil.rmtree(runs)  # the recording's run folders (their frames too)
    runs.symlink_to(project)
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output
    assert "environment: refusing" in result.output
    assert "runs: it is a symlink (never followed); delete the link" in result.output
    checks = results_written(project)["checks"]
    assert isinstance(checks, list)
    assert [c["class"] for c in checks] == ["environment"]


def test_dot_mobster_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".mobster").write_text("not a folder")
    (tmp_path / "signup.yaml").write_text(SIGNUP)
    (tmp_path / "app.yaml").write_text(sample_path("yourapp").read_text())
    monkeypatch.chdir(tmp_path)
    result = mobster("test", "--scripted", "app.yaml", "--model", "scripted", "signup.yaml")
    assert result.exit_code == 3, result.output
    assert ".mobster" in result.output
    assert "Traceback" not in result.output


def test_the_lock_a_folder(project: Path) -> None:
    lock = project / ".mobster" / "cache" / ".lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    result = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted")
    assert result.exit_code == 3, result.output
    assert ".lock: it is a folder, not a lock file; delete it" in result.output


def test_a_folder_of_another_user(project: Path) -> None:
    os.chown(project / ".mobster" / "cache", OTHER_UID, OTHER_UID)
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output
    assert "belongs to another user (uid 65534)" in result.output


def test_a_full_disk(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(folder: Path, name: str, data: bytes) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device", str(folder / name))

    monkeypatch.setattr(fsutil, "_write_temp", full)
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output
    assert "No space left on device; the disk is full: free some space and run again" in one_line(result)


def test_junit_into_a_missing_folder_still_prints_json(project: Path) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--json", "--junit", "missing/junit.xml")
    assert result.exit_code == 3
    assert "--junit: missing/junit.xml: No such file or directory" in one_line(result)
    assert '"schema": "mobster.test/1"' in result.output
    assert results_written(project)["summary"]


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (None, "can't read it (No such file or directory); check the path"),
        ("folder", "it is not a regular file; give a regular file of KEY=value lines"),
        ("fifo", "it is not a regular file; give a regular file of KEY=value lines"),
        ("bad line", "keys.env:1: expected KEY=value"),
        ("huge", "it is larger than the limit of 65536 bytes"),
        ("latin-1", "byte 8 is not UTF-8; save it as UTF-8"),
    ],
)
def test_any_bad_env_file(project: Path, make: str | None, says: str) -> None:
    env = project / "keys.env"
    if make == "folder":
        env.mkdir()
    elif make == "fifo":
        os.mkfifo(env)
    elif make == "bad line":
        env.write_text("not a key line\n")
    elif make == "huge":
        env.write_text("A=" + "x" * 70_000)
    elif make == "latin-1":
        env.write_bytes(b"KEY=caf\xe9\n")
    result = mobster("test", "--scripted", "app.yaml", "--env-file", "keys.env")
    assert result.exit_code == 3
    assert says in one_line(result)


@pytest.mark.parametrize(
    ("expect", "says"),
    [
        ("equals: " + "9" * 5000, "digits"),
        ("text: /a{100000000}/", "a{100000000}"),
    ],
)
def test_huge_numbers_and_regex_repeats_are_usage(project: Path, expect: str, says: str) -> None:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(
        SIGNUP.replace("  - text: Welcome aboard", f"  - count: {{role: Button}}\n    {expect}")
        if expect.startswith("equals")
        else SIGNUP.replace("text: Welcome aboard", expect)
    )
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output
    assert "usage:" in result.output
    assert says in result.output
    assert "signup.yaml" in result.output


def test_a_non_ascii_openai_key(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-caf\u00e9")
    result = mobster("test", "--scripted", "renamed.yaml", "--model", "gpt-4o")
    assert result.exit_code == 3
    assert "OPENAI_API_KEY can't be sent" in one_line(result)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_max_usd_is_a_finite_positive_number(project: Path, value: str) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--max-usd", value)
    assert result.exit_code == 3
    assert "give a number of dollars above 0" in one_line(result)


@pytest.mark.parametrize(
    ("args", "says"), [(["--shard", "3/2"], "I must be between 1 and N"), (["nothing"], "no check")]
)
def test_shard_out_of_range_and_no_checks(project: Path, args: list[str], says: str) -> None:
    result = mobster("test", "--scripted", "app.yaml", *args)
    assert result.exit_code == 3
    assert says in one_line(result)


# -- no hang ------------------------------------------------------------------------------------


def test_a_fifo_as_a_check_file(project: Path) -> None:
    os.mkfifo(project / "fifo.yaml")
    result = mobster("test", "--scripted", "app.yaml", "fifo.yaml")
    assert result.exit_code == 3
    assert "it is not a regular file" in result.output


@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_a_fifo_or_dev_zero_as_a_heal_file(project: Path, target: str) -> None:
    heal = project / ".mobster" / "checks" / "signup.heal.yaml"
    if target == "fifo":
        os.mkfifo(heal)
    else:
        heal.symlink_to(target)
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3, result.output
    assert "signup.heal.yaml" in result.output
    assert "move it out of the way" in result.output


# -- the last paragraph ---------------------------------------------------------------------------


def test_a_heal_file_beside_a_check_outside_dot_mobster_keeps_the_folders_mode(project: Path) -> None:
    outside = project / "loose"
    outside.mkdir(mode=0o755)
    outside.chmod(0o755)
    (outside / "signup.yaml").write_text(SIGNUP)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted", "loose/signup.yaml").exit_code == 0
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "loose/signup.yaml").exit_code == 0
    assert (outside / "signup.heal.yaml").exists()
    assert oct(stat.S_IMODE(outside.stat().st_mode)) == "0o755"


def test_the_project_root_keeps_its_mode(project: Path) -> None:
    project.chmod(0o755)
    (project / "signup.yaml").write_text(SIGNUP)
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "signup.yaml").exit_code == 0
    assert oct(stat.S_IMODE(project.stat().st_mode)) == "0o755"


def test_stale_temporary_files_are_swept(project: Path) -> None:
    an_hour_ago = time.time() - 3600
    stale = [
        project / ".mobster" / ".tmp-.gitignore-abc",
        project / ".mobster" / "checks" / ".tmp-signup.heal.yaml-abc",
        project / ".mobster" / "cache" / "replay" / ".tmp-x.json-abc",
    ]
    fresh = project / ".mobster" / "checks" / ".tmp-being-written"
    for f in [*stale, fresh]:
        f.write_text("half")
    for f in stale:
        os.utime(f, (an_hour_ago, an_hour_ago))
    assert mobster("test", "--scripted", "app.yaml").exit_code == 0
    assert [f for f in stale if f.exists()] == []
    assert fresh.exists()  # a parallel run may be writing it right now


def test_a_fifo_as_the_app_script_or_the_junit_copy(project: Path) -> None:
    os.mkfifo(project / "fifo")
    script = mobster("test", "--scripted", "fifo")
    assert script.exit_code == 3
    assert "fifo: can't read the app script: it is not a regular file" in one_line(script)
    junit = mobster("test", "--scripted", "app.yaml", "--junit", "fifo")
    assert junit.exit_code == 3
    assert "--junit fifo: it is not a regular file" in one_line(junit)


def test_a_check_file_under_dot_mobster_is_never_read_through_a_symlink(project: Path) -> None:
    check = project / ".mobster" / "checks" / "signup.yaml"
    (project / "real.yaml").write_text(check.read_text())
    check.unlink()
    check.symlink_to(project / "real.yaml")
    result = mobster("test", "--scripted", "app.yaml")
    assert result.exit_code == 3
    assert "it is a symlink (never followed)" in result.output
    assert mobster("test", "--scripted", "app.yaml", "real.yaml").exit_code == 0  # given by path elsewhere: read


def test_a_shard_that_keeps_no_check_is_exit_3_not_a_pass(project: Path) -> None:
    result = mobster("test", "--scripted", "app.yaml", "--shard", "5/9")
    assert result.exit_code == 3
    assert "--shard 5/9 keeps no check" in one_line(result)


def test_two_checks_share_steps_one_heal_accepted_the_other_rejected_keeps_failing(project: Path) -> None:
    checks = project / ".mobster" / "checks"
    (checks / "signup2.yaml").write_text(SIGNUP.replace("A new user signs up", "A second user signs up"))
    healed = mobster("test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert healed.exit_code == 0, healed.output
    assert all(c["heals"] for c in json.loads(healed.stdout)["checks"])  # both healed the renamed button
    assert mobster("test", "heal", "--accept", "signup.yaml").exit_code == 0
    rejected = mobster("test", "heal", "--reject", "signup2.yaml")
    assert rejected.exit_code == 0, rejected.output
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    by_name = {c["name"]: c for c in json.loads(strict.stdout)["checks"]}
    assert by_name["A new user signs up"]["verdict"] == "passed"  # it accepted the heal
    second = by_name["A second user signs up"]
    assert (second["verdict"], second["class"]) == ("failed", "drift")  # it rejected it: it keeps failing
    assert 'step 3 (Tap "Next") is a heal this check\'s review rejected (signup2.heal.yaml)' in second["message"]
    assert strict.exit_code == 1
    # What to do is to undo the reject (never "heal it with a model": the reject refuses that); undone, it replays.
    assert (second["step"], second["fix"]["code"]) == (3, "undo_reject")
    assert mobster("test", "heal", "--unreject", "signup2.yaml").exit_code == 0
    again = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert again.exit_code == 0, again.output
