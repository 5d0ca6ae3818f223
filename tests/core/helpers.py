"""Small builders shared by the core tests."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from typing import Any

import pytest

import mobster_core as mc
from mobster_core._rules.replay.matcher import position
from mobster_drivers.devices.scripted import ScriptedPhone

APP = "com.example.yourapp"
#: A wall-clock time for files that record one (it never decides anything).
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

SIGNUP_ELEMENTS: list[dict[str, Any]] = [
    {"role": "StaticText", "label": "Create your account", "frame": [0.1, 0.1, 0.8, 0.05]},
    {"role": "TextField", "label": "Email", "id": "email", "frame": [0.1, 0.3, 0.8, 0.06]},
    {"role": "Button", "label": "Continue", "frame": [0.1, 0.8, 0.8, 0.06]},
]


def screen(elements: list[dict[str, Any]], app: str = APP) -> mc.Screen:
    return mc.Screen.from_dict({"app": app, "elements": elements})


def step_on(
    s: mc.Screen,
    op: str = "TAP",
    label: str | None = "Continue",
    role: str = "Button",
    text: str | None = None,
    live: bool = False,
    commit: str | None = None,
) -> mc.Step:
    """A step recorded on screen ``s`` acting on the element with ``label`` and ``role``."""
    target = None
    if label is not None:
        found = [e for e in s.elements if e.label == label and e.role == role]
        shown = {f.path for f in s.shown}
        e = ([f for f in found if f.path in shown] or found)[0]  # Smart acts on shown elements
        count, nth = position(s, e)
        target = {"label": e.label, "role": e.role, "id": e.path, "frame": list(e.frame), "count": count, "nth": nth}
    return mc.Step.from_dict(
        {
            "op": op,
            "app": s.app,
            "target": target,
            "screen": {"hash": s.hash, "signature": s.signature},
            "text": text,
            "commit": commit,
            "live": live,
        }
    )


def owned_by_another_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, every regular file the process opens says it belongs to another user."""
    real = os.fstat

    def foreign(fd: int) -> os.stat_result:
        st = real(fd)
        if not stat.S_ISREG(st.st_mode):
            return st
        fields = list(st)[:10]
        fields[stat.ST_UID] = st.st_uid + 1
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", foreign)


class LostSecondTap(ScriptedPhone):
    """The scripted phone, but its second action's reply never comes: that action's outcome is unknown."""

    taps = 0

    async def act(self, action: mc.Action) -> None:
        self.taps += 1
        if self.taps == 2:
            raise mc.UnknownOutcome("the tap's reply never came")
        await super().act(action)
