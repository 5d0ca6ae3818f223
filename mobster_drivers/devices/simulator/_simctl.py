"""``xcrun simctl`` behind a small runner interface, and the simulator list it prints.

Rule 1: everything simctl does goes through a :class:`SimctlRunner` (``run(args) -> (code, stdout,
        stderr)``): :class:`XcrunSimctl` runs the real ``xcrun simctl`` with a timeout; tests use
        ``mobster_drivers.testing.xcrun.FakeSimctl``, which replays recorded outputs.
Rule 2: a failed command is a :class:`DeviceError` that names the command and quotes simctl's last
        line of error. A command that is an *action* on the phone (launch, terminate, openurl) and
        times out is an :class:`UnknownOutcome`: it may have happened.
Rule 3: ``list devices -j`` is parsed strictly enough to trust: a simulator needs ``udid``,
        ``name`` and ``state``; unavailable ones (``isAvailable: false``) and non-iOS runtimes are
        left out. The iOS version comes from the runtime key (``…SimRuntime.iOS-26-4`` → ``26.4``).
Rule 4: a simulator is picked by UDID (any case), else by exact name; several with that name is
        an error listing them, unless exactly one of them is booted.
Rule 5: launch environment goes to simctl's own environment as ``SIMCTL_CHILD_<NAME>``; simctl
        strips the prefix and gives it to the app.
Rule 6: a command that runs until it is interrupted (``io <udid> recordVideo``) goes through a
        runner's optional :class:`SimctlBackground` ability: ``start(args)`` gives a
        :class:`SimctlProcess`, and ``interrupt()`` sends it SIGINT, which is how simctl finalizes
        a video (until then the file is not playable), and waits for it to exit.
Rule 7: the device controls are simctl's documented commands: ``location <udid> set <lat>,<lon>``,
        ``ui <udid> appearance light|dark``, ``ui <udid> content_size <size>``, ``push <udid>
        <bundle> <payload file>``, and BiometricKit's Darwin notifications through ``spawn <udid>
        notifyutil`` (enrolment: ``-s com.apple.BiometricKit.enrollmentChanged 1 -p …``; a match:
        ``-p com.apple.BiometricKit_Sim.<fingerTouch|pearl>.<match|nomatch>``, as
        appium-ios-simulator sends them).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import attrs

from mobster_core import DeviceError, UnknownOutcome

__all__ = [
    "BIOMETRIC_ENROLLMENT",
    "PRIVACY_SERVICES",
    "Simctl",
    "SimctlBackground",
    "SimctlProcess",
    "SimctlRunner",
    "SimctlTimeout",
    "Simulator",
    "XcrunSimctl",
    "parse_simulators",
    "pick_simulator",
    "runtime_version",
]

_RUNTIME = re.compile(r"\.SimRuntime\.iOS-([0-9]+(?:-[0-9]+){0,2})$")
_PID = re.compile(r":\s*([0-9]+)\s*$")
_CHILD = "SIMCTL_CHILD_"

#: The services ``xcrun simctl privacy`` grants and revokes (``simctl help privacy``; ``all`` left out).
PRIVACY_SERVICES = frozenset(
    {
        "calendar",
        "contacts-limited",
        "contacts",
        "location",
        "location-always",
        "photos-add",
        "photos",
        "media-library",
        "microphone",
        "motion",
        "reminders",
        "siri",
    }
)


class SimctlTimeout(TimeoutError):
    """``xcrun simctl`` did not finish in time (raised by a runner)."""


@runtime_checkable
class SimctlRunner(Protocol):
    """**Protocol:** runs ``xcrun simctl <args>`` and returns ``(exit code, stdout, stderr)``.

    ``env`` is added to the inherited environment (``SIMCTL_CHILD_*`` for a launch). Raises
    :class:`SimctlTimeout` after ``timeout`` seconds, and ``DeviceError`` when simctl can't run.
    """

    def run(
        self, args: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> tuple[int, str, str]:
        """Run one simctl command."""
        ...


@runtime_checkable
class SimctlProcess(Protocol):
    """**Protocol:** a simctl command running in the background (Rule 6)."""

    def interrupt(self, timeout: float = 30.0) -> tuple[int, str, str]:
        """Send SIGINT and wait for the exit: ``(exit code, stdout, stderr)``; ``SimctlTimeout`` after ``timeout``."""
        ...


@runtime_checkable
class SimctlBackground(Protocol):
    """**Protocol:** an optional ability of a runner: start a simctl command that runs until interrupted."""

    def start(self, args: Sequence[str]) -> SimctlProcess:
        """Start ``xcrun simctl <args>``; ``DeviceError`` when it can't start."""
        ...


class _Popen:
    """A real simctl process in the background (Rule 6)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process

    def interrupt(self, timeout: float = 30.0) -> tuple[int, str, str]:
        """SIGINT (simctl finalizes what it writes), then wait; killed after ``timeout``."""
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
        try:
            out, err = self._process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            self._process.kill()
            self._process.communicate()
            raise SimctlTimeout(f"xcrun simctl didn't stop within {timeout:g} s of SIGINT") from exc
        return self._process.returncode, out, err


class XcrunSimctl:
    """The real :class:`SimctlRunner`: ``xcrun simctl`` in a subprocess (macOS with Xcode)."""

    def __init__(self, xcrun: str = "xcrun") -> None:
        self._xcrun = xcrun

    def run(
        self, args: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> tuple[int, str, str]:
        """Run ``xcrun simctl <args>``; see :class:`SimctlRunner`."""
        environment = {**os.environ, **env} if env else None
        try:
            done = subprocess.run(  # noqa: S603 - fixed program, arguments as a list, no shell
                [self._xcrun, "simctl", *args],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=environment,
                check=False,
            )
        except FileNotFoundError as exc:
            raise DeviceError(
                f"{self._xcrun} isn't installed here: the simulator driver needs macOS with Xcode "
                "(xcode-select --install); on other machines use --wda URL or --scripted"
            ) from exc
        except subprocess.TimeoutExpired as exc:
            raise SimctlTimeout(f"xcrun simctl {' '.join(args[:2])} took more than {timeout:g} s") from exc
        return done.returncode, done.stdout, done.stderr

    def start(self, args: Sequence[str]) -> SimctlProcess:
        """Start ``xcrun simctl <args>`` in the background (Rule 6)."""
        try:
            process = subprocess.Popen(  # noqa: S603 - fixed program, arguments as a list, no shell
                [self._xcrun, "simctl", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        except OSError as exc:
            raise DeviceError(
                f"{self._xcrun} simctl {' '.join(args[:2])} couldn't start: {exc.strerror or exc}"
            ) from exc
        return _Popen(process)


@attrs.frozen
class Simulator:
    """One simulator from ``simctl list devices -j``."""

    udid: str
    name: str
    state: str
    runtime: str
    ios: str
    device_type: str = ""

    @property
    def booted(self) -> bool:
        """True when the simulator is booted."""
        return self.state == "Booted"

    def describe(self) -> str:
        """``iPhone 17 Pro (iOS 26.4, Booted, 5A1F…)``."""
        return f"{self.name} (iOS {self.ios}, {self.state}, {self.udid})"


def runtime_version(runtime: str) -> str | None:
    """``com.apple.CoreSimulator.SimRuntime.iOS-26-4`` → ``"26.4"``; None for other platforms."""
    match = _RUNTIME.search(runtime)
    return match.group(1).replace("-", ".") if match else None


def parse_simulators(text: str) -> list[Simulator]:
    """The available iOS simulators in ``simctl list devices -j`` output (Rule 3)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DeviceError(f"simctl list devices -j printed something that is not JSON: {text[:80]!r}") from exc
    devices = data.get("devices") if isinstance(data, Mapping) else None
    if not isinstance(devices, Mapping):
        raise DeviceError("simctl list devices -j printed JSON without a 'devices' object")
    out: list[Simulator] = []
    for runtime, entries in devices.items():
        ios = runtime_version(str(runtime))
        if ios is None or not isinstance(entries, list):
            continue
        for entry in entries:
            simulator = _simulator(entry, str(runtime), ios)
            if simulator is not None:
                out.append(simulator)
    return out


def _simulator(entry: Any, runtime: str, ios: str) -> Simulator | None:
    if not isinstance(entry, Mapping) or entry.get("isAvailable", True) is not True:
        return None
    udid, name, state = entry.get("udid"), entry.get("name"), entry.get("state")
    if not all(isinstance(v, str) and v for v in (udid, name, state)):
        return None
    kind = entry.get("deviceTypeIdentifier")
    return Simulator(str(udid), str(name), str(state), runtime, ios, kind if isinstance(kind, str) else "")


def pick_simulator(simulators: Sequence[Simulator], wanted: str) -> Simulator:
    """The simulator ``wanted`` names, by UDID or exact name (Rule 4); ``DeviceError`` otherwise."""
    key = wanted.strip()
    for simulator in simulators:
        if simulator.udid.lower() == key.lower():
            return simulator
    named = [s for s in simulators if s.name == key] or [s for s in simulators if s.name.lower() == key.lower()]
    if len(named) == 1:
        return named[0]
    if not named:
        if not simulators:
            raise DeviceError(
                f"no simulator {key!r}: simctl lists no available iOS simulators; "
                "create one in Xcode (Window > Devices and Simulators)"
            )
        names = ", ".join(sorted({s.name for s in simulators}))
        raise DeviceError(f"no simulator {key!r} (name or UDID); available: {names}")
    booted = [s for s in named if s.booted]
    if len(booted) == 1:
        return booted[0]
    listing = "; ".join(s.describe() for s in named)
    raise DeviceError(f"{len(named)} simulators are called {key!r}: {listing}. Pass the UDID instead")


#: Rule 7: the Darwin notification BiometricKit reads the simulator's enrolment from.
BIOMETRIC_ENROLLMENT = "com.apple.BiometricKit.enrollmentChanged"
_SENSORS = {"touchId": "fingerTouch", "faceId": "pearl"}


class Simctl:
    """The simctl commands the simulator driver uses, with errors mapped (Rule 2)."""

    def __init__(
        self, runner: SimctlRunner | None = None, *, timeout: float = 60.0, boot_timeout: float = 240.0
    ) -> None:
        self._runner: SimctlRunner = runner if runner is not None else XcrunSimctl()
        self._timeout = timeout
        self._boot_timeout = boot_timeout

    @property
    def runner(self) -> SimctlRunner:
        """The runner commands go through."""
        return self._runner

    def _run(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        action: str | None = None,
        ok_codes: Sequence[int] = (0,),
    ) -> tuple[int, str, str]:
        command = f"simctl {' '.join(args[:1])}"
        try:
            code, out, err = self._runner.run(list(args), env=env, timeout=timeout or self._timeout)
        except SimctlTimeout as exc:
            if action is not None:
                raise UnknownOutcome(f"{action}: {command} timed out; it may or may not have happened") from exc
            raise DeviceError(f"{command} timed out ({exc})") from exc
        if code not in ok_codes:
            raise DeviceError(f"{command} failed (exit {code}): {_last_line(err) or _last_line(out) or 'no output'}")
        return code, out, err

    def list(self) -> list[Simulator]:
        """The available iOS simulators (``list devices -j``)."""
        _, out, _ = self._run(["list", "devices", "-j"])
        return parse_simulators(out)

    def boot(self, udid: str) -> None:
        """Boot a simulator and wait until it has booted (``boot``, then ``bootstatus -b``)."""
        code, _, err = self._run(["boot", udid], timeout=self._boot_timeout, ok_codes=(0, 149))
        if code != 0 and "current state: Booted" not in err:
            raise DeviceError(f"simctl boot failed (exit {code}): {_last_line(err)}")
        self._run(["bootstatus", udid, "-b"], timeout=self._boot_timeout)

    def install(self, udid: str, app: str | os.PathLike[str]) -> None:
        """Install an ``.app`` bundle."""
        self._run(["install", udid, os.fspath(app)], timeout=self._boot_timeout)

    def uninstall(self, udid: str, bundle: str) -> None:
        """Uninstall an app."""
        self._run(["uninstall", udid, bundle])

    def launch(
        self,
        udid: str,
        bundle: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        *,
        terminate_running: bool = True,
    ) -> int | None:
        """Launch an app with arguments and environment (Rule 5); its pid when simctl prints one."""
        command = ["launch"]
        if terminate_running:
            command.append("--terminate-running-process")
        command += [udid, bundle, *args]
        child = {f"{_CHILD}{k}": v for k, v in (env or {}).items()}
        _, out, _ = self._run(command, env=child, action=f"launching {bundle}")
        match = _PID.search(out.strip())
        return int(match.group(1)) if match else None

    def terminate(self, udid: str, bundle: str) -> bool:
        """Terminate an app; False when it wasn't running (not an error)."""
        code, _, err = self._run(
            ["terminate", udid, bundle], action=f"terminating {bundle}", ok_codes=tuple(range(256))
        )
        if code == 0:
            return True
        if "nothing to terminate" in err or "not running" in err:
            return False
        raise DeviceError(f"simctl terminate failed (exit {code}): {_last_line(err)}")

    def openurl(self, udid: str, url: str) -> None:
        """Open a URL on the simulator."""
        self._run(["openurl", udid, url], action=f"opening {url}")

    def app_container(self, udid: str, bundle: str, which: str = "app") -> Path:
        """The path of an app's container: ``app`` (the ``.app``), ``data`` or ``groups``."""
        _, out, _ = self._run(["get_app_container", udid, bundle, which])
        path = out.strip().splitlines()[0].strip() if out.strip() else ""
        if not path:
            raise DeviceError(f"simctl get_app_container printed no path for {bundle}")
        return Path(path)

    def privacy_set(self, udid: str, bundle: str, service: str, *, allow: bool) -> None:
        """Grant or revoke one permission (``privacy <udid> grant|revoke <service> <bundle>``)."""
        self._run(["privacy", udid, "grant" if allow else "revoke", service, bundle])

    def privacy_reset(self, udid: str, bundle: str | None = None, service: str = "all") -> None:
        """Reset privacy permissions (``privacy <udid> reset all [bundle]``)."""
        self._run(["privacy", udid, "reset", service, *([bundle] if bundle else [])])

    def screenshot(self, udid: str) -> bytes:
        """A PNG screenshot (``io <udid> screenshot --type=png <file>``, read back)."""
        with tempfile.TemporaryDirectory(prefix="mobster-shot-") as folder:
            target = Path(folder) / "screen.png"
            self._run(["io", udid, "screenshot", "--type=png", str(target)])
            try:
                return target.read_bytes()
            except OSError as exc:
                raise DeviceError(f"simctl io screenshot wrote no file ({exc.strerror or exc})") from exc

    # -- the device controls and the video (Rules 6 and 7) -----------------------------------
    def set_location(self, udid: str, latitude: float, longitude: float) -> None:
        """``location <udid> set <lat>,<lon>``."""
        self._run(["location", udid, "set", f"{latitude:.6f},{longitude:.6f}"])

    def set_appearance(self, udid: str, appearance: str) -> None:
        """``ui <udid> appearance light|dark``."""
        self._run(["ui", udid, "appearance", appearance])

    def set_content_size(self, udid: str, size: str) -> None:
        """``ui <udid> content_size <size>``."""
        self._run(["ui", udid, "content_size", size])

    def set_biometric_enrollment(self, udid: str, *, enrolled: bool) -> None:
        """BiometricKit's enrolment: set the notification's state, then post it (Rule 7)."""
        state = "1" if enrolled else "0"
        self._run(["spawn", udid, "notifyutil", "-s", BIOMETRIC_ENROLLMENT, state, "-p", BIOMETRIC_ENROLLMENT])

    def biometric_match(self, udid: str, *, match: bool, sensor: str = "faceId") -> None:
        """Answer a Face ID (``faceId``) or Touch ID (``touchId``) prompt with a matching finger or face, or not."""
        if sensor not in _SENSORS:
            raise ValueError(f"a biometric sensor is faceId or touchId, not {sensor!r}")
        outcome = "match" if match else "nomatch"
        name = f"com.apple.BiometricKit_Sim.{_SENSORS[sensor]}.{outcome}"
        self._run(["spawn", udid, "notifyutil", "-p", name], action=f"a biometric {outcome}")

    def push(self, udid: str, bundle: str, payload: str | os.PathLike[str]) -> None:
        """``push <udid> <bundle> <payload file>``: a push notification to the app."""
        self._run(["push", udid, bundle, os.fspath(payload)], action=f"pushing a notification to {bundle}")

    def record_video(self, udid: str, file: str | os.PathLike[str]) -> SimctlProcess:
        """``io <udid> recordVideo --codec=h264 --force <file>``, in the background until interrupted (Rule 6)."""
        runner = self._runner
        if not isinstance(runner, SimctlBackground):
            raise DeviceError("this simctl runner can't run a command in the background: no video")
        return runner.start(["io", udid, "recordVideo", "--codec=h264", "--force", os.fspath(file)])


def _last_line(text: str) -> str:
    """What simctl said, without its "An error was encountered" preamble, on one line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("An error was encountered processing the command")]
    said = " ".join(lines)
    return said if len(said) <= 300 else said[:297] + "..."
