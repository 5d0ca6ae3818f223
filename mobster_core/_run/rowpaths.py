"""A row's paths: the one its rows share, part by part, and the branches rows recorded where their screens differed.

Rule 1: a check's path is in parts (one part for a check that uses no flow: ``plan`` Rule 7); a row
        replays the parts its rows share. Where a row's screen differs from a part's (a drift),
        another row's branch of that part may fit: the same actions before the drift (what each
        did: op and words, not where its target was, since each row taps its own value's
        element) and a drifted step that matches this screen. The replay then goes on in that
        branch, at no cost.
Rule 2: where no branch fits, the row records its own branch of that part: from the drifted step
        when the part's actions are one a step (the screen is the one the step must run on, and
        the steps before it are done), else from a new launch (the parts before it replayed
        again, the part recorded from its first step). The parts after it that have a path keep
        it; a part with none is recorded as any first recording is.
Rule 3: a part keeps at most :data:`MAX_BRANCHES` branches an env; a row that would need another
        fails, class ``drift``, with the fix to record the check again.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from mobster_core._rules.replay.identity import MAX_BRANCHES, branch_identity
from mobster_core._rules.replay.matcher import match_step
from mobster_core._rules.vocabulary.steps import Step

from .replay import Drift

__all__ = ["Layout", "Switch", "branch_for", "free_branch"]


@attrs.frozen
class Layout:
    """How many actions of the path as it runs each part holds (Rule 1), in order."""

    sizes: tuple[int, ...]

    def locate(self, at: int) -> tuple[int, int]:
        """The part holding action ``at`` (from 1) and the number of actions before that part."""
        start = 0
        for i, size in enumerate(self.sizes):
            if at <= start + size:
                return i, start
            start += size
        return len(self.sizes) - 1, start - self.sizes[-1] if self.sizes else 0

    def start(self, part: int) -> int:
        """The number of actions before ``part``."""
        return sum(self.sizes[:part])

    def replaced(self, part: int, size: int) -> Layout:
        """The layout with ``part`` holding ``size`` actions."""
        return Layout((*self.sizes[:part], size, *self.sizes[part + 1 :]))


@attrs.frozen
class Switch:
    """Rule 1: a branch that fits: its part, identity, and the path with it in place of the part."""

    part: int
    identity: str
    steps: tuple[Step, ...]
    layout: Layout


def _did(steps: Sequence[Step]) -> list[tuple[str, str]]:
    return [(s.op.value, s.describe()) for s in steps]


def branch_for(
    steps: tuple[Step, ...],
    layout: Layout,
    branches: Sequence[Sequence[tuple[str, tuple[Step, ...]]]],
    drift: Drift,
    used: Sequence[str] = (),
) -> Switch | None:
    """Rule 1: the branch of the part holding the drifted action that fits its screen, with the path it makes."""
    at, screen, settled = drift.at, drift.screen, drift.report.settled
    part, start = layout.locate(at)
    if part >= len(branches):
        return None
    local = at - start  # from 1, within the part
    before = _did(steps[start : at - 1])
    size = layout.sizes[part]
    for identity, branch in branches[part]:
        if identity in used or len(branch) < local or _did(branch[: local - 1]) != before:
            continue
        if match_step(branch[local - 1], screen, settled=settled).ok:
            path = (*steps[:start], *branch, *steps[start + size :])
            return Switch(part, identity, path, layout.replaced(part, len(branch)))
    return None


def free_branch(part_identity: str, taken: Sequence[str]) -> str | None:
    """Rule 3: the identity of the part's next branch, None when it keeps :data:`MAX_BRANCHES` already."""
    for n in range(1, MAX_BRANCHES + 1):
        identity = branch_identity(part_identity, n)
        if identity not in taken:
            return identity
    return None
