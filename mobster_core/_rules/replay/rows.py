"""A row's values in a path: kept as their references, so every row replays its own.

Rule 1: a recorded step's target whose label is exactly the value of a row's name (``pro`` for
        ``${plan}``) is kept as the reference (``${plan}``) when the path is stored: the path of
        rows that share screens holds no row's value, and row 2 replays with row 2's values.
        Typed text needs nothing here: the model types ``${plan}`` as the step writes it, and the
        typing rules keep the reference (``typing_rules`` Rule 4).
Rule 2: when a path is replayed by a row, each target label that is a reference of the row's
        names is bound to the row's value before the matcher sees it.
Rule 3: only names the check's steps reference count, and an empty value never does (it would
        match nothing and everything). When two names share a value, the first name in order
        is the one kept.

Pure: the values are given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from mobster_core._rules.device.secrets import REFERENCE
from mobster_core._rules.vocabulary.steps import Step

__all__ = ["bind_targets", "unbind_targets"]


def unbind_targets(steps: Sequence[Step], values: Mapping[str, str], referenced: Sequence[str]) -> tuple[Step, ...]:
    """Rule 1: ``steps`` with each target label that is a row's value written as its reference."""
    by_value: dict[str, str] = {}
    for name in referenced:
        value = values.get(name)
        if value and value not in by_value:
            by_value[value] = "${" + name + "}"
    if not by_value:
        return tuple(steps)
    out = []
    for step in steps:
        target = step.target
        kept = step
        if target is not None and target.label in by_value:
            kept = attrs.evolve(step, target=attrs.evolve(target, label=by_value[target.label]))
        out.append(kept)
    return tuple(out)


def bind_targets(steps: Sequence[Step], values: Mapping[str, str]) -> tuple[Step, ...]:
    """Rule 2: ``steps`` with each target label that is a reference of ``values`` bound to its value."""
    if not values:
        return tuple(steps)
    out = []
    for step in steps:
        target = step.target
        if target is not None:
            m = REFERENCE.fullmatch(target.label)
            if m is not None and values.get(m.group(1)):
                out.append(attrs.evolve(step, target=attrs.evolve(target, label=values[m.group(1)])))
                continue
        out.append(step)
    return tuple(out)
