"""The matcher: may this recorded step run on the screen as it is now?

Rule 1 (the app): the app in front is the step's ``app``. ``LAUNCH_APP``, ``HOME`` and
        ``OPEN_URL`` need nothing: they skip all three rules.
Rule 2 (the screen): the screen hash equals the recorded hash, or the similarity is at least
        ``SIMILAR`` (0.8). Once the screen is settled (two reads in a row agree), ``SIMILAR_SETTLED``
        (0.5) is enough when the target is on the screen exactly once.
Rule 3 (the target): the number of shown elements with the recorded label and role (as
        ``Screen.find`` counts them) equals the recorded ``count``. With a count of 1, that element
        is the target. With more, the one at the recorded tree path breaks the tie, or, when none
        of them is there, the ``nth`` in tree order (and it is not "exactly once" for Rule 2). Any
        other number is not ok: a label that appears more or fewer times than when it was
        recorded is ambiguous, and a heal costs a model turn where a wrong tap costs a wrong tap.
        The two clues must agree: when the one at the recorded path is not the ``nth`` in tree
        order, another of them took the recorded one's place (a banner above them shifted the
        paths by as much as they are apart), and that is ambiguous too. A partial label never
        matches. Steps without a target skip this rule.

The reason names the first failing rule in the order app, target, screen:
``"Continue" isn't on the screen``, ``"Continue" is on the screen 2 times, recorded once``,
``"Continue" is on the screen once, recorded 2 times``,
``"Continue" is on the screen 2 times as recorded, but another of them took its place``,
``the screen is different (75% alike)``.
Percentages are rounded down to whole numbers.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import attrs

from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Step

__all__ = ["SIMILAR", "SIMILAR_SETTLED", "Match", "MatchRule", "match_step", "pick", "position", "times"]

#: Rule 2: how alike the screen must be to act at once.
SIMILAR = 0.8
#: Rule 2: how alike a settled screen must be when the target is there exactly once.
SIMILAR_SETTLED = 0.5


class MatchRule(enum.StrEnum):
    """The rule a step failed: the app in front, its target, or the screen."""

    APP = "app"
    TARGET = "target"
    SCREEN = "screen"


@attrs.frozen
class Match:
    """The matcher's answer.

    ``element`` is the element to act on as it is now (its current frame), when the step has a
    target and Rule 3 found it. ``rule`` names the failing rule, None when the step matched.
    """

    ok: bool
    similarity: float
    reason: str | None = None
    element: Element | None = None
    rule: MatchRule | None = None


def match_step(step: Step, screen: Screen, *, settled: bool) -> Match:  # noqa: PLR0911 - one return per rule, in order
    """Check the three rules for ``step`` on ``screen`` (see the module docstring)."""
    recorded = step.screen.pairs
    now = screen.signature_set
    common = len(recorded & now)
    union = len(recorded) + len(now) - common  # the size of the union, without building it
    alike = 1.0 if union == 0 else common / union
    percent = 100 if union == 0 else common * 100 // union  # exact, never 74.99999 -> 74

    if step.op.is_global:
        return Match(ok=True, similarity=alike)

    def no(reason: str, rule: MatchRule, element: Element | None = None) -> Match:
        return Match(ok=False, similarity=alike, reason=reason, element=element, rule=rule)

    if screen.app != step.app:
        return no(f"{screen.app} is in front, not {step.app}", MatchRule.APP)

    element: Element | None = None
    exactly_once = False
    if step.target is not None:
        target = step.target
        found = screen.find(target.role, target.label)
        if not found:
            return no(f'"{target.label}" isn\'t on the screen', MatchRule.TARGET)
        element = pick(found, count=target.count, nth=target.nth, path=target.id)
        if element is None:
            if len(found) == target.count:
                return no(
                    f'"{target.label}" is on the screen {times(len(found))} as recorded, but another of them '
                    "took its place",
                    MatchRule.TARGET,
                )
            return no(
                f'"{target.label}" is on the screen {times(len(found))}, recorded {times(target.count)}',
                MatchRule.TARGET,
            )
        exactly_once = target.count == 1

    # The same decision in any order; the hash last, so a screen at least 80% alike (a replayed
    # step's, nearly always: one with the recorded hash is 100% alike) never hashes its signature.
    if alike >= SIMILAR or (settled and exactly_once and alike >= SIMILAR_SETTLED) or screen.hash == step.screen.hash:
        return Match(ok=True, similarity=alike, element=element)
    return no(f"the screen is different ({percent}% alike)", MatchRule.SCREEN, element)


def pick(found: Sequence[Element], *, count: int, nth: int, path: str) -> Element | None:
    """Rule 3's choice among the shown elements with the recorded label and role (tree order).

    None unless there are exactly ``count`` of them. Then the ``nth``, unless another of them is at
    ``path`` (the clues disagree: None).
    """
    if len(found) != count:
        return None
    chosen = found[nth]
    if any(e.path == path and e.path != chosen.path for e in found):
        return None
    return chosen


def position(screen: Screen, element: Element, label: str | None = None) -> tuple[int, int]:
    """``(count, nth)`` of ``element`` among the shown elements with its role and ``label``.

    ``label`` defaults to the element's own. The element itself always counts, in tree order,
    even when the screen's rule would not show it, so ``count`` is at least 1 and ``nth`` is below
    it (an element that isn't shown then drifts as it did before: it is one too few).
    """
    same = screen.find(element.role, element.label if label is None else label)
    if not any(e.path == element.path for e in same):
        same = sorted([*same, element], key=lambda e: _tree_order(e.path))
    paths = [e.path for e in same]
    return len(same), paths.index(element.path)


def _tree_order(path: str) -> tuple[int, ...]:
    return tuple(int(p) for p in path.split("/")[1:])


def times(n: int) -> str:
    """``once``, ``2 times``: how often a label is on a screen, in the matcher's reasons."""
    return "once" if n == 1 else f"{n} times"
