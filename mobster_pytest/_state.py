"""Where the plugin keeps its state: pytest's stash, never a module global (pytester runs many sessions).

Light on purpose: the plugin imports it at start-up, so it imports nothing of Mobster but the
settings (standard library only). What it holds, each under its key:

- the settings read when pytest started (``SETTINGS``);
- this process's session (``SESSION``: the clock, the devices, the models; ``_session`` makes it);
- each test's check runs (``RECORDS``, an item's stash): a :class:`RunRecord` per run, made by
  ``_runs`` and read by the reports (``_reports``, and the plugin's pytest-html hook).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pytest

from ._settings import PluginSettings

if TYPE_CHECKING:
    from mobster_core import CheckResult

__all__ = [
    "RECORDS",
    "SESSION",
    "SETTINGS",
    "Closing",
    "RunRecord",
    "StepFrame",
    "Worker",
    "settings_of",
    "worker_of",
]


@dataclass(frozen=True)
class Worker:
    """This process under xdist: ``index`` is k of ``gw<k>``, ``count`` the number of workers."""

    index: int
    count: int
    name: str


@dataclass(frozen=True)
class StepFrame:
    """The frame of one action: what it was (``step 2 (Tap "Sign up")``), its file, and its step.

    ``step`` is the step's ``index`` (from 1); None for the unfinished action (it has no step).
    ``_reports.step_frames`` makes them; the reports show them.
    """

    what: str
    file: Path
    step: int | None


@dataclass(frozen=True)
class RunRecord:
    """One check run of a test: its result, the project it ran in, and its frames (:class:`StepFrame`).

    ``frames`` holds, for each action the run sent, what it was, the file of the screen it was
    sent on and its step; empty unless a report shows them.
    """

    result: CheckResult
    root: Path
    frames: tuple[StepFrame, ...] = ()


class Closing(Protocol):
    """**Protocol:** what the plugin's end does with the session: close it (``_session.MobsterSession``)."""

    def close(self) -> None:
        """Release the devices and close the loop."""


SETTINGS = pytest.StashKey[PluginSettings]()
SESSION = pytest.StashKey[Closing]()
#: The check runs of one test (an item's stash), for the reports made after it.
RECORDS = pytest.StashKey[list[RunRecord]]()


def settings_of(config: pytest.Config) -> PluginSettings:
    """The settings read when pytest started."""
    return config.stash.get(SETTINGS, PluginSettings())


def worker_of(config: pytest.Config) -> Worker | None:
    """This process's xdist worker (``gw<k>``), or None on the controller or without xdist."""
    workerinput = getattr(config, "workerinput", None)
    if not isinstance(workerinput, dict):
        return None
    name = str(workerinput.get("workerid", "gw0"))
    count = int(workerinput.get("workercount", 1) or 1)
    digits = name.removeprefix("gw")
    # A worker xdist restarts after a crash gets a new number past the last: it takes the slot of
    # the number modulo the count (the lock refuses it a real device another worker still holds).
    index = int(digits) % count if digits.isdigit() else 0
    return Worker(index=index, count=count, name=name)
