"""The fake Appium server itself: W3C shapes, XCUITest's mobile: commands, the stock client, the CLI."""

from __future__ import annotations

import base64
import http.client
import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mobster_core.testing import SPRINGBOARD
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.testing._appium_mobile import VIDEO_BYTES
from mobster_drivers.testing.appium import FakeAppium, main
from mobster_drivers.testing.wda import ReadCosts
from tests.samples import W3C_ELEMENT as W3C
from tests.samples import XCUITEST_LEGACY_CAPS

YOURAPP = "com.example.yourapp"
CAPS = {"platformName": "iOS", "appium:automationName": "XCUITest"}


def script(kind: str = "iphone") -> AppScript:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", f"kind: {kind}")
    return AppScript.from_text(text, "test.yaml")


@pytest.fixture
def fake() -> Iterator[FakeAppium]:
    with FakeAppium(script(), lifetime=60) as server:
        yield server


def raw(fake: FakeAppium, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def session(fake: FakeAppium, caps: dict[str, Any] | None = None) -> str:
    status, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": caps or CAPS, "firstMatch": [{}]}})
    assert status == 200, reply
    return str(reply["value"]["sessionId"])


def mobile(fake: FakeAppium, sid: str, name: str, args: dict[str, Any] | None = None) -> tuple[int, Any]:
    return raw(fake, "POST", f"/session/{sid}/execute/sync", {"script": f"mobile: {name}", "args": [args or {}]})


def error(reply: Any) -> tuple[str, str]:
    value = reply["value"]
    assert set(value) == {"error", "message", "stacktrace"}
    return value["error"], value["message"]


# -- sessions ----------------------------------------------------------------------------------


def test_a_session_reply_is_w3c_and_echoes_the_capabilities_with_what_the_phone_fills_in(fake: FakeAppium) -> None:
    status, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": {**CAPS, "x:opt": {"k": 1}}}})
    assert status == 200
    value = reply["value"]
    assert set(value) == {"sessionId", "capabilities"}
    caps = value["capabilities"]
    # As Appium 3.8 with XCUITest 12.13 (measured, test_appium_real.py): the caps without "appium:",
    # after XCUITest's legacy keys, then the iPhone's iOS version from its lockdown (MAJOR.MINOR) and
    # the UDID it runs on; no deviceName.
    assert list(caps.items()) == [
        *XCUITEST_LEGACY_CAPS.items(),
        ("platformName", "iOS"),
        ("automationName", "XCUITest"),
        ("x:opt", {"k": 1}),
        ("platformVersion", "26.4"),
        ("udid", fake.udids[0]),
    ]
    # What the session keeps (GET /session/{id}) has the version, not the UDID the reply added.
    assert raw(fake, "GET", f"/session/{value['sessionId']}")[1]["value"] == {
        "platformName": "iOS",
        "automationName": "XCUITest",
        "x:opt": {"k": 1},
        "platformVersion": "26.4",
    }


def _device_script(kind: str, ios: str) -> AppScript:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", f"kind: {kind}")
    return AppScript.from_text(text.replace('ios: "26.4"', f'ios: "{ios}"'), "test.yaml")


@pytest.mark.parametrize("kind", ["simulator", "iphone"])
def test_the_phone_fills_in_the_ios_version_and_the_udid_the_caps_leave_out(kind: str) -> None:
    # XCUITest's device discovery (device-discovery.ts, driver.ts:1332-1342, 945): a platformVersion
    # that is absent, null or "" is the device's (lockdown's ProductVersion on an iPhone, the runtime's
    # on a simulator), as MAJOR.MINOR; the reply's udid is the device's. Only the iPhone half can be
    # measured on Linux (test_appium_real.py); a simulator's is read from the source.
    with FakeAppium(_device_script(kind, "26.4.1"), lifetime=60) as fake:
        for given in ({}, {"appium:platformVersion": None}, {"appium:platformVersion": ""}):
            status, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": {**CAPS, **given}}})
            assert status == 200, reply
            caps = reply["value"]["capabilities"]
            assert (caps["platformVersion"], caps["udid"]) == ("26.4", fake.udids[0]), given
        # "auto" is the phone the host finds; an explicit UDID is echoed as asked.
        _, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": {**CAPS, "appium:udid": "auto"}}})
        assert reply["value"]["capabilities"]["udid"] == fake.udids[0]
        # A version given is the session's, whatever the phone's is (MAJOR.MINOR).
        _, reply = raw(
            fake, "POST", "/session", {"capabilities": {"alwaysMatch": {**CAPS, "appium:platformVersion": "17"}}}
        )
        assert reply["value"]["capabilities"]["platformVersion"] == "17.0"


def test_a_simulators_device_info_has_no_lockdown_and_an_iphones_has_its_whole_lockdown() -> None:
    with FakeAppium(_device_script("simulator", "26.4"), lifetime=60) as fake:
        status, info = mobile(fake, session(fake), "deviceInfo")
        assert status == 200
        assert "lockdownInfo" not in info["value"]  # device-info.ts: only on a real device
    with FakeAppium(_device_script("iphone", "26.4.1"), lifetime=60) as fake:
        status, info = mobile(fake, session(fake), "deviceInfo")
        lockdown = info["value"]["lockdownInfo"]
        # The same dictionary the fake usbmuxd's phones give real XCUITest (GetValue with no key).
        from mobster_drivers.testing.usbmuxd import FakeIphone

        assert lockdown == FakeIphone(fake.udids[0], "Scripted iPhone", ios="26.4.1").lockdown_values()


def test_a_linux_host_wants_a_udid_and_a_wda_and_serves_no_simulator() -> None:
    # wda-host-ops.ts; the same refusals as the real server's (test_appium_real.py), where a Mac takes both.
    with FakeAppium(script(), lifetime=60, host="linux") as fake:
        status, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": CAPS}})
        wda = "provide 'appium:webDriverAgentUrl' to run from 'linux'."
        assert (status, error(reply)[1].startswith("The selected XCUITest session strategy requires macOS")) == (
            500,
            True,
        )
        assert error(reply)[1].endswith(wda)
        caps = {**CAPS, "appium:webDriverAgentUrl": fake.wda.url}
        status, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        assert (status, error(reply)[1].split(".")[0]) == (
            500,
            "Running XCUITest from 'linux' without macOS/Xcode requires an explicit real-device 'appium:udid'",
        )
        assert session(fake, {**caps, "appium:udid": fake.udids[0]})
    with FakeAppium(script(), lifetime=60) as mac:  # a Mac picks the phone itself
        assert session(mac)
    with pytest.raises(ValueError, match="a Linux host serves no simulator"):
        FakeAppium(script("simulator"), host="linux")
    with pytest.raises(ValueError, match="host is one of mac, linux"):
        FakeAppium(script(), host="windows")


@pytest.mark.parametrize(("host", "allowed"), [("mac", False), ("mac", True), ("linux", True)])
def test_xctests_recorder_on_an_iphone(host: str, allowed: bool) -> None:
    with FakeAppium(script(), lifetime=60, host=host, xctest_screen_record=allowed) as fake:
        caps = {**CAPS, "appium:udid": fake.udids[0], "appium:webDriverAgentUrl": fake.wda.url}
        sid = session(fake, caps)
        status, reply = mobile(fake, sid, "startXCTestScreenRecording")
        if not allowed:
            assert (status, error(reply)[1].split(".")[0]) == (
                500,
                "Potentially insecure feature 'xctest_screen_record' has not been enabled",
            )
            return
        assert status == 200
        uuid = reply["value"]["uuid"]
        status, reply = mobile(fake, sid, "stopXCTestScreenRecording")
        if host == "linux":  # the pull needs Xcode's devicectl
            message = f"Unable to locate XCTest screen recording identified by '{uuid}' for the device {fake.udids[0]}"
            assert (status, error(reply)) == (500, ("unknown error", message))
        else:
            assert (status, reply["value"]["uuid"], base64.b64decode(reply["value"]["payload"])) == (
                200,
                uuid,
                VIDEO_BYTES,
            )


def test_a_simulators_appearance_is_simctls() -> None:
    with FakeAppium(script("simulator"), lifetime=60) as fake:
        sid = session(fake)
        assert mobile(fake, sid, "setAppearance", {"style": "DARK"}) == (200, {"value": None})
        assert mobile(fake, sid, "getAppearance") == (200, {"value": {"style": "dark"}})
        assert fake.controls == [("setAppearance", {"style": "DARK"})]
        assert not [r for r in fake.wda.requests if r.route == "/wda/device/appearance"]


def test_first_match_entries_are_tried_in_order(fake: FakeAppium) -> None:
    body = {
        "capabilities": {
            "alwaysMatch": {"platformName": "iOS"},
            "firstMatch": [{"appium:automationName": "Espresso"}, {"appium:automationName": "XCUITest"}],
        }
    }
    status, reply = raw(fake, "POST", "/session", body)
    assert status == 200
    assert reply["value"]["capabilities"]["automationName"] == "XCUITest"


@pytest.mark.parametrize(
    ("body", "status", "code", "message"),
    [
        ({"desiredCapabilities": CAPS}, 500, "session not created", "capabilities format must comply to the W3C"),
        (
            {"capabilities": {"alwaysMatch": CAPS, "firstMatch": [{"platformName": "iOS"}]}},
            400,
            "invalid argument",
            "should not exist on both",
        ),
        (
            {"capabilities": {"alwaysMatch": {"appium:automationName": "XCUITest"}}},
            400,
            "invalid argument",
            "'platformName' is required to be present",
        ),
        (
            {"capabilities": {"alwaysMatch": {"platformName": "iOS"}}},
            400,
            "invalid argument",
            "'automationName' is required to be present",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "platformName": "Android"}}},
            500,
            "unknown error",
            "Could not find a driver for automationName 'XCUITest' and platformName 'Android'",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "appium:bundleId": "com.x"}}},
            500,
            "unknown error",
            "App with bundle identifier 'com.x' unknown",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "appium:newCommandTimeout": "x"}}},
            500,
            "session not created",
            "A new session could not be created. Details: 'newCommandTimeout' must be of type number",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "appium:platformVersion": 17.2, "appium:noReset": "TRUE"}}},
            500,
            "session not created",
            "Details: 'platformVersion' must be of type string; 'noReset' must be of type boolean",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "appium:orientation": "SIDEWAYS"}}},
            500,
            "session not created",
            """'orientation' must be contained by ["LANDSCAPE","PORTRAIT"]""",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "appium:platformVersion": "  "}}},
            500,
            "unknown error",
            "'platformVersion' must be a valid version number. '  ' is given instead.",
        ),
        (
            {"capabilities": {"alwaysMatch": {**CAPS, "deviceName": "x"}, "firstMatch": [{"foo": 1, "proxy": {}}]}},
            400,
            "invalid argument",
            "The following capabilities did not have one: deviceName,foo",
        ),
    ],
)
def test_bad_session_requests(fake: FakeAppium, body: Any, status: int, code: str, message: str) -> None:
    got, reply = raw(fake, "POST", "/session", body)
    assert got == status
    assert error(reply)[0] == code
    assert message in error(reply)[1]


def test_a_session_launches_its_app_unless_auto_launch_is_off(fake: FakeAppium) -> None:
    sid = session(fake, {**CAPS, "appium:bundleId": YOURAPP, "appium:autoLaunch": False})
    assert fake.wda.phone.front == SPRINGBOARD
    raw(fake, "DELETE", f"/session/{sid}")
    session(fake, {**CAPS, "appium:bundleId": YOURAPP})
    assert fake.wda.phone.front == YOURAPP


def test_unknown_routes_sessions_and_commands(fake: FakeAppium) -> None:
    sid = session(fake)
    status, reply = raw(fake, "GET", f"/session/{sid}/no/such/route")
    assert (status, error(reply)[0]) == (404, "unknown command")
    assert reply["value"]["message"].startswith("The requested resource could not be found")
    status, reply = raw(fake, "GET", "/session/nope/window/rect")
    assert (status, error(reply)) == (404, ("invalid session id", "A session is either terminated or not started"))
    status, reply = mobile(fake, sid, "shake")
    assert (status, error(reply)) == (405, ("unknown method", "Method is not implemented"))
    assert reply["value"]["stacktrace"].startswith("NotImplementedError: Method is not implemented\n    at ")
    status, reply = mobile(fake, sid, "tap", {"x": 1})
    assert (status, error(reply)[0]) == (400, "invalid argument")
    assert error(reply)[1] == (  # as Appium's checkParams words it (measured)
        'The following required parameter is missing: ["y"]\nKnown required parameters are: ["x","y"]\n'
        'Known optional parameters are: ["elementId"]\nYou have provided: ["x"]'
    )
    status, reply = raw(fake, "POST", f"/session/{sid}/execute/sync", {"script": "return 1", "args": []})
    assert (status, error(reply)[0]) == (405, "unknown method")
    status, reply = raw(fake, "DELETE", f"/session/{sid}")
    assert (status, reply) == (200, {"value": None})
    assert raw(fake, "GET", f"/session/{sid}")[0] == 404


# -- mobile: commands --------------------------------------------------------------------------


def test_launch_app_only_activates_a_running_app_and_drops_its_arguments(fake: FakeAppium) -> None:
    sid = session(fake)
    mobile(fake, sid, "launchApp", {"bundleId": YOURAPP, "arguments": ["-first"]})
    mobile(fake, sid, "pressButton", {"name": "HOME"})
    mobile(fake, sid, "launchApp", {"bundleId": YOURAPP, "arguments": ["-second"]})
    routes = [(r.route, (r.body or {}).get("arguments")) for r in fake.wda.requests if r.route.startswith("/wda/apps/")]
    # XCUITest sends the arguments every time (app-management.ts:110-127); WDA only activates a
    # running app and drops them (FBSession.m:397-403).
    assert routes == [("/wda/apps/launch", ["-first"]), ("/wda/apps/launch", ["-second"])]
    assert [r.body for r in fake.wda.requests if r.route == "/wda/pressButton"] == [{"name": "HOME"}]
    _, reply = mobile(fake, sid, "activeAppInfo")
    assert reply["value"]["processArguments"]["args"] == ["-first"]


def test_list_apps_works_on_an_iphone_only() -> None:
    with FakeAppium(script("iphone"), lifetime=60) as phone:
        status, reply = mobile(phone, session(phone), "listApps")
        assert status == 200
        assert reply["value"][YOURAPP]["CFBundleShortVersionString"] == "1.0"
    with FakeAppium(script("simulator"), lifetime=60) as simulator:
        status, reply = mobile(simulator, session(simulator), "listApps")
        assert (status, error(reply)[1]) == (500, "Listing apps can only be performed on a real device")


def test_source_hands_excluded_attributes_to_wda_for_json_too(fake: FakeAppium) -> None:
    sid = session(fake)
    status, reply = mobile(fake, sid, "source", {"format": "json", "excludedAttributes": "visible"})
    assert status == 200
    assert reply["value"]["type"] == "Application"
    assert "excluded_attributes=visible" in fake.wda.requests[-1].path
    assert "scope=AppiumAUT" in fake.wda.requests[-1].path
    status, reply = mobile(fake, sid, "source")  # XCUITest's default format is XML
    assert reply["value"].startswith("<?xml")


def test_a_wda_reply_that_comes_too_late_is_appiums_proxy_timeout() -> None:
    # @appium/base-driver's proxy waits 240 s, and axios words the timeout in ms.
    with FakeAppium(script(), lifetime=60, proxy_timeout=0.25) as fake:
        sid = session(fake)
        fake.wda.stall_next_reply(2.0)
        status, reply = mobile(fake, sid, "activeAppInfo")
        assert (status, error(reply)) == (
            500,
            (
                "unknown error",
                "Could not proxy command to the remote server. Original error: timeout of 250ms exceeded",
            ),
        )


def test_a_wda_reply_that_is_lost_is_a_500_from_appium(fake: FakeAppium) -> None:
    sid = session(fake)
    fake.wda.fail_next_action()
    status, reply = mobile(fake, sid, "pressButton", {"name": "home"})
    assert (status, error(reply)[0]) == (500, "unknown error")
    assert error(reply)[1].startswith("Could not proxy command to the remote server")


def test_an_element_value_needs_the_active_element(fake: FakeAppium) -> None:
    sid = session(fake)
    status, reply = raw(fake, "GET", f"/session/{sid}/element/active")
    assert (status, error(reply)[0]) == (404, "no such element")
    assert error(reply)[1] == "unable to find an element using '(null)', value '(null)'"  # WDA's, passed through
    status, reply = raw(fake, "POST", f"/session/{sid}/element/ABC/value", {"text": "x"})
    assert (status, error(reply)[0]) == (404, "stale element reference")  # WDA's element cache doesn't know it
    assert [r.body for r in fake.wda.requests if r.route == "/element/ABC/value"] == [{"text": "x"}]  # as sent


# -- finding elements, timeouts, settings -----------------------------------------------------


def find(fake: FakeAppium, sid: str, using: str, value: Any, *, one: bool = False) -> tuple[int, Any]:
    return raw(fake, "POST", f"/session/{sid}/element{'' if one else 's'}", {"using": using, "value": value})


def wda_bodies(fake: FakeAppium, route: str) -> list[Any]:
    return [r.body for r in fake.wda.requests if r.route == route]


def test_a_predicate_lookup_goes_to_wda_and_its_references_come_back(fake: FakeAppium) -> None:
    sid = session(fake)  # the home screen: one icon, "YourApp"
    status, reply = find(fake, sid, "-ios predicate string", 'label == "YourApp" AND visible == 1')
    assert status == 200
    (element,) = reply["value"]
    assert set(element) == {W3C, "ELEMENT"}  # WDA's compact reply, as WDA's defaults make it
    assert element[W3C] == element["ELEMENT"]
    assert wda_bodies(fake, "/elements")[-1] == {
        "using": "predicate string",
        "value": 'label == "YourApp" AND visible == 1',
    }
    told = {"shouldUseCompactResponses": False, "elementResponseAttributes": "type,label,rect"}
    assert raw(fake, "POST", f"/session/{sid}/appium/settings", {"settings": told}) == (200, {"value": None})
    (element,) = find(fake, sid, "-ios predicate string", 'label == "YourApp"')[1]["value"]
    assert (element["type"], element["label"]) == ("XCUIElementTypeButton", "YourApp")
    assert set(element["rect"]) == {"x", "y", "width", "height"}
    status, reply = find(fake, sid, "class name", "Button", one=True)
    assert (status, reply["value"]["label"]) == (200, "YourApp")
    assert wda_bodies(fake, "/element")[-1] == {"using": "class name", "value": "XCUIElementTypeButton"}


def test_a_lookup_that_fails_at_wda_finds_nothing(fake: FakeAppium) -> None:
    sid = session(fake)
    for value in ("label ==", 'rect == "x"', 'label == "Nowhere"'):  # unparseable, unevaluated, no match
        assert find(fake, sid, "-ios predicate string", value) == (200, {"value": []})
        status, reply = find(fake, sid, "-ios predicate string", value, one=True)
        assert (status, error(reply)[0]) == (404, "no such element")
    fake.wda.garbage_next_reply()  # a lost lookup too
    assert find(fake, sid, "-ios predicate string", 'label == "YourApp"') == (200, {"value": []})


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"using": "predicate string", "value": "label == 'x'"}, 400, "invalid selector"),  # WDA's name, not Appium's
        ({"using": "-android uiautomator", "value": "x"}, 400, "invalid selector"),
        ({"using": "-ios predicate string", "value": ""}, 400, "invalid selector"),
        ({"using": "-ios predicate string"}, 400, "invalid argument"),
    ],
)
def test_lookups_the_driver_refuses(fake: FakeAppium, body: dict[str, Any], status: int, code: str) -> None:
    sid = session(fake)
    before = len(wda_bodies(fake, "/elements"))
    got, reply = raw(fake, "POST", f"/session/{sid}/elements", body)
    assert (got, error(reply)[0]) == (status, code)
    assert len(wda_bodies(fake, "/elements")) == before  # refused before WDA is asked


def test_an_empty_lookup_is_asked_again_until_the_implicit_wait_ends(fake: FakeAppium) -> None:
    sid = session(fake)
    assert raw(fake, "GET", f"/session/{sid}/timeouts")[1]["value"]["implicit"] == 0
    assert find(fake, sid, "-ios predicate string", 'label == "Nowhere"') == (200, {"value": []})
    assert len(wda_bodies(fake, "/elements")) == 1  # no implicit wait: asked once
    assert raw(fake, "POST", f"/session/{sid}/timeouts", {"implicit": 200}) == (200, {"value": None})
    assert find(fake, sid, "-ios predicate string", 'label == "Nowhere"') == (200, {"value": []})
    assert len(wda_bodies(fake, "/elements")) == 3  # asked, then again once the 200 ms ran out
    for bad in ({}, {"implicit": -1}, {"implicit": True}, {"implicit": "5"}):
        status, reply = raw(fake, "POST", f"/session/{sid}/timeouts", bad)
        assert (status, error(reply)[0]) == (400, "invalid argument")


def test_settings_go_to_wda_one_key_at_a_time(fake: FakeAppium) -> None:
    sid = session(fake)
    settings = {"shouldUseCompactResponses": False, "pageSourceExcludedAttributes": "visible"}
    assert raw(fake, "POST", f"/session/{sid}/appium/settings", {"settings": settings})[0] == 200
    assert raw(fake, "POST", f"/session/{sid}/appium/settings", {"settings": settings})[0] == 200  # unchanged
    # The driver's own setting stays with the driver; WDA hears each change once.
    assert wda_bodies(fake, "/appium/settings")[-1:] == [{"settings": {"shouldUseCompactResponses": False}}]
    assert wda_bodies(fake, "/appium/settings").count({"settings": {"shouldUseCompactResponses": False}}) == 1
    assert fake.wda.settings["shouldUseCompactResponses"] is False
    value = raw(fake, "GET", f"/session/{sid}/appium/settings")[1]["value"]
    assert (value["shouldUseCompactResponses"], value["pageSourceExcludedAttributes"]) == (False, "visible")
    status, reply = raw(fake, "POST", f"/session/{sid}/appium/settings", {"settings": "nope"})
    assert (status, error(reply)[0]) == (400, "invalid argument")


def test_wdas_read_costs_show_through_appium() -> None:
    costs = ReadCosts(snapshot=1e-5, visible=2e-4, accessible=1e-4)
    with FakeAppium(script(), costs=costs, lifetime=60) as fake:
        sid = session(fake)
        nodes = []
        for excluded in ("visible,accessible", "accessible"):
            status, reply = mobile(fake, sid, "source", {"format": "json", "excludedAttributes": excluded})
            assert status == 200
            nodes.append(1 + len(reply["value"].get("children", [])))
        find(fake, sid, "-ios predicate string", 'label == "YourApp" AND visible == 1')
        charges = fake.wda.charges
    fast, evidence = (cost for route, cost in charges if route == "GET /source")
    assert fast == pytest.approx(costs.source(nodes[0], visible=False, accessible=False))
    assert evidence == pytest.approx(costs.source(nodes[1], visible=True, accessible=False))
    assert evidence > fast
    (query,) = (cost for route, cost in charges if route == "POST /elements")
    assert query == pytest.approx(costs.query(nodes[0], 1))  # one element read for its visibility


def test_the_base_path_of_a_grid_or_a_cloud() -> None:
    with FakeAppium(script(), lifetime=60, base_path="/wd/hub/") as hub:
        assert hub.url.endswith("/wd/hub")
        assert raw(hub, "GET", "/wd/hub/status")[1]["value"]["ready"] is True
        assert raw(hub, "GET", "/status")[0] == 404


# -- the stock client --------------------------------------------------------------------------


def test_the_stock_appium_client_drives_the_fake(fake: FakeAppium) -> None:
    from appium import webdriver
    from appium.options.ios import XCUITestOptions

    options = XCUITestOptions()
    options.bundle_id = YOURAPP
    driver = webdriver.Remote(fake.url, options=options)
    try:
        assert driver.execute_script("mobile: activeAppInfo")["bundleId"] == YOURAPP  # autoLaunch
        rect = driver.get_window_rect()
        assert (rect["width"], rect["height"]) == fake.script.size
        assert driver.get_screenshot_as_png().startswith(b"\x89PNG")
        tree = driver.execute_script("mobile: source", {"format": "json", "excludedAttributes": "visible"})
        (sign_up,) = [n for n in tree["children"] if n.get("label") == "Sign up"]
        r = sign_up["rect"]
        driver.execute_script("mobile: tap", {"x": r["x"] + r["width"] / 2, "y": r["y"] + r["height"] / 2})
        assert fake.wda.phone.screen_name(YOURAPP) == "signup"
        tree = driver.execute_script("mobile: source", {"format": "json"})
        (email,) = [n for n in tree["children"] if n.get("label") == "Email"]
        r = email["rect"]
        driver.tap([(r["x"] + r["width"] / 2, r["y"] + r["height"] / 2)])  # the client's W3C pointer tap
        driver.switch_to.active_element.send_keys("ada@example.com")
        tree = driver.execute_script("mobile: source", {"format": "json"})
        assert [n.get("value") for n in tree["children"] if n.get("label") == "Email"] == ["ada@example.com"]
    finally:
        driver.quit()
    assert fake.sessions == {}
    assert "POST /actions" in fake.commands


# -- lifecycle and the command line ------------------------------------------------------------


def test_the_fake_stops_by_itself_and_starts_once() -> None:
    server = FakeAppium(sample_path("yourapp"), lifetime=0.2).start()
    with pytest.raises(RuntimeError, match="once"):
        server.start()
    assert server.wait(5.0)
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url + "/status", timeout=2)
    server.stop()


def test_python_dash_m_prints_the_url_first() -> None:
    options = [
        "--lifetime",
        "20",
        "--base-path",
        "/wd/hub",
        "--require",
        "bstack:options.accessKey",
        "--provider",
        "browserstack",
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "mobster_drivers.testing.appium", "--app", str(sample_path("yourapp")), *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/wd/hub")
        with urllib.request.urlopen(url + "/status", timeout=5) as reply:
            assert json.loads(reply.read())["value"]["ready"] is True
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_main_reports_a_bad_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--app", str(tmp_path / "missing.yaml")]) == 2
    assert "fake Appium" in capsys.readouterr().err


def test_main_serves_a_tree_or_an_app_not_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--app", str(sample_path("yourapp")), "--tree", str(tmp_path / "tree.xml")])
    assert main(["--tree", str(tmp_path / "missing.xml")]) == 2
    assert "fake Appium" in capsys.readouterr().err


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="one of the two"):
        FakeAppium()
    with pytest.raises(ValueError, match="one of the two"):
        FakeAppium(sample_path("yourapp"), tree="tree.xml")
    with pytest.raises(ValueError, match="provider is one of"):
        FakeAppium(sample_path("yourapp"), provider="perfecto")
    with pytest.raises(ValueError, match="max_sessions"):
        FakeAppium(sample_path("yourapp"), max_sessions=0)


# -- one phone, one session; a Grid hub of several (Rules 3a, 9) ---------------------------------


def test_a_second_session_on_the_one_phone_claims_it() -> None:
    with FakeAppium(script(), lifetime=60, session_discovery=True) as fake:
        first, second = session(fake), session(fake)
        status, reply = mobile(fake, first, "activeAppInfo")
        assert (status, error(reply)) == (404, ("invalid session id", "A session is either terminated or not started"))
        assert mobile(fake, second, "activeAppInfo")[0] == 200
        assert raw(fake, "DELETE", f"/session/{first}")[0] == 404
        listed = [s["id"] for s in raw(fake, "GET", "/appium/sessions")[1]["value"]]
        assert listed == [second, first]  # as Appium, which keeps the claimed one in its list
        assert list(fake.sessions) == [second]


def test_a_hub_gives_each_session_its_own_phone_and_queues_the_rest() -> None:
    with FakeAppium(script(), lifetime=60, devices=2, session_request_timeout=0.2) as hub:
        first, second = session(hub), session(hub)
        assert {hub.phone_of(first), hub.phone_of(second)} == {0, 1}
        assert len(set(hub.udids)) == 2
        _, reply = raw(hub, "GET", f"/session/{first}")
        assert reply["value"]["udid"] == hub.udids[hub.phone_of(first) or 0]  # the node's stereotype
        status, reply = raw(hub, "POST", "/session", {"capabilities": {"alwaysMatch": CAPS}})
        assert (status, error(reply)) == (
            500,
            ("session not created", "Could not start a new session. New session request timed out"),
        )
        assert mobile(hub, first, "activeAppInfo")[0] == 200  # nobody was claimed
        status, reply = raw(hub, "GET", "/status")
        assert reply["value"]["message"] == "Selenium Grid ready."
        assert len(reply["value"]["nodes"]) == 2


def test_a_queued_request_gets_the_phone_a_session_frees() -> None:
    import threading

    with FakeAppium(script(), lifetime=60, devices=1, session_request_timeout=30) as hub:
        first = session(hub)
        waited: list[str] = []
        queued = threading.Thread(target=lambda: waited.append(session(hub)))
        queued.start()
        creates: list[object] = []

        def second_create(request: Any) -> bool:  # each recorded request is seen once per wait: count them
            if request.command == "POST /session" and not any(seen is request for seen in creates):
                creates.append(request)
            return len(creates) >= 2

        assert hub.wait_for(second_create, 10)
        assert raw(hub, "DELETE", f"/session/{first}") == (200, {"value": None})
        queued.join(10)
        assert waited
        assert hub.phone_of(waited[0]) == 0


def test_a_hub_session_asking_for_a_phone_gets_that_one() -> None:
    with FakeAppium(script(), lifetime=60, devices=2) as hub:
        second = session(hub, {**CAPS, "appium:udid": hub.udids[1]})
        assert hub.phone_of(second) == 1
        status, reply = raw(hub, "POST", "/session", {"capabilities": {"alwaysMatch": {**CAPS, "appium:udid": "nope"}}})
        assert (status, error(reply)[1]) == (
            500,
            "Could not start a new session. No nodes support the capabilities in the request",
        )


def test_a_linux_host_without_usbmuxd_fails_what_needs_it() -> None:
    with FakeAppium(script(), lifetime=60, usbmuxd=False) as fake:
        # Without a platformVersion XCUITest asks the phone's lockdown for it: no session at all.
        status, reply = raw(fake, "POST", "/session", {"capabilities": {"alwaysMatch": CAPS}})
        assert (status, error(reply)) == (
            500,
            ("unknown error", "The usbmuxd socket path '/var/run/usbmuxd' does not exist or is not accessible"),
        )
        sid = session(fake, {**CAPS, "appium:platformVersion": "26.4"})
        for name, args in (("isAppInstalled", {"bundleId": YOURAPP}), ("listApps", {})):
            status, reply = mobile(fake, sid, name, args)
            assert (status, error(reply)[0]) == (500, "unknown error"), name
            assert "usbmuxd socket path" in error(reply)[1]
        status, reply = mobile(fake, sid, "deviceInfo")  # iOS 26: XCUITest's tunnel
        assert status == 500
        assert error(reply)[1].startswith("Tunnel lockdown failed for")
        # XCUITest picks its lockdown route by the session's version: before iOS 18, usbmuxd's words.
        old = session(fake, {**CAPS, "appium:platformVersion": "17.2"})
        assert error(mobile(fake, old, "deviceInfo")[1])[1].startswith("The usbmuxd socket path")
        status, reply = raw(
            fake,
            "POST",
            "/session",
            {"capabilities": {"alwaysMatch": {**CAPS, "appium:bundleId": YOURAPP, "appium:platformVersion": "26.4"}}},
        )
        assert (status, error(reply)[0]) == (500, "unknown error")


@pytest.mark.parametrize(
    ("access", "message"),
    [
        ({"location": "maybe"}, "location does not support maybe. Please specify 'yes', 'no' or 'unset'."),
        ({"notifications": "yes"}, "'notifications' is unknown. Only the following service names are supported: ["),
        ({"camera": ["yes"]}, "'['yes']' is not a supported value for 'camera'"),
        ({"camera": "limited"}, "'limited' is not a supported value for 'camera'"),
        ("location", "The 'access' option is expected to be a map"),
    ],
)
def test_set_permission_refuses_as_xcuitest_does(access: Any, message: str) -> None:
    with FakeAppium(script("simulator"), lifetime=30) as fake:
        sid = session(fake)
        status, reply = mobile(fake, sid, "setPermission", {"bundleId": "com.example.yourapp", "access": access})
        assert status == 500
        code, said = error(reply)
        assert code == "unknown error"
        assert message in said


def test_set_permission_sets_simctls_before_the_tcc_ones_and_only_on_a_simulator() -> None:
    with FakeAppium(script("simulator"), lifetime=30) as fake:
        sid = session(fake)
        access = {"usertracking": "no", "location": "YES", "photos": "limited"}
        assert mobile(fake, sid, "setPermission", {"bundleId": "com.example.yourapp", "access": access})[0] == 200
        # A refused TCC name after a simctl one: the simctl one is set all the same, as the real code does.
        access = {"siri": "yes", "location-always": "unset", "notifications": "yes"}
        assert mobile(fake, sid, "setPermission", {"bundleId": "com.example.yourapp", "access": access})[0] == 500
        assert [(c["service"], c["allow"]) for name, c in fake.controls if name == "setPermission"] == [
            ("location", True), ("tracking", False), ("photos", True), ("location-always", None)
        ]  # fmt: skip
    with FakeAppium(script("iphone"), lifetime=30) as fake:
        sid = session(fake)
        status, reply = mobile(fake, sid, "setPermission", {"bundleId": "com.example.yourapp", "access": {}})
        assert status == 500
        assert error(reply) == ("unknown error", "Setting permissions can only be performed on Simulator")
