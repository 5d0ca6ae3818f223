"""The commands of `mobster inspect --watch` (``mobster_cli/_watch.py``): what a line says, and how lines are read.

The reading is held on the fake clock: a pipe's lines arrive through the loop's selector (which the
fake clock polls before it jumps time), so a line that is there is taken before the next tick and
a tick with no line is exactly ``within`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mobster_cli import _watch
from mobster_cli._watch import MAX_LINE, Command, Kind, parse, stdin_lines, target
from mobster_core import Element, Screen, SystemClock
from mobster_core.testing import FakeClock

HANG_SECONDS = 30
pytestmark = pytest.mark.usefixtures("no_hang")


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("tap Continue", Command(Kind.TAP, text="Continue")),
        ("  TAP   Sign up  ", Command(Kind.TAP, text="Sign up")),
        ("tap\tSign up", Command(Kind.TAP, text="Sign up")),
        ("tap 12", Command(Kind.TAP, row=12)),
        ("tap #12", Command(Kind.TAP, row=12)),
        ('tap "12"', Command(Kind.TAP, text="12")),
        ("tap ' Sign up '", Command(Kind.TAP, text=" Sign up ")),
        ("tap #", Command(Kind.TAP, text="#")),
        ("tap ١٢", Command(Kind.TAP, text="١٢")),  # Arabic-Indic digits: a label, never a row
        ("tap 99999999999999999999999", Command(Kind.TAP, row=99999999999999999999999)),
        ("", Command(Kind.READ)),
        ("read", Command(Kind.READ)),
        ("help", Command(Kind.HELP)),
        ("?", Command(Kind.HELP)),
        ("quit", Command(Kind.QUIT)),
        ("Q", Command(Kind.QUIT)),
        ("exit", Command(Kind.QUIT)),
    ],
)
def test_a_line_says_one_command(line: str, command: Command) -> None:
    assert parse(line) == command


@pytest.mark.parametrize("line", ["tap", "tap   ", 'tap ""', "tap '  '", "tpa Continue", "quit now", "\x1b[2J"])
def test_anything_else_is_one_line_saying_what_to_type(line: str) -> None:
    command = parse(line)
    assert command.kind is Kind.BAD
    assert command.problem is not None
    assert "\n" not in command.problem
    assert command.problem.endswith("read to read the screen again, help, or quit")


SCREEN = Screen(
    "com.example.app",
    (
        Element("Button", "Continue", frame=(0.1, 0.1, 0.5, 0.05), path="/0/0"),
        Element("Button", "Gone", frame=(0.1, 0.2, 0.5, 0.05), visible=False, path="/0/1"),
        Element("TextField", "", identifier="email", frame=(0.1, 0.3, 0.5, 0.05), path="/0/2"),
    ),
)


def test_a_tap_names_a_shown_element_by_label_identifier_or_row() -> None:
    assert target(SCREEN, Command(Kind.TAP, text="Continue")) == SCREEN.elements[0]
    assert target(SCREEN, Command(Kind.TAP, text="email")) == SCREEN.elements[2]  # --select's identifier rule
    assert target(SCREEN, Command(Kind.TAP, row=3)) == SCREEN.elements[2]
    assert target(SCREEN, Command(Kind.TAP, text="continue")) == (
        '"continue" isn\'t on the screen; did you mean "Continue"?; nothing was sent'
    )  # exact, as a replayed step's target is found


# -- reading lines as they come (Rule 3) -------------------------------------------------------------


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):  # the test closed it already
            os.close(fd)


def take(stream: io.TextIOBase, writes: list[bytes | None], *, within: float = 1.0, count: int = 8) -> list[object]:
    """``count`` calls of ``next`` on the lines of ``stream``, with each ``writes`` item written first (None: close)."""
    clock = FakeClock()
    lines = stdin_lines(stream)  # type: ignore[arg-type]
    writer = getattr(stream, "writer", None)

    async def scenario() -> list[object]:
        got: list[object] = []
        for i in range(count):
            if i < len(writes) and writer is not None:
                data = writes[i]
                if data is None:
                    os.close(writer)
                else:
                    os.write(writer, data)
            began = clock.now()
            line = await lines.next(clock, within)
            got.append(line if line is not None else ("tick", clock.now() - began))
        lines.close()
        return got

    return clock.run(scenario())


class PipeReader(io.TextIOWrapper):
    """A pipe's reading end as stdin, knowing its writing end (for the test to write to)."""

    writer: int


def pipe_stdin(read: int, write: int) -> PipeReader:
    stream = PipeReader(io.FileIO(read, "r", closefd=False))
    stream.writer = write
    return stream


def test_a_pipes_lines_are_taken_before_the_next_tick(pipe: tuple[int, int]) -> None:
    read, write = pipe
    got = take(pipe_stdin(read, write), [b"tap Con", b"tinue\nread\n", None], count=5)
    # The half line waits a tick for its end; both lines of the next write come at once; then the end.
    assert got == [("tick", 1.0), "tap Continue", "read", ("tick", 0.0), ("tick", 1.0)]


def test_a_line_too_long_is_refused_whole_and_bad_bytes_are_replaced(pipe: tuple[int, int]) -> None:
    read, write = pipe
    long = b"tap " + b"x" * (MAX_LINE * 4 + 10)
    got = take(pipe_stdin(read, write), [long, b"still the long line\nq\xffuit\n"], count=3)
    assert parse(str(got[0])).kind is Kind.BAD
    assert "at most 4,096 characters" in (parse(str(got[0])).problem or "")
    assert got[1:] == ["q\ufffduit", ("tick", 1.0)]  # the rest of the long line is skipped, not a command


def test_a_file_and_a_stream_in_memory_are_read_at_once(tmp_path: Path) -> None:
    file = tmp_path / "commands.txt"
    file.write_bytes(b"tap Continue\r\n" + b"tap " + b"y" * (MAX_LINE + 1) + b"\nquit")
    with file.open() as stream:
        assert isinstance(stdin_lines(stream), _watch._AtOnce)
        got = take(stream, [], count=4)
    assert got[0] == "tap Continue"
    assert parse(str(got[1])).kind is Kind.BAD
    assert got[2:] == ["quit", ("tick", 1.0)]
    assert take(io.StringIO("read\n"), [], count=2) == ["read", ("tick", 1.0)]


def test_dev_null_is_an_input_with_no_lines() -> None:
    with Path(os.devnull).open() as stream:  # no selector takes it (epoll refuses): read at once
        assert isinstance(stdin_lines(stream), _watch._AtOnce)
        assert take(stream, [], count=2) == [("tick", 1.0), ("tick", 1.0)]


def test_a_loop_without_a_selector_reads_through_a_thread(
    pipe: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object) -> None:
        raise NotImplementedError  # Windows' proactor loop has no add_reader

    monkeypatch.setattr(asyncio.SelectorEventLoop, "add_reader", refuse)
    read, write = pipe
    os.write(write, b"tap Continue\n")
    os.close(write)
    lines = stdin_lines(pipe_stdin(read, -1))

    async def scenario() -> list[str | None]:
        # The thread's lines come on real time: on the system clock, each next() waits for one (or 30 s).
        clock = SystemClock()
        return [await lines.next(clock, 30.0), await lines.next(clock, 30.0)]

    assert asyncio.run(scenario()) == ["tap Continue", None]  # the line, then the end of the input


def test_a_terminal_the_command_is_in_the_background_of_gives_no_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = os.openpty()
    try:
        monkeypatch.setattr(os, "tcgetpgrp", lambda _fd: os.getpgrp() + 1)
        with os.fdopen(follower, "r", closefd=False) as stream:
            os.write(leader, b"tap Continue\n")
            lines = stdin_lines(stream)
            assert isinstance(lines, _watch._AtOnce)
            assert take(stream, [], count=1) == [("tick", 1.0)]
    finally:
        os.close(leader)
        os.close(follower)
