"""The parts of a path as a run changes them: where each part's actions are, heal by heal.

Rule 1: a path that replays in parts (``plan`` Rule 7) starts with each part's recorded actions in
        order. A heal at action ``s`` that stood in for ``k`` actions with ``n`` belongs to the part
        holding action ``s``: that part gains ``n`` and loses the actions of its own the heal
        stood in for; actions it stood in for past the part's end (a lookahead into the next part)
        are the next parts' losses.
Rule 2: a heal's entry is numbered within its part (``step`` from 1 in the part's own path), so a
        flow's heal file and heal state read the same whichever check healed it.
Rule 4: each step report of a flow's action names the flow (``flow``, its chain) and, when the
        part's actions are one a step (as Smart and most paths record them), the flow's step
        (``flow_step``); else the flow alone. A check's own actions name none.
Rule 3: the breaker of a heal in a part counts the part's recorded actions and the heals it
        already holds (pending from earlier runs, and this run's): ``breaker`` Rule 4.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from mobster_core._results.results import StepReport
from mobster_core._rules.replay.breaker import Breaker
from mobster_core._store.checks import Check
from mobster_core._store.healfile import HealEntry

from .plan import Plan

__all__ = ["Segments", "checkpoint", "part_sizes", "with_crumbs"]


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


def part_sizes(plan: Plan, heals: Sequence[HealEntry], recorded: Sequence[int]) -> list[int]:
    """Rule 1: how many actions of the path as it ran each part holds: the replayed parts', then Smart's."""
    replayed = plan.replayed_parts if plan.used else 0
    base = Segments.of(plan) if replayed else Segments()
    after, _ = base.after([h for h in heals if h.changed])
    return after[:replayed] + list(recorded)


def with_crumbs(check: Check, reports: Sequence[StepReport], sizes: Sequence[int]) -> tuple[StepReport, ...]:
    """Rule 4: the reports, each of a flow's action naming the flow and its step."""
    parts = check.parts
    out = []
    for report in reports:
        start = 0
        found = None
        for part, size in zip(parts, sizes, strict=False):
            if start < report.index <= start + size:
                found = (part, size, report.index - start)
                break
            start += size
        if found is None or found[0].flow is None:
            out.append(report)
            continue
        part, size, k = found
        crumb = check.crumb(part.first + k - 1) if size == part.count else None
        first = check.crumb(part.first)
        flow = crumb.flow if crumb is not None else (part.flow if first is None else first.flows[0])
        out.append(attrs.evolve(report, flow=flow, flow_step=None if crumb is None else crumb.step))
    return tuple(out)


def checkpoint(
    segments: Segments, check: Check, heals: Sequence[HealEntry], start: int, judged: set[int]
) -> tuple[int, int] | None:
    """``steps`` Rule 13: where (0-based action, exclusive) the next flow with expectations ends, and which call.

    None when no flow left to replay from ``start`` on has expectations (or the path is one part).
    """
    if not segments.names:
        return None
    sizes, _ = segments.after(heals)
    calls = {c.first: n for n, c in enumerate(check.calls) if any(e for _c, e in c.expect)}
    end = 0
    for part, size in zip(check.parts, sizes, strict=False):
        end += size
        n = calls.get(part.first) if part.flow is not None else None
        if n is not None and n not in judged and end >= start:
            return end, n
    return None
