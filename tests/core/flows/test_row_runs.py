"""Rows on the scripted phone: each row its own instance, typing and judged with its own values (issue 39)."""

from __future__ import annotations

import json
from pathlib import Path

import mobster_core as mc
from mobster_core import Op, load_check
from tests.core.flows.apps import shop, shop_project
from tests.core.flows.test_flow_runs import run_instance

TYPED = """\
name: Sign in
app: {bundle: com.example.shop}
rows:
  - {user: ada@example.com}
  - {user: bob@example.com}
steps:
  - Type ${user} into "Email"
expect:
  - value: {label: Email}
    equals: "${user}"
"""


def test_each_row_types_and_is_judged_with_its_own_value_and_the_path_keeps_the_reference(tmp_path: Path) -> None:
    file = shop_project(tmp_path, {"typed": TYPED})["typed"]
    ada, bob = load_check(file).instances()
    assert (ada.name, bob.name) == ("Sign in [ada@example.com]", "Sign in [bob@example.com]")
    first, _ = run_instance(ada, shop())
    assert (first.verdict, first.mode) == (mc.Verdict.PASSED, "smart"), first.outcome.message
    second, phone = run_instance(bob, shop(), model=False)
    assert (second.verdict, second.mode, second.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    # Row 2 typed its own value (row 1's would have passed a check judged with row 1's value).
    assert [a.text for a in phone.actions if a.op is Op.TYPE] == ["bob@example.com"]
    [path] = (tmp_path / ".mobster" / "cache" / "replay").glob("*.json")
    stored = json.loads(path.read_text())
    assert [s["text"] for s in stored["steps"]] == ["${user}"]
    assert "ada@example.com" not in path.read_text()
    assert "bob@example.com" not in path.read_text()


def test_a_row_is_judged_with_its_own_expectation_not_the_first_row_s(tmp_path: Path) -> None:
    wrong = TYPED.replace('equals: "${user}"', 'equals: "ada@example.com"')
    assert wrong != TYPED
    file = shop_project(tmp_path, {"typed": wrong})["typed"]
    ada, bob = load_check(file).instances()
    assert run_instance(ada, shop())[0].verdict is mc.Verdict.PASSED
    failed, _ = run_instance(bob, shop(), model=False)
    assert (failed.verdict, failed.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.ASSERTION)


PLANS = """\
name: Buy a plan
app: {bundle: com.example.shop}
rows:
  - {plan: free, done: Thanks for your order}
  - {plan: basic, done: Thanks for your order}
  - {plan: pro, done: A call is booked}
  - {plan: plus, done: Thanks for your order}
  - {plan: team, done: A call is booked}
steps:
  - Type "ada@example.com" into "Email"
  - Tap "Sign in"
  - Tap "Plans"
  - Tap "${plan}"
  - Tap "Confirm"
expect:
  - text: ${done}
"""


def test_rows_whose_screens_differ_keep_their_own_path_and_never_tap_on_a_screen_they_were_not_recorded_on(
    tmp_path: Path,
) -> None:
    file = shop_project(tmp_path, {"plans": PLANS})["plans"]
    rows = load_check(file).instances()
    first = [run_instance(row, shop()) for row in rows]
    assert [r.verdict for r, _ in first] == [mc.Verdict.PASSED] * 5, [r.outcome.message for r, _ in first]
    # Only the first pro row records a path of its own; team replays it.
    assert [r.model_calls > 0 for r, _ in first] == [True, False, True, False, False]
    paths = list((tmp_path / ".mobster" / "cache" / "replay").glob("*.json"))
    assert len(paths) == 2
    for (result, phone), row in zip(first, rows, strict=True):
        tapped = [a.element.label for a in phone.actions if a.op is Op.TAP and a.element is not None]
        assert row.row is not None
        assert row.row.values["plan"] in tapped, result.outcome.message
        assert tapped[-1] == "Confirm"
        # 0 wrong taps: a row taps only its own plan (again, after a relaunch, when it records its own
        # path), and Confirm once, on its own page: the shared path's Confirm drifted before any tap.
        assert {t for t in tapped if t in {"free", "basic", "pro", "plus", "team"}} == {row.row.values["plan"]}
        assert tapped.count("Confirm") == 1
    again = [run_instance(row, shop(), model=False)[0] for row in rows]
    assert [(r.verdict, r.model_calls) for r in again] == [(mc.Verdict.PASSED, 0)] * 5


def test_a_row_that_gives_a_typed_name_no_value_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    text = TYPED.replace("{user: ada@example.com}", "{name: ada, user: ada@example.com}")
    text = text.replace("{user: bob@example.com}", '{name: nobody, user: ""}')
    file = shop_project(tmp_path, {"typed": text})["typed"]
    _ada, empty = load_check(file).instances()
    result, phone = run_instance(empty, shop())
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.USAGE)
    assert "row [nobody] gives ${user} no value, and a step names it" in result.outcome.message
    assert phone.actions == []
