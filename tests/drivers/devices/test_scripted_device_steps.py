"""The scripted phone's device steps (its Rule 15, the app script's Rule 11): a Face ID prompt and a push."""

from __future__ import annotations

import pytest

import mobster_core as mc
from mobster_core.exceptions import ScriptError
from mobster_core.protocols import DeviceEvent, DeviceEvents
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone
from tests.samples import APP, FACE_ID_APP, PUSH_PAYLOAD

MATCH = DeviceEvent(mc.Op.BIOMETRIC_MATCH)
FAIL = DeviceEvent(mc.Op.BIOMETRIC_FAIL, sensor="touchId")
PUSH = DeviceEvent(mc.Op.PUSH, file="payload.json", payload=PUSH_PAYLOAD.encode(), bundle=APP)


def _phone(text: str = FACE_ID_APP, **latency: float) -> tuple[ScriptedPhone, FakeClock]:
    clock = FakeClock()
    if latency:
        given = ", ".join(f"{k}: {v}" for k, v in latency.items())
        text = text.replace("latency: zero", f"latency: {{{given}}}")
    phone = ScriptedPhone.from_text(text, clock=clock)
    clock.run(phone.launch(APP, mc.LaunchOptions()))
    return phone, clock


def _labels(phone: ScriptedPhone, clock: FakeClock) -> list[str]:
    return [e.label for e in clock.run(phone.read()).elements]


def _to_unlock(phone: ScriptedPhone, clock: FakeClock) -> None:
    screen = clock.run(phone.read())
    [button] = screen.find("Button", "Sign in")
    clock.run(phone.act(mc.Action(mc.Op.TAP, element=button)))
    clock.run(clock.sleep(1.0))  # past any transition
    assert phone.screen_name(APP) == "unlock"


def test_a_match_and_a_failure_lead_where_the_script_says() -> None:
    phone, clock = _phone()
    assert isinstance(phone, DeviceEvents)
    _to_unlock(phone, clock)
    clock.run(phone.send_event(MATCH))
    assert _labels(phone, clock) == ["Welcome back", "Sign out"]
    phone, clock = _phone()
    _to_unlock(phone, clock)
    clock.run(phone.send_event(FAIL))
    assert phone.screen_name(APP) == "locked"
    assert phone.events == [FAIL]


def test_a_match_with_no_prompt_up_changes_nothing_and_is_kept() -> None:
    phone, clock = _phone()
    clock.run(phone.send_event(MATCH))
    assert phone.screen_name(APP) == "signin"
    assert phone.events == [MATCH]


def test_the_answer_takes_the_tap_s_time_and_the_screen_changes_after_the_transition() -> None:
    phone, clock = _phone(tap=0.25, transition=0.5)
    _to_unlock(phone, clock)
    began = clock.now()
    clock.run(phone.send_event(MATCH))
    assert clock.now() - began == pytest.approx(0.25)
    assert phone.screen_name(APP) == "unlock"  # the transition is still running
    clock.run(clock.sleep(0.5))
    assert phone.screen_name(APP) == "account"


def test_a_push_opens_the_app_s_push_screen_while_it_is_in_front() -> None:
    phone, clock = _phone()
    clock.run(phone.send_event(PUSH))
    assert _labels(phone, clock) == ["Your order shipped"]
    phone, clock = _phone(FACE_ID_APP.replace("    push: inbox\n", ""))
    clock.run(phone.send_event(PUSH))
    assert phone.screen_name(APP) == "signin"
    assert phone.events == [PUSH]


def test_an_iphone_refuses_device_steps_and_a_push_needs_an_installed_app() -> None:
    phone, clock = _phone(FACE_ID_APP.replace("kind: simulator", "kind: iphone"))
    assert phone.event_refusal(MATCH) == (
        "Scripted iPhone is an iPhone (its app script says kind: iphone); run the check on a scripted simulator "
        "(kind: simulator)"
    )
    with pytest.raises(mc.DeviceError, match="is an iPhone"):
        clock.run(phone.send_event(PUSH))
    assert phone.events == []
    phone, clock = _phone()
    other = DeviceEvent(mc.Op.PUSH, file="p.json", payload=PUSH_PAYLOAD.encode(), bundle="com.example.other")
    assert phone.event_refusal(other) == "com.example.other is not installed on Scripted iPhone: nothing to push to"


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        (
            "push: inbox",
            "push: outbox",
            "apps.\"com.example.yourapp\".push: com.example.yourapp has no screen 'outbox'",
        ),
        (
            "{unlock: {match: account, fail: locked}}",
            "{unlok: {match: account, fail: locked}}",
            "no screen 'unlok' (did you mean 'unlock'?)",
        ),
        (
            "{match: account, fail: locked}",
            "{match: account}",
            "biometric.unlock: key 'fail' is missing; write fail: <screen>",
        ),
        ("{match: account, fail: locked}", "{match: account, fail: locked, retry: 1}", "unknown key 'retry'"),
        ("{unlock: {match: account, fail: locked}}", "[unlock]", "biometric: expected a mapping of screens"),
    ],
)
def test_a_bad_biometric_or_push_key_is_a_script_error(old: str, new: str, says: str) -> None:
    assert old in FACE_ID_APP
    with pytest.raises(ScriptError) as caught:
        AppScript.from_text(FACE_ID_APP.replace(old, new), "faceid.yaml")
    assert says in str(caught.value)
