"""How a run ends early: one exception that carries the outcome the check will report.

Rule 1: a failure is made once, where it happens (the dispatcher, the replay, the agent, the heal,
        the preparation), as the :class:`~mobster_core._rules.verdict.verdict.Outcome` the check reports:
        its verdict, class and message. :class:`Ended` carries it, unchanged, to the boundary of
        the phase it happened in, which returns it as a value beside what the phase did.
Rule 2: nothing re-labels an outcome on its way up: no table maps one kind of stop to another.
Rule 3: where it is made, an outcome says the step it happened at (``step``, when it happened at
        one) and what to do about it (``fix``), as values: the message names no front end's option.
"""

from __future__ import annotations

from mobster_core._rules.verdict.fixes import Fix
from mobster_core._rules.verdict.verdict import FailureClass, Outcome, Verdict

__all__ = ["Ended", "couldnt", "failed"]


class Ended(Exception):
    """The run can't go on: ``outcome`` is how the check ends (see the module rules)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def couldnt(failure: FailureClass, message: str, *, step: int | None = None, fix: Fix | None = None) -> Ended:
    """``couldnt_run`` with ``failure``: the run couldn't be carried out (Rule 3: at ``step``, ``fix``)."""
    return Ended(Outcome(Verdict.COULDNT_RUN, failure, message, step=step, fix=fix))


def failed(failure: FailureClass, message: str, *, step: int | None = None, fix: Fix | None = None) -> Ended:
    """``failed`` with ``failure``: the app under test did something the check doesn't allow (Rule 3)."""
    return Ended(Outcome(Verdict.FAILED, failure, message, step=step, fix=fix))
