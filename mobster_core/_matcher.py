"""The matcher (SPEC §4): may this recorded step run on the screen as it is now?

Rule 1 (the app): the app in front is the step's ``app``. ``LAUNCH_APP``, ``HOME`` and
        ``OPEN_URL`` need nothing: they skip all three rules.
Rule 2 (the screen): the screen hash equals the recorded hash, or the similarity is at least
        ``SIMILAR`` (0.8). Once the screen is settled (two reads in a row agree), ``SIMILAR_SETTLED``
        (0.5) is enough when the target is on the screen exactly once.
Rule 3 (the target): exactly one visible element has the recorded label and role. When several
        do, the one at the recorded tree path breaks the tie (and then it is not "exactly once"
        for Rule 2). A partial label never matches. Steps without a target skip this rule.

The reason names the first failing rule in the order app, target, screen. Percentages are rounded
down to whole numbers.
"""

from __future__ import annotations

import attrs

from ._screen import Element, Screen
from ._steps import Step

__all__ = ["SIMILAR", "SIMILAR_SETTLED", "Match", "match_step"]

#: Rule 2: how alike the screen must be to act at once.
SIMILAR = 0.8
#: Rule 2: how alike a settled screen must be when the target is there exactly once.
SIMILAR_SETTLED = 0.5


@attrs.frozen
class Match:
    """The matcher's answer.

    ``element`` is the element to act on as it is now (its current frame), when the step has a
    target and Rule 3 found it. ``rule`` names the failing rule (``app``, ``target``, ``screen``).
    """

    ok: bool
    similarity: float
    reason: str | None = None
    element: Element | None = None
    rule: str | None = None


def match_step(step: Step, screen: Screen, *, settled: bool) -> Match:
    """Check the three rules for ``step`` on ``screen`` (see the module docstring)."""
    recorded = step.screen.pairs
    now = screen.signature_set
    union = len(recorded | now)
    common = len(recorded & now)
    alike = 1.0 if union == 0 else common / union
    percent = 100 if union == 0 else common * 100 // union  # exact, never 74.99999 -> 74

    if step.op.is_global:
        return Match(ok=True, similarity=alike)

    def no(reason: str, rule: str, element: Element | None = None) -> Match:
        return Match(ok=False, similarity=alike, reason=reason, element=element, rule=rule)

    if screen.app != step.app:
        return no(f"{screen.app} is in front, not {step.app}", "app")

    element: Element | None = None
    exactly_once = False
    if step.target is not None:
        target = step.target
        found = screen.find(target.role, target.label)
        if not found:
            return no(f'"{target.label}" isn\'t on the screen', "target")
        if len(found) == 1:
            element, exactly_once = found[0], True
        else:
            at_path = [e for e in found if e.path == target.id]
            if not at_path:
                return no(f'"{target.label}" is on the screen {len(found)} times', "target")
            element = at_path[0]

    same_screen = screen.hash == step.screen.hash
    if same_screen or alike >= SIMILAR or (settled and exactly_once and alike >= SIMILAR_SETTLED):
        return Match(ok=True, similarity=alike, element=element)
    return no(f"the screen is different ({percent}% alike)", "screen", element)
