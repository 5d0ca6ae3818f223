"""A frame per step for the reports: the screen each action was sent on.

Rule 1: a frame is the device's own screenshot, taken right before an action is sent: the screen
        the step matched and acted on. It costs one screenshot per action (a read's time: about
        0.2 s on a USB iPhone), so it is taken only when a report shows it (Allure or pytest-html
        on, or ``--mobster-step-frames on``), and never for a device without screenshots.
Rule 2: taking a frame never changes a run: a screenshot that fails is no frame, and the action is
        sent as it would have been. The wrapper keeps the device's abilities exactly (evidence
        reads, target checks), so the run reads and judges as it would on the device itself.
Rule 3: frames are paired with what the run reports after each action it sent (``step 2 (Tap
        "Sign up")``); the frame of an action that failed (its outcome unknown) is kept as the
        last one, named ``the last action (it didn't complete)``.
"""

from __future__ import annotations

import contextlib

from mobster_core import Action, AppInfo, Device, DeviceInfo, Element, LaunchOptions, Screen
from mobster_core.protocols import EvidenceReads, Screenshots, TargetChecks

__all__ = ["FrameRecorder"]

UNFINISHED = "the last action (it didn't complete)"


class FrameRecorder:
    """Wraps a device to keep a frame per action sent (the module rules)."""

    def __init__(self, device: Device) -> None:
        self._inner = device
        self._pending: bytes | None = None
        #: ``(what, png)`` per action sent, in order.
        self.frames: list[tuple[str, bytes]] = []
        self.device: Device = _wrap(self)

    @property
    def inner(self) -> Device:
        """The device the run really drives."""
        return self._inner

    async def before_action(self) -> None:
        """Rule 1: the frame of the screen the next action is sent on."""
        self._pending = None
        inner = self._inner
        if not isinstance(inner, Screenshots):
            return
        with contextlib.suppress(Exception):  # Rule 2: a frame that can't be taken is no frame
            self._pending = await inner.screenshot()

    def sent(self, what: str) -> None:
        """Rule 3: the action ``what`` was sent; its frame is the one taken before it."""
        if self._pending is not None:
            self.frames.append((what, self._pending))
            self._pending = None

    def finish(self) -> list[tuple[str, bytes]]:
        """The frames, with the unfinished action's last (Rule 3)."""
        if self._pending is not None:
            self.frames.append((UNFINISHED, self._pending))
            self._pending = None
        return self.frames


class _Framed:
    """The ``Device`` and ``Screenshots`` of the wrapped device, with a frame before each action."""

    def __init__(self, recorder: FrameRecorder) -> None:
        self._recorder = recorder
        self._inner = recorder.inner

    async def info(self) -> DeviceInfo:
        return await self._inner.info()

    async def app_info(self, bundle: str) -> AppInfo:
        return await self._inner.app_info(bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        await self._inner.launch(bundle, options)

    async def read(self) -> Screen:
        return await self._inner.read()

    async def act(self, action: Action) -> None:
        await self._recorder.before_action()
        await self._inner.act(action)

    async def screenshot(self) -> bytes:
        inner = self._inner
        assert isinstance(inner, Screenshots)  # only a device with screenshots is wrapped
        return await inner.screenshot()


class _Evidence:
    _inner: Device

    async def read_evidence(self) -> Screen:
        inner = self._inner
        assert isinstance(inner, EvidenceReads)
        return await inner.read_evidence()


class _Targets:
    _inner: Device

    async def check_target(self, element: Element) -> bool:
        inner = self._inner
        assert isinstance(inner, TargetChecks)
        return await inner.check_target(element)


class _FramedEvidence(_Framed, _Evidence):
    pass


class _FramedTargets(_Framed, _Targets):
    pass


class _FramedEvidenceTargets(_Framed, _Evidence, _Targets):
    pass


def _wrap(recorder: FrameRecorder) -> Device:
    """Rule 2: a wrapper with exactly the abilities of the device it wraps."""
    inner = recorder.inner
    if not isinstance(inner, Screenshots):
        return inner  # no frames without screenshots: nothing to wrap
    evidence, targets = isinstance(inner, EvidenceReads), isinstance(inner, TargetChecks)
    cls: type[_Framed] = {
        (False, False): _Framed,
        (True, False): _FramedEvidence,
        (False, True): _FramedTargets,
        (True, True): _FramedEvidenceTargets,
    }[(evidence, targets)]
    return cls(recorder)
