"""Where the plugin keeps its state: pytest's stash, never a module global (pytester runs many sessions).

Light on purpose: the plugin imports it at start-up, so it imports nothing of Mobster until a
session is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from ._settings import Settings

if TYPE_CHECKING:
    from ._session import MobsterSession, RunRecord

__all__ = [
    "RECORDS",
    "SESSION",
    "SETTINGS",
    "Worker",
    "allure_on",
    "html_on",
    "session_of",
    "settings_of",
    "worker_of",
]


@dataclass(frozen=True)
class Worker:
    """This process under xdist: ``index`` is k of ``gw<k>``, ``count`` the number of workers."""

    index: int
    count: int
    name: str


SETTINGS = pytest.StashKey[Settings]()
SESSION: pytest.StashKey[MobsterSession] = pytest.StashKey()
#: The check runs of one test (an item's stash), for the reports made after it.
RECORDS: pytest.StashKey[list[RunRecord]] = pytest.StashKey()


def settings_of(config: pytest.Config) -> Settings:
    """The settings read when pytest started."""
    return config.stash.get(SETTINGS, Settings())


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


def session_of(config: pytest.Config) -> MobsterSession:
    """This process's Mobster session, made the first time a check or a fixture needs it."""
    session = config.stash.get(SESSION, None)
    if session is None:
        from ._session import MobsterSession

        session = MobsterSession(settings_of(config), worker_of(config))
        config.stash[SESSION] = session
    return session


def allure_on(config: pytest.Config) -> bool:
    """allure-pytest is installed and writing results (``--alluredir``)."""
    # By the option, not the plugin's name: a plugin loaded with ``-p module`` has another name.
    return bool(getattr(config.option, "allure_report_dir", None))


def html_on(config: pytest.Config) -> bool:
    """pytest-html is installed and writing a report (``--html``)."""
    return bool(getattr(config.option, "htmlpath", None))
