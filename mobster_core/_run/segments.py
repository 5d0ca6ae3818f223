"""The parts of a path as a run changes them: where each part's actions are, heal by heal.

Rule 1: a path that replays in parts (``plan`` Rule 7) starts with each part's recorded actions in
        order. A heal at action ``s`` that stood in for ``k`` actions with ``n`` belongs to the part
        holding action ``s``: that part gains ``n`` and loses the actions of its own the heal
        stood in for; actions it stood in for past the part's end (a lookahead into the next part)
        are the next parts' losses.
Rule 2: a heal's entry is numbered within its part (``step`` from 1 in the part's own path), so a
        flow's heal file and heal state read the same whichever check healed it.
Rule 3: the breaker of a heal in a part counts the part's recorded actions and the heals it
        already holds (pending from earlier runs, and this run's): ``breaker`` Rule 4.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from mobster_core._rules.replay.breaker import Breaker
from mobster_core._store.healfile import HealEntry

from .plan import Plan

__all__ = ["Segments"]


@attrs.frozen
class Segments:
    """The replayed parts' sizes (actions), their recorded sizes, pending heals and names (Rule 1)."""

    sizes: tuple[int, ...] = ()
    pending: tuple[int, ...] = ()
    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, plan: Plan) -> Segments:
        """The parts the plan replays, as recorded."""
        found = plan.parts[: plan.replayed_parts]
        sizes = tuple(0 if p.path is None else len(p.path) for p in found)
        names = tuple(f"the flow {p.part.flow}" if p.part.flow else "the check's own steps" for p in found)
        return cls(sizes, tuple(p.pending for p in found), names)

    def after(self, heals: Sequence[HealEntry]) -> tuple[list[int], list[tuple[int, HealEntry]]]:
        """Rules 1, 2: each part's size after ``heals`` (in the order made), and each heal's part and entry in it."""
        sizes = list(self.sizes)
        placed: list[tuple[int, HealEntry]] = []
        for heal in heals:
            start = 0
            part = len(sizes) - 1
            for i, size in enumerate(sizes):
                if heal.step <= start + size:
                    part = i
                    break
                start += size
            else:
                start = sum(sizes[:-1])
            if not sizes:
                break
            placed.append((part, attrs.evolve(heal, step=heal.step - start)))
            left = len(heal.old)
            own = min(left, start + sizes[part] - heal.step + 1)
            sizes[part] += len(heal.new) - own
            left -= own
            nxt = part + 1
            while left > 0 and nxt < len(sizes):
                taken = min(left, sizes[nxt])
                sizes[nxt] -= taken
                left -= taken
                nxt += 1
        return sizes, placed

    def breaker(self, at: int, heals: Sequence[HealEntry]) -> Breaker | None:
        """Rule 3: the part's own breaker for a heal of action ``at`` (None when the path is one part)."""
        if len(self.sizes) < 1 or not self.names:
            return None
        sizes, placed = self.after(heals)
        start = 0
        for i, size in enumerate(sizes):
            if at <= start + size or i == len(sizes) - 1:
                healed = sum(len(e.new) for p, e in placed if p == i)
                return Breaker(recorded=self.sizes[i], pending=self.pending[i], healed=healed, part=self.names[i])
            start += size
        return None
