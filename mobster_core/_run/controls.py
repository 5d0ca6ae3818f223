"""What a run asks of the device beyond its screen: the check's settings, and the video.

Rule 1: a check's ``device:`` settings are applied once, after the device and the app were read
        and before the app is launched (``protocols.DeviceControls``). A device without the
        ability, or one that refuses (``controls_refusal``: an iPhone, an Appium session that is
        no simulator), is no place for the check: ``couldnt_run``, class ``environment``, and
        nothing is sent. A setting the device fails to apply is ``couldnt_run``, class ``device``.
Rule 3: a check's device steps (``_rules/device/controls`` Rule 5: a biometric answer, a push) need a
        device that sends them (``protocols.DeviceEvents``) and doesn't refuse them
        (``event_refusal``: a USB iPhone, an Appium session on a real phone): otherwise the check
        can't run, class ``environment``, with the driver's words, before anything is sent
        (checked with the settings). A push goes to the app under test.
Rule 2: with ``RunOptions.video`` on (``on``, ``retain-on-failure``) and a device that records
        (``protocols.Recordings``), the recording starts before the run's first call that acts
        (the settings, the launch) and stops once the verdict is decided, into ``video.mp4`` in
        the run folder. A recording that can't start or stop is a warning in the log, never the
        check's outcome; a device that can't record is the same. ``retain-on-failure`` deletes the
        file of a check that passed. The result names the file and a cloud's own video link.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.device.controls import DeviceEvent, Recording, VideoMode
from mobster_core._rules.verdict.verdict import FailureClass
from mobster_core.exceptions import DeviceError
from mobster_core.protocols import Device, DeviceControls, DeviceEvents, Recordings

from .context import Run
from .ended import couldnt

__all__ = ["VIDEO_FILE", "Video", "apply_settings", "device_event", "start_video", "stop_video"]

log = get_logger(__name__)

#: The video's name in the run folder (Rule 2).
VIDEO_FILE = "video.mp4"


async def apply_settings(run: Run) -> None:
    """Rule 1: the check's ``device:`` settings, on a device that applies them (and Rule 3 before)."""
    _refuse_device_steps(run)
    settings = run.check.settings
    if settings.empty:
        return
    device = run.device
    none = "this driver has no device controls"
    refusal = device.controls_refusal(settings) if isinstance(device, DeviceControls) else none
    _refuse(run, f"the check's device settings ({settings.show()}) need", refusal)
    assert isinstance(device, DeviceControls)
    try:
        await device.apply_settings(settings)
    except DeviceError as exc:
        raise couldnt(
            FailureClass.DEVICE, f"the device settings ({settings.show()}) couldn't be applied: {exc}"
        ) from exc


def device_event(run: Run, event: DeviceEvent) -> DeviceEvent:
    """Rule 3: a device step as it is sent: a push goes to the app under test."""
    return attrs.evolve(event, bundle=run.bundle)


def _refuse_device_steps(run: Run) -> None:
    """Rule 3: every device step of the check, on a device that sends it; else ``environment``."""
    device = run.device
    none = "this driver can't match a Face ID / Touch ID prompt or send a push notification"
    for number, step in run.check.device_steps:
        event = device_event(run, step)
        refusal = device.event_refusal(event) if isinstance(device, DeviceEvents) else none
        _refuse(run, f"step {number} ({event.show()}) needs", refusal, step=number)


def _refuse(run: Run, what: str, refusal: str | None, *, step: int | None = None) -> None:
    """Rules 1, 3: a device's refusal ends the run, class ``environment``, before anything is sent."""
    if refusal is not None:
        raise couldnt(FailureClass.ENVIRONMENT, f"{run.check.file}: {what} a simulator: {refusal}", step=step)


@attrs.frozen
class Video:
    """A recording that started (Rule 2): its file in the run folder."""

    file: Path


async def start_video(device: Device, mode: VideoMode, folder: Path) -> Video | None:
    """Rule 2: start recording into the run folder; None when off, or when it can't start (a warning)."""
    if mode is VideoMode.OFF:
        return None
    if not isinstance(device, Recordings):
        log.warning("no video: this device can't record its screen", mode=str(mode))
        return None
    file = folder / VIDEO_FILE
    try:
        await device.start_recording(file)
    except DeviceError as exc:
        log.warning("no video: the recording didn't start", error=str(exc))
        return None
    return Video(file)


async def stop_video(device: Device, video: Video | None, mode: VideoMode, *, passed: bool) -> Recording:
    """Rule 2: stop and keep (or, ``retain-on-failure`` on a pass, delete) the recording."""
    if video is None or not isinstance(device, Recordings):
        return Recording()
    try:
        recording = await device.stop_recording()
    except DeviceError as exc:
        log.warning("the video couldn't be finalized", error=str(exc))
        recording = Recording()
    kept = mode.keeps(passed=passed)
    if not kept:
        video.file.unlink(missing_ok=True)
    written = kept and video.file.is_file()
    return Recording(file=VIDEO_FILE if written else None, url=recording.url)
