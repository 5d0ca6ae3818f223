"""The fake Appium's Grid hub with iPhones and Android phones: Grid 4's slot matching, the relay to a node."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import urllib.request
from typing import Any

import pytest

from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing._appium_hub import appium_node, stereotype_of, uiautomator2_node
from mobster_drivers.testing._grid import fits, platform_of
from mobster_drivers.testing.appium import FakeAppium, main

IOS = {"platformName": "iOS", "appium:automationName": "XCUITest"}
ANDROID = {"platformName": "Android", "appium:automationName": "UiAutomator2"}
PIXEL = {
    "platformName": "Android",
    "appium:automationName": "UiAutomator2",
    "appium:deviceName": "Pixel 8",
    "appium:platformVersion": "14",
    "appium:udid": "emulator-5554",
}
NO_NODE = "Could not start a new session. No nodes support the capabilities in the request"
TIMED_OUT = "Could not start a new session. New session request timed out"


def _iphone() -> AppScript:
    return AppScript.from_file(sample_path("yourapp"))


def _android() -> AppScript:
    return AppScript.from_file(sample_path("yourapp-android"))


def _raw(fake: FakeAppium, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=20)
    data = json.dumps(body).encode() if body is not None else None
    try:
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def _new(fake: FakeAppium, caps: dict[str, Any]) -> tuple[int, Any]:
    return _raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": caps}})


def _session(fake: FakeAppium, caps: dict[str, Any]) -> str:
    status, reply = _new(fake, caps)
    assert status == 200, reply
    return str(reply["value"]["sessionId"])


def _hub(**options: Any) -> FakeAppium:
    return FakeAppium(
        _iphone(),
        lifetime=60,
        devices=2,
        android_devices=2,
        android_app=_android(),
        android_node=uiautomator2_node,
        **options,
    )


# -- Grid 4's DefaultSlotMatcher, as a pure rule -------------------------------------------------


@pytest.mark.parametrize(
    ("caps", "fit"),
    [
        ({"platformName": "android"}, True),  # a platform ignores case
        ({"platformName": "ANDROID", "appium:automationName": "uiautomator2"}, True),  # so do extension texts
        ({"platformName": "dalvik"}, True),  # Platform.java's other name for Android
        ({"platformName": "any"}, True),
        ({"platformName": "Androidd"}, True),  # Grid can't read it: null, which fits any (the node refuses it)
        ({"appium:automationName": "UiAutomator2"}, True),  # no platformName: any platform
        ({"platformName": "iOS"}, False),
        ({"platformName": "Windows"}, False),
        ({"platformName": ""}, False),  # Grid reads "" as Windows
        ({"platformName": "Android", "appium:automationName": "XCUITest"}, False),
        ({"platformName": "Android", "appium:udid": "EMULATOR-5554"}, True),
        ({"platformName": "Android", "appium:udid": "emulator-5556"}, False),
        ({"platformName": "Android", "appium:deviceName": "pixel 8"}, True),
        ({"platformName": "Android", "appium:deviceName": "Pixel 9"}, False),
        ({"platformName": "Android", "appium:platformVersion": "14"}, True),
        ({"platformName": "Android", "appium:platformVersion": "14.0"}, False),  # exact: Objects.equals
        ({"platformName": "Android", "appium:platformVersion": 14}, False),  # a number is not the text
        ({"platformName": "Android", "platformVersion": "14"}, False),  # the stereotype names no such key
        ({"platformName": "Android", "browserName": "Chrome"}, False),
        ({"platformName": "Android", "browserName": ""}, True),  # empty: not asked
        ({"platformName": "Android", "se:downloadsEnabled": True}, False),
        ({"platformName": "Android", "goog:chromeOptions": {"x": 1}, "appium:noReset": True}, True),  # not compared
        ({}, False),  # empty capabilities fit no slot
    ],
)
def test_a_stereotype_fits_as_grids_default_slot_matcher_says(caps: dict[str, Any], fit: bool) -> None:
    assert fits(PIXEL, caps) is fit


def test_a_plain_stereotype_name_must_match_and_platform_name_reads_as_grid_reads_it() -> None:
    stereotype = {**PIXEL, "acceptInsecureCerts": True}
    assert fits(stereotype, {"platformName": "Android"})  # not asked: fits
    assert fits(stereotype, {"platformName": "Android", "acceptInsecureCerts": True})
    assert not fits(stereotype, {"platformName": "Android", "acceptInsecureCerts": False})
    assert not fits(stereotype, {"platformName": "Android", "acceptInsecureCerts": 1})  # a number is no boolean
    assert [platform_of(v) for v in ("IOS", "ios", "DalVik", "mac", "Androidd", 3)] == [
        "ios",
        "ios",
        "android",
        "desktop",
        None,
        None,
    ]


def test_each_phone_offers_its_platform_automation_name_device_version_and_udid() -> None:
    assert stereotype_of(_android(), "emulator-5554") == {**PIXEL, "appium:deviceName": _android().device.name}
    iphone = stereotype_of(_iphone(), "00008110-X")
    assert (iphone["platformName"], iphone["appium:automationName"]) == ("iOS", "XCUITest")
    assert iphone["appium:platformVersion"] == _iphone().device.ios


# -- the hub of iPhones and Android phones -------------------------------------------------------


def test_a_mixed_hub_puts_each_session_on_a_phone_of_its_platform() -> None:
    with _hub(session_request_timeout=0.2) as hub:
        iphone = _session(hub, IOS)
        android = _session(hub, ANDROID)
        assert (hub.platform_of(iphone), hub.platform_of(android)) == ("ios", "android")
        # The Android session is the node's, relayed as it came: its source is UiAutomator2's.
        status, reply = _raw(hub, "GET", f"/session/{android}/source")
        assert status == 200
        assert "<hierarchy" in reply["value"]
        assert "XCUIElementType" not in reply["value"]
        status, reply = _raw(hub, "GET", f"/session/{iphone}/source")
        assert "XCUIElementType" in reply["value"]
        second = _session(hub, {**ANDROID, "appium:udid": "emulator-5556"})
        assert hub.platform_of(second) == "android"
        # Both Android phones are busy: an Android request waits in the queue, an iOS one doesn't.
        assert _refused(_new(hub, ANDROID)) == (500, "session not created", TIMED_OUT)
        assert hub.platform_of(_session(hub, IOS)) == "ios"
        status, reply = _raw(hub, "GET", "/status")
        platforms = [n["stereotype"]["platformName"] for n in reply["value"]["nodes"]]
        assert platforms == ["iOS", "iOS", "Android", "Android"]


def test_a_request_no_phone_fits_is_refused_at_once_with_grids_words() -> None:
    with _hub(session_request_timeout=30) as hub:
        for caps in (
            {"platformName": "Windows", "appium:automationName": "UiAutomator2"},
            {**ANDROID, "appium:udid": "emulator-9999"},
            {**ANDROID, "appium:platformVersion": "13"},
            {**ANDROID, "appium:automationName": "Espresso"},
            {**IOS, "appium:deviceName": "Pixel 8"},
        ):
            assert _refused(_new(hub, caps)) == (500, "session not created", NO_NODE), caps
        assert hub.sessions == {}


def test_first_match_entries_are_tried_against_every_phone_in_order() -> None:
    with _hub() as hub:
        body = {"capabilities": {"alwaysMatch": {}, "firstMatch": [{**IOS, "platformName": "tvOS"}, ANDROID]}}
        status, reply = _raw(hub, "POST", "/session", body)
        # "tvOS" is no platform Grid knows (null: any phone fits it), so the first entry fits the first
        # iPhone, and XCUITest takes it (tvOS is one of its platforms).
        assert status == 200
        assert hub.platform_of(reply["value"]["sessionId"]) == "ios"
        body = {"capabilities": {"alwaysMatch": {}, "firstMatch": [{"platformName": "Windows"}, ANDROID]}}
        status, reply = _raw(hub, "POST", "/session", body)
        assert status == 200
        assert hub.platform_of(reply["value"]["sessionId"]) == "android"


def test_the_node_is_given_its_udid_and_version_and_a_session_that_ends_frees_its_phone() -> None:
    with _hub(session_request_timeout=5) as hub:
        first = _session(hub, ANDROID)
        status, reply = _raw(hub, "GET", f"/session/{first}")
        assert status == 200
        given = reply["value"]["alwaysMatch"]  # the bare server keeps the capabilities as they came
        assert given["appium:udid"] == "emulator-5554"  # the stereotype's, merged in (Rule 9)
        assert given["appium:platformVersion"] == _android().device.release
        _session(hub, ANDROID)
        queued: list[tuple[int, Any]] = []
        waiting = threading.Thread(target=lambda: queued.append(_new(hub, {**ANDROID, "appium:udid": "emulator-5554"})))
        waiting.start()
        assert hub.wait_for(lambda r: r.command == "POST /session" and "emulator-5554" in json.dumps(r.body), 10)
        assert _raw(hub, "DELETE", f"/session/{first}")[0] == 200
        waiting.join(10)
        assert hub.platform_of(first) is None
        # The phone was free for the queued request (the bare UiAutomator2 server stops itself after a
        # DELETE, Rule 4 of the fake, so the node's answer is its own; a real device's Appium restarts it).
        assert queued
        assert queued[0][1]["value"].get("message") != TIMED_OUT


def test_a_node_that_does_not_answer_is_the_hubs_unknown_error() -> None:
    with _hub() as hub:
        sid = _session(hub, ANDROID)
        hub.nodes[0].stop()
        status, reply = _raw(hub, "GET", f"/session/{sid}/source")
        assert status == 500
        assert reply["value"]["error"] == "unknown error"
        assert reply["value"]["message"].startswith("Unable to execute request: ")


def test_end_sessions_ends_the_nodes_sessions_too() -> None:
    with _hub() as hub:
        sid = _session(hub, ANDROID)
        hub.end_sessions()
        assert hub.platform_of(sid) is None


def test_android_phones_are_a_hubs_and_run_an_android_script() -> None:
    with pytest.raises(ValueError, match="give devices=N"):
        FakeAppium(_iphone(), android_devices=1, android_app=_android(), android_node=uiautomator2_node)
    with pytest.raises(ValueError, match="needs android_app="):
        FakeAppium(_iphone(), devices=1, android_devices=1)
    with pytest.raises(ValueError, match="goes with android_devices"):
        FakeAppium(_iphone(), devices=1, android_app=_android())
    with pytest.raises(ValueError, match="is an Android app script"):
        FakeAppium(_iphone(), devices=1, android_devices=1, android_app=_iphone())


def test_the_default_node_is_an_appium_server_of_its_android_phone() -> None:
    first, second = appium_node(_android(), 0), appium_node(_android(), 1)
    assert first.stereotype["platformName"] == second.stereotype["platformName"] == "Android"
    assert (first.stereotype["appium:udid"], second.stereotype["appium:udid"]) == ("emulator-5554", "emulator-5556")


def test_python_dash_m_serves_a_mixed_hub() -> None:
    process = subprocess.Popen(
        [
            sys.executable, "-m", "mobster_drivers.testing.appium", "--app", str(sample_path("yourapp")),
            "--devices", "1", "--android-devices", "2", "--android-app", str(sample_path("yourapp-android")),
            "--android-node", "uiautomator2", "--lifetime", "20",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        with urllib.request.urlopen(url + "/status", timeout=5) as reply:
            nodes = json.loads(reply.read())["value"]["nodes"]
        assert [n["stereotype"]["platformName"] for n in nodes] == ["iOS", "Android", "Android"]
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "on a Grid hub of 1 iPhones and 2 Android phones" in err


def test_main_refuses_android_phones_without_a_hub_or_a_script(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, said in (
        (["--android-devices", "1", "--android-app", "a.yaml"], "goes with --devices N"),
        (["--devices", "1", "--android-devices", "1"], "go together"),
    ):
        with pytest.raises(SystemExit):
            main(["--app", str(sample_path("yourapp")), *argv])
        assert said in capsys.readouterr().err


def _refused(answer: tuple[int, Any]) -> tuple[int, str, str]:
    status, reply = answer
    return status, reply["value"]["error"], reply["value"]["message"]
