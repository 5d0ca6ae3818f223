"""Inspection: why an element isn't shown (the screen's one rule), two reads compared, and --select's offers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

import mobster_core as mc
from mobster_core._rules.assertions import evaluate, parse_assertion
from mobster_core._rules.verdict.inspection import MAX_CANDIDATES
from mobster_core.screens import Found, Hidden, flow_yaml, read_differences, suggest
from mobster_core.yaml import load_yaml
from tests.strategies import examples, screens


def screen(*elements: dict[str, Any]) -> mc.Screen:
    return mc.Screen.from_dict({"app": "com.example.app", "elements": list(elements)})


def el(role: str, label: str = "", frame: tuple[float, ...] = (0.1, 0.1, 0.5, 0.05), **more: Any) -> dict[str, Any]:
    return {"role": role, "label": label, "frame": list(frame), **more}


@given(screens())
@settings(max_examples=examples(200))
def test_hidden_is_none_exactly_for_the_shown_elements(s: mc.Screen) -> None:
    shown = [e for e, why in zip(s.elements, s.hidden, strict=True) if why is None]
    assert tuple(shown) == s.shown
    assert all(isinstance(why, Hidden) for why in s.hidden if why is not None)


def test_each_clause_of_the_rule_has_its_reason() -> None:
    s = mc.Screen.from_dict(
        {
            "app": "com.example.app",
            "elements": [
                el("Button", "Hidden", visible=False),
                el("Button", "Below", frame=(0.0, 1.0, 0.5, 0.5)),
                el("Button", "Flat", frame=(0.2, 0.2, 0.5, 0.0)),
                el("Window", "Main"),
                el("Switch", "Wi-Fi", children=[el("Switch")]),
                el("Button", "Shown"),
                el("Button", "Drawn by hand", frame=(0.0, 0.0, 0.0, 0.0)),
            ],
        }
    )
    why = {e.label or e.path: r for e, r in zip(s.elements, s.hidden, strict=True)}
    assert why == {
        "Hidden": Hidden.NOT_VISIBLE,
        "Below": Hidden.OFF_SCREEN,
        "Flat": Hidden.ZERO_SIZE,
        "Main": Hidden.CONTAINER,
        "Wi-Fi": None,
        "/0/4/0": Hidden.INNER_SWITCH,
        "Shown": None,
        "Drawn by hand": None,  # no frame: no geometry to judge (Rule 7)
    }
    assert all(r.why for r in Hidden)


def test_a_row_whose_labelled_content_is_all_hidden_is_shown_as_wda_says() -> None:
    s = screen(el("Cell", "Row", children=[el("StaticText", "Inside", visible=False)]))
    assert s.hidden == (None, Hidden.NOT_VISIBLE)  # WDA's rule: the row is visible, its text isn't


PAYWALL = screen(
    el("StaticText", "Annual", (0.0, 0.1, 0.5, 0.05)),
    el("Button", "Continue", (0.0, 0.2, 0.5, 0.05)),
    el("StaticText", "Monthly", (0.0, 0.5, 0.5, 0.05)),
    el("Button", "Continue", (0.0, 0.6, 0.5, 0.05), id="monthly_continue"),
    el("Button", "Skip", (0.0, 1.0, 0.5, 0.5)),
    el("TextField", "Email", id="email"),
    el("StaticText", "Sign up"),
    el("Button", "Sign up", (0.0, 0.8, 0.5, 0.05)),
)


def holds_on(s: mc.Screen, line: str, element: mc.Element) -> bool:
    """An offered expect line, read back as a check file holds it, singles out ``element`` on ``s``."""
    entry = load_yaml(f"- {line}\n", "<offer>").data[0]
    if "visible" in entry:
        entry = {"count": entry["visible"], "equals": 1}
    result = evaluate(parse_assertion(entry), s)[0]
    return result.ok and (result.matches == (element,) or "count" in entry)


def test_a_label_on_the_screen_once() -> None:
    offer = suggest(PAYWALL, "Email")
    assert offer.found is Found.UNIQUE
    assert offer.message == '"Email" is on the screen once'
    (only,) = offer.candidates
    assert only.step == 'Type "…" into "Email"'
    assert only.expect == ("visible: {id: email}", "text: Email")
    assert all(holds_on(PAYWALL, line, only.element) for line in only.expect)


def test_a_duplicated_label_gives_each_its_own_step_near_a_unique_label() -> None:
    offer = suggest(PAYWALL, "Continue")
    assert offer.found is Found.DUPLICATED
    first, second = offer.candidates
    assert (first.count, first.nth, first.near) == (2, 0, "Annual")
    assert first.step == 'Tap the "Continue" button near "Annual"'
    assert first.expect == ("{count: {label: Continue, role: button}, equals: 2}",)
    assert first.note is not None
    assert "identifier" in first.note
    assert (second.count, second.nth, second.near) == (2, 1, "Monthly")
    assert second.expect == ("visible: {id: monthly_continue}",)
    assert holds_on(PAYWALL, first.expect[0], first.element)
    assert holds_on(PAYWALL, second.expect[0], second.element)


def test_a_label_on_two_roles_names_the_role() -> None:
    offer = suggest(PAYWALL, "Sign up")
    assert [c.step for c in offer.candidates] == ['Tap the "Sign up" text', 'Tap the "Sign up" button']
    assert offer.candidates[1].expect == ("visible: {label: Sign up, role: button}",)
    assert offer.found is Found.DUPLICATED


def test_a_hidden_label_says_why_and_an_absent_one_its_near_misses() -> None:
    hidden = suggest(PAYWALL, "Skip")
    assert hidden.found is Found.HIDDEN
    assert [c.hidden for c in hidden.candidates] == [Hidden.OFF_SCREEN]
    assert hidden.candidates[0].step is None
    assert hidden.candidates[0].expect == ()
    absent = suggest(PAYWALL, "Emial")
    assert absent.found is Found.ABSENT
    assert absent.near_misses == ("Email",)
    assert absent.message == '"Emial" isn\'t on the screen; did you mean "Email"?'


def test_an_identifier_is_found_when_no_label_is() -> None:
    offer = suggest(PAYWALL, "monthly_continue")
    assert offer.found is Found.UNIQUE
    assert offer.candidates[0].element.label == "Continue"


def test_a_label_too_long_for_a_check_offers_no_label_selector() -> None:
    long = "x" * 900_000
    s = screen(el("StaticText", long), el("StaticText", long, (0.1, 0.5, 0.5, 0.05)))
    first = suggest(s, long).candidates[0]
    assert first.expect == ()
    assert first.note is not None
    assert "can't be written" in first.note


@pytest.mark.parametrize(
    "text",
    ["Continue", "a: b", "#tag", "true", "- dash", "x\u202ey", "tab\tnew\nline", 'say "hi"', "back\\slash", "😀", "42"],
)
def test_flow_yaml_reads_back_as_the_same_value(text: str) -> None:
    written = flow_yaml({"label": text, "role": "button"})
    assert load_yaml(f"visible: {written}\n", "<offer>").data == {"visible": {"label": text, "role": "button"}}
    assert "\u202e" not in written
    assert "\n" not in written


def test_read_differences_by_path() -> None:
    evidence = screen(el("Button", "Continue", visible=False), el("StaticText", "Plan", value="1"))
    fast = screen(el("Button", "Continue"), el("StaticText", "Plan", value="2"), el("Image", "New"))
    got = [(d.path, d.what) for d in read_differences(evidence, fast)]
    assert got == [
        ("/0/0", "the fast read shows it; the verdict's read doesn't (not visible)"),
        ("/0/1", "another value in the fast read"),
        ("/0/2", "only in the fast read"),
    ]
    assert read_differences(evidence, evidence) == ()


def test_the_python_block_of_docs_inspect_runs() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "inspect.md").read_text("utf-8")
    # The first block is the rules' (the second, --after's from Python, is run by tests/cli/test_inspect_reach.py).
    block = re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)[0]
    exec(compile(block, "docs/inspect.md", "exec"), {"__name__": "inspect_md"})


def test_a_label_on_the_screen_thousands_of_times_gives_the_first_twenty() -> None:
    rows = [el("Button", "Delete", (0.0, i / 3000, 0.5, 1 / 3000)) for i in range(3000)]
    offer = suggest(screen(*rows, el("Button", "Delete", visible=False)), "Delete")
    assert offer.found is Found.DUPLICATED
    assert (len(offer.candidates), offer.shown, offer.left_out) == (MAX_CANDIDATES, 3000, 3000 - MAX_CANDIDATES + 1)
    assert offer.message == '"Delete" is on the screen 3000 times: each needs its own selector (the first 20 are given)'
    steps = [c.step for c in offer.candidates]
    assert steps[:2] == ['Tap the first "Delete" button', 'Tap the second "Delete" button']
    assert steps[10:13] == [
        'Tap the 11th "Delete" button',
        'Tap the 12th "Delete" button',
        'Tap the 13th "Delete" button',
    ]
    assert [c.nth for c in offer.candidates] == list(range(MAX_CANDIDATES))


def test_a_blank_text_is_refused() -> None:
    with pytest.raises(ValueError, match="blank"):
        suggest(PAYWALL, "  ")
