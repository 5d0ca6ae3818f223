r"""A fake WebDriverAgent on loopback: a scripted phone, or a captured tree, over the WDA protocol.

The real facebook-wda client (and :class:`~mobster_drivers.devices.wda.WdaDevice`) talks to it over a real
socket, so a test sees what a user would: WDA's routes, its JSON envelope, its error shapes, its
source trees.

::

    from mobster_drivers.testing.wda import FakeWda
    from mobster_drivers.devices.scripted import sample_path
    from mobster_drivers.devices.wda import WdaDevice

    with FakeWda(sample_path("yourapp")) as wda:
        device = WdaDevice(wda.url)
        ...
        assert [r.route for r in wda.requests if r.method == "POST"][-1] == "/actions"

    with FakeWda(tree="settings-root.xml") as wda:  # a real capture, served as a static app
        ...

From a shell: ``python -m mobster_drivers.testing.wda --app APP.yaml [--port N]`` or
``python -m mobster_drivers.testing.wda --tree SOURCE.xml [--bundle ID]`` prints the URL on its first
line and serves until interrupted (or ``--lifetime`` seconds); ``mobster verify --wda URL --check
FILE`` then judges the capture.

Rule 1: WDA's envelope: every reply is JSON ``{"value": …, "sessionId": …}`` with a
        Content-Length; an error puts ``{"error", "message", "traceback"}`` in ``value`` with
        WDA's HTTP status (404 ``unknown command`` for an unknown route, 404 ``invalid session id``
        "Session does not exist" for a stale session, 404 ``no such element``, ``stale element
        reference`` and ``no such alert``, 400 ``invalid argument``, ``invalid selector`` and
        ``invalid element state``, 408 ``timeout``, 500 ``unknown error``).
Rule 2: routes exist with the ``/session/{id}`` prefix, without it, or both, as WDA registers them
        (:data:`WITHOUT_SESSION_ONLY`, :data:`SESSION_ONLY`, the rest both). A route asked for in
        the other form is an unknown command (404), whatever the session id: ``/status`` and
        ``/wda/homescreen`` under ``/session/{id}`` answer 404, as on WDA.
Rule 3: the phone is a :class:`~mobster_drivers.devices.scripted.ScriptedPhone` on the system clock, in
        its own event loop in a daemon thread; handler threads hand it coroutines. Its latency
        profile is real time here.
Rule 4: the source is WDA's: JSON (``type`` without the prefix, ``rawIdentifier``, string booleans
        ``"1"``/``"0"``, ``rect`` in whole points, ``frame``, ``traits`` as trait names such as
        ``"Selected, Button"``, ``placeholderValue`` on text inputs) or XML (``XCUIElementType``
        tags, ``"true"``/``"false"``). ``excluded_attributes`` removes attributes and nothing
        else: a hidden view keeps its full frame, so a read without ``visible`` can't tell it
        from a shown one, as on WDA. An empty field with a placeholder reports the placeholder as
        its value, as on WDA.
Rule 5: a coordinate tap hits the topmost visible element under the point that does something
        (leads somewhere, or takes typing), else the topmost one; a tap on a text field focuses
        it, and ``/wda/keys`` types into the focused field (nothing happens without one, as on a
        phone). ``"\n"`` submits. ``/wda/apps/launch`` of an app that is running only activates it,
        its arguments and environment dropped (``FBSession.m:397-403``); ``/wda/pressButton``
        lowercases the name (``XCUIDevice+FBHelpers.m:346``: ``HOME`` is ``home``), and a button
        the device hasn't (a simulator has no volume buttons) is WDA's 500 ``unknown error``.
Rule 6: faults: the phone's own (:meth:`FakeWda.fail_next_action` drops the action's reply: no
        reply at all, after ``stall`` seconds; :meth:`FakeWda.fail_next_read`,
        :meth:`FakeWda.drop_typing`), plus :meth:`FakeWda.restart` (every session becomes stale),
        :meth:`FakeWda.garbage_next_reply` (the next request is answered with bytes that are not
        JSON, and not carried out) and :meth:`FakeWda.stall_next_reply` (the next reply is held).
Rule 7: every request is recorded in :attr:`FakeWda.requests` before it is handled.
Rule 8: the fake is a loopback server (``_server``): it binds 127.0.0.1 only, answers one request
        per connection (HTTP/1.0), stops by itself after ``lifetime`` seconds, dies at a request a
        test names (:meth:`FakeWda.die_when`), and serves one request at a time (``_server``
        Rule 5), as WDA does: ``/status`` and ``/source`` wait behind a slow ``/screenshot`` or a
        held reply. ``one_at_a_time=False`` lets the HTTP layer answer each at once, as before
        issue 27 (the scripted phone behind still serves its reads, screenshots and actions one
        at a time: ``ScriptedPhone`` Rule 12).
        What WDA's source says (appium/WebDriverAgent at ``c279b4c``, August 2026): every route,
        ``/status``, ``/health``, ``/wda/shutdown`` and the unknown-command catch-all included,
        runs on the main queue (``FBWebServer.m``: ``setRouteQueue:dispatch_get_main_queue()``;
        ``FBHTTPServer.m`` reads requests on its socket queue and ``dispatch_async``\ s each to
        the main queue, its reply written after the handler returns); before Network.framework
        (``cd741c5c``, #1221) ``RoutingHTTPServer`` over GCDAsyncSocket did the same with
        ``dispatch_sync`` onto the main queue. Only a path no route matches is answered 404 on
        the socket queue, and the MJPEG server (``FBMjpegServer``, port 9100 by default) takes
        its screenshots on its own serial queue, off the main thread. Not checked (no phone
        here): whether XCTest itself serialises an MJPEG screenshot with a main-thread command,
        and how long a command queued behind another waits on a phone.
Rule 9: ``POST /elements`` and ``POST /element`` find elements in the app in front (the app itself
        first, then its descendants in tree order) with the ``predicate string`` locator (the
        subset of NSPredicate in ``_nspredicate``; ``AND`` stops at the first false, so
        ``visible`` is read only where the left side holds), ``class name``, or ``accessibility
        id``/``id``/``name``. A reply is ``{"ELEMENT", "element-6066-…"}`` per element, plus the
        ``elementResponseAttributes`` (``type,label`` by default) when the session's
        ``shouldUseCompactResponses`` is false.
Rule 10: ``/appium/settings`` keeps the settings WDA 9 knows and ignores the rest, as WDA does
        (``snapshotTimeout`` and ``customSnapshotTimeout`` were removed in WDA 9).
Rule 11: with ``costs`` (:class:`ReadCosts`), each reply is held as long as real WDA would take:
        a source read costs per node, and more per node for each costly attribute it keeps
        (``visible``, ``accessible``); a query costs a snapshot per node plus ``visible`` for each
        element it had to read it of. Off by default, so tests stay fast.
Rule 12: a captured tree (``tree=``) is served as a static app: its bundle (the XML root's
        ``bundleId``, or ``bundle=``) is installed and in front after a launch, its tree never
        changes, taps on it change nothing. It is served in both formats and leaves out what
        real WDA leaves out; what the capture didn't record (``accessible`` when the capture
        excluded it) is left out of every reply.

Rule 13: the routes that act on an element take it from WDA's element cache (``FBElementCache``):
        every element a lookup or the active element hands out is kept (1024 at most, the oldest
        go first) under a stable id, for its app, screen and tree path; an id the cache doesn't
        know is 404 ``stale element reference`` "The element identified by … is either not
        present or it has expired from the internal cache", one whose element is gone from the
        screen the same code, "The previously found element … is not present in the current view
        anymore". Gestures without an id act on the app (``/wda/tap``: ``x``/``y`` from the
        screen's corner; with an id, from the element's; neither: its middle); a double tap, a
        two-finger tap and ``tapWithNumberOfTaps`` are one tap to the scripted phone, a force
        touch a long press, a scroll the opposite swipe; a pinch, a rotation and ``scrollTo``
        are carried out and change nothing (no app script answers them). Typing into an
        element gives it the keyboard focus first, as ``fb_typeText`` does; one that can't take
        it is 400 ``invalid element state``.
Rule 14: alerts and the keyboard are the scripted phone's (its Rules 10, 11): while a prompt is
        shown ``/source`` is SpringBoard's, with the ``XCUIElementTypeAlert``, its texts and its
        buttons; ``GET /alert/text`` is its title and message (a line each), ``GET
        /wda/alert/buttons`` its buttons in order, ``POST /alert/accept`` and ``/alert/dismiss``
        tap the button ``name`` names, else the last (accept) or the first (dismiss) as
        ``FBAlert.m`` does for an alert; a name it hasn't is 400 ``invalid element state``
        "Failed to find button with label …"; with no alert each is 404 ``no such alert``.
        ``POST /alert/text`` on a prompt is 400 ``unsupported operation`` (it has no field).
        ``POST /wda/keyboard/dismiss`` with no keyboard shown succeeds at once; with one, it hides
        it only when ``keyNames`` names one of its keys (an iPhone has no hide key of its own), else
        400 ``invalid element state`` "Did not know how to dismiss the keyboard …".
Rule 15: ``/wda/performAccessibilityAudit`` answers as ``FBCustomCommands.m`` and
        ``XCUIApplication+FBHelpers.m`` do: ``auditTypes`` full names (``XCUIAccessibilityAuditTypeContrast``),
        none or empty meaning ``…All``; an unknown name is 400 ``invalid argument``; iOS before 17 is
        500 ``unknown error`` "Accessibility audit is only supported since iOS 17/Xcode 15"; the
        reply lists the app script's findings for the screen in front (``audit:``, none when the
        app declares none), each ``{detailedDescription, compactDescription, auditType (the full
        name), element, elementDescription, elementAttributes (the element's JSON source node)}``.
        Not checked: the exact text of ``element``/``elementDescription`` (XCUIElement's
        ``description``, modelled as ``Type, {{x, y}, {w, h}}, identifier: '…', label: '…'``).

Every route the real clients send (XCUITest 12.13.1's ``proxyCommand`` targets, facebook-wda
1.5.4's requests, our drivers'), as appium-webdriveragent 16.12.9 (the XCUITest driver's npm
package) declares it, ``Commands/FB<name>Commands.m:line``; a route WDA has only on tvOS or
watchOS, or not at all (facebook-wda's ``/wda/tap/0``, ``/wda/drag``, ``/mds/openurl``), is 404
``unknown command`` here as on an iPhone:

    ``DELETE /`` (FBSession:51); ``GET /`` (FBSession:50); ``POST /actions`` (FBTouchAction:24);
    ``POST /alert/accept`` (FBAlertView:27, FBAlertView:28);
    ``POST /alert/dismiss`` (FBAlertView:29, FBAlertView:30);
    ``GET /alert/text`` (FBAlertView:24, FBAlertView:25); ``POST /alert/text`` (FBAlertView:26);
    ``GET /appium/settings`` (FBSession:58); ``POST /appium/settings`` (FBSession:59);
    ``POST /element`` (FBFindElement:41); ``GET /element/:uuid/attribute/:name`` (FBElement:59);
    ``POST /element/:uuid/clear`` (FBElement:66); ``POST /element/:uuid/click`` (FBElement:65);
    ``GET /element/:uuid/displayed`` (FBElement:61);
    ``POST /element/:uuid/element`` (FBFindElement:43);
    ``POST /element/:uuid/elements`` (FBFindElement:44); ``GET /element/:uuid/enabled`` (FBElement:57);
    ``GET /element/:uuid/name`` (FBElement:63); ``GET /element/:uuid/rect`` (FBElement:58);
    ``GET /element/:uuid/screenshot`` (FBElement:68); ``GET /element/:uuid/selected`` (FBElement:62);
    ``GET /element/:uuid/text`` (FBElement:60); ``POST /element/:uuid/value`` (FBElement:64);
    ``GET /element/active`` (FBFindElement:47, FBFindElement:49);
    ``POST /elements`` (FBFindElement:42); ``GET /orientation`` (FBOrientation:42, FBOrientation:43);
    ``POST /orientation`` (FBOrientation:44, FBOrientation:45);
    ``GET /screenshot`` (FBScreenshot:21, FBScreenshot:22); ``GET /screenshot/:uuid`` (FBElement:70);
    ``GET /source`` (FBDebug:26, FBDebug:27); ``GET /status`` (FBSession:52);
    ``POST /timeouts`` (FBCustom:44); ``POST /url`` (FBSession:43);
    ``GET /wda/accessibleSource`` (FBDebug:28, FBDebug:29);
    ``GET /wda/activeAppInfo`` (FBCustom:58, FBCustom:59); ``GET /wda/alert/buttons`` (FBAlertView:31);
    ``POST /wda/apps/activate`` (FBSession:46); ``POST /wda/apps/launch`` (FBSession:45);
    ``POST /wda/apps/launchUnattached`` (FBCustom:76); ``GET /wda/apps/list`` (FBSession:49);
    ``POST /wda/apps/state`` (FBSession:48); ``POST /wda/apps/terminate`` (FBSession:47);
    ``GET /wda/batteryInfo`` (FBCustom:65); ``POST /wda/deactivateApp`` (FBCustom:46);
    ``POST /wda/device/appearance`` (FBCustom:80); ``GET /wda/device/info`` (FBCustom:77, FBCustom:79);
    ``GET /wda/device/location`` (FBCustom:81, FBCustom:82); ``POST /wda/doubleTap`` (FBElement:88);
    ``POST /wda/dragfromtoforduration`` (FBElement:107);
    ``GET /wda/element/:uuid/accessibilityContainer`` (FBElement:72);
    ``GET /wda/element/:uuid/accessible`` (FBElement:71);
    ``POST /wda/element/:uuid/doubleTap`` (FBElement:87);
    ``POST /wda/element/:uuid/dragfromtoforduration`` (FBElement:106);
    ``POST /wda/element/:uuid/forceTouch`` (FBElement:112);
    ``GET /wda/element/:uuid/getVisibleCells`` (FBFindElement:45);
    ``POST /wda/element/:uuid/keyboardInput`` (FBCustom:86);
    ``POST /wda/element/:uuid/pinch`` (FBElement:81);
    ``POST /wda/element/:uuid/pressAndDragWithVelocity`` (FBElement:109);
    ``POST /wda/element/:uuid/rotate`` (FBElement:84);
    ``POST /wda/element/:uuid/scroll`` (FBElement:101);
    ``POST /wda/element/:uuid/scrollTo`` (FBElement:104);
    ``POST /wda/element/:uuid/swipe`` (FBElement:78); ``POST /wda/element/:uuid/tap`` (FBElement:115);
    ``POST /wda/element/:uuid/tapWithNumberOfTaps`` (FBElement:93);
    ``POST /wda/element/:uuid/touchAndHold`` (FBElement:98);
    ``POST /wda/element/:uuid/twoFingerTap`` (FBElement:90);
    ``POST /wda/expectNotification`` (FBCustom:74); ``POST /wda/forceTouch`` (FBElement:113);
    ``POST /wda/getPasteboard`` (FBCustom:63, FBCustom:64); ``GET /wda/healthcheck`` (FBSession:55);
    ``POST /wda/homescreen`` (FBCustom:45); ``POST /wda/keyboard/dismiss`` (FBCustom:47);
    ``POST /wda/keys`` (FBElement:120); ``POST /wda/lock`` (FBCustom:48, FBCustom:49);
    ``GET /wda/locked`` (FBCustom:52, FBCustom:53);
    ``POST /wda/performAccessibilityAudit`` (FBCustom:72);
    ``POST /wda/performIoHidEvent`` (FBCustom:73);
    ``POST /wda/pickerwheel/:uuid/select`` (FBElement:118); ``POST /wda/pinch`` (FBElement:82);
    ``POST /wda/pressAndDragWithVelocity`` (FBElement:110); ``POST /wda/pressButton`` (FBCustom:67);
    ``POST /wda/resetAppAuth`` (FBCustom:78); ``POST /wda/rotate`` (FBElement:85);
    ``GET /wda/screen`` (FBCustom:54, FBCustom:55); ``POST /wda/scroll`` (FBElement:102);
    ``POST /wda/setPasteboard`` (FBCustom:61, FBCustom:62);
    ``DELETE /wda/simulatedLocation`` (FBCustom:93, FBCustom:94);
    ``GET /wda/simulatedLocation`` (FBCustom:89, FBCustom:90);
    ``POST /wda/simulatedLocation`` (FBCustom:91, FBCustom:92);
    ``POST /wda/siri/activate`` (FBCustom:75); ``POST /wda/swipe`` (FBElement:79);
    ``POST /wda/tap`` (FBElement:116); ``POST /wda/tapWithNumberOfTaps`` (FBElement:95);
    ``POST /wda/touchAndHold`` (FBElement:99); ``POST /wda/touch_id`` (FBTouchID:20);
    ``POST /wda/twoFingerTap`` (FBElement:91); ``POST /wda/unlock`` (FBCustom:50, FBCustom:51);
    ``GET /wda/video`` (FBVideo:29, FBVideo:33); ``POST /wda/video/start`` (FBVideo:27, FBVideo:31);
    ``POST /wda/video/stop`` (FBVideo:28, FBVideo:32);
    ``GET /wda/voiceOver/currentSpeech`` (FBCustom:104, FBCustom:105);
    ``POST /wda/voiceOver/disable`` (FBCustom:98, FBCustom:99);
    ``POST /wda/voiceOver/enable`` (FBCustom:96, FBCustom:97);
    ``GET /wda/voiceOver/enabled`` (FBCustom:100, FBCustom:101);
    ``POST /wda/voiceOver/move`` (FBCustom:102, FBCustom:103); ``GET /window/rect`` (FBElement:55);
    ``GET /window/size`` (FBElement:54, FBElement:56).

What was checked, and against what (appium/WebDriverAgent's source unless said):
``FBRoute`` (``.withoutSession`` routes exist only without the prefix; plain routes only with it),
the route lists of ``FBSessionCommands``, ``FBCustomCommands``, ``FBDebugCommands``,
``FBElementCommands``, ``FBFindElementCommands``, ``FBAlertViewCommands``,
``FBOrientationCommands`` and ``FBScreenshotCommands``; ``FBCommandStatus`` (error names and HTTP
statuses); ``FBResponsePayload`` (element replies, compact or not); ``FBElement`` and
``NSPredicate+FBFormat`` (the predicate keys); ``FBAccessibilityTraits`` (trait names); PR #970
(WDA 9 removed ``snapshotTimeout``/``customSnapshotTimeout``); and ``../shared/wda-trees`` (real
iOS 26.4 captures: hidden views keep their frames, whole-point rects, trait names,
``placeholderValue``). Not checked, so the fake errs on the harsh side: the exact status of an
unparseable predicate or an unknown predicate key (``invalid selector`` 400 here); the JSON
``traits`` order (WDA's comes from a dictionary; the fake uses the order seen in the captures);
real timings (Rule 11 models Mobster's measurements); the ``xpath``/``class chain`` locators,
which answer ``unknown error`` here; an element's own screenshot (the fake sends the whole
screen's), the accessibility source's exact shape (the accessible elements as JSON source nodes),
VoiceOver's utterances (none) and an accessibility audit's findings (none). Measured through real
Appium 3.8 + XCUITest 12.13 in front of this fake (``tests/drivers/devices/test_appium_real.py``):
the typing routes, the active element, the window rect, alerts, element routes by id, ``/source``
and ``/wda/keys``, ``/wda/pressButton`` in any case, ``/wda/apps/launch`` of a running app.
"""

from __future__ import annotations

import argparse
import base64
import contextvars
import copy
import json
import math
import os
import re
import secrets
import sys
import uuid
import xml.etree.ElementTree as ET
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import attrs

from mobster_core import (
    Action,
    DeviceError,
    DeviceKind,
    Element,
    LaunchOptions,
    Op,
    Screen,
    SystemClock,
    UnknownOutcome,
)
from mobster_core.checks import AUDIT_TYPES, audit_type_name
from mobster_core.protocols import SPRINGBOARD, AuditIssue, DeviceEvent
from mobster_drivers._loop import LoopThread
from mobster_drivers._xcuitest.tree import parse_xml_source, source_bundle
from mobster_drivers.devices.scripted import AUDIT_SINCE_IOS, AppScript, ScriptedPhone, audit_of

from ._nspredicate import Predicate, PredicateError, parse_predicate
from ._server import DEAD, Incoming, LoopbackServer, Reply, json_body, serve_from_shell, session_route

__all__ = ["SESSION_ONLY", "WITHOUT_SESSION_ONLY", "FakeWda", "ReadCosts", "WdaRequest", "load_tree", "main"]

#: How long a handler waits for the phone, in seconds (a latency profile's launch is 2.6 s).
_PHONE_TIMEOUT = 60.0
_LONG_PRESS_MS = 500  # a W3C press held this long or longer is a long press
_SWIPE_MIN_POINTS = 10.0
_JSON = "application/json;charset=UTF-8"
_GARBAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
_PREFIX = "XCUIElementType"
_W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
#: ``excluded_attributes`` names -> the JSON source's keys (Rule 4).
_JSON_KEYS = {
    "visible": "isVisible",
    "accessible": "isAccessible",
    "enabled": "isEnabled",
    "focused": "isFocused",
    "frame": "frame",
    "traits": "traits",
    "placeholderValue": "placeholderValue",
    "nativeFrame": "nativeFrame",
    "minValue": "minValue",
    "maxValue": "maxValue",
}
#: ``excluded_attributes`` names -> the XML source's attributes (``index`` is XML only).
_XML_KEYS = {
    "visible": "visible",
    "accessible": "accessible",
    "enabled": "enabled",
    "focused": "focused",
    "index": "index",
    "traits": "traits",
    "placeholderValue": "placeholderValue",
}
#: The routes WDA registers only without a session (``.withoutSession`` alone; Rule 2).
WITHOUT_SESSION_ONLY = frozenset(
    {
        "/status",
        "/session",
        "/wda/healthcheck",
        "/wda/homescreen",
        "/wda/apps/launchUnattached",
        "/wda/device/appearance",
    }
)
#: The routes WDA registers only under ``/session/{id}`` (Rule 2); every other route has both.
SESSION_ONLY = frozenset(
    {
        "/",
        "/url",
        "/timeouts",
        "/appium/settings",
        "/wda/apps/launch",
        "/wda/apps/activate",
        "/wda/apps/terminate",
        "/wda/apps/state",
        "/wda/apps/list",
        "/wda/tap",
        "/wda/doubleTap",
        "/wda/touchAndHold",
        "/wda/dragfromtoforduration",
        "/wda/swipe",
        "/wda/keys",
        "/wda/pressButton",
        "/wda/deactivateApp",
        "/wda/keyboard/dismiss",
        "/wda/alert/buttons",
        "/wda/batteryInfo",
        "/wda/pinch",
        "/wda/rotate",
        "/wda/twoFingerTap",
        "/wda/tapWithNumberOfTaps",
        "/wda/scroll",
        "/wda/pressAndDragWithVelocity",
        "/wda/forceTouch",
        "/wda/siri/activate",
        "/wda/performIoHidEvent",
        "/wda/expectNotification",
        "/wda/performAccessibilityAudit",
        "/wda/resetAppAuth",
        "/wda/touch_id",
        "/actions",
        "/element",
        "/elements",
        "/element/active",
        "/window/rect",
    }
)
#: A route whose methods differ: ``GET /alert/text`` has both forms, ``POST /alert/text`` only
#: the session's (``FBAlertViewCommands.m:24-26``).
_SESSION_ONLY_METHODS = frozenset({("POST", "/alert/text")})
#: The element routes (all under ``/session/{id}``), by their template: ``:uuid`` is an element
#: id from the cache (Rule 13), ``:name`` an attribute's name.
_ELEMENT_PATH = re.compile(
    r"^(?P<head>/element|/wda/element|/wda/pickerwheel|/screenshot)/(?P<uuid>[^/]+)"
    r"(?:/attribute/(?P<name>[^/]+)|(?P<rest>/[^/]+))?$"
)
#: How many elements WDA's element cache keeps (``FBElementCache``: the oldest go first).
_CACHE_SIZE = 1024
#: The settings WDA 9 keeps (``FBSessionCommands``' settings handlers), with its defaults (Rule 10).
_SETTINGS: Mapping[str, Any] = {
    "shouldUseCompactResponses": True,
    "elementResponseAttributes": "type,label",
    "mjpegServerScreenshotQuality": 25,
    "mjpegServerFramerate": 10,
    "mjpegScalingFactor": 100,
    "screenshotQuality": 3,
    "keyboardAutocorrection": False,
    "keyboardPrediction": False,
    "snapshotMaxDepth": 50,
    "useFirstMatch": False,
    "waitForIdleTimeout": 10,
    "animationCoolOffTimeout": 2,
    "boundElementsByIndex": False,
    "reduceMotion": False,
    "defaultActiveApplication": "auto",
    "activeAppDetectionPoint": "64.00,64.00",
    "includeNonModalElements": False,
    "acceptAlertButtonSelector": "",
    "dismissAlertButtonSelector": "",
    "defaultAlertAction": "",
    "screenshotOrientation": "auto",
}
#: Trait names in the order the iOS 26.4 captures list them (Rule 4).
_TRAIT_ORDER = (
    "ToggleButton",
    "Selected",
    "NotEnabled",
    "Header",
    "StaticText",
    "Button",
    "Image",
    "Link",
    "SearchField",
    "Adjustable",
)
#: The traits an element of a role has by itself (as the captures show them).
_ROLE_TRAITS: Mapping[str, tuple[str, ...]] = {
    "Button": ("Button",),
    "StaticText": ("StaticText",),
    "Image": ("Image",),
    "Icon": ("Image",),
    "Link": ("Link",),
    "SearchField": ("SearchField",),
    "Switch": ("ToggleButton", "Button"),
    "Toggle": ("ToggleButton", "Button"),
    "Slider": ("Adjustable",),
    "Tab": ("Button",),
}
_TEXT_INPUTS = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})
#: Predicate keys WDA knows (``FBElement``'s attributes and their ``wd`` names); the fake reads these.
_PREDICATE_KEYS = {
    "type": "type",
    "name": "name",
    "label": "label",
    "value": "value",
    "visible": "visible",
    "enabled": "enabled",
    "accessible": "accessible",
    "selected": "selected",
    "placeholderValue": "placeholderValue",
    "traits": "traits",
}
#: Keys WDA knows that the fake doesn't evaluate (Rule 9: an error, never a wrong answer).
_UNEVALUATED_KEYS = frozenset(
    {"rect", "frame", "UID", "hasKeyboardFocus", "accessibilityContainer", "nativeFrame", "minValue", "maxValue",
     "customActions", "focused", "hittable", "index"}
)  # fmt: skip


@attrs.frozen
class ReadCosts:
    """How long real WDA takes to answer reads, in seconds (Rule 11); the model in ``docs/benchmarks.md``.

    The defaults are Mobster's measurements of Settings' first screen (167 elements) on an iPhone
    17 Pro simulator: the fast source (no ``visible``, no ``accessible``) 0.10 s, the source that
    keeps ``visible`` 0.76 s (p50), both together about 0.95 s; so a node costs 0.6 ms to
    snapshot, 3.95 ms more for ``visible`` and 1.1 ms more for ``accessible``. A predicate query
    costs a snapshot plus ``visible`` for each element it reads it of. ``request`` is every
    request's fixed cost. Settings > General (1.07 s) and About (1.61 s) cost more per element
    on the same loaded Mac: pass ``visible`` higher to model them.
    """

    snapshot: float = 0.10 / 167
    visible: float = (0.76 - 0.10) / 167
    accessible: float = (0.95 - 0.76) / 167
    request: float = 0.0

    def source(self, nodes: int, *, visible: bool, accessible: bool) -> float:
        """A source read of ``nodes`` elements that keeps the given costly attributes."""
        per_node = self.snapshot + (self.visible if visible else 0.0) + (self.accessible if accessible else 0.0)
        return self.request + nodes * per_node

    def query(self, nodes: int, visible_reads: int) -> float:
        """A predicate query over ``nodes`` elements that read ``visible`` of ``visible_reads`` of them."""
        return self.request + nodes * self.snapshot + visible_reads * self.visible


@attrs.frozen
class WdaRequest:
    """One request the fake received (Rule 7).

    ``path`` is as sent (with the session and the query); ``route`` is it without the
    ``/session/{id}`` prefix and the query (``/wda/tap``); ``session`` is the id in the path or
    None; ``body`` is the parsed JSON body (None when there was none or it wasn't JSON).
    """

    method: str
    path: str
    route: str
    session: str | None
    body: Any


class _WdaFailure(Exception):
    """A WDA error reply (Rule 1)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


class _LostReply(Exception):
    """The phone lost the action's reply: the connection is closed without one (Rule 6)."""


@attrs.frozen
class _Call:
    """One request, parsed: ``route`` is the path without the session prefix and the query."""

    method: str
    path: str
    session: str | None
    route: str
    body: Any
    query: dict[str, str]
    bad_body: bool = False


@attrs.define
class _Focus:
    """The text field a tap focused: it takes the keys while its screen is in front."""

    app: str
    screen: str | None
    path: str
    pair: tuple[str, str]


@attrs.frozen
class _Cached:
    """An element WDA handed out (Rule 13): where it was, and what it was."""

    app: str
    screen: str | None
    path: str
    pair: tuple[str, str | None]


@attrs.frozen
class _Target:
    """What an element route acts on: the element's node in the tree (the app's root without an id).

    ``element`` is the phone's element at that path (None for the app itself, or a captured
    tree's node, which the static phone doesn't model).
    """

    node: dict[str, Any]
    element: Element | None = None
    uuid: str | None = None

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """The node's rect in points: ``(x, y, width, height)``."""
        rect = self.node.get("rect", {})
        return tuple(float(rect.get(k, 0)) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]

    @property
    def centre(self) -> tuple[float, float]:
        """The middle of the rect, in points."""
        x, y, w, h = self.rect
        return x + w / 2, y + h / 2


def load_tree(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A captured source (WDA's XML or JSON) as the JSON source's nodes; ``ValueError`` says why not."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ValueError(f"{file}: can't read the tree ({exc.strerror or exc})") from exc
    text = data.lstrip()
    try:
        if text.startswith(b"{"):
            tree = json.loads(data)
            if isinstance(tree, Mapping) and "value" in tree and "type" not in tree:
                tree = tree["value"]  # a whole WDA reply saved as it came
        else:
            tree = parse_xml_source(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{file}: not a WDA source (XML or JSON): {exc}") from exc
    if not isinstance(tree, Mapping) or not isinstance(tree.get("type"), str):
        raise ValueError(f"{file}: not a WDA source: the root is not an element with a type")
    return _canonical(tree)


def _canonical(node: Mapping[str, Any]) -> dict[str, Any]:
    """A source node as the JSON source writes it (Rule 4), from XML or JSON input."""
    out: dict[str, Any] = {"type": str(node.get("type", "Other")).removeprefix(_PREFIX) or "Other"}
    label = _str_or_none(node.get("label"))
    name = _str_or_none(node.get("name"))
    if "rawIdentifier" in node:
        out["rawIdentifier"] = _str_or_none(node.get("rawIdentifier"))
    else:  # the XML has no identifier of its own: WDA's name is the identifier, else the label
        out["rawIdentifier"] = name if name is not None and name != label else None
    out["name"] = name
    out["label"] = label
    out["value"] = _str_or_none(node.get("value"))
    x, y, w, h = _whole_rect(node)
    out["rect"] = {"x": x, "y": y, "width": w, "height": h}
    out["frame"] = _frame_string(x, y, w, h)
    for key in ("isEnabled", "isVisible", "isAccessible", "isFocused"):
        if key in node:
            out[key] = "1" if str(node[key]).strip().lower() in ("1", "true", "yes") else "0"
    for key in ("traits", "placeholderValue", "bundleId", "processId"):
        if node.get(key) is not None:
            out[key] = str(node[key])
    children = node.get("children")
    if isinstance(children, Sequence) and not isinstance(children, str) and children:
        out["children"] = [_canonical(c) for c in children if isinstance(c, Mapping)]
    return out


def _whole_rect(node: Mapping[str, Any]) -> tuple[int, int, int, int]:
    rect = node.get("rect")
    values: list[Any] = (
        [rect.get(k) for k in ("x", "y", "width", "height")]
        if isinstance(rect, Mapping)
        else [node.get(k) for k in ("x", "y", "width", "height")]
    )
    out: list[int] = []
    for v in values:
        try:
            number = float(v)
        except (TypeError, ValueError):
            number = 0.0
        out.append(round(number) if math.isfinite(number) else 0)
    return out[0], out[1], max(0, out[2]), max(0, out[3])


def _str_or_none(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text or None


def _static_script(tree: Mapping[str, Any], bundle: str, ios: str) -> AppScript:
    """A one-app script standing in for a captured tree: it installs and launches the bundle (Rule 12)."""
    rect = tree.get("rect", {})
    width, height = rect.get("width", 0), rect.get("height", 0)
    if not (isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0):
        raise ValueError("the tree's root has no size: it needs a rect with a width and a height")
    name = tree.get("label") or tree.get("name") or bundle
    script = {
        "version": 1,
        "device": {"name": "Captured tree", "ios": ios, "kind": "simulator", "size": [width, height]},
        "latency": "zero",
        "apps": {
            bundle: {
                "name": str(name),
                "version": "1",
                "build": "1",
                "launch": "captured",
                "screens": {"captured": []},
            }
        },
    }
    return AppScript.from_dict(script, source="<captured tree>")


# -- routes -----------------------------------------------------------------------------------

_RouteHandler = Callable[["FakeWda", dict[str, Any], dict[str, str]], Coroutine[Any, Any, Any]]
#: What the request being handled costs on real WDA, in seconds (Rule 11): one holder per task.
_CHARGE: contextvars.ContextVar[list[float]] = contextvars.ContextVar("fake_wda_charge")


def _charge(seconds: float) -> None:
    holder = _CHARGE.get(None)
    if holder is not None:
        holder[0] += seconds


_ROUTES: dict[tuple[str, str], _RouteHandler] = {}
_TargetHandler = Callable[["FakeWda", _Target, dict[str, Any], dict[str, str]], Coroutine[Any, Any, Any]]
#: The routes that act on a target (Rule 13), by ``(method, template)``: ``/wda/tap`` acts on the
#: app, ``/wda/element/:uuid/tap`` on a cached element, ``/element/:uuid/attribute/:name`` too.
_TARGET_ROUTES: dict[tuple[str, str], _TargetHandler] = {}


H = TypeVar("H")


def _register(table: dict[tuple[str, str], H], method: str, routes: Sequence[str]) -> Callable[[H], H]:
    def register(handler: H) -> H:
        for route in routes:
            table[(method, route)] = handler
        return handler

    return register


def _serves(method: str, *routes: str) -> Callable[[_RouteHandler], _RouteHandler]:
    """Register a method of :class:`FakeWda` as WDA's handler of ``method`` on ``routes``."""
    return _register(_ROUTES, method, routes)


def _acts_on(method: str, *templates: str) -> Callable[[_TargetHandler], _TargetHandler]:
    """Register a method of :class:`FakeWda` as WDA's handler of ``method`` on route ``templates`` (Rule 13)."""
    return _register(_TARGET_ROUTES, method, templates)


def _template(route: str) -> tuple[str, str | None, str | None]:
    """A route as its template (``/element/:uuid/rect``), its element id and its attribute name."""
    match = _ELEMENT_PATH.match(route)
    if match is None or route == "/element/active":
        return route, None, None
    head, name, rest = match.group("head"), match.group("name"), match.group("rest")
    if name is not None:
        return f"{head}/:uuid/attribute/:name", match.group("uuid"), name
    return f"{head}/:uuid{rest or ''}", match.group("uuid"), None


class FakeWda(LoopbackServer[WdaRequest]):
    """A fake WebDriverAgent on 127.0.0.1 (see the module rules).

    ``app`` is an app script (a path, or a loaded :class:`~mobster_drivers.devices.scripted.AppScript`);
    or ``tree`` is a captured WDA source (XML or JSON, a path) served as a static app whose bundle
    is the capture's ``bundleId`` or ``bundle`` (Rule 12), on iOS ``ios``. ``costs`` holds each
    reply as long as real WDA would take (Rule 11). ``port`` 0 picks a free port. The fake stops
    by itself after ``lifetime`` seconds; ``None`` serves until :meth:`stop`. It serves one
    request at a time, as WDA's main thread does (Rule 8); ``one_at_a_time=False`` lets its HTTP
    layer answer each at once.
    Use it as a context manager, or :meth:`start` and :meth:`stop`.
    """

    def __init__(
        self,
        app: str | os.PathLike[str] | AppScript | None = None,
        *,
        tree: str | os.PathLike[str] | None = None,
        bundle: str | None = None,
        ios: str = "26.4",
        costs: ReadCosts | None = None,
        port: int = 0,
        lifetime: float | None = 600.0,
        one_at_a_time: bool = True,
    ) -> None:
        super().__init__(port=port, lifetime=lifetime, one_at_a_time=one_at_a_time)
        if (app is None) == (tree is None):
            raise ValueError("FakeWda serves an app script (app=) or a captured tree (tree=), one of the two")
        self._static: dict[str, Any] | None = None
        self._static_bundle: str | None = None
        if tree is not None:
            self._static = load_tree(tree)
            self._static_bundle = bundle or source_bundle(self._static)
            if not self._static_bundle:
                raise ValueError(f"{tree}: the tree names no bundleId (a JSON source never does): pass --bundle")
            script = _static_script(self._static, self._static_bundle, ios)
        else:
            assert app is not None
            script = app if isinstance(app, AppScript) else AppScript.from_file(app)
        self._script = script
        self._costs = costs
        self._phone = ScriptedPhone(script, clock=SystemClock())
        self._garbage = 0
        self._stall: float = 0.0
        self._lost_hold: float = 0.0
        self._charges: list[tuple[str, float]] = []
        self._loop: LoopThread | None = None
        # The WDA state below lives on the phone's loop thread (Rule 3).
        self._session: str | None = None
        self._settings: dict[str, Any] = dict(_SETTINGS)
        self._focus: _Focus | None = None
        self._launched: dict[str, LaunchOptions] = {}
        self._pids = {b: 1000 + i for i, b in enumerate(script.apps)}
        self._element_cache: OrderedDict[str, _Cached] = OrderedDict()  # Rule 13
        self._device = _DeviceState()

    # -- lifecycle (the rest is the loopback server's) ---------------------------------------

    def _on_start(self) -> None:
        self._loop = LoopThread("fake-wda-phone")

    def _on_stop(self) -> None:
        if self._loop is not None:
            self._loop.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def phone(self) -> ScriptedPhone:
        """The scripted phone behind the fake (read it; drive it through WDA)."""
        return self._phone

    @property
    def script(self) -> AppScript:
        """The app script the phone runs (for a captured tree, the one app standing in for it)."""
        return self._script

    @property
    def static_bundle(self) -> str | None:
        """The bundle of the captured tree served as a static app, None for an app script (Rule 12)."""
        return self._static_bundle

    @property
    def settings(self) -> dict[str, Any]:
        """The session settings WDA would hold now (a copy; Rule 10)."""
        return dict(self._settings)

    @property
    def charges(self) -> list[tuple[str, float]]:
        """With ``costs``: each answered request (``GET /source``) and the seconds it was held (Rule 11)."""
        with self._lock:
            return list(self._charges)

    @property
    def session_id(self) -> str | None:
        """The current session, None when there is none."""
        return self._session

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run a coroutine on the phone's loop and return its result (e.g. ``phone.launch``)."""
        return self._phone_loop().call(coro, _PHONE_TIMEOUT)

    # -- the system, outside WDA (what simctl or a person does to the phone) -------------------

    def launch_app(self, bundle: str, args: Sequence[str] = (), env: Mapping[str, str] | None = None) -> None:
        """(Re)launch an app on the phone as the system would; ``DeviceError`` if not installed."""

        async def launch() -> None:
            try:
                await self._launch(bundle, list(args), dict(env or {}))
            except _WdaFailure as failure:
                raise DeviceError(failure.message) from failure

        self.run(launch())

    def terminate_app(self, bundle: str) -> bool:
        """Terminate an app on the phone; True when it was running."""

        async def terminate() -> bool:
            return self._terminate(bundle)

        return bool(self.run(terminate()))

    def open_url(self, url: str) -> None:
        """Open a deep link on the phone; ``DeviceError`` when no app opens it."""

        async def open_url() -> None:
            self._focus = None
            await self._phone.act(Action(Op.OPEN_URL, text=url))

        self.run(open_url())

    def set_permission(self, bundle: str, service: str | None, *, allow: bool | None) -> None:
        """A permission set (True, False) or reset (None; ``service`` None: all) as ``simctl privacy`` does."""

        async def privacy() -> None:
            self._phone.set_permission(bundle, service, allow=allow)

        self.run(privacy())

    def send_event(self, event: DeviceEvent) -> None:
        """A device step reaching the phone (simctl's biometric match or push, Appium's): its Rule 15."""

        async def send() -> None:
            await self._phone.send_event(event)

        self.run(send())

    def screenshot(self) -> bytes:
        """The phone's screenshot as PNG bytes."""
        return bytes(self.run(self._phone.screenshot()))

    def is_running(self, bundle: str) -> bool:
        """Whether an app is running (in front or not)."""

        async def running() -> bool:
            return self._phone.screen_name(bundle) is not None

        return bool(self.run(running()))

    # -- faults (Rule 6) ---------------------------------------------------------------------

    def fail_next_action(self, *, applied: bool = False, stall: float = 0.0) -> None:
        """Lose the reply of the next action the phone receives.

        With ``applied=True`` it happened first. The connection is closed without a reply after
        ``stall`` seconds (give more than the client's timeout to make it time out).
        """
        with self._lock:
            self._lost_hold = stall

        async def arm() -> None:
            self._phone.fail_next_action(applied=applied)

        self.run(arm())

    def fail_next_read(self, count: int = 1) -> None:
        """Make the next ``count`` source reads fail with WDA's ``unknown error``."""

        async def arm() -> None:
            self._phone.fail_next_read(count)

        self.run(arm())

    def drop_typing(self) -> None:
        """From now on typed text lands nowhere (see ``ScriptedPhone.drop_typing``)."""

        async def arm() -> None:
            self._phone.drop_typing()

        self.run(arm())

    def restart(self) -> None:
        """Restart WDA: every session becomes stale and settings go; the apps keep running."""

        async def restart() -> None:
            self._session = None
            self._settings = dict(_SETTINGS)
            self._focus = None
            self._element_cache.clear()

        self.run(restart())

    def garbage_next_reply(self, count: int = 1) -> None:
        """Answer the next ``count`` requests with bytes that are not JSON, without handling them."""
        with self._lock:
            self._garbage += count

    def stall_next_reply(self, seconds: float) -> None:
        """Handle the next request, then hold its reply ``seconds`` before sending it."""
        with self._lock:
            self._stall = seconds

    # -- serving -----------------------------------------------------------------------------

    def _phone_loop(self) -> LoopThread:
        if self._loop is None:
            raise RuntimeError("FakeWda is not started")
        return self._loop

    def _answer(self, incoming: Incoming) -> Reply:
        method, raw_path, raw = incoming.method, incoming.path, incoming.body
        split = urlsplit(raw_path)
        path = split.path
        session, route = session_route(path)
        body, bad_body = json_body(raw)
        claimed = self._admit(WdaRequest(method, raw_path, route, session, body), self._claim)
        if claimed is None:
            return DEAD
        garbage, stall, lost_hold = claimed
        if garbage:
            return Reply(200, _GARBAGE, "text/html")
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        call = _Call(method, path, session, route, None if bad_body else body, query, bad_body=bad_body)
        try:
            value, sid, cost = self._phone_loop().call(self._charged(call), _PHONE_TIMEOUT)
        except _WdaFailure as failure:
            return Reply(failure.status, _envelope(_error(failure), self._session), _JSON, hold=stall)
        except _LostReply:
            with self._lock:
                self._lost_hold = 0.0
            return Reply(drop=True, hold=lost_hold)
        except (RuntimeError, TimeoutError) as exc:
            stuck = _WdaFailure(500, "unknown error", f"the fake phone didn't answer ({type(exc).__name__})")
            return Reply(500, _envelope(_error(stuck), None), _JSON, hold=stall)
        if self._costs is not None:
            with self._lock:
                self._charges.append((f"{method} {route}", cost))
        return Reply(200, _envelope(value, sid), _JSON, hold=stall + cost)

    def _claim(self) -> tuple[bool, float, float]:
        """Under the lock, for the request just recorded: answer garbage? the stall, the lost reply's hold."""
        if self._garbage > 0:
            self._garbage -= 1
            return True, 0.0, 0.0
        stall, self._stall = self._stall, 0.0
        return False, stall, self._lost_hold

    async def _charged(self, call: _Call) -> tuple[Any, str | None, float]:
        """Handle one request, and what it costs on real WDA in seconds (Rule 11; 0 without costs)."""
        charged = [0.0]
        _CHARGE.set(charged)  # each request runs in its own task, with its own context
        if self._costs is not None:
            charged[0] += self._costs.request
        value, sid = await self._route(call)
        return value, sid, charged[0] if self._costs is not None else 0.0

    async def _route(self, call: _Call) -> tuple[Any, str | None]:
        """Handle one request on the phone's loop; returns ``(value, sessionId)``."""
        method, path, session, route, query = call.method, call.path, call.session, call.route, call.query
        if call.bad_body:
            raise _WdaFailure(400, "invalid argument", "the request body is not JSON")
        if call.body is not None and not isinstance(call.body, dict):
            raise _WdaFailure(400, "invalid argument", "the request body is not a JSON object")
        body: dict[str, Any] = call.body or {}
        if path == "/session" and method == "POST":
            return await self._create_session(body)
        # Rule 2: a route exists in the form WDA registers it, else nothing answers but the
        # catch-all: an unknown command, whatever the session id says.
        template, uuid, name = _template(route)
        if session is None:
            registered = route not in SESSION_ONLY and uuid is None and (method, route) not in _SESSION_ONLY_METHODS
        else:
            registered = route not in WITHOUT_SESSION_ONLY
        special = session is not None and route == "/" and method in ("GET", "DELETE")
        handler = _ROUTES.get((method, route)) if registered else None
        acting = _TARGET_ROUTES.get((method, template)) if registered and handler is None else None
        if handler is None and acting is None and not special:
            raise _WdaFailure(404, "unknown command", f"Unhandled endpoint: {path} with parameters {body}")
        if session is not None and (session != self._session or self._session is None):
            raise _WdaFailure(404, "invalid session id", "Session does not exist")
        if special:
            return self._session_route(method, session), None if method == "DELETE" else session
        if acting is not None:
            target = self._resolve(uuid) if uuid is not None else self._app_target()
            value = await acting(self, target, body, {**query, ":name": name} if name else query)
        else:
            assert handler is not None
            value = await handler(self, body, query)
        return value, session if session is not None else self._session

    def _session_route(self, method: str, session: str | None) -> Any:
        """``GET`` and ``DELETE /session/{id}``: the session's capabilities, or its end."""
        if method == "DELETE":
            self._session = None
            self._element_cache.clear()
            return None
        return {"sessionId": session, "capabilities": self._capabilities()}

    # -- sessions ----------------------------------------------------------------------------

    async def _create_session(self, body: dict[str, Any]) -> tuple[Any, str | None]:
        caps: Mapping[str, Any] = {}
        capabilities = body.get("capabilities")
        if isinstance(capabilities, Mapping) and isinstance(capabilities.get("alwaysMatch"), Mapping):
            caps = capabilities["alwaysMatch"]
        elif isinstance(body.get("desiredCapabilities"), Mapping):
            caps = body["desiredCapabilities"]
        self._session = secrets.token_hex(16).upper()
        self._focus = None
        self._element_cache.clear()  # FBSessionCommands.m:93: a new session ends the one before
        bundle = caps.get("bundleId")
        if isinstance(bundle, str) and bundle:
            await self._launch(bundle, caps.get("arguments"), caps.get("environment"))
        return {"sessionId": self._session, "capabilities": self._capabilities()}, self._session

    def _capabilities(self) -> dict[str, Any]:
        front = self._phone.front
        return {
            "device": "iphone",
            "sdkVersion": self._script.device.ios,
            "browserName": self._app_name(front),
            "CFBundleIdentifier": front,
        }

    # -- the phone ---------------------------------------------------------------------------

    async def _act(self, action: Action) -> None:
        try:
            await self._phone.act(action)
        except UnknownOutcome as exc:
            raise _LostReply from exc
        except DeviceError as exc:
            raise _WdaFailure(500, "unknown error", str(exc)) from exc

    async def _launch(self, bundle: str, arguments: Any, environment: Any) -> None:
        args = [str(a) for a in arguments] if isinstance(arguments, list) else []
        env = {str(k): str(v) for k, v in environment.items()} if isinstance(environment, Mapping) else {}
        options = LaunchOptions(args=args, env=env)
        try:
            await self._phone.launch(bundle, options)
        except DeviceError as exc:
            raise _WdaFailure(500, "unknown error", f"Cannot launch {bundle}: {exc}") from exc
        self._launched[bundle] = options
        self._focus = None

    def _now_screen(self) -> tuple[Screen, list[Any]]:
        """The screen as a read would return it now, and the simulation's nodes.

        Without a read's latency or faults: a tap must not use up an injected read failure.
        """
        return self._phone.peek()

    def _hit(self, x: float, y: float) -> tuple[Element, Any] | None:
        screen, nodes = self._now_screen()
        width, height = self._script.size
        px, py = x / width, y / height
        hits: list[tuple[Element, Any]] = []
        for element, node in zip(screen.elements, nodes, strict=False):
            fx, fy, fw, fh = element.frame
            if element.visible and fw > 0 and fh > 0 and fx <= px <= fx + fw and fy <= py <= fy + fh:
                hits.append((element, node))
        if not hits:
            return None
        for element, node in reversed(hits):
            scripted = node.scripted
            if node.opens is not None or (scripted is not None and (scripted.tap is not None or scripted.takes_typing)):
                return element, node
        return hits[-1]

    async def _tap(self, x: float, y: float, op: Op) -> None:
        hit = self._hit(x, y)
        if hit is None:
            self._focus = None
            return  # a tap on nothing changes nothing
        element, node = hit
        scripted = node.scripted
        if op is Op.TAP and scripted is not None and scripted.takes_typing:
            front = self._phone.front
            self._focus = _Focus(front, self._phone.screen_name(front), element.path, element.pair)
        elif op is Op.TAP:
            self._focus = None
        await self._act(Action(op, element=element))

    def focused_field(self) -> Element | None:
        """The text field a tap focused, while its screen is in front (on the phone's loop: ``run``); else None."""
        focus = self._focus
        if focus is None:
            return None
        front = self._phone.front
        if front != focus.app or self._phone.screen_name(front) != focus.screen:
            return None
        screen, _ = self._now_screen()
        element = screen.element_at(focus.path)
        if element is None or element.pair != focus.pair:
            return None
        return element

    async def _type(self, text: str) -> None:
        submits = len(text) - len(text.rstrip("\n"))
        text = text.rstrip("\n")
        if text:
            field = self.focused_field()
            if field is not None:
                await self._act(Action(Op.TYPE, element=field, text=text))
        for _ in range(submits):
            await self._act(Action(Op.SUBMIT))

    async def _swipe(self, fx: float, fy: float, tx: float, ty: float) -> None:
        dx, dy = tx - fx, ty - fy
        if math.hypot(dx, dy) < _SWIPE_MIN_POINTS:
            raise _WdaFailure(400, "invalid argument", "a drag needs two different points")
        if abs(dy) >= abs(dx):
            op = Op.SWIPE_UP if dy < 0 else Op.SWIPE_DOWN
        else:
            op = Op.SWIPE_LEFT if dx < 0 else Op.SWIPE_RIGHT
        await self._act(Action(op))

    def _terminate(self, bundle: str) -> bool:
        was_running = self._phone.terminate(bundle)
        if self._focus is not None and self._focus.app == bundle:
            self._focus = None
        return was_running

    def _state(self, bundle: str) -> int:
        if bundle != SPRINGBOARD and bundle not in self._script.apps:
            return 0  # XCUIApplicationStateUnknown: not installed
        front = self._phone.front
        if bundle == front:
            return 4
        if bundle == SPRINGBOARD or self._phone.screen_name(bundle) is not None:
            return 3
        return 1

    def _app_name(self, bundle: str) -> str:
        app = self._script.apps.get(bundle)
        return app.name if app is not None else "SpringBoard"

    # -- the tree (Rule 4) -------------------------------------------------------------------

    def _raw_tree(self, screen: Screen) -> dict[str, Any]:
        """The app in front as WDA's JSON source with every attribute (Rule 4; Rule 12)."""
        if self._static is not None and screen.app == self._static_bundle:
            return copy.deepcopy(self._static)
        width, height = self._script.size
        name = self._app_name(screen.app)
        root: dict[str, Any] = {
            "type": "Application",
            "rawIdentifier": None,
            "name": name,
            "label": name,
            "value": None,
            "rect": {"x": 0, "y": 0, "width": width, "height": height},
            "frame": _frame_string(0, 0, width, height),
            "isEnabled": "1",
            "isVisible": "1",
            "isAccessible": "0",
            "isFocused": "0",
            "traits": "",
            "bundleId": screen.app,
            "processId": str(self._pids.get(screen.app, 50)),
        }
        nodes: dict[str, dict[str, Any]] = {"/0": root}
        for e in screen.elements:
            x, y, w, h = e.frame
            # Whole points, as WDA's rects are; a hidden view keeps its frame (Rule 4).
            px, py = round(x * width), round(y * height)
            pw, ph = round((x + w) * width) - px, round((y + h) * height) - py
            value: str | None = e.value or None
            node: dict[str, Any] = {
                "type": e.role,
                "rawIdentifier": e.identifier or None,
                "name": e.identifier or e.label or None,
                "label": e.label or None,
                "value": value,
                "rect": {"x": px, "y": py, "width": pw, "height": ph},
                "frame": _frame_string(px, py, pw, ph),
                "isEnabled": "1" if e.enabled else "0",
                "isVisible": "1" if e.visible else "0",
                "isAccessible": "1" if e.label else "0",
                "isFocused": "0",
                "traits": _trait_names(e),
            }
            if e.role in _TEXT_INPUTS and e.placeholder:
                node["placeholderValue"] = e.placeholder
                if not e.value:
                    node["value"] = e.placeholder  # WDA reports an empty field's placeholder as its value
            nodes[e.path] = node
            parent = nodes.get(e.path.rsplit("/", 1)[0], root)
            parent.setdefault("children", []).append(node)
        return root

    def _serve(self, tree: dict[str, Any], excluded: frozenset[str], fmt: str) -> Any:
        """The source as sent: JSON or XML, without the excluded attributes, and nothing else gone."""
        if fmt == "xml":
            return _xml(tree, excluded)
        gone = {_JSON_KEYS[a] for a in excluded if a in _JSON_KEYS} | {"bundleId", "processId"}
        for node in _walk(tree):
            for key in gone:
                node.pop(key, None)
        return tree

    # -- finding elements (Rule 9) -----------------------------------------------------------

    async def _find(
        self, body: Mapping[str, Any], *, first: bool, under: _Target | None = None
    ) -> list[dict[str, Any]]:
        using, value = body.get("using"), body.get("value")
        if not isinstance(using, str) or not isinstance(value, str):
            raise _WdaFailure(400, "invalid argument", "'using' and 'value' must be strings")
        screen, _ = self._now_screen()
        tree = self._raw_tree(screen)
        top = "/0" if under is None or under.uuid is None else self._element_cache[under.uuid].path
        nodes = [(p, n) for p, n in _walk_paths(tree) if p == top or p.startswith(top + "/")]
        if under is not None and under.uuid is not None:
            nodes = nodes[1:]  # under an element: its descendants, not itself
        reads = [0]  # how many elements had their costly visibility read (Rule 11)
        matches = _matcher(using, value, reads)
        found: list[tuple[str, dict[str, Any]]] = []
        for path, node in nodes:
            if matches(node):
                found.append((path, node))
                if first:
                    break
        if self._costs is not None:
            _charge(self._costs.query(len(nodes), reads[0]))
        return [self._element_reply(node, path, screen.app) for path, node in found]

    def _cache(self, node: Mapping[str, Any], path: str, app: str) -> str:
        """Keep an element WDA hands out and return its id (Rule 13): the same element, the same id."""
        cached = _Cached(app, self._phone.screen_name(app), path, (str(node.get("type")), node.get("label")))
        ref = str(uuid.uuid5(uuid.NAMESPACE_OID, repr((self._session, cached)))).upper()
        self._element_cache[ref] = cached
        self._element_cache.move_to_end(ref)
        while len(self._element_cache) > _CACHE_SIZE:
            self._element_cache.popitem(last=False)
        return ref

    def _resolve(self, ref: str) -> _Target:
        """A cached element as it is now (Rule 13); WDA's ``stale element reference`` when it is gone."""
        cached = self._element_cache.get(ref)
        if cached is None:
            raise _WdaFailure(
                404,
                "stale element reference",
                f'The element identified by "{ref}" is either not present or it has expired from the internal '
                "cache. Try to find it again",
            )
        screen, _ = self._now_screen()
        node = _node_at(self._raw_tree(screen), cached.path) if screen.app == cached.app else None
        here = node is not None and (str(node.get("type")), node.get("label")) == cached.pair
        if not here or self._phone.screen_name(cached.app) != cached.screen:
            role, label = cached.pair
            raise _WdaFailure(
                404,
                "stale element reference",
                f"The previously found element \"{role}, label: '{label}'\" is not present in the current view "
                "anymore. Make sure the application UI has the expected state",
            )
        assert node is not None
        return _Target(node, screen.element_at(cached.path), ref)

    def _app_target(self) -> _Target:
        screen, _ = self._now_screen()
        return _Target(self._raw_tree(screen))

    def _element_reply(self, node: Mapping[str, Any], path: str, app: str) -> dict[str, Any]:
        """``FBResponsePayload``'s element reply: the id, and attributes unless compact (Rule 9)."""
        element = self._cache(node, path, app)
        out: dict[str, Any] = {"ELEMENT": element, _W3C_ELEMENT: element}
        if self._settings.get("shouldUseCompactResponses", True):
            return out
        fields = str(self._settings.get("elementResponseAttributes", "type,label")).split(",")
        for field in (f.strip() for f in fields):
            if field in ("name", "type"):
                out[field] = _PREFIX + str(node["type"])
            elif field == "text":
                out[field] = node.get("value") or node.get("label")
            elif field == "rect":
                out[field] = dict(node.get("rect", {}))
            elif field == "enabled":
                out[field] = _node_flag(node, "isEnabled", default=True)
            elif field == "displayed":
                if self._costs is not None:
                    _charge(self._costs.visible)
                out[field] = _node_visible(node)
            elif field == "selected":
                out[field] = "Selected" in _node_traits(node)
            elif field == "label":
                out[field] = node.get("label")
        return out

    # -- routes (Rule 2: registered in the form WDA registers them) ----------------------------

    @_serves("GET", "/status")
    async def _status(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        device = self.script.device
        ios: dict[str, Any] = {"ip": "127.0.0.1"}
        if device.kind is DeviceKind.SIMULATOR:
            ios["simulatorVersion"] = device.ios
        return {
            "ready": True,
            "message": "WebDriverAgent is ready to accept commands",
            "state": "success",
            "os": {"name": "iOS", "version": device.ios, "sdkVersion": device.ios, "testmanagerdVersion": 65},
            "ios": ios,
            "build": {"time": "Jan  1 2026 00:00:00", "productBundleIdentifier": "com.facebook.WebDriverAgentRunner"},
            "device": "iphone",
        }

    @_serves("GET", "/wda/healthcheck")
    async def _healthcheck(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return None

    @_serves("GET", "/wda/locked")
    async def _locked(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return False

    @_serves("POST", "/wda/unlock", "/wda/lock")
    async def _unlock(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return None

    @_serves("POST", "/wda/homescreen")
    async def _homescreen(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        self._focus = None
        await self._act(Action(Op.HOME))

    @_serves("POST", "/wda/pressButton")
    async def _press_button(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        name = body.get("name")
        # XCUIDevice+FBHelpers.m:342-356: the name is lowercased; a simulator has no volume buttons.
        buttons = ["home"] if self.script.device.kind is DeviceKind.SIMULATOR else ["home", "volumedown", "volumeup"]
        lowered = name.lower() if isinstance(name, str) else None
        if lowered == "home":
            self._focus = None
            await self._act(Action(Op.HOME))
        elif lowered not in buttons:
            listed = "".join(f"\n    {b}," for b in buttons).rstrip(",")
            raise _WdaFailure(
                500,
                "unknown error",
                f"Error Domain=com.facebook.WebDriverAgent Code=1 \"The button '{name}' is not supported. The device "
                f'under test only supports the following buttons: ({listed}\n)" UserInfo={{NSLocalizedDescription='
                f"The button '{name}' is not supported. The device under test only supports the following buttons: "
                f"({listed}\n)}}",
            )

    @_serves("GET", "/wda/activeAppInfo")
    async def _active_app(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        front = self._phone.front
        launched = self._launched.get(front, LaunchOptions())
        return {
            "pid": self._pids.get(front, 50),
            "bundleId": front,
            "name": self._app_name(front),
            "processArguments": {"args": list(launched.args), "env": dict(launched.env)},
        }

    @_serves("GET", "/source")
    async def _source(self, _body: dict[str, Any], query: dict[str, str]) -> Any:
        given = query.get("format", "xml")
        fmt = given.lower()
        if fmt not in ("json", "xml", "description"):
            raise _WdaFailure(
                400,
                "invalid argument",
                f"Unknown source format '{given}'. Only (\n    xml,\n    json,\n    description\n) source formats "
                "are supported.",
            )
        excluded = frozenset(a.strip() for a in query.get("excluded_attributes", "").split(",") if a.strip())
        try:
            screen = await self._phone.read()
        except DeviceError as exc:
            raise _WdaFailure(500, "unknown error", f"Cannot get the source: {exc}") from exc
        tree = self._raw_tree(screen)
        if self._costs is not None:
            nodes = sum(1 for _ in _walk(tree))
            _charge(
                self._costs.source(nodes, visible="visible" not in excluded, accessible="accessible" not in excluded)
            )
        return self._serve(tree, excluded, fmt)

    @_serves("GET", "/screenshot")
    async def _screenshot(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        png = await self._phone.screenshot()
        return base64.b64encode(png).decode("ascii")

    @_serves("GET", "/window/size")
    async def _window_size(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        width, height = self.script.size
        return {"width": width, "height": height}

    @_serves("GET", "/wda/screen")
    async def _screen_info(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        width, height = self.script.size
        return {
            "screenSize": {"width": width, "height": height},
            "statusBarSize": {"width": width, "height": 54},
            "scale": 3,
        }

    @_serves("GET", "/wda/device/info")
    async def _device_info(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        device = self.script.device
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

    @_serves("GET", "/orientation")
    async def _orientation(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return "PORTRAIT"

    @_serves("GET", "/appium/settings")
    async def _get_settings(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return dict(self._settings)

    @_serves("POST", "/appium/settings")
    async def _set_settings(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        settings = body.get("settings")
        if not isinstance(settings, Mapping):
            raise _WdaFailure(400, "invalid argument", "'settings' must be an object")
        for key, value in settings.items():
            if key in _SETTINGS:  # Rule 10: WDA 9 reads the settings it knows; the rest go unnoticed
                self._settings[key] = value
        return dict(self._settings)

    # -- alerts (Rule 14) -------------------------------------------------------------------------

    def _shown_alert(self) -> tuple[str, tuple[str, ...]]:
        """The phone's alert (text, buttons); WDA's 404 ``no such alert`` default message when none is."""
        alert = self._phone.alert()
        if alert is None:
            # FBAlertViewCommands.m:38-47, 93-103: no alert text, no buttons: WDA's default message.
            raise _WdaFailure(
                404, "no such alert", "An attempt was made to operate on a modal dialog when one was not open"
            )
        return alert

    @_serves("GET", "/alert/text")
    async def _alert_text(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return self._shown_alert()[0]

    @_serves("GET", "/wda/alert/buttons")
    async def _alert_buttons(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return list(self._shown_alert()[1])

    @_serves("POST", "/alert/accept")
    async def _accept_alert(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        await self._answer_alert(body.get("name"), accept=True)

    @_serves("POST", "/alert/dismiss")
    async def _dismiss_alert(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        await self._answer_alert(body.get("name"), accept=False)

    async def _answer_alert(self, name: Any, *, accept: bool) -> None:
        alert = self._phone.alert()
        if alert is None:
            raise _WdaFailure(404, "no such alert", "No alert is open")  # FBAlert.m:99-104, raised on an action
        buttons = alert[1]
        if name is None:
            # FBAlert.m accept/dismiss: an XCUIElementTypeAlert's last button accepts, its first dismisses.
            name = buttons[-1] if accept else buttons[0]
        if name not in buttons:
            raise _WdaFailure(
                400, "invalid element state", f"Failed to find button with label '{name}' for alert: Alert"
            )  # FBAlert.m:341-365, FBAlertActionFailedException
        self._focus = None
        await self._phone.answer_alert(str(name))

    @_serves("POST", "/alert/text")
    async def _alert_type(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if "value" not in body:
            raise _WdaFailure(400, "invalid argument", "Missing 'value' parameter")
        self._shown_alert_to_type_in()
        # FBAlert.m typeText: a permission prompt has no field: FBAlertSetTextFailedException.
        raise _WdaFailure(400, "unsupported operation", "The alert contains no input fields")

    def _shown_alert_to_type_in(self) -> None:
        if self._phone.alert() is None:
            raise _WdaFailure(404, "no such alert", "No alert is open")

    @_serves("POST", "/wda/apps/launch")
    async def _apps_launch(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        bundle = _bundle(body)
        if self._phone.screen_name(bundle) is not None:
            # FBSession.m:397-403: a running app is only activated; its arguments are not applied.
            self._focus = None
            await self._act(Action(Op.LAUNCH_APP, text=bundle))
            return
        await self._launch(bundle, body.get("arguments"), body.get("environment"))

    @_serves("POST", "/wda/apps/activate")
    async def _apps_activate(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        bundle = _bundle(body)
        self._focus = None
        await self._act(Action(Op.LAUNCH_APP, text=bundle))

    @_serves("POST", "/wda/apps/terminate")
    async def _apps_terminate(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        return self._terminate(_bundle(body))

    @_serves("POST", "/wda/apps/state")
    async def _apps_state(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        return self._state(_bundle(body))

    @_serves("GET", "/wda/apps/list")
    async def _apps_list(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return [
            {"pid": self._pids[b], "bundleId": b} for b in self.script.apps if self._phone.screen_name(b) is not None
        ]

    @_serves("POST", "/wda/keys")
    async def _wda_keys(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        value = body.get("value")
        if isinstance(value, str):
            text = value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            text = "".join(value)
        else:
            raise _WdaFailure(400, "invalid argument", "'value' must be a list of strings")
        await self._type(text)

    @_serves("POST", "/url")
    async def _open_url(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        url = body.get("url")
        if not isinstance(url, str) or not url:
            raise _WdaFailure(400, "invalid argument", "'url' is required")
        self._focus = None
        await self._act(Action(Op.OPEN_URL, text=url))

    @_serves("POST", "/actions")
    async def _w3c_actions(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        gesture = _read_pointer(body.get("actions"))
        if gesture is None:
            return None  # no pointer: nothing to do
        (x0, y0), (x1, y1), held_ms = gesture
        if math.hypot(x1 - x0, y1 - y0) >= _SWIPE_MIN_POINTS:
            await self._swipe(x0, y0, x1, y1)
        else:
            await self._tap(x0, y0, Op.LONG_PRESS if held_ms >= _LONG_PRESS_MS else Op.TAP)

    # -- the routes every client sends that act on a target (Rule 13) ---------------------------

    @_serves("GET", "/element/active")
    async def _active_element(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        field = self.focused_field()
        if field is None:  # FBFindElementCommands.m:27-31, 119-126: a GET has no 'using' nor 'value'
            raise _WdaFailure(404, "no such element", "unable to find an element using '(null)', value '(null)'")
        screen, _ = self._now_screen()
        node = _node_at(self._raw_tree(screen), field.path)
        assert node is not None
        return self._element_reply(node, field.path, screen.app)

    @_serves("GET", "/window/rect")
    async def _window_rect(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        width, height = self.script.size
        return {"x": 0, "y": 0, "width": width, "height": height}

    @_acts_on("GET", "/element/:uuid/rect")
    async def _element_rect(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return dict(target.node.get("rect", {}))

    @_acts_on("GET", "/element/:uuid/enabled")
    async def _element_enabled(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return _node_flag(target.node, "isEnabled", default=True)

    @_acts_on("GET", "/element/:uuid/displayed")
    async def _element_displayed(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        if self._costs is not None:
            _charge(self._costs.visible)
        return _node_visible(target.node)

    @_acts_on("GET", "/element/:uuid/selected")
    async def _element_selected(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return "Selected" in _node_traits(target.node)

    @_acts_on("GET", "/element/:uuid/name")
    async def _element_type(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return _PREFIX + str(target.node["type"])

    @_acts_on("GET", "/element/:uuid/text")
    async def _element_text(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return target.node.get("value") or target.node.get("label") or ""

    @_acts_on("GET", "/element/:uuid/attribute/:name")
    async def _element_attribute(self, target: _Target, _body: dict[str, Any], query: dict[str, str]) -> Any:
        return _attribute(target.node, query[":name"])

    @_acts_on("GET", "/wda/element/:uuid/accessible")
    async def _element_accessible(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return _node_flag(target.node, "isAccessible", default=False)

    @_acts_on("GET", "/wda/element/:uuid/accessibilityContainer")
    async def _element_container(self, _target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return False  # the scripted phone's elements are never accessibility containers

    @_acts_on("GET", "/element/:uuid/screenshot", "/screenshot/:uuid")
    async def _element_screenshot(self, _target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        png = await self._phone.screenshot()  # the whole screen: the fake draws no element alone
        return base64.b64encode(png).decode("ascii")

    @_acts_on("POST", "/element", "/element/:uuid/element")
    async def _element_under(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        found = await self._find(body, first=True, under=target)
        if not found:
            raise _WdaFailure(
                404,
                "no such element",
                f"unable to find an element using '{body.get('using')}', value '{body.get('value')}'",
            )
        return found[0]

    @_acts_on("POST", "/elements", "/element/:uuid/elements")
    async def _elements_under(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        return await self._find(body, first=False, under=target)

    @_acts_on("GET", "/wda/element/:uuid/getVisibleCells")
    async def _visible_cells(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        found = {"using": "predicate string", "value": "type == 'XCUIElementTypeCell' AND visible == 1"}
        return await self._find(found, first=False, under=target)

    @_acts_on("POST", "/element/:uuid/click")
    async def _element_click(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        await self._tap(*target.centre, Op.TAP)

    @_acts_on("POST", "/element/:uuid/value")
    async def _element_value(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        value = body.get("value", body.get("text"))
        if value is None:  # FBElementCommands.m:196-237
            raise _WdaFailure(400, "invalid argument", "Neither 'value' nor 'text' parameter is provided")
        text = "".join(str(v) for v in value) if isinstance(value, list) else str(value)
        self._focus_on(target)
        await self._type(text)

    @_acts_on("POST", "/element/:uuid/clear")
    async def _element_clear(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        element = self._typing_target(target)
        try:
            await self._phone.clear(element)
        except DeviceError as exc:
            raise _WdaFailure(400, "invalid element state", str(exc)) from exc

    @_acts_on("POST", "/wda/element/:uuid/keyboardInput")
    async def _keyboard_input(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        keys = body.get("keys")
        if not isinstance(keys, list):  # FBCustomCommands.m:601-645
            raise _WdaFailure(400, "invalid argument", "The 'keys' argument must be an array")
        text = ""
        for item in keys:
            key = item.get("key") if isinstance(item, dict) else item
            if not isinstance(key, str):
                raise _WdaFailure(
                    400, "invalid argument", "All items of the 'keys' array must be either dictionaries or strings"
                )
            text += key
        if target.uuid is not None:
            self._focus_on(target)
        await self._type(text)

    @_acts_on("POST", "/wda/tap", "/wda/element/:uuid/tap")
    @_acts_on("POST", "/wda/doubleTap", "/wda/element/:uuid/doubleTap")
    async def _gesture_tap(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        await self._tap(*_point(target, body), Op.TAP)  # a double tap is one tap to the scripted phone

    @_acts_on("POST", "/wda/twoFingerTap", "/wda/element/:uuid/twoFingerTap")
    async def _two_finger_tap(self, target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        await self._tap(*target.centre, Op.TAP)

    @_acts_on("POST", "/wda/tapWithNumberOfTaps", "/wda/element/:uuid/tapWithNumberOfTaps")
    async def _numbered_tap(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if body.get("numberOfTaps") is None or body.get("numberOfTouches") is None:
            raise _WdaFailure(
                400, "invalid argument", "Both 'numberOfTaps' and 'numberOfTouches' arguments must be provided"
            )
        await self._tap(*target.centre, Op.TAP)

    @_acts_on("POST", "/wda/touchAndHold", "/wda/element/:uuid/touchAndHold")
    @_acts_on("POST", "/wda/forceTouch", "/wda/element/:uuid/forceTouch")
    async def _gesture_hold(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        await self._tap(*_point(target, body), Op.LONG_PRESS)

    @_acts_on("POST", "/wda/dragfromtoforduration", "/wda/element/:uuid/dragfromtoforduration")
    @_acts_on("POST", "/wda/pressAndDragWithVelocity")
    async def _gesture_drag(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        x, y, _, _ = target.rect
        fx, fy = _xy(body, "fromX", "fromY")
        tx, ty = _xy(body, "toX", "toY")
        await self._swipe(x + fx, y + fy, x + tx, y + ty)

    @_acts_on("POST", "/wda/element/:uuid/pressAndDragWithVelocity")
    async def _drag_to_element(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        to = body.get("toElement")
        destination = self._resolve(to if isinstance(to, str) else "")
        await self._swipe(*target.centre, *destination.centre)

    @_acts_on("POST", "/wda/swipe", "/wda/element/:uuid/swipe")
    async def _gesture_swipe(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        direction = body.get("direction")
        if not isinstance(direction, str):  # FBElementCommands.m:462-481
            raise _WdaFailure(400, "invalid argument", "Missing 'direction' parameter")
        if direction.lower() not in _DIRECTIONS:
            raise _WdaFailure(
                400,
                "invalid argument",
                f"Unsupported swipe direction '{direction}'. Only the following directions are supported: "
                "(\n    up,\n    down,\n    left,\n    right\n)",
            )
        _point(target, body)  # x and y come together, or not at all
        await self._act(Action(_DIRECTIONS[direction.lower()]))

    @_acts_on("POST", "/wda/scroll", "/wda/element/:uuid/scroll")
    async def _gesture_scroll(self, _target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        direction = body.get("direction")
        if isinstance(direction, str):  # content scrolls down: the finger swipes up
            swipe = {"up": "down", "down": "up", "left": "right", "right": "left"}.get(direction)
            if swipe is not None:
                await self._act(Action(_DIRECTIONS[swipe]))
            return
        if any(key in body for key in ("name", "predicateString", "toVisible")):
            return  # the scripted phone's elements are all on its screen: nothing to scroll to
        raise _WdaFailure(400, "invalid argument", "Unsupported scroll type")

    @_acts_on("POST", "/wda/element/:uuid/scrollTo")
    @_acts_on("POST", "/wda/pinch", "/wda/element/:uuid/pinch")
    @_acts_on("POST", "/wda/rotate", "/wda/element/:uuid/rotate")
    async def _gesture_nothing_follows(self, _target: _Target, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return None  # carried out; no screen of an app script answers a pinch, a rotation or a scroll

    @_acts_on("POST", "/wda/pickerwheel/:uuid/select")
    async def _picker_select(self, target: _Target, body: dict[str, Any], _query: dict[str, str]) -> Any:
        kind = _PREFIX + str(target.node["type"])
        if kind != "XCUIElementTypePickerWheel":  # FBElementCommands.m:620-624
            raise _WdaFailure(
                400,
                "invalid argument",
                f"The element is expected to be a valid Picker Wheel control. '{kind}' was given instead",
            )
        order = str(body.get("order", "")).lower()
        if order not in ("next", "previous"):
            raise _WdaFailure(
                400,
                "invalid argument",
                f"Only 'previous' and 'next' order values are supported. '{body.get('order')}' was given instead",
            )
        raise _WdaFailure(400, "invalid element state", "The scripted phone's picker wheels have one value")

    def _focus_on(self, target: _Target) -> None:
        """WDA's typing into an element first gives it the keyboard focus (``fb_typeText``)."""
        element = self._typing_target(target)
        front = self._phone.front
        self._focus = _Focus(front, self._phone.screen_name(front), element.path, element.pair)

    def _typing_target(self, target: _Target) -> Element:
        element = target.element
        roles = sorted(_TEXT_INPUTS)
        if element is None or element.role not in _TEXT_INPUTS:
            kind = _PREFIX + str(target.node["type"])
            raise _WdaFailure(
                400,
                "invalid element state",
                f"Error Domain=com.facebook.WebDriverAgent Code=1 \"The element '{kind}' is not ready to accept text "
                f"input: it can't get the keyboard focus (only {', '.join(roles)} can)\"",
            )
        return element

    # -- the device: its state beyond the screen (FBCustomCommands, FBOrientationCommands, …) ---

    @_serves("POST", "/timeouts")
    async def _timeouts(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return None  # FBCustomCommands.m:134-138: "intentionally not supported"

    @_serves("POST", "/orientation")
    async def _set_orientation(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if str(body.get("orientation", "")).upper() != "PORTRAIT":  # the scripted phone stays upright
            raise _WdaFailure(500, "unknown error", "Unable To Rotate Device")

    @_serves("GET", "/wda/accessibleSource")
    async def _accessible_source(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        screen, _ = self._now_screen()
        return _accessibility_tree(self._raw_tree(screen))

    @_serves("GET", "/wda/batteryInfo")
    async def _battery(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        if self.script.device.kind is DeviceKind.SIMULATOR:
            return {"level": -1, "state": 0}  # UIDevice on a simulator: unknown
        return {"level": 1, "state": 3}  # full

    @_serves("POST", "/wda/deactivateApp")
    async def _deactivate(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        front = self._phone.front
        duration = body.get("duration", 3.0)
        self._focus = None
        await self._act(Action(Op.HOME))
        await self._phone.clock.sleep(float(duration) if _is_number(duration) else 3.0)
        if front != SPRINGBOARD:
            await self._act(Action(Op.LAUNCH_APP, text=front))

    @_serves("POST", "/wda/keyboard/dismiss")
    async def _dismiss_keyboard(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        # XCUIApplication+FBHelpers.m fb_dismissKeyboardWithKeyNames: no keyboard is done at once;
        # on an iPhone only a key named in keyNames hides it (an iPad's own hide key is tapped).
        if not self._phone.keyboard_shown():
            self._focus = None
            return None
        names = body.get("keyNames")
        keys = {e.label for e in self._phone.peek()[0].elements if e.role == "Key"}
        if isinstance(names, list) and keys & {str(n) for n in names}:
            self._focus = None
            self._phone.dismiss_keyboard()
            return None
        raise _WdaFailure(
            400,
            "invalid element state",
            "Did not know how to dismiss the keyboard. Try to dismiss it in the way supported by your "
            "application under test.",
        )

    @_serves("POST", "/wda/device/appearance")
    async def _set_appearance(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        name = str(body.get("name", "")).lower()
        if name not in ("light", "dark"):
            raise _WdaFailure(400, "invalid argument", "The appearance name must be either 'light' or 'dark'")
        self._device.appearance = name

    @_serves("GET", "/wda/device/location")
    async def _location(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        # Without the location permission WDA reads zeros; 0 is "not determined".
        return {"authorizationStatus": 0, "latitude": 0, "longitude": 0, "altitude": 0}

    @_serves("GET", "/wda/simulatedLocation")
    async def _get_simulated_location(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        where = self._device.location
        if where is None:
            return {"latitude": None, "longitude": None, "altitude": None}
        return {"latitude": where[0], "longitude": where[1], "altitude": 0}

    @_serves("POST", "/wda/simulatedLocation")
    async def _set_simulated_location(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        latitude, longitude = body.get("latitude"), body.get("longitude")
        if not (isinstance(latitude, int | float) and isinstance(longitude, int | float)):
            raise _WdaFailure(400, "invalid argument", "Both latitude and longitude must be provided")
        if not (_is_number(latitude) and _is_number(longitude)):
            raise _WdaFailure(400, "invalid argument", "Both latitude and longitude must be provided")
        self._device.location = (float(latitude), float(longitude))

    @_serves("DELETE", "/wda/simulatedLocation")
    async def _clear_simulated_location(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        self._device.location = None

    @_serves("POST", "/wda/setPasteboard")
    async def _set_pasteboard(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        try:
            content = base64.b64decode(str(body.get("content", "")), validate=False)
        except ValueError as exc:
            raise _WdaFailure(400, "invalid argument", "Cannot decode the pasteboard content from base64") from exc
        self._device.pasteboard[str(body.get("contentType") or "plaintext")] = content

    @_serves("POST", "/wda/getPasteboard")
    async def _get_pasteboard(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        content = self._device.pasteboard.get(str(body.get("contentType") or "plaintext"), b"")
        return base64.b64encode(content).decode("ascii")

    @_serves("POST", "/wda/expectNotification")
    async def _expect_notification(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        name, kind, timeout = body.get("name"), body.get("type", "plain"), body.get("timeout", 60)
        if name is None:
            raise _WdaFailure(400, "invalid argument", "Notification name argument must be provided")
        if kind not in ("plain", "darwin"):
            raise _WdaFailure(
                400, "invalid argument", f"Notification type could only be 'plain' or 'darwin'. Got '{kind}' instead"
            )
        await self._phone.clock.sleep(float(timeout) if _is_number(timeout) else 60.0)  # nothing is ever posted
        raise _WdaFailure(408, "timeout", f"Did not receive any expected {name} notifications within {timeout}s")

    @_serves("POST", "/wda/performAccessibilityAudit")
    async def _audit(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        return self._audit_reply(body.get("auditTypes"))

    def _audit_reply(self, asked: Any) -> list[dict[str, Any]]:
        """Rule 15: the app script's findings for the screen in front, as WDA's audit reply."""
        names = {audit_type_name(t): t for t in AUDIT_TYPES}
        wanted: list[str] = []
        for value in asked if isinstance(asked, list) and asked else ["XCUIAccessibilityAuditTypeAll"]:
            if value != "XCUIAccessibilityAuditTypeAll" and value not in names:
                known = ", ".join(["XCUIAccessibilityAuditTypeAll", *names])
                raise _WdaFailure(
                    400,
                    "invalid argument",
                    f"Audit type value '{value}' is not known. Only the following audit types are supported: ({known})",
                )
            wanted.append(value)
        if self._script.device.ios_major < AUDIT_SINCE_IOS:
            raise _WdaFailure(
                500,
                "unknown error",
                'Error Domain=com.facebook.WebDriverAgent Code=1 "Accessibility audit is only supported since '
                'iOS 17/Xcode 15" UserInfo={NSLocalizedDescription=Accessibility audit is only supported since '
                "iOS 17/Xcode 15}",
            )
        types = () if "XCUIAccessibilityAuditTypeAll" in wanted else tuple(names[w] for w in wanted)
        screen, _nodes = self._phone.peek()
        front = screen.app
        report = audit_of(self._script, front, self._phone.screen_name(front), screen, types)
        tree = self._raw_tree(screen)
        return [_audit_issue(issue, tree) for issue in report.issues]  # an app that declares none: none found

    @_serves("POST", "/wda/performIoHidEvent", "/wda/siri/activate")
    async def _carried_out(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return None  # carried out; nothing an app script shows answers it

    @_serves("POST", "/wda/resetAppAuth")
    async def _reset_auth(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if body.get("resource") is None:
            raise _WdaFailure(
                400,
                "invalid argument",
                "The 'resource' argument must be set to a valid resource identifier (numeric value). See "
                "https://developer.apple.com/documentation/xctest/xcuiprotectedresource?language=objc",
            )

    @_serves("POST", "/wda/touch_id")
    async def _touch_id(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if self.script.device.kind is not DeviceKind.SIMULATOR:  # only a simulator can fake a finger
            match = "" if body.get("match") else "non-"
            raise _WdaFailure(500, "unknown error", f"Cannot perform Touch Id {match}match")

    @_serves("POST", "/wda/apps/launchUnattached")
    async def _launch_unattached(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        bundle = body.get("bundleId")
        if not isinstance(bundle, str) or bundle not in self.script.apps:
            raise _WdaFailure(500, "unknown error", "LSApplicationWorkspace failed to launch app")
        await self._launch(bundle, [], {})

    @_serves("GET", "/wda/video")
    async def _video(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return self._device.video

    @_serves("POST", "/wda/video/start")
    async def _video_start(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if self._device.video is None:
            fps, codec = body.get("fps", 24), body.get("codec", 0)
            started = round(self._phone.clock.now() * 1000)
            self._device.video = {"fps": fps, "codec": codec, "uuid": str(uuid.uuid4()).upper(), "startedAt": started}
        return self._device.video

    @_serves("POST", "/wda/video/stop")
    async def _video_stop(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        video, self._device.video = self._device.video, None
        return video

    @_serves("POST", "/wda/voiceOver/enable")
    async def _voiceover_on(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        self._device.voiceover = True

    @_serves("POST", "/wda/voiceOver/disable")
    async def _voiceover_off(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        self._device.voiceover = False

    @_serves("GET", "/wda/voiceOver/enabled")
    async def _voiceover_enabled(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return {"enabled": self._device.voiceover}

    @_serves("GET", "/wda/voiceOver/currentSpeech")
    async def _voiceover_speech(self, _body: dict[str, Any], _query: dict[str, str]) -> Any:
        return {"utterance": None}

    @_serves("POST", "/wda/voiceOver/move")
    async def _voiceover_move(self, body: dict[str, Any], _query: dict[str, str]) -> Any:
        if body.get("direction") is None:
            raise _WdaFailure(400, "invalid argument", "The 'direction' argument must be provided")
        return {"utterance": None}


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


@attrs.define
class _DeviceState:
    """What the device keeps beyond its screen, as WDA's routes set it (Rule 13)."""

    appearance: str = "light"
    location: tuple[float, float] | None = None
    pasteboard: dict[str, bytes] = attrs.field(factory=dict)
    voiceover: bool = False
    video: dict[str, Any] | None = None


#: A swipe's direction, as WDA names it, to the phone's op.
_DIRECTIONS = {"up": Op.SWIPE_UP, "down": Op.SWIPE_DOWN, "left": Op.SWIPE_LEFT, "right": Op.SWIPE_RIGHT}
#: The element attributes WDA reads by name (``XCUIElement+FBWebDriverAttributes``), and the JSON key.
_ATTRIBUTES = {
    "label": "label",
    "value": "value",
    "name": "name",
    "type": "type",
    "enabled": "isEnabled",
    "visible": "isVisible",
    "displayed": "isVisible",
    "accessible": "isAccessible",
    "focused": "isFocused",
    "selected": "traits",
    "rect": "rect",
    "frame": "frame",
    "placeholderValue": "placeholderValue",
    "traits": "traits",
}


def _attribute(node: Mapping[str, Any], name: str) -> Any:
    """``GET /element/:uuid/attribute/:name`` (``fb_valueForWDAttributeName``); an unknown name is refused."""
    key = _ATTRIBUTES.get(name.removeprefix("wd").lower() if name.startswith("wd") else name)
    if key is None:
        valid = ", ".join(sorted(_ATTRIBUTES))
        raise _WdaFailure(
            400, "invalid argument", f"The attribute '{name}' is unknown. Valid attribute names are: ({valid})"
        )
    if key == "type":
        return _PREFIX + str(node["type"])
    if key == "traits" and name == "selected":
        return "Selected" in _node_traits(node)
    if key.startswith("is"):
        return "true" if _node_flag(node, key, default=key == "isEnabled") else "false"
    value = node.get(key)
    return dict(value) if isinstance(value, Mapping) else value


def _point(target: _Target, body: Mapping[str, Any]) -> tuple[float, float]:
    """Where a gesture lands: ``x``/``y`` from the target's top-left, else its middle (``FBElementCommands``)."""
    if "x" not in body and "y" not in body:
        return target.centre
    if "x" not in body or "y" not in body:
        raise _WdaFailure(400, "invalid argument", "Both x and y coordinates must be provided")
    x, y = _xy(body)
    left, top, _, _ = target.rect
    return left + x, top + y


def _accessibility_tree(node: Mapping[str, Any]) -> dict[str, Any]:
    """``fb_accessibilityTree``: the accessible elements only, each with the accessible ones under it."""
    out: dict[str, Any] = {k: node.get(k) for k in ("type", "label", "name", "value", "rawIdentifier")}
    out["rect"] = dict(node.get("rect", {}))
    children: list[dict[str, Any]] = []
    for child in node.get("children", []):
        sub = _accessibility_tree(child)
        if _node_flag(child, "isAccessible", default=False):
            children.append(sub)
        else:
            children.extend(sub.get("children", []))
    if children:
        out["children"] = children
    return out


def _walk_paths(tree: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The root (``/0``), then its descendants in tree order, each with its index path."""
    stack = [("/0", tree)]
    while stack:
        path, node = stack.pop()
        yield path, node
        children = node.get("children", [])
        stack.extend((f"{path}/{i}", child) for i, child in reversed(list(enumerate(children))))


def _node_at(tree: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The node at an index path (``/0/2/1``), None when there is none."""
    node: dict[str, Any] | None = tree
    for index in path.split("/")[2:]:
        children = node.get("children", []) if node is not None else []
        position = int(index)
        node = children[position] if 0 <= position < len(children) else None
    return node


def _walk(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The root, then its descendants in tree order (no recursion)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.get("children", [])))


def _xml(tree: Mapping[str, Any], excluded: frozenset[str]) -> str:
    """WDA's XML source: ``XCUIElementType`` tags, attributes in the captures' order (Rule 4)."""
    gone = {_XML_KEYS[a] for a in excluded if a in _XML_KEYS}

    def build(node: Mapping[str, Any], index: int, is_root: bool) -> ET.Element:
        tag = _PREFIX + str(node["type"])
        rect = node.get("rect", {})
        attributes: dict[str, str] = {"type": tag}
        for key in ("value", "name", "label"):
            if node.get(key) is not None:
                attributes[key] = str(node[key])
        for key, name in (("isEnabled", "enabled"), ("isVisible", "visible"), ("isAccessible", "accessible")):
            if key in node:
                attributes[name] = "true" if node[key] == "1" else "false"
        for key in ("x", "y", "width", "height"):
            attributes[key] = str(rect.get(key, 0))
        attributes["index"] = str(index)
        if node.get("placeholderValue") is not None:
            attributes["placeholderValue"] = str(node["placeholderValue"])
        if "traits" in node:
            attributes["traits"] = str(node["traits"])
        if is_root:
            for key in ("processId", "bundleId"):
                if node.get(key) is not None:
                    attributes[key] = str(node[key])
        for name in gone:
            attributes.pop(name, None)
        element = ET.Element(tag, attributes)
        for i, child in enumerate(node.get("children", [])):
            element.append(build(child, i, is_root=False))
        return element

    root = build(tree, 0, is_root=True)
    return '<?xml version="1.0" encoding="UTF-8"?>' + ET.tostring(root, encoding="unicode")


def _trait_names(e: Element) -> str:
    names = set(_ROLE_TRAITS.get(e.role, ()))
    if e.selected:
        names.add("Selected")
    if not e.enabled:
        names.add("NotEnabled")
    return ", ".join(t for t in _TRAIT_ORDER if t in names)


def _node_flag(node: Mapping[str, Any], key: str, *, default: bool) -> bool:
    value = node.get(key)
    return default if value is None else str(value) == "1"


def _node_traits(node: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(t.strip() for t in str(node.get("traits") or "").split(",") if t.strip())


def _node_visible(node: Mapping[str, Any]) -> bool:
    if "isVisible" in node:
        return str(node["isVisible"]) == "1"
    rect = node.get("rect", {})  # a capture without the flag: only what has an area can show
    return bool(rect.get("width", 0)) and bool(rect.get("height", 0))


def _matcher(using: str, value: str, reads: list[int]) -> Callable[[Mapping[str, Any]], bool]:
    """Rule 9: a test for one locator strategy; ``reads`` counts visibility reads."""
    if using == "predicate string":
        predicate = _predicate(value)
        return lambda node: predicate.matches(_lookup(node, reads))
    if using == "class name":
        return lambda node: _PREFIX + str(node["type"]) == value
    if using in ("accessibility id", "id", "name"):
        return lambda node: value in (node.get("rawIdentifier"), node.get("label"))
    if using in ("xpath", "class chain", "link text", "partial link text"):
        raise _WdaFailure(500, "unknown error", f"the fake WebDriverAgent doesn't evaluate the {using!r} locator")
    raise _WdaFailure(400, "invalid selector", f"Invalid locator requested: {using}")


def _predicate(text: str) -> Predicate:
    try:
        predicate = parse_predicate(text)
    except PredicateError as exc:
        raise _WdaFailure(400, "invalid selector", str(exc)) from exc
    for key in predicate.keys:
        bare = _bare_key(key)
        if bare in _UNEVALUATED_KEYS:
            raise _WdaFailure(500, "unknown error", f"the fake WebDriverAgent doesn't evaluate the {key!r} key")
        if bare not in _PREDICATE_KEYS:
            valid = sorted({*_PREDICATE_KEYS, *_UNEVALUATED_KEYS})
            raise _WdaFailure(
                400,
                "invalid selector",
                f"The key '{key}' is unknown in '{text}' predicate expression. Valid keys are: {valid}",
            )
    return predicate


def _bare_key(key: str) -> str:
    """``wdLabel`` and ``isWDVisible`` are ``label`` and ``visible`` (WDA's shortcuts)."""
    for prefix in ("isWD", "wd"):
        if key.startswith(prefix) and len(key) > len(prefix):
            rest = key[len(prefix) :]
            return rest if rest.isupper() else rest[0].lower() + rest[1:]
    return key


def _lookup(node: Mapping[str, Any], reads: list[int]) -> Callable[[str], Any]:
    def get(key: str) -> Any:
        bare = _bare_key(key)
        if bare == "type":
            return _PREFIX + str(node["type"])
        if bare in ("name", "label", "value", "placeholderValue", "traits"):
            return node.get(bare)
        if bare == "visible":
            reads[0] += 1
            return _node_visible(node)
        if bare == "enabled":
            return _node_flag(node, "isEnabled", default=True)
        if bare == "accessible":
            if "isAccessible" not in node:
                raise _WdaFailure(500, "unknown error", "the served tree doesn't record 'accessible'")
            return _node_flag(node, "isAccessible", default=False)
        if bare == "selected":
            return "Selected" in _node_traits(node)
        raise _WdaFailure(500, "unknown error", f"the fake WebDriverAgent doesn't evaluate the {key!r} key")

    return get


def _bundle(body: Mapping[str, Any]) -> str:
    bundle = body.get("bundleId")
    if not isinstance(bundle, str) or not bundle:
        raise _WdaFailure(400, "invalid argument", "'bundleId' is required")
    return bundle


def _xy(body: Mapping[str, Any], x: str = "x", y: str = "y") -> tuple[float, float]:
    vx, vy = body.get(x), body.get(y)
    if isinstance(vx, int | float) and isinstance(vy, int | float) and _is_number(vx) and _is_number(vy):
        return float(vx), float(vy)
    raise _WdaFailure(400, "invalid argument", f"'{x}' and '{y}' must be numbers")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _read_pointer(actions: Any) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """The first pointer's gesture: where it went down, where it came up, how long it was down."""
    if not isinstance(actions, list):
        raise _WdaFailure(400, "invalid argument", "'actions' must be a list of input sources")
    for source in actions:
        if not isinstance(source, Mapping) or source.get("type") != "pointer":
            continue
        steps = source.get("actions")
        if not isinstance(steps, list):
            raise _WdaFailure(400, "invalid argument", "a pointer's 'actions' must be a list")
        return _gesture(steps)
    return None


def _gesture(steps: Sequence[Any]) -> tuple[tuple[float, float], tuple[float, float], float]:
    position: tuple[float, float] | None = None
    down: tuple[float, float] | None = None
    up: tuple[float, float] | None = None
    held = 0.0
    for step in steps:
        if not isinstance(step, Mapping):
            raise _WdaFailure(400, "invalid argument", "each pointer action must be an object")
        kind = step.get("type")
        duration = step.get("duration", 0)
        if kind == "pointerMove":
            position = _xy(step)
            if down is not None and _is_number(duration):
                held += float(duration)
        elif kind == "pointerDown":
            if position is None:
                raise _WdaFailure(400, "invalid argument", "pointerDown before any pointerMove")
            down = position
        elif kind == "pause":
            if down is not None and _is_number(duration):
                held += float(duration)
        elif kind == "pointerUp":
            up = position
            break
        else:
            raise _WdaFailure(400, "invalid argument", f"unknown pointer action type {kind!r}")
    if down is None or up is None:
        raise _WdaFailure(400, "invalid argument", "a pointer gesture needs a pointerDown and a pointerUp")
    return down, up, held


# -- wire helpers -----------------------------------------------------------------------------


def _envelope(value: Any, session: str | None) -> bytes:
    return json.dumps({"value": value, "sessionId": session}, ensure_ascii=False).encode("utf-8")


def _error(failure: _WdaFailure) -> dict[str, str]:
    return {"error": failure.error, "message": failure.message, "traceback": ""}


def _frame_string(x: float, y: float, w: float, h: float) -> str:
    return f"{{{{{x}, {y}}}, {{{w}, {h}}}}}"


# -- python -m mobster_drivers.testing.wda ------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Serve an app script or a captured tree over WDA; print the URL first; stop on Ctrl-C or lifetime."""
    parser = argparse.ArgumentParser(
        prog="python -m mobster_drivers.testing.wda",
        description="Serve a scripted phone, or a captured WDA source tree, over the WebDriverAgent protocol "
        "on 127.0.0.1.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--app", help="the app script (YAML) the phone runs")
    what.add_argument("--tree", help="a captured WDA source (GET /source, XML or JSON) served as a static app")
    parser.add_argument("--bundle", help="with --tree: the app's bundle id (default: the XML root's bundleId)")
    parser.add_argument("--ios", default="26.4", help="with --tree: the iOS version /status reports (default 26.4)")
    parser.add_argument(
        "--costs", action="store_true", help="hold replies as long as real WDA takes (the model in docs/benchmarks.md)"
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument(
        "--lifetime", type=float, default=3600.0, help="stop after this many seconds (default 3600; 0: never)"
    )
    parser.add_argument(
        "--concurrent", action="store_true", help="answer requests at once (real WDA serves one at a time)"
    )
    args = parser.parse_args(argv)
    if args.app is not None and (args.bundle is not None or args.ios != "26.4"):
        parser.error("--bundle and --ios go with --tree")
    costs = ReadCosts() if args.costs else None

    def make() -> FakeWda:
        lifetime = args.lifetime or None
        if args.tree is not None:
            return FakeWda(
                tree=args.tree,
                bundle=args.bundle,
                ios=args.ios,
                costs=costs,
                port=args.port,
                lifetime=lifetime,
                one_at_a_time=not args.concurrent,
            )
        return FakeWda(args.app, costs=costs, port=args.port, lifetime=lifetime, one_at_a_time=not args.concurrent)

    def serving(fake: FakeWda) -> str:
        served = f"the tree {args.tree} as {fake.static_bundle}" if args.tree is not None else args.app
        return f"{served} over WebDriverAgent"

    return serve_from_shell(make, name="WDA", serving=serving)


if __name__ == "__main__":
    sys.exit(main())
