"""One mobster run per device: the per-device file lock."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_harness._lock import DeviceLock, device_lock, lock_dir, normalize_identity


def held(lock: DeviceLock) -> bool:
    return lock.held


def test_a_second_holder_is_refused_at_once_with_the_holders_pid(tmp_path: Path) -> None:
    with device_lock("sim ABC", directory=tmp_path) as first:
        assert held(first)
        with pytest.raises(mc.DeviceError, match=rf"sim ABC is in use by another mobster run \(pid {os.getpid()}\)"):
            device_lock("sim ABC", directory=tmp_path).acquire()
    assert not held(first)
    with device_lock("sim ABC", directory=tmp_path) as again:
        assert again.held


def test_identities_are_normalized_and_hashed(tmp_path: Path) -> None:
    assert normalize_identity("  WDA   http://127.0.0.1:8100 ") == "wda http://127.0.0.1:8100"
    a = DeviceLock("SIM  5a1f", directory=tmp_path)
    b = DeviceLock("sim 5A1F", directory=tmp_path)
    assert a.path == b.path
    assert a.path.parent == tmp_path
    assert len(a.path.stem) == 24
    assert DeviceLock("sim other", directory=tmp_path).path != a.path
    with pytest.raises(ValueError, match="non-empty"):
        normalize_identity("   ")


def test_different_devices_do_not_block_each_other(tmp_path: Path) -> None:
    with device_lock("usb 1", directory=tmp_path), device_lock("usb 2", directory=tmp_path) as second:
        assert second.held


def test_release_is_safe_twice_and_acquire_is_idempotent(tmp_path: Path) -> None:
    lock = device_lock("wda x", directory=tmp_path)
    assert lock.acquire() is lock.acquire()
    lock.release()
    lock.release()
    assert not held(lock)


def test_the_folder_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOBSTER_LOCK_DIR", str(tmp_path / "locks"))
    assert lock_dir() == tmp_path / "locks"
    with device_lock("sim X") as lock:
        assert lock.path.parent == tmp_path / "locks"
        assert (tmp_path / "locks").stat().st_mode & 0o777 == 0o700
    monkeypatch.delenv("MOBSTER_LOCK_DIR")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert lock_dir() == tmp_path / "mobster-locks"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert lock_dir().name == "locks"
    assert lock_dir().parent.name == f"mobster-{os.getuid()}"


def test_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(mc.DeviceError, match="writable by others"):
        device_lock("sim X", directory=folder).acquire()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(mc.DeviceError, match="not a folder"):
        device_lock("sim X", directory=link).acquire()


def test_another_process_holds_it_until_it_ends(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import sys
        from mobster_harness._lock import device_lock
        lock = device_lock("sim shared", directory={str(tmp_path)!r}).acquire()
        print("held", flush=True)
        sys.stdin.readline()
        """
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(mc.DeviceError, match=rf"in use by another mobster run \(pid {holder.pid}\)"):
            device_lock("sim shared", directory=tmp_path).acquire()
    finally:
        holder.communicate("\n", timeout=10)
    with device_lock("sim shared", directory=tmp_path) as lock:
        assert lock.held
