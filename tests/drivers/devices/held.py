"""A reply held forever on a WebDriverAgent that serves one request at a time, as a driver meets it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

import mobster_core as mc


def every_read_times_out_saying_what_to_do(read: Callable[[], Coroutine[Any, Any, Any]], start: str, fix: str) -> None:
    """The held read, then one queued behind it: each a ``DeviceError`` at its 0.25 s timeout, never a hang.

    Each message starts with ``start`` (the device and the endpoint), says that WDA serves one
    request at a time and what to do (``fix``), and is no unknown outcome: a read did nothing.
    """
    for _ in range(2):
        with pytest.raises(mc.DeviceError, match=r"no reply within 0\.25 s") as caught:
            asyncio.run(read())
        message = str(caught.value)
        assert message.startswith(start)
        assert "serves one request at a time" in message
        assert fix in message
        assert not isinstance(caught.value, mc.UnknownOutcome)
