"""Alerts and the keyboard: WDA's ``FBAlertViewCommands`` and ``/wda/keyboard/dismiss``.

Rule 14: alerts and the keyboard are the scripted phone's (its Rules 10, 11): while a prompt is
         shown ``/source`` is SpringBoard's, with the ``XCUIElementTypeAlert``, its texts and its
         buttons; ``GET /alert/text`` is its title and message (a line each), ``GET
         /wda/alert/buttons`` its buttons in order, ``POST /alert/accept`` and ``/alert/dismiss``
         tap the button ``name`` names, else the last (accept) or the first (dismiss) as
         ``FBAlert.m`` does for an alert; a name it hasn't is 400 ``invalid element state``
         "Failed to find button with label …"; with no alert each is 404 ``no such alert``.
         ``POST /alert/text`` on a prompt is 400 ``unsupported operation`` (it has no field).
         ``POST /wda/keyboard/dismiss`` with no keyboard shown succeeds at once; with one, it
         hides it only when ``keyNames`` names one of its keys (an iPhone has no hide key of its
         own), else 400 ``invalid element state`` "Did not know how to dismiss the keyboard …".

Routes (appium-webdriveragent 16.12.9, ``Commands/FB<name>Commands.m:line``):

    ``POST /alert/accept`` (FBAlertView:27, FBAlertView:28);
    ``POST /alert/dismiss`` (FBAlertView:29, FBAlertView:30);
    ``GET /alert/text`` (FBAlertView:24, FBAlertView:25); ``POST /alert/text`` (FBAlertView:26);
    ``GET /wda/alert/buttons`` (FBAlertView:31); ``POST /wda/keyboard/dismiss`` (FBCustom:47).
"""

from __future__ import annotations

from typing import Any

from .state import Wda
from .table import Routes
from .wire import WdaFailure

__all__ = ["ROUTES"]

ROUTES = Routes()


@ROUTES.serves("GET", "/alert/text")
async def _alert_text(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return _shown_alert(wda)[0]


@ROUTES.serves("GET", "/wda/alert/buttons")
async def _alert_buttons(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return list(_shown_alert(wda)[1])


@ROUTES.serves("POST", "/alert/accept")
async def _accept_alert(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await _answer_alert(wda, body.get("name"), accept=True)


@ROUTES.serves("POST", "/alert/dismiss")
async def _dismiss_alert(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    await _answer_alert(wda, body.get("name"), accept=False)


@ROUTES.serves("POST", "/alert/text")
async def _alert_type(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if "value" not in body:
        raise WdaFailure(400, "invalid argument", "Missing 'value' parameter")
    _shown_alert_to_type_in(wda)
    # FBAlert.m typeText: a permission prompt has no field: FBAlertSetTextFailedException.
    raise WdaFailure(400, "unsupported operation", "The alert contains no input fields")


@ROUTES.serves("POST", "/wda/keyboard/dismiss")
async def _dismiss_keyboard(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    # XCUIApplication+FBHelpers.m fb_dismissKeyboardWithKeyNames: no keyboard is done at once;
    # on an iPhone only a key named in keyNames hides it (an iPad's own hide key is tapped).
    if not wda.phone.keyboard_shown():
        wda.unfocus()
        return None
    names = body.get("keyNames")
    keys = {e.label for e in wda.phone.peek()[0].elements if e.role == "Key"}
    if isinstance(names, list) and keys & {str(n) for n in names}:
        wda.unfocus()
        wda.phone.dismiss_keyboard()
        return None
    raise WdaFailure(
        400,
        "invalid element state",
        "Did not know how to dismiss the keyboard. Try to dismiss it in the way supported by your "
        "application under test.",
    )


def _shown_alert(wda: Wda) -> tuple[str, tuple[str, ...]]:
    """The phone's alert (text, buttons); WDA's 404 ``no such alert`` default message when none is."""
    alert = wda.phone.alert()
    if alert is None:
        # FBAlertViewCommands.m:38-47, 93-103: no alert text, no buttons: WDA's default message.
        raise WdaFailure(404, "no such alert", "An attempt was made to operate on a modal dialog when one was not open")
    return alert


async def _answer_alert(wda: Wda, name: Any, *, accept: bool) -> None:
    alert = wda.phone.alert()
    if alert is None:
        raise WdaFailure(404, "no such alert", "No alert is open")  # FBAlert.m:99-104, raised on an action
    buttons = alert[1]
    if name is None:
        # FBAlert.m accept/dismiss: an XCUIElementTypeAlert's last button accepts, its first dismisses.
        name = buttons[-1] if accept else buttons[0]
    if name not in buttons:
        raise WdaFailure(
            400, "invalid element state", f"Failed to find button with label '{name}' for alert: Alert"
        )  # FBAlert.m:341-365, FBAlertActionFailedException
    wda.unfocus()
    await wda.phone.answer_alert(str(name))


def _shown_alert_to_type_in(wda: Wda) -> None:
    if wda.phone.alert() is None:
        raise WdaFailure(404, "no such alert", "No alert is open")
