"""Helpers both model adapters use to read replies and to report errors without the key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["count", "detail", "scrub", "show"]


def count(value: Any) -> int:
    """A token count from the reply; None (and anything that is not a count) is 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def detail(body: object, fallback: str) -> str:
    """The server's own message from an error body, else the SDK's, cut to 300 characters."""
    text = fallback
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            text = error["message"]
    return text if len(text) <= 300 else text[:297] + "..."


def scrub(text: str, key: str) -> str:
    return text.replace(key, "<redacted>") if key else text


def show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
