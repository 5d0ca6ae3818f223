"""Sending actions safely: the part the replayer, the agent and the heal share (SPEC §7-9).

Rule 1: an action is journaled (intent, fsynced) before it is sent, and its outcome after.
Rule 2: the effect ledger lets a key be sent at most once per run, and nothing once an outcome
        is unknown.
Rule 3: an action that raises (a timeout included) has an unknown outcome: the run ends, nothing
        more is sent. A ``DeviceError`` that is not ``UnknownOutcome`` means nothing was sent.
Rule 4: typed text is confirmed: the field, read back, holds the text (a secure field shows one
        more bullet per character). Otherwise the outcome is unknown.
Rule 5: a read that fails is tried once more; a read that fails twice after an action has been
        sent is an unknown outcome (the action may have changed the app).
Rule 6: masked text never reaches the journal: it is written as null.
Rule 7: a run stopped (cancelled) while an action is in flight journals that action as unknown.
Rule 8: before acting on an element, a device that can (``TargetChecks``) confirms it is shown; the
        check is a read (tried once more when it fails, as Rule 5).
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable
from typing import Any, NoReturn

from mobster_core._log import get_logger
from mobster_core._rules.device import Action
from mobster_core._rules.screen import Element, Screen
from mobster_core._rules.settle import BULLET, DEFAULT_POLICY, PollPolicy, TypingWait
from mobster_core._rules.steps import Op
from mobster_core._rules.typing_rules import is_masked
from mobster_core._store.journal import DuplicateEffect, EffectLedger, Journal, Outcome
from mobster_core.exceptions import DeviceError, UnknownOutcome
from mobster_core.protocols import Clock, Device, TargetChecks

from .wait import drive

__all__ = ["BULLET", "DispatchFailed", "Dispatcher", "Failure"]

log = get_logger(__name__)


class Failure(enum.StrEnum):
    """Why sending stopped the run."""

    UNKNOWN_OUTCOME = "unknown_outcome"
    DEVICE = "device"


class DispatchFailed(Exception):
    """The run can't go on: ``failure`` says why, ``message`` says it to the user."""

    def __init__(self, failure: Failure, message: str) -> None:
        super().__init__(message)
        self.failure = failure
        self.message = message


def unknown_message(what: str, exc: BaseException) -> str:
    """The user-facing message for an unknown outcome."""
    return (
        f"{what}: the outcome is unknown ({type(exc).__name__}: {exc}). It was not sent again. "
        "Look at the app before running again."
    )


class Dispatcher:
    """Reads and sends for one run, with the journal and the effect ledger (see the rules)."""

    def __init__(
        self,
        device: Device,
        clock: Clock,
        *,
        journal: Journal | None = None,
        ledger: EffectLedger | None = None,
        policy: PollPolicy = DEFAULT_POLICY,
        on_sent: Callable[[str], None] | None = None,
    ) -> None:
        self.on_sent = on_sent
        self.device = device
        self.clock = clock
        self.journal = journal
        self.ledger = ledger if ledger is not None else EffectLedger()
        self.policy = policy
        self.sent_any = False
        #: Every action sent so far with what it was (``step 2 (Tap "Send")``), in order.
        self.sent: list[tuple[str, Action]] = []

    async def read(self, what: str = "the app") -> Screen:
        """Read the screen (Rule 5)."""
        try:
            return await self.device.read()
        except DeviceError as first:
            log.debug("read failed, reading once more", error=str(first))
            try:
                return await self.device.read()
            except DeviceError as exc:
                if not self.sent_any:
                    raise DispatchFailed(Failure.DEVICE, f"couldn't read the screen: {exc}") from exc
                raise DispatchFailed(
                    Failure.UNKNOWN_OUTCOME, unknown_message(f"reading the screen for {what}", exc)
                ) from exc

    async def target_shown(self, element: Element, what: str = "the app") -> bool:
        """Rule 8: is ``element`` (from the latest read) shown, by the device's own account?

        True when the device can't tell (it has no ``TargetChecks``).
        """
        device = self.device
        if not isinstance(device, TargetChecks):
            return True
        try:
            return await device.check_target(element)
        except DeviceError as first:
            log.debug("target check failed, checking once more", error=str(first))
            try:
                return await device.check_target(element)
            except DeviceError as exc:
                if not self.sent_any:
                    raise DispatchFailed(Failure.DEVICE, f"couldn't check the target: {exc}") from exc
                raise DispatchFailed(
                    Failure.UNKNOWN_OUTCOME, unknown_message(f"checking the target for {what}", exc)
                ) from exc

    async def launch(self, bundle: str, options: Any, *, key: str = "launch") -> None:
        """Launch the app under test, journaled like any action (``key`` names a launch again)."""
        self._begin(key, {"op": "LAUNCH", "app": bundle, "url": options.url, "reset": str(options.reset)})
        await self._call(
            key, f"launching {bundle}", self.device.launch(bundle, options), pre=f"couldn't launch {bundle}"
        )

    async def send(self, key: str, what: str, action: Action, info: dict[str, Any]) -> None:
        """Journal and send one action once (Rules 1-3, 6); ``what`` names it in messages."""
        element = action.element
        masked = action.op is Op.TYPE and element is not None and _masked(element)
        target = None if element is None else {"label": element.label, "role": element.role, "path": element.path}
        entry = {"op": action.op.value, **info, "target": target, "text": action.text}
        self._begin(key, entry, masked=masked)
        await self._call(key, what, self.device.act(action), pre=f"{what} couldn't be sent")
        self.sent.append((what, action))
        if action.op is Op.TYPE and element is not None and action.text is not None:
            await self.confirm_typing(what, element, action.text)
        if self.on_sent is not None:
            self.on_sent(what)  # progress for people: ``what`` never holds masked text

    def refused(self, key: str, detail: str) -> None:
        """Journal an action that was refused and never sent."""
        if self.journal is not None:
            self.journal.outcome(key, Outcome.REFUSED, detail)

    async def confirm_typing(self, what: str, field: Element, text: str) -> None:
        """Rule 4: read until the field holds the text, for at most the policy's drift time."""
        shown = await drive(TypingWait(field, text, self.policy), self.clock, lambda: self.read(what))
        if shown is not None:
            raise DispatchFailed(
                Failure.UNKNOWN_OUTCOME,
                f'{what}: the field "{field.label}" shows {shown} after typing, not what was typed; '
                "the typing may have half happened. Look at the app before running again.",
            )

    # -- internals ---------------------------------------------------------------------------

    def _begin(self, key: str, entry: dict[str, Any], *, masked: bool = False) -> None:
        try:
            self.ledger.begin(key)
        except DuplicateEffect as exc:
            raise DispatchFailed(Failure.UNKNOWN_OUTCOME, f"not sent: {exc}") from exc
        if self.journal is not None:
            self.journal.intent(key, entry, masked=masked)

    async def _call(self, key: str, what: str, call: Any, *, pre: str) -> None:
        try:
            await call
        except asyncio.CancelledError:
            # Stopped (Ctrl+C, SIGTERM, a time budget) while the action was in flight: it may
            # have happened. Journal it as unknown, so nothing re-sends it, and stop.
            self._settle(key, Outcome.UNKNOWN, "stopped while the action was in flight")
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of a sent action: unknown outcome (Rule 3)
            if isinstance(exc, DeviceError) and not isinstance(exc, UnknownOutcome):
                self._settle(key, Outcome.NOT_SENT, str(exc))
                self._fail(Failure.DEVICE, f"{pre}: {exc}", exc)
            self._settle(key, Outcome.UNKNOWN, str(exc))
            self._fail(Failure.UNKNOWN_OUTCOME, unknown_message(what, exc), exc)
        self.sent_any = True
        self._settle(key, Outcome.OK)

    def _settle(self, key: str, outcome: Outcome, detail: str = "") -> None:
        if outcome is Outcome.NOT_SENT:
            self.ledger.not_sent(key)
        else:
            self.ledger.settle(key, outcome)
        if self.journal is not None:
            self.journal.outcome(key, outcome, detail)

    @staticmethod
    def _fail(failure: Failure, message: str, cause: BaseException) -> NoReturn:
        raise DispatchFailed(failure, message) from cause


def _masked(element: Element) -> bool:
    return is_masked(element.role, element.label, element.identifier)
