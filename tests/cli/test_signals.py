"""The signal rule every long-lived command runs under (``mobster_cli._signals``), in process.

Each test raises a real signal in its own process while the rule's handlers are installed; a
safety net of its own catches a signal the rule failed to take, so a broken rule fails the test
instead of killing the test run. The commands' own tests (``test_interrupt.py``,
``tests/mcp/test_signals.py``) run them in subprocesses.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import time
from collections.abc import Coroutine, Iterator
from types import FrameType
from typing import Any

import pytest

from mobster_cli._signals import SIGNALS, Stop, Stopped, exit_code, until_stopped


@pytest.fixture(autouse=True)
def safety_net() -> Iterator[list[int]]:
    """Signals the rule didn't take land here (and the test then fails on what it expected)."""
    missed: list[int] = []

    def caught(signum: int, _frame: FrameType | None) -> None:
        missed.append(signum)

    before = {s: signal.signal(s, caught) for s in SIGNALS}
    try:
        yield missed
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    assert missed == []


#: How many cancellations a deaf work ignores: more than the rule sends, fewer than the clean-up sends.
DEAF_TO = 3


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        for _ in range(DEAF_TO + 1):  # what a test left running ends before the loop closes
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.run_until_complete(asyncio.sleep(0))
        loop.close()


def test_the_first_signal_cancels_the_work_and_is_said_once() -> None:
    said: list[int] = []

    async def work() -> str:
        signal.raise_signal(signal.SIGTERM)
        await asyncio.sleep(30)
        return "never"

    stop = Stop()
    started = time.monotonic()
    with pytest.raises(Stopped) as stopped:
        run(until_stopped(work(), stop, say=said.append))
    assert time.monotonic() - started < 5
    assert stopped.value.signum == signal.SIGTERM
    assert (stop.code, stop.name, said) == (143, "SIGTERM", [signal.SIGTERM])


def test_work_that_turns_its_cancellation_into_its_own_ending_ends_so() -> None:
    async def work() -> str:
        signal.raise_signal(signal.SIGINT)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "results written"
        return "never"

    stop = Stop()
    assert run(until_stopped(work(), stop)) == "results written"
    assert stop.code == 130


def test_work_that_never_ends_is_left_after_its_grace() -> None:
    """A server whose transport waits in a thread no cancellation reaches: left after the grace."""

    async def work() -> None:
        signal.raise_signal(signal.SIGINT)
        for _ in range(DEAF_TO):
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                continue  # deaf to it, as the SDK's stdin read is

    stop = Stop()
    started = time.monotonic()
    with pytest.raises(Stopped):
        run(until_stopped(work(), stop, grace=0.25))
    assert 0.25 <= time.monotonic() - started < 5
    assert stop.code == 130


def test_the_other_tasks_in_flight_are_ended_too() -> None:
    """A server's calls in flight run in tasks of their own: each is cancelled, and ends its own way."""
    ended: list[str] = []

    async def call_in_flight() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            ended.append("journaled as unknown")
            raise

    async def work() -> None:
        calls = {asyncio.ensure_future(call_in_flight())}
        await asyncio.sleep(0)
        signal.raise_signal(signal.SIGTERM)
        for _ in range(DEAF_TO):
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                assert calls
                continue

    with pytest.raises(Stopped):
        run(until_stopped(work(), Stop(), grace=0.1))
    assert ended == ["journaled as unknown"]


def test_a_second_signal_leaves_the_ending_to_finish() -> None:
    """The ending releases a cloud's session or writes results: a second Ctrl+C doesn't cut it short."""

    async def work() -> str:
        signal.raise_signal(signal.SIGTERM)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            signal.raise_signal(signal.SIGINT)  # the user insists while the ending runs
            await asyncio.sleep(0.05)  # the ending: releasing the device
            return "released"
        return "never"

    stop = Stop()
    assert run(until_stopped(work(), stop)) == "released"
    assert stop.received == [signal.SIGTERM, signal.SIGINT]
    assert stop.code == 143  # the first one's


def test_without_a_signal_the_work_runs_to_its_end_and_the_handlers_before_are_back() -> None:
    before = [signal.getsignal(s) for s in SIGNALS]  # the safety net's

    async def work() -> int:
        await asyncio.sleep(0.01)
        return 7

    stop = Stop()
    assert run(until_stopped(work(), stop)) == 7
    assert (stop.code, stop.name) == (None, "")
    assert [signal.getsignal(s) for s in SIGNALS] == before


def test_work_that_exits_ends_the_command_so_and_leaves_no_exception_unread() -> None:
    """A ``fail`` while the devices open (``SystemExit(3)``) used to leave its task's exception
    unread: asyncio logged it when the task was collected, inside whatever code ran then."""
    unread: list[dict[str, Any]] = []

    async def work() -> int:
        await asyncio.sleep(0)
        raise SystemExit(3)

    loop = asyncio.new_event_loop()
    loop.set_exception_handler(lambda _loop, context: unread.append(context))
    try:
        with pytest.raises(SystemExit) as exited:
            loop.run_until_complete(until_stopped(work(), Stop()))
    finally:
        loop.close()
    code = exited.value.code
    del exited, loop  # the traceback holds the task's frames: collected only once it goes
    gc.collect()
    assert code == 3
    assert unread == []


def test_exit_codes_are_128_and_the_signal() -> None:
    assert [exit_code(s) for s in SIGNALS] == [130, 143]
