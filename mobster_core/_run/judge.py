"""The settled read the verdict is decided on, and the baseline before the first step.

Rule 1: both are the settled read of ``_rules/settle.py`` (Rule 5) driven by the one wait loop: the
        verdict's with the default timing and ``accept`` (every assertion holds), the baseline's
        with ``BASELINE_POLICY``.
Rule 2: every read of a settled read is the device's *evidence read* when it has one
        (``EvidenceReads``: the read that keeps the phone's own visibility of each element, which a
        fast read may leave out), else its ``read``. What counts as shown is decided on it.
"""

from __future__ import annotations

from collections.abc import Callable

from mobster_core._rules.screen import Screen
from mobster_core._rules.settle import DEFAULT_READ_POLICY, ReadPolicy, SettledRead, SettledReadWait
from mobster_core.protocols import Clock, Device, EvidenceReads

from .wait import drive

__all__ = ["settled_read"]


async def settled_read(
    device: Device,
    clock: Clock,
    policy: ReadPolicy = DEFAULT_READ_POLICY,
    *,
    accept: Callable[[Screen], bool] | None = None,
) -> SettledRead:
    """Read the screen until it settles or the policy's timeout passes (Rules 1 and 2).

    A read that fails raises the device's error (``DeviceError``); nothing is retried here.
    """
    read = device.read_evidence if isinstance(device, EvidenceReads) else device.read
    return await drive(SettledReadWait(policy, accept), clock, read)
