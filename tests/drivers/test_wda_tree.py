"""WDA's source tree to a Screen, and the geometry of actions: pure functions, no server."""

from __future__ import annotations

from typing import Any

import pytest

from mobster_core import Op
from mobster_drivers.wda import MAX_NODES, normalize_wda_url, screen_from_source
from mobster_drivers.wda._transport import endpoint
from mobster_drivers.wda._tree import center_points, pointer_actions, swipe_points

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
