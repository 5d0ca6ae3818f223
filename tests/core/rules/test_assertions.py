"""Assertions and selectors: parsing, normalization, what counts as shown, and what a failure says."""

from __future__ import annotations

import decimal
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.assertions import (
    ELEMENT_TYPES,
    FRIENDLY_ROLES,
    MAX_MATCHES,
    Assertion,
    ExpectError,
    Kind,
    Pattern,
    Selector,
    evaluate,
    first_number,
    near_misses,
    normalize,
    parse_assertion,
    parse_expect,
    role_types,
    shown_elements,
)
from mobster_core._rules.formats.yaml import dotted, kind_of
from mobster_core.results import AssertionResult

APP = "com.example.yourapp"
ROW = 0.0


def el(role: str, label: str = "", **kw: Any) -> dict[str, Any]:
    """An element dict with a frame on screen unless one is given (a new row each time)."""
    global ROW  # noqa: PLW0603 - rows keep test screens readable
    ROW = (ROW + 0.05) % 0.9
    item: dict[str, Any] = {"role": role, "frame": kw.pop("frame", [0.1, ROW, 0.8, 0.04])}
    if label:
        item["label"] = label
    item.update(kw)
    return item


def screen(*elements: dict[str, Any]) -> mc.Screen:
    return mc.Screen.from_dict({"app": APP, "elements": list(elements)})


def one(data: dict[str, Any]) -> Assertion:
    (assertion,) = parse_assertion(data)
    return assertion


def check(data: dict[str, Any], s: mc.Screen) -> AssertionResult:
    (result,) = evaluate([one(data)], s)
    return result


def problem(data: Any) -> ExpectError:
    with pytest.raises(ExpectError) as info:
        parse_assertion(data)
    return info.value


# -- normalization --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("  Welcome \n aboard\t ", "Welcome aboard"),
        ("Welcome\u00a0aboard", "Welcome aboard"),  # NBSP
        ("\u2018single\u2019 \u201cdouble\u201d", "'single' \"double\""),
        ("a\u2013b\u2014c\u2212d\u2011e", "a-b-c-d-e"),  # dashes, the minus sign, a non-breaking hyphen
        ("zero\u200bwidth\u200d\ufeff", "zerowidth"),
        ("\u200eleft\u200f \u202aembedded\u202c \u2066isolated\u2069", "left embedded isolated"),
        ("\uff21\uff22\uff23 \ufb01", "ABC fi"),  # NFKC: full-width letters, the fi ligature
        ("caf\u0065\u0301", "caf\u00e9"),  # NFKC composes
        ("", ""),
    ],
)
def test_normalize(raw: str, normal: str) -> None:
    assert normalize(raw) == normal


# -- patterns -------------------------------------------------------------------------------


def test_plain_text_and_regexes() -> None:
    plain = Pattern.parse("  Choose  your plan ")
    assert (plain.literal, plain.regex) == ("Choose your plan", None)
    assert plain.found_in("please CHOOSE YOUR PLAN now")
    assert not plain.equals("choose your plan")
    assert plain.equals("Choose your plan")
    regex = Pattern.parse("/^plan_/")
    assert regex.regex is not None
    assert regex.equals("plan_annual")
    assert not regex.equals("Plan_annual")
    assert regex.word == "^plan_"
    folded = Pattern.parse("/welcome/i")
    assert folded.found_in("WELCOME aboard")
    assert folded.show() == "/welcome/i"
    assert Pattern.parse("/a/i/").regex is not None  # ends with a slash: the pattern is "a/i"
    assert Pattern.parse("/a/i/").word == "a/i"


@pytest.mark.parametrize("text", ["/", "/i", "a/b/", "/a/x", "/a/I"])
def test_strings_that_are_not_regexes(text: str) -> None:
    assert Pattern.parse(text).regex is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("//", "an empty regex matches everything"),
        ("//i", "an empty regex matches everything"),
        ("/" + "a" * 501 + "/", "the regex is 501 characters; the limit is 500"),
        ("/(unclosed/", "is not a valid regex"),
        ("x" * 2001, "the text is 2001 characters; the limit is 2000"),
        (" \u200b\u00a0 ", "the text is blank and would match everything"),
    ],
)
def test_bad_patterns(text: str, message: str) -> None:
    with pytest.raises(ExpectError, match=message):
        Pattern.parse(text)


def test_pattern_limits_are_allowed() -> None:
    assert Pattern.parse("/" + "a" * 500 + "/").regex is not None
    assert Pattern.parse("x" * 2000).literal == "x" * 2000


# -- text and no_text -----------------------------------------------------------------------


def test_text_is_a_case_insensitive_substring_of_one_label_or_value() -> None:
    s = screen(el("StaticText", "Welcome aboard, Ada!"), el("TextField", "Email", value="ada@example.com"))
    assert check({"text": "welcome ABOARD"}, s).ok
    found = check({"text": "example.com"}, s)
    assert found.ok
    assert found.observed == 'found in the value of "Email"'
    assert check({"text": "Welcome aboard"}, s).observed == 'found in "Welcome aboard, Ada!"'


def test_text_is_never_joined_across_two_elements() -> None:
    s = screen(el("StaticText", "Welcome"), el("StaticText", "aboard"))
    assert not check({"text": "Welcome aboard"}, s).ok


def test_text_compares_normalized_text() -> None:
    s = screen(el("StaticText", "You\u2019re\u00a0all   set \u2014 enjoy"))
    assert check({"text": "you're all set - enjoy"}, s).ok
    assert check({"text": "You\u2019re all set"}, s).ok


def test_text_regexes() -> None:
    s = screen(el("StaticText", "Order #12345 confirmed"))
    assert check({"text": r"/#\d{5}/"}, s).ok
    assert not check({"text": "/ORDER/"}, s).ok
    assert check({"text": "/ORDER/i"}, s).ok


def test_text_found_in_several_elements() -> None:
    s = screen(el("StaticText", "Plan A"), el("StaticText", "Plan B"), el("StaticText", "Plan C"))
    result = check({"text": "plan"}, s)
    assert result.observed == 'found in "Plan A" and 2 more'
    assert len(result.matches) == 3


def test_a_failing_text_lists_near_misses() -> None:
    s = screen(el("StaticText", "Welcome back"), el("StaticText", "Sign in"), el("Button", "Continue"))
    result = check({"text": "Welcome aboard"}, s)
    assert not result.ok
    assert result.observed == 'not on the screen; closest: "Welcome back"'


def test_a_failing_text_with_nothing_close_lists_the_most_alike() -> None:
    s = screen(el("StaticText", "Your plan"), el("StaticText", "zzzz"))
    result = check({"text": "Choose a plan today"}, s)
    assert result.observed == 'not on the screen; closest: "Your plan"'
    assert check({"text": "qqqqqqqq"}, s).observed == "not on the screen"


def test_a_failing_text_notes_matches_off_screen() -> None:
    s = screen(
        el("StaticText", "Terms of service", frame=[0.0, 1.0, 1.0, 0.1]),  # below the screen
        el("StaticText", "Terms apply", visible=False),
    )
    assert check({"text": "terms"}, s).observed == "not on the screen; 2 more off screen or hidden: swipe to them"
    assert check({"text": "service"}, s).observed.endswith("; 1 more off screen or hidden: swipe to it")


def test_no_text() -> None:
    loading = screen(el("StaticText", "Loading\u2026"), el("ActivityIndicator", value="In progress"))
    result = check({"no_text": "loading"}, loading)
    assert not result.ok
    assert result.observed == 'shown in "Loading\u2026"'
    assert check({"no_text": "progress"}, loading).observed == "shown in the value of ActivityIndicator at /0/1"
    assert check({"no_text": "Error"}, loading).ok
    assert check({"no_text": "Error"}, loading).observed == "not on the screen"
    hidden = screen(el("StaticText", "Loading", visible=False))
    result = check({"no_text": "Loading"}, hidden)
    assert result.ok
    assert result.observed == "not on the screen; 1 more off screen or hidden: swipe to it"


def test_a_text_list_expands_into_one_assertion_each() -> None:
    expanded = parse_assertion({"text": ["Today", "/routine/i"], "name": "Home"})
    assert [a.show() for a in expanded] == ['text "Today"', "text /routine/i"]
    assert {a.name for a in expanded} == {"Home"}
    assert [a.show() for a in parse_assertion({"no_text": ["Error", "Oops"]})] == ['no_text "Error"', 'no_text "Oops"']


# -- what counts as shown -------------------------------------------------------------------


def test_what_counts_as_shown() -> None:
    s = screen(
        el("StaticText", "shown"),
        el("StaticText", "hidden", visible=False),
        el("StaticText", "no size", frame=[0.1, 0.1, 0.0, 0.0]),
        el("StaticText", "zero height", frame=[0.1, 0.1, 0.5, 0.0]),
        el("StaticText", "below", frame=[0.0, 1.0, 1.0, 0.2]),
        el("StaticText", "to the right", frame=[1.0, 0.5, 0.2, 0.1]),
        el("StaticText", "partly on screen", frame=[0.9, 0.95, 0.5, 0.5]),
        el("Window", "a window"),
        el("Application", "the app"),
    )
    assert [e.label for e in shown_elements(s)] == ["shown", "partly on screen"]


def test_a_hidden_container_does_not_hide_its_rows() -> None:
    s = screen(el("CollectionView", visible=False, children=[el("Cell", "Row 1")]))
    assert [e.label for e in shown_elements(s)] == ["Row 1"]


def test_a_swiftui_toggle_counts_once() -> None:
    s = screen(
        el("Switch", "Notifications", value="1", children=[el("Switch", value="1")]),
        el("Switch", "Outer", children=[el("Switch", "Inner labelled")]),
        el("Switch", "Outer 2", children=[el("Switch", id="inner")]),
    )
    assert [(e.label, e.identifier) for e in shown_elements(s)] == [
        ("Notifications", ""),
        ("Outer", ""),
        ("Inner labelled", ""),
        ("Outer 2", ""),
        ("", "inner"),
    ]
    assert check({"count": {"role": "switch"}, "equals": 5}, s).ok


# -- selectors ------------------------------------------------------------------------------


PLANS = screen(
    el("Cell", id="plan_annual", value="$39.99 / year", children=[el("StaticText", "Annual")]),
    el("Cell", id="plan_monthly", value="$4.99 / month", children=[el("StaticText", "Monthly")]),
    el("Cell", id="plan_weekly", value="$1.99 / week", children=[el("StaticText", "Weekly")]),
    el("Button", "Restore Purchases"),
    el("Button", "Subscribe", enabled=False),
    el("Image", "Crown"),
    el("Switch", "Reminders", value="0", selected=True),
)


@pytest.mark.parametrize(
    ("selector", "count"),
    [
        ({"id": "plan_annual"}, 1),
        ({"id": "/^plan_/"}, 3),
        ({"id": "/^PLAN_/i"}, 3),
        ({"id": "/.*/"}, 3),  # an element without an identifier never matches id
        ({"id": "Plan_annual"}, 0),  # case-sensitive
        ({"label": "Restore Purchases"}, 1),
        ({"label": "restore purchases"}, 0),
        ({"label": "Restore"}, 0),  # exact, not a substring
        ({"label": "/restore/i"}, 1),
        ({"value": "$39.99 / year"}, 1),
        ({"value": "/week|month/"}, 2),
        ({"role": "button"}, 2),
        ({"role": "Button"}, 2),
        ({"role": "XCUIElementTypeButton"}, 2),
        ({"role": "cell"}, 3),
        ({"role": "text"}, 3),
        ({"role": "StaticText"}, 3),
        ({"role": "image"}, 1),
        ({"role": "switch"}, 1),
        ({"role": "toggle"}, 1),
        ({"role": "Toggle"}, 0),
        ({"role": "button", "enabled": False}, 1),
        ({"role": "button", "enabled": True}, 1),
        ({"selected": True}, 1),
        ({"role": "switch", "selected": False}, 0),
        ({"role": "cell", "id": "/annual/"}, 1),
        ({"role": "button", "label": "Crown"}, 0),
    ],
)
def test_selector_fields(selector: dict[str, Any], count: int) -> None:
    result = check({"count": selector, "equals": count}, PLANS)
    assert result.ok, result.observed


@pytest.mark.parametrize(
    ("friendly", "roles"),
    [
        ("button", {"Button"}),
        ("text", {"StaticText"}),
        ("field", {"TextField", "SecureTextField", "SearchField", "TextView"}),
        ("switch", {"Switch", "Toggle"}),
        ("toggle", {"Switch", "Toggle"}),
        ("cell", {"Cell"}),
        ("image", {"Image", "Icon"}),
        ("link", {"Link"}),
        ("tab", {"Tab"}),
        ("slider", {"Slider"}),
        ("stepper", {"Stepper"}),
        ("picker", {"Picker", "PickerWheel", "DatePicker"}),
        ("segment", {"SegmentedControl"}),
        ("navbar", {"NavigationBar"}),
        ("alert", {"Alert"}),
    ],
)
def test_friendly_role_names(friendly: str, roles: set[str]) -> None:
    assert role_types(friendly) == roles
    assert roles <= ELEMENT_TYPES
    s = screen(*(el(role, f"x {role}") for role in sorted(roles)), el("Other", "other"))
    assert check({"count": {"role": friendly}, "equals": len(roles)}, s).ok


def test_friendly_roles_cover_every_table_row() -> None:
    assert len(FRIENDLY_ROLES) == 15


def test_a_tab_is_also_a_button_in_a_tab_bar() -> None:
    s = screen(
        el("TabBar", children=[el("Button", "Home"), el("Button", "Settings")]),
        el("Button", "Continue"),
        el("Tab", "Library"),
    )
    result = check({"count": {"role": "tab"}, "equals": 3}, s)
    assert result.ok, result.observed
    assert [e.label for e in result.matches] == ["Home", "Settings", "Library"]
    assert check({"visible": {"role": "tab", "label": "Continue"}}, s).ok is False
    assert check({"count": {"role": "Tab"}, "equals": 1}, s).ok


def test_field_covers_secure_and_search_fields() -> None:
    s = screen(el("SecureTextField", "Password", value="\u2022\u2022\u2022\u2022"), el("SearchField", "Search"))
    assert check({"count": {"role": "field"}, "equals": 2}, s).ok
    assert check({"value": {"label": "Password"}, "equals": "\u2022\u2022\u2022\u2022"}, s).ok


@pytest.mark.parametrize(
    ("role", "hint"),
    [
        ("buton", "did you mean 'button'?"),
        ("statictext", "did you mean 'StaticText'?"),
        ("XCUIElementTypeButtn", "did you mean 'Button'?"),
        ("qqqq", "unknown role 'qqqq'; write a friendly role"),
    ],
)
def test_unknown_roles_get_a_hint(role: str, hint: str) -> None:
    with pytest.raises(ValueError, match=hint):
        role_types(role)
    err = problem({"visible": {"role": role}})
    assert err.keys == ("visible", "role")
    assert hint.split(";", maxsplit=1)[0] in err.problem


# -- visible and absent ---------------------------------------------------------------------


def test_visible() -> None:
    result = check({"visible": {"label": "Restore Purchases", "role": "button"}}, PLANS)
    assert (result.ok, result.observed) == (True, 'found "Restore Purchases"')
    many = check({"visible": {"role": "cell"}}, PLANS)
    assert many.observed == "found plan_annual, plan_monthly, plan_weekly"
    more = check({"visible": {"role": "text"}}, screen(*(el("StaticText", f"t{i}") for i in range(5))))
    assert more.observed == 'found "t0", "t1", "t2" and 2 more'


def test_a_failing_visible_gives_near_misses_by_id_else_label_else_value() -> None:
    by_id = check({"visible": {"id": "plan_anual", "label": "Annual"}}, PLANS)
    assert by_id.observed.startswith('not on the screen; closest ids: "plan_annual"')
    by_label = check({"visible": {"label": "Restore purchase"}}, PLANS)
    assert by_label.observed == 'not on the screen; closest labels: "Restore Purchases"'
    by_value = check({"visible": {"value": "$39.99/year"}}, PLANS)
    assert by_value.observed.startswith('not on the screen; closest values: "$39.99 / year"')
    by_role = check({"visible": {"role": "slider"}}, PLANS)
    assert by_role.observed == "not on the screen"


def test_a_failing_visible_notes_matches_off_screen() -> None:
    s = screen(el("Button", "Delete account", frame=[0.0, 1.0, 1.0, 0.1]))
    result = check({"visible": {"label": "Delete account"}}, s)
    assert result.observed == "not on the screen; 1 more off screen or hidden: swipe to it"


def test_absent() -> None:
    assert check({"absent": {"label": "Loading"}}, PLANS).observed == "not on the screen"
    result = check({"absent": {"role": "button"}}, PLANS)
    assert (result.ok, result.observed) == (False, 'found "Restore Purchases", "Subscribe"')


# -- value ----------------------------------------------------------------------------------


def test_value_equals_a_string() -> None:
    result = check({"value": {"id": "plan_annual"}, "equals": "$39.99 / year"}, PLANS)
    assert (result.ok, result.observed) == (True, 'plan_annual is "$39.99 / year"')
    wrong = check({"value": {"id": "plan_annual"}, "equals": "$49.99 / year"}, PLANS)
    assert (wrong.ok, wrong.observed) == (False, 'plan_annual is "$39.99 / year"')
    s = screen(el("StaticText", "Greeting", value="Hello\u00a0 \u201cAda\u201d"))
    assert check({"value": {"label": "Greeting"}, "equals": 'Hello "Ada"'}, s).ok
    assert not check({"value": {"label": "Greeting"}, "equals": 'hello "ada"'}, s).ok


def test_value_not_found_and_ambiguous() -> None:
    missing = check({"value": {"id": "plan_anual"}, "equals": "x"}, PLANS)
    assert missing.observed.startswith('not found; closest ids: "plan_annual"')
    two = check({"value": {"role": "button"}, "equals": "x"}, PLANS)
    assert (two.ok, two.observed) == (False, 'ambiguous: 2 match ("Restore Purchases", "Subscribe")')
    assert len(two.matches) == 2


@pytest.mark.parametrize(
    ("value", "expected", "ok"),
    [
        ("1", True, True),
        ("On", True, True),
        ("YES", True, True),
        ("true", True, True),
        ("0", True, False),
        ("off", False, True),
        ("No", False, True),
        ("false", False, True),
        ("1", False, False),
    ],
)
def test_value_equals_a_flag(value: str, expected: bool, ok: bool) -> None:
    s = screen(el("Switch", "Daily reminder", id="daily_reminder", value=value))
    assert check({"value": {"id": "daily_reminder"}, "equals": expected}, s).ok is ok


def test_a_flag_that_is_neither_on_nor_off() -> None:
    s = screen(el("Switch", "Daily reminder", id="daily_reminder", value="maybe"))
    result = check({"value": {"id": "daily_reminder"}, "equals": True}, s)
    assert result.observed == 'daily_reminder is "maybe": neither on nor off'


@pytest.mark.parametrize(
    ("value", "expected", "ok"),
    [
        ("3.4", 3, True),  # the expected number's own precision
        ("3.6", 3, False),  # rounds half up to 4
        ("$39.99 / year", 39.99, True),
        ("$39 / year", 39.99, False),
        ("$39.994", 39.99, True),
        ("39.995", 39.99, False),
        ("1,234 steps", 1234, True),
        ("12 345 points", 12345, True),
        ("1,234,567.5", 1234567.5, True),
        ("1,23", 1, True),  # a group must be three digits: the first number is 1
        ("1,2345", 1, True),
        ("-5 \u00b0C", -5, True),
        ("\u22125 \u00b0C", -5, True),  # the minus sign
        ("iOS-26", 26, True),  # a dash glued to a word is not a minus
        ("v2.1 build 7", 2.1, True),
        ("Level3", 3, True),
        ("50%", 50, True),
        ("50%", 50.0, True),
        ("0.1", 0.1, True),
        ("3", 3.0, True),
        ("3", 1e-07, False),
        ("12345678901234567890", 12345678901234567890, True),
    ],
)
def test_value_equals_a_number(value: str, expected: float, ok: bool) -> None:
    s = screen(el("StaticText", "Total", value=value))
    assert check({"value": {"label": "Total"}, "equals": expected}, s).ok is ok


def test_a_number_that_does_not_match_says_how_it_reads() -> None:
    s = screen(el("StaticText", "Price", id="price", value="$39 / year"))
    result = check({"value": {"id": "price"}, "equals": 39.99}, s)
    assert result.observed == 'price is "$39 / year" (reads as 39.00)'
    empty = screen(el("StaticText", "Price", id="price", value="Loading"))
    assert check({"value": {"id": "price"}, "equals": 3}, empty).observed == 'price is "Loading": no number in it'


def test_a_number_far_too_long_to_compare_does_not_match() -> None:
    s = screen(el("StaticText", "Big", value="9" * 300))
    result = check({"value": {"label": "Big"}, "equals": 0.5}, s)
    assert not result.ok
    assert result.observed.endswith(": the number is out of range")


def test_first_number() -> None:
    assert first_number("$1,234.50 / year") == decimal.Decimal("1234.50")
    assert first_number("no digits") is None
    assert first_number(".5") is None


# -- count ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bound", "limit", "ok"),
    [("equals", 3, True), ("equals", 2, False), ("at_least", 3, True), ("at_least", 4, False), ("at_most", 3, True)],
)
def test_count_bounds(bound: str, limit: int, ok: bool) -> None:
    result = check({"count": {"id": "/^plan_/"}, bound: limit}, PLANS)
    # A failing count names what it counted (by label or the text inside); a passing one doesn't.
    observed = "found 3" if ok else 'found 3: "Annual", "Monthly", "Weekly"'
    assert (result.ok, result.observed) == (ok, observed)


def test_count_at_most_and_zero() -> None:
    assert not check({"count": {"role": "cell"}, "at_most": 2}, PLANS).ok
    assert check({"count": {"role": "slider"}, "equals": 0}, PLANS).ok


def test_a_failing_count_names_what_it_counted_and_what_it_left_out() -> None:
    s = screen(el("Cell", "a"), el("Cell", "b", frame=[0.0, 1.0, 1.0, 0.1]))
    assert check({"count": {"role": "cell"}, "equals": 2}, s).observed == (
        'found 1: "a"; left out 1 not shown (hidden, covered or off screen): "b"'
    )


def test_a_failing_count_lists_ten_by_label_or_the_text_inside_then_how_many_more() -> None:
    rows = [el("Cell", children=[el("StaticText", f"row {i}")]) for i in range(13)]
    hidden = el("Cell", "Screen Time", visible=False)
    result = check({"count": {"role": "cell"}, "equals": 12}, screen(*rows, hidden))
    listed = ", ".join(f'"row {i}"' for i in range(10))
    assert result.observed == (
        f'found 13: {listed} \u2026and 3 more; left out 1 not shown (hidden, covered or off screen): "Screen Time"'
    )


def test_a_selector_whose_only_wrong_field_is_the_role_says_so() -> None:
    s = screen(el("StaticText", "Weekly summary"), el("Button", "Share week", id="share_week"))
    assert check({"visible": {"label": "Share week", "role": "tab"}}, s).observed == (
        '"Share week" is on the screen as a Button, not a tab'
    )
    assert check({"count": {"label": "Share week", "role": "image"}, "equals": 1}, s).observed == (
        'found 0; "Share week" is on the screen as a Button, not an image'
    )
    assert check({"value": {"id": "share_week", "role": "cell"}, "equals": "x"}, s).observed == (
        "share_week is on the screen as a Button, not a cell"
    )
    # A selector with a role only has nothing else to go on: near misses as before.
    assert check({"visible": {"role": "slider"}}, s).observed == "not on the screen"


def test_a_field_showing_its_placeholder_reads_empty_and_says_so() -> None:
    s = screen(el("SearchField", "Search", value="", placeholder="Search"))
    result = check({"value": {"role": "field"}, "equals": ""}, s)
    assert result.ok
    failing = check({"value": {"role": "field"}, "equals": "Search"}, s)
    assert not failing.ok
    assert failing.observed == '"Search" is "" (it shows its placeholder "Search")'


def test_at_most_ten_matches_are_kept() -> None:
    s = screen(*(el("Cell", f"row {i}") for i in range(15)))
    result = check({"count": {"role": "cell"}, "at_least": 1}, s)
    assert result.observed == "found 15"
    assert len(result.matches) == MAX_MATCHES


# -- names of elements in messages ----------------------------------------------------------


def test_elements_are_named_by_id_else_label_else_role_and_what_is_inside() -> None:
    s = screen(
        el("Cell", children=[el("Image"), el("StaticText", "Account")]),
        el("Cell"),
        el("Cell", "x" * 100),
    )
    assert check({"visible": {"role": "cell"}}, s).observed == (
        'found Cell "Account", Cell at /0/1, "' + "x" * 79 + '\u2026"'
    )


# -- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "keys", "message"),
    [
        ("Welcome", (), "got 'Welcome' (a string); write - text: \"Welcome\""),
        (None, (), "got nothing (null); write - text: Welcome"),
        ({"txt": "x"}, ("txt",), "unknown key 'txt' (did you mean 'text'?)"),
        ({"name": "x"}, (), "no kind: an assertion needs one of text, no_text"),
        ({"text": "a", "visible": {"id": "b"}}, (), "two kinds (text and visible)"),
        ({"text": "a", "equals": 1}, ("equals",), "equals belongs to value and count assertions, not to text"),
        ({"absent": {"id": "a"}, "at_most": 1}, ("at_most",), "not to absent"),
        ({"value": {"id": "a"}}, (), "a value assertion needs equals"),
        ({"value": {"id": "a"}, "at_least": 1}, ("at_least",), "a value assertion takes equals, not at_least"),
        ({"value": {"id": "a"}, "equals": None}, ("equals",), "got nothing (null)"),
        ({"value": {"id": "a"}, "equals": [1]}, ("equals",), "expected text, a number or true/false, got a list"),
        ({"value": {"id": "a"}, "equals": float("nan")}, ("equals",), "expected a finite number"),
        ({"value": {"id": "a"}, "equals": float("inf")}, ("equals",), "expected a finite number"),
        ({"value": {"id": "a"}, "equals": "x" * 2001}, ("equals",), "the limit is 2000"),
        ({"count": {"id": "a"}}, (), "a count takes exactly one of equals, at_least, at_most; got none"),
        ({"count": {"id": "a"}, "at_least": 1, "at_most": 3}, (), "got at_least and at_most"),
        ({"count": {"id": "a"}, "equals": 3.0}, ("equals",), "expected a whole number from 0, got 3.0 (a number)"),
        ({"count": {"id": "a"}, "equals": -1}, ("equals",), "write equals: 3"),
        ({"count": {"id": "a"}, "at_least": True}, ("at_least",), "got true (a flag)"),
        ({"count": {"id": "a"}, "at_most": "2"}, ("at_most",), "got '2' (a string)"),
        ({"visible": "Continue"}, ("visible",), 'write visible: {label: "Continue"}'),
        ({"absent": 3}, ("absent",), "write absent: {label: Continue}"),
        ({"visible": {}}, ("visible",), "the selector is empty"),
        ({"visible": {"text": "Go"}}, ("visible", "text"), "unknown selector key 'text' (did you mean 'label'?)"),
        ({"visible": {"identifier": "go"}}, ("visible", "identifier"), "(did you mean 'id'?)"),
        ({"visible": {"rol": "button"}}, ("visible", "rol"), "(did you mean 'role'?)"),
        ({"visible": {"qq": 1}}, ("visible", "qq"), "(allowed: enabled, id, label, role, selected, value)"),
        ({"visible": {"label": 3}}, ("visible", "label"), 'quote it: label: "3"'),
        ({"visible": {"role": 3}}, ("visible", "role"), "expected a string, got 3"),
        ({"visible": {"enabled": "yes"}}, ("visible", "enabled"), "expected true or false, got 'yes' (a string)"),
        ({"visible": {"selected": 1}}, ("visible", "selected"), "write selected: true or selected: false"),
        ({"visible": {"id": "//"}}, ("visible", "id"), "an empty regex"),
        ({"text": "a", "name": ""}, ("name",), "the name is blank"),
        ({"text": "a", "name": "n" * 121}, ("name",), "the name is 121 characters; the limit is 120"),
        ({"text": "a", "name": 3}, ("name",), 'quote it: name: "3"'),
        ({"text": {"a": 1}}, ("text",), "expected a string, got a mapping; write a string"),
        ({"text": []}, ("text",), "the list is empty"),
        ({"text": ["a", None]}, ("text", 1), "got nothing (null); write a string"),
    ],
)
def test_parse_errors_say_where_what_and_how(data: Any, keys: tuple[str | int, ...], message: str) -> None:
    err = problem(data)
    assert message in str(err)
    assert err.keys == keys
    assert str(err).startswith(f"{dotted(keys)}: " if keys else err.problem)


def test_parse_expect_needs_a_list_and_counts_after_expansion() -> None:
    assert parse_expect([]) == ()
    with pytest.raises(ExpectError, match="expected a list of assertions"):
        parse_expect({"text": "a"})
    assert len(parse_expect([{"text": [f"t{i}" for i in range(25)]}, {"text": [f"u{i}" for i in range(25)]}])) == 50
    with pytest.raises(ExpectError, match="51 assertions after lists expand; the limit is 50; split the check"):
        parse_expect([{"text": [f"t{i}" for i in range(50)]}, {"no_text": "x"}])
    with pytest.raises(ExpectError) as info:
        parse_expect([{"text": "a"}, {"text": "//"}])
    assert info.value.keys == (1, "text")


def test_names_are_kept_and_stripped() -> None:
    assert one({"text": "a", "name": "  Greeting  "}).name == "Greeting"


# -- one-line forms and the canonical form --------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ({"text": "Choose your plan"}, 'text "Choose your plan"'),
        ({"no_text": "/load(ing)?/i"}, "no_text /load(ing)?/i"),
        ({"count": {"id": "/^plan_/"}, "equals": 3}, "count id=/^plan_/ == 3"),
        ({"count": {"role": "cell"}, "at_least": 2}, "count role=cell >= 2"),
        ({"count": {"role": "cell"}, "at_most": 5}, "count role=cell <= 5"),
        ({"value": {"id": "plan_annual"}, "equals": "$39.99 / year"}, 'value id=plan_annual == "$39.99 / year"'),
        ({"value": {"id": "daily_reminder"}, "equals": True}, "value id=daily_reminder == true"),
        ({"value": {"id": "n"}, "equals": 39.99}, "value id=n == 39.99"),
        (
            {"visible": {"label": "Restore Purchases", "role": "button"}},
            'visible label="Restore Purchases" role=button',
        ),
        (
            {"absent": {"id": "a b", "value": "v", "enabled": False, "selected": True}},
            'absent id="a b" value="v" enabled=false selected=true',
        ),
    ],
)
def test_one_line_forms_and_round_trip(data: dict[str, Any], line: str) -> None:
    assertion = one(data)
    assert assertion.show() == line
    assert assertion.to_dict() == data
    assert parse_assertion(assertion.to_dict()) == (assertion,)


def test_to_dict_keeps_the_name() -> None:
    assert one({"visible": {"id": "x"}, "name": "n"}).to_dict() == {"visible": {"id": "x"}, "name": "n"}


def test_subject_accessors() -> None:
    text = one({"text": "a"})
    assert (text.text, text.selector, text.bound) == (Pattern.parse("a"), None, None)
    count = one({"count": {"id": "a"}, "at_least": 1})
    assert count.text is None
    assert count.selector == Selector(id=Pattern.parse("a"))
    assert count.bound == ("at_least", 1)


@pytest.mark.parametrize(
    ("kind", "textual", "bounds"),
    [
        (Kind.TEXT, False, {}),
        (Kind.VISIBLE, True, {}),
        (Kind.VALUE, False, {}),
        (Kind.VALUE, False, {"equals": float("nan")}),
        (Kind.VALUE, False, {"equals": 1, "at_least": 1}),
        (Kind.COUNT, False, {"equals": -1}),
        (Kind.COUNT, False, {"equals": 1, "at_most": 2}),
        (Kind.VISIBLE, False, {"equals": 1}),
    ],
)
def test_a_malformed_assertion_built_in_python_is_refused(kind: Kind, textual: bool, bounds: dict[str, Any]) -> None:
    subject = Pattern.parse("x") if textual else Selector(role="button")
    with pytest.raises(ValueError, match="assertion"):
        Assertion(kind, subject, **bounds)


def test_building_assertions_and_selectors_in_python() -> None:
    assert Assertion(Kind.COUNT, Selector(role="button"), at_most=1).show() == "count role=button <= 1"
    assert Assertion("text", Pattern.parse("x")).kind is Kind.TEXT
    with pytest.raises(ValueError, match="a selector needs at least one of"):
        Selector()
    with pytest.raises(ValueError, match="unknown role"):
        Selector(role="buton")
    assert Selector(role="button").types == {"Button"}
    assert Selector(id=Pattern.parse("x")).types == frozenset()


def test_results_serialize_as_in_the_results_json() -> None:
    result = check({"text": "Restore"}, PLANS)
    assert result.to_dict() == {"text": 'text "Restore"', "ok": True, "observed": 'found in "Restore Purchases"'}
    assert check({"text": "Restore", "name": "n"}, PLANS).name == "n"


def test_every_assertion_is_evaluated_on_the_same_read() -> None:
    s = screen(el("StaticText", "Loading"))
    results = evaluate(parse_expect([{"no_text": "Loading"}, {"text": "Welcome"}]), s)
    assert [r.ok for r in results] == [False, False]


# -- helpers --------------------------------------------------------------------------------


def test_near_misses() -> None:
    assert near_misses("Continue", ["continue", "Continue", "Cancel"]) == ["continue"]
    assert near_misses("abc", []) == []
    many = [f"label {i}" for i in range(600)]
    assert len(near_misses("label 1", many)) == 5


def test_kind_of_and_dotted() -> None:
    assert kind_of("x" * 100) == repr("x" * 79 + "\u2026") + " (a string)"
    assert kind_of({1, 2}) == "a set (from a YAML tag or an unquoted date)"
    assert dotted(("expect", 2, "count", "equals")) == "expect[2].count.equals"
    assert dotted((0, "text")) == "[0].text"
    assert str(ExpectError((), "bad", "fix it")) == "bad; fix it"
