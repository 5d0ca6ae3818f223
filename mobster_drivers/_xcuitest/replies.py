"""What WebDriverAgent's replies must be, and how their failures are worded: for the WDA and Appium devices.

Pure: no I/O. Each device sends its own requests (WDA's endpoints, Appium's commands) and maps its
own transport's exceptions; what a reply must look like and the words a failure is told in are
here, once, so a user reads the same sentence whichever driver failed.

Rule 1 (screenshots): a screenshot is base64 text of a PNG; anything else is a ``DeviceError``
        naming the server.
Rule 2 (sizes): a window size is an object with a positive ``width`` and ``height`` (points,
        rounded to whole points); anything else is a ``DeviceError`` quoting at most 80
        characters of the reply.
Rule 3 (kinds): ``isSimulator`` (``/wda/device/info``, ``mobile: deviceInfo``) is a boolean, or
        ``1``/``0`` as a number or a string; anything else says nothing.
Rule 4 (wording): a request that was never sent says "nothing was sent" and asks whether the
        server runs; a read that failed says how (a bad reply, no reply, or the server's error);
        an action the server refused says so; an action whose outcome is unknown says it may or
        may not have happened and that it was not sent again.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any, Literal

from mobster_core import DeviceError

__all__ = [
    "IOS_VERSION",
    "Failed",
    "failed_read",
    "not_answering",
    "positive",
    "refused",
    "screenshot_png",
    "simulator_flag",
    "unknown_outcome",
    "window_size",
]

#: An iOS version as a device reports it: ``26``, ``26.4``, ``18.6.2``.
IOS_VERSION = re.compile(r"[0-9]+(\.[0-9]+){0,2}")
_PNG = b"\x89PNG\r\n\x1a\n"
#: How a request that is not an action failed (Rule 4).
Failed = Literal["bad reply", "no reply", "error"]


def screenshot_png(value: Any, where: str) -> bytes:
    """The PNG bytes of a screenshot reply's value (Rule 1)."""
    if not isinstance(value, str):
        raise DeviceError(f"{where} sent a screenshot that is not base64 text")
    try:
        png = base64.b64decode(value, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise DeviceError(f"{where} sent a screenshot that is not base64") from exc
    if not png.startswith(_PNG):
        raise DeviceError(f"{where} sent a screenshot that is not a PNG")
    return png


def window_size(value: Any, where: str, what: str) -> tuple[int, int]:
    """A window size in whole points (Rule 2); ``what`` names the reply (``a window size``)."""
    if isinstance(value, Mapping):
        width, height = positive(value.get("width")), positive(value.get("height"))
        if width is not None and height is not None:
            return (round(width), round(height))
    raise DeviceError(f"{where} sent {what} that is not a size: {value!r:.80}")


def positive(value: Any) -> float | None:
    """``value`` as a float when it is a positive number (not a boolean), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def simulator_flag(details: Mapping[str, Any]) -> bool | None:
    """What ``isSimulator`` says (Rule 3): True, False, or None when it says nothing usable."""
    flag = details.get("isSimulator")
    if isinstance(flag, bool):
        return flag
    if flag in (1, 0, "1", "0"):
        return flag in (1, "1")
    return None


def not_answering(where: str, endpoint: str, detail: str, *, action: str | None, hint: str) -> str:
    """Nothing was sent (Rule 4): ``hint`` asks whether the server runs (``is WebDriverAgent running there?``)."""
    sent = f"{action}: nothing was sent. " if action else ""
    return f"{sent}{where} isn't answering ({endpoint}: {detail}): {hint}"


def failed_read(where: str, endpoint: str, detail: str, how: Failed, *, hint: str | None = None) -> str:
    """A request that is not an action failed (Rule 4); ``hint``, what to do, follows a missing reply."""
    if how == "bad reply":
        return f"{where} sent a bad reply to {endpoint}: {detail}"
    if how == "no reply":
        return f"{where} didn't answer {endpoint}: {detail}" + (f": {hint}" if hint else "")
    return f"{where}: {endpoint} failed: {detail}"


def refused(action: str, where: str, endpoint: str, detail: str) -> str:
    """The server refused an action: it wasn't done (Rule 4)."""
    return f"{action}: {where} refused {endpoint}: {detail}"


def unknown_outcome(action: str, where: str, kind: str, endpoint: str, detail: str) -> str:
    """An action that may or may not have happened (Rule 4); ``kind`` is what came (``no complete reply``)."""
    return (
        f"{action}: {where} sent {kind} to {endpoint} ({detail}); it may or may not have happened, "
        "and it was not sent again"
    )
