"""Smart: the agent loop that performs a check's steps with a model and records the path (SPEC §15).

Rule 1: each turn the model sees the check, what was done so far, and the settled screen as rows;
        it answers act (1-3 actions), done or blocked. It never decides the verdict.
Rule 2: an action is validated before it is sent: its op, its target (a row of the current
        screen), its text. An invalid action is told to the model and never sent; after
        ``max_invalid`` invalid turns the run stops (class ``model``).
Rule 3: the safety rules apply: a refused action is never sent, and the model is told why.
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
Rule 7: the run stops when a budget runs out: ``max_usd``, ``max_seconds`` or ``max_turns``.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Sequence

import attrs

from mobster_core._rules.cost import Cost, PriceTable
from mobster_core._rules.device import Action, DeviceKind
from mobster_core._rules.matcher import pick, position
from mobster_core._rules.model import Decision, DecisionKind, ModelAction, Prompt, Usage
from mobster_core._rules.prompt import ACTION_TOOL, SYSTEM_PROMPT, screen_rows
from mobster_core._rules.safety import check_commit, classify
from mobster_core._rules.screen import Element, Screen
from mobster_core._rules.settle import DEFAULT_POLICY, ChangeWait, PollPolicy, SettleWait, Sighting, WatchWait
from mobster_core._rules.steps import Op, Step, describe_action
from mobster_core._rules.typing_rules import Provenance, record_text
from mobster_core.exceptions import ModelError
from mobster_core.protocols import Clock, Model, Screenshots

from .dispatch import Dispatcher, DispatchFailed, Failure
from .replay import StepReport, StepSource
from .wait import drive

__all__ = ["Agent", "AgentResult", "AgentStop", "Budget"]


@attrs.frozen
class Budget:
    """What one Smart run may spend: USD, seconds, model turns, invalid turns."""

    max_usd: float = 0.25
    max_seconds: float = 180.0
    max_turns: int = 40
    max_invalid: int = 3


class AgentStop(enum.StrEnum):
    """How a Smart run ended."""

    DONE = "done"
    BLOCKED = "blocked"
    BUDGET = "budget"
    MODEL = "model"
    UNKNOWN_OUTCOME = "unknown_outcome"
    DEVICE = "device"


@attrs.frozen
class AgentResult:
    """The end of a Smart run: how it stopped, the path it recorded, and what it cost."""

    stop: AgentStop
    path: tuple[Step, ...]
    reports: tuple[StepReport, ...]
    model_calls: int
    usage: Usage
    cost: Cost
    message: str = ""
    refusals: tuple[str, ...] = ()


class _Invalid(Exception):
    """An action the model asked for that is told back to it, never sent."""


class Agent:
    """One Smart run on one device (see the module rules)."""

    def __init__(
        self,
        model: Model,
        dispatcher: Dispatcher,
        clock: Clock,
        *,
        kind: DeviceKind,
        provenance: Provenance,
        request: str,
        steps: Sequence[str] = (),
        prices: PriceTable | None = None,
        budget: Budget | None = None,
        policy: PollPolicy = DEFAULT_POLICY,
        screenshots: bool = True,
        first_index: int = 1,
        key_prefix: str = "smart",
    ) -> None:
        self.model = model
        self.dispatch = dispatcher
        self.clock = clock
        self.kind = kind
        self.provenance = provenance
        self.request = request
        self.steps = tuple(steps)
        self.prices = prices or PriceTable()
        self.budget = budget or Budget()
        self.policy = policy
        self.screenshots = screenshots
        self.history: list[str] = []
        self.path: list[Step] = []
        self.reports: list[StepReport] = []
        self.refusals: list[str] = []
        self.calls = 0
        self.usage = Usage()
        self.cost = Cost()
        self._next_index = first_index
        self._invalid = 0
        #: The effect ledger's key of each action is ``<key_prefix>-<step>`` (``smart-3``).
        self.key_prefix = key_prefix

    async def run(self) -> AgentResult:
        """Run turns until the model says done or blocked, or a budget or failure stops it."""
        began = self.clock.now()
        try:
            screen = await self.settled_screen()
            while True:
                stop = self._over_budget(began)
                if stop is not None:
                    return self._result(AgentStop.BUDGET, stop)
                remaining = began + self.budget.max_seconds - self.clock.now()
                latest = [screen]
                try:
                    decision = await asyncio.wait_for(self.ask_while_reading(screen, latest), timeout=remaining)
                except TimeoutError:
                    return self._result(AgentStop.BUDGET, f"the time budget of {self.budget.max_seconds:g} s is spent")
                if decision.kind is DecisionKind.DONE:
                    return self._result(AgentStop.DONE, decision.reason)
                if decision.kind is DecisionKind.BLOCKED:
                    return self._result(AgentStop.BLOCKED, decision.reason or "the model says it is blocked")
                screen = await self.act_turn(screen, decision.actions, latest=latest[-1])
                if self._invalid > self.budget.max_invalid:
                    return self._result(
                        AgentStop.MODEL,
                        f"the model gave invalid actions {self._invalid} times; the last: {self.history[-1]}",
                    )
        except ModelError as exc:
            return self._result(AgentStop.MODEL, str(exc))
        except DispatchFailed as exc:
            stop = AgentStop.UNKNOWN_OUTCOME if exc.failure is Failure.UNKNOWN_OUTCOME else AgentStop.DEVICE
            return self._result(stop, exc.message)

    # -- one turn --------------------------------------------------------------------------

    async def ask(self, screen: Screen, *, recorded: Sequence[Step] = (), request: str | None = None) -> Decision:
        """Build the prompt for ``screen``, call the model once, and account for the call."""
        rows, _ids = screen_rows(screen)
        shot = None
        if self.screenshots and isinstance(self.dispatch.device, Screenshots):
            shot = await self.dispatch.device.screenshot()
        prompt = Prompt(
            system=SYSTEM_PROMPT,
            request=request or self.request,
            history=tuple(self.history),
            screen=rows,
            tool_schema=ACTION_TOOL,
            screenshot=shot,
            steps=self.steps,
            recorded=tuple(recorded),
        )
        self.calls += 1
        decision = await self.model.decide(prompt)
        self.usage = Usage(
            self.usage.input_tokens + decision.usage.input_tokens,
            self.usage.output_tokens + decision.usage.output_tokens,
            self.usage.cached_tokens + decision.usage.cached_tokens,
            self.usage.estimated or decision.usage.estimated,
        )
        self.cost = self.cost + self.prices.cost(self.model.name, decision.usage)
        return decision

    async def act_turn(self, screen: Screen, actions: Sequence[ModelAction], *, latest: Screen | None = None) -> Screen:
        """Validate and send one turn's actions; return the settled screen after them.

        The model decided on ``screen``; the phone may have moved while it thought (``latest`` is
        a newer read, when the caller has one: the heal's watcher reads while the model thinks).
        Each action's target is found again on the newest read (same role and label, the recorded
        path breaking a tie); a target that is gone drops the rest of the turn, and the model is
        asked again.
        """
        seen = screen  # the screen the model saw: its row ids name elements of this read
        _rows, ids = screen_rows(seen)
        now = latest or seen
        for n, wanted in enumerate(actions):
            element = None
            if wanted.target is not None and now.fingerprint != seen.fingerprint:
                old = _element(seen, ids, wanted.target)
                element = None if old is None else _relocate(seen, now, old)
                if old is not None and element is None:
                    self.history.append("(the screen changed, so the rest of that turn was not done)")
                    return now
            try:
                action = self._validate(seen if element is None else now, ids, wanted, element)
            except _Invalid as exc:
                self._invalid += 1
                self.history.append(f"Not done: action {n + 1}: {exc}")
                break
            if not await self.send(now, action):
                break
            now = await self.after_action(now)
        return now

    async def send(self, screen: Screen, action: Action) -> bool:
        """Apply safety, record, journal and send one valid action; False when it was refused."""
        element = action.element
        label = None if element is None else element.label
        said = describe_action(action.op, label, action.text if action.op is not Op.TYPE else "…")
        commit = classify(element.label, element.role) if element is not None else None
        safety = check_commit(commit, self.kind)
        index = self._next_index
        key = f"{self.key_prefix}-{index}"
        if not safety.allowed:
            note = f"{said} was refused: {safety.rule}"
            self.refusals.append(note)
            self.dispatch.refused(key, note)
            self.history.append(f"Refused: {note}. It was not sent; try another way if there is one.")
            return False
        step = self._record(screen, action, commit)
        await self.dispatch.send(key, f"step {index} ({step.describe()})", action, {"step": index, "source": "smart"})
        self._next_index += 1
        self.path.append(step)
        self.reports.append(StepReport(index, step.op, step.describe(), StepSource.SMART, 0.0, None, settled=True))
        self.history.append(f"{step.describe() if not step.live else said}: done")
        return True

    async def ask_while_reading(
        self, screen: Screen, latest: list[Screen], *, recorded: Sequence[Step] = (), request: str | None = None
    ) -> Decision:
        """:meth:`ask`, while reading the screen every poll interval into ``latest`` (Rule 6).

        The actions it decides on are then checked against a read at most one interval old, at no
        cost in time: pass ``latest[-1]`` to :meth:`act_turn`.
        """

        async def read() -> Screen:
            latest[:] = [await self.dispatch.read()]
            return latest[0]

        async def keep_reading() -> None:
            try:
                await drive(WatchWait(Sighting.first(self.clock.now(), screen), _never, self.policy), self.clock, read)
            except DispatchFailed:
                return  # a failing read here changes nothing: the action is checked again anyway

        reader = asyncio.ensure_future(keep_reading())
        try:
            # The answer is used the moment it comes: a read still in flight is dropped, not awaited.
            return await self.ask(screen, recorded=recorded, request=request)
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    def renumber(self, index: int) -> None:
        """Number the next action as step ``index`` (a heal's first action is the healed step's)."""
        self._next_index = index

    async def settled_screen(self) -> Screen:
        """Read until two reads in a row agree, or ``give_up_after`` passes (the last read wins)."""
        return (await drive(SettleWait(self.policy), self.clock, self.dispatch.read)).screen

    async def after_action(self, before: Screen) -> Screen:
        """Rule 6: wait for the screen to change (bounded), then for it to settle."""
        return (await drive(ChangeWait(before.fingerprint, self.policy), self.clock, self.dispatch.read)).screen

    # -- rules -----------------------------------------------------------------------------

    def _validate(self, screen: Screen, ids: dict[str, int], wanted: ModelAction, element: Element | None) -> Action:
        op = wanted.op
        if element is None and wanted.target is not None:
            element = _element(screen, ids, wanted.target)
            if element is None:
                raise _Invalid(f"{wanted.target} is not a row of the current screen")
        if op.needs_target and element is None:
            raise _Invalid(f"{op} needs a target row")
        if op in (Op.TYPE, Op.LAUNCH_APP, Op.OPEN_URL) and not wanted.text:
            raise _Invalid(f"{op} needs text")
        if op.is_global or op is Op.SUBMIT:
            element = None
        text = wanted.text if op in (Op.TYPE, Op.LAUNCH_APP, Op.OPEN_URL) else None
        if element is not None and not op.takes_target:
            element = None
        return Action(op, element=element, text=text)

    def _record(self, screen: Screen, action: Action, commit: object) -> Step:
        e = action.element
        target = None
        if e is not None:
            # An unlabelled element can't be found again by the matcher: keep its role as label.
            label = e.label or e.identifier or e.role
            count, nth = position(screen, e, label)
            target = {"label": label, "role": e.role, "id": e.path, "frame": list(e.frame), "count": count, "nth": nth}
        text, live = action.text, False
        if action.op is Op.TYPE and e is not None and action.text is not None:
            kept = record_text(
                action.text, role=e.role, label=e.label, identifier=e.identifier, provenance=self.provenance
            )
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

    def _over_budget(self, began: float) -> str | None:
        b = self.budget
        if self.cost.usd >= b.max_usd:
            return f"the model budget of ${b.max_usd:.2f} is spent (${self.cost.usd:.2f})"
        if self.clock.now() - began >= b.max_seconds:
            return f"the time budget of {b.max_seconds:g} s is spent"
        if self.calls >= b.max_turns:
            return f"the model had {b.max_turns} turns and the check isn't done"
        return None

    def _result(self, stop: AgentStop, message: str) -> AgentResult:
        return AgentResult(
            stop,
            tuple(self.path),
            tuple(self.reports),
            self.calls,
            self.usage,
            self.cost,
            message,
            tuple(self.refusals),
        )


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
