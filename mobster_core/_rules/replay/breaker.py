"""The heal circuit breaker: healing may never rewrite most of a check.

Rule 1: every action the model takes in a heal is one healed step; heals pending review from
        earlier runs count too.
Rule 2: a heal may not make more than half of the recorded steps healed: before a heal starts and
        before every model action in it, the breaker asks "would one more healed step cross half?".
Rule 3: the breaker is pure and immutable: ``record()`` returns a new breaker.
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

    @property
    def total_healed(self) -> int:
        """Healed in this run plus pending from earlier runs."""
        return self.pending + self.healed

    def allows_one_more(self) -> bool:
        """Rule 2: would one more healed step keep the healed steps at half or fewer?"""
        return 2 * (self.total_healed + 1) <= self.recorded

    def record(self, actions: int = 1) -> Breaker:
        """Rule 3: a breaker with ``actions`` more healed steps."""
        return attrs.evolve(self, healed=self.healed + actions)

    def message(self, step: int) -> str:
        """Why the breaker stops a heal at ``step`` (counted from 1)."""
        would = self.total_healed + 1
        return (
            f"healing step {step} would make {would} of {self.recorded} recorded steps healed; "
            "the most a heal may change is half of a check"
        )
