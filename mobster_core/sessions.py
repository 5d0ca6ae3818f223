"""Live sessions: drive one device from outside a run, and make a check of what was done.

A :class:`LiveSession` is what ``mobster mcp`` serves an agent: it reads the settled screen, sends
one action at a time through the same safety rules, journal and effect ledger as a run, and, once
``start_recording`` launched the app, records each action as a step. ``record(name, expect)``
judges the current screen by the expectations and, on a pass only, writes the check file
(``.mobster/checks/``) and its recorded path, which ``mobster test`` then replays with no model.
``replay(check, until=N)`` reaches the screen a check's recorded path leads to (after its step N),
at $0, as ``mobster test --no-heal`` replays it (:class:`Reached`): what ``mobster inspect
--after`` stands on. See ``docs/mcp.md`` and ``docs/inspect.md``.
"""

from ._run.session import (
    Acted,
    ActionRefused,
    LiveSession,
    NoRecordedPath,
    NotInPath,
    Reached,
    RecordedCheck,
    SessionEnded,
    SessionError,
)

__all__ = [
    "Acted",
    "ActionRefused",
    "LiveSession",
    "NoRecordedPath",
    "NotInPath",
    "Reached",
    "RecordedCheck",
    "SessionEnded",
    "SessionError",
]
