"""What to do about a check, spelled with ``mobster test``'s options (pure: a fix in, text out).

Rule 1: the core's outcome carries a fix as a code with arguments (``mobster_core.results.Fix``);
        this table spells each code with this command's own options (``--fresh``, ``--model``),
        and the terminal shows the message, then the fix (``mobster_core.results.joined``). The
        pytest plugin and Python have their own tables; a test holds every code to a spelling
        in each.
"""

from __future__ import annotations

from collections.abc import Mapping

from mobster_core import Outcome
from mobster_core.results import Fix, FixCode, fill, joined

__all__ = ["said", "spell"]

_CLI: Mapping[FixCode, str] = {
    FixCode.RECORD_AGAIN: "run it with --fresh to record it again",
    FixCode.GIVE_MODEL: "set ANTHROPIC_API_KEY or OPENAI_API_KEY (or --env-file), or pass --model scripted",
    FixCode.RUN_WITHOUT_NO_HEAL: "run it without --no-heal (or with --fresh to record it again)",
    FixCode.REVIEW_HEAL: (
        "review it with mobster test heal, then mobster test heal --accept {check} or --reject {check} "
        "(or run it with --fresh to record it again)"
    ),
    FixCode.SETTLE_HEAL: (
        "settle it first: mobster test heal --accept {check} keeps it, mobster test heal --reject {check} "
        "brings the recorded step back (mobster test heal shows it)"
    ),
    FixCode.UNDO_REJECT: (
        "undo the reject with mobster test heal --unreject {check}, then run it with a model to heal the step "
        "(or run it with --fresh to record it again)"
    ),
}


def spell(fix: Fix) -> str:
    """Rule 1: the fix with ``mobster test``'s options."""
    return fill(_CLI, fix)


def said(outcome: Outcome) -> str:
    """Rule 1: the outcome's message, then its fix as this command spells it."""
    return joined(outcome.message, None if outcome.fix is None else spell(outcome.fix))
