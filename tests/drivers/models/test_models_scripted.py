"""The scripted model's heal rules: a label on the screen more than once (its count and nth), and
typing into a renamed field (Rule 6)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import mobster_core as mc
from mobster_core.prompts import screen_rows
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.helpers import step_on

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


def heal(step: mc.Step, now: mc.Screen, steps: tuple[str, ...] = ()) -> tuple[mc.Decision, dict[str, int]]:
    rows, ids = screen_rows(now)
    prompt = mc.Prompt(system="", request="", history=(), screen=rows, recorded=(step,), steps=steps)
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


# -- Rule 6: typing in a heal ----------------------------------------------------------------------

STEPS = ('Tap "Sign up"', 'Type "ada@example.com" into "Email"', 'Type "${LOGIN_PASSWORD}" into "Password"')
HEAD = [{"role": "StaticText", "label": "Create your account"}, {"role": "TextField", "label": "Email"}]
CONTINUE = {"role": "Button", "label": "Continue"}
FORM = on([*HEAD, {"role": "SecureTextField", "label": "Password"}, CONTINUE])
PASSWORD = step_on(FORM, "TYPE", "Password", "SecureTextField", text="${LOGIN_PASSWORD}")
LIVE = step_on(FORM, "TYPE", "Password", "SecureTextField", live=True)  # masked text is never recorded


def form(*fields: dict[str, Any]) -> mc.Screen:
    """The form with its password field replaced by ``fields``."""
    return on([*HEAD, *fields, CONTINUE])


def acted(decision: mc.Decision, ids: dict[str, int], now: mc.Screen) -> tuple[mc.Op, str, str | None]:
    assert decision.kind is mc.DecisionKind.ACT, decision.reason
    (action,) = decision.actions
    assert action.target is not None
    return action.op, now.elements[ids[action.target]].label, action.text


@pytest.mark.parametrize(
    ("fields", "into"),
    [
        ([{"role": "SecureTextField", "label": "Passcode"}], "Passcode"),
        # the one new field of the target's role wins over a new field of another role
        ([{"role": "TextField", "label": "Nickname"}, {"role": "SecureTextField", "label": "Passcode"}], "Passcode"),
        # no new field of its role: the one new field of a text-entry role
        ([{"role": "TextField", "label": "Passcode"}], "Passcode"),
    ],
)
def test_a_renamed_field_gets_the_steps_text_typed_into_it(fields: list[dict[str, Any]], into: str) -> None:
    now = form(*fields)
    decision, ids = heal(PASSWORD, now, STEPS)
    assert acted(decision, ids, now) == (mc.Op.TYPE, into, "${LOGIN_PASSWORD}")  # never a tap


def test_a_live_steps_text_is_the_checks_step_that_types_into_its_field() -> None:
    now = form({"role": "SecureTextField", "label": "Passcode"})
    steps = (*STEPS[:2], 'Type "hunter22" into "Password"')
    decision, ids = heal(LIVE, now, steps)
    assert acted(decision, ids, now) == (mc.Op.TYPE, "Passcode", "hunter22")
    # On the healed path the live step's field is "Passcode", which no step names: the text is the
    # one typing step's whose field isn't on the screen ("Password").
    healed = step_on(now, "TYPE", "Passcode", "SecureTextField", live=True)
    decision, ids = heal(healed, now, steps)
    assert acted(decision, ids, now) == (mc.Op.TYPE, "Passcode", "hunter22")


def test_a_live_step_whose_text_cant_be_told_is_blocked() -> None:
    now = form({"role": "SecureTextField", "label": "Passcode"})
    decision, _ = heal(LIVE, now, ('Type "ada@example.com" into "Email"',))
    assert decision.kind is mc.DecisionKind.BLOCKED
    assert decision.reason == 'no step of the check types into "Password"'


def test_two_new_fields_are_never_guessed_between() -> None:
    two = form({"role": "SecureTextField", "label": "Passcode"}, {"role": "SecureTextField", "label": "PIN"})
    decision, _ = heal(PASSWORD, two, STEPS)
    assert decision.kind is mc.DecisionKind.BLOCKED


def test_a_popup_over_the_form_is_dismissed_by_its_one_new_button() -> None:
    popup = on([{"role": "StaticText", "label": "Turn on notifications"}, {"role": "Button", "label": "Not now"}])
    decision, ids = heal(PASSWORD, popup, STEPS)
    assert acted(decision, ids, popup) == (mc.Op.TAP, "Not now", None)
