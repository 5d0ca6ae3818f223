from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core import match_step
from mobster_core._rules.replay.matcher import position
from tests.core.helpers import SIGNUP_ELEMENTS, screen, step_on
from tests.strategies import examples, screens

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
    assert (m.ok, m.reason) == (False, '"Continue" is on the screen 2 times, recorded once')


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


# -- a label on the screen more than once (rule 3's count and nth) -------------------------------

ACCOUNT: list[dict[str, Any]] = [
    {"role": "StaticText", "label": "Account"},
    {"role": "Button", "label": "Back"},
    {"role": "StaticText", "label": "ada@example.com"},
    {"role": "Cell", "label": "Password & Security"},
    {"role": "Cell", "label": "Membership"},
    {"role": "Cell", "label": "Sign out"},
]
FAMILY = {"role": "Cell", "label": "Membership", "id": "family-membership"}
TRIAL = {"role": "StaticText", "label": "Your trial ends in 3 days"}
ONCE = '"Membership" is on the screen 2 times, recorded once'


def tap_at(s: mc.Screen, path: str) -> mc.Step:
    """A tap recorded on ``s`` on the element at ``path`` (its count and nth as Smart records them)."""
    e = s.element_at(path)
    assert e is not None
    count, nth = position(s, e)
    target = {"label": e.label, "role": e.role, "id": e.path, "frame": list(e.frame), "count": count, "nth": nth}
    return mc.Step.from_dict(
        {
            "op": "TAP",
            "app": s.app,
            "target": target,
            "screen": {"hash": s.hash, "signature": s.signature},
            "text": None,
            "commit": None,
            "live": False,
        }
    )


RECORDED_ONCE = tap_at(screen(ACCOUNT), "/0/4")
TWO = screen([*ACCOUNT[:5], FAMILY, ACCOUNT[5]])  # the original at /0/4, the family plan at /0/5
RECORDED_FIRST_OF_TWO = tap_at(TWO, "/0/4")
RECORDED_SECOND_OF_TWO = tap_at(TWO, "/0/5")

# (why, step, screen now, settled, ok, reason, the path acted on when ok)
DUPLICATES = [
    ("same screen, recorded once", RECORDED_ONCE, screen(ACCOUNT), False, True, None, "/0/4"),
    ("a duplicate inserted above", RECORDED_ONCE, screen([*ACCOUNT[:4], FAMILY, *ACCOUNT[4:]]), False, False, ONCE, ""),
    ("a duplicate inserted above", RECORDED_ONCE, screen([*ACCOUNT[:4], FAMILY, *ACCOUNT[4:]]), True, False, ONCE, ""),
    ("a duplicate inserted below", RECORDED_ONCE, screen([*ACCOUNT[:5], FAMILY, ACCOUNT[5]]), True, False, ONCE, ""),
    (
        "a duplicate elsewhere, nested in a section at the top",
        RECORDED_ONCE,
        screen([{"role": "Other", "children": [FAMILY]}, *ACCOUNT]),
        True,
        False,
        ONCE,
        "",
    ),
    ("two when recorded, same screen", RECORDED_FIRST_OF_TWO, TWO, False, True, None, "/0/4"),
    ("two when recorded, the second tapped", RECORDED_SECOND_OF_TWO, TWO, False, True, None, "/0/5"),
    (
        "two when recorded, a banner above shifts the paths",
        RECORDED_FIRST_OF_TWO,
        screen([ACCOUNT[0], TRIAL, *ACCOUNT[1:5], FAMILY, ACCOUNT[5]]),
        False,
        True,
        None,
        "/0/5",
    ),
    (
        "two when recorded, the second tapped, a banner puts the first in its place",
        RECORDED_SECOND_OF_TWO,
        screen([ACCOUNT[0], TRIAL, *ACCOUNT[1:5], FAMILY, ACCOUNT[5]]),
        True,
        False,
        '"Membership" is on the screen 2 times as recorded, but another of them took its place',
        "",
    ),
    (
        "two when recorded, one removed",
        RECORDED_FIRST_OF_TWO,
        screen(ACCOUNT),
        True,
        False,
        '"Membership" is on the screen once, recorded 2 times',
        "",
    ),
    (
        "two when recorded, three now",
        RECORDED_FIRST_OF_TWO,
        screen([*ACCOUNT[:5], FAMILY, FAMILY, ACCOUNT[5]]),
        True,
        False,
        '"Membership" is on the screen 3 times, recorded 2 times',
        "",
    ),
]


@pytest.mark.parametrize(
    ("why", "step", "now", "settled", "ok", "reason", "acted"),
    DUPLICATES,
    ids=[f"{r[0]}, settled={r[3]}" for r in DUPLICATES],
)
def test_duplicates_table(
    why: str, step: mc.Step, now: mc.Screen, settled: bool, ok: bool, reason: str | None, acted: str
) -> None:
    m = mc.match_step(step, now, settled=settled)
    assert (m.ok, m.reason) == (ok, reason)
    if ok:
        assert m.element is not None
        assert m.element.path == acted
    else:
        assert m.rule == "target"


def test_recorded_targets_keep_count_and_nth() -> None:
    assert RECORDED_ONCE.target is not None
    assert (RECORDED_ONCE.target.count, RECORDED_ONCE.target.nth) == (1, 0)
    assert RECORDED_SECOND_OF_TWO.target is not None
    assert (RECORDED_SECOND_OF_TWO.target.count, RECORDED_SECOND_OF_TWO.target.nth) == (2, 1)


def test_a_hidden_duplicate_is_not_counted() -> None:
    now = screen([*ACCOUNT[:4], {**FAMILY, "visible": False}, *ACCOUNT[4:]])
    m = mc.match_step(RECORDED_ONCE, now, settled=False)
    assert m.ok
    assert m.element is not None
    assert m.element.path == "/0/5"


def test_two_of_a_kind_is_not_exactly_once_for_the_relaxed_threshold() -> None:
    # 4 of the 7 recorded pairs are gone: 3 common of 7, 42% alike... plus the relaxed 0.5 needs a
    # single target. With one Membership it would pass settled at 50%; with two it does not.
    half = [ACCOUNT[0], ACCOUNT[4], FAMILY, {"role": "StaticText", "label": "New"}]
    recorded = screen([ACCOUNT[0], ACCOUNT[4], FAMILY, ACCOUNT[1]])
    step = tap_at(recorded, "/0/1")
    m = mc.match_step(step, screen(half), settled=True)
    assert m.similarity == pytest.approx(2 / 4)
    assert (m.ok, m.reason) == (False, "the screen is different (50% alike)")


# -- properties: a recording matches its own screen; a change never moves the tap elsewhere ------

TREE_LABELS = ("Continue", "Continue", "Next", "Membership", "")
TREE_ROLES = ("Button", "Cell", "StaticText")


@st.composite
def nodes(draw: st.DrawFn, depth: int = 1) -> dict[str, Any]:
    node: dict[str, Any] = {
        "role": draw(st.sampled_from(TREE_ROLES)),
        "label": draw(st.sampled_from(TREE_LABELS)),
        "visible": draw(st.booleans().map(lambda b: b or depth == 0) | st.just(True)),
    }
    if depth > 0:
        node["children"] = draw(st.lists(nodes(depth - 1), max_size=2))
    return node


def tokens(tree: list[dict[str, Any]], start: int = 0) -> int:
    """Give every node a unique identifier (``k0``, ``k1``, …) to follow it across changes."""
    n = start
    for node in tree:
        node["id"] = f"k{n}"
        n = tokens(node.get("children", []), n + 1)
    return n


def siblings(tree: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Every list of siblings in the tree, the top one first (a leaf gets an empty one)."""
    out = [tree]
    for node in tree:
        out.extend(siblings(node.setdefault("children", [])))
    return out


def shown_with_label(s: mc.Screen) -> list[mc.Element]:
    return [e for e in s.elements if e.visible and e.label]


@given(st.lists(nodes(), min_size=1, max_size=6), st.data())
def test_a_step_recorded_on_any_element_matches_that_element_on_its_screen(
    tree: list[dict[str, Any]], data: st.DataObject
) -> None:
    tokens(tree)
    s = screen(tree)
    candidates = shown_with_label(s)
    assume(candidates)
    e = data.draw(st.sampled_from(candidates))
    m = mc.match_step(tap_at(s, e.path), s, settled=False)
    assert m.ok
    assert m.element is not None
    assert m.element.identifier == e.identifier


@settings(max_examples=examples(60))  # each example builds three screens; 60 keep it near a second
@given(st.lists(nodes(), min_size=1, max_size=6), st.data(), nodes(depth=0), st.booleans())
def test_a_change_to_the_screen_never_moves_an_ok_match_to_another_element(
    tree: list[dict[str, Any]], data: st.DataObject, extra: dict[str, Any], same_label: bool
) -> None:
    """Insert any element anywhere (a same-label one too), or remove one: never a wrong tap."""
    n = tokens(tree)
    s = screen(tree)
    candidates = shown_with_label(s)
    assume(candidates)
    e = data.draw(st.sampled_from(candidates))
    step = tap_at(s, e.path)
    changed = copy.deepcopy(tree)
    if same_label:
        extra = {**extra, "role": e.role, "label": e.label, "visible": True}
    tokens([extra], n)
    groups = siblings(changed)
    group = data.draw(st.sampled_from(groups))
    if data.draw(st.booleans()) or not any(node["id"] != e.identifier for node in group):
        group.insert(data.draw(st.integers(0, len(group))), extra)
    else:
        # Remove a node that is neither the target nor holds it.
        removable = [node for node in group if e.identifier not in json.dumps(node)]
        assume(removable)
        group.remove(data.draw(st.sampled_from(removable)))
    m = mc.match_step(step, screen(changed), settled=True)
    if m.ok:
        assert m.element is not None
        assert m.element.identifier == e.identifier


@given(st.lists(nodes(), min_size=1, max_size=6), st.data())
def test_inserting_a_same_label_element_anywhere_is_never_an_ok_match(
    tree: list[dict[str, Any]], data: st.DataObject
) -> None:
    tokens(tree)
    s = screen(tree)
    candidates = shown_with_label(s)
    assume(candidates)
    e = data.draw(st.sampled_from(candidates))
    step = tap_at(s, e.path)
    changed = copy.deepcopy(tree)
    group = data.draw(st.sampled_from(siblings(changed)))
    group.insert(data.draw(st.integers(0, len(group))), {"role": e.role, "label": e.label, "id": "copy"})
    m = mc.match_step(step, screen(changed), settled=True)
    assert not m.ok
    assert m.rule == "target"
