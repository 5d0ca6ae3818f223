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
        either (``_rules/device/keyboard``).
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

from .after import BULLET, Changed, ChangeState, ChangeWait, SettleState, SettleWait, TypingState, TypingWait
from .moves import CheckTarget, Done, Move, Read, Sighting, Sleep, Wait, Watch
from .settled import BASELINE_POLICY, DEFAULT_READ_POLICY, Opening, ReadPolicy, ReadState, SettledRead, SettledReadWait
from .step import (
    DEFAULT_POLICY,
    Drifted,
    Found,
    Pace,
    Pacing,
    PollPolicy,
    PollState,
    StepState,
    StepWait,
    uncovered,
)
from .watch import WATCH_SLOWEST, WatchState, WatchWait

__all__ = [
    "BASELINE_POLICY",
    "BULLET",
    "DEFAULT_POLICY",
    "DEFAULT_READ_POLICY",
    "WATCH_SLOWEST",
    "ChangeState",
    "ChangeWait",
    "Changed",
    "CheckTarget",
    "Done",
    "Drifted",
    "Found",
    "Move",
    "Opening",
    "Pace",
    "Pacing",
    "PollPolicy",
    "PollState",
    "Read",
    "ReadPolicy",
    "ReadState",
    "SettleState",
    "SettleWait",
    "SettledRead",
    "SettledReadWait",
    "Sighting",
    "Sleep",
    "StepState",
    "StepWait",
    "TypingState",
    "TypingWait",
    "Wait",
    "Watch",
    "WatchState",
    "WatchWait",
    "uncovered",
]
