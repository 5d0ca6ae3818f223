"""The hostile world, generated: every path under ``.mobster/`` in every bad state, under every command.

Twelve targets (the folder itself, ``checks/``, a check file, its heal file, ``cache/``,
``cache/replay/``, a cached path file, the heal state, ``runs/``, a run folder, ``test-results/``,
the lock) x seven states (a file of junk, a folder, a symlink, a FIFO, another user's, read-only,
missing) x five commands (record, replay, heal, accept, reject) = 420 runs of ``mobster``
in-process on the scripted phone and a fake clock, plus a full and an unwritable disk under each
command (an injected ``ENOSPC`` and ``EACCES`` on every write) and a real full disk (a 512 KiB tmpfs,
where the machine lets a test mount one).

Each run must: raise nothing (``catch_exceptions=False``) and print no traceback or internal
error; exit 0, 1, 2 or 3; when it couldn't run, name the path in the way (or its folder); and lose
nothing: the check files, recorded paths, heal file and heal states other than the target are
byte for byte what they were, unless the command passed and changed them as it should.

"Another user" is uid 65534 via ``os.chown`` (the tests run as root here, and root passes every
permission check, so what is tested is the product's own ownership and mode checks, which refuse
such files under ``.mobster/`` whoever runs it); "read-only" is mode 0444/0555 (the product
refuses a file under ``.mobster/`` wider than 0600 and narrows its own folders back to 0700);
a write the kernel refuses is the injected ``EACCES``.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core._store import fsutil
from mobster_core.testing import FakeClock
from tests.samples import APP_SCRIPT_HEAD

OTHER_UID = 65534
SIGNUP = """\
version: 1
name: A new user signs up
app: {bundle: com.example.yourapp}
steps:
  - Tap "Sign up"
  - Tap "Continue"
  - Tap "Free"
  - Tap "Start"
expect:
  - text: Welcome aboard
"""
# A small app (YAML parsing is most of a run's cost here): four taps to the end.
APP = (
    APP_SCRIPT_HEAD
    + """\
    launch: welcome
    screens:
      welcome: [{role: Button, label: Sign up, tap: signup}]
      signup: [{role: Button, label: Continue, tap: plan}]
      plan: [{role: Button, label: Free, tap: start}]
      start: [{role: Button, label: Start, tap: done}]
      done: [{role: StaticText, label: Welcome aboard}]
"""
)

#: The commands, by what they do to a project that has a recorded path and a heal waiting.
COMMANDS: dict[str, tuple[str, ...]] = {
    "record": ("test", "--scripted", "app.yaml", "--fresh", "--model", "scripted"),
    "replay": ("test", "--scripted", "renamed.yaml"),
    "heal": ("test", "--scripted", "app.yaml", "--model", "scripted"),
    "accept": ("test", "heal", "--accept", "signup.yaml"),
    "reject": ("test", "heal", "--reject", "signup.yaml"),
}


#: Every message of a run that couldn't run says what to do: one of these.
FIXES = (
    "delete", "move it", "check its", "check the path", "give ", "free some space", "set ANTHROPIC", "add a check",
    "add checks", "reject them", "reject it", "fix the YAML", "a check is a regular YAML file",
)  # fmt: skip


def _one(folder: str, pattern: str) -> Callable[[Path], Path]:
    def find(root: Path) -> Path:
        return min((root / folder).glob(pattern))

    return find


def _at(relative: str) -> Callable[[Path], Path]:
    return lambda root: root / relative


TARGETS: dict[str, Callable[[Path], Path]] = {
    ".mobster": _at(".mobster"),
    "checks": _at(".mobster/checks"),
    "check file": _at(".mobster/checks/signup.yaml"),
    "heal file": _at(".mobster/checks/signup.heal.yaml"),
    "cache": _at(".mobster/cache"),
    "cache/replay": _at(".mobster/cache/replay"),
    "cached path": _one(".mobster/cache/replay", "*.json"),
    "heal state": _one(".mobster/cache/heals", "*.json"),
    "runs": _at(".mobster/runs"),
    "run folder": _one(".mobster/runs", "*"),
    "test-results": _at(".mobster/test-results"),
    "lock": _at(".mobster/cache/.lock"),
}


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def as_file(path: Path, _aside: Path) -> None:
    _remove(path)
    path.write_text("hostile: [\n")
    path.chmod(0o600)


def as_folder(path: Path, _aside: Path) -> None:
    _remove(path)
    path.mkdir(mode=0o700)


def as_symlink(path: Path, aside: Path) -> None:
    moved = aside / path.name
    shutil.move(path, moved)
    path.symlink_to(moved)


def as_fifo(path: Path, _aside: Path) -> None:
    _remove(path)
    os.mkfifo(path, 0o600)


def as_other_owner(path: Path, _aside: Path) -> None:
    os.chown(path, OTHER_UID, OTHER_UID, follow_symlinks=False)


def as_read_only(path: Path, _aside: Path) -> None:
    path.chmod(0o555 if path.is_dir() else 0o444)


def as_missing(path: Path, _aside: Path) -> None:
    _remove(path)


STATES: dict[str, Callable[[Path, Path], None]] = {
    "file": as_file,
    "folder": as_folder,
    "symlink": as_symlink,
    "fifo": as_fifo,
    "other owner": as_other_owner,
    "read-only": as_read_only,
    "missing": as_missing,
}


pytestmark = pytest.mark.usefixtures("no_hang")  # a hang fails the test after 60 s instead of blocking CI


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Durability is tested by the SIGKILL tests; here an fsync would only make 500 runs wait on the disk."""
    monkeypatch.setattr(os, "fsync", lambda _fd: None)


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with a recorded path, a run, a suite's results and a heal waiting for review."""
    root = tmp_path_factory.mktemp("template")
    (root / ".mobster" / "checks").mkdir(parents=True)
    (root / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (root / "app.yaml").write_text(APP)
    (root / "renamed.yaml").write_text(APP.replace("label: Continue", "label: Next"))
    old = Path.cwd()
    os.chdir(root)
    try:
        assert mobster(*COMMANDS["record"]).exit_code == 0
        assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    finally:
        os.chdir(old)
    assert (root / ".mobster" / "checks" / "signup.heal.yaml").exists()
    assert (root / ".mobster" / "cache" / ".lock").exists()
    return root


def precious(root: Path) -> dict[Path, bytes]:
    """What a user would lose: check files, recorded paths, the heal file, heal states."""
    found: dict[Path, bytes] = {}
    for folder, pattern in (
        (".mobster/checks", "*.yaml"),
        (".mobster/cache/replay", "*.json"),
        (".mobster/cache/heals", "*.json"),
    ):
        base = root / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for file in base.glob(pattern):
            if file.is_file() and not file.is_symlink() and file.lstat().st_uid == os.getuid():
                found[file.relative_to(root)] = file.read_bytes()
    return found


def check_run(root: Path, command: str, target: Path, result: Result, before: dict[Path, bytes]) -> None:
    out = result.output
    assert "Traceback" not in out, out
    assert "internal error" not in out, out
    assert result.exit_code in (0, 1, 2, 3), out
    if result.exit_code == 3:
        # The path in the way is named; a path that is simply gone (an emptied or missing cache,
        # a missing check) is said as what it means: there is no recorded path, no check.
        names = {target.name, target.parent.name, ".mobster", "no recorded path yet", "no check"}
        assert any(name in out for name in names), out
        assert any(fix in out for fix in FIXES), out  # and what to do about it
    after = precious(root)
    changed = {p for p in before if p in after and after[p] != before[p]}
    lost = {p for p in before if not (root / p).exists()}
    mine = {p for p in before if root / p == target or target in (root / p).parents}
    allowed = set() if result.exit_code not in (0, 2) or command == "replay" else _may_change(command)
    assert {p for p in changed | lost if p not in mine and _kind(p) not in allowed} == set(), (out, changed, lost)
    assert all(_kind(p) != "check" for p in (changed | lost) - mine), out


def _kind(path: Path) -> str:
    if path.name.endswith(".heal.yaml"):
        return "heal file"
    if path.parent.name == "checks":
        return "check"
    return "recorded path" if path.parent.name == "replay" else "heal state"


def _may_change(command: str) -> set[str]:
    return {
        "record": {"recorded path", "heal file", "heal state"},
        "heal": {"heal file", "heal state"},
        "accept": {"recorded path", "heal file", "heal state"},
        "reject": {"heal file", "heal state"},
    }[command]


def run_everything(root: Path, target_of: Callable[[Path], Path], state: str, aside: Path) -> list[str]:
    """Each command on its own copy of the template with the target in ``state``; returns exit lines."""
    seen = []
    for command, args in COMMANDS.items():
        project = aside / command / "project"
        shutil.copytree(root, project, symlinks=True)
        target = target_of(project)
        STATES[state](target, aside / command)
        before = precious(project)
        old = Path.cwd()
        os.chdir(project)
        try:
            result = mobster(*args)
        finally:
            os.chdir(old)
        check_run(project, command, target, result, before)
        seen.append(f"{command}: {result.exit_code}")
    return seen


@pytest.mark.parametrize("state", list(STATES))
@pytest.mark.parametrize("target", list(TARGETS))
def test_every_path_in_every_state_under_every_command(
    template: Path, tmp_path: Path, target: str, state: str, clean_env: None
) -> None:
    seen = run_everything(template, TARGETS[target], state, tmp_path)
    assert len(seen) == len(COMMANDS)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_disk_that_refuses_every_write(
    template: Path, tmp_path: Path, command: str, code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    shutil.copytree(template, project, symlinks=True)
    before = precious(project)

    def refuse(folder: Path, name: str, data: bytes) -> Path:
        raise OSError(code, os.strerror(code), str(folder / name))

    monkeypatch.setattr(fsutil, "_write_temp", refuse)
    monkeypatch.chdir(project)
    result = mobster(*COMMANDS[command])
    assert result.exit_code == 3, result.output
    assert os.strerror(code) in result.output
    assert ("free some space" if code == errno.ENOSPC else "check its owner and permissions") in result.output
    assert precious(project) == before  # nothing lost, nothing half-written
    assert not list(project.rglob(".tmp-*"))


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs, where this machine lets a test mount one (root in a container that allows it)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], check=True, capture_output=True
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("this machine doesn't let a test mount a tmpfs; the injected ENOSPC test stands in")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False, capture_output=True)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_real_full_disk(template: Path, tiny_disk: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tiny_disk / "project"
    shutil.copytree(template, project, symlinks=True)
    shutil.rmtree(project / ".mobster" / "runs")
    before = precious(project)
    fd = os.open(tiny_disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    monkeypatch.chdir(project)
    result = mobster(*COMMANDS[command])
    assert "Traceback" not in result.output
    assert result.exit_code == 3, result.output
    assert "No space left on device; the disk is full: free some space and run again" in result.output
    assert precious(project) == before
