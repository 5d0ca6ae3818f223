"""The ``adb`` executable, run once a command, and the outputs the Android driver reads, parsed purely.

Rule 1 (which adb): ``$ANDROID_HOME/platform-tools/adb``, else ``$ANDROID_SDK_ROOT``'s, else the
        ``adb`` on ``PATH`` (Debian's ``adb`` package, platform-tools 29, puts one there). Why the
        executable and not a Python client: appium-adb runs only the executable, so one fake
        serves both drivers; Debian and every CI image ship it; no dependency. ``adbutils`` speaks
        the adb server's host protocol and ``adb-shell`` adbd's own (android-facts.md §4.2).
Rule 2 (once): each command is one process, given an explicit timeout; it is never run again by
        this module (whether to try again is the device's decision). A command that can't start
        (no adb) or runs out of time says so as :class:`AdbFailed`, which keeps no argument of the
        command line (a launch's values may be secrets).
Rule 3 (the device's shell): ``adb shell`` joins its arguments with spaces and the device's shell
        reads them again, so :func:`shell_line` quotes every word for that shell; several commands
        go in one line joined by ``;`` (one process for many questions).
Rule 4 (parsers): each output is read as the research recorded it (android-facts.md §4.1), in a
        pure function that takes the text and says what it holds or None.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

__all__ = [
    "Adb",
    "AdbFailed",
    "AdbResult",
    "find_adb",
    "package_version",
    "parse_devices",
    "resolved_activity",
    "shell_line",
    "start_error",
]


class AdbFailed(Exception):
    """An adb command that couldn't run or didn't end in time (Rule 2); ``started``: it did run."""

    def __init__(self, message: str, *, started: bool) -> None:
        super().__init__(message)
        self.started = started


@attrs.frozen
class AdbResult:
    """What one adb command printed, and its exit status."""

    stdout: bytes
    stderr: str
    code: int

    @property
    def text(self) -> str:
        """Stdout as text (invalid UTF-8 replaced)."""
        return self.stdout.decode("utf-8", errors="replace")


def find_adb(env: Mapping[str, str] | None = None) -> Path | None:
    """Rule 1: the adb to run, or None when there is none."""
    env = os.environ if env is None else env
    for name in ("ANDROID_HOME", "ANDROID_SDK_ROOT"):
        root = env.get(name)
        if root:
            candidate = Path(root) / "platform-tools" / "adb"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    found = shutil.which("adb", path=env.get("PATH"))
    return None if found is None else Path(found)


def shell_line(*commands: Sequence[str]) -> str:
    """Rule 3: commands as one line for the device's shell, every word quoted, joined by ``;``."""
    return ";".join(" ".join(shlex.quote(word) for word in command) for command in commands)


@attrs.define
class Adb:
    """One device's adb (Rule 1, 2): ``serial`` None is the only device attached."""

    executable: Path
    serial: str | None = None

    def argv(self, args: Sequence[str]) -> list[str]:
        """The command line of ``adb -s SERIAL args``."""
        head = [str(self.executable)] + (["-s", self.serial] if self.serial else [])
        return [*head, *args]

    def run(self, args: Sequence[str], *, timeout: float) -> AdbResult:
        """Rule 2: run ``adb args`` once; :class:`AdbFailed` when it can't start or doesn't end in ``timeout`` s."""
        what = f"adb {args[0]}" if args else "adb"
        try:
            done = subprocess.run(self.argv(args), capture_output=True, timeout=timeout, check=False)  # noqa: S603 - our argv, no shell
        except subprocess.TimeoutExpired as exc:
            raise AdbFailed(f"{what} didn't end within {timeout:g} s", started=True) from exc
        except OSError as exc:
            raise AdbFailed(f"{self.executable} can't be run ({exc.strerror or exc})", started=False) from exc
        return AdbResult(done.stdout, done.stderr.decode("utf-8", errors="replace"), done.returncode)

    def shell(self, *commands: Sequence[str], timeout: float) -> AdbResult:
        """Rule 3: ``adb shell`` with ``commands`` as one quoted line."""
        return self.run(["shell", shell_line(*commands)], timeout=timeout)

    def spawn(self, args: Sequence[str]) -> subprocess.Popen[bytes]:
        """A long-lived ``adb args`` (``am instrument -w``), its output discarded."""
        try:
            return subprocess.Popen(  # noqa: S603 - our argv, no shell
                self.argv(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
            )
        except OSError as exc:
            raise AdbFailed(f"{self.executable} can't be run ({exc.strerror or exc})", started=False) from exc


# -- Rule 4: parsers -------------------------------------------------------------------------------

_DEVICE_ROW = re.compile(r"^(\S+)\s+(device|offline|unauthorized|recovery|sideload|bootloader|no permissions.*)")


def parse_devices(text: str) -> dict[str, str]:
    """``adb devices``: serial -> state (``device``, ``offline``, ``unauthorized``, …)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith(("List of devices", "*")) or "adb server" in line:
            continue
        m = _DEVICE_ROW.match(line.strip())
        if m is not None:
            out[m.group(1)] = m.group(2).split()[0]
    return out


_PACKAGE = re.compile(r"^\s*Package \[(?P<name>[^\]]+)\] \(")
_VERSION_NAME = re.compile(r"^\s*versionName=(\S+)", re.MULTILINE)
_VERSION_CODE = re.compile(r"^\s*versionCode=(\d+)", re.MULTILINE)


def package_version(text: str, package: str) -> tuple[str | None, str | None] | None:
    """``dumpsys package PKG``: ``(versionName, versionCode)``, the whole tokens; None when not installed."""
    if not any((m := _PACKAGE.match(line)) is not None and m.group("name") == package for line in text.splitlines()):
        return None
    name, code = _VERSION_NAME.search(text), _VERSION_CODE.search(text)
    return (None if name is None else name.group(1), None if code is None else code.group(1))


_COMPONENT = re.compile(r"^[\w.$]+/[\w.$]+$")


def resolved_activity(text: str) -> str | None:
    """``cmd package resolve-activity --brief PKG``: its last ``PKG/ACT`` line, or None."""
    lines = [line.strip() for line in text.splitlines() if _COMPONENT.match(line.strip())]
    return lines[-1] if lines else None


_START_ERRORS = ("Error:", "Error type", "java.lang.SecurityException", "unable to resolve Intent")


def start_error(text: str) -> str | None:
    """``am start``'s failure (printed with status 0): its first error line, or None when it started."""
    for line in text.splitlines():
        if any(line.strip().startswith(e) or e in line for e in _START_ERRORS):
            return line.strip()
    return None
