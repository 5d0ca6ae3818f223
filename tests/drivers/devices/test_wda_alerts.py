"""System alerts and the keyboard through the fake WDA: its routes as real WDA serves them, and a check run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core.checks import load_check_text
from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.devices.wda import WdaDevice
from mobster_drivers.testing.wda import FakeWda
from tests.real_clock import QUICK_POLICY
from tests.samples import LOCATION_TITLE as TITLE
from tests.samples import SIGNUP_PAST_THE_KEYBOARD

YOURAPP = "com.example.yourapp"
CHECK = SIGNUP_PAST_THE_KEYBOARD


def call(fake: FakeWda, method: str, route: str, body: object = None) -> tuple[int, object]:
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(fake.url + route, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())["value"]
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())["value"]


def launch(fake: FakeWda) -> str:
    status, value = call(fake, "POST", "/session", {"capabilities": {}})
    assert status == 200
    session = value["sessionId"]  # type: ignore[index]
    assert call(fake, "POST", f"/session/{session}/wda/apps/launch", {"bundleId": YOURAPP})[0] == 200
    return str(session)


def test_the_alert_routes_answer_as_real_wda_does() -> None:
    with FakeWda(sample_path("yourapp-location"), lifetime=60) as fake:
        status, value = call(fake, "GET", "/alert/text")
        assert (status, value["error"]) == (404, "no such alert")  # type: ignore[index]
        assert call(fake, "POST", "/alert/accept", {})[1]["error"] == "no such alert"  # type: ignore[index]
        session = launch(fake)
        assert call(fake, "GET", "/alert/text") == (200, f"{TITLE}\nYour location is used to show stores near you.")
        buttons = ["Allow Once", "Allow While Using App", "Don’t Allow"]
        assert call(fake, "GET", f"/session/{session}/wda/alert/buttons") == (200, buttons)
        assert call(fake, "GET", "/wda/alert/buttons")[0] == 404  # a session's route only, as on WDA
        status, source = call(fake, "GET", "/source?format=json")
        assert (status, source["type"], source["children"][0]["type"]) == (200, "Application", "Alert")  # type: ignore[index]
        status, value = call(fake, "POST", "/alert/accept", {"name": "Always"})
        assert (status, value["error"]) == (400, "invalid element state")  # type: ignore[index]
        assert "Failed to find button with label 'Always'" in value["message"]  # type: ignore[index]
        status, value = call(fake, "POST", f"/session/{session}/alert/text", {"value": "x"})
        assert (status, value["error"]) == (400, "unsupported operation")  # type: ignore[index]
        assert call(fake, "POST", "/alert/dismiss", {}) == (200, None)  # the first button: Allow Once
        assert fake.phone.alert_answers == ["Allow Once"]
        status, value = call(fake, "GET", f"/session/{session}/wda/alert/buttons")
        assert (status, value["error"]) == (404, "no such alert")  # type: ignore[index]


def test_keyboard_dismiss_needs_a_key_name_on_an_iphone() -> None:
    with FakeWda(sample_path("yourapp-location"), lifetime=60) as fake:
        session = launch(fake)
        assert call(fake, "POST", f"/session/{session}/wda/keyboard/dismiss", {})[0] == 200  # none: done at once
        call(fake, "POST", "/alert/accept", {"name": "Allow While Using App"})
        device = WdaDevice(fake.url)
        try:

            async def to_the_field() -> None:
                screen = await device.read()
                await device.act(mc.Action(mc.Op.TAP, element=screen.find("Button", "Sign up")[0]))
                await asyncio.sleep(0.05)
                screen = await device.read()
                field = screen.find("TextField", "Email")[0]
                await device.act(mc.Action(mc.Op.TYPE, element=field, text="ada@example.com"))

            asyncio.run(to_the_field())
            assert fake.phone.keyboard_shown()
            session = next(r.session for r in reversed(fake.requests) if r.session)
            status, value = call(fake, "POST", f"/session/{session}/wda/keyboard/dismiss", {})
            assert (status, value["error"]) == (400, "invalid element state")  # type: ignore[index]
            assert "Did not know how to dismiss the keyboard" in value["message"]  # type: ignore[index]
            screen = asyncio.run(device.read())
            assert [e.role for e in screen.elements][-2:] == ["Keyboard", "Key"]
            asyncio.run(device.act(mc.Action(mc.Op.DISMISS_KEYBOARD)))  # with the keys that hide it
            assert not fake.phone.keyboard_shown()
        finally:
            device.close()


def _run(fake: FakeWda, root: Path, check: str, *, model: bool) -> mc.CheckResult:
    from mobster_drivers.models.scripted import ScriptedModel

    loaded = load_check_text(check, str(root / ".mobster" / "checks" / "signup.yaml"))
    clock = mc.SystemClock()
    device = WdaDevice(fake.url)
    options = mc.RunOptions(root=root, policy=QUICK_POLICY)
    try:
        return asyncio.run(
            mc.run_check(loaded, device, clock, model=ScriptedModel() if model else None, options=options)
        )
    finally:
        device.close()


@pytest.mark.parametrize("allowed", [True, False])
def test_a_location_prompt_through_the_fake_wda(tmp_path: Path, allowed: bool) -> None:
    check = CHECK.replace("reset: data\n", "reset: data\nalerts: {allow: [location]}\n") if allowed else CHECK
    with FakeWda(sample_path("yourapp-location"), lifetime=60) as fake:
        result = _run(fake, tmp_path, check, model=True)
        if not allowed:
            assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
            assert f"a system alert is in the way: “{TITLE}”" in result.outcome.message
            assert fake.phone.alert_answers == []
            assert "/alert/accept" not in [r.route for r in fake.requests]
            return
        assert result.verdict is mc.Verdict.PASSED, result.outcome
        assert fake.phone.alert_answers == ["Allow While Using App"]
        accepts = [r for r in fake.requests if r.route == "/alert/accept"]
        assert len(accepts) == 1
    with FakeWda(sample_path("yourapp-location"), lifetime=60) as fake:
        again = _run(fake, tmp_path, check, model=False)
        assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)
        assert fake.phone.alert_answers == ["Allow While Using App"]
        dismissed = [r for r in fake.requests if r.route == "/wda/keyboard/dismiss"]
        assert len(dismissed) == 1
