"""A fake ``xcrun simctl`` that replays recorded outputs, for the simulator driver's tests.

:class:`FakeSimctl` is a :class:`~mobster_drivers.devices.simulator.SimctlRunner`: give it to
``SimulatorDevice.connect(..., runner=fake)``. It keeps a small model of the simulators and their
apps, and answers each command the way simctl does: the recorded ``list devices -j`` JSON, and
the recorded error text and exit code of each failure (``recorded/simctl-errors.json``).

::

    with FakeWda(sample_path("yourapp")) as wda:
        simctl = FakeSimctl(tmp_path, wda=wda)  # the script's apps are installed on the booted one
        device = SimulatorDevice.connect("iPhone 17 Pro", runner=simctl, wda=wda.url)

Rule 1: the simulators are those of the recorded list (or the JSON given); ``boot`` and
        ``shutdown`` change their state, and ``list`` shows it.
Rule 2: apps live on disk under ``root``, laid out as on a Mac
        (``Devices/<UDID>/data/Containers/Bundle/Application/<UUID>/<Name>.app/Info.plist`` and
        ``…/Data/Application/<UUID>/{Documents,Library,tmp}``), so the driver reads real plists and
        empties real folders.
Rule 3: with ``wda``, launch, terminate, openurl and ``io screenshot`` act on the fake WDA's
        scripted phone, so the WDA device sees what simctl did. Launch environment arrives as
        ``SIMCTL_CHILD_*`` variables and reaches the app without the prefix.
Rule 4: failures replay what simctl prints: a command on a shut-down simulator, an app that isn't
        installed, nothing to terminate, a link no app opens, an unknown UDID. :meth:`FakeSimctl.fail_next`
        and :meth:`FakeSimctl.hang_next` inject more.
Rule 5: every call is recorded in :attr:`FakeSimctl.calls` (arguments and the extra environment).
Rule 6: the device controls keep what they set, per simulator (:meth:`FakeSimctl.controls_of`):
        ``location <udid> set <lat>,<lon>`` (and ``clear``), ``ui <udid> appearance light|dark``,
        ``ui <udid> content_size <size>`` (simctl's twelve sizes; anything else is a usage error),
        ``push <udid> <bundle> <file>`` (the payload read back; a bundle that isn't installed
        fails), and ``spawn <udid> notifyutil`` with BiometricKit's enrolment state and matches.
        With ``wda``, a match (``pearl`` is Face ID, ``fingerTouch`` Touch ID) and a push also
        reach the scripted phone (its Rule 15), as a device step does on a real simulator.
        Not checked against a real simctl: the exact words of the usage errors.
Rule 7: ``io <udid> recordVideo [--codec=…] [--force] <file>`` runs in the background
        (:meth:`FakeSimctl.start`, the ``SimctlBackground`` ability): it writes the file's head
        at once (not playable yet, as simctl's), and finalizes it when interrupted (SIGINT), with
        no real time passing. ``run`` of it, which would block a real simctl until interrupted,
        fails. :meth:`FakeSimctl.fail_next` of ``recordVideo`` makes the next start fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import plistlib
import re
import shutil
import uuid
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from mobster_core import DeviceError, Op, Screen
from mobster_core.checks import CONTENT_SIZES
from mobster_core.protocols import SPRINGBOARD, DeviceEvent
from mobster_drivers.devices.scripted import render_screen
from mobster_drivers.devices.simulator import SimctlProcess, SimctlTimeout

from .wda import FakeWda

__all__ = [
    "CONTENT_SIZES",
    "RECORDED_DEVICES",
    "VIDEO_HEAD",
    "VIDEO_TAIL",
    "Controls",
    "FakeSimctl",
    "SimctlCall",
    "recorded",
]

_CHILD = "SIMCTL_CHILD_"
_ENROLLMENT = "com.apple.BiometricKit.enrollmentChanged"
_MATCH = re.compile(r"com\.apple\.BiometricKit_Sim\.(fingerTouch|pearl)\.(match|nomatch)")
#: Rule 7: what a recording holds before SIGINT (an MP4's ``ftyp`` box), and what finalizing adds.
VIDEO_HEAD = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
VIDEO_TAIL = b"\x00\x00\x00\x08moov"


def recorded(name: str) -> str:
    """A recorded simctl output shipped with the fakes, by file name (``simctl-errors.json``)."""
    return resources.files(__package__ or "mobster_drivers.testing").joinpath("recorded", name).read_text("utf-8")


#: The recorded ``xcrun simctl list devices -j`` of a Mac with Xcode 26 (iOS 18.6, 26.4 and 17.5
#: runtimes, one unavailable simulator, one watch).
RECORDED_DEVICES = "simctl-list-devices.json"


@attrs.frozen
class SimctlCall:
    """One simctl command the fake ran: its arguments and the environment it was given on top."""

    args: tuple[str, ...]
    env: Mapping[str, str] = attrs.field(factory=dict)

    @property
    def command(self) -> str:
        """The subcommand (``launch``, ``list``, and so on)."""
        return self.args[0] if self.args else ""


@attrs.define
class _App:
    bundle: str
    app: Path
    data: Path


@attrs.define
class Controls:
    """What the device controls set on one simulator (Rule 6)."""

    location: tuple[float, float] | None = None
    appearance: str = "light"
    content_size: str = "large"
    enrolled: bool = False
    #: Every biometric answer posted, ``(sensor, matched)``: ``("pearl", True)``.
    matches: list[tuple[str, bool]] = attrs.field(factory=list)
    #: Every push, ``(bundle, payload as parsed)``.
    pushes: list[tuple[str, Any]] = attrs.field(factory=list)


@attrs.define
class _Sim:
    entry: dict[str, Any]
    runtime: str
    apps: dict[str, _App] = attrs.field(factory=dict)
    running: set[str] = attrs.field(factory=set)
    controls: Controls = attrs.field(factory=Controls)

    @property
    def udid(self) -> str:
        return str(self.entry["udid"])

    @property
    def state(self) -> str:
        return str(self.entry.get("state", "Shutdown"))


class _Fail(Exception):
    def __init__(self, code: int, stderr: str) -> None:
        super().__init__(stderr)
        self.code = code
        self.stderr = stderr


class FakeSimctl:
    """A recorded ``xcrun simctl`` (see the module rules); a ``SimctlRunner``.

    ``root`` is a folder the fake may write to. ``devices`` is ``list devices -j`` JSON (default:
    the recorded one). With ``wda``, every app of its script is installed on the simulator
    ``install_on`` names (a UDID or name; default: the first booted one) and launches reach it.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        devices: str | None = None,
        wda: FakeWda | None = None,
        install_on: str | None = None,
    ) -> None:
        self._root = Path(root)
        self._wda = wda
        self._errors: dict[str, dict[str, Any]] = json.loads(recorded("simctl-errors.json"))
        data = json.loads(devices if devices is not None else recorded(RECORDED_DEVICES))
        self._sims: dict[str, _Sim] = {}
        for runtime, entries in data["devices"].items():
            for entry in entries:
                sim = _Sim(dict(entry), str(runtime))
                self._sims[sim.udid] = sim
        self._injected: dict[str, list[tuple[int, str] | None]] = {}
        self._pid = 41000
        #: Every command run, oldest first (Rule 5).
        self.calls: list[SimctlCall] = []
        #: Every recording started (Rule 7), oldest first.
        self.recordings: list[_Recording] = []
        if wda is not None:
            target = self._find(install_on) if install_on else self._booted()
            for app in wda.script.apps.values():
                self.install_app(target.udid, app.bundle, name=app.name, version=app.version, build=app.build)

    # -- setting the scene -------------------------------------------------------------------

    def udid_of(self, name: str) -> str:
        """The UDID of the simulator called ``name`` (the first one), or of the UDID ``name``."""
        return self._find(name).udid

    def state_of(self, udid: str) -> str:
        """A simulator's state (``Booted``, ``Shutdown``, and so on)."""
        return self._find(udid).state

    def container(self, udid: str, bundle: str, which: str = "app") -> Path:
        """Where an installed app's ``app`` bundle or ``data`` container is."""
        app = self._find(udid).apps[bundle]
        return app.app if which == "app" else app.data

    def install_app(self, udid: str, bundle: str, *, name: str = "App", version: str = "1.0", build: str = "1") -> Path:
        """Build a minimal ``.app`` (an ``Info.plist``) and install it; returns the installed bundle."""
        source = self._root / "build" / bundle / f"{name}.app"
        source.mkdir(parents=True, exist_ok=True)
        info = {
            "CFBundleIdentifier": bundle,
            "CFBundleName": name,
            "CFBundleShortVersionString": version,
            "CFBundleVersion": build,
            "CFBundleSupportedPlatforms": ["iPhoneSimulator"],
            "DTPlatformName": "iphonesimulator",
        }
        (source / "Info.plist").write_bytes(plistlib.dumps(info, fmt=plistlib.FMT_BINARY))
        return self._install(self._find(udid), source)

    def fail_next(self, command: str, *, code: int = 1, stderr: str = "An error was encountered\n") -> None:
        """Make the next ``command`` (``launch``, ``openurl``, …) fail with this exit code and stderr."""
        self._injected.setdefault(command, []).append((code, stderr))

    def hang_next(self, command: str) -> None:
        """Make the next ``command`` time out (the runner raises ``SimctlTimeout``)."""
        self._injected.setdefault(command, []).append(None)

    def controls_of(self, udid: str) -> Controls:
        """What the device controls set on a simulator (Rule 6)."""
        return self._find(udid).controls

    def calls_of(self, command: str) -> list[SimctlCall]:
        """The recorded calls of one subcommand."""
        return [c for c in self.calls if c.command == command]

    # -- SimctlRunner ------------------------------------------------------------------------

    def run(
        self, args: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> tuple[int, str, str]:
        """Answer one simctl command as simctl would (module rules)."""
        call = SimctlCall(tuple(args), dict(env or {}))
        self.calls.append(call)
        command = call.command
        queue = self._injected.get(command)
        if queue:
            injected = queue.pop(0)
            if injected is None:
                raise SimctlTimeout(f"xcrun simctl {command} took more than {timeout:g} s")
            return injected[0], "", injected[1]
        try:
            out, err = self._dispatch(list(args), dict(env or {}))
        except _Fail as failure:
            return failure.code, "", failure.stderr
        return 0, out, err

    def start(self, args: Sequence[str]) -> SimctlProcess:
        """Rule 7: ``io <udid> recordVideo … <file>`` in the background (``SimctlBackground``)."""
        call = SimctlCall(tuple(args), {})
        self.calls.append(call)
        queue = self._injected.get("recordVideo")
        if queue:
            injected = queue.pop(0)
            raise DeviceError(f"xcrun simctl io recordVideo couldn't start: {injected[1] if injected else 'hung'}")
        rest = list(args)
        if len(rest) < 4 or rest[0] != "io" or rest[2] != "recordVideo":
            raise DeviceError(f"fake simctl: only io <udid> recordVideo runs in the background, not {rest[:3]}")
        try:
            self._booted_sim(rest[1])
        except _Fail as failure:
            raise DeviceError(f"xcrun simctl io recordVideo couldn't start: {failure.stderr.strip()}") from None
        target = Path(next(a for a in reversed(rest[3:]) if not a.startswith("-")))
        if target.exists() and "--force" not in rest:
            raise DeviceError(f"xcrun simctl io recordVideo: {target} exists (use --force to overwrite)")
        target.write_bytes(VIDEO_HEAD)
        recording = _Recording(target)
        self.recordings.append(recording)
        return recording

    # -- commands ----------------------------------------------------------------------------

    def _error(self, key: str, **fill: str) -> _Fail:
        entry = self._errors[key]
        return _Fail(int(entry["code"]), str(entry["stderr"]).format_map(_Missing(fill)))

    def _find(self, udid: str) -> _Sim:
        if udid == "booted":
            return self._booted()
        for sim in self._sims.values():
            if sim.udid.lower() == udid.lower():
                return sim
        for sim in self._sims.values():
            if sim.entry.get("name") == udid:
                return sim
        raise self._error("invalid_device", udid=udid)

    def _booted(self) -> _Sim:
        for sim in self._sims.values():
            if sim.state == "Booted":
                return sim
        raise _Fail(149, "No devices are booted.\n")

    def _booted_sim(self, udid: str) -> _Sim:
        sim = self._find(udid)
        if sim.state != "Booted":
            raise self._error("not_booted", state=sim.state)
        return sim

    def _dispatch(self, args: list[str], env: dict[str, str]) -> tuple[str, str]:
        if not args:
            raise self._error("unknown_subcommand", command="")
        command, rest = args[0], args[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            raise self._error("unknown_subcommand", command=command)
        result: tuple[str, str] = handler(rest, env)
        return result

    def _cmd_list(self, _rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        devices: dict[str, list[dict[str, Any]]] = {}
        for sim in self._sims.values():
            devices.setdefault(sim.runtime, []).append(sim.entry)
        return json.dumps({"devices": devices}, indent=2, separators=(",", " : ")) + "\n", ""

    def _cmd_boot(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._find(rest[0])
        if sim.state == "Booted":
            raise self._error("already_booted")
        sim.entry["state"] = "Booted"
        return "", ""

    def _cmd_bootstatus(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._find(rest[0])
        if sim.state != "Booted" and "-b" in rest:
            sim.entry["state"] = "Booted"
        name = sim.entry.get("name")
        return (
            f"Monitoring boot status for {name} ({sim.udid}).\nDevice already booted, nothing to do.\n",
            "",
        )

    def _cmd_shutdown(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._find(rest[0])
        if sim.state != "Booted":
            raise _Fail(
                149,
                "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, "
                "code=405):\nUnable to shutdown device in current state: Shutdown\n",
            )
        sim.entry["state"] = "Shutdown"
        sim.running.clear()
        return "", ""

    def _cmd_install(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        self._install(sim, Path(rest[1]))
        return "", ""

    def _install(self, sim: _Sim, source: Path) -> Path:
        try:
            info = plistlib.loads((source / "Info.plist").read_bytes())
        except (OSError, plistlib.InvalidFileException) as exc:
            raise DeviceError(f"fake simctl install: {source} has no readable Info.plist") from exc
        bundle = str(info["CFBundleIdentifier"])
        self._remove(sim, bundle)
        base = self._root / "Devices" / sim.udid / "data" / "Containers"
        app = base / "Bundle" / "Application" / str(uuid.uuid4()).upper() / source.name
        shutil.copytree(source, app, symlinks=True)
        data = base / "Data" / "Application" / str(uuid.uuid4()).upper()
        for folder in ("Documents", "Library/Preferences", "Library/Caches", "tmp"):
            (data / folder).mkdir(parents=True, exist_ok=True)
        sim.apps[bundle] = _App(bundle, app, data)
        return app

    def _remove(self, sim: _Sim, bundle: str) -> None:
        old = sim.apps.pop(bundle, None)
        sim.running.discard(bundle)
        if old is not None:
            shutil.rmtree(old.app.parent, ignore_errors=True)
            shutil.rmtree(old.data, ignore_errors=True)

    def _cmd_uninstall(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        self._remove(sim, rest[1])
        return "", ""

    def _cmd_launch(self, rest: list[str], env: dict[str, str]) -> tuple[str, str]:
        positional = [a for a in rest if not a.startswith("-")]
        first = rest.index(positional[0]) if positional else len(rest)
        udid, bundle, app_args = rest[first], rest[first + 1], rest[first + 2 :]
        sim = self._booted_sim(udid)
        if bundle not in sim.apps:
            raise self._error("launch_not_installed", bundle=bundle)
        child = {k.removeprefix(_CHILD): v for k, v in env.items() if k.startswith(_CHILD)}
        if self._wda is not None:
            try:
                self._wda.launch_app(bundle, app_args, child)
            except DeviceError:
                raise self._error("launch_not_installed", bundle=bundle) from None
        sim.running.add(bundle)
        self._pid += 1
        return f"{bundle}: {self._pid}\n", ""

    def _cmd_terminate(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        bundle = rest[1]
        was_running = bundle in sim.running
        if self._wda is not None:
            was_running = self._wda.terminate_app(bundle)
        sim.running.discard(bundle)
        if not was_running:
            raise self._error("terminate_not_running")
        return "", ""

    def _cmd_openurl(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        self._booted_sim(rest[0])
        url = rest[1]
        if self._wda is not None:
            try:
                self._wda.open_url(url)
            except DeviceError:
                raise self._error("openurl_no_handler", url=url) from None
        return "", ""

    def _cmd_get_app_container(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        bundle = rest[1]
        which = rest[2] if len(rest) > 2 else "app"
        app = sim.apps.get(bundle)
        if app is None:
            raise self._error("container_not_installed")
        if which == "app":
            return f"{app.app}\n", ""
        if which == "data":
            return f"{app.data}\n", ""
        if which == "groups":
            return "", ""
        raise self._error("container_not_installed")

    def _cmd_privacy(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        # privacy <device> <grant|revoke|reset> <service> [<bundle>]: grant and revoke need the bundle.
        self._booted_sim(rest[0])
        action, service, bundle = [*rest[1:4], None, None, None][:3]
        if action not in ("grant", "revoke", "reset") or service is None or (action != "reset" and bundle is None):
            raise self._error("unknown_subcommand", command=" ".join(["privacy", *rest[1:2]]))
        if self._wda is not None and bundle is not None:
            allow = None if action == "reset" else action == "grant"
            self._wda.set_permission(bundle, None if service == "all" else service, allow=allow)
        return "", ""

    def _cmd_io(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        self._booted_sim(rest[0])
        if len(rest) >= 2 and rest[1] == "recordVideo":
            raise _Fail(1, "fake simctl: recordVideo runs until interrupted; start it in the background\n")
        if len(rest) < 3 or rest[1] != "screenshot":
            raise self._error("unknown_subcommand", command=" ".join(["io", *rest[1:2]]))
        target = Path(next(a for a in reversed(rest) if not a.startswith("-")))
        png = self._wda.screenshot() if self._wda is not None else render_screen(Screen(app=SPRINGBOARD))
        target.write_bytes(png)
        return "", f"Detected file type 'PNG' from extension\nWrote screenshot to: {target}\n"

    def _cmd_spawn(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        if rest[1:2] == ["notifyutil"]:
            self._notifyutil(sim.controls, rest[2:])
        return "", ""

    def _notifyutil(self, controls: Controls, args: list[str]) -> None:
        """Rule 6: ``-s NAME STATE`` sets a state, ``-p NAME`` posts; BiometricKit reads both."""
        state: dict[str, str] = {}
        i = 0
        while i < len(args):
            if args[i] == "-s" and i + 2 < len(args):
                state[args[i + 1]] = args[i + 2]
                i += 3
            elif args[i] == "-p" and i + 1 < len(args):
                name = args[i + 1]
                if name == _ENROLLMENT and name in state:
                    controls.enrolled = state[name] == "1"
                match = _MATCH.fullmatch(name)
                if match is not None:
                    matched = match.group(2) == "match"
                    controls.matches.append((match.group(1), matched))
                    if self._wda is not None:
                        op = Op.BIOMETRIC_MATCH if matched else Op.BIOMETRIC_FAIL
                        sensor = "faceId" if match.group(1) == "pearl" else "touchId"
                        self._wda.send_event(DeviceEvent(op, sensor=sensor))
                i += 2
            else:
                raise _Fail(64, f"usage: notifyutil -p NAME | -s NAME STATE; got {args[i]!r}\n")

    def _cmd_location(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        if rest[1:2] == ["clear"]:
            sim.controls.location = None
            return "", ""
        if rest[1:2] != ["set"] or len(rest) < 3:
            raise _Fail(64, "Usage: simctl location <device> set <latitude>,<longitude>\n")
        try:
            lat, lon = (float(v) for v in rest[2].split(","))
        except ValueError:
            raise _Fail(64, f"Invalid coordinate: {rest[2]}\n") from None
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise _Fail(64, f"Invalid coordinate: {rest[2]}\n")
        sim.controls.location = (lat, lon)
        return "", ""

    def _cmd_ui(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        option, value = (rest[1], rest[2] if len(rest) > 2 else None) if len(rest) > 1 else ("", None)
        if option == "appearance" and value in ("light", "dark"):
            sim.controls.appearance = value
        elif option == "appearance" and value is None:
            return f"{sim.controls.appearance}\n", ""
        elif option == "content_size" and value in CONTENT_SIZES:
            sim.controls.content_size = value
        elif option == "content_size" and value is None:
            return f"{sim.controls.content_size}\n", ""
        else:
            raise _Fail(64, f"Invalid value for {option}: {value}\n")
        return "", ""

    def _cmd_push(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        sim = self._booted_sim(rest[0])
        bundle, file = rest[1], Path(rest[2])
        if bundle not in sim.apps:
            raise self._error("launch_not_installed", bundle=bundle)
        try:
            data = file.read_bytes()
            payload = json.loads(data)
        except (OSError, ValueError) as exc:
            raise _Fail(1, f"Unable to read the payload at {file}: {exc}\n") from None
        sim.controls.pushes.append((bundle, payload))
        if self._wda is not None:
            with contextlib.suppress(ValueError):  # a payload the phone's event refuses still went out
                self._wda.send_event(DeviceEvent(Op.PUSH, file=file.name, payload=data, bundle=bundle))
        return f"Notification sent to '{bundle}'\n", ""

    def _cmd_keychain(self, rest: list[str], _env: dict[str, str]) -> tuple[str, str]:
        self._booted_sim(rest[0])
        return "", ""


class _Recording:
    """Rule 7: one ``io recordVideo`` in the background: finalized when interrupted."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.interrupted = False

    def interrupt(self, timeout: float = 30.0) -> tuple[int, str, str]:
        """SIGINT: the video is finalized (its tail written) and the process exits 0."""
        del timeout  # the fake finalizes at once
        if not self.interrupted:
            self.interrupted = True
            with self.file.open("ab") as f:
                f.write(VIDEO_TAIL)
        return 0, "", f"Recording started\nRecording completed. Wrote video to: {self.file}\n"


class _Missing(dict[str, str]):
    """Leaves an unfilled ``{name}`` as it is."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
