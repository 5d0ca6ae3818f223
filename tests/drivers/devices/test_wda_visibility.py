"""The WDA device's visibility queries where WDA answers oddly: refused, compact, garbled.

A scripted transport answers from a table, to reach what the fake server never sends.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import mobster_core as mc
from mobster_drivers.devices.wda import WdaDevice, WdaErrorReply, WdaReply
from tests.samples import W3C_ELEMENT as W3C

APP = "com.example.pages"


def text(label: str, x: int, y: int = 100, w: int = 140, h: int = 30) -> dict[str, Any]:
    return {"type": "StaticText", "label": label, "rect": {"x": x, "y": y, "width": w, "height": h}}


#: Two pages stacked in one place (ambiguous), a lone button, and a button half off the screen.
PAGES = {
    "type": "Application",
    "rect": {"x": 0, "y": 0, "width": 400, "height": 800},
    "children": [
        text("Morning list", 100),
        text("Weekly summary", 80, w=200),
        {"type": "Button", "label": "Go", "rect": {"x": 10, "y": 500, "width": 100, "height": 40}},
        {"type": "Button", "label": "Edge", "rect": {"x": 350, "y": 600, "width": 100, "height": 40}},
    ],
}


class Table:
    """Answers ``route -> value`` (a callable gets the body); anything else is an unknown command."""

    url = "http://127.0.0.1:1"

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = {
            "/session": {"sessionId": "S"},
            "/appium/settings": {},
            "/window/size": {"width": 400, "height": 800},
            "/wda/activeAppInfo": {"bundleId": APP},
            "/source": PAGES,
            **answers,
        }
        self.sent: list[tuple[str, Any]] = []

    def request(self, method: str, path: str, body: Any = None, *, timeout: float) -> WdaReply:
        route = path.removeprefix("/session/S").split("?", 1)[0] or "/session"
        self.sent.append((route, body))
        answer = self.answers.get(route)
        if answer is None:
            raise WdaErrorReply(method, path, "unknown command", "not in the table")
        return WdaReply(answer(body) if callable(answer) else answer, "S")

    def close(self) -> None:
        pass

    def count(self, route: str) -> int:
        return sum(1 for r, _ in self.sent if r == route)


def reply(label: str, rect: tuple[int, int, int, int], kind: str = "StaticText") -> dict[str, Any]:
    x, y, w, h = rect
    return {
        "ELEMENT": label,
        W3C: label,
        "type": f"XCUIElementType{kind}",
        "label": label,
        "rect": {"x": x, "y": y, "width": w, "height": h},
    }


def labels(screen: mc.Screen) -> set[str]:
    return {e.label for e in screen.shown if e.label}


def test_wdas_answer_decides_the_stacked_pages_and_is_kept_until_an_action() -> None:
    table = Table({"/elements": lambda body: [reply("Weekly summary", (80, 100, 200, 30))], "/actions": {}})
    device = WdaDevice(table)

    async def go() -> tuple[mc.Screen, bool, mc.Screen, bool]:
        first = await device.read()
        confirmed = await device.check_target(first.find("StaticText", "Weekly summary")[0])
        again = await device.read()
        rechecked = await device.check_target(again.find("StaticText", "Weekly summary")[0])
        return first, confirmed, again, rechecked

    first, confirmed, again, rechecked = asyncio.run(go())
    assert labels(first) == labels(again) == {"Weekly summary", "Go", "Edge"}
    assert confirmed is rechecked is True
    # One query for the read; the check after it was answered by that query; the second read kept
    # the answer (same ambiguous elements); a check after a kept answer asks WDA itself.
    assert [body["value"].split(" ")[0] for route, body in table.sent if route == "/elements"] == ["label", "type"]
    asyncio.run(device.act(mc.Action(mc.Op.TAP, element=first.find("Button", "Go")[0])))
    asyncio.run(device.read())
    assert table.count("/elements") == 3  # an action forgets the answer: a tap may switch pages


def test_a_wda_that_refuses_queries_hides_the_ambiguous_and_lets_actions_through() -> None:
    table = Table({})  # no /elements: WDA answers "unknown command"
    device = WdaDevice(table)
    screen = asyncio.run(device.read())
    assert labels(screen) == {"Go", "Edge"}  # both pages hidden: never guessed shown
    assert asyncio.run(device.check_target(screen.find("Button", "Go")[0])) is True  # can't tell
    assert table.count("/elements") == 1  # refused once, never asked again this session


def test_compact_replies_say_nothing_about_which_element() -> None:
    table = Table({"/elements": [{"ELEMENT": "x", W3C: "x"}]})
    device = WdaDevice(table)
    screen = asyncio.run(device.read())
    assert labels(screen) == {"Go", "Edge"}
    assert asyncio.run(device.check_target(screen.find("Button", "Go")[0])) is True


def test_a_garbled_query_reply_is_a_device_error() -> None:
    device = WdaDevice(Table({"/elements": {"not": "a list"}}))
    with pytest.raises(mc.DeviceError, match="sent elements that are not a list"):
        asyncio.run(device.read())


def test_the_target_check_matches_the_element_by_its_frame_even_half_off_the_screen() -> None:
    found: list[dict[str, Any]] = []
    table = Table({"/elements": lambda body: found if body["value"].startswith("type") else []})
    device = WdaDevice(table)
    screen = asyncio.run(device.read())
    edge, go = screen.find("Button", "Edge")[0], screen.find("Button", "Go")[0]
    found[:] = [reply("Edge", (350, 600, 100, 40), "Button")]  # WDA's rect runs past the screen
    assert asyncio.run(device.check_target(edge)) is True
    assert asyncio.run(device.check_target(go)) is False  # not among the visible ones
    found[:] = [reply("Go", (10, 700, 100, 40), "Button")]  # a "Go" elsewhere is another element
    assert asyncio.run(device.check_target(go)) is False
    (_, body) = [s for s in table.sent if s[0] == "/elements"][-1]
    assert body == {
        "using": "predicate string",
        "value": 'type == "XCUIElementTypeButton" AND label == "Go" AND visible == 1',
    }
