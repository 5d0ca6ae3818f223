r"""A fake ``adb``: an executable on ``ANDROID_HOME/platform-tools/adb`` and the adb server it talks to.

Both Mobster's Android driver and appium-adb run it as they run the real one (appium-adb finds
adb only under ``$ANDROID_HOME``/``$ANDROID_SDK_ROOT``, ``lib/tools/system-calls.ts:36-43``), so one
fake serves both. The executable is a small stdlib-only Python script that hands its argv to this
fake's server over a unix socket and prints what comes back, with the exit status; the server
answers from the fake devices' state (``_uia2/state``), with the device shell of ``_uia2/shell``.

::

    with FakeUiAutomator2(sample_path("yourapp-android")) as server, FakeAdb([server]) as adb:
        env = {**os.environ, "ANDROID_HOME": str(adb.android_home)}
        subprocess.run([adb.executable, "devices"], env=env)

Rule 1 (the command line): the global options ``-s SERIAL``, ``-P PORT`` (appium-adb always sends
        ``-P 5037``), ``-H HOST``, ``-t ID``, ``-d``, ``-e`` come first; without ``-s`` the device
        is ``$ANDROID_SERIAL``'s, else the only one ("error: more than one device/emulator" or
        "error: no devices/emulators found", status 1); an unknown serial is "error: device 'X'
        not found".
Rule 2 (host commands): ``start-server``, ``kill-server``, ``version``, ``devices`` (``-l``),
        ``get-state``, ``get-serialno``, ``wait-for-device``, ``forward``, ``shell``, ``exec-out``,
        ``install`` and ``uninstall`` (of the UiAutomator2 server's packages), ``logcat`` (runs
        until killed, printing nothing). ``adb shell`` joins its arguments with spaces into one
        line for the device's shell, as adb does.
Rule 3 (forwards, ``network-commands.ts:13-40``): ``forward tcp:N tcp:6790`` listens on
        127.0.0.1:N at once, as the adb server does (``tcp:0`` picks a free port and prints it;
        a port in use is "error: cannot bind listener: Address already in use"; a port whose
        connections are in TIME_WAIT is not in use: SO_REUSEADDR), and carries each
        connection to the device's UiAutomator2 server while it runs; while it doesn't, the
        connection is accepted and closed at once, as adb closes a forward with nothing listening on
        the device. ``forward --list``, ``--remove tcp:N`` and ``--remove-all``.
Rule 4 (the server's instrumentation, ``uiautomator2-server/core.ts:382-404``): ``shell am instrument
        -w … io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner`` starts
        the device's server and keeps running until the server stops (``DELETE /session``, an
        ``am force-stop`` of its packages), printing its end then, or until it is killed (then the
        server stops). Without the server's packages installed it fails as ``am instrument`` does.
Rule 5 (many at once): each adb process is served in its own thread, and the devices' state is
        changed on their phones' loops, so appium-adb's concurrent commands (two ``am force-stop``
        at once) never race; the forwards' table is kept under a lock.
Rule 6 (what each device received): every device-shell command line is kept in order
        (:meth:`FakeAdb.commands`), and every host command line in :attr:`FakeAdb.requests`.

Checked against: appium-adb 16.0.5 and appium-uiautomator2-driver 8.7.0 (what they send and
parse, android-facts.md §3, run against a scratch fake with Appium 3.8.0). Not checked: the real
adb's exact wording of a failed ``pm grant`` and of ``forward`` errors (inferred from AOSP), and
anything of the adb host protocol on TCP 5037 (no client here speaks it: appium-adb and Mobster run
the executable).
"""

from __future__ import annotations

import base64
import contextlib
import json
import select
import shutil
import socket
import stat
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import attrs

from ._server import LoopbackServer
from ._uia2.shell import run_line
from ._uia2.state import TEST_PACKAGE, AndroidState
from .uiautomator2 import FakeUiAutomator2

__all__ = ["AdbRequest", "FakeAdb"]

_EXE = """#!{python} -IS
# The fake adb of Mobster's tests (mobster_drivers.testing.adb): hands its arguments to the fake.
import base64, json, os, socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect({socket!r})
except OSError:
    sys.stderr.write("* daemon not running; starting now at tcp:5037\\n* failed to start daemon\\n"
                     "error: cannot connect to daemon\\n")
    sys.exit(1)
s.sendall(json.dumps({{"argv": sys.argv[1:], "serial": os.environ.get("ANDROID_SERIAL")}}).encode() + b"\\n")
for line in s.makefile("rb"):
    message = json.loads(line)
    if "out" in message:
        sys.stdout.buffer.write(base64.b64decode(message["out"]))
        sys.stdout.buffer.flush()
    if "err" in message:
        sys.stderr.write(message["err"])
        sys.stderr.flush()
    if "code" in message:
        sys.exit(message["code"])
sys.exit(1)
"""
_INSTRUMENTATION = f"{TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner"
_VERSION = "Android Debug Bridge version 1.0.41\nVersion 35.0.2-12147458\nInstalled as {path}\nRunning on Linux\n"


@attrs.frozen
class AdbRequest:
    """One adb process's command line (Rule 6), as it was run."""

    argv: tuple[str, ...]


@attrs.define
class _Forward:
    serial: str
    remote: str
    listener: socket.socket
    port: int


class FakeAdb(LoopbackServer[AdbRequest]):
    """The adb server of the fake ``adb`` executable, for ``devices`` (each a started :class:`FakeUiAutomator2`)."""

    handler = "stream"

    def __init__(self, devices: Sequence[FakeUiAutomator2], *, lifetime: float | None = 600.0) -> None:
        self._root = Path(tempfile.mkdtemp(prefix="mobster-fake-adb-"))
        self._root.chmod(0o700)
        super().__init__(lifetime=lifetime, unix_path=self._root / "adb.sock")
        self._devices = {d.serial: d for d in devices}
        self._forwards: dict[int, _Forward] = {}
        self._forwards_lock = threading.Lock()
        self._stopped_event = threading.Event()

    unix_name = "adb.sock"

    # -- the SDK folder ------------------------------------------------------------------------

    @property
    def android_home(self) -> Path:
        """The folder to give as ``ANDROID_HOME``: its ``platform-tools/adb`` is the fake."""
        return self._root / "sdk"

    @property
    def executable(self) -> Path:
        """The fake ``adb`` executable."""
        return self.android_home / "platform-tools" / "adb"

    def _on_start(self) -> None:
        for device in self._devices.values():
            device.state  # noqa: B018 - started already (it raises if not)
        tools = self.executable.parent
        tools.mkdir(parents=True, mode=0o700)
        self.executable.write_text(_EXE.format(python=sys.executable, socket=str(self._root / "adb.sock")))
        self.executable.chmod(stat.S_IRWXU)

    def _on_stop(self) -> None:
        self._stopped_event.set()
        with self._forwards_lock:
            forwards, self._forwards = list(self._forwards.values()), {}
        for forward in forwards:
            _close_listener(forward.listener)
        shutil.rmtree(self._root, ignore_errors=True)

    def commands(self, serial: str) -> list[list[str]]:
        """Rule 6: the device-shell commands ``serial`` received, in order."""
        return list(self._devices[serial].on_loop(lambda state: [list(c) for c in state.commands]))

    @property
    def forwards(self) -> dict[int, tuple[str, str]]:
        """The forwards now: host port -> (serial, remote)."""
        with self._forwards_lock:
            return {p: (f.serial, f.remote) for p, f in self._forwards.items()}

    # -- one adb process -----------------------------------------------------------------------

    def _converse(self, connection: socket.socket) -> None:
        reader = connection.makefile("rb")
        line = reader.readline()
        try:
            request = json.loads(line)
            argv = [str(a) for a in request["argv"]]
            serial = request.get("serial")
        except (ValueError, KeyError, TypeError):
            return
        if self._admit(AdbRequest(tuple(argv)), lambda: True) is None:
            return
        try:
            self._serve(connection, argv, serial if isinstance(serial, str) else None)
        except OSError:
            return  # the adb process went away (killed)

    def _serve(self, connection: socket.socket, argv: list[str], env_serial: str | None) -> None:
        serial, args = _globals(argv)
        if not args:
            self._reply(connection, b"", "adb: usage: no command given\n", 1)
            return
        command, rest = args[0], args[1:]
        host = self._host(command, rest)
        if host is not None:
            self._reply(connection, *host)
            return
        device = self._device(serial or env_serial)
        if isinstance(device, tuple):
            self._reply(connection, *device)
            return
        if command == "forward":
            self._reply(connection, *self._forward(device, rest))
        elif command in ("shell", "exec-out"):
            self._shell(connection, device, " ".join(rest))
        elif command == "logcat":
            self._until_gone(connection, threading.Event())
        elif command in ("install", "uninstall"):
            device.on_loop(lambda s: setattr(s, "installed_server", command == "install"))
            self._reply(
                connection, b"Performing Streamed Install\nSuccess\n" if command == "install" else b"Success\n", "", 0
            )
        elif command in ("get-state", "get-serialno"):
            self._reply(connection, f"{'device' if command == 'get-state' else device.serial}\n".encode(), "", 0)
        elif command == "wait-for-device":
            self._reply(connection, b"", "", 0)
        else:
            self._reply(connection, b"", f"adb: unknown command {command}\n", 1)

    def _host(self, command: str, rest: list[str]) -> tuple[bytes, str, int] | None:
        """Rule 2: the commands the adb server answers itself (None for a device's)."""
        if command in ("start-server", "kill-server"):
            return (b"", "", 0)
        if command == "version":
            return (_VERSION.format(path=self.executable).encode(), "", 0)
        if command == "devices":
            rows = []
            for d in self._devices.values():
                model = d.phone.script.device.name.replace(" ", "_")
                extra = f" product:sdk_gphone64 model:{model} device:emu64 transport_id:1"
                rows.append(f"{d.serial}\tdevice{extra if '-l' in rest else ''}\n")
            return (("List of devices attached\n" + "".join(rows) + "\n").encode(), "", 0)
        return None

    def _device(self, serial: str | None) -> FakeUiAutomator2 | tuple[bytes, str, int]:
        """Rule 1."""
        if serial is not None:
            found = self._devices.get(serial)
            return found if found is not None else (b"", f"adb: device '{serial}' not found\n", 1)
        if not self._devices:
            return (b"", "adb: no devices/emulators found\n", 1)
        if len(self._devices) > 1:
            return (b"", "adb: more than one device/emulator\n", 1)
        return next(iter(self._devices.values()))

    def _reply(self, connection: socket.socket, out: bytes, err: str, code: int) -> None:
        lines: list[dict[str, str | int]] = []
        if out:
            lines.append({"out": base64.b64encode(out).decode("ascii")})
        if err:
            lines.append({"err": err})
        lines.append({"code": code})
        connection.sendall(b"".join(json.dumps(m).encode() + b"\n" for m in lines))

    # -- the device's shell (Rule 4 for am instrument) -------------------------------------------

    def _shell(self, connection: socket.socket, device: FakeUiAutomator2, line: str) -> None:
        if not line.strip():
            self._reply(connection, b"", "the fake adb runs no interactive shell\n", 1)
            return
        if line.strip().startswith("am instrument") and _INSTRUMENTATION in line:
            self._instrument(connection, device, "-w" in line.split())
            return
        out, err, code = device.run(_line(device.state, line))
        self._reply(connection, out, err, code)

    def _instrument(self, connection: socket.socket, device: FakeUiAutomator2, wait: bool) -> None:
        ended = threading.Event()

        def start(state: AndroidState) -> bool:
            if not state.installed_server:
                return False
            state.commands.append(["am", "instrument", _INSTRUMENTATION])
            state.instrumented = True
            state.on_stop = ended.set
            return True

        if not device.on_loop(start):
            said = (
                "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: "
                f"ComponentInfo{{{_INSTRUMENTATION}}}\n"
                "INSTRUMENTATION_STATUS_CODE: -1\n"
                f"android.util.AndroidException: INSTRUMENTATION_FAILED: {_INSTRUMENTATION}\n"
            )
            self._reply(connection, said.encode(), "", 1)
            return
        if not wait:
            self._reply(connection, b"", "", 0)
            return
        if self._until_gone(connection, ended):  # the server stopped: am instrument returns
            self._reply(connection, b"\nTime: 1.0\n\nOK (1 test)\n\n", "", 0)
        else:  # killed: the server's process goes with it

            def killed(state: AndroidState) -> None:
                if state.on_stop is ended.set:
                    state.on_stop = None
                    state.session = None
                    state.instrumented = False

            with contextlib.suppress(RuntimeError):
                device.on_loop(killed)

    def _until_gone(self, connection: socket.socket, ended: threading.Event) -> bool:
        """Wait until ``ended`` (True), or the client closes or the fake stops (False)."""
        while not ended.is_set():
            if self._stopped_event.is_set():
                return False
            readable, _, _ = select.select([connection], [], [], 0.05)
            if readable:
                try:
                    if not connection.recv(1, socket.MSG_PEEK):
                        return False
                except OSError:
                    return False
        return True

    # -- forwards (Rule 3) -----------------------------------------------------------------------

    def _forward(self, device: FakeUiAutomator2, rest: list[str]) -> tuple[bytes, str, int]:
        if rest[:1] == ["--list"]:
            rows = "".join(f"{s} tcp:{p} {r}\n" for p, (s, r) in sorted(self.forwards.items()))
            return (rows.encode(), "", 0)
        if rest[:1] == ["--remove-all"]:
            for port in list(self.forwards):
                self._unforward(port)
            return (b"", "", 0)
        if rest[:1] == ["--remove"] and len(rest) == 2 and rest[1].startswith("tcp:"):
            port = int(rest[1][4:]) if rest[1][4:].isdigit() else -1
            if not self._unforward(port):
                return (b"", f"adb: error: listener '{rest[1]}' not found\n", 1)
            return (b"", "", 0)
        if len(rest) == 2 and rest[0].startswith("tcp:") and rest[1].startswith("tcp:"):
            return self._listen(device, rest[0], rest[1])
        return (b"", "adb: usage: adb forward [--no-rebind] LOCAL REMOTE\n", 1)

    def _listen(self, device: FakeUiAutomator2, local: str, remote: str) -> tuple[bytes, str, int]:
        wanted = int(local[4:]) if local[4:].isdigit() else -1
        if wanted < 0:
            return (b"", f"adb: error: cannot parse '{local}'\n", 1)
        with self._forwards_lock:
            if wanted in self._forwards:
                self._forwards[wanted].remote = remote
                return (b"", "", 0)
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            # adb's loopback listeners set SO_REUSEADDR (libcutils' socket servers [inferred, not re-read]):
            # a port just removed, its connections in TIME_WAIT, can be forwarded again at once, as
            # appium-uiautomator2-driver does when a session follows another on systemPort 8200.
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind(("127.0.0.1", wanted))
            except OSError:
                listener.close()
                return (b"", "adb: error: cannot bind listener: Address already in use\n", 1)
            listener.listen(64)
            port = int(listener.getsockname()[1])
            self._forwards[port] = _Forward(device.serial, remote, listener, port)
        threading.Thread(
            target=self._accept, args=(port, listener, device), daemon=True, name=f"fake-adb-forward-{port}"
        ).start()
        return (f"{port}\n".encode() if wanted == 0 else b"", "", 0)

    def _unforward(self, port: int) -> bool:
        with self._forwards_lock:
            forward = self._forwards.pop(port, None)
        if forward is None:
            return False
        _close_listener(forward.listener)
        return True

    def _accept(self, port: int, listener: socket.socket, device: FakeUiAutomator2) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            forward = self.forwards.get(port)
            server_up = forward is not None and forward[1] == "tcp:6790" and device.state.instrumented
            if not server_up:
                client.close()  # nothing listens on the device: adb closes the connection at once
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", device.port), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def _globals(argv: list[str]) -> tuple[str | None, list[str]]:
    """Rule 1: the serial the global options name, and the command after them."""
    serial: str | None = None
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in ("-s", "-P", "-H", "-t", "-L"):
            if argv[i] == "-s" and i + 1 < len(argv):
                serial = argv[i + 1]
            i += 2
            continue
        i += 1
    return serial, argv[i:]


async def _line(state: AndroidState, line: str) -> tuple[bytes, str, int]:
    return await run_line(state, line)


def _close_listener(listener: socket.socket) -> None:
    """Stop listening now: ``shutdown`` first, or the thread blocked in ``accept`` keeps the port bound on Linux."""
    with contextlib.suppress(OSError):
        listener.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        listener.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
