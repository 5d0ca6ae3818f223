"""The heal circuit breaker: healing may never rewrite most of a check.

Rule 1: every action the model takes in a heal is one healed step; heals pending review from
        earlier runs count too.
Rule 2: a heal may not make more than half of the recorded steps healed: before a heal starts and
        before every model action in it, the breaker asks "would one more healed step cross half?".
Rule 3: the breaker is pure and immutable: ``record()`` returns a new breaker.
Rule 4: a heal inside a part of a path (a flow's segment) is counted twice: against the whole
        path and against the part (``within``); either one refuses it.
"""

from __future__ import annotations

import attrs

__all__ = ["Breaker"]


@attrs.frozen
class Breaker:
    """How many steps are healed, out of how many recorded (see the module rules)."""

    recorded: int = attrs.field(validator=attrs.validators.ge(0))
    pending: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    healed: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    #: Rule 4: the part of the path the heal is in (a flow's segment), counted on its own; None: none.
    within: Breaker | None = None
    #: What the part is, in words (``the flow login``), for the message.
    part: str = "a check"

    @property
    def total_healed(self) -> int:
        """Healed in this run plus pending from earlier runs."""
        return self.pending + self.healed

    def allows_one_more(self) -> bool:
        """Rules 2 and 4: would one more healed step keep the healed steps at half or fewer (of the part too)?"""
        return 2 * (self.total_healed + 1) <= self.recorded and (self.within is None or self.within.allows_one_more())

    def record(self, actions: int = 1) -> Breaker:
        """Rule 3: a breaker with ``actions`` more healed steps."""
        within = None if self.within is None else self.within.record(actions)
        return attrs.evolve(self, healed=self.healed + actions, within=within)

    def message(self, step: int) -> str:
        """Why the breaker stops a heal at ``step`` (counted from 1)."""
        inner = self.within
        if inner is not None and not inner.allows_one_more() and 2 * (self.total_healed + 1) <= self.recorded:
            return (
                f"healing step {step} would make {inner.total_healed + 1} of the {inner.recorded} recorded steps of "
                f"{inner.part} healed; the most a heal may change is half of it"
            )
        would = self.total_healed + 1
        return (
            f"healing step {step} would make {would} of {self.recorded} recorded steps healed; "
            "the most a heal may change is half of a check"
        )
