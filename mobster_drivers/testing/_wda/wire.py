"""WDA's wire: the JSON envelope every reply has, and its error replies.

Rule 1: WDA's envelope: every reply is JSON ``{"value": …, "sessionId": …}`` with a
        Content-Length; an error puts ``{"error", "message", "traceback"}`` in ``value`` with
        WDA's HTTP status (404 ``unknown command`` for an unknown route, 404 ``invalid session id``
        "Session does not exist" for a stale session, 404 ``no such element``, ``stale element
        reference`` and ``no such alert``, 400 ``invalid argument``, ``invalid selector`` and
        ``invalid element state``, 408 ``timeout``, 500 ``unknown error``). Checked against
        ``FBCommandStatus`` (error names and HTTP statuses).
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["GARBAGE", "JSON", "LostReply", "WdaFailure", "envelope", "error", "is_number"]

JSON = "application/json;charset=UTF-8"
#: What a reply that is not JSON carries (Rule 6, ``wda``: ``garbage_next_reply``).
GARBAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>"


class WdaFailure(Exception):
    """A WDA error reply (Rule 1)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


class LostReply(Exception):
    """The phone lost the action's reply: the connection is closed without one (Rule 6, ``wda``)."""


def envelope(value: Any, session: str | None) -> bytes:
    """A reply's body (Rule 1)."""
    return json.dumps({"value": value, "sessionId": session}, ensure_ascii=False).encode("utf-8")


def error(failure: WdaFailure) -> dict[str, str]:
    """An error reply's ``value`` (Rule 1)."""
    return {"error": failure.error, "message": failure.message, "traceback": ""}


def is_number(value: Any) -> bool:
    """A JSON number a request may carry: finite, and not a boolean."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
