"""The fake Appium hub's phones of another platform: nodes it relays sessions to, as Grid 4 relays to Appium.

A Selenium Grid 4 node with a ``[relay]`` section forwards each session it is given to the
Appium server behind it, byte for byte, and the hub only matches and queues (``_grid``). The fake
hub (``appium`` Rule 9) keeps its iPhones in process, and holds each Android phone as a
:class:`Node`: a server of its own that serves the session, made by a :data:`NodeFactory`, one per
platform, so the hub needs nothing from the Android session code but a URL and a stereotype.

Rule 1: a node's stereotype is what a Grid relay config offers for one phone: ``platformName``,
        ``appium:automationName``, ``appium:deviceName``, ``appium:platformVersion`` (Android's
        release, ``"14"``, as UiAutomator2 reports it) and ``appium:udid`` (the serial).
Rule 2: :func:`appium_node` is an Appium server of one phone (:class:`~.appium.FakeAppium` of an
        Android script: the fake Appium's Android sessions, ``_appium_android``); :func:`uiautomator2_node` is
        the phone's UiAutomator2 server itself, the stand-in the hub's tests match against (it takes
        a session and serves its source, not Appium's ``mobile:`` methods). A factory that can't
        serve its script raises ``ValueError`` when the hub is made, never later.
Rule 3 (the relay): a command of a relayed session is sent to the node as it came (method, path
        under the base, body, content type) and its reply goes back as it came (status, body,
        content type), as Grid's ``ReverseProxyHandler`` passes them; a node that doesn't answer
        within the proxy timeout, or drops the connection, is 500 ``unknown error`` with the
        cause, as the hub says it (Grid: "Unable to execute request: …").
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mobster_drivers.devices.scripted import AppScript

from ._appium_mobile import Failure

if TYPE_CHECKING:
    from .uiautomator2 import FakeUiAutomator2

__all__ = ["Node", "NodeFactory", "appium_node", "relay", "stereotype_of", "uiautomator2_node"]


class Node(Protocol):
    """**Protocol:** one phone behind the hub that serves its own sessions (Rule 1), started and stopped by it."""

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``: where its ``/session`` routes live."""
        ...

    @property
    def stereotype(self) -> Mapping[str, Any]:
        """What the node offers, as a Grid relay config names it (Rule 1)."""
        ...

    def start(self) -> None:
        """Serve (the hub starts its nodes with itself)."""
        ...

    def stop(self) -> None:
        """Stop serving; twice is safe."""
        ...


#: Makes the node of one phone: the app script it runs, and its place among its platform's phones.
NodeFactory = Callable[[AppScript, int], Node]


def stereotype_of(script: AppScript, udid: str) -> dict[str, Any]:
    """Rule 1: the stereotype of a phone that runs ``script``, named ``udid`` (an iPhone's or an Android one's)."""
    device = script.device
    if script.platform.value == "android":
        return {
            "platformName": "Android",
            "appium:automationName": "UiAutomator2",
            "appium:deviceName": device.name,
            "appium:platformVersion": device.release or device.ios,
            "appium:udid": udid,
        }
    return {
        "platformName": "iOS",
        "appium:automationName": "XCUITest",
        "appium:deviceName": device.name,
        "appium:platformVersion": device.ios,
        "appium:udid": udid,
    }


def android_serial(index: int) -> str:
    """The serial of the hub's ``index``-th Android phone: an emulator's, as adb numbers them (5554, 5556, …)."""
    return f"emulator-{5554 + 2 * index}"


class _Uia2Node:
    """Rule 2: a phone's UiAutomator2 server as the hub's node."""

    def __init__(self, server: FakeUiAutomator2, script: AppScript, serial: str) -> None:
        self.server = server
        self._stereotype = stereotype_of(script, serial)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def stereotype(self) -> Mapping[str, Any]:
        return self._stereotype

    def start(self) -> None:
        self.server.start()

    def stop(self) -> None:
        self.server.stop()


def uiautomator2_node(script: AppScript, index: int) -> Node:
    """Rule 2: the fake UiAutomator2 server of an Android phone, as the node the hub relays to."""
    from .uiautomator2 import FakeUiAutomator2

    serial = android_serial(index)
    return _Uia2Node(FakeUiAutomator2(script, serial=serial), script, serial)


class _AppiumNode:
    """Rule 2: an Appium server of one phone as the hub's node (and the Android device it fronts, if any)."""

    def __init__(self, server: Any, device: FakeUiAutomator2 | None = None) -> None:
        self.server = server
        self._device = device

    @property
    def url(self) -> str:
        return str(self.server.url)

    @property
    def stereotype(self) -> Mapping[str, Any]:
        return stereotype_of(self.server.script, self.server.udids[0])

    def start(self) -> None:
        if self._device is not None:
            self._device.start()
        self.server.start()

    def stop(self) -> None:
        self.server.stop()
        if self._device is not None:
            self._device.stop()


def appium_node(script: AppScript, index: int) -> Node:
    """Rule 2: a fake Appium server of one phone that runs ``script``; an Android one's serial is ``index``'s."""
    from .appium import FakeAppium

    if script.platform.value != "android":
        return _AppiumNode(FakeAppium(script, lifetime=None))
    from .uiautomator2 import FakeUiAutomator2

    device = FakeUiAutomator2(script, serial=android_serial(index), lifetime=None)
    return _AppiumNode(FakeAppium(uia2=device, lifetime=None), device)


def relay(node: Node, method: str, path: str, body: bytes, timeout: float) -> tuple[int, bytes, str]:
    """Rule 3: one request relayed to ``node`` as it came: its reply's status, body and content type."""
    address = node.url.removeprefix("http://").split("/", 1)[0]
    host, _, port = address.rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    headers = {"Content-Type": "application/json; charset=utf-8"} if body else {}
    try:
        connection.request(method, path, body=body or None, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("Content-Type") or "application/json"
    except TimeoutError as exc:
        raise Failure(500, "unknown error", f"Unable to execute request: timeout of {round(timeout * 1000)}ms") from exc
    except (OSError, http.client.HTTPException) as exc:
        raise Failure(500, "unknown error", f"Unable to execute request: {type(exc).__name__}: {exc}") from exc
    finally:
        connection.close()


def new_session_value(status: int, raw: bytes) -> dict[str, Any]:
    """The ``{"sessionId", "capabilities"}`` a node answered a new session with, or Grid's refusal of its error."""
    try:
        reply = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        reply = None
    value = reply.get("value") if isinstance(reply, dict) else None
    if status >= 400 or not isinstance(value, dict) or isinstance(value.get("error"), str):
        said = value.get("message") if isinstance(value, dict) else None
        raise Failure(
            500,
            "session not created",
            f"Could not start a new session. Response code {status}. Message: {said or 'the node gave no session'}",
        )
    session = value.get("sessionId") or (reply.get("sessionId") if isinstance(reply, dict) else None)
    caps = value.get("capabilities", {k: v for k, v in value.items() if k != "sessionId"})
    if not isinstance(session, str) or not session:
        raise Failure(500, "session not created", "Could not start a new session. The node gave no session id")
    return {"capabilities": caps if isinstance(caps, dict) else {}, "sessionId": session}
