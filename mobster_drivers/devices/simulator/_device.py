"""The simulator device: ``xcrun simctl`` for the apps, WebDriverAgent for the screen.

Rule 1: apps are launched, terminated and reset with simctl (arguments, ``SIMCTL_CHILD_``
        environment, a deep link with ``openurl``); the screen is read and driven through the WDA
        device on the simulator's port (given, else ``$MOBSTER_WDA_PORT``, else 8100). Screenshots
        come from ``simctl io``.
Rule 2: ``info`` comes from simctl (the simulator's name, the runtime's iOS version); the app's
        version and build come from its bundle's ``Info.plist`` (``CFBundleShortVersionString``,
        ``CFBundleVersion``), found with ``get_app_container``. No container: not installed.
Rule 3: a ``data`` reset terminates the app, empties ``Documents``, ``Library`` and ``tmp`` of its
        data container (its preferences included) and resets its privacy permissions. A
        ``reinstall`` copies the installed ``.app`` aside, uninstalls, installs the copy, and
        resets privacy. Only a container inside this simulator's own folder (``…/Devices/<UDID>/``)
        is ever emptied.
Rule 4: connecting checks, before anything else happens, that the simulator exists (a clear error
        for none or several), boots it when it is shut down, and that WDA answers there.
Rule 6: the permissions a launch names (``LaunchOptions.permissions``, from the check's
        ``alerts: {allow, deny}``) are set after any reset and before the launch, with
        ``simctl privacy <udid> grant|revoke <service> <bundle>``, for the services simctl knows
        (:data:`PRIVACY_SERVICES`); the rest (notifications, camera, tracking, …) are answered
        when their prompt shows.
Rule 5: a locale the run asks for (``LaunchOptions.locale``, ``protocols.LocaleLaunches``) is given
        to the app at launch as ``-AppleLanguages (de) -AppleLocale de_DE`` (what Xcode's scheme
        option "App Language" passes): the app runs in it, the simulator's own language is left as
        it is. ``info`` reports the simulator's own locale and appearance, from WDA.
Rule 6: the device controls (``protocols.DeviceControls``) are simctl's (``_simctl`` Rule 7):
        location, appearance, content size and biometric enrolment, in that order, before the
        launch. A push notification's payload (:meth:`SimulatorDevice.push_notification`) is read
        as a user's file (a regular file, at most :data:`MAX_PUSH_BYTES`, APNs' limit), must be a
        JSON object with an ``aps`` object, and is handed to ``simctl push`` from a private copy.
        A check's device steps (``protocols.DeviceEvents``) are the same two commands: the
        biometric match's ``notifyutil`` and ``simctl push`` of the check's payload.
Rule 7: the video (``protocols.Recordings``) is ``simctl io recordVideo --codec=h264 --force`` in
        the background into a hidden file beside the one asked for, stopped with SIGINT (how
        simctl finalizes it), then made private (0600) and moved into place in one rename.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import plistlib
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mobster_core import AppInfo, DeviceError, DeviceInfo, DeviceKind, LaunchOptions, Op, Reset
from mobster_core.checks import MAX_PUSH_BYTES, push_problem
from mobster_core.exceptions import UnsafeFile
from mobster_core.files import read_user_file
from mobster_core.protocols import DeviceEvent, DeviceSettings, Recording
from mobster_core.text import language_of
from mobster_drivers.devices.wda import WdaDevice, WdaHosted, WdaTimeouts, WdaTransport

from ._simctl import PRIVACY_SERVICES, Simctl, SimctlProcess, SimctlRunner, SimctlTimeout, Simulator, pick_simulator

__all__ = ["DEFAULT_WDA_PORT", "MAX_PUSH_BYTES", "SimulatorDevice", "push_payload", "wda_port"]

_log = logging.getLogger("mobster.drivers.simulator")

#: WebDriverAgent's port when neither the caller nor ``$MOBSTER_WDA_PORT`` says.
DEFAULT_WDA_PORT = 8100
_DATA_FOLDERS = ("Documents", "Library", "tmp")
#: Rule 6: the largest push payload (APNs' limit for a notification, in bytes).
#: Rule 7: how long simctl may take to finalize a video after SIGINT (seconds).
VIDEO_STOP_S = 30.0


def wda_port(port: int | None = None) -> int:
    """The WDA port: ``port``, else ``$MOBSTER_WDA_PORT``, else 8100."""
    if port is not None:
        return port
    raw = os.environ.get("MOBSTER_WDA_PORT", "").strip()
    if not raw:
        return DEFAULT_WDA_PORT
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise DeviceError(f"MOBSTER_WDA_PORT is a port number (1-65535), not {raw!r}")
    return int(raw)


class SimulatorDevice(WdaHosted):
    """An iOS simulator: simctl for apps, WDA for the screen; ``Device`` and ``Screenshots``.

    Make one with :meth:`connect`. See the module rules; what isn't simctl's is the WDA device's
    (:class:`~mobster_drivers.devices.wda.WdaHosted`).
    """

    #: Its screenshots come from ``simctl io``, not WDA: a channel of their own
    #: (``protocols.ScreenshotChannel``), so the run takes one beside each read at no cost to it.
    separate_screenshots = True

    def __init__(self, simulator: Simulator, *, simctl: Simctl, wda: WdaDevice) -> None:
        super().__init__(wda)
        self._simulator = simulator
        self._simctl = simctl
        self._video: tuple[SimctlProcess, Path, Path] | None = None  # the process, its partial file, the target

    @classmethod
    def connect(
        cls,
        name: str,
        *,
        runner: SimctlRunner | None = None,
        port: int | None = None,
        wda: str | WdaTransport | None = None,
        boot: bool = True,
        timeouts: WdaTimeouts | None = None,
    ) -> SimulatorDevice:
        """Find the simulator ``name`` (or UDID), boot it if needed, and check WDA answers (Rule 4).

        ``wda`` overrides the WDA URL (or transport); else ``http://127.0.0.1:<port>``.
        Blocking: call it before the event loop, or in a thread.
        """
        simctl = Simctl(runner)
        simulator = pick_simulator(simctl.list(), name)
        if not simulator.booted:
            if not boot:
                raise DeviceError(f"simulator {simulator.describe()} is not booted: xcrun simctl boot {simulator.udid}")
            _log.debug("booting %s", simulator.describe())
            simctl.boot(simulator.udid)
            simulator = pick_simulator(simctl.list(), simulator.udid)
            if not simulator.booted:
                raise DeviceError(f"simulator {simulator.describe()} did not boot")
        target = wda if wda is not None else f"http://127.0.0.1:{wda_port(port)}"
        device = WdaDevice(
            target,
            kind=DeviceKind.SIMULATOR,
            name=simulator.name,
            ios=simulator.ios,
            udid=simulator.udid,
            timeouts=timeouts,
        )
        try:
            device.status_sync()
        except DeviceError as exc:
            raise DeviceError(
                f"WebDriverAgent isn't answering at {device.url} for simulator {simulator.name}: start it "
                "there (xcodebuild test-without-building with USE_PORT, see docs/drivers.md), or give "
                f"its port with MOBSTER_WDA_PORT. ({exc})"
            ) from exc
        return cls(simulator, simctl=simctl, wda=device)

    @property
    def simulator(self) -> Simulator:
        """The simulator, as simctl listed it."""
        return self._simulator

    @property
    def udid(self) -> str:
        """The simulator's UDID."""
        return self._simulator.udid

    @property
    def simctl(self) -> Simctl:
        """The simctl commands."""
        return self._simctl

    # -- Device ------------------------------------------------------------------------------

    async def info(self) -> DeviceInfo:
        """The simulator's name, the runtime's iOS version, kind simulator (Rule 2); its locale from WDA."""
        s = self._simulator
        locale, appearance = await asyncio.to_thread(self._wda.locale_sync)
        return DeviceInfo(
            name=s.name, ios=s.ios, kind=DeviceKind.SIMULATOR, udid=s.udid, locale=locale, appearance=appearance
        )

    def launches_in_locale(self) -> bool:
        """A simulator launches an app in the locale a run asks for (``protocols.LocaleLaunches``, Rule 5)."""
        return True

    async def app_info(self, bundle: str) -> AppInfo:
        """The app's version and build from its ``Info.plist``; DeviceError when not installed."""
        return await asyncio.to_thread(self._app_info_sync, bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """Reset as asked (Rule 3), launch with arguments and environment, open the deep link."""
        await asyncio.to_thread(self._launch_sync, bundle, options)

    async def screenshot(self) -> bytes:
        """A PNG screenshot from ``simctl io``."""
        return await asyncio.to_thread(self._simctl.screenshot, self.udid)

    # -- extras ------------------------------------------------------------------------------

    async def install(self, app: str | os.PathLike[str]) -> None:
        """Install an ``.app`` bundle built for the simulator."""
        await asyncio.to_thread(self._simctl.install, self.udid, app)

    async def terminate(self, bundle: str) -> bool:
        """Terminate an app; False when it wasn't running."""
        return await asyncio.to_thread(self._simctl.terminate, self.udid, bundle)

    # -- device controls and video (Rules 6 and 7) --------------------------------------------

    def controls_refusal(self, settings: DeviceSettings) -> str | None:
        """A simulator applies a check's ``device:`` settings (``protocols.DeviceControls``)."""
        del settings  # every one
        return None

    async def apply_settings(self, settings: DeviceSettings) -> None:
        """Location, appearance, content size and biometric enrolment through simctl (Rule 6)."""
        await asyncio.to_thread(self._apply_sync, settings)

    async def push_notification(self, bundle: str, payload: Path) -> None:
        """Send the push notification in the JSON file ``payload`` to ``bundle`` (Rule 6)."""
        data = push_payload(payload)
        await asyncio.to_thread(self._push_sync, bundle, data)

    async def biometric_match(self, *, match: bool, sensor: str = "faceId") -> None:
        """Answer the Face ID (or ``touchId``) prompt on screen with a match, or a failed match."""
        await asyncio.to_thread(self._simctl.biometric_match, self.udid, match=match, sensor=sensor)

    def event_refusal(self, event: DeviceEvent) -> str | None:
        """A simulator sends a check's device steps (``protocols.DeviceEvents``, Rule 6)."""
        del event  # every one
        return None

    async def send_event(self, event: DeviceEvent) -> None:
        """A check's device step: the biometric answer, or ``simctl push`` of its payload (Rule 6)."""
        if event.op is Op.PUSH:
            await asyncio.to_thread(self._push_sync, event.bundle, event.payload)
        else:
            await self.biometric_match(match=event.match, sensor=event.sensor)

    async def start_recording(self, file: Path) -> None:
        """Start ``simctl io recordVideo`` into ``file`` (``protocols.Recordings``, Rule 7)."""
        if self._video is not None:
            raise DeviceError("a video is already being recorded on this simulator")
        partial = file.with_name(f".{file.stem}.partial{file.suffix}")
        process = await asyncio.to_thread(self._simctl.record_video, self.udid, partial)
        self._video = (process, partial, file)

    async def stop_recording(self) -> Recording:
        """SIGINT, so simctl finalizes the video; then it is made private and moved into place (Rule 7)."""
        if self._video is None:
            return Recording()
        process, partial, file = self._video
        self._video = None
        return await asyncio.to_thread(_finish_video, process, partial, file)

    def _apply_sync(self, settings: DeviceSettings) -> None:
        udid = self.udid
        if settings.location is not None:
            self._simctl.set_location(udid, *settings.location)
        if settings.appearance is not None:
            self._simctl.set_appearance(udid, settings.appearance.value)
        if settings.content_size is not None:
            self._simctl.set_content_size(udid, settings.content_size)
        if settings.biometrics_enrolled is not None:
            self._simctl.set_biometric_enrollment(udid, enrolled=settings.biometrics_enrolled)

    def _push_sync(self, bundle: str, data: bytes) -> None:
        with tempfile.TemporaryDirectory(prefix="mobster-push-") as folder:
            copy = Path(folder) / "payload.json"
            copy.write_bytes(data)
            copy.chmod(0o600)
            self._simctl.push(self.udid, bundle, copy)

    # -- the blocking core -------------------------------------------------------------------

    def _container(self, bundle: str, which: str, what: str) -> Path:
        try:
            return self._simctl.app_container(self.udid, bundle, which)
        except DeviceError as exc:
            raise DeviceError(f"{what}: {bundle} is not installed on simulator {self._simulator.name} ({exc})") from exc

    def _app_info_sync(self, bundle: str) -> AppInfo:
        app = self._container(bundle, "app", "app_info")
        plist = app / "Info.plist"
        try:
            with plist.open("rb") as f:
                info: Any = plistlib.load(f)
        except (OSError, plistlib.InvalidFileException, ValueError) as exc:
            raise DeviceError(f"app_info: can't read {plist}: {exc}") from exc
        if not isinstance(info, dict):
            raise DeviceError(f"app_info: {plist} is not a dictionary")
        version, build = info.get("CFBundleShortVersionString"), info.get("CFBundleVersion")
        return AppInfo(bundle, str(version) if version is not None else None, str(build) if build is not None else None)

    def _launch_sync(self, bundle: str, options: LaunchOptions) -> None:
        self._container(bundle, "app", "launch")
        if options.reset is Reset.DATA:
            self._reset_data(bundle)
        elif options.reset is Reset.REINSTALL:
            self._reinstall(bundle)
        self._set_permissions(bundle, options)
        self._simctl.launch(self.udid, bundle, (*options.args, *locale_arguments(options.locale)), options.env)
        if options.url is not None:
            self._simctl.openurl(self.udid, options.url)

    def _set_permissions(self, bundle: str, options: LaunchOptions) -> None:
        """Rule 6: the services the check's alert policy names, granted or revoked before the launch."""
        for service, allow in options.permissions.items():
            if service in PRIVACY_SERVICES:
                self._simctl.privacy_set(self.udid, bundle, service, allow=allow)

    def _own(self, path: Path, what: str) -> Path:
        """``path`` resolved, if it lies in this simulator's own folder (Rule 3)."""
        resolved = path.resolve()
        parts = resolved.parts
        for i in range(len(parts) - 1):
            if parts[i] == "Devices" and parts[i + 1].lower() == self.udid.lower():
                return resolved
        raise DeviceError(
            f"{what}: refusing to touch {resolved}: it is not inside simulator {self.udid}'s own folder "
            f"(…/Devices/{self.udid})"
        )

    def _reset_data(self, bundle: str) -> None:
        self._simctl.terminate(self.udid, bundle)
        data = self._own(self._container(bundle, "data", "reset"), "reset")
        for name in _DATA_FOLDERS:
            folder = data / name
            if not folder.is_dir() or folder.is_symlink():
                continue
            for child in folder.iterdir():
                try:
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child)
                    else:
                        child.unlink()
                except OSError as exc:
                    raise DeviceError(f"reset: can't remove {child}: {exc.strerror or exc}") from exc
        self._simctl.privacy_reset(self.udid, bundle)

    def _reinstall(self, bundle: str) -> None:
        app = self._own(self._container(bundle, "app", "reinstall"), "reinstall")
        self._simctl.terminate(self.udid, bundle)
        with tempfile.TemporaryDirectory(prefix="mobster-reinstall-") as folder:
            copy = Path(folder) / app.name
            try:
                shutil.copytree(app, copy, symlinks=True)
            except OSError as exc:
                raise DeviceError(f"reinstall: can't copy {app} aside: {exc}") from exc
            self._simctl.uninstall(self.udid, bundle)
            self._simctl.install(self.udid, copy)
        with contextlib.suppress(DeviceError):
            self._simctl.privacy_reset(self.udid, bundle)


def push_payload(path: Path) -> bytes:
    """Rule 6: a payload file's bytes: a regular file of at most :data:`MAX_PUSH_BYTES`, JSON with an ``aps`` object."""
    try:
        data = read_user_file(path, max_bytes=MAX_PUSH_BYTES)
    except UnsafeFile as exc:
        raise DeviceError(
            f"{path}: can't use it as a push payload: {exc.reason}; give a JSON file of at most 4 KB"
        ) from exc
    except OSError as exc:
        raise DeviceError(f"{path}: can't read the push payload ({exc.strerror or exc})") from exc
    problem = push_problem(data)  # the check loader's own rule (``mobster_core.checks``)
    if problem is not None:
        raise DeviceError(
            f'{path}: {problem}; a push payload is JSON: a JSON object with an "aps" object, such as '
            '{"aps": {"alert": "Hi"}}'
        )
    return data


def _finish_video(process: SimctlProcess, partial: Path, file: Path) -> Recording:
    """Rule 7: stop the recording, then move the finalized file into place, private."""
    try:
        code, _out, err = process.interrupt(VIDEO_STOP_S)
    except SimctlTimeout as exc:
        partial.unlink(missing_ok=True)
        raise DeviceError(f"simctl io recordVideo didn't finish the video: {exc}") from exc
    if code != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        said = " ".join(err.split())[:200] or "no output"
        raise DeviceError(f"simctl io recordVideo failed (exit {code}): {said}")
    try:
        partial.chmod(0o600)
        partial.replace(file)
    except OSError as exc:
        raise DeviceError(f"the video couldn't be moved into place: {exc.strerror or exc}") from exc
    return Recording(file=str(file))


def locale_arguments(locale: str | None) -> tuple[str, ...]:
    """Rule 5: the launch arguments that run an app in ``locale`` (none for None)."""
    if locale is None:
        return ()
    return ("-AppleLanguages", f"({language_of(locale)})", "-AppleLocale", locale)
