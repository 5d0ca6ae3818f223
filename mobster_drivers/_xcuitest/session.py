"""What a WebDriverAgent session is set up with, and how an action is named in messages.

Shared by the WDA device and the Appium device (the XCUITest driver proxies to the same WDA).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mobster_core import Action, Op

__all__ = ["SESSION_SETTINGS", "describe_action"]

#: The settings applied to that session (Rule 4): Mobster's, without the two WDA 9 removed, and
#: element replies that say which element they are.
SESSION_SETTINGS: Mapping[str, Any] = {
    "snapshotMaxDepth": 60,
    "waitForIdleTimeout": 0,
    "animationCoolOffTimeout": 0,
    "shouldUseCompactResponses": False,
    "elementResponseAttributes": "type,label,rect",
}


def describe_action(action: Action) -> str:
    """``TAP on Button 'Continue'``, ``typing into TextField 'Email'``, ``LAUNCH_APP com.example.app``."""
    element = action.element
    if element is not None:
        target = f"{element.role} {element.label!r}" if element.label else f"{element.role} at {element.path}"
        if action.op is Op.TYPE:
            return f"typing into {target}"
        return f"{action.op.value} on {target}"
    if action.text is not None and action.op is not Op.TYPE:
        return f"{action.op.value} {action.text}"
    return action.op.value
