"""The UiAutomator2 server's wire: its envelope and its errors (appium-uiautomator2-server 10.6.2).

Rule 1: every reply is JSON ``{"sessionId": <id, or "None">, "value": …}`` with
        ``Content-Type: application/json; charset=utf-8``, ``Pragma: no-cache`` and
        ``Cache-Control: no-store`` (``ServerHandler.java:58-64``, ``AppiumResponse.java:68-71``,
        ``ResponseModel.java:21-33``); ``null`` values are written.
Rule 2: an error puts ``{"error", "message", "stacktrace"}`` in ``value`` with the status of its
        exception (``AppiumResponse.java:41-51``; the table in :data:`STATUS`).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["HEADERS", "JSON", "NO_ID", "STATUS", "Uia2Failure", "envelope", "failure_body"]

JSON = "application/json; charset=utf-8"
HEADERS: tuple[tuple[str, str], ...] = (("Pragma", "no-cache"), ("Cache-Control", "no-store"))
#: ``Session.NO_ID``: a reply outside a session.
NO_ID = "None"

#: Rule 2: the W3C error of each exception the server raises, and its HTTP status.
STATUS: dict[str, int] = {
    "no such element": 404,
    "stale element reference": 404,
    "invalid session id": 404,
    "invalid argument": 400,
    "invalid selector": 400,
    "invalid element state": 400,
    "no such alert": 404,
    "unknown command": 404,
    "unknown method": 405,
    "session not created": 500,
    "unable to capture screen": 500,
    "unknown error": 500,
}

#: A stack trace as the server sends one (an Android one); its text is not parsed by clients.
_STACK = "io.appium.uiautomator2.common.exceptions.UiAutomator2Exception\n\tat io.appium.uiautomator2 (fake)"


class Uia2Failure(Exception):
    """An error reply (Rule 2)."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(message)
        self.error = error
        self.message = message
        self.status = STATUS[error]


def envelope(value: Any, session: str | None) -> bytes:
    """Rule 1."""
    return json.dumps({"sessionId": session or NO_ID, "value": value}, ensure_ascii=False).encode("utf-8")


def failure_body(failure: Uia2Failure, session: str | None) -> bytes:
    """Rule 2."""
    value = {"error": failure.error, "message": failure.message, "stacktrace": _STACK}
    return envelope(value, session)
