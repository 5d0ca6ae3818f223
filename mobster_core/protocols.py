"""The interfaces between the core and the world: a clock, a device, a model.

They are ``typing.Protocol`` classes: implement the methods, no base class needed. The ones that
do I/O are async so a run can cancel them (a heal cancels a model call in flight).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._device import Action, AppInfo, DeviceInfo, LaunchOptions
from ._model import Decision, Prompt
from ._screen import Screen

__all__ = ["Clock", "Device", "Model", "Screenshots"]


@runtime_checkable
class Clock(Protocol):
    """**Protocol:** monotonic time in seconds, and a way to wait.

    The core never reads the time any other way, so tests run on a fake clock and never sleep.
    """

    def now(self) -> float:
        """Seconds on a monotonic clock (the origin is arbitrary)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (at once when ``seconds`` <= 0)."""
        ...


@runtime_checkable
class Device(Protocol):
    """**Protocol:** a phone (simulated, scripted or real) the SDK reads and drives.

    Errors: a failure before anything was sent raises :class:`~mobster_core.DeviceError`; an
    action that was sent and whose effect is unknown (it raised, it timed out) raises
    :class:`~mobster_core.UnknownOutcome`. A device never retries an action by itself. Reads are
    safe to retry; actions are not.
    """

    async def info(self) -> DeviceInfo:
        """The device's name, iOS version and kind."""
        ...

    async def app_info(self, bundle: str) -> AppInfo:
        """An installed app's version and build (None where the device can't read them).

        Raises ``DeviceError`` when the app is not installed.
        """
        ...

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """(Re)launch an app with arguments, environment, an optional deep link and a reset."""
        ...

    async def read(self) -> Screen:
        """Read the accessibility tree and the app in front."""
        ...

    async def act(self, action: Action) -> None:
        """Send one action, once. Acts on the element's current frame."""
        ...


@runtime_checkable
class Screenshots(Protocol):
    """**Protocol:** an optional ability of a device: a screenshot as PNG bytes."""

    async def screenshot(self) -> bytes:
        """The screen as a PNG image."""
        ...


@runtime_checkable
class Model(Protocol):
    """**Protocol:** a model that decides the next actions of a check (SPEC §15).

    Given a provider-neutral prompt it returns 1 to a few actions, or done, or blocked, with the
    token usage. Adapters translate; prompts and the action schema live in the core.
    """

    @property
    def name(self) -> str:
        """The model's name, for the price table and the results (``claude-…``, ``scripted``)."""
        ...

    async def decide(self, prompt: Prompt) -> Decision:
        """Ask for the next decision. Cancellable: cancelling drops the call in flight."""
        ...
