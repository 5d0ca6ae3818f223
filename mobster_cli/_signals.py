"""How a long-lived command stops: one rule for Ctrl+C (SIGINT) and SIGTERM.

``mobster test``, ``verify``, ``inspect`` (``--watch``) and ``mcp`` run their work through
:func:`until_stopped` and exit with :attr:`Stop.code`.

Rule 1: while the work runs, SIGINT and SIGTERM belong to the event loop (never a
        ``KeyboardInterrupt`` raised wherever the code happens to be): the first one cancels the
        work. A device call in flight is abandoned where it is awaited (its thread is left to end
        by itself) and an action in flight is journaled as unknown; the command then does its own
        ending (a suite writes its results, a device is released: its lock, its session).
Rule 2: work that doesn't end when it is cancelled (a server whose transport reads stdin in a
        thread no cancellation reaches) is given ``grace`` seconds, then left; without ``grace``
        the work is awaited to its end (a suite writing its results). Then every other task still
        running on the loop (a server's calls in flight) is cancelled and given
        :data:`LEFTOVERS_S` to end.
Rule 3: the command exits 128 + the signal's number (:func:`exit_code`): 130 for SIGINT, 143 for
        SIGTERM, without waiting for the threads of device calls whose replies never came
        (``main`` ends the process with ``os._exit`` after flushing stdout and stderr).
Rule 4: a second signal while the command is stopping changes nothing: the ending is bounded
        (``grace``, :data:`LEFTOVERS_S`, a device's own release timeouts), and cutting it short
        would leave what it releases (a cloud's Appium session, billed until it times out) or a
        suite's results half written. Once the work is over, the process's own handlers of the
        two signals are back.
Rule 5: the grace is on the loop's own clock (the wall clock of a real run): it bounds how long a
        real process takes to exit, which no fake clock may shorten.
Rule 6: work that ends by ``SystemExit`` or ``KeyboardInterrupt`` (a one-line ``fail`` while the
        devices open) ends the command so, raised from here with its own traceback; the work's
        task keeps it as an ordinary exception that this function retrieves, so no task is left
        holding an exception nobody read (asyncio would log it when the task is collected, in
        whatever code runs then).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import attrs

__all__ = ["GRACE_S", "LEFTOVERS_S", "SIGNALS", "Stop", "Stopped", "exit_code", "until_stopped"]

T = TypeVar("T")

#: The signals that stop a command (Rule 1).
SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Rule 2: how long a server's work is given to end once cancelled (the goal: exit within 2 s).
GRACE_S = 1.0
#: Rule 2: how long the other tasks still running are given to end once cancelled.
LEFTOVERS_S = 0.5


def exit_code(signum: int) -> int:
    """Rule 3: the exit code of a command stopped by ``signum`` (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + int(signum)


@attrs.define
class Stop:
    """The signals a command received while its work ran; the first one decides how it ends."""

    received: list[int] = attrs.field(factory=list)

    @property
    def signum(self) -> int | None:
        """The first signal received, None while none was."""
        return self.received[0] if self.received else None

    @property
    def name(self) -> str:
        """The first signal's name (``SIGINT``), ``""`` while none was received."""
        return "" if self.signum is None else signal.Signals(self.signum).name

    @property
    def code(self) -> int | None:
        """Rule 3: the command's exit code, None while no signal was received."""
        return None if self.signum is None else exit_code(self.signum)


class Stopped(Exception):
    """Rule 1: a signal cancelled the work before it could end in its own way (``signum`` says which)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


async def until_stopped(
    work: Coroutine[Any, Any, T],
    stop: Stop,
    *,
    say: Callable[[int], None] | None = None,
    grace: float | None = None,
) -> T:
    """Run ``work`` until it ends or a signal stops it (see the module rules).

    ``say(signum)`` is called once, at the first signal (the command's line of what it stops
    waiting for). Returns what the work returns, or raises what it raises: a work that turns its
    cancellation into its own ending (a suite's ``SuiteStopped``) ends so; one that was
    cancelled, or left after ``grace`` seconds, raises :class:`Stopped`.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(_held(work))
    signalled: asyncio.Future[None] = loop.create_future()
    handler = _handler(task, signalled, stop, say)
    before = {signum: signal.getsignal(signum) for signum in SIGNALS}
    for signum in SIGNALS:
        loop.add_signal_handler(signum, handler, signum)
    try:
        either: set[asyncio.Future[Any]] = {task, signalled}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            await asyncio.wait({task}, timeout=grace)  # Rule 2 (None: to its end)
        if stop.received:
            await _cancel_the_others(task)
    except asyncio.CancelledError:
        task.cancel()  # this command was cancelled from outside: its work with it
        raise
    finally:
        for signum, previous in before.items():
            loop.remove_signal_handler(signum)
            if previous is not None:
                signal.signal(signum, previous)  # what the process had before, not the default
        signalled.cancel()
    if stop.signum is not None and (not task.done() or task.cancelled()):
        raise Stopped(stop.signum)
    try:
        return task.result()
    except _Exit as held:  # Rule 6
        raise held.exc from None


class _Exit(Exception):  # it carries an exit, it is no error of its own
    """Rule 6: a ``SystemExit`` or ``KeyboardInterrupt`` of the work, carried out of its task."""

    def __init__(self, exc: SystemExit | KeyboardInterrupt) -> None:
        super().__init__(exc)
        self.exc = exc


async def _held(work: Coroutine[Any, Any, T]) -> T:
    """Rule 6: the work, its exits held as an ordinary exception of its task."""
    try:
        return await work
    except (SystemExit, KeyboardInterrupt) as exc:
        raise _Exit(exc) from exc


def _handler(
    task: asyncio.Future[Any], signalled: asyncio.Future[None], stop: Stop, say: Callable[[int], None] | None
) -> Callable[[int], None]:
    """Rules 1 and 4: what a signal does, called on the loop."""

    def on_signal(signum: int) -> None:
        stop.received.append(signum)
        if len(stop.received) > 1:
            return  # Rule 4: already stopping
        if say is not None:
            say(signum)
        task.cancel()
        if not signalled.done():
            signalled.set_result(None)

    return on_signal


async def _cancel_the_others(work: asyncio.Future[Any]) -> None:
    """Rule 2: cancel every other task still running on the loop, and give them a moment to end."""
    others = {t for t in asyncio.all_tasks() if t is not asyncio.current_task() and t is not work and not t.done()}
    for other in others:
        other.cancel()
    if others:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait(others, timeout=LEFTOVERS_S)
