"""Each fake WDA keeps its own WDA state: fakes in one process share their route table, nothing else."""

from __future__ import annotations

from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.wda import FakeWda
from tests.real_appium import request

YOURAPP = "com.example.yourapp"


def test_two_fakes_in_one_process_keep_their_own_sessions_settings_and_elements() -> None:
    with FakeWda(sample_path("yourapp"), lifetime=60) as one, FakeWda(sample_path("yourapp"), lifetime=60) as other:
        _, made = request("POST", f"{one.url}/session", {"capabilities": {"alwaysMatch": {"bundleId": YOURAPP}}})
        sid = made["sessionId"]
        assert (one.session_id, other.session_id) == (sid, None)
        status, _ = request("POST", f"{one.url}/session/{sid}/appium/settings", {"settings": {"useFirstMatch": True}})
        assert status == 200
        assert (one.settings["useFirstMatch"], other.settings["useFirstMatch"]) == (True, False)
        _, found = request(
            "POST", f"{one.url}/session/{sid}/elements", {"using": "class name", "value": "XCUIElementTypeButton"}
        )
        element = found["value"][0]["ELEMENT"]

        # Another fake knows neither the session nor the element.
        status, reply = request("GET", f"{other.url}/session/{sid}/source")
        assert (status, reply["value"]["error"]) == (404, "invalid session id")
        _, theirs = request("POST", f"{other.url}/session", {"capabilities": {"alwaysMatch": {"bundleId": YOURAPP}}})
        status, reply = request("GET", f"{other.url}/session/{theirs['sessionId']}/element/{element}/rect")
        assert (status, reply["value"]["error"]) == (404, "stale element reference")

        # A restart of one ends its own session and settings only.
        other.restart()
        assert request("GET", f"{one.url}/session/{sid}/element/{element}/rect")[0] == 200
        one.restart()
        assert (one.session_id, one.settings["useFirstMatch"]) == (None, False)
