"""The scripted model's heal rule with a label on the screen more than once (its count and nth)."""

from __future__ import annotations

import asyncio
from typing import Any

import mobster_core as mc
from mobster_core.prompts import screen_rows
from mobster_drivers.models.scripted import ScriptedModel

APP = "com.example.yourapp"


def cell(label: str, ident: str = "") -> dict[str, Any]:
    return {"role": "Cell", "label": label, "id": ident}


def on(elements: list[dict[str, Any]]) -> mc.Screen:
    return mc.Screen.from_dict({"app": APP, "elements": elements})


RECORDED = on([cell("Account"), cell("Membership"), cell("Membership", "family")])


def tap(path: str) -> mc.Step:
    e = RECORDED.element_at(path)
    assert e is not None
    count = len(RECORDED.find(e.role, e.label))
    nth = [f.path for f in RECORDED.find(e.role, e.label)].index(path)
    target = {"label": e.label, "role": e.role, "id": e.path, "frame": list(e.frame), "count": count, "nth": nth}
    screen = {"hash": RECORDED.hash, "signature": RECORDED.signature}
    return mc.Step.from_dict(
        {"op": "TAP", "app": APP, "target": target, "screen": screen, "text": None, "commit": None, "live": False}
    )


def heal(step: mc.Step, now: mc.Screen) -> tuple[mc.Decision, dict[str, int]]:
    rows, ids = screen_rows(now)
    prompt = mc.Prompt(system="", request="", history=(), screen=rows, recorded=(step,))
    return asyncio.run(ScriptedModel().decide(prompt)), ids


def test_as_many_rows_as_recorded_takes_the_nth() -> None:
    banner = on([cell("Sale"), cell("Account"), cell("Membership"), cell("Membership", "family")])
    decision, ids = heal(tap("/0/2"), banner)
    assert decision.kind is mc.DecisionKind.ACT
    target = decision.actions[0].target
    assert target is not None
    assert banner.elements[ids[target]].identifier == "family"


def test_more_rows_than_recorded_are_never_guessed() -> None:
    three = on([cell("Account"), cell("Membership", "new"), cell("Membership"), cell("Membership", "family")])
    decision, _ = heal(tap("/0/1"), three)
    assert decision.kind is mc.DecisionKind.BLOCKED
