"""Smart: the agent loop that performs a check's steps with a model and records the path.

Rule 1: each turn the model sees the check, what was done so far, and the settled screen as rows;
        it answers act (1-3 actions), done or blocked. It never decides the verdict.
Rule 2: an action is validated before it is sent: its op (``BACK`` only on Android: ``prompt``
        Rule 5), its target (a row of the current screen, and not one the keyboard covers:
        ``_rules/device/keyboard``), its text. An invalid action
        is told to the model and never sent; after ``max_invalid`` invalid turns the run stops
        (class ``model``).
Rule 3: the safety rules apply (a press on a button's text presses the button: ``safety`` Rule 10):
        a refused action is never sent, and the model is told why.
Rule 4: every action goes through the dispatcher (journal first, at most once, typing confirmed).
Rule 5: each action sent becomes a recorded step: the app in front, the target (label, role, tree
        path, frame, and how many shown elements had its label and role, and which of them it
        was), the screen it acted on, its text by the typing rules (masked text is never
        kept), and what it commits.
Rule 6: after an action the agent waits for the screen to change (up to ``give_up_after``), then for
        it to settle, before the next turn. While the model thinks, the agent keeps reading, and
        checks the model's actions against the newest read. When a turn asked for several actions
        and the screen changed under the next one's target, the rest of the turn is dropped and the
        model asked again.
Rule 7: the run stops when a budget runs out: ``max_usd``, ``max_seconds`` or ``max_turns``
        (``couldnt_run``, class ``budget``).
Rule 8: the model saying blocked ends Smart with the reason beside the path: it is not a failure by
        itself (the verdict decides; a failed verdict is then class ``blocked``).
Rule 10: a check's device step (a biometric answer, a push: ``_rules/device/controls`` Rule 5) is never
        the model's: an action the model names with its op is invalid (Rule 2). The runner sends
        it itself (:meth:`Actor.device_step`): recorded as a step on the screen it was sent on,
        through the dispatcher, then the screen is awaited as after any action (Rule 6).
Rule 9: every model call of a run goes through the run's :class:`ModelCalls`, which counts and
        prices it as it is made, so a run's cost is never lost to a failure later on. A model call
        that fails ends the run, ``couldnt_run``, class ``model``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import attrs

from mobster_core._results.results import StepReport, StepSource
from mobster_core._rules.device.controls import DeviceEvent
from mobster_core._rules.device.device import Action, DeviceKind, Platform
from mobster_core._rules.device.keyboard import covered_by_keyboard, covers_reason
from mobster_core._rules.model.cost import Cost, PriceTable
from mobster_core._rules.model.model import Decision, DecisionKind, ModelAction, Prompt, Usage
from mobster_core._rules.model.prompt import action_tool, screen_rows, system_prompt
from mobster_core._rules.replay.matcher import pick, position
from mobster_core._rules.replay.settle import DEFAULT_POLICY, ChangeWait, PollPolicy, SettleWait, Sighting, WatchWait
from mobster_core._rules.replay.typing_rules import Provenance, record_text
from mobster_core._rules.safety.safety import check_commit, classify_press
from mobster_core._rules.verdict.verdict import FailureClass, Outcome
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Op, Step, describe_action
from mobster_core.exceptions import ModelError
from mobster_core.protocols import Model

from .dispatch import Dispatcher
from .ended import Ended, couldnt
from .wait import drive

__all__ = ["Actor", "Agent", "Brief", "Limits", "ModelCalls", "Recorded", "make_action"]


@attrs.frozen
class Limits:
    """What one Smart run may spend: USD, seconds, model turns, invalid turns (Rules 2, 7)."""

    max_usd: float = 0.25
    max_seconds: float = 180.0
    max_turns: int = 40
    max_invalid: int = 3


@attrs.frozen
class Brief:
    """What an agent is told, and how it names what it does (Smart, a heal, a live step).

    ``request`` is the check as text, ``steps`` its steps; ``kind`` and ``provenance`` feed the
    safety and typing rules; ``first_index`` numbers the first action (a heal's is the healed
    step's) and ``key_prefix`` names its actions in the effect ledger (``smart-3``); ``history``
    is what was done before (a heal's replayed steps); ``purpose`` names the job in a model
    failure's message (``healing step 3``); ``source`` says in the journal who chose the actions.
    """

    request: str
    kind: DeviceKind
    provenance: Provenance
    steps: tuple[str, ...] = ()
    screenshots: bool = True
    timing: PollPolicy = DEFAULT_POLICY
    limits: Limits = Limits()
    first_index: int = 1
    key_prefix: str = "smart"
    history: tuple[str, ...] = ()
    purpose: str = ""
    source: str = "smart"


class ModelCalls:
    """Every model call of one run (Rule 9): made through it, counted and priced as it is made."""

    def __init__(self, model: Model, prices: PriceTable | None = None) -> None:
        self.model = model
        self.prices = prices or PriceTable()
        self.count = 0
        self.usage = Usage()
        self.cost = Cost()

    async def decide(self, prompt: Prompt) -> tuple[Decision, Cost]:
        """Ask the model once; return its decision and what the call cost."""
        self.count += 1
        decision = await self.model.decide(prompt)
        used = decision.usage
        self.usage = Usage(
            self.usage.input_tokens + used.input_tokens,
            self.usage.output_tokens + used.output_tokens,
            self.usage.cached_tokens + used.cached_tokens,
            self.usage.estimated or used.estimated,
        )
        cost = self.prices.cost(self.model.name, used)
        self.cost = self.cost + cost
        return decision, cost


@attrs.frozen
class Recorded:
    """What a Smart run did: the path it recorded, its steps, and how it ended.

    ``blocked`` is the model's reason when it said it was blocked (Rule 8); ``refusals`` are the
    actions the safety rules refused; ``failure`` is how the run failed, when it did.
    """

    path: tuple[Step, ...]
    reports: tuple[StepReport, ...]
    blocked: str | None = None
    refusals: tuple[str, ...] = ()
    failure: Outcome | None = None


class _Invalid(Exception):
    """An action the model asked for that is told back to it, never sent."""


class Actor:
    """Safety, recording and sending on one device, with no model (Rules 3-6).

    What Smart, a heal and a live session (``mobster_core.sessions``) share: an action, whoever
    chose it, is checked by the safety rules, becomes a recorded step and goes through the
    dispatcher; then the screen is awaited.
    """

    def __init__(self, dispatch: Dispatcher, brief: Brief) -> None:
        self.dispatch = dispatch
        self.brief = brief
        self.history: list[str] = list(brief.history)
        self.path: list[Step] = []
        self.reports: list[StepReport] = []
        self.refusals: list[str] = []
        self._next_index = brief.first_index

    async def send(self, screen: Screen, action: Action, *, provenance: Provenance | None = None) -> bool:
        """Apply safety, record, journal and send one valid action; False when it was refused.

        ``provenance`` is the words its typed text may come from, when not the brief's.
        """
        element = action.element
        label = None if element is None else element.label
        said = describe_action(action.op, label, action.text if action.op is not Op.TYPE else "…")
        commit = classify_press(screen, element, action.op) if element is not None else None
        safety = check_commit(commit, self.brief.kind)
        index = self._next_index
        key = f"{self.brief.key_prefix}-{index}"
        if not safety.allowed:
            note = f"{said} was refused: {safety.rule}"
            self.refusals.append(note)
            self.dispatch.refused(key, note)
            self.history.append(f"Refused: {note}. It was not sent; try another way if there is one.")
            return False
        step = self._record(screen, action, commit, provenance or self.brief.provenance)
        what = f"step {index} ({step.describe()})"
        frame = await self.dispatch.send(key, what, action, {"step": index, "source": self.brief.source}, step=index)
        self._next_index += 1
        self.path.append(step)
        self.reports.append(
            StepReport(
                index, step.op, step.describe(), StepSource.SMART, 0.0, None, settled=True, target=element, frame=frame
            )
        )
        self.history.append(f"{step.describe() if not step.live else said}: done")
        return True

    async def device_step(self, screen: Screen, event: DeviceEvent) -> Screen:
        """Rule 10: send the check's device step ``event`` on ``screen``; return the screen after it."""
        index = self._next_index
        step = Step.from_dict(
            {
                "op": event.op.value,
                "app": screen.app,
                "target": None,
                "screen": {"hash": screen.hash, "signature": screen.signature},
                "text": event.text,
                "commit": None,
                "live": False,
            }
        )
        what = f"step {index} ({step.describe()})"
        key = f"{self.brief.key_prefix}-{index}"
        # The journal's source says who chose it: the check, never the model.
        frame = await self.dispatch.send_event(key, what, event, {"step": index, "source": "check"}, step=index)
        self._next_index += 1
        self.path.append(step)
        self.reports.append(
            StepReport(index, step.op, step.describe(), StepSource.SMART, 0.0, None, settled=True, frame=frame)
        )
        self.history.append(f"{step.describe()}: done (by the SDK, as the check says)")
        return await self.after_action(screen)

    async def settled_screen(self, seed: Sighting | None = None) -> Screen:
        """Read until two reads in a row agree, or ``give_up_after`` passes (the last read wins).

        ``seed`` is a read to start on (the baseline's last): a settled one needs no read at all.
        """
        dispatch = self.dispatch
        return (await drive(SettleWait(self.brief.timing, seed), dispatch.clock, dispatch.read)).screen

    async def after_action(self, before: Screen) -> Screen:
        """Rule 6: wait for the screen to change (bounded), then for it to settle."""
        dispatch = self.dispatch
        wait: ChangeWait[None] = ChangeWait(before.fingerprint, self.brief.timing)
        return (await drive(wait, dispatch.clock, dispatch.read)).sighting.screen

    def _record(self, screen: Screen, action: Action, commit: object, provenance: Provenance) -> Step:
        e = action.element
        target = None
        if e is not None:
            # An unlabelled element can't be found again by the matcher: keep its role as label.
            label = e.label or e.identifier or e.role
            count, nth = position(screen, e, label)
            target = {"label": label, "role": e.role, "id": e.path, "frame": list(e.frame), "count": count, "nth": nth}
        text, live = action.text, False
        if action.op is Op.TYPE and e is not None and action.text is not None:
            kept = record_text(action.text, role=e.role, label=e.label, identifier=e.identifier, provenance=provenance)
            text, live = kept.text, kept.live
        return Step.from_dict(
            {
                "op": action.op.value,
                "app": screen.app,
                "target": target,
                "screen": {"hash": screen.hash, "signature": screen.signature},
                "text": text,
                "commit": None if commit is None else str(commit),
                "live": live,
            }
        )


class Agent(Actor):
    """One model-driven session on one device (see the module rules)."""

    def __init__(self, calls: ModelCalls, dispatch: Dispatcher, brief: Brief) -> None:
        super().__init__(dispatch, brief)
        self.calls = calls
        #: This agent's own model calls and their cost (the run's are in ``calls``).
        self.turns = 0
        self.cost = Cost()
        self._invalid = 0

    def narrow(self, steps: tuple[str, ...], request: str) -> None:
        """Do only ``steps`` of the check from now on, as ``request`` tells the model (Rule 10).

        The parts between device steps: the path, the history, the numbering and the budgets go on.
        """
        self.brief = attrs.evolve(self.brief, steps=steps, request=request)

    async def run(self, seed: Sighting | None = None, *, began: float | None = None) -> Recorded:
        """Smart: turns until the model says done or blocked, or a budget or failure stops it.

        ``seed`` is the read the first turn may start on (the baseline's last); ``began`` when the
        time budget started (now, unless an earlier part of the check started it: Rule 10).
        """
        began = self.dispatch.clock.now() if began is None else began
        try:
            screen = await self.settled_screen(seed)
            while True:
                decision = await self._turn(screen, began)
                if decision.kind is DecisionKind.DONE:
                    return self.recorded()
                if decision.kind is DecisionKind.BLOCKED:
                    return self.recorded(blocked=decision.reason or "the model says it is blocked")
                screen = await self.act_turn(screen, decision.actions)
                limit = self.brief.limits.max_invalid
                if self._invalid > limit:
                    why = f"the model gave invalid actions {self._invalid} times; the last: {self.history[-1]}"
                    raise couldnt(FailureClass.MODEL, why)
        except Ended as ended:
            return self.recorded(failure=ended.outcome)

    async def _turn(self, screen: Screen, began: float) -> Decision:
        """One model turn within the budgets (Rule 7)."""
        over = self._over_budget(began)
        if over is not None:
            raise couldnt(FailureClass.BUDGET, over)
        limits = self.brief.limits
        remaining = began + limits.max_seconds - self.dispatch.clock.now()
        try:
            return await asyncio.wait_for(self.ask_while_reading(screen), timeout=remaining)
        except TimeoutError:
            raise couldnt(FailureClass.BUDGET, f"the time budget of {limits.max_seconds:g} s is spent") from None

    # -- one turn --------------------------------------------------------------------------

    async def ask(self, screen: Screen, *, recorded: Sequence[Step] = (), request: str | None = None) -> Decision:
        """Build the prompt for ``screen`` and call the model once (a failure ends the run)."""
        brief = self.brief
        rows, _ids = screen_rows(screen)
        # The frame taken with this read, when the run keeps frames, is the picture of this screen.
        shot = (
            (await self.dispatch.picture_of(screen) or await self.dispatch.screenshot()) if brief.screenshots else None
        )
        prompt = Prompt(
            system=system_prompt(brief.kind.platform),
            request=request or brief.request,
            history=tuple(self.history),
            screen=rows,
            tool_schema=action_tool(brief.kind.platform),
            screenshot=shot,
            steps=brief.steps,
            recorded=tuple(recorded),
        )
        self.turns += 1
        try:
            decision, cost = await self.calls.decide(prompt)
        except ModelError as exc:
            raise couldnt(FailureClass.MODEL, f"{brief.purpose}: {exc}" if brief.purpose else str(exc)) from exc
        self.cost = self.cost + cost
        return decision

    async def act_turn(self, screen: Screen, actions: Sequence[ModelAction]) -> Screen:
        """Validate and send one turn's actions (:meth:`act_one`); return the settled screen after them.

        After each action the agent waits for the screen to change, then to settle (Rule 6); an
        action that isn't sent drops the rest of the turn.
        """
        for n, wanted in enumerate(actions):
            sent_on = await self.act_one(screen, wanted, n)
            if sent_on is None:
                break
            await self.after_action(sent_on)
        return self.dispatch.latest or screen

    async def act_one(self, seen: Screen, wanted: ModelAction, n: int = 0) -> Screen | None:
        """Validate and send one action the model chose on ``seen``; return the read it was sent on.

        The phone may have moved while the model thought: the run's newest read
        (``Dispatcher.latest``) may be newer. The action's target is found again on it (same role
        and label, the recorded path breaking a tie). None when nothing was sent: the target is
        gone, the action is invalid (``n`` counts the turn's actions), or safety refused it; the
        model is told why.
        """
        _rows, ids = screen_rows(seen)  # the screen the model saw: its row ids name elements of this read
        now = self.dispatch.latest or seen
        element = None
        if wanted.target is not None and now.fingerprint != seen.fingerprint:
            old = _element(seen, ids, wanted.target)
            element = None if old is None else _relocate(seen, now, old)
            if old is not None and element is None:
                self.history.append("(the screen changed, so the rest of that turn was not done)")
                return None
        try:
            action = self._validate(seen if element is None else now, ids, wanted, element)
        except _Invalid as exc:
            self._invalid += 1
            self.history.append(f"Not done: action {n + 1}: {exc}")
            return None
        return now if await self.send(now, action) else None

    async def ask_while_reading(self, screen: Screen, *, recorded: Sequence[Step] = ()) -> Decision:
        """:meth:`ask`, while reading the screen every poll interval (Rule 6).

        The actions it decides on are then checked against a read at most one interval old
        (``Dispatcher.latest``), at no cost in time.
        """
        dispatch = self.dispatch

        async def keep_reading() -> None:
            watch: WatchWait[None] = WatchWait(Sighting.first(dispatch.clock.now(), screen), _never, self.brief.timing)
            try:
                await drive(watch, dispatch.clock, dispatch.read)
            except Ended:
                return  # a failing read here changes nothing: the action is checked again anyway

        reader = asyncio.ensure_future(keep_reading())
        try:
            # The answer is used the moment it comes: a read still in flight is dropped, not awaited.
            return await self.ask(screen, recorded=recorded)
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    # -- rules -----------------------------------------------------------------------------

    def _validate(self, screen: Screen, ids: dict[str, int], wanted: ModelAction, element: Element | None) -> Action:
        op = wanted.op
        if op.is_device:
            raise _Invalid(f"{op} is a step of the check that the SDK sends itself, never an action of yours")
        if op is Op.BACK and self.brief.kind.platform is not Platform.ANDROID:
            raise _Invalid("BACK is Android's system back button; an iPhone has none: tap the app's own Back")
        if element is None and wanted.target is not None:
            element = _element(screen, ids, wanted.target)
            if element is None:
                raise _Invalid(f"{wanted.target} is not a row of the current screen")
        if op.needs_target and element is not None and covered_by_keyboard(screen, element):
            raise _Invalid(f"{covers_reason(element)}: send DISMISS_KEYBOARD (or SUBMIT) first")
        try:
            return make_action(op, element, wanted.text)
        except ValueError as exc:
            raise _Invalid(str(exc)) from None

    def _over_budget(self, began: float) -> str | None:
        limits = self.brief.limits
        if self.cost.usd >= limits.max_usd:
            return f"the model budget of ${limits.max_usd:.2f} is spent (${self.cost.usd:.2f})"
        if self.dispatch.clock.now() - began >= limits.max_seconds:
            return f"the time budget of {limits.max_seconds:g} s is spent"
        if self.turns >= limits.max_turns:
            return f"the model had {limits.max_turns} turns and the check isn't done"
        return None

    def recorded(self, *, blocked: str | None = None, failure: Outcome | None = None) -> Recorded:
        """What this agent did so far: its path and reports, and how it ended."""
        return Recorded(tuple(self.path), tuple(self.reports), blocked, tuple(self.refusals), failure)


def make_action(op: Op, element: Element | None, text: str | None) -> Action:
    """Rule 2: the action ``op`` on ``element`` with ``text``, as it is sent; ValueError says what is missing.

    A target is kept only by the ops that take one, text only by typing, launching and opening a link.
    """
    if op.is_device:
        raise ValueError(f"{op} is a check's device step, sent by the runner (DeviceEvents), never an action")
    if op.needs_target and element is None:
        raise ValueError(f"{op} needs a target row")
    if op in _TEXT_OPS and not text:
        raise ValueError(f"{op} needs text")
    if op.is_global or op in (Op.SUBMIT, Op.DISMISS_KEYBOARD) or not op.takes_target:
        element = None
    return Action(op, element=element, text=text if op in _TEXT_OPS else None)


_TEXT_OPS = frozenset({Op.TYPE, Op.LAUNCH_APP, Op.OPEN_URL})


def _element(screen: Screen, ids: dict[str, int], target: str) -> Element | None:
    index = ids.get(target)
    if index is None or index >= len(screen.elements):
        return None
    return screen.elements[index]


def _relocate(seen: Screen, screen: Screen, old: Element) -> Element | None:
    """Find ``old``, an element of the read ``seen``, on the newer read ``screen``.

    The matcher's target rule: as many shown elements with its role and label as on ``seen``, and
    then the one at its path, else the same one in tree order; any other number is ambiguous (a
    copy inserted above would take its path). An unlabelled element must still be at its path.
    """
    if not old.label:
        now = screen.element_at(old.path)
        return now if now is not None and now.role == old.role and screen.is_shown(now) else None
    count, nth = position(seen, old)
    return pick(screen.find(old.role, old.label), count=count, nth=nth, path=old.path)


def _never(_seen: Sighting) -> None:
    """A watch that never answers: the reads go on until they are cancelled."""
