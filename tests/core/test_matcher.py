from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

import mobster_core as mc
from mobster_core._matcher import match_step
from tests.core.helpers import SIGNUP_ELEMENTS, screen, step_on
from tests.strategies import screens

SIGNUP = screen(SIGNUP_ELEMENTS)
TAP_CONTINUE = step_on(SIGNUP)


def renamed(label: str = "Next") -> list[dict[str, Any]]:
    return [*SIGNUP_ELEMENTS[:2], {**SIGNUP_ELEMENTS[2], "label": label}]


BANNER = [{"role": "StaticText", "label": "New: sign in faster"}, *SIGNUP_ELEMENTS]

# SPEC §4's table, row by row.
TABLE = [
    ("same screen", screen(SIGNUP_ELEMENTS), False, True, None),
    ("button renamed to Next", screen(renamed()), False, False, '"Continue" isn\'t on the screen'),
    ("button renamed to Next", screen(renamed()), True, False, '"Continue" isn\'t on the screen'),
    ("extra banner above the form", screen(BANNER), False, False, "the screen is different (75% alike)"),
    ("extra banner above the form", screen(BANNER), True, True, None),
    (
        "another app in front",
        screen([{"role": "Button", "label": "YourApp"}], app="com.apple.springboard"),
        True,
        False,
        "com.apple.springboard is in front, not com.example.yourapp",
    ),
]


@pytest.mark.parametrize(
    ("why", "now", "settled", "ok", "reason"), TABLE, ids=[f"{r[0]}, settled={r[2]}" for r in TABLE]
)
def test_spec_table(why: str, now: mc.Screen, settled: bool, ok: bool, reason: str | None) -> None:
    m = mc.match_step(TAP_CONTINUE, now, settled=settled)
    assert (m.ok, m.reason) == (ok, reason)


def test_the_form_has_three_pairs() -> None:
    assert len(SIGNUP.signature) == 3


def test_ok_match_gives_the_current_element_not_the_recorded_frame() -> None:
    moved = screen([*SIGNUP_ELEMENTS[:2], {**SIGNUP_ELEMENTS[2], "frame": [0.1, 0.7, 0.8, 0.06]}])
    m = mc.match_step(TAP_CONTINUE, moved, settled=False)
    assert m.ok
    assert m.element is not None
    assert m.element.frame == (0.1, 0.7, 0.8, 0.06)
    assert m.similarity == 1.0


def test_partial_label_never_matches() -> None:
    m = mc.match_step(TAP_CONTINUE, screen(renamed("Continue with Apple")), settled=True)
    assert (m.ok, m.reason, m.rule) == (False, '"Continue" isn\'t on the screen', "target")


def test_role_must_match_too() -> None:
    text_not_button = [*SIGNUP_ELEMENTS[:2], {**SIGNUP_ELEMENTS[2], "role": "StaticText"}]
    assert (
        mc.match_step(TAP_CONTINUE, screen(text_not_button), settled=True).reason == '"Continue" isn\'t on the screen'
    )


def test_invisible_target_is_not_on_the_screen() -> None:
    hidden = [*SIGNUP_ELEMENTS[:2], {**SIGNUP_ELEMENTS[2], "visible": False}]
    assert not mc.match_step(TAP_CONTINUE, screen(hidden), settled=True).ok


def test_tie_broken_by_tree_path() -> None:
    two = [*SIGNUP_ELEMENTS, {"role": "Button", "label": "Continue", "frame": [0.1, 0.9, 0.8, 0.06]}]
    recorded = screen(two)
    step = step_on(recorded)  # the first "Continue", at /0/2
    m = mc.match_step(step, recorded, settled=False)
    assert m.ok
    assert m.element is not None
    assert m.element.path == "/0/2"


def test_tie_without_the_recorded_path_fails() -> None:
    recorded = screen(SIGNUP_ELEMENTS)
    step = step_on(recorded)  # recorded at /0/2
    two_elsewhere = [
        SIGNUP_ELEMENTS[0],
        SIGNUP_ELEMENTS[1],
        {"role": "Other"},
        {"role": "Button", "label": "Continue"},
        {"role": "Button", "label": "Continue"},
    ]
    m = mc.match_step(step, screen(two_elsewhere), settled=True)
    assert (m.ok, m.reason) == (False, '"Continue" is on the screen 2 times')


def test_tie_is_not_exactly_once_for_the_relaxed_threshold() -> None:
    # Recorded with two "Continue" buttons; now 3 of 5 pairs differ, 50% alike, settled.
    base = [
        {"role": "Button", "label": "Continue"},
        {"role": "Button", "label": "Continue"},
        {"role": "StaticText", "label": "A"},
    ]
    step = step_on(screen(base))
    now = screen([*base, {"role": "StaticText", "label": "B"}])
    assert mc.match_step(step, now, settled=True).similarity == pytest.approx(2 / 3)
    assert not mc.match_step(step, now, settled=True).ok
    assert mc.match_step(step, now, settled=True).reason == "the screen is different (66% alike)"


def test_relaxed_threshold_needs_half() -> None:
    step = step_on(SIGNUP)
    # 3 recorded pairs; now Continue plus 4 new pairs: 1 common / 7 = 14% alike
    far = screen([{"role": "StaticText", "label": x} for x in "PQRS"] + [SIGNUP_ELEMENTS[2]])
    m = mc.match_step(step, far, settled=True)
    assert (m.ok, m.reason) == (False, "the screen is different (14% alike)")
    # exactly 0.5: 2 common of 4
    half = screen([SIGNUP_ELEMENTS[0], SIGNUP_ELEMENTS[2], {"role": "StaticText", "label": "New"}])
    assert mc.match_step(step, half, settled=True).ok
    assert not mc.match_step(step, half, settled=False).ok


def test_steps_without_a_target_skip_rule_3_but_need_the_screen() -> None:
    swipe = step_on(SIGNUP, op="SWIPE_UP", label=None)
    assert mc.match_step(swipe, SIGNUP, settled=False).ok
    banner = mc.match_step(swipe, screen(BANNER), settled=True)
    assert (banner.ok, banner.reason) == (False, "the screen is different (75% alike)")
    assert banner.element is None


def test_same_hash_is_enough_even_when_below_threshold() -> None:
    # A screen with the same signature always has the same hash: similarity 1.0.
    submit = step_on(SIGNUP, op="SUBMIT", label=None)
    assert mc.match_step(submit, screen(SIGNUP_ELEMENTS), settled=False).ok


@pytest.mark.parametrize(
    ("op", "text"), [("LAUNCH_APP", "com.example.yourapp"), ("HOME", None), ("OPEN_URL", "yourapp://signup")]
)
def test_global_ops_need_nothing(op: str, text: str | None) -> None:
    step = step_on(SIGNUP, op=op, label=None, text=text)
    elsewhere = screen([{"role": "Button", "label": "YourApp"}], app="com.apple.springboard")
    m = mc.match_step(step, elsewhere, settled=False)
    assert m.ok
    assert m.reason is None


def test_empty_signatures_are_fully_alike() -> None:
    empty = screen([{"role": "Other"}])
    step = step_on(empty, op="SWIPE_DOWN", label=None)
    m = mc.match_step(step, screen([]), settled=False)
    assert (m.ok, m.similarity) == (True, 1.0)


def test_app_reason_comes_before_target_reason() -> None:
    other = screen(renamed(), app="com.other.app")
    assert (
        mc.match_step(TAP_CONTINUE, other, settled=True).reason == "com.other.app is in front, not com.example.yourapp"
    )


def test_percent_rounds_down_exactly() -> None:
    # 29 of 100 common pairs must say 29%, though 0.29 * 100 == 28.999999999999996.
    recorded = screen([{"role": "StaticText", "label": f"r{i}"} for i in range(29)] + [SIGNUP_ELEMENTS[2]])
    step = step_on(recorded)
    now = screen(
        [{"role": "StaticText", "label": f"r{i}"} for i in range(28)]
        + [SIGNUP_ELEMENTS[2]]
        + [{"role": "StaticText", "label": f"n{i}"} for i in range(70)]
    )
    m = mc.match_step(step, now, settled=False)
    assert m.similarity == pytest.approx(29 / 100)
    assert m.reason == "the screen is different (29% alike)"


@given(screens())
def test_a_step_recorded_on_a_screen_matches_that_screen(s: mc.Screen) -> None:
    candidates = [e for e in s.shown if e.label and e.role == "Button"]
    if not candidates:
        return
    e = candidates[0]
    step = step_on(s, label=e.label, role=e.role)
    m = mc.match_step(step, s, settled=False)
    assert m.ok
    assert m.element is not None
    assert (m.element.role, m.element.label) == (e.role, e.label)


@given(screens(), screens())
def test_similarity_of_a_match_is_the_jaccard_index(a: mc.Screen, b: mc.Screen) -> None:
    step = step_on(a, op="HOME", label=None)
    assert match_step(step, b, settled=False).similarity == mc.similarity(a, b)
