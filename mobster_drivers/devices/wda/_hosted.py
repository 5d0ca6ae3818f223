"""A device whose screen is a WebDriverAgent: the simulator and the USB iPhone stand on it.

Rule 1: what a hosted device doesn't do its own way goes to its :class:`WdaDevice`, as it is: the
        reads (the fast one, the evidence read), the target check, the actions, screenshots, the
        app's facts and launches (WDA's), and closing the transport. Nothing is re-sent or
        re-mapped on the way: the WDA device's rules and errors are the hosted device's.
Rule 2: a hosted device overrides only what is its own (the simulator: ``info``, ``app_info``,
        ``launch`` and ``screenshot`` through simctl; the USB iPhone: ``info`` from lockdown, and
        ``close``, which stops its port forwarder).
"""

from __future__ import annotations

from mobster_core import Action, AppInfo, DeviceInfo, Element, LaunchOptions, Screen
from mobster_core.protocols import AuditReport

from ._device import WdaDevice

__all__ = ["WdaHosted"]


class WdaHosted:
    """The part of a device that a WebDriverAgent serves (module rules): one base, no more.

    ``Device``, ``Screenshots``, ``EvidenceReads``, ``TargetChecks`` and ``AlertAnswers``, each through
    :attr:`wda`.
    """

    def __init__(self, wda: WdaDevice) -> None:
        self._wda = wda

    @property
    def wda(self) -> WdaDevice:
        """The WDA device that reads and drives the screen."""
        return self._wda

    def close(self) -> None:
        """Release the WDA transport."""
        self._wda.close()

    async def info(self) -> DeviceInfo:
        """The device's name, iOS version and kind, as WDA says."""
        return await self._wda.info()

    async def app_info(self, bundle: str) -> AppInfo:
        """``AppInfo(bundle, None, None)`` for an installed app (WDA can't read a version); DeviceError if it isn't."""
        return await self._wda.app_info(bundle)

    async def launch(self, bundle: str, options: LaunchOptions) -> None:
        """(Re)launch through WDA (a reset relaunches as it is: see the WDA device)."""
        await self._wda.launch(bundle, options)

    async def read(self) -> Screen:
        """The screen, through WDA: the fast read."""
        return await self._wda.read()

    async def read_evidence(self) -> Screen:
        """The screen with WDA's own visibility of each element (``EvidenceReads``)."""
        return await self._wda.read_evidence()

    async def check_target(self, element: Element) -> bool:
        """Is ``element`` visible, by WDA's own account (``TargetChecks``)?"""
        return await self._wda.check_target(element)

    async def act(self, action: Action) -> None:
        """One action, once, through WDA."""
        await self._wda.act(action)

    async def answer_alert(self, button: str) -> None:
        """Tap ``button`` of the alert shown (``AlertAnswers``), once, through WDA."""
        await self._wda.answer_alert(button)

    async def screenshot(self) -> bytes:
        """A PNG screenshot, through WDA."""
        return await self._wda.screenshot()

    async def audit(self, types: tuple[str, ...]) -> AuditReport:
        """Apple's accessibility audit of the app in front, through WDA (``Audits``)."""
        return await self._wda.audit(types)
