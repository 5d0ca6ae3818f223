"""What a WebDriverAgent session is set up with (how an action is named in messages: ``gestures``).

Shared by the WDA device and the Appium device (the XCUITest driver proxies to the same WDA).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SESSION_SETTINGS"]

#: The settings applied to that session (Rule 4): Mobster's, without the two WDA 9 removed, and
#: element replies that say which element they are.
SESSION_SETTINGS: Mapping[str, Any] = {
    "snapshotMaxDepth": 60,
    "waitForIdleTimeout": 0,
    "animationCoolOffTimeout": 0,
    "shouldUseCompactResponses": False,
    "elementResponseAttributes": "type,label,rect",
}
