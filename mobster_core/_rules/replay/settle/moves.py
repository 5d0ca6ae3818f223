"""What a wait asks the loop to do, and what every wait shares (``settle``'s Rules 2, 4 and 10).

A wait's ``next(state, now)`` answers with one :data:`Move`: :class:`Read` now, :class:`Sleep`
until a time, :class:`CheckTarget` an element with the device, or :class:`Done` with the wait's
result. A :class:`Sighting` is the screen in front as the reads so far saw it (Rule 2: settled when
the last two reads agree); :func:`read_at` reads when a time has come, with Rule 10's slack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NoReturn, Protocol, TypeVar

import attrs

from mobster_core._rules.vocabulary.screen import Element, Screen

__all__ = [
    "READ",
    "SLACK",
    "CheckTarget",
    "Done",
    "Move",
    "NoChecks",
    "Read",
    "Sighting",
    "Sleep",
    "Wait",
    "Watch",
    "read_at",
    "sighted",
]

SLACK = 1e-9

S = TypeVar("S")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


@attrs.frozen
class Read:
    """Read the screen now."""


@attrs.frozen
class Sleep:
    """Sleep until ``until`` (clock seconds)."""

    until: float


@attrs.frozen
class CheckTarget:
    """Ask the device whether ``element`` (of the latest read) is shown."""

    element: Element


@attrs.frozen
class Done(Generic[R_co]):
    """Stop: ``result`` is the wait's answer."""

    result: R_co


Move = Read | Sleep | CheckTarget | Done[R]

READ = Read()


class Wait(Protocol[S, R_co]):
    """**Protocol:** a pure wait the loop drives (see the module docstring)."""

    def start(self, now: float, /) -> S:
        """The state of a wait that begins at ``now``."""
        ...

    def next(self, state: S, now: float, /) -> Move[R_co]:
        """What to do now."""
        ...

    def saw(self, state: S, started: float, screen: Screen, /) -> S:
        """Fold in a read that started at ``started`` and returned ``screen``."""
        ...

    def checked(self, state: S, shown: bool, /) -> S:
        """Fold in the device's answer to the last :class:`CheckTarget`."""
        ...


class NoChecks:
    """A wait that never asks for a target check."""

    def checked(self, _state: object, _shown: bool, /) -> NoReturn:
        """Never called: the wait never asks for a check."""
        raise AssertionError(f"{type(self).__name__} never asks for a target check")


@attrs.frozen
class Sighting:
    """The screen in front as the reads so far saw it.

    ``started`` is when the last read started; ``since`` when the first read that returned this
    screen (the same read fingerprint) started; ``settled`` that the last two reads agreed.
    """

    screen: Screen
    started: float
    since: float
    settled: bool = False

    @classmethod
    def first(cls, started: float, screen: Screen) -> Sighting:
        """The sighting of a first read."""
        return cls(screen, started, started)

    def then(self, started: float, screen: Screen) -> Sighting:
        """The sighting after one more read (Rule 2)."""
        same = screen.fingerprint == self.screen.fingerprint
        return Sighting(screen, started, self.since if same else started, same)


def sighted(sighting: Sighting | None, started: float, screen: Screen) -> Sighting:
    return Sighting.first(started, screen) if sighting is None else sighting.then(started, screen)


def read_at(until: float, now: float) -> Read | Sleep:
    """Read now when ``until`` has come (Rule 10), else sleep until it."""
    return READ if until <= now + SLACK else Sleep(until)


#: Given a read and its settle state: None to go on, or the answer that ends the wait.
Watch = Callable[[Sighting], R | None]
