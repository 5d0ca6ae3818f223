"""The fake WDA server held to the real contract: the real facebook-wda client, WDA's wire shapes."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import wda

from mobster_core import DeviceError
from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.devices.wda import FacebookWdaTransport, WdaBadReply, WdaErrorReply, WdaNoReply, WdaUnreachable
from mobster_drivers.testing.wda import FakeWda, main

YOURAPP = "com.example.yourapp"


@pytest.fixture
def fake() -> Iterator[FakeWda]:
    with FakeWda(sample_path("yourapp"), lifetime=60) as server:
        yield server


def raw(fake: FakeWda, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(fake.url + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_the_real_client_drives_the_fake(fake: FakeWda) -> None:
    client = wda.Client(fake.url)
    status = client.status()
    assert status["ready"] is True
    assert status["os"]["version"] == "26.4"
    assert status["ios"]["simulatorVersion"] == "26.4"
    assert client.locked() is False
    assert client.window_size() == (402, 874)
    assert client.scale == 3
    session = client.session(YOURAPP, ["-a"], {"K": "V"})
    assert client.app_current()["bundleId"] == YOURAPP
    assert client.app_current()["processArguments"] == {"args": ["-a"], "env": {"K": "V"}}
    assert session.app_state(YOURAPP).value == 4  # facebook-wda returns the whole envelope here
    assert session.app_state("com.example.nope").value == 0
    tree = session.source(format="json")
    assert tree["type"] == "Application"
    assert [c["label"] for c in tree["children"]] == ["Welcome", "Sign up", "Settings"]
    xml = session.source()
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication')
    assert 'type="XCUIElementTypeButton"' in xml
    assert session.alert.exists is False
    button = tree["children"][1]["rect"]
    session.tap(button["x"] + button["width"] / 2, button["y"] + button["height"] / 2)
    assert fake.phone.screen_name(YOURAPP) == "signup"
    session.home()
    assert client.app_current()["bundleId"] == "com.apple.springboard"
    session.app_activate(YOURAPP)
    assert session.app_terminate(YOURAPP).value is True
    png = session.screenshot(format="raw")
    assert png.startswith(b"\x89PNG")
    assert session.info["name"] == "Scripted iPhone"
    session.close()
    assert fake.session_id is None


def test_a_plain_client_recovers_from_a_wda_restart(fake: FakeWda) -> None:
    client = wda.Client(fake.url)
    client.session()
    before = client.session_id
    fake.restart()
    assert client.window_size() == (402, 874)  # session-less routes need no session
    assert client.app_state(YOURAPP).value == 1  # installed, not running
    assert client.session_id != before


def test_wda_error_shapes(fake: FakeWda) -> None:
    code, body = raw(fake, "GET", "/nowhere")
    assert code == 404
    assert body["value"]["error"] == "unknown command"
    assert set(body) == {"value", "sessionId"}
    code, body = raw(fake, "POST", "/session/STALE/wda/tap", {"x": 1, "y": 1})
    assert (code, body["value"]["error"]) == (404, "invalid session id")
    code, body = raw(fake, "POST", "/wda/tap", {"x": 1, "y": 1})
    assert (code, body["value"]["error"]) == (404, "unknown command")  # only under a session
    code, body = raw(fake, "POST", "/session", {"capabilities": {}})
    sid = body["sessionId"]
    assert code == 200
    assert body["value"]["sessionId"] == sid
    code, body = raw(fake, "POST", f"/session/{sid}/wda/tap", {"x": "left"})
    assert (code, body["value"]["error"]) == (400, "invalid argument")
    code, body = raw(fake, "POST", f"/session/{sid}/wda/apps/launch", {"bundleId": "com.example.nope"})
    assert (code, body["value"]["error"]) == (500, "unknown error")
    code, body = raw(fake, "GET", f"/session/{sid}/alert/text")
    assert (code, body["value"]["error"]) == (404, "no such alert")
    code, body = raw(fake, "GET", f"/session/{sid}/")
    assert (code, body["sessionId"]) == (200, sid)
    code, body = raw(fake, "DELETE", f"/session/{sid}/")
    assert (code, body["value"]) == (200, None)
    code, body = raw(fake, "GET", "/status")
    assert body["sessionId"] is None


def test_excluded_attributes_are_left_out(fake: FakeWda) -> None:
    _, full = raw(fake, "GET", "/source?format=json")
    assert full["value"]["children"][0]["isVisible"] == "1"
    _, fast = raw(fake, "GET", "/source?format=json&excluded_attributes=visible,accessible,traits")
    first = fast["value"]["children"][0]
    assert "isVisible" not in first
    assert "isAccessible" not in first
    assert "traits" not in first
    assert first["isEnabled"] == "1"


def test_w3c_gestures_tap_hold_and_swipe(fake: FakeWda) -> None:
    _, body = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": YOURAPP}}})
    sid = body["sessionId"]

    def pointer(*steps: dict[str, Any]) -> int:
        actions = {"actions": [{"type": "key", "id": "kb", "actions": []}, {"type": "pointer", "actions": list(steps)}]}
        code, _ = raw(fake, "POST", f"/session/{sid}/actions", actions)
        return code

    move = {"type": "pointerMove", "x": 201, "y": 183}
    down, up = {"type": "pointerDown"}, {"type": "pointerUp"}
    assert pointer(move, down, {"type": "pause", "duration": 800}, up) == 200
    assert pointer(move, down, {"type": "pointerMove", "duration": 100, "x": 201, "y": 50}, up) == 200
    assert pointer(down, up) == 400
    assert pointer(move, {"type": "wiggle"}) == 400
    assert [a.op.value for a in fake.phone.actions] == ["LONG_PRESS", "SWIPE_UP"]


def test_keys_without_a_focused_field_go_nowhere(fake: FakeWda) -> None:
    _, body = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": YOURAPP}}})
    code, _ = raw(fake, "POST", f"/session/{body['sessionId']}/wda/keys", {"value": ["h", "i"]})
    assert code == 200
    assert fake.phone.actions == []


def test_requests_are_recorded_with_their_route_and_session(fake: FakeWda) -> None:
    raw(fake, "GET", "/status")
    raw(fake, "POST", "/session/ABC/wda/keys?x=1", {"value": []})
    first, second = fake.requests
    assert (first.method, first.route, first.session, first.body) == ("GET", "/status", None, None)
    assert (second.route, second.session, second.body) == ("/wda/keys", "ABC", {"value": []})
    assert second.path == "/session/ABC/wda/keys?x=1"


def test_the_transport_tells_failures_apart(fake: FakeWda) -> None:
    transport = FacebookWdaTransport(fake.url)
    assert transport.request("GET", "/status", timeout=5).value["ready"] is True
    with pytest.raises(WdaErrorReply) as refused:
        transport.request("GET", "/nowhere", timeout=5)
    assert refused.value.error == "unknown command"
    assert refused.value.endpoint == "GET /nowhere"
    fake.garbage_next_reply()
    with pytest.raises(WdaBadReply, match="not WDA's JSON"):
        transport.request("GET", "/status", timeout=5)
    fake.stall_next_reply(2.0)
    with pytest.raises(WdaNoReply, match=r"no reply within 0\.2 s"):
        transport.request("GET", "/status", timeout=0.2)
    fake.stop()
    with pytest.raises(WdaUnreachable, match="can't connect"):
        transport.request("GET", "/status", timeout=1)


def test_the_system_can_act_on_the_phone_outside_wda(fake: FakeWda) -> None:
    fake.launch_app(YOURAPP, ["-x"], {"A": "1"})
    assert fake.is_running(YOURAPP)
    fake.open_url("yourapp://signup")
    assert fake.phone.screen_name(YOURAPP) == "signup"
    assert fake.terminate_app(YOURAPP) is True
    assert not fake.is_running(YOURAPP)
    with pytest.raises(DeviceError, match="not installed"):
        fake.launch_app("com.example.nope")
    assert fake.screenshot().startswith(b"\x89PNG")


def test_the_fake_stops_by_itself() -> None:
    fake = FakeWda(sample_path("yourapp"), lifetime=0.2).start()
    assert fake.wait(5.0)
    with pytest.raises(OSError):
        urllib.request.urlopen(fake.url + "/status", timeout=2)
    fake.stop()


def test_it_starts_once() -> None:
    with FakeWda(sample_path("yourapp"), lifetime=5) as fake, pytest.raises(RuntimeError, match="once"):
        fake.start()


def test_python_dash_m_prints_the_url_first() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "mobster_drivers.testing.wda", "--app", str(sample_path("yourapp")), "--lifetime", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "/status", timeout=5) as reply:
            assert json.loads(reply.read())["value"]["ready"] is True
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_main_reports_a_bad_script(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.yaml"
    assert main(["--app", str(missing)]) == 2
    assert "fake WDA" in capsys.readouterr().err


def test_screenshots_are_base64_pngs(fake: FakeWda) -> None:
    _, body = raw(fake, "GET", "/screenshot")
    assert base64.b64decode(body["value"]).startswith(b"\x89PNG")


def test_a_held_reply_comes_late(fake: FakeWda) -> None:
    fake.stall_next_reply(0.3)
    start = time.monotonic()
    assert raw(fake, "GET", "/status")[0] == 200
    assert time.monotonic() - start >= 0.3
