"""What to do about a check that didn't pass: a fix is a code with arguments, never a front end's flag.

Rule 1: the core's messages say what is wrong (``there is no model to record one``); what to do
        about it travels beside the message as a :class:`Fix`: a :class:`FixCode` and its
        arguments (text, by name: each code takes exactly the names :data:`ARGS` gives it). No
        message of the core names an option of the CLI, the pytest plugin or the API.
Rule 2: each front end spells a fix with its own options, in one pure table of its own: the CLI
        (``mobster_cli._fixes``: ``--fresh``), the pytest plugin (``mobster_pytest._fixes``:
        ``--mobster-fresh``) and Python (:func:`spell` here: ``RunOptions(fresh=True)``). A test
        holds every code to a spelling in each. A front end shows the message, then its
        spelling, joined by :func:`joined`.
Rule 3: ``results.json`` is read by tools that know no front end: its ``message`` is the core's
        message joined with the fix's neutral sentence (:attr:`Fix.sentence`), and its ``fix``
        holds the code and the arguments.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

import attrs

__all__ = ["ARGS", "Fix", "FixCode", "fill", "joined", "spell"]


class FixCode(enum.StrEnum):
    """What to do, as a stable value for ``results.json`` and for a front end's table."""

    #: Record the check's path again with Smart (the CLI's ``--fresh``).
    RECORD_AGAIN = "record_again"
    #: Give the run a model: a model key, or the scripted model (``--model scripted``).
    GIVE_MODEL = "give_model"
    #: Healing was turned off (``--no-heal``): run with it on, or record again.
    RUN_WITHOUT_NO_HEAL = "run_without_no_heal"
    #: A heal waits for review in ``heal_file`` (of the check file ``check``): review it (accept or
    #: reject it), or record the check again (the CLI's ``mobster test heal``).
    REVIEW_HEAL = "review_heal"
    #: A heal waits for review in ``heal_file`` (of the check file ``check``) at the step that
    #: drifted: settle it first, by accepting or rejecting it (never healed over, never recorded
    #: over: recording again would retire it unseen).
    SETTLE_HEAL = "settle_heal"
    #: The step keeps failing because this check's review rejected its heal (``heal_file``, of the
    #: check file ``check``): undo the reject, so a run with a model heals it again, or record the
    #: check again (the CLI's ``mobster test heal --unreject``). A model alone never heals it.
    UNDO_REJECT = "undo_reject"


#: Rule 1: the names of each code's arguments.
ARGS: Mapping[FixCode, frozenset[str]] = {
    FixCode.RECORD_AGAIN: frozenset(),
    FixCode.GIVE_MODEL: frozenset(),
    FixCode.RUN_WITHOUT_NO_HEAL: frozenset(),
    FixCode.REVIEW_HEAL: frozenset({"heal_file", "check"}),
    FixCode.SETTLE_HEAL: frozenset({"heal_file", "check"}),
    FixCode.UNDO_REJECT: frozenset({"heal_file", "check"}),
}

#: Rule 3: each code in words no front end owns (``{name}`` is an argument).
_SENTENCES: Mapping[FixCode, str] = {
    FixCode.RECORD_AGAIN: "record the check again",
    FixCode.GIVE_MODEL: "give the run a model (a model key, or the scripted model)",
    FixCode.RUN_WITHOUT_NO_HEAL: "run it with healing on (or record the check again)",
    FixCode.REVIEW_HEAL: "review the heal waiting in {heal_file} (accept or reject it), or record the check again",
    FixCode.SETTLE_HEAL: "settle the heal waiting in {heal_file} first: accept it or reject it",
    FixCode.UNDO_REJECT: (
        "undo the reject kept beside {heal_file} so a run with a model heals the step again, or record the check again"
    ),
}

#: Rule 2: the Python spelling, for a harness built on ``mobster_core``.
_PYTHON: Mapping[FixCode, str] = {
    FixCode.RECORD_AGAIN: "run it with RunOptions(fresh=True) to record it again",
    FixCode.GIVE_MODEL: (
        "pass a model: run_check(..., model=...) or run_suite(..., models=...) (an adapter of "
        "mobster_drivers.models, or ScriptedModel, which needs no key)"
    ),
    FixCode.RUN_WITHOUT_NO_HEAL: "run it with RunOptions(no_heal=False) (or fresh=True to record it again)",
    FixCode.REVIEW_HEAL: (
        "review the heal waiting in {heal_file}: mobster_core.heals.accept_heals or reject_heals "
        "(or RunOptions(fresh=True) to record it again)"
    ),
    FixCode.SETTLE_HEAL: (
        "settle the heal waiting in {heal_file} first: mobster_core.heals.accept_heals keeps it, "
        "reject_heals brings the recorded step back"
    ),
    FixCode.UNDO_REJECT: (
        "undo the reject with mobster_core.heals.unreject_heals so a run with a model heals the step again "
        "(or RunOptions(fresh=True) to record it again)"
    ),
}


def _frozen(args: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(args))


@attrs.frozen
class Fix:
    """What to do (Rule 1): ``code`` and its ``args`` (each a name of ``ARGS[code]``, as text)."""

    code: FixCode = attrs.field(converter=FixCode)
    args: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen, hash=False)

    def __attrs_post_init__(self) -> None:
        wanted = ARGS[self.code]
        if set(self.args) != wanted or not all(isinstance(v, str) for v in self.args.values()):
            names = ", ".join(sorted(wanted)) or "none"
            raise ValueError(f"the fix {self.code} takes the text arguments: {names}; got {sorted(self.args)}")

    @property
    def sentence(self) -> str:
        """Rule 3: the fix in words no front end owns."""
        return fill(_SENTENCES, self)


def fill(table: Mapping[FixCode, str], fix: Fix) -> str:
    """``fix`` spelled by a front end's ``table`` (Rule 2), its arguments filled in."""
    return table[fix.code].format_map(dict(fix.args))


def spell(fix: Fix) -> str:
    """Rule 2: the fix spelled for Python (``RunOptions(fresh=True)``)."""
    return fill(_PYTHON, fix)


def joined(message: str, fix: str | None) -> str:
    """Rule 2: a message and a spelled fix as one sentence (``message; fix``); the message alone without one."""
    if not fix:
        return message
    return f"{message}; {fix}" if message else fix
