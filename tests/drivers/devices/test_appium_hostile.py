"""The Appium device against a server that answers from a table: replies the fake never sends."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import mobster_core as mc
from mobster_core import Action, DeviceKind, LaunchOptions, Op
from mobster_drivers.devices.appium import AppiumDevice
from tests.samples import W3C_ELEMENT as W3C

SID = "S1"
TREE = {"type": "Application", "rect": {"x": 0, "y": 0, "width": 400, "height": 800}, "children": []}


class Table:
    """Replies by command: ``POST /session``, ``mobile: source``, ``GET /window/rect``, …"""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = {
            "POST /session": {"value": {"sessionId": SID, "capabilities": {"appium:platformVersion": "17.2"}}},
            "mobile: deviceInfo": {"value": {"name": "Lab phone", "isSimulator": False}},
            "mobile: isAppInstalled": {"value": True},
            "mobile: activeAppInfo": {"value": {"bundleId": "com.example.app"}},
            "mobile: source": {"value": TREE},
            "DELETE /session/S1": {"value": None},
            **answers,
        }
        self.seen: list[str] = []
        self.bodies: list[tuple[str, Any]] = []
        self.url = ""

    def count(self, key: str) -> int:
        return self.seen.count(key)


@pytest.fixture
def table() -> Iterator[Table]:
    state = Table({})

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_GET(self) -> None:
            self.reply()

        def do_POST(self) -> None:
            self.reply()

        def do_DELETE(self) -> None:
            self.reply()

        def reply(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            route = self.path.removeprefix(f"/session/{SID}") or "/"
            key = f"{self.command} {self.path if self.path.startswith('/session/S1') and route == '/' else route}"
            if route == "/execute/sync":
                key = body["script"]
            state.seen.append(key)
            state.bodies.append((key, body))
            answer = state.answers.get(key, {"value": {"error": "unknown command", "message": key}})
            if callable(answer):
                answer = answer(body)
            status = 404 if key not in state.answers else 200
            data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def device(table: Table, **options: Any) -> AppiumDevice:
    return AppiumDevice(table.url, {}, bundle="com.example.app", **options)


def run_on(dev: AppiumDevice, coro: Any) -> Any:
    try:
        return asyncio.run(coro)
    finally:
        dev.close()


def test_a_real_phone_told_by_device_info(table: Table) -> None:
    dev = device(table)
    info = run_on(dev, dev.info())
    assert (info.name, info.ios, info.kind) == ("Lab phone", "17.2", DeviceKind.IPHONE)


def test_an_older_server_without_device_info_is_told_by_the_udid(table: Table) -> None:
    del table.answers["mobile: deviceInfo"]
    table.answers["POST /session"] = {
        "value": {
            "sessionId": SID,
            "capabilities": {"platformVersion": "26.4", "udid": "5A1F2B3C-1111-2222-3333-444455556666"},
        }
    }
    dev = device(table)
    info = run_on(dev, dev.info())
    assert (info.ios, info.kind, info.udid) == ("26.4", DeviceKind.SIMULATOR, "5A1F2B3C-1111-2222-3333-444455556666")
    assert info.name.startswith("Appium at http://127.0.0.1:")


def test_a_lockdown_version_when_the_caps_have_none(table: Table) -> None:
    table.answers["POST /session"] = {"value": {"sessionId": SID, "capabilities": {}}}
    table.answers["mobile: deviceInfo"] = {"value": {"isSimulator": 0, "lockdownInfo": {"ProductVersion": "18.1"}}}
    dev = device(table)
    info = run_on(dev, dev.info())
    assert (info.ios, info.kind) == ("18.1", DeviceKind.IPHONE)


def test_a_server_that_names_no_ios_version(table: Table) -> None:
    table.answers["POST /session"] = {"value": {"sessionId": SID, "capabilities": {}}}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match=r"doesn't say the device's iOS version .*set appium:platformVersion"):
        run_on(dev, dev.info())


def test_a_session_without_an_id_and_a_top_level_one(table: Table) -> None:
    table.answers["POST /session"] = {"value": {"capabilities": {}}}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match="created a session without a sessionId"):
        run_on(dev, dev.read())
    table.answers["POST /session"] = {"sessionId": SID, "value": {"capabilities": {"platformVersion": "17"}}}
    dev = device(table)
    assert run_on(dev, dev.read()).app == "com.example.app"  # a JSONWP-era top-level sessionId is read


@pytest.mark.parametrize(
    ("command", "answer", "message"),
    [
        ("mobile: activeAppInfo", {"value": {"pid": 1}}, "sent no bundleId for the app in front"),
        ("mobile: source", {"value": ["not", "a", "tree"]}, "sent a source tree that can't be read"),
        ("mobile: source", {"value": {"type": "Application", "children": "x"}}, "can't be read"),
    ],
)
def test_reads_that_make_no_sense_are_device_errors(table: Table, command: str, answer: Any, message: str) -> None:
    table.answers[command] = answer
    table.answers["GET /window/rect"] = {"value": {"x": 0, "y": 0, "width": 400, "height": 800}}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match=message) as caught:
        run_on(dev, dev.read())
    assert not isinstance(caught.value, mc.UnknownOutcome)


def test_a_rootless_tree_needs_a_window_rect_that_is_a_size(table: Table) -> None:
    table.answers["mobile: source"] = {"value": {"type": "Application", "children": []}}
    table.answers["GET /window/rect"] = {"value": {"width": 0, "height": -1}}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match="sent a window rect that is not a size"):
        run_on(dev, dev.read())


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"value": 42}, "not base64 text"),
        ({"value": "%%%not base64%%%"}, "not a PNG|not base64"),
        ({"value": "aGVsbG8="}, "not a PNG"),
    ],
)
def test_screenshots_that_are_not_pngs(table: Table, answer: Any, message: str) -> None:
    table.answers["GET /screenshot"] = answer
    dev = device(table)
    with pytest.raises(mc.DeviceError, match=message):
        run_on(dev, dev.screenshot())


def test_an_active_element_that_is_no_reference_types_nothing(table: Table) -> None:
    table.answers["GET /element/active"] = {"value": {"something": "else"}}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match="sent an active element that is not an element reference"):
        run_on(dev, dev.act(Action(Op.SUBMIT)))
    assert not [s for s in table.seen if s.endswith("/value")]


def test_is_app_installed_that_is_not_a_bool(table: Table) -> None:
    table.answers["mobile: isAppInstalled"] = {"value": "yes"}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match="isAppInstalled that is not true or false"):
        run_on(dev, dev.launch("com.example.app", LaunchOptions()))
    assert "mobile: launchApp" not in table.seen


def test_list_apps_in_the_older_list_shape(table: Table) -> None:
    table.answers["mobile: listApps"] = {
        "value": [{"com.example.app": {"CFBundleShortVersionString": "3.0", "CFBundleVersion": "300"}}]
    }
    dev = device(table)
    assert run_on(dev, dev.app_info("com.example.app")) == mc.AppInfo("com.example.app", "3.0", "300")


def test_list_apps_that_does_not_know_the_app_leaves_the_version_unknown(table: Table) -> None:
    table.answers["mobile: listApps"] = {"value": {"com.other": {"CFBundleVersion": "1"}}}
    dev = device(table)
    assert run_on(dev, dev.app_info("com.example.app")) == mc.AppInfo("com.example.app")


def test_app_state_that_is_not_a_number(table: Table) -> None:
    table.answers["mobile: queryAppState"] = {"value": "running"}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match="app state that is not a number"):
        run_on(dev, dev.app_state("com.example.app"))


def test_a_w3c_error_inside_a_200_reply_is_still_an_error(table: Table) -> None:
    table.answers["mobile: pressButton"] = {"value": {"error": "unknown error", "message": "WDA crashed"}}
    dev = device(table)
    with pytest.raises(mc.UnknownOutcome, match="WDA crashed"):
        run_on(dev, dev.act(Action(Op.HOME)))


def test_a_cloud_that_refuses_is_app_installed_is_asked_the_app_state(table: Table) -> None:
    table.answers["mobile: isAppInstalled"] = {"value": {"error": "unsupported operation", "message": "not allowed"}}
    table.answers["mobile: queryAppState"] = {"value": 0}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match=r"com\.example\.app is not installed"):
        run_on(dev, dev.launch("com.example.app", LaunchOptions()))
    table.answers["mobile: queryAppState"] = {"value": 1}
    for name in ("terminateApp", "launchApp"):
        table.answers[f"mobile: {name}"] = {"value": None}
    dev = device(table)
    run_on(dev, dev.launch("com.example.app", LaunchOptions()))
    assert [k for k in table.seen if not k.startswith("DELETE")][-2:] == ["mobile: terminateApp", "mobile: launchApp"]
    del table.answers["mobile: queryAppState"]  # refused too: the launch itself will say
    dev = device(table)
    run_on(dev, dev.launch("com.example.app", LaunchOptions()))
    assert [k for k in table.seen if not k.startswith("DELETE")][-2:] == ["mobile: terminateApp", "mobile: launchApp"]


# -- visibility through Appium ----------------------------------------------------------------


def text(label: str, x: int, y: int = 100, w: int = 140, h: int = 30) -> dict[str, Any]:
    return {"type": "StaticText", "label": label, "rect": {"x": x, "y": y, "width": w, "height": h}}


#: Two pages stacked in one place (ambiguous) and a button.
PAGES = {
    "type": "Application",
    "rect": {"x": 0, "y": 0, "width": 400, "height": 800},
    "children": [
        text("Morning list", 100),
        text("Weekly summary", 80, w=200),
        {"type": "Button", "label": "Go", "rect": {"x": 10, "y": 500, "width": 100, "height": 40}},
    ],
}


def found(label: str, rect: tuple[int, int, int, int], kind: str = "StaticText") -> dict[str, Any]:
    x, y, w, h = rect
    return {
        "ELEMENT": label,
        W3C: label,
        "type": f"XCUIElementType{kind}",
        "label": label,
        "rect": {"x": x, "y": y, "width": w, "height": h},
    }


def pages(table: Table, elements: Any = None) -> None:
    """The stacked pages, a server that takes the query set-up, and WDA's answer ``elements``."""
    table.answers["mobile: source"] = {"value": PAGES}
    table.answers["POST /timeouts"] = {"value": None}
    table.answers["POST /appium/settings"] = {"value": None}
    if elements is not None:
        table.answers["POST /elements"] = elements


def shown_labels(screen: mc.Screen) -> set[str]:
    return {e.label for e in screen.shown if e.label}


def test_the_query_set_up_is_sent_once_a_session_before_the_first_query(table: Table) -> None:
    pages(table, {"value": [found("Weekly summary", (80, 100, 200, 30))]})
    dev = device(table)

    async def go() -> tuple[mc.Screen, bool, bool]:
        screen = await dev.read()
        weekly = screen.find("StaticText", "Weekly summary")[0]
        go_button = screen.find("Button", "Go")[0]
        return screen, await dev.check_target(weekly), await dev.check_target(go_button)

    screen, weekly_ok, go_ok = run_on(dev, go())
    assert shown_labels(screen) == {"Weekly summary", "Go"}
    assert (weekly_ok, go_ok) == (True, False)  # the read's query confirmed one; "Go" isn't in WDA's answer
    assert [k for k in table.seen if k.startswith("POST /")][1:] == [
        "POST /timeouts",
        "POST /appium/settings",
        "POST /elements",
        "POST /elements",
    ]
    bodies = dict(table.bodies)
    assert bodies["POST /timeouts"] == {"implicit": 0}
    assert bodies["POST /appium/settings"] == {
        "settings": {"shouldUseCompactResponses": False, "elementResponseAttributes": "type,label,rect"}
    }
    queries = [b for k, b in table.bodies if k == "POST /elements"]
    assert queries == [
        {"using": "-ios predicate string", "value": 'label IN {"Morning list", "Weekly summary"} AND visible == 1'},
        {
            "using": "-ios predicate string",
            "value": 'type == "XCUIElementTypeButton" AND label == "Go" AND visible == 1',
        },
    ]


def test_a_server_without_the_strategy_leaves_the_stacked_pages_hidden_and_lets_taps_through(table: Table) -> None:
    pages(table, {"value": {"error": "invalid selector", "message": "Locator Strategy is not supported"}})
    dev = device(table)

    async def go() -> tuple[mc.Screen, bool, mc.Screen]:
        screen = await dev.read()
        return screen, await dev.check_target(screen.find("Button", "Go")[0]), await dev.read()

    first, go_ok, again = run_on(dev, go())
    assert shown_labels(first) == shown_labels(again) == {"Go"}  # never guessed shown
    assert go_ok is True  # can't tell
    assert table.count("POST /elements") == 1  # refused once: not asked again this session


def test_refused_set_up_and_compact_replies_say_nothing_about_which_element(table: Table) -> None:
    pages(table, {"value": [{"ELEMENT": "x", W3C: "x"}]})
    del table.answers["POST /timeouts"], table.answers["POST /appium/settings"]  # unknown commands here
    dev = device(table)

    async def go() -> tuple[mc.Screen, bool]:
        screen = await dev.read()
        return screen, await dev.check_target(screen.find("Button", "Go")[0])

    screen, go_ok = run_on(dev, go())
    assert shown_labels(screen) == {"Go"}
    assert go_ok is True
    assert table.count("POST /elements") == 2  # compact replies are no refusal: asked each time


def test_an_empty_answer_is_an_answer(table: Table) -> None:
    pages(table, {"value": []})  # what Appium answers when WDA's lookup failed, too
    dev = device(table)

    async def go() -> tuple[mc.Screen, bool]:
        screen = await dev.read()
        return screen, await dev.check_target(screen.find("Button", "Go")[0])

    screen, go_ok = run_on(dev, go())
    assert shown_labels(screen) == {"Go"}
    assert go_ok is False  # a step on it drifts rather than taps


@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        ({"value": {"not": "a list"}}, mc.DeviceError, "sent elements that are not a list"),
        ({"value": {"error": "unknown error", "message": "proxy failed"}}, mc.DeviceError, "POST /elements failed"),
        (
            {"value": {"error": "invalid session id", "message": "gone"}},
            mc.DeviceError,
            "no longer knows the session",
        ),
    ],
)
def test_a_query_that_fails_is_a_failed_read(table: Table, answer: Any, error: type[Exception], message: str) -> None:
    pages(table, answer)
    dev = device(table)
    with pytest.raises(error, match=message) as caught:
        run_on(dev, dev.read())
    assert not isinstance(caught.value, mc.UnknownOutcome)


def test_the_answer_is_kept_for_the_same_pages_and_forgotten_at_an_action_and_a_new_session(table: Table) -> None:
    pages(table, {"value": [found("Weekly summary", (80, 100, 200, 30))]})
    table.answers["mobile: tap"] = {"value": None}
    dev = device(table)

    async def go() -> None:
        screen = await dev.read()
        await dev.read()  # the same ambiguous elements: the answer is reused
        assert table.count("POST /elements") == 1
        await dev.act(Action(Op.TAP, element=screen.find("Button", "Go")[0]))
        await dev.read()  # a tap may switch pages: asked again
        assert table.count("POST /elements") == 2
        await dev.end_session()
        await dev.read()  # a new session (perhaps another phone): set up and asked again
        assert table.count("POST /elements") == 3

    run_on(dev, go())
    assert table.count("POST /timeouts") == table.count("POST /appium/settings") == 2


def test_an_older_wda_that_keeps_visible_in_the_fast_read_is_read_truthfully(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    tree = {
        **PAGES,
        "isVisible": "1",
        "children": [
            {**text("Morning list", 100), "isVisible": "0"},
            {**text("Weekly summary", 80, w=200), "isVisible": "1"},
            {
                "type": "Button",
                "label": "Go",
                "rect": {"x": 10, "y": 500, "width": 100, "height": 40},
                "isVisible": "1",
            },
        ],
    }
    table.answers["mobile: source"] = {"value": tree}
    dev = device(table)

    async def twice() -> list[mc.Screen]:
        return [await dev.read(), await dev.read()]

    with caplog.at_level(logging.INFO, logger="mobster.drivers.appium"):
        screens = run_on(dev, twice())
    assert all(shown_labels(s) == {"Weekly summary", "Go"} for s in screens)
    assert "POST /elements" not in table.seen  # WDA's own flag decided: nothing to ask
    assert sum("WebDriverAgent before 8.11" in r.message for r in caplog.records) == 1  # said once


def test_a_session_that_ends_during_the_query_set_up_is_a_failed_read(table: Table) -> None:
    pages(table, {"value": []})
    table.answers["POST /timeouts"] = {"value": {"error": "invalid session id", "message": "gone"}}
    dev = device(table)
    with pytest.raises(mc.DeviceError, match="no longer knows the session"):
        run_on(dev, dev.read())
    assert "POST /elements" not in table.seen


# -- mobile: deviceInfo's 5xx (a lockdown call that failed on the way) ---------------------------


def test_a_transient_5xx_to_device_info_is_asked_once_more(table: Table) -> None:
    replies = iter([{"value": {"error": "unknown error", "message": "lockdown hiccup"}}])
    good = table.answers["mobile: deviceInfo"]
    table.answers["mobile: deviceInfo"] = lambda _body: next(replies, good)
    dev = device(table)
    info = run_on(dev, dev.info())
    assert info.name == "Lab phone"  # not "Appium at …": the second answer was kept
    assert table.count("mobile: deviceInfo") == 2


def test_a_5xx_to_device_info_that_persists_is_never_taken_as_not_supported(table: Table) -> None:
    table.answers["mobile: deviceInfo"] = {"value": {"error": "unknown error", "message": "Tunnel lockdown failed"}}
    dev = device(table)
    try:
        first = asyncio.run(dev.info())
        assert first.name.startswith("Appium at http://127.0.0.1:")
        assert table.count("mobile: deviceInfo") == 2
        table.answers["mobile: deviceInfo"] = {"value": {"name": "Lab phone", "isSimulator": False}}
        assert asyncio.run(dev.info()).name == "Lab phone"  # asked again: nothing was cached from the failure
    finally:
        dev.close()
    refused = {"value": {"error": "unknown method", "message": "Method is not implemented"}}
    table.answers["mobile: deviceInfo"] = refused
    dev = device(table)
    try:
        asyncio.run(dev.info())
        asyncio.run(dev.info())
    finally:
        dev.close()
    assert table.count("mobile: deviceInfo") == 2 + 1 + 1  # a refusal is asked once and believed


# -- replies that never end (the wire's Rule 6) ---------------------------------------------------


class _Endless(BaseHTTPRequestHandler):
    """Answers every request with a chunked body that never ends: fast, or one byte at a time."""

    protocol_version = "HTTP/1.1"
    trickle = False

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        piece = b" " if self.trickle else b" " * 65536
        try:
            start = b'{"value": "'
            self.wfile.write(b"%x\r\n%s\r\n" % (len(start), start))
            while True:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                if self.trickle:
                    threading.Event().wait(0.05)  # the server's pace, not the test's: it trickles
        except OSError:
            return  # the client gave up, as it must


@pytest.fixture
def endless(request: pytest.FixtureRequest) -> Iterator[str]:
    handler = type("Handler", (_Endless,), {"trickle": request.param == "trickle"})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("endless", ["flood"], indirect=True)
def test_a_reply_that_never_ends_is_cut_at_the_cap(endless: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from mobster_drivers.devices.appium import _wire

    monkeypatch.setattr(_wire, "MAX_REPLY", 1 << 20)
    dev = AppiumDevice(endless, {}, bundle="com.example.app")
    with pytest.raises(
        mc.DeviceError, match=r"a bad reply to POST /session \(a reply longer than 1 MiB \(cut there\)\)"
    ):
        run_on(dev, dev.info())


@pytest.mark.parametrize("endless", ["trickle"], indirect=True)
def test_a_reply_that_trickles_in_forever_ends_at_its_timeout(endless: str) -> None:
    from mobster_drivers.devices.appium import AppiumTimeouts

    dev = AppiumDevice(endless, {}, bundle="com.example.app", timeouts=AppiumTimeouts(session=0.5))
    with pytest.raises(
        mc.DeviceError, match=r"no complete reply to POST /session \(the reply did not end within 0.5 s\)"
    ):
        run_on(dev, dev.info())
