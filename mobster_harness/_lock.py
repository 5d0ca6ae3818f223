"""One mobster run per device: a per-device file lock (filelock, imported lazily).

Rule 1: a device is known by its *identity*, a string such as ``wda http://127.0.0.1:8100``,
        ``sim <UDID>`` or ``usb <UDID>``. It is normalized (whitespace collapsed, lower case) and
        hashed: the lock file is ``<first 24 hex digits of SHA-256>.lock``.
Rule 2: the locks live in a per-user folder: ``$MOBSTER_LOCK_DIR``, else
        ``$XDG_RUNTIME_DIR/mobster-locks``, else ``<temp dir>/mobster-<uid>/locks``. It is made
        0700 and must be a real folder the user owns that no one else can write to.
Rule 3: acquiring never waits: when another holder has the lock, :class:`DeviceBusy` says so at
        once, with the holder's pid (kept in a ``.owner`` file beside the lock while it is held,
        written whole and read as a regular file, never through a symlink).
Rule 4: the lock is an OS file lock (``flock``): it is released when the holder releases it or its
        process ends, whatever way it ends. Two holders in one process exclude each other too.
Rule 5: a device reached at a URL is known by its canonical address (:func:`address_key`), so one
        phone has one lock however its URL is written: the scheme and host in lower case, a
        shorthand or IPv4-mapped address written out (``127.1`` and ``[::ffff:127.0.0.1]`` are
        ``127.0.0.1``; ``0x7f.0.0.1`` too), every loopback address one (``localhost``, ``127.x``,
        ``[::1]``: the machine itself), another host name resolved to its address when it
        resolves, the port (default 8100) and the path without its trailing slash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from mobster_core.exceptions import DeviceBusy, DeviceError, UnsafeFile
from mobster_core.files import atomic_write, read_user_file

__all__ = ["DeviceLock", "address_key", "device_lock", "lock_dir", "normalize_identity"]

_LOOPBACK = "loopback"
#: Rule 3: the ``.owner`` file holds one small JSON object; anything larger is not ours.
_MAX_OWNER_BYTES = 4096


def _host_key(host: str) -> str:
    """Rule 5's host: an address written out, every loopback one, a name resolved when it resolves."""
    import ipaddress
    import socket

    name = host.strip("[]").lower()
    if name in ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"):
        return _LOOPBACK
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        try:
            address = ipaddress.ip_address(socket.inet_aton(name))  # 127.1, 0x7f.1: what the OS connects to
        except OSError:
            try:
                resolved = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)[0][4][0]
                address = ipaddress.ip_address(resolved)
            except (OSError, ValueError, IndexError):
                return name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return _LOOPBACK if address.is_loopback else address.compressed


def address_key(url: str, *, default_port: int = 8100) -> str:
    """Rule 5: the lock identity of a device at ``url`` (``http://127.1:8101/`` -> ``http://loopback:8101``)."""
    from urllib.parse import urlsplit

    text = url.strip()
    parts = urlsplit(text if "://" in text else f"http://{text}")
    try:
        port = parts.port or default_port
    except ValueError:
        port = default_port
    host = _host_key(parts.hostname or "")
    return f"{parts.scheme.lower()}://{host}:{port}{parts.path.rstrip('/')}"


def normalize_identity(identity: str) -> str:
    """The identity as the lock knows it: whitespace collapsed, lower case (Rule 1)."""
    normalized = " ".join(identity.split()).lower()
    if not normalized:
        raise ValueError("a device identity is a non-empty string such as 'sim <UDID>'")
    return normalized


def lock_dir() -> Path:
    """The per-user folder of device locks (Rule 2); not created here."""
    configured = os.environ.get("MOBSTER_LOCK_DIR")
    if configured:
        return Path(configured)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "mobster-locks"
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"mobster-{uid}" / "locks"


def _safe_dir(folder: Path) -> Path:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise DeviceError(f"can't make the device lock folder {folder}: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise DeviceError(f"the device lock folder {folder} is not a folder (a symlink?); remove it")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise DeviceError(f"the device lock folder {folder} belongs to someone else; set MOBSTER_LOCK_DIR")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise DeviceError(f"the device lock folder {folder} is writable by others; chmod 700 it")
    return folder


class DeviceLock:
    """The lock of one device (see the module rules); a context manager, or :meth:`acquire`/:meth:`release`."""

    def __init__(self, identity: str, *, directory: str | os.PathLike[str] | None = None) -> None:
        self._identity = identity.strip()
        key = hashlib.sha256(normalize_identity(identity).encode("utf-8")).hexdigest()[:24]
        self._folder = Path(directory) if directory is not None else lock_dir()
        self._path = self._folder / f"{key}.lock"
        self._owner = self._folder / f"{key}.owner"
        self._lock: Any = None

    @property
    def identity(self) -> str:
        """The device's identity as given."""
        return self._identity

    @property
    def path(self) -> Path:
        """The lock file."""
        return self._path

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._lock is not None and bool(self._lock.is_locked)

    def acquire(self) -> Self:
        """Take the lock at once, or raise ``DeviceBusy`` naming the holder's pid (Rule 3)."""
        import filelock

        if self.held:
            return self
        _safe_dir(self._folder)
        lock = filelock.FileLock(str(self._path), timeout=0)
        try:
            lock.acquire(blocking=False)
        except filelock.Timeout as exc:
            raise DeviceBusy(
                f"{self._identity} is in use by another mobster run (pid {self._holder()}); "
                "wait for it to finish, or choose another device"
            ) from exc
        except OSError as exc:
            raise DeviceError(f"can't lock {self._identity} ({self._path}): {exc.strerror or exc}") from exc
        self._lock = lock
        record = {"pid": os.getpid(), "identity": self._identity, "since": time.time()}
        with contextlib.suppress(OSError, UnsafeFile):  # whole or not at all, never through a planted link
            atomic_write(self._owner, json.dumps(record).encode("utf-8"))
        return self

    def release(self) -> None:
        """Let the lock go (safe to call when not held)."""
        lock, self._lock = self._lock, None
        if lock is None:
            return
        with contextlib.suppress(OSError):
            self._owner.unlink()
        lock.release(force=True)

    def _holder(self) -> str:
        try:
            data = json.loads(read_user_file(self._owner, max_bytes=_MAX_OWNER_BYTES, follow=False))
        except (OSError, UnsafeFile, ValueError, RecursionError):
            return "unknown"
        pid = data.get("pid") if isinstance(data, dict) else None
        return str(pid) if isinstance(pid, int) else "unknown"

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def device_lock(identity: str, *, directory: str | os.PathLike[str] | None = None) -> DeviceLock:
    """Make the lock of the device ``identity``, not taken yet; use it in a ``with`` block."""
    return DeviceLock(identity, directory=directory)
