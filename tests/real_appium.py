"""A real Appium 3 server with the real XCUITest and UiAutomator2 drivers, for the tests that drive it (``.appium``).

``scripts/install-appium.sh`` (run by ``make test``) installs the pinned packages into
``.appium``; :func:`installed` says whether they are there, or why not, so the tests skip with
the reason the install gave (no npm, the registry out of reach), never fail for it.

Rule 1: the server is ``.appium/bin/node .appium/node_modules/appium/index.js --address 127.0.0.1
        --port PORT``, with ``APPIUM_HOME=.appium`` (where the driver is found) and, for a fake
        usbmuxd, ``USBMUXD_SOCKET_ADDRESS=unix:PATH`` (both of XCUITest's lockdown clients read
        it), and for a fake adb ``ANDROID_HOME=DIR`` (appium-adb finds ``DIR/platform-tools/adb``
        there and only there; ``ANDROID_SDK_ROOT`` is dropped). Its output goes to a log file the
        test can read (:attr:`RealAppium.log`).
Rule 2: it dies with the test process: ``setpriv --pdeathsig KILL`` before node (util-linux; the
        death signal follows the thread that started it, so start it from the thread that
        stays: a module fixture's) and its own process group; :meth:`RealAppium.stop` sends
        SIGTERM (Appium exits in about 0.1 s) and SIGKILL to the group after 15 s.
Rule 3: ``--port 0`` is refused by Appium, so the port is picked here, and another process may
        bind it first (tests run in parallel): the server is ready only when its own output says
        ``listener started on http://127.0.0.1:PORT`` and ``GET /status`` there says Appium 3;
        ``EADDRINUSE`` starts it again on another port (5 tries). Waiting is on the server's
        output (a thread reads it), bounded by ``start_timeout``, never a sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tests.loopback import closed_port

#: The project's Appium folder (scripts/install-appium.sh).
HOME = Path(__file__).resolve().parents[1] / ".appium"
#: The pins the install writes to ``.installed`` once it is complete.
PINS = "appium@3.8.0 appium-xcuitest-driver@12.13.1 appium-uiautomator2-driver@8.7.0"
_READY = "Appium REST http interface listener started on http://127.0.0.1:"


def installed(home: Path = HOME) -> str | None:
    """None when the pinned Appium is in ``home``, else why not (what a test skips with)."""
    stamp = home / ".installed"
    if stamp.is_file() and stamp.read_text("utf-8").strip() == PINS:
        return None
    reason = home / ".unavailable"
    if reason.is_file():
        return f"real Appium isn't installed here: {reason.read_text('utf-8').strip()}"
    return f"real Appium isn't installed in {home}: run `make test` (or bash scripts/install-appium.sh)"


def request(method: str, url: str, body: Any = None, *, timeout: float = 30.0) -> tuple[int, Any]:
    """One HTTP request with a JSON body: ``(status, parsed JSON or text)``; never raises for a status."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    headers = {"Content-Type": "application/json"} if data is not None else {}
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode("utf-8", "replace")


class RealAppium:
    """One real Appium server on 127.0.0.1 (the module rules); a context manager.

    ``usbmuxd`` is a fake usbmuxd's socket path, ``android_home`` the SDK folder of a fake adb,
    ``log`` where the server writes, ``args`` more server options (``--allow-insecure``).
    """

    def __init__(
        self,
        log: Path,
        *,
        home: Path = HOME,
        usbmuxd: str | None = None,
        android_home: Path | None = None,
        args: tuple[str, ...] = (),
        start_timeout: float = 90.0,
    ) -> None:
        self.home = home
        self.log = log
        self.usbmuxd = usbmuxd
        self.android_home = android_home
        self.args = args
        self.start_timeout = start_timeout
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: list[str] = []
        self._changed = threading.Condition()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        """What the server has written so far."""
        with self._changed:
            return "".join(self._lines)

    def wait_for(self, text: str, timeout: float) -> bool:
        """Wait until the server's output holds ``text`` (True), or ``timeout`` seconds (False)."""
        with self._changed:
            return self._changed.wait_for(lambda: any(text in line for line in self._lines), timeout)

    def wait_for_more(self, text: str, seen: int, timeout: float) -> bool:
        """Wait until the output holds ``text`` more than ``seen`` times (True), or ``timeout`` seconds (False)."""
        with self._changed:
            return self._changed.wait_for(lambda: "".join(self._lines).count(text) > seen, timeout)

    def start(self) -> Self:
        """Start the server and wait until it is ready (Rule 3)."""
        for _ in range(5):
            if self._start_once():
                return self
        raise RuntimeError(f"Appium found no free port in 5 tries:\n{self._tail()}")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL to the group after 15 s (Rule 2); safe to call twice."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- inside -------------------------------------------------------------------------------

    def _command(self) -> list[str]:
        setpriv = shutil.which("setpriv")
        prefix = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
        main = self.home / "node_modules" / "appium" / "index.js"
        return [
            *prefix,
            str(self.home / "bin" / "node"),
            str(main),
            *("--address", "127.0.0.1", "--port", str(self.port)),
            *("--log-no-colors", "--log-timestamp", "--log-level", "debug"),
            *self.args,
        ]

    def _environment(self) -> dict[str, str]:
        dropped = ("USBMUXD_SOCKET_ADDRESS", "ANDROID_HOME", "ANDROID_SDK_ROOT")
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env["APPIUM_HOME"] = str(self.home)
        if self.android_home is not None:
            env["ANDROID_HOME"] = str(self.android_home)
        if self.usbmuxd is not None:
            env["USBMUXD_SOCKET_ADDRESS"] = f"unix:{self.usbmuxd}"
        return env

    def _start_once(self) -> bool:
        self.port = closed_port()
        with self._changed:
            self._lines.clear()
        process = subprocess.Popen(
            self._command(),
            env=self._environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._process = process
        threading.Thread(target=self._read, args=(process,), name="real-appium-output", daemon=True).start()
        marker = f"{_READY}{self.port}"
        with self._changed:
            self._changed.wait_for(
                lambda: process.poll() is not None or any(marker in line for line in self._lines), self.start_timeout
            )
        if process.poll() is not None:
            if "EADDRINUSE" in self.output():
                return False  # another process took the port first: another one
            raise RuntimeError(f"Appium exited with {process.returncode} at start:\n{self._tail()}")
        if marker not in self.output():
            self.stop()
            raise RuntimeError(f"Appium was not ready within {self.start_timeout:g} s:\n{self._tail()}")
        status, body = request("GET", f"{self.url}/status", timeout=10)
        value = body.get("value") if isinstance(body, dict) else None
        if status != 200 or not isinstance(value, dict) or not value.get("ready"):
            self.stop()
            raise RuntimeError(f"GET /status on Appium's port answered {status} {body!r}")
        return True

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        """Copy the server's output to its log and to :meth:`output`, line by line."""
        assert process.stdout is not None
        with self.log.open("ab") as log:
            for raw in _lines(process.stdout):
                log.write(raw)
                log.flush()
                with self._changed:
                    self._lines.append(raw.decode("utf-8", "replace"))
                    self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _tail(self, count: int = 30) -> str:
        return "".join(self.output().splitlines(keepends=True)[-count:])


def _lines(stream: Any) -> Iterator[bytes]:
    yield from iter(stream.readline, b"")
