"""What to do about a check, spelled with the plugin's own options (pure: a fix in, text out).

Rule 1: the core's outcome carries a fix as a code with arguments (``mobster_core.results.Fix``);
        this table spells each code with pytest's options for Mobster (``--mobster-fresh``,
        ``--mobster-model``), never the ``mobster`` command's, and a failure shows the message,
        then the fix (``mobster_core.results.joined``). A test holds every code to a spelling here,
        in the CLI's table and in Python's.
"""

from __future__ import annotations

from collections.abc import Mapping

from mobster_core import Outcome
from mobster_core.results import Fix, FixCode, fill, joined

__all__ = ["said", "spell"]

_PYTEST: Mapping[FixCode, str] = {
    FixCode.RECORD_AGAIN: "run it with --mobster-fresh to record it again",
    FixCode.GIVE_MODEL: "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --mobster-model scripted",
    FixCode.RUN_WITHOUT_NO_HEAL: (
        "run it without --mobster-no-heal (nor mobster_no_heal in the ini), or with --mobster-fresh to record it again"
    ),
    FixCode.REVIEW_HEAL: (
        "review it with the mobster command: mobster test heal shows it, and accepts or rejects {check}'s "
        "heals (or run it with --mobster-fresh to record it again)"
    ),
    FixCode.SETTLE_HEAL: (
        "settle it first with the mobster command, which accepts or rejects {check}'s heals (mobster test heal "
        "shows it); a run with --mobster-fresh would retire it unreviewed"
    ),
    FixCode.UNDO_REJECT: (
        "undo the reject of {check}'s step with the mobster command (mobster test heal says how), then run it "
        "with a model to heal the step (or with --mobster-fresh to record it again)"
    ),
}


def spell(fix: Fix) -> str:
    """Rule 1: the fix with the plugin's options."""
    return fill(_PYTEST, fix)


def said(outcome: Outcome) -> str:
    """Rule 1: the outcome's message, then its fix as the plugin spells it."""
    return joined(outcome.message, None if outcome.fix is None else spell(outcome.fix))
