"""WDA's source tree to a Screen, and the geometry of actions: pure functions, no server."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mobster_core import Element, Op
from mobster_drivers._xcuitest.gestures import center_points, pointer_actions, swipe_points
from mobster_drivers._xcuitest.tree import MAX_TEXT_CHARS, MAX_XML_BYTES, target_query, visible_query
from mobster_drivers.devices.wda import (
    MAX_NODES,
    normalize_wda_url,
    parse_xml_source,
    read_source,
    resolve,
    screen_from_source,
    source_bundle,
)
from mobster_drivers.devices.wda._transport import endpoint

ROOT = {"x": 0, "y": 0, "width": 400, "height": 800}


def node(kind: str, x: float = 0, y: float = 0, w: float = 100, h: float = 40, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "rect": {"x": x, "y": y, "width": w, "height": h}, **extra}


def tree(*children: dict[str, Any], rect: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "Application", "label": "App", "rect": rect or ROOT, "children": list(children)}


def test_roles_lose_the_prefix_and_paths_start_under_the_root() -> None:
    source = tree(
        node("Button", label="Go"),
        node("XCUIElementTypeCell", label="Row", children=[node("StaticText", label="Inner")]),
    )
    screen = screen_from_source(source, "com.x")
    assert [(e.role, e.label, e.path) for e in screen.elements] == [
        ("Button", "Go", "/0/0"),
        ("Cell", "Row", "/0/1"),
        ("StaticText", "Inner", "/0/1/0"),
    ]
    assert screen.app == "com.x"
    assert screen.size == (400, 800)


def test_identifiers_come_from_raw_identifier_else_a_name_that_is_not_the_label() -> None:
    source = tree(
        node("Button", label="Log in", name="login", rawIdentifier="login"),
        node("Button", label="Help", name="Help", rawIdentifier=None),
        node("Button", label="Old", name="old-id"),  # an older WDA without rawIdentifier
        node("Button", label="Same", name="Same"),
    )
    ids = [e.identifier for e in screen_from_source(source, "a").elements]
    assert ids == ["login", "", "old-id", ""]


def test_string_booleans_real_booleans_and_values() -> None:
    source = tree(
        node("Switch", label="Wifi", value="1", isEnabled="0"),
        node("Slider", label="Volume", value=0.5, isEnabled=True),
        node("Switch", label="Real", value=True, isEnabled=False),
        node("TextField", label="Count", value=3.0, traits="TextField, Selected"),
    )
    values = [(e.value, e.enabled, e.selected) for e in screen_from_source(source, "a").elements]
    assert values == [("1", False, False), ("0.5", True, False), ("1", False, False), ("3", True, True)]


def test_frames_are_normalized_and_clipped_and_visibility_comes_from_them() -> None:
    source = tree(
        node("Button", 40, 80, 320, 40, label="On"),
        node("Button", 300, 780, 200, 100, label="Edge"),
        node("Button", 0, 900, 100, 40, label="Below"),
        node("Button", 0, 0, 0, 0, label="Empty"),
        node("Button", 0, 0, 100, 40, label="Hidden", isVisible="0"),
    )
    elements = {e.label: e for e in screen_from_source(source, "a").elements}
    assert elements["On"].frame == (0.1, 0.1, 0.8, 0.05)
    assert elements["Edge"].frame == pytest.approx((0.75, 0.975, 0.25, 0.025))
    assert elements["Edge"].visible
    assert not elements["Below"].visible
    assert elements["Below"].frame == (0.0, 1.0, 0.25, 0.0)
    assert not elements["Empty"].visible
    assert not elements["Hidden"].visible


def test_the_frame_string_and_xml_attributes_stand_in_for_a_rect() -> None:
    source = tree(
        {"type": "Button", "label": "A", "frame": "{{40, 80}, {320, 40}}"},
        {"type": "XCUIElementTypeButton", "label": "B", "x": "40", "y": "80", "width": "320", "height": "40"},
    )
    frames = [e.frame for e in screen_from_source(source, "a").elements]
    assert frames == [(0.1, 0.1, 0.8, 0.05), (0.1, 0.1, 0.8, 0.05)]


def test_a_root_without_a_rect_uses_the_given_size() -> None:
    source = {"type": "Application", "children": [node("Button", 0, 0, 201, 437, label="Q")]}
    screen = screen_from_source(source, "a", size=(402, 874))
    assert screen.size == (402, 874)
    assert screen.elements[0].frame == (0.0, 0.0, 0.5, 0.5)
    with pytest.raises(ValueError, match="no rect and the screen size is unknown"):
        screen_from_source(source, "a")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ([], "not a tree"),
        ({"type": "Application", "rect": ROOT, "children": "x"}, "children is not a list"),
        (tree({"label": "no type"}), "has no type"),
        ({"type": "Application", "rect": ROOT, "children": ["text"]}, "is not an element"),
    ],
)
def test_a_tree_of_the_wrong_shape_says_what_is_wrong(source: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        screen_from_source(source, "a")


def test_a_read_walks_at_most_max_nodes() -> None:
    source = tree(*[node("Cell", label=str(i)) for i in range(MAX_NODES + 50)])
    assert len(screen_from_source(source, "a").elements) == MAX_NODES


def test_centres_and_swipes_in_points() -> None:
    assert center_points((0.1, 0.1, 0.8, 0.05), (400, 800)) == (200.0, 100.0)
    assert center_points((0.9, 0.9, 0.1, 0.1), (400, 800)) == (380.0, 760.0)
    assert center_points((0.0, 0.0, 1.0, 1.0), (3, 3)) == (1.5, 1.5)
    assert swipe_points(Op.SWIPE_UP, None, (400, 800)) == (200.0, 600.0, 200.0, 200.0)
    assert swipe_points(Op.SWIPE_DOWN, None, (400, 800)) == (200.0, 200.0, 200.0, 600.0)
    assert swipe_points(Op.SWIPE_LEFT, (0.0, 0.5, 1.0, 0.1), (400, 800)) == (300.0, 440.0, 100.0, 440.0)
    assert swipe_points(Op.SWIPE_RIGHT, (0.0, 0.5, 1.0, 0.1), (400, 800)) == (100.0, 440.0, 300.0, 440.0)
    with pytest.raises(ValueError, match="not a swipe"):
        swipe_points(Op.TAP, None, (400, 800))


def test_a_pointer_action_is_move_down_pause_up() -> None:
    body = pointer_actions(10.0, 20.0, 40)
    (finger,) = body["actions"]
    assert finger["parameters"] == {"pointerType": "touch"}
    assert [a["type"] for a in finger["actions"]] == ["pointerMove", "pointerDown", "pause", "pointerUp"]


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("http://localhost:8100/", "http://127.0.0.1:8100"),
        ("HTTP://127.0.0.1:8101", "http://127.0.0.1:8101"),
        ("127.0.0.1", "http://127.0.0.1:8100"),
        ("http://[::1]:8100", "http://[::1]:8100"),
    ],
)
def test_wda_urls_are_normalized(url: str, normalized: str) -> None:
    assert normalize_wda_url(url) == normalized


@pytest.mark.parametrize("url", ["ftp://x", "http://", "http://h:8100/status", "http://h:99999"])
def test_what_is_not_a_wda_url(url: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        normalize_wda_url(url)


def test_endpoints_are_named_without_the_session() -> None:
    assert endpoint("POST", "/session/ABC123/wda/tap") == "POST /wda/tap"
    assert endpoint("GET", "/session/ABC/source?format=json") == "GET /source"
    assert endpoint("POST", "/session") == "POST /session"
    assert endpoint("GET", "/status") == "GET /status"


# -- the XML source, placeholders, traits (Rules 1-3) ------------------------------------------------

XML_FORM = """<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Form" label="Form" enabled="true" visible="true" x="0" y="0" width="400" height="800" bundleId="com.x">
  <XCUIElementTypeSearchField type="XCUIElementTypeSearchField" value="Search" name="Search" label="Search" enabled="true" visible="true" x="10" y="10" width="380" height="40" placeholderValue="Search" traits="SearchField"/>
  <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="ada" name="email" label="Email" enabled="true" visible="true" x="10" y="60" width="380" height="40" placeholderValue="you@example.com" traits=""/>
  <XCUIElementTypeButton type="XCUIElementTypeButton" name="plan" label="Annual" enabled="false" visible="false" x="10" y="110" width="380" height="40" traits="NotEnabled, Selected, Button"/>
  <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Search" name="Search" label="Search" enabled="true" visible="true" x="10" y="160" width="380" height="40" placeholderValue="Search" traits="StaticText"/>
</XCUIElementTypeApplication>"""  # noqa: E501 - WDA's own lines


def test_an_xml_source_reads_like_its_json() -> None:
    read = read_source(XML_FORM, "com.x")
    search, email, plan, text = read.screen.elements
    assert read.evidence
    assert (search.role, search.value, search.placeholder) == ("SearchField", "", "Search")
    assert (email.value, email.placeholder, email.identifier) == ("ada", "you@example.com", "email")
    assert (plan.enabled, plan.selected, plan.visible, plan.identifier) == (False, True, False, "plan")
    assert (text.value, text.placeholder) == ("Search", "")  # only a text input shows a placeholder
    assert source_bundle(XML_FORM) == "com.x"
    assert search.frame == (0.025, 0.0125, 0.95, 0.05)


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        ("<a>", "not well-formed"),
        ("", "not well-formed"),
        ('<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', "DOCTYPE"),
        ('<?xml version="1.0"?><!DOCTYPE a SYSTEM "file:///etc/passwd"><a/>', "DOCTYPE"),
        ("<a>&lol;</a>", "not well-formed"),
    ],
)
def test_a_hostile_xml_source_is_refused(xml: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_xml_source(xml)


def test_an_entity_bomb_is_refused_before_anything_expands() -> None:
    entities = "".join(f'<!ENTITY e{i} "&e{i - 1};&e{i - 1};&e{i - 1};">' for i in range(1, 10))
    bomb = f'<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e0 "ha">{entities}]><a>&e9;</a>'
    with pytest.raises(ValueError, match="DOCTYPE"):
        parse_xml_source(bomb)


def test_an_xml_source_over_the_size_cap_is_refused() -> None:
    with pytest.raises(ValueError, match="the limit is"):
        parse_xml_source(b"<a>" + b" " * MAX_XML_BYTES + b"</a>")


def test_deep_and_wide_xml_is_cut_to_the_caps() -> None:
    deep = "<XCUIElementTypeOther x='0' y='0' width='1' height='1'>" * 300 + "</XCUIElementTypeOther>" * 300
    tree = parse_xml_source(
        f"<XCUIElementTypeApplication x='0' y='0' width='10' height='10'>{deep}</XCUIElementTypeApplication>"
    )
    screen = screen_from_source(tree, "a")
    assert max(e.path.count("/") for e in screen.elements) <= 101
    wide = "<XCUIElementTypeCell x='0' y='0' width='1' height='1'/>" * (MAX_NODES + 10)
    tree = parse_xml_source(
        f"<XCUIElementTypeApplication x='0' y='0' width='10' height='10'>{wide}</XCUIElementTypeApplication>"
    )
    assert len(screen_from_source(tree, "a").elements) == MAX_NODES - 1  # the root counts


def test_lying_attributes_read_as_the_careful_answer() -> None:
    source = tree(
        node("Button", label="Maybe", isVisible="maybe"),  # not a flag WDA sends: not visible
        node("Button", label="Empty", isVisible="1", w=0, h=0),  # WDA says visible, it has no area
        node("Button", label="Far", isVisible="1", x=-5000, y=-5000),
        node("Button", label="NaN", rect={"x": "nan", "y": 0, "width": 10, "height": 10}, frame="{{nan, 0}, {10, 10}}"),
        node("Button", label="Negative", w=-50, h=40),
        node("Button", label="L" * (MAX_TEXT_CHARS + 50), traits=["Selected"]),
    )
    screen = screen_from_source(source, "a")
    assert [e.visible for e in screen.elements] == [False, False, False, False, False, True]
    assert len(screen.elements[-1].label) == MAX_TEXT_CHARS
    assert not screen.elements[-1].selected  # traits that aren't text are no traits


# -- the fast read's rules (Rule 6) ------------------------------------------------------------


def fast(*children: dict[str, Any]) -> Any:
    return read_source(tree(*children), "a")


def test_a_fast_read_clips_to_the_ancestors_and_hides_scroll_indicators() -> None:
    read = fast(
        node(
            "Table",
            0,
            100,
            400,
            600,
            children=[
                node(
                    "Cell",
                    0,
                    650,
                    400,
                    100,
                    label="Peeks out",
                    children=[node("StaticText", 10, 705, 100, 20, label="Below")],
                ),
                node("Other", 390, 100, 10, 600, label="Vertical scroll bar, 2 pages", value="0%", traits="Adjustable"),
            ],
        ),
        node("Other", 0, 0, 0, 0, children=[node("Button", 10, 10, 100, 40, label="In a sizeless parent")]),
    )
    visible = {e.label: e.visible for e in read.screen.elements if e.label}
    assert visible == {
        "Peeks out": True,  # a sliver of the cell is inside the table
        "Below": False,  # its text is not: clipped by the table
        "Vertical scroll bar, 2 pages": False,
        "In a sizeless parent": True,
    }
    # The cell's sliver is visible, so the cell is shown (WDA's rule, element by element: its text
    # below the table's edge is hidden, and hides nothing but itself), as Settings' VPN row is.
    assert {e.label for e in read.screen.shown if e.label} == {"Peeks out", "In a sizeless parent"}
    assert not read.ambiguous


def test_chrome_and_a_front_alert_cover_what_is_under_them() -> None:
    read = fast(
        node("StaticText", 0, 700, 400, 40, label="Under the toolbar"),
        node("StaticText", 0, 600, 400, 120, label="Half under it"),
        node(
            "Toolbar",
            0,
            690,
            400,
            110,
            label="Toolbar",
            children=[node("SearchField", 10, 700, 380, 40, label="Search")],
        ),
    )
    assert {e.label for e in read.screen.shown} == {"Half under it", "Toolbar", "Search"}
    alert = fast(
        node("Button", 0, 0, 100, 40, label="Behind"),
        node("Alert", 50, 300, 300, 200, label="Delete?", children=[node("Button", 60, 450, 100, 40, label="Delete")]),
    )
    assert {e.label for e in alert.screen.shown} == {"Delete?", "Delete"}


def test_stacked_pages_and_a_covered_pane_are_asked_about_and_resolved() -> None:
    read = fast(
        node("StaticText", 100, 100, 140, 30, label="Morning list"),
        node("StaticText", 80, 100, 200, 30, label="Weekly summary"),
        node("StaticText", 100, 600, 100, 30, label="Alone"),
        node("Other", 0, 0, 400, 800, children=[node("StaticText", 10, 300, 100, 20, label="Covered")]),
        node("Other", 0, 0, 400, 800, children=[node("Button", 0, 250, 400, 100, label="Cover")]),
    )
    assert [e.label for e in read.ambiguous] == ["Morning list", "Weekly summary", "Covered"]
    assert visible_query(read.ambiguous) == 'label IN {"Covered", "Morning list", "Weekly summary"} AND visible == 1'
    weekly = read.ambiguous[1]
    answer = [
        {
            "type": "XCUIElementTypeStaticText",
            "label": "Weekly summary",
            "rect": {"x": 80, "y": 100, "width": 200, "height": 30},
        }
    ]
    resolved = resolve(read, answer)
    assert {e.label for e in resolved.shown if e.label} == {"Weekly summary", "Alone", "Cover"}
    assert resolved.element_at(weekly.path) == weekly
    # No answer (WDA refused): every ambiguous element is hidden, never guessed shown.
    assert {e.label for e in resolve(read, None).shown if e.label} == {"Alone", "Cover"}
    # An answer about an element elsewhere with the same label doesn't count.
    elsewhere = [{**answer[0], "rect": {"x": 0, "y": 500, "width": 200, "height": 30}}]
    assert "Weekly summary" not in {e.label for e in resolve(read, elsewhere).shown}


def test_queries_quote_any_label() -> None:
    odd = Element(role="Button", label='Say "hi" \\ or \n', path="/0/0")
    assert visible_query([odd]) == 'label IN {"Say \\"hi\\" \\\\ or \\n"} AND visible == 1'
    assert (
        target_query(odd) == 'type == "XCUIElementTypeButton" AND label == "Say \\"hi\\" \\\\ or \\n" AND visible == 1'
    )
    assert target_query(Element(role="Image", identifier="logo")) == (
        'type == "XCUIElementTypeImage" AND name == "logo" AND visible == 1'
    )
    assert visible_query([Element(role="Other")]) is None


def test_a_hostile_stack_of_thousands_is_bounded_and_careful() -> None:
    read = fast(*(node("StaticText", 0, 0, 100, 40, label=f"L{i}") for i in range(5_000)))
    assert len(read.ambiguous) == 5_000
    query = visible_query(read.ambiguous)
    assert query is not None
    assert query.count('"L') == 100  # at most MAX_QUERY_LABELS; the rest stay hidden when resolved
    assert not [e for e in resolve(read, []).shown if e.label]


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(
                st.sampled_from(["type", "label", "rect", "children", "isVisible", "value", "traits"]), c, max_size=4
            )
        ),
        max_leaves=20,
    )
)
def test_any_json_reads_or_says_what_is_wrong(source: Any) -> None:
    try:
        read = read_source(source, "a", size=(400, 800))
    except ValueError:
        return
    assert all(0.0 <= v <= 1.0 for e in read.screen.elements for v in e.frame)


@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_text_parses_or_says_what_is_wrong(text: str | bytes) -> None:
    try:
        tree = parse_xml_source(text)
    except ValueError:
        return
    assert isinstance(tree.get("type"), str)
