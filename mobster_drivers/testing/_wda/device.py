"""The device beyond its screen: screenshots, the window, settings of the device, the audit.

Screenshots, the window and screen, orientation, appearance, locale, battery, the lock, location,
pasteboard, video, VoiceOver, notifications, Touch ID and the accessibility audit. What the device
keeps (its appearance, simulated location, pasteboard, video, VoiceOver) is the
state's ``device`` record, set only by these routes.

Rule 15: ``/wda/performAccessibilityAudit`` answers as ``FBCustomCommands.m`` and
         ``XCUIApplication+FBHelpers.m`` do: ``auditTypes`` full names
         (``XCUIAccessibilityAuditTypeContrast``), none or empty meaning ``…All``; an unknown name
         is 400 ``invalid argument``; iOS before 17 is 500 ``unknown error`` "Accessibility audit
         is only supported since iOS 17/Xcode 15"; the reply lists the app script's findings for
         the screen in front (``audit:``, none when the app declares none), each
         ``{detailedDescription, compactDescription, auditType (the full name), element,
         elementDescription, elementAttributes (the element's JSON source node)}``. Not checked:
         the exact text of ``element``/``elementDescription`` (XCUIElement's ``description``,
         modelled as ``Type, {{x, y}, {w, h}}, identifier: '…', label: '…'``).

Not checked, so the fake errs on the harsh side: an element's own screenshot (the fake sends the
whole screen's) and VoiceOver's utterances (none).

Routes (appium-webdriveragent 16.12.9, ``Commands/FB<name>Commands.m:line``):

    ``GET /element/:uuid/screenshot`` (FBElement:68);
    ``GET /orientation`` (FBOrientation:42, FBOrientation:43);
    ``POST /orientation`` (FBOrientation:44, FBOrientation:45);
    ``GET /screenshot`` (FBScreenshot:21, FBScreenshot:22);
    ``GET /screenshot/:uuid`` (FBElement:70); ``GET /wda/batteryInfo`` (FBCustom:65);
    ``POST /wda/device/appearance`` (FBCustom:80);
    ``GET /wda/device/info`` (FBCustom:77, FBCustom:79);
    ``GET /wda/device/location`` (FBCustom:81, FBCustom:82);
    ``POST /wda/expectNotification`` (FBCustom:74);
    ``POST /wda/getPasteboard`` (FBCustom:63, FBCustom:64);
    ``POST /wda/lock`` (FBCustom:48, FBCustom:49); ``GET /wda/locked`` (FBCustom:52, FBCustom:53);
    ``POST /wda/performAccessibilityAudit`` (FBCustom:72);
    ``POST /wda/performIoHidEvent`` (FBCustom:73); ``POST /wda/resetAppAuth`` (FBCustom:78);
    ``GET /wda/screen`` (FBCustom:54, FBCustom:55);
    ``POST /wda/setPasteboard`` (FBCustom:61, FBCustom:62);
    ``DELETE /wda/simulatedLocation`` (FBCustom:93, FBCustom:94);
    ``GET /wda/simulatedLocation`` (FBCustom:89, FBCustom:90);
    ``POST /wda/simulatedLocation`` (FBCustom:91, FBCustom:92);
    ``POST /wda/siri/activate`` (FBCustom:75); ``POST /wda/touch_id`` (FBTouchID:20);
    ``POST /wda/unlock`` (FBCustom:50, FBCustom:51); ``GET /wda/video`` (FBVideo:29, FBVideo:33);
    ``POST /wda/video/start`` (FBVideo:27, FBVideo:31);
    ``POST /wda/video/stop`` (FBVideo:28, FBVideo:32);
    ``GET /wda/voiceOver/currentSpeech`` (FBCustom:104, FBCustom:105);
    ``POST /wda/voiceOver/disable`` (FBCustom:98, FBCustom:99);
    ``POST /wda/voiceOver/enable`` (FBCustom:96, FBCustom:97);
    ``GET /wda/voiceOver/enabled`` (FBCustom:100, FBCustom:101);
    ``POST /wda/voiceOver/move`` (FBCustom:102, FBCustom:103); ``GET /window/rect`` (FBElement:55);
    ``GET /window/size`` (FBElement:54, FBElement:56).
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

from mobster_core import DeviceKind
from mobster_core.checks import AUDIT_TYPES, audit_type_name
from mobster_core.protocols import AuditIssue
from mobster_drivers.devices.scripted import AUDIT_SINCE_IOS, audit_of

from .state import Target, Wda
from .table import Routes
from .wire import WdaFailure, is_number

__all__ = ["ROUTES"]

ROUTES = Routes()


@ROUTES.serves("GET", "/screenshot")
async def _screenshot(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    png = await wda.phone.screenshot()
    return base64.b64encode(png).decode("ascii")


@ROUTES.acts_on("GET", "/element/:uuid/screenshot", "/screenshot/:uuid")
async def _element_screenshot(wda: Wda, _target: Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    png = await wda.phone.screenshot()  # the whole screen: the fake draws no element alone
    return base64.b64encode(png).decode("ascii")


@ROUTES.serves("GET", "/window/size")
async def _window_size(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    width, height = wda.script.size
    return {"width": width, "height": height}


@ROUTES.serves("GET", "/window/rect")
async def _window_rect(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    width, height = wda.script.size
    return {"x": 0, "y": 0, "width": width, "height": height}


@ROUTES.serves("GET", "/wda/screen")
async def _screen_info(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    width, height = wda.script.size
    return {
        "screenSize": {"width": width, "height": height},
        "statusBarSize": {"width": width, "height": 54},
        "scale": 3,
    }


@ROUTES.serves("GET", "/wda/device/info")
async def _device_info(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    device = wda.script.device
    return {
        "currentLocale": device.locale or "en_US",
        "timeZone": "UTC",
        "name": device.name,
        "model": "iPhone",
        "uuid": "00000000-0000-0000-0000-000000000000",
        "userInterfaceIdiom": 0,
        "userInterfaceStyle": "light" if device.appearance is None else device.appearance.value,
        "isSimulator": device.kind is DeviceKind.SIMULATOR,
        "thermalState": 0,
    }


@ROUTES.serves("GET", "/orientation")
async def _orientation(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return "PORTRAIT"


@ROUTES.serves("POST", "/orientation")
async def _set_orientation(_wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if str(body.get("orientation", "")).upper() != "PORTRAIT":  # the scripted phone stays upright
        raise WdaFailure(500, "unknown error", "Unable To Rotate Device")


@ROUTES.serves("GET", "/wda/batteryInfo")
async def _battery(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    if wda.script.device.kind is DeviceKind.SIMULATOR:
        return {"level": -1, "state": 0}  # UIDevice on a simulator: unknown
    return {"level": 1, "state": 3}  # full


@ROUTES.serves("GET", "/wda/locked")
async def _locked(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return False


@ROUTES.serves("POST", "/wda/unlock", "/wda/lock")
async def _unlock(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None


@ROUTES.serves("POST", "/wda/device/appearance")
async def _set_appearance(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    name = str(body.get("name", "")).lower()
    if name not in ("light", "dark"):
        raise WdaFailure(400, "invalid argument", "The appearance name must be either 'light' or 'dark'")
    wda.device.appearance = name


@ROUTES.serves("GET", "/wda/device/location")
async def _location(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    # Without the location permission WDA reads zeros; 0 is "not determined".
    return {"authorizationStatus": 0, "latitude": 0, "longitude": 0, "altitude": 0}


@ROUTES.serves("GET", "/wda/simulatedLocation")
async def _get_simulated_location(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    where = wda.device.location
    if where is None:
        return {"latitude": None, "longitude": None, "altitude": None}
    return {"latitude": where[0], "longitude": where[1], "altitude": 0}


@ROUTES.serves("POST", "/wda/simulatedLocation")
async def _set_simulated_location(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    latitude, longitude = body.get("latitude"), body.get("longitude")
    if not (isinstance(latitude, int | float) and isinstance(longitude, int | float)):
        raise WdaFailure(400, "invalid argument", "Both latitude and longitude must be provided")
    if not (is_number(latitude) and is_number(longitude)):
        raise WdaFailure(400, "invalid argument", "Both latitude and longitude must be provided")
    wda.device.location = (float(latitude), float(longitude))


@ROUTES.serves("DELETE", "/wda/simulatedLocation")
async def _clear_simulated_location(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    wda.device.location = None


@ROUTES.serves("POST", "/wda/setPasteboard")
async def _set_pasteboard(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    try:
        content = base64.b64decode(str(body.get("content", "")), validate=False)
    except ValueError as exc:
        raise WdaFailure(400, "invalid argument", "Cannot decode the pasteboard content from base64") from exc
    wda.device.pasteboard[str(body.get("contentType") or "plaintext")] = content


@ROUTES.serves("POST", "/wda/getPasteboard")
async def _get_pasteboard(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    content = wda.device.pasteboard.get(str(body.get("contentType") or "plaintext"), b"")
    return base64.b64encode(content).decode("ascii")


@ROUTES.serves("POST", "/wda/expectNotification")
async def _expect_notification(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    name, kind, timeout = body.get("name"), body.get("type", "plain"), body.get("timeout", 60)
    if name is None:
        raise WdaFailure(400, "invalid argument", "Notification name argument must be provided")
    if kind not in ("plain", "darwin"):
        raise WdaFailure(
            400, "invalid argument", f"Notification type could only be 'plain' or 'darwin'. Got '{kind}' instead"
        )
    await wda.phone.clock.sleep(float(timeout) if is_number(timeout) else 60.0)  # nothing is ever posted
    raise WdaFailure(408, "timeout", f"Did not receive any expected {name} notifications within {timeout}s")


@ROUTES.serves("POST", "/wda/performIoHidEvent", "/wda/siri/activate")
async def _carried_out(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return None  # carried out; nothing an app script shows answers it


@ROUTES.serves("POST", "/wda/resetAppAuth")
async def _reset_auth(_wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if body.get("resource") is None:
        raise WdaFailure(
            400,
            "invalid argument",
            "The 'resource' argument must be set to a valid resource identifier (numeric value). See "
            "https://developer.apple.com/documentation/xctest/xcuiprotectedresource?language=objc",
        )


@ROUTES.serves("POST", "/wda/touch_id")
async def _touch_id(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if wda.script.device.kind is not DeviceKind.SIMULATOR:  # only a simulator can fake a finger
        match = "" if body.get("match") else "non-"
        raise WdaFailure(500, "unknown error", f"Cannot perform Touch Id {match}match")


@ROUTES.serves("GET", "/wda/video")
async def _video(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return wda.device.video


@ROUTES.serves("POST", "/wda/video/start")
async def _video_start(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if wda.device.video is None:
        fps, codec = body.get("fps", 24), body.get("codec", 0)
        started = round(wda.phone.clock.now() * 1000)
        wda.device.video = {"fps": fps, "codec": codec, "uuid": str(uuid.uuid4()).upper(), "startedAt": started}
    return wda.device.video


@ROUTES.serves("POST", "/wda/video/stop")
async def _video_stop(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    video, wda.device.video = wda.device.video, None
    return video


@ROUTES.serves("POST", "/wda/voiceOver/enable")
async def _voiceover_on(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    wda.device.voiceover = True


@ROUTES.serves("POST", "/wda/voiceOver/disable")
async def _voiceover_off(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    wda.device.voiceover = False


@ROUTES.serves("GET", "/wda/voiceOver/enabled")
async def _voiceover_enabled(wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return {"enabled": wda.device.voiceover}


@ROUTES.serves("GET", "/wda/voiceOver/currentSpeech")
async def _voiceover_speech(_wda: Wda, _body: dict[str, Any], _query: dict[str, str]) -> Any:
    return {"utterance": None}


@ROUTES.serves("POST", "/wda/voiceOver/move")
async def _voiceover_move(_wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    if body.get("direction") is None:
        raise WdaFailure(400, "invalid argument", "The 'direction' argument must be provided")
    return {"utterance": None}


@ROUTES.serves("POST", "/wda/performAccessibilityAudit")
async def _audit(wda: Wda, body: dict[str, Any], _query: dict[str, str]) -> Any:
    return _audit_reply(wda, body.get("auditTypes"))


def _audit_reply(wda: Wda, asked: Any) -> list[dict[str, Any]]:
    """Rule 15: the app script's findings for the screen in front, as WDA's audit reply."""
    names = {audit_type_name(t): t for t in AUDIT_TYPES}
    wanted: list[str] = []
    for value in asked if isinstance(asked, list) and asked else ["XCUIAccessibilityAuditTypeAll"]:
        if value != "XCUIAccessibilityAuditTypeAll" and value not in names:
            known = ", ".join(["XCUIAccessibilityAuditTypeAll", *names])
            raise WdaFailure(
                400,
                "invalid argument",
                f"Audit type value '{value}' is not known. Only the following audit types are supported: ({known})",
            )
        wanted.append(value)
    if wda.script.device.ios_major < AUDIT_SINCE_IOS:
        raise WdaFailure(
            500,
            "unknown error",
            'Error Domain=com.facebook.WebDriverAgent Code=1 "Accessibility audit is only supported since '
            'iOS 17/Xcode 15" UserInfo={NSLocalizedDescription=Accessibility audit is only supported since '
            "iOS 17/Xcode 15}",
        )
    types = () if "XCUIAccessibilityAuditTypeAll" in wanted else tuple(names[w] for w in wanted)
    screen, _nodes = wda.phone.peek()
    front = screen.app
    report = audit_of(wda.script, front, wda.phone.screen_name(front), screen, types)
    tree = wda.tree(screen)
    return [_audit_issue(issue, tree) for issue in report.issues]  # an app that declares none: none found


def _audit_issue(issue: AuditIssue, tree: dict[str, Any]) -> dict[str, Any]:
    """Rule 15: one issue as ``fb_performAccessibilityAuditWithAuditTypes`` sends it."""
    node = _find_node(tree, issue)
    attributes = {k: v for k, v in (node or {}).items() if k != "children"}
    rect = (node or {}).get("rect", {})
    x, y, w, h = (float(rect.get(k, 0)) for k in ("x", "y", "width", "height"))
    where = f"{{{{{x}, {y}}}, {{{w}, {h}}}}}"
    described = ", ".join(
        [str((node or {}).get("type", "Other")), where]
        + ([f"identifier: '{issue.identifier}'"] if issue.identifier else [])
        + ([f"label: '{issue.label}'"] if issue.label else [])
    )
    return {
        "detailedDescription": issue.description,
        "compactDescription": issue.description,
        "auditType": audit_type_name(issue.type),
        "element": described,
        "elementDescription": f"Attributes: {described}",
        "elementAttributes": attributes,
    }


def _find_node(node: dict[str, Any], issue: AuditIssue) -> dict[str, Any] | None:
    if issue.identifier and node.get("rawIdentifier") == issue.identifier:
        return node
    if not issue.identifier and issue.label and node.get("label") == issue.label:
        return node
    for child in node.get("children", []):
        found = _find_node(child, issue)
        if found is not None:
            return found
    return None
