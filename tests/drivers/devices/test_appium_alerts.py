"""A first-launch location prompt and the keyboard through the Appium device (fake Appium, its fake WDA)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

import mobster_core as mc
from mobster_core.checks import load_check_text
from mobster_drivers.devices.appium import AppiumCaps, AppiumTimeouts, appium_device
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_drivers.testing.appium import FakeAppium
from tests.real_clock import QUICK_POLICY
from tests.samples import SIGNUP_PAST_THE_KEYBOARD

CHECK = SIGNUP_PAST_THE_KEYBOARD.replace("reset: data\n", "reset: none\nalerts: {allow: [location]}\n")


def test_an_allowed_prompt_and_the_keyboard_through_appium(tmp_path: Path) -> None:
    text = sample_path("yourapp-location").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    with FakeAppium(AppScript.from_text(text, "yourapp-location.yaml"), lifetime=60) as fake:
        check = load_check_text(CHECK, str(tmp_path / ".mobster" / "checks" / "signup.yaml"))
        clock = mc.SystemClock()
        device = appium_device(fake.url, AppiumCaps(), clock, bundle="com.example.yourapp")
        options = mc.RunOptions(root=tmp_path, policy=QUICK_POLICY)
        try:
            result = asyncio.run(mc.run_check(check, device, clock, model=ScriptedModel(), options=options))
        finally:
            device.close()
        assert result.verdict is mc.Verdict.PASSED, result.outcome
        assert fake.wda.phone.alert_answers == ["Allow While Using App"]
        commands = [r.command for r in fake.requests if r.command in ("mobile: alert", "mobile: hideKeyboard")]
        assert commands == ["mobile: alert", "mobile: hideKeyboard"]


def _run(fake: FakeAppium, tmp_path: Path, check_text: str, timeouts: AppiumTimeouts | None = None) -> mc.CheckResult:
    # The caps name the iOS version, as the fake has no usbmuxd to read it through (fake Appium Rule 3).
    check = load_check_text(check_text, str(tmp_path / ".mobster" / "checks" / "signup.yaml"))
    clock = mc.SystemClock()
    caps = AppiumCaps.from_mapping({"appium:platformVersion": "26.4"})
    device = appium_device(fake.url, caps, clock, bundle="com.example.yourapp", timeouts=timeouts)
    options = mc.RunOptions(root=tmp_path, policy=QUICK_POLICY)
    try:
        return asyncio.run(mc.run_check(check, device, clock, model=ScriptedModel(), options=options))
    finally:
        device.close()


def test_on_a_simulator_session_the_policys_permissions_are_set_before_the_launch(tmp_path: Path) -> None:
    # allow location (simctl's), deny tracking (the TCC name usertracking), notifications: no name.
    text = CHECK.replace("alerts: {allow: [location]}", "alerts: {allow: [location, notifications], deny: [tracking]}")
    with FakeAppium(AppScript.from_text(sample_path("yourapp-location").read_text("utf-8")), lifetime=60) as fake:
        result = _run(fake, tmp_path, text)
        assert result.verdict is mc.Verdict.PASSED, result.outcome
        assert fake.wda.phone.alert_answers == []  # the prompt never showed: it was set
        sent = [r for r in fake.requests if r.command in ("mobile: setPermission", "mobile: launchApp")]
        assert [r.command for r in sent] == ["mobile: setPermission", "mobile: launchApp"]
        (args,) = sent[0].body["args"]
        assert args == {"bundleId": "com.example.yourapp", "access": {"location": "yes", "usertracking": "no"}}


def _set_permission(monkeypatch: pytest.MonkeyPatch, handler: Any) -> None:
    from mobster_drivers.testing import _appium_mobile

    required, _handler = _appium_mobile.MOBILE["setPermission"]
    monkeypatch.setitem(_appium_mobile.MOBILE, "setPermission", (required, handler))


def _no_simctl(_wda: object, _params: object) -> None:
    from mobster_drivers.testing import _appium_mobile

    # An Appium host without Xcode's simctl: XCUITest's ``simctl privacy`` fails (teen_process's ENOENT).
    raise _appium_mobile.Failure(500, "unknown error", "spawn xcrun ENOENT")


def _html_page(_wda: object, _params: object) -> None:
    from mobster_drivers.testing.appium import _HtmlFailure

    raise _HtmlFailure(200)  # a proxy's page, status 200


def _error_as_value(_wda: object, _params: object) -> object:
    return {"error": "unknown error", "message": "simctl privacy exited with 1"}  # a 200 whose value is an error


@pytest.mark.parametrize(
    ("handler", "says"),
    [(_no_simctl, "spawn xcrun ENOENT"), (_html_page, "not JSON"), (_error_as_value, "simctl privacy exited")],
)
def test_a_server_that_cant_set_permissions_leaves_the_prompt_to_the_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, handler: Any, says: str
) -> None:
    _set_permission(monkeypatch, handler)
    with FakeAppium(AppScript.from_text(sample_path("yourapp-location").read_text("utf-8")), lifetime=60) as fake:
        result = _run(fake, tmp_path, CHECK)
        assert result.verdict is mc.Verdict.PASSED, result.outcome
        assert fake.wda.phone.alert_answers == ["Allow While Using App"]
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(said) == 1
    assert says in said[0]
    assert "answers the permission prompts as they show" in said[0]


def test_a_set_permission_that_hangs_ends_the_launch_within_its_timeout_and_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Appium runs a session's commands one at a time: a launchApp sent behind it would wait too.
    release = threading.Event()

    def hangs(_wda: object, _params: object) -> None:
        release.wait(30)

    _set_permission(monkeypatch, hangs)
    with FakeAppium(AppScript.from_text(sample_path("yourapp-location").read_text("utf-8")), lifetime=60) as fake:
        try:
            result = _run(fake, tmp_path, CHECK, AppiumTimeouts(launch=1.0))
        finally:
            release.set()
        sent = [r.command for r in fake.requests if r.command.startswith("mobile: ")]
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.COULDNT_RUN, mc.FailureClass.DEVICE)
    assert "didn't answer mobile: setPermission: no reply within 0." in result.outcome.message
    assert result.outcome.message.endswith("com.example.yourapp was not launched: its 1 s launch timeout is spent")
    assert "mobile: launchApp" not in sent
