"""Every timing rule of the SDK, as pure policies: no clock, no device.

A *wait* is a frozen value that says what it waits for and with which timing; its state is a
frozen value too. The one wait loop (``mobster_core/_run/wait.py``) asks ``next(state, now)`` what
to do (read now, sleep until a time, check a target, or stop with a result), carries it out, and
folds in what it saw (``saw``, ``checked``). All times are clock seconds.

Rule 1 (spacing): reads start ``interval`` (0.15 s) apart: the next read starts 0.15 s after the
        previous one started, or at once if that read took longer.
Rule 2 (settled): the screen is *settled* when the last two reads agree (equal read fingerprints).
Rule 3 (a step's wait, :class:`StepWait`): a step whose match never comes has *drifted* once the
        screen is settled and ``drift_after`` (1.0 s) has passed since the wait for this step
        began, or once ``give_up_after`` (3.0 s) has passed (a screen that never stops changing).
        A wait that starts on a read taken before it began (the first step, on the baseline's last
        read; a step the replay resumes at after a heal) counts from when that read's screen first
        appeared, when that was earlier: the screen has been in front that long. A match is acted
        on at once; when its target is an element, the device is asked first whether it is shown
        (a hidden target is no match on that read), and a target the keyboard covers is no match
        either (``_rules/keyboard``).
Rule 4: waiting longer changes nothing, so no wait sleeps past the moment one of its rules decides.
Rule 5 (the settled read, :class:`SettledReadWait`; the verdict and the baseline): read, wait
        ``settle_gap`` (0.3 s), read again. When two reads in a row agree (and the caller's
        ``accept`` holds on the last) that read decides, stable. Otherwise read every ``interval``
        (0.5 s) until ``timeout`` (5 s) after the first read; the last read, taken at the timeout,
        decides, and ``stable`` says whether it agreed with the one before. The baseline is the
        same with :data:`BASELINE_POLICY`: every 0.3 s for at most 3 s.
Rule 5a (how a settled read opens, :class:`Opening`): after an action no read has seen yet (a
        replay's last step), reads come at the poll cadence (0.15 s, Rule 1) until one shows a
        screen other than the one the action was sent on on which ``accept`` holds: that read is
        Rule 5's first read (the next one ``settle_gap`` after it). Rule 5's timeout counts from
        the first read that showed another screen. A screen that stays the one the action was
        sent on for ``settle_gap`` (every read over 0.3 s agreeing) changed nothing, and another
        screen that stays for ``settle_gap`` without ``accept`` holding has settled: those reads
        are Rule 5's two that agree, and Rule 5 goes on from them. A first read on which ``alone``
        holds decides alone, not stable (the baseline's: the app is in front and an expectation
        fails on it, so no later read could make the check ``needs_review``).
Rule 6 (Smart's settled screen, :class:`SettleWait`): read until two reads agree, or until
        ``give_up_after`` passed (the last read wins).
Rule 7 (after an action, :class:`ChangeWait`): read until the screen differs from the one the
        action was sent on, for at most ``give_up_after`` (a tap that changes nothing), then wait
        for it to settle (Rule 6), starting on the first changed read. With ``watch`` (a heal),
        every read from there on is given to ``watch`` first, with its settle state: the first
        answer that isn't None ends the wait.
Rule 8 (typing, :class:`TypingWait`): read the field until it holds the typed text (a secure field
        shows one more bullet per character), reads spaced as Rule 1, for at most ``drift_after``.
Rule 9 (the heal's watch, :class:`WatchWait`): read as Rule 1 until ``watch`` answers; it never
        gives up by itself (the heal cancels it when the model answers first). With ``slowest``
        (the heal's :data:`WATCH_SLOWEST`, 1.0 s), each read that agrees with the one before
        doubles the gap to the next read, up to ``slowest``, and a read that shows another screen
        brings it back to ``interval``: on a phone that serves one request at a time, a read still
        in flight when the model answers holds the healed action until it ends, and a read every
        0.15 s of a screen that stays the same is mostly that waste (docs/benchmarks.md §1).
Rule 10: times are compared with a nanosecond of slack, so a wake-up scheduled for a deadline is at
        that deadline even when float arithmetic lands a hair before it.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from typing import Generic, NoReturn, Protocol, TypeVar

import attrs

from mobster_core._rules.device.keyboard import covered_by_keyboard, covers_reason
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Step

from .matcher import Match, MatchRule, match_step

__all__ = [
    "BASELINE_POLICY",
    "BULLET",
    "DEFAULT_POLICY",
    "DEFAULT_READ_POLICY",
    "WATCH_SLOWEST",
    "ChangeWait",
    "Changed",
    "Check",
    "Done",
    "Drifted",
    "Found",
    "Move",
    "Opening",
    "PollDecision",
    "PollPolicy",
    "PollVerdict",
    "Read",
    "ReadPolicy",
    "SettleWait",
    "SettledRead",
    "SettledReadWait",
    "Sighting",
    "Sleep",
    "StepWait",
    "TypingWait",
    "Wait",
    "WaitState",
    "WatchWait",
]

_SLACK = 1e-9
#: What a secure field shows for each typed character.
BULLET = "\u2022"

S = TypeVar("S")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


# -- what a wait asks the loop to do ----------------------------------------------------------


@attrs.frozen
class Read:
    """Read the screen now."""


@attrs.frozen
class Sleep:
    """Sleep until ``until`` (clock seconds)."""

    until: float


@attrs.frozen
class Check:
    """Ask the device whether ``element`` (of the latest read) is shown."""

    element: Element


@attrs.frozen
class Done(Generic[R_co]):
    """Stop: ``result`` is the wait's answer."""

    result: R_co


Move = Read | Sleep | Check | Done[R]

_READ = Read()


class Wait(Protocol[S, R_co]):
    """**Protocol:** a pure wait the loop drives (see the module docstring)."""

    def start(self, now: float, /) -> S:
        """The state of a wait that begins at ``now``."""
        ...

    def next(self, state: S, now: float, /) -> Move[R_co]:
        """What to do now."""
        ...

    def saw(self, state: S, started: float, screen: Screen, /) -> S:
        """Fold in a read that started at ``started`` and returned ``screen``."""
        ...

    def checked(self, state: S, shown: bool, /) -> S:
        """Fold in the device's answer to the last :class:`Check`."""
        ...


class _NoChecks:
    """A wait that never asks for a target check."""

    def checked(self, _state: object, _shown: bool, /) -> NoReturn:
        """Never called: the wait never asks for a check."""
        raise AssertionError(f"{type(self).__name__} never asks for a target check")


@attrs.frozen
class Sighting:
    """The screen in front as the reads so far saw it.

    ``started`` is when the last read started; ``since`` when the first read that returned this
    screen (the same read fingerprint) started; ``settled`` that the last two reads agreed.
    """

    screen: Screen
    started: float
    since: float
    settled: bool = False

    @classmethod
    def first(cls, started: float, screen: Screen) -> Sighting:
        """The sighting of a first read."""
        return cls(screen, started, started)

    def then(self, started: float, screen: Screen) -> Sighting:
        """The sighting after one more read (Rule 2)."""
        same = screen.fingerprint == self.screen.fingerprint
        return Sighting(screen, started, self.since if same else started, same)


def _sighted(sighting: Sighting | None, started: float, screen: Screen) -> Sighting:
    return Sighting.first(started, screen) if sighting is None else sighting.then(started, screen)


def _at(until: float, now: float) -> Read | Sleep:
    """Read now when ``until`` has come (Rule 10), else sleep until it."""
    return _READ if until <= now + _SLACK else Sleep(until)


# -- a step's wait: poll and drift (Rules 1-4) ---------------------------------------------------


class PollVerdict(enum.StrEnum):
    """What the runner does next in a step's wait."""

    READ = "read"
    SLEEP = "sleep"
    DRIFTED = "drifted"


@attrs.frozen
class PollDecision:
    """``READ`` now; ``SLEEP`` until ``until`` (clock seconds); or ``DRIFTED`` with a reason."""

    verdict: PollVerdict
    until: float = 0.0
    why: str = ""


@attrs.frozen
class WaitState:
    """What the wait for one step has seen so far. Immutable: ``observe`` returns a new state.

    ``since`` is when the first read of the screen in front (the last read's fingerprint) started.
    """

    began: float
    reads: int = 0
    last_read_started: float | None = None
    last_fingerprint: str | None = None
    settled: bool = False
    since: float | None = None

    @property
    def origin(self) -> float:
        """Where Rule 3's timer runs from: the wait's start, or when the screen in front appeared if earlier."""
        return self.began if self.since is None else min(self.began, self.since)

    def observe(self, *, started: float, fingerprint: str) -> WaitState:
        """Fold in one read that started at ``started`` (clock seconds)."""
        same = self.last_fingerprint == fingerprint
        return WaitState(
            began=self.began,
            reads=self.reads + 1,
            last_read_started=started,
            last_fingerprint=fingerprint,
            settled=same,
            since=self.since if same else started,
        )


@attrs.frozen
class PollPolicy:
    """The timing of a step's wait and of Smart's waits, in seconds. The defaults: 0.15, 1.0 and 3.0 s."""

    interval: float = attrs.field(default=0.15, validator=attrs.validators.gt(0))
    drift_after: float = attrs.field(default=1.0, validator=attrs.validators.ge(0))
    give_up_after: float = attrs.field(default=3.0, validator=attrs.validators.ge(0))

    def start(self, now: float, seed: Sighting | None = None) -> WaitState:
        """A new wait that begins at ``now``; with ``seed``, on a read taken before it (Rule 3)."""
        if seed is None:
            return WaitState(began=now)
        fingerprint = seed.screen.fingerprint
        return WaitState(now, 1, seed.started, fingerprint, settled=seed.settled, since=seed.since)

    def next(self, state: WaitState, now: float) -> PollDecision:
        """Decide what to do before the next read (Rules 1, 3, 4, 10)."""
        origin = state.origin
        settled_deadline = origin + self.drift_after if state.settled else math.inf
        give_up_deadline = origin + self.give_up_after if state.reads > 0 else math.inf
        if now + _SLACK >= settled_deadline:
            return PollDecision(PollVerdict.DRIFTED, why=f"the screen settled and {self.drift_after:g} s passed")
        if now + _SLACK >= give_up_deadline:
            return PollDecision(PollVerdict.DRIFTED, why=f"the screen kept changing for {self.give_up_after:g} s")
        if state.last_read_started is None:
            return PollDecision(PollVerdict.READ)
        next_read = state.last_read_started + self.interval
        if next_read <= now + _SLACK:
            return PollDecision(PollVerdict.READ)
        return PollDecision(PollVerdict.SLEEP, until=min(next_read, settled_deadline, give_up_deadline))


DEFAULT_POLICY = PollPolicy()


@attrs.frozen
class Found:
    """A step's match: act on ``match.element`` as it is on ``screen`` now."""

    screen: Screen
    match: Match
    waited: float
    settled: bool


@attrs.frozen
class Drifted:
    """A step that didn't match (Rule 3): the last read and why, in the matcher's words."""

    screen: Screen
    match: Match
    waited: float
    settled: bool

    @property
    def reason(self) -> str:
        """The matcher's reason for the last read."""
        return self.match.reason or "the step didn't match"


@attrs.frozen
class StepState:
    """A step's wait so far: the timing state, the last read and its match, a check in flight."""

    timing: WaitState
    screen: Screen | None = None
    match: Match | None = None
    checking: bool = False


@attrs.frozen
class StepWait:
    """Rule 3: wait for ``step`` to match, with ``policy``'s timing; ``seed`` is a read to start on."""

    step: Step
    policy: PollPolicy = DEFAULT_POLICY
    seed: Sighting | None = None

    def start(self, now: float) -> StepState:
        """A wait that begins at ``now``, on the seed's read when there is one (matched at once)."""
        timing = self.policy.start(now, self.seed)
        if self.seed is None:
            return StepState(timing)
        match = uncovered(match_step(self.step, self.seed.screen, settled=self.seed.settled), self.seed.screen)
        return StepState(timing, self.seed.screen, match, checking=match.ok and match.element is not None)

    def next(self, state: StepState, now: float) -> Move[Found | Drifted]:
        """Check a matched target, act on a match, or poll (Rules 1, 3, 4)."""
        match, screen = state.match, state.screen
        if state.checking and match is not None and match.element is not None:
            return Check(match.element)
        waited = now - state.timing.began
        if match is not None and screen is not None and match.ok:
            return Done(Found(screen, match, waited, state.timing.settled))
        decision = self.policy.next(state.timing, now)
        if decision.verdict is PollVerdict.DRIFTED:
            # A read always comes before a drift (the policy reads first), so both are set.
            assert match is not None
            assert screen is not None
            return Done(Drifted(screen, match, waited, state.timing.settled))
        if decision.verdict is PollVerdict.SLEEP:
            return Sleep(decision.until)
        return _READ

    def saw(self, state: StepState, started: float, screen: Screen) -> StepState:
        """Match the step on a new read (with the settle state)."""
        timing = state.timing.observe(started=started, fingerprint=screen.fingerprint)
        match = uncovered(match_step(self.step, screen, settled=timing.settled), screen)
        return StepState(timing, screen, match, checking=match.ok and match.element is not None)

    def checked(self, state: StepState, shown: bool) -> StepState:
        """Rule 3: a target the device says is hidden is no match on that read."""
        match = state.match
        assert match is not None
        if not shown and match.element is not None:
            element = match.element
            label = element.label or f"{element.role} at {element.path}"
            reason = f'"{label}" is in the tree but hidden: the device says it isn\'t visible'
            match = attrs.evolve(match, ok=False, reason=reason, rule=MatchRule.TARGET)
        return attrs.evolve(state, match=match, checking=False)


def uncovered(match: Match, screen: Screen) -> Match:
    """Rule 3: a match whose target the keyboard covers is no match (``_rules/keyboard``)."""
    element = match.element
    if not match.ok or element is None or not covered_by_keyboard(screen, element):
        return match
    return attrs.evolve(match, ok=False, reason=covers_reason(element), rule=MatchRule.TARGET)


# -- the settled read: the verdict and the baseline (Rule 5) -----------------------------------


@attrs.frozen
class ReadPolicy:
    """The timing of a settled read, in seconds (Rule 5). The defaults: 0.3, 0.5 and 5 s."""

    settle_gap: float = attrs.field(default=0.3, validator=attrs.validators.gt(0))
    interval: float = attrs.field(default=0.5, validator=attrs.validators.gt(0))
    timeout: float = attrs.field(default=5.0, validator=attrs.validators.ge(0))


#: The settled read after the steps: 0.3 s to settle, then every 0.5 s up to 5 s.
DEFAULT_READ_POLICY = ReadPolicy()
#: The baseline before the first step: every 0.3 s for at most 3 s.
BASELINE_POLICY = ReadPolicy(settle_gap=0.3, interval=0.3, timeout=3.0)


@attrs.frozen
class SettledRead:
    """The read that decides: the screen, whether it was settled, how many reads, how long (s).

    ``sighting`` is the last read as a sighting, for a wait that starts on it.
    """

    screen: Screen
    stable: bool
    reads: int
    seconds: float
    sighting: Sighting


@attrs.frozen
class Opening:
    """How a settled read opens (Rule 5a): after an action no read has seen yet, or on a read that decides alone.

    ``after`` is the read fingerprint of the screen the last action was sent on: reads come at
    ``poll``'s cadence (its ``interval``, 0.15 s) while they still show it.
    ``alone`` says of a first read that it decides alone (the baseline: the app in front and an
    expectation that fails on it).
    """

    after: str | None = None
    poll: PollPolicy = DEFAULT_POLICY
    alone: Callable[[Screen], bool] | None = attrs.field(default=None, eq=False)


_PLAIN_OPENING = Opening()


@attrs.frozen
class ReadState:
    """A settled read so far.

    ``began`` is when the wait began; ``first`` when Rule 5's timeout starts counting (None while
    Rule 5a's fast reads go on); ``changed`` when the first read that showed a screen other than the
    one the last action was sent on started (Rule 5a); ``reads`` the reads Rule 5 counts,
    ``total`` all of them; ``alone`` that the first read decides alone.
    """

    began: float
    reads: int = 0
    sighting: Sighting | None = None
    accepted: bool = False
    first: float | None = None
    total: int = 0
    alone: bool = False
    changed: float | None = None


@attrs.frozen
class SettledReadWait(_NoChecks):
    """Rules 5 and 5a: the settled read, with ``policy``'s timing, the caller's ``accept`` and its ``opening``."""

    policy: ReadPolicy = DEFAULT_READ_POLICY
    accept: Callable[[Screen], bool] | None = attrs.field(default=None, eq=False)
    opening: Opening = _PLAIN_OPENING

    def start(self, now: float) -> ReadState:
        """A settled read that begins at ``now``."""
        return ReadState(began=now, first=None if self.opening.after is not None else now)

    def next(self, state: ReadState, now: float) -> Move[SettledRead]:
        """Read, sleep, or decide (Rules 5 and 5a)."""
        seen = state.sighting
        if seen is None:
            return _READ
        if state.alone:
            return self._done(state, now, stable=False)
        if state.first is None:  # Rule 5a: the action's effect isn't on the screen yet
            return self._opening_next(state, seen, now)
        if seen.settled and state.accepted:
            return self._done(state, now, stable=True)
        deadline = state.first + self.policy.timeout
        if state.reads >= 2 and seen.started + _SLACK >= deadline:
            return self._done(state, now, stable=seen.settled)
        if state.reads == 1:
            at = seen.started + self.policy.settle_gap
        else:  # the last read is taken at the deadline, not after it
            at = min(seen.started + self.policy.interval, deadline)
        return _at(at, now)

    def _opening_next(self, state: ReadState, seen: Sighting, now: float) -> Move[SettledRead]:
        """Rule 5a: the next fast read, or the timeout (counted from the first read of another screen)."""
        if state.changed is not None and seen.started + _SLACK >= state.changed + self.policy.timeout:
            return self._done(state, now, stable=seen.settled)
        return _at(seen.started + self.opening.poll.interval, now)

    def saw(self, state: ReadState, started: float, screen: Screen) -> ReadState:
        """Fold in a read; ``accept`` is asked of every read."""
        accepted = True if self.accept is None else self.accept(screen)
        opening = self.opening
        total = state.total + 1
        if state.first is None:
            seen = _sighted(state.sighting, started, screen)
            changed = state.changed
            if changed is None and screen.fingerprint != opening.after:
                changed = started  # Rule 5a: the first read of another screen; the timeout counts from it
            if changed is not None and accepted:  # Rule 5 starts on this read
                sighting = Sighting.first(started, screen)
                return ReadState(state.began, 1, sighting, accepted, changed, total, changed=changed)
            if seen.started - seen.since + _SLACK >= self.policy.settle_gap:
                # Nothing changed, or another screen settled without ``accept``: Rule 5's two that agree.
                first = seen.since if changed is None else changed
                return ReadState(state.began, 2, seen, accepted, first, total, changed=changed)
            return attrs.evolve(state, sighting=seen, accepted=accepted, total=total, changed=changed)
        alone = state.reads == 0 and opening.alone is not None and opening.alone(screen)
        sighting = _sighted(state.sighting, started, screen)
        return ReadState(state.began, state.reads + 1, sighting, accepted, state.first, total, alone)

    @staticmethod
    def _done(state: ReadState, now: float, *, stable: bool) -> Done[SettledRead]:
        seen = state.sighting
        assert seen is not None
        return Done(SettledRead(seen.screen, stable, state.total, now - state.began, seen))


# -- Smart's settled screen (Rule 6) and the wait after an action (Rule 7) ----------------------


@attrs.frozen
class SettleState:
    """Smart's waits so far: the timing state and the last sighting."""

    timing: WaitState
    sighting: Sighting | None = None


@attrs.frozen
class SettleWait(_NoChecks):
    """Rule 6: read until two reads agree, or ``give_up_after`` passed (the last read wins).

    ``seed`` is a read to start on: a settled one ends the wait at once.
    """

    policy: PollPolicy = DEFAULT_POLICY
    seed: Sighting | None = None

    def start(self, now: float) -> SettleState:
        """A wait that begins at ``now``, on the seed's read when there is one."""
        return SettleState(self.policy.start(now, self.seed), self.seed)

    def next(self, state: SettleState, now: float) -> Move[Sighting]:
        """Stop on a settled screen, or when the policy gives up; else poll (Rule 1)."""
        seen = state.sighting
        if seen is not None and seen.settled:
            return Done(seen)
        decision = self.policy.next(state.timing, now)
        if decision.verdict is PollVerdict.DRIFTED and seen is not None:
            return Done(seen)
        if decision.verdict is PollVerdict.SLEEP:
            return Sleep(decision.until)
        return _READ

    def saw(self, state: SettleState, started: float, screen: Screen) -> SettleState:
        """Fold in a read."""
        timing = state.timing.observe(started=started, fingerprint=screen.fingerprint)
        return SettleState(timing, _sighted(state.sighting, started, screen))


#: Given a read and its settle state: None to go on, or the answer that ends the wait.
Watch = Callable[[Sighting], R | None]


@attrs.frozen
class ChangeState(Generic[R]):
    """The wait after an action: when it began, the last read, the settle wait once it began, and an answer."""

    began: float
    sighting: Sighting | None = None
    settle: SettleState | None = None
    answer: R | None = None


@attrs.frozen
class Changed(Generic[R]):
    """The end of the wait after an action: the last read, and the watch's answer when it gave one."""

    sighting: Sighting
    answer: R | None = None


@attrs.frozen
class ChangeWait(_NoChecks, Generic[R]):
    """Rule 7: wait for the screen to leave ``before`` (a read fingerprint; bounded), then to settle.

    The settle wait starts on the first changed read (or, when nothing changed, on the last read).
    With ``watch``, every read from there on is given to it first, with its settle state; the
    first answer that isn't None ends the wait.
    """

    before: str
    policy: PollPolicy = DEFAULT_POLICY
    watch: Watch[R] | None = attrs.field(default=None, eq=False)

    def start(self, now: float) -> ChangeState[R]:
        """The wait after an action that returned at ``now``."""
        return ChangeState(began=now)

    def next(self, state: ChangeState[R], now: float) -> Move[Changed[R]]:
        """Read until the screen changed (Rule 7), then until it settles (Rule 6)."""
        seen = state.sighting
        if state.answer is not None and seen is not None:
            return Done(Changed(seen, state.answer))
        if state.settle is not None:
            move = SettleWait(self.policy).next(state.settle, now)
            return Done(Changed(move.result)) if isinstance(move, Done) else move
        return _READ if seen is None else _at(seen.started + self.policy.interval, now)

    def saw(self, state: ChangeState[R], started: float, screen: Screen) -> ChangeState[R]:
        """Fold in a read: of the wait for a change while the screen is unchanged and time is left."""
        seen = _sighted(state.sighting, started, screen)
        settle = state.settle
        if settle is None:
            unchanged = screen.fingerprint == self.before
            if unchanged and started - state.began < self.policy.give_up_after - _SLACK:
                return attrs.evolve(state, sighting=seen)
            # The change came (or never will): the settle wait starts on this read.
            seen = seen if unchanged else Sighting.first(started, screen)
            settle = SettleWait(self.policy, seen).start(started)
        else:
            settle = SettleWait(self.policy).saw(settle, started, screen)
            assert settle.sighting is not None
            seen = settle.sighting
        answer = None if self.watch is None else self.watch(seen)
        return ChangeState(state.began, seen, settle, answer)


# -- typing (Rule 8) -----------------------------------------------------------------------------


@attrs.frozen
class TypingState:
    """The wait for typed text: when it began, when the last read ended, what the field shows."""

    began: float
    last_started: float | None = None
    shown: str | None = None
    holds: bool = False


@attrs.frozen
class TypingWait(_NoChecks):
    """Rule 8: wait for ``field`` (as it was before typing) to hold ``text``."""

    field: Element
    text: str
    policy: PollPolicy = DEFAULT_POLICY

    def start(self, now: float) -> TypingState:
        """A wait that begins at ``now`` (when the typing returned)."""
        return TypingState(began=now)

    def next(self, state: TypingState, now: float) -> Move[str | None]:
        """None when the field holds the text; else what it shows, once ``drift_after`` passed."""
        if state.holds:
            return Done(None)
        if state.last_started is None:
            return _READ
        if now - state.began >= self.policy.drift_after - _SLACK:
            return Done(state.shown or "no such field")
        return _at(state.last_started + self.policy.interval, now)

    def saw(self, state: TypingState, started: float, screen: Screen) -> TypingState:
        """Read the field back: what it shows, and whether it holds the text."""
        field = self.field
        now_field = screen.element_at(field.path)
        value = now_field.value if now_field is not None and now_field.role == field.role else None
        secure = field.role == "SecureTextField"
        if value is None:
            return attrs.evolve(state, last_started=started, shown=None, holds=False)
        bullets = value.count(BULLET)
        holds = bullets - field.value.count(BULLET) == len(self.text) if secure else self.text in value
        shown = f"{bullets} bullets" if secure else repr(value)
        return attrs.evolve(state, last_started=started, shown=shown, holds=holds)


# -- the heal's watch (Rule 9) ---------------------------------------------------------------------


#: Rule 9: the longest gap between two of the heal's watch reads of a screen that stays the same, seconds.
WATCH_SLOWEST = 1.0


@attrs.frozen
class WatchState(Generic[R]):
    """The watch so far: the last sighting, the answer once ``watch`` gave one, the gap to the next read."""

    sighting: Sighting
    answer: R | None = None
    gap: float = 0.0


@attrs.frozen
class WatchWait(_NoChecks, Generic[R]):
    """Rule 9: read from ``sighting`` on until ``watch`` answers: every ``interval``, or slower up to ``slowest``.

    ``slowest`` None reads every ``interval`` whatever the screen does (Rule 1).
    """

    sighting: Sighting
    watch: Watch[R] = attrs.field(eq=False)
    policy: PollPolicy = DEFAULT_POLICY
    slowest: float | None = None

    def start(self, _now: float) -> WatchState[R]:
        """The watch starts on the screen the model was given: its answer comes first."""
        return WatchState(self.sighting, self.watch(self.sighting), self.policy.interval)

    def next(self, state: WatchState[R], now: float) -> Move[tuple[R, Sighting]]:
        """Stop at the first answer, with the read it came on; else read when the gap has passed."""
        if state.answer is not None:
            return Done((state.answer, state.sighting))
        return _at(state.sighting.started + state.gap, now)

    def saw(self, state: WatchState[R], started: float, screen: Screen) -> WatchState[R]:
        """Fold in a read and ask ``watch``; a read that agrees with the one before doubles the gap (Rule 9)."""
        seen = state.sighting.then(started, screen)
        interval = self.policy.interval
        slower = self.slowest is not None and seen.settled
        gap = min(max(self.slowest or interval, interval), state.gap * 2) if slower else interval
        return WatchState(seen, self.watch(seen), gap)
