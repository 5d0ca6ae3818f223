"""Sending actions safely: the part the replayer, the agent and the heal share.

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
Rule 9 (frames): when the run takes frames and the device gives screenshots, each action sent and
        each step that drifted names the frame of the screen it was decided on (``_results/frames``:
        ``frames/step-003-before.png``): :meth:`Dispatcher.send` and :meth:`Dispatcher.drifted`
        return the name, and the action's journal entry holds it. How a frame is taken depends on
        the device's channel (``protocols.ScreenshotChannel``):

        - one channel (WebDriverAgent serves one request at a time; the default): no read takes a
          screenshot, since one beside a poll would delay it. A screen's picture is taken when the
          run decides on it: right before an action is sent on it, when a step drifts on it, when
          the model is shown it, and at the end (the final frame): at most one per screen (read
          fingerprint), awaited before the action goes out, as the phone would take it anyway.
        - a channel of its own (``separate_screenshots``: a simulator's ``simctl io``): every read
          is paired with a screenshot taken at the same time (both requests in flight together),
          so the frame costs no time of its own. At most two screenshots are in flight: a read
          that starts while two are takes none.

        A screen keeps its first picture (by read fingerprint, the last 8 screens). Frames are
        written to the run folder as their bytes arrive and dropped from memory. A screenshot that
        fails costs the read nothing: that action has no frame.
Rule 10 (secrets): an action's or a launch's ``${NAME}`` references are resolved as it leaves for
        the device and nowhere else; the journal keeps the reference (an action's text that holds
        a value itself is journaled with the reference in its place). Every read comes back with
        the values replaced by their references, and so does every error a device raises while
        secrets are in play (``_rules/device/secrets.py``): nothing downstream ever holds a value.
Rule 11 (the driver's contract): what a device method returns is checked where it enters the
        core: a read (``read``, ``read_evidence``) is a ``Screen``, ``check_target`` a bool,
        ``screenshot`` bytes. Anything else is the driver's bug: ``couldnt_run``, class ``device``,
        naming the method and what it returned (a screenshot that isn't bytes is a missing frame).
Rule 12 (system alerts, ``_rules/device/alerts``): once a run watches alerts (:meth:`Dispatcher.watch_alerts`),
        every read (the evidence read included) is looked at for an alert. One the policy answers
        is an action like any other: the safety rules judge its button's label, it is journaled
        (``{"op": "ALERT", ...}``, key ``alert-N``) before the device taps it, and the read is
        taken again once the screen has changed (bounded: ``_rules/device/alerts`` Rule 6). One it
        doesn't answer ends the run there: ``failed``, class ``drift``, the reason naming its
        title; no model is asked. Every answer is kept in :attr:`Dispatcher.answered`.
Rule 13 (device steps, ``_rules/device/controls`` Rule 5): a check's biometric answer or push
        (:meth:`Dispatcher.send_event`) is an action like any other: journaled before it is sent
        (``{"op": "BIOMETRIC_MATCH" | "BIOMETRIC_FAIL" | "PUSH", "text": <sensor | file and
        digest>}``: never the payload), sent at most once, framed as Rule 9 says, and a failure is
        Rule 3's.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import attrs

from mobster_core._log import get_logger
from mobster_core._results.frames import FINAL_FRAME, drift_frame, step_frame
from mobster_core._rules.device.alerts import OPEN_IN, AlertAnswer, AlertPolicy, AlertRefusal, decide, find_alert
from mobster_core._rules.device.controls import DeviceEvent
from mobster_core._rules.device.device import Action, DeviceKind, LaunchOptions
from mobster_core._rules.device.secrets import Secrets
from mobster_core._rules.replay.settle import BULLET, DEFAULT_POLICY, ChangeWait, PollPolicy, TypingWait
from mobster_core._rules.replay.typing_rules import is_masked
from mobster_core._rules.safety.safety import check_commit, classify
from mobster_core._rules.verdict.verdict import FailureClass
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Op
from mobster_core._store.journal import DuplicateEffect, Effect, EffectLedger, JournalWriter
from mobster_core._store.runs import write_frame
from mobster_core.exceptions import DeviceError, UnknownOutcome, UnsafeFile
from mobster_core.protocols import (
    AlertAnswers,
    Clock,
    Device,
    DeviceEvents,
    EvidenceReads,
    ScreenshotChannel,
    Screenshots,
    TargetChecks,
)

from .ended import Ended, couldnt, failed
from .wait import drive

__all__ = ["BULLET", "Dispatcher", "unknown_message"]

log = get_logger(__name__)

T = TypeVar("T")

#: Rule 9: how many screens' screenshots are kept by read fingerprint (a step's reads repeat screens).
_SHOTS_KEPT = 8
#: Rule 9: the most screenshots in flight at once (a read's own, and the last one still arriving).
_SHOTS_IN_FLIGHT = 2


#: Rule 9: a screenshot taken beside a read, its bytes arriving (or arrived).
Shot = asyncio.Future[bytes]


def _quiet(shot: Shot) -> None:
    """A screenshot that failed costs the read nothing (Rule 9): its error is read here and logged."""
    if not shot.cancelled() and shot.exception() is not None:
        log.debug("no frame with this read", error=str(shot.exception()))


async def _bytes(shot: Shot | None) -> bytes | None:
    if shot is None:
        return None
    try:
        return await asyncio.shield(shot)
    except asyncio.CancelledError:
        if shot.cancelled():
            return None
        raise  # we were cancelled, not the screenshot
    except Exception:  # noqa: BLE001 - Rule 9: a failed screenshot is a missing frame
        return None


def unknown_message(what: str, exc: BaseException) -> str:
    """The user-facing message for an unknown outcome."""
    return (
        f"{what}: the outcome is unknown ({type(exc).__name__}: {exc}). It was not sent again. "
        "Look at the app before running again."
    )


class Dispatcher:
    """Reads and sends for one run, with the journal and the effect ledger (see the rules).

    ``timing`` paces typing confirmation; ``secrets`` resolves and scrubs ``${NAME}`` (Rule 10).
    """

    def __init__(
        self,
        device: Device,
        clock: Clock,
        journal: JournalWriter,
        *,
        timing: PollPolicy = DEFAULT_POLICY,
        secrets: Secrets | None = None,
    ) -> None:
        self.device = device
        self.secrets = secrets or Secrets()
        self.clock = clock
        self.timing = timing
        self._journal = journal
        #: Called with a line per action sent (``step 2 (Tap "Sign up")``), for progress output.
        #: Set by the runner.
        self.on_sent: Callable[[str], None] | None = None
        #: Called with an action's line as it goes out and with None when its reply came (or
        #: didn't): what a stopped run was waiting for. Set by the runner.
        self.on_sending: Callable[[str | None], None] | None = None
        self._ledger = EffectLedger()
        self._sent_any = False
        self._sent: list[tuple[str, Action]] = []
        self._latest: Screen | None = None
        self._acted_on: str | None = None  # the screen the last action was sent on, until a read starts
        self._frames: Path | None = None  # the run folder frames are written to, when they are taken
        self._beside = False  # Rule 9: screenshots come by a channel of their own: one beside each read
        self._actions = 0  # actions sent (or being sent): the next one's frame is numbered one more
        self._shots: OrderedDict[str, Shot] = OrderedDict()
        self._inflight: set[Shot] = set()
        self._writes: dict[str, asyncio.Task[bool]] = {}
        self._alerts: AlertPolicy | None = None  # Rule 12: None until the run watches alerts
        self._kind = DeviceKind.SIMULATOR
        self._opened_url = False  # the last action was the launch with the check's own launch.url
        #: Rule 12: the alerts answered so far, in order.
        self.answered: list[AlertAnswer] = []

    @property
    def latest(self) -> Screen | None:
        """The newest screen any read of this run returned (None before the first read)."""
        return self._latest

    # -- reads (Rules 5 and 8) -----------------------------------------------------------------

    @property
    def has_evidence_reads(self) -> bool:
        """Whether the device has an evidence read (``EvidenceReads``) beside its fast one."""
        return isinstance(self.device, EvidenceReads)

    @property
    def acted_on(self) -> str | None:
        """The read fingerprint of the screen the last action was sent on, while no read has started since it."""
        return self._acted_on

    async def read(self, what: str = "the app", *, step: int | None = None) -> Screen:
        """Read the screen (Rule 5); a failure ends the run at ``step``, the step the read was for."""
        self._acted_on = None
        read = self._framed(self._scrubbed(_contract(self.device.read, "read", Screen)))
        doing = f"reading the screen for {what}"
        self._latest = await self._twice(read, doing, "couldn't read the screen", step=step)
        return await self._past_alerts(self._latest, what, step=step)

    async def read_to_judge(self, what: str) -> Screen:
        """A fast read that settles a judgement (the baseline, the verdict): its failure is the device's.

        Tried once more when it fails (Rule 5); a failure is the device's, whatever was sent
        (``couldnt_run``, class ``device``): the check can't be judged.
        """
        return await self._judging(what, self.device.read, "read")

    async def read_evidence(self, what: str) -> Screen:
        """A read that judges: the device's evidence read when it has one, else its read (as :meth:`read_to_judge`)."""
        device = self.device
        if isinstance(device, EvidenceReads):
            return await self._judging(what, device.read_evidence, "read_evidence")
        return await self._judging(what, device.read, "read")

    async def _judging(self, what: str, call: Callable[[], Awaitable[Any]], method: str) -> Screen:
        self._acted_on = None
        read = self._framed(self._scrubbed(_contract(call, method, Screen)))
        try:
            screen = await self._retried(read)
        except DeviceError as exc:
            message = self.secrets.scrub(f"couldn't read the screen for {what}: {exc}")
            raise couldnt(FailureClass.DEVICE, message) from exc
        self._latest = screen
        return await self._past_alerts(screen, what, step=None)

    # -- system alerts (Rule 12) -------------------------------------------------------------

    def watch_alerts(self, policy: AlertPolicy | None, kind: DeviceKind) -> None:
        """Rule 12: from now on, answer (or stop at) the alerts a read shows, by ``policy``, on a ``kind``.

        None stops watching: a read shows an alert as any other screen (a live session after a replay).
        """
        self._alerts, self._kind = policy, kind

    async def _past_alerts(self, screen: Screen, what: str, *, step: int | None) -> Screen:
        """Rule 12: ``screen``, or the screen read again once its alert was answered."""
        policy = self._alerts
        while policy is not None:
            alert = find_alert(screen)
            if alert is None:
                return screen
            answered = [a.alert.title for a in self.answered]
            decision = decide(policy, alert, opened_url=self._opened_url, answered=answered)
            if isinstance(decision, AlertRefusal):
                raise failed(FailureClass.DRIFT, f"{what} can't go on: {decision.reason}", step=step)
            await self._answer(decision, step=step)
            wait: ChangeWait[None] = ChangeWait(screen.fingerprint, self.timing)
            screen = self._latest = (await drive(wait, self.clock, self._plain_read(what, step))).sighting.screen
        return screen

    def _plain_read(self, what: str, step: int | None) -> Callable[[], Awaitable[Screen]]:
        """Rule 5's read, without looking for alerts: the read after an alert was answered."""
        plain = self._framed(self._scrubbed(_contract(self.device.read, "read", Screen)))

        async def read() -> Screen:
            return await self._twice(plain, f"reading the screen after {what}", "couldn't read the screen", step=step)

        return read

    async def _answer(self, answer: AlertAnswer, *, step: int | None) -> None:
        """Rule 12: tap ``answer.button`` of its alert, as an action (journaled, judged by safety)."""
        alert = answer.alert
        what = f"answering the alert “{alert.shown}” with “{answer.button}”"
        key = f"alert-{len(self.answered) + 1}"
        safety = check_commit(classify(answer.button, "Button"), self._kind)
        if not safety.allowed:
            self.refused(key, f"{what}: {safety.rule}")
            raise couldnt(FailureClass.REFUSED, f"{what} was refused: {safety.rule}", step=step)
        device = self.device
        if not isinstance(device, AlertAnswers):
            raise couldnt(FailureClass.DEVICE, f"{what}: this device can't answer alerts", step=step)
        entry = {"op": "ALERT", "title": alert.shown, "service": alert.service, "button": answer.button}
        self._begin(key, {**entry, "target": None, "text": None, **({} if step is None else {"step": step})})
        self._actions += 1
        await self._call(key, what, device.answer_alert(answer.button), pre=f"{what} couldn't be sent", step=step)
        if alert.service == OPEN_IN:
            self._opened_url = False  # the link's own prompt is answered once; other prompts leave it
        self.answered.append(answer)
        if self.on_sent is not None:
            self.on_sent(what)

    async def target_shown(self, element: Element, what: str = "the app", *, step: int | None = None) -> bool:
        """Rule 8: is ``element`` (from the latest read) shown, by the device's own account?

        True when the device can't tell (it has no ``TargetChecks``).
        """
        device = self.device
        if not isinstance(device, TargetChecks):
            return True
        check = _contract(lambda: device.check_target(element), "check_target", bool)
        return await self._twice(check, f"checking the target for {what}", "couldn't check the target", step=step)

    async def screenshot(self) -> bytes | None:
        """A screenshot for the model when the device gives them: tried twice, else none (logged)."""
        device = self.device
        if not isinstance(device, Screenshots):
            return None
        try:
            return await self._retried(_contract(device.screenshot, "screenshot", bytes))
        except DeviceError as exc:
            log.debug("no screenshot for the model", error=str(exc))
            return None

    def keep_frames(self, folder: Path) -> None:
        """Rule 9: from now on, pair each read with a screenshot and write frames into ``folder``.

        Nothing changes for a device without screenshots.
        """
        device = self.device
        self._frames = folder if isinstance(device, Screenshots) else None
        self._beside = isinstance(device, ScreenshotChannel) and device.separate_screenshots is True

    @property
    def _framing(self) -> bool:
        return self._frames is not None

    def frame_of(self, screen: Screen) -> Shot | None:
        """Rule 9: the screenshot taken with a read that returned this screen (maybe still arriving)."""
        return self._shots.get(screen.fingerprint) if self._framing else None

    async def picture_of(self, screen: Screen) -> bytes | None:
        """Rule 9: the bytes of ``screen``'s picture (taken now on one channel); None without frames or on a failure."""
        return await _bytes(await self._decided(screen))

    async def drifted(self, screen: Screen) -> str | None:
        """Rule 9: a step drifted on ``screen``: the name of its frame (written as it arrives), or None."""
        return self._keep(drift_frame(self._actions + 1), await self._decided(screen))

    async def _decided(self, screen: Screen) -> Shot | None:
        """Rule 9: the picture of a screen the run decides on; on one channel, taken now when it has none.

        On one channel the screenshot is awaited: what comes next (an action, a model call) would
        wait for it on the phone anyway.
        """
        shot = self.frame_of(screen)
        if shot is not None or not self._framing or self._beside:
            return shot
        shot = self._shoot()
        self._keep_shot(screen, shot)
        await asyncio.wait([shot])
        return shot

    def _shoot(self) -> Shot:
        """A screenshot in flight, its failure logged and kept (Rule 9: it costs the run nothing)."""
        device = self.device
        assert isinstance(device, Screenshots)  # only such a device takes frames
        shot = asyncio.ensure_future(_contract(device.screenshot, "screenshot", bytes)())
        shot.add_done_callback(_quiet)
        self._inflight.add(shot)
        shot.add_done_callback(self._inflight.discard)
        return shot

    def final_frame(self) -> str | None:
        """Rule 9: the frame of the end of the run (written as it arrives); its name, or None without one.

        The verdict's read was taken with a screenshot: that is the final frame, and a screenshot
        is taken again only when it failed.
        """
        if not self._framing:
            return None
        latest = self._latest
        shot = None if latest is None else self.frame_of(latest)

        async def picture() -> bytes:
            png = await _bytes(shot)
            return png if png is not None else await self._retried(self._screenshot)

        return self._keep(FINAL_FRAME, asyncio.ensure_future(picture()))

    async def settle_frames(self, wait_s: float) -> frozenset[str]:
        """Rule 9: the names of the frames written, once those still arriving have had ``wait_s`` seconds.

        The rest (and any screenshot still in flight) is cancelled: the run is over.
        """
        writes = [t for t in self._writes.values() if not t.done()]
        if writes:
            _done, late = await asyncio.wait(writes, timeout=wait_s)
            if late:
                log.warning("the screenshots still arriving were left out", frames=len(late), waited_s=wait_s)
        pending = self._drop()
        await asyncio.gather(*pending, return_exceptions=True)
        return self.frames_written()

    def drop_frames(self) -> frozenset[str]:
        """Rule 9: a stopped run's frames: those written already; the rest is cancelled, not awaited."""
        self._drop()
        return self.frames_written()

    def frames_written(self) -> frozenset[str]:
        """Rule 9: the names of the frames whose files are written."""
        done = {n: t for n, t in self._writes.items() if t.done() and not t.cancelled()}
        return frozenset(n for n, t in done.items() if t.exception() is None and t.result())

    def _drop(self) -> list[asyncio.Future[Any]]:
        futures: list[asyncio.Future[Any]] = [*self._writes.values(), *self._inflight]
        pending = [f for f in futures if not f.done()]
        for task in pending:
            task.cancel()
        return pending

    async def _screenshot(self) -> bytes:
        device = self.device
        assert isinstance(device, Screenshots)  # only such a device takes frames
        return await device.screenshot()

    def _keep(self, name: str, shot: Shot | None) -> str | None:
        """Rule 9: write the frame ``name`` from ``shot`` once its bytes arrive; the name, or None without one."""
        folder = self._frames
        if folder is None or shot is None:
            return None

        async def write() -> bool:
            png = await _bytes(shot)
            if png is None:
                return False
            try:
                write_frame(folder, name, png)
            except (OSError, UnsafeFile) as exc:
                log.warning("a frame couldn't be written", file=str(folder / name), error=str(exc))
                return False
            return True

        self._writes[name] = asyncio.ensure_future(write())
        return name

    def _scrubbed(self, read: Callable[[], Awaitable[Screen]]) -> Callable[[], Awaitable[Screen]]:
        """Rule 10: ``read`` with every secret's value replaced by its reference."""
        secrets = self.secrets
        if not secrets:
            return read

        async def scrubbed() -> Screen:
            return secrets.scrub_screen(await read())

        return scrubbed

    def _framed(self, read: Callable[[], Awaitable[Screen]]) -> Callable[[], Awaitable[Screen]]:
        """Rule 9: ``read`` with a screenshot in flight beside it, when frames come by a channel of their own.

        The read returns as soon as it ends: the screenshot's bytes are awaited only where they
        are needed (the model's picture, the run's end), so receiving them overlaps the action.
        At most :data:`_SHOTS_IN_FLIGHT` screenshots are in flight: a read that starts while
        that many are takes none (its screen has a picture only if an earlier read of the same
        screen took one), so a device whose screenshot is slower than its read is never asked
        for a pile of them. A picture is never one taken for another read: it would show the
        screen as it was before.
        """
        if not self._framing or not self._beside:
            return read

        async def both() -> Screen:
            if len(self._inflight) >= _SHOTS_IN_FLIGHT:
                return await read()
            shot = self._shoot()
            try:
                screen = await read()
            except BaseException:
                shot.cancel()
                raise
            self._keep_shot(screen, shot)
            return screen

        return both

    def _keep_shot(self, screen: Screen, shot: Shot) -> None:
        key = screen.fingerprint
        known = self._shots.pop(key, None)
        # A screen keeps its first picture (one copy of its bytes), unless that one failed.
        failed = known is not None and known.done() and (known.cancelled() or known.exception() is not None)
        self._shots[key] = known if known is not None and not failed else shot
        while len(self._shots) > _SHOTS_KEPT:
            self._shots.popitem(last=False)

    # -- actions (Rules 1-4, 6, 7) -----------------------------------------------------------------

    async def launch(self, bundle: str, options: LaunchOptions, *, key: str = "launch") -> None:
        """Launch the app under test, journaled like any action (``key`` names a launch again)."""
        entry = {"op": "LAUNCH", "app": bundle, "url": options.url, "reset": str(options.reset)}
        self._begin(key, {**entry, "permissions": dict(options.permissions)} if options.permissions else entry)
        launching = self.device.launch(bundle, self._resolved_launch(options))
        await self._call(key, f"launching {bundle}", launching, pre=f"couldn't launch {bundle}")
        self._opened_url = options.url is not None  # Rule 12: its "Open in" prompt is the check's own

    async def send(
        self, key: str, what: str, action: Action, info: dict[str, Any], *, step: int | None = None
    ) -> str | None:
        """Journal and send one action once (Rules 1-3, 6); ``what`` names it in messages, ``step`` in outcomes.

        Returns the name of the frame it was sent on (Rule 9), None when the run takes none.
        """
        element = action.element
        masked = action.op is Op.TYPE and element is not None and _masked(element)
        target = None if element is None else {"label": element.label, "role": element.role, "path": element.path}
        # Rule 10: a model that writes a secret's value itself (not its reference) is journaled
        # with the reference all the same.
        text = None if action.text is None else self.secrets.scrub(action.text)
        entry = {"op": action.op.value, **info, "target": target, "text": text}
        latest = self._latest
        frame = await self._begin_action(key, entry, masked=masked)
        await self._call(key, what, self.device.act(self._resolved(action)), pre=f"{what} couldn't be sent", step=step)
        self._sent_on(latest)
        self._sent.append((what, action))
        if action.op is Op.TYPE and element is not None and action.text is not None:
            # A secure field shows bullets: count the value's; any other field reads back scrubbed,
            # so the text it should show is scrubbed too (a value typed as itself reads as its reference).
            secure = element.role == "SecureTextField"
            typed = self.secrets.resolve(action.text) if secure else self.secrets.scrub(action.text)
            await self.confirm_typing(what, element, typed, step=step)
        if self.on_sent is not None:
            self.on_sent(what)  # progress for people: ``what`` never holds masked text
        return frame

    async def send_event(
        self, key: str, what: str, event: DeviceEvent, info: dict[str, Any], *, step: int | None = None
    ) -> str | None:
        """Rule 13: journal and send a check's device step once; returns its frame's name (Rule 9)."""
        device = self.device
        if not isinstance(device, DeviceEvents):
            raise couldnt(FailureClass.ENVIRONMENT, f"{what}: this device has no device steps", step=step)
        latest = self._latest
        frame = await self._begin_action(key, {"op": event.op.value, **info, "target": None, "text": event.text})
        await self._call(key, what, device.send_event(event), pre=f"{what} couldn't be sent", step=step)
        self._sent_on(latest)
        if self.on_sent is not None:
            self.on_sent(what)
        return frame

    async def _begin_action(self, key: str, entry: dict[str, Any], *, masked: bool = False) -> str | None:
        """Rules 1, 9: the frame of the screen the action was decided on, and its journal entry first."""
        latest = self._latest
        shot = None if latest is None else await self._decided(latest)
        frame = step_frame(self._actions + 1) if shot is not None else None
        self._begin(key, entry if frame is None else {**entry, "frame": frame}, masked=masked)
        self._actions += 1
        if frame is not None:
            self._keep(frame, shot)
        return frame

    def _sent_on(self, latest: Screen | None) -> None:
        """After an action went out: a link's prompt is no longer the check's own; what it acted on."""
        self._opened_url = False
        self._acted_on = None if latest is None else latest.fingerprint

    def refused(self, key: str, detail: str) -> None:
        """Journal an action that was refused and never sent."""
        self._journal.outcome(key, Effect.REFUSED, detail)

    def first_commit(self) -> str | None:
        """The first action sent that commits something (a send, post, delete or purchase)."""
        for what, action in self._sent:
            e = action.element
            if e is not None and classify(e.label, e.role) is not None:
                return what
        return None

    async def confirm_typing(self, what: str, field: Element, text: str, *, step: int | None = None) -> None:
        """Rule 4: read until the field holds the text, for at most the timing's drift time."""
        shown = await drive(TypingWait(field, text, self.timing), self.clock, lambda: self.read(what, step=step))
        if shown is not None:
            raise couldnt(
                FailureClass.UNKNOWN_OUTCOME,
                f'{what}: the field "{field.label}" shows {shown} after typing, not what was typed; '
                "the typing may have half happened. Look at the app before running again.",
                step=step,
            )

    def _resolved(self, action: Action) -> Action:
        """Rule 10: the action as it leaves for the device."""
        if not self.secrets or action.text is None:
            return action
        return attrs.evolve(action, text=self.secrets.resolve(action.text))

    def _resolved_launch(self, options: LaunchOptions) -> LaunchOptions:
        """Rule 10: the launch as it leaves for the device."""
        secrets = self.secrets
        if not secrets:
            return options
        return attrs.evolve(
            options,
            args=tuple(secrets.resolve(a) for a in options.args),
            env={k: secrets.resolve(v) for k, v in options.env.items()},
            url=None if options.url is None else secrets.resolve(options.url),
        )

    # -- internals ---------------------------------------------------------------------------

    async def _retried(self, call: Callable[[], Awaitable[T]]) -> T:
        """Rule 5: a read is safe to repeat, so a failed one is tried once more."""
        try:
            return await call()
        except DeviceError as first:
            log.debug("read failed, reading once more", error=str(first))
            return await call()

    async def _twice(self, call: Callable[[], Awaitable[T]], doing: str, failing: str, *, step: int | None) -> T:
        """:meth:`_retried`; a second failure ends the run, an unknown outcome once anything was sent."""
        try:
            return await self._retried(call)
        except DeviceError as exc:
            scrub = self.secrets.scrub
            if not self._sent_any or isinstance(exc, BrokenContract):  # a driver's bug is the device's, not the app's
                raise couldnt(FailureClass.DEVICE, scrub(f"{failing}: {exc}"), step=step) from exc
            raise couldnt(FailureClass.UNKNOWN_OUTCOME, scrub(unknown_message(doing, exc)), step=step) from exc

    def _begin(self, key: str, entry: dict[str, Any], *, masked: bool = False) -> None:
        try:
            self._ledger.begin(key)
        except DuplicateEffect as exc:
            raise couldnt(FailureClass.UNKNOWN_OUTCOME, f"not sent: {exc}") from exc
        self._journal.intent(key, entry, masked=masked)

    async def _call(self, key: str, what: str, call: Awaitable[None], *, pre: str, step: int | None = None) -> None:
        if self.on_sending is not None:
            self.on_sending(what)
        try:
            await self._settled(key, what, call, pre=pre, step=step)
        finally:
            if self.on_sending is not None:
                self.on_sending(None)

    async def _settled(self, key: str, what: str, call: Awaitable[None], *, pre: str, step: int | None) -> None:
        try:
            await call
        except asyncio.CancelledError:
            # Stopped (Ctrl+C, SIGTERM, a time budget) while the action was in flight: it may
            # have happened. Journal it as unknown, so nothing re-sends it, and stop.
            self._settle(key, Effect.UNKNOWN, "stopped while the action was in flight")
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of a sent action: unknown outcome (Rule 3)
            scrub = self.secrets.scrub
            if isinstance(exc, DeviceError) and not isinstance(exc, UnknownOutcome):
                self._settle(key, Effect.NOT_SENT, scrub(str(exc)))
                self._end(couldnt(FailureClass.DEVICE, scrub(f"{pre}: {exc}"), step=step), exc)
            self._settle(key, Effect.UNKNOWN, scrub(str(exc)))
            self._end(couldnt(FailureClass.UNKNOWN_OUTCOME, scrub(unknown_message(what, exc)), step=step), exc)
        self._sent_any = True
        self._settle(key, Effect.OK)

    def _settle(self, key: str, outcome: Effect, detail: str = "") -> None:
        if outcome is Effect.NOT_SENT:
            self._ledger.not_sent(key)
        else:
            self._ledger.settle(key, outcome)
        self._journal.outcome(key, outcome, detail)

    def _end(self, ended: Ended, cause: BaseException) -> NoReturn:
        if self.secrets:
            raise ended from None  # Rule 10: the device's own error may hold a value
        raise ended from cause


class BrokenContract(DeviceError):
    """Rule 11: a device method returned what the ``Device`` protocol doesn't allow (a driver's bug)."""


def contract_message(what: str, value: object, wanted: type) -> str:
    """Rule 11: what the driver's method returned (``what``: ``read()``), and what the contract wants."""
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return (
        f"the device's {what} returned {type(value).__name__} {shown}, not a {wanted.__name__}: "
        "its driver breaks the Device contract (mobster_core.protocols); fix the driver"
    )


def _contract(call: Callable[[], Awaitable[Any]], method: str, wanted: type[T]) -> Callable[[], Awaitable[T]]:
    """Rule 11: ``call`` whose result is checked to be a ``wanted`` (``BrokenContract`` otherwise)."""

    async def checked() -> T:
        value = await call()
        if not isinstance(value, wanted) or (wanted is not bool and isinstance(value, bool)):
            raise BrokenContract(contract_message(f"{method}()", value, wanted))
        return value

    return checked


def _masked(element: Element) -> bool:
    return is_masked(element.role, element.label, element.identifier)
