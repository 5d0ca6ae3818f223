"""The pure rules of system alerts and the keyboard: recognising, classifying, deciding, covering."""

from __future__ import annotations

from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.device.alerts import (
    MAX_ANSWERS_PER_ALERT,
    MAX_BUTTONS,
    MAX_TEXT,
    SHOWN_TITLE,
    AlertAnswer,
    AlertMode,
    AlertPolicy,
    AlertProblem,
    AlertRefusal,
    button_for,
    decide,
    find_alert,
    parse_alerts,
)
from mobster_core._rules.device.keyboard import covered_by_keyboard, covers_reason, keyboard_of
from mobster_core.protocols import SPRINGBOARD

LOCATION = "Allow “YourApp” to use your location?"
LOCATION_BUTTONS = ["Allow Once", "Allow While Using App", "Don’t Allow"]


def alert_screen(title: str, buttons: list[str], message: str = "", app: str = SPRINGBOARD) -> mc.Screen:
    texts = [{"role": "StaticText", "label": t} for t in (title, message) if t]
    children: list[dict[str, Any]] = [*texts, *({"role": "Button", "label": b} for b in buttons)]
    box = {"role": "Alert", "label": title, "frame": [0.1, 0.3, 0.8, 0.3], "children": children}
    return mc.Screen.from_dict({"app": app, "elements": [box]})


def test_an_alert_is_recognised_with_its_title_message_buttons_and_service() -> None:
    found = find_alert(alert_screen(LOCATION, LOCATION_BUTTONS, "Shows stores near you."))
    assert found is not None
    assert (found.app, found.title, found.message) == (SPRINGBOARD, LOCATION, "Shows stores near you.")
    assert (found.buttons, found.service) == (tuple(LOCATION_BUTTONS), "location")


def test_a_screen_without_an_alert_has_none() -> None:
    plain = mc.Screen.from_dict({"app": "a.b", "elements": [{"role": "Button", "label": "Allow"}]})
    assert find_alert(plain) is None


@pytest.mark.parametrize(
    ("title", "service"),
    [
        ("“YourApp” Would Like to Send You Notifications", "notifications"),
        ("Allow “YourApp” to track your activity across other companies’ apps and websites?", "tracking"),
        ("“YourApp” Would Like to Access the Camera", "camera"),
        ("“YourApp” Would Like to Access the Microphone", "microphone"),
        ("“YourApp” Would Like to Access Your Contacts", "contacts"),
        ("“YourApp” Would Like to Use Bluetooth", "bluetooth"),
        ("Open in “YourApp”?", "open-in"),
        ("Möchtest du „YourApp“ erlauben, deinen Standort zu verwenden?", None),  # another locale: no service
    ],
)
def test_the_service_is_read_from_the_english_text(title: str, service: str | None) -> None:
    found = find_alert(alert_screen(title, ["Don’t Allow", "Allow"]))
    assert found is not None
    assert found.service == service


def test_the_button_is_chosen_by_its_words_else_by_its_order_as_wda_does() -> None:
    location = find_alert(alert_screen(LOCATION, LOCATION_BUTTONS))
    assert location is not None
    assert (button_for(location, accept=True), button_for(location, accept=False)) == (
        "Allow While Using App",
        "Don’t Allow",
    )
    german = find_alert(alert_screen("Mitteilungen senden?", ["Nicht erlauben", "Erlauben"]))
    assert german is not None
    assert (button_for(german, accept=True), button_for(german, accept=False)) == ("Erlauben", "Nicht erlauben")
    german_location = find_alert(alert_screen(LOCATION, ["Einmal erlauben", "Beim Verwenden", "Nicht erlauben"]))
    assert german_location is not None  # English title, translated buttons: the order decides
    assert button_for(german_location, accept=True) == "Beim Verwenden"


def test_fail_refuses_every_alert_naming_its_title() -> None:
    found = find_alert(alert_screen(LOCATION, LOCATION_BUTTONS))
    assert found is not None
    decision = decide(AlertPolicy(), found, opened_url=False)
    assert isinstance(decision, AlertRefusal)
    assert decision.reason.startswith(f"a system alert is in the way: “{LOCATION}”")


def test_allow_and_deny_answer_the_services_they_name_only() -> None:
    found = find_alert(alert_screen(LOCATION, LOCATION_BUTTONS))
    assert found is not None
    allowed = decide(parse_alerts({"allow": ["location"]}), found, opened_url=False)
    assert allowed == AlertAnswer(found, "Allow While Using App", accept=True)
    denied = decide(parse_alerts({"deny": ["location"]}), found, opened_url=False)
    assert denied == AlertAnswer(found, "Don’t Allow", accept=False)
    other = decide(parse_alerts({"allow": ["camera"]}), found, opened_url=False)
    assert isinstance(other, AlertRefusal)
    assert "it asks for location" in other.reason


def test_open_in_is_accepted_only_right_after_the_checks_own_url() -> None:
    found = find_alert(alert_screen("Open in “YourApp”?", ["Cancel", "Open"]))
    assert found is not None
    for policy in (AlertPolicy(), AlertPolicy(AlertMode.ACCEPT), AlertPolicy(AlertMode.DISMISS)):
        assert decide(policy, found, opened_url=True) == AlertAnswer(found, "Open", accept=True)
        refused = decide(policy, found, opened_url=False)
        assert isinstance(refused, AlertRefusal)
        assert "accepted only right after the check's launch.url" in refused.reason


def test_an_alert_answered_twice_that_comes_back_is_refused() -> None:
    found = find_alert(alert_screen(LOCATION, LOCATION_BUTTONS))
    assert found is not None
    policy = AlertPolicy(AlertMode.ACCEPT)
    answered = [LOCATION] * (MAX_ANSWERS_PER_ALERT - 1)
    assert isinstance(decide(policy, found, opened_url=False, answered=answered), AlertAnswer)
    again = decide(policy, found, opened_url=False, answered=[*answered, LOCATION])
    assert isinstance(again, AlertRefusal)
    assert f"came back after it was answered {MAX_ANSWERS_PER_ALERT} times" in again.reason


def test_a_hostile_alert_is_cut_and_its_controls_escaped() -> None:
    huge = "A" * 900_000
    found = find_alert(alert_screen(huge, [f"B{i}" for i in range(50)], message="C" * 900_000))
    assert found is not None
    assert (len(found.title), len(found.message), len(found.buttons)) == (MAX_TEXT, MAX_TEXT, MAX_BUTTONS)
    assert len(found.shown) == SHOWN_TITLE
    bidi = find_alert(alert_screen("Allow\u202e“ppAruoY” \x1b[31m", ["OK"]))
    assert bidi is not None
    decision = decide(AlertPolicy(), bidi, opened_url=False)
    assert isinstance(decision, AlertRefusal)
    assert "\u202e" not in decision.reason
    assert "\x1b" not in decision.reason
    assert "\\u202e" in decision.reason


@pytest.mark.parametrize(
    ("value", "keys", "problem"),
    [
        ("sometimes", (), "unknown policy 'sometimes'"),
        (1, (), "expected fail, accept, dismiss or a mapping"),
        ({}, (), "expected fail, accept, dismiss or a mapping"),
        ({"allow": []}, ("allow",), "expected a list of services"),
        ({"allow": ["gps"]}, ("allow", 0), "unknown service 'gps'"),
        ({"allow": ["camera"], "deny": ["camera"]}, (), "camera is both allowed and denied"),
    ],
)
def test_a_bad_policy_names_where_and_what(value: object, keys: tuple[str | int, ...], problem: str) -> None:
    with pytest.raises(AlertProblem) as raised:
        parse_alerts(value)
    assert (raised.value.keys, raised.value.problem) == (keys, problem)


def test_a_policy_describes_itself_as_a_check_writes_it() -> None:
    assert parse_alerts("dismiss").describe() == "dismiss"
    assert parse_alerts({"deny": ["tracking"], "allow": ["photos", "camera"]}).describe() == (
        "{allow: [camera, photos], deny: [tracking]}"
    )


# -- the keyboard -------------------------------------------------------------------------------

KEYBOARD = {"role": "Keyboard", "frame": [0.0, 0.6, 1.0, 0.4], "children": [{"role": "Key", "label": "return"}]}


def test_a_target_under_the_keyboard_is_covered_and_one_above_it_is_not() -> None:
    screen = mc.Screen.from_dict(
        {
            "app": "a.b",
            "elements": [
                {"role": "TextField", "label": "Email", "frame": [0.1, 0.2, 0.8, 0.06]},
                {"role": "Button", "label": "Continue", "frame": [0.1, 0.85, 0.8, 0.06]},
                KEYBOARD,
            ],
        }
    )
    keyboard = keyboard_of(screen)
    assert keyboard is not None
    field, button, _, key = screen.elements
    assert not covered_by_keyboard(screen, field)
    assert covered_by_keyboard(screen, button)
    assert not covered_by_keyboard(screen, key)  # the keyboard's own key
    assert covers_reason(button) == "the keyboard covers “Continue”"
    no_keyboard = mc.Screen(app="a.b", elements=(button,))
    assert not covered_by_keyboard(no_keyboard, button)
