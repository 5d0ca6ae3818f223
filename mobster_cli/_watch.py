r"""What ``mobster inspect --watch`` reads from its input: the commands, and the element a tap names.

Rule 1: a command is one line: ``tap ROW`` or ``tap #ROW`` (a row of the screen as printed),
        ``tap TEXT`` (the element labelled TEXT, else whose identifier is TEXT: ``--select``'s
        finding, ``mobster_core.screens.suggest``; quotes around TEXT keep it as written, so
        ``tap "7"`` is the label 7), ``read`` or an empty line (read and print the screen now),
        ``help``, ``quit``. Anything else is one line saying what to type; nothing is sent.
Rule 2: a tap names one element of the screen printed last, and only one that counts as shown:
        a row that isn't there, a row not shown (with its reason), a text that is hidden (its
        reason), absent (the near misses) or on the screen more than once (their rows) is one line
        saying so, and nothing is sent.
Rule 3: the lines are taken as they come and never hold the watch up: from a terminal or a pipe
        when the event loop says one is ready (its selector), from a file or a stream in memory at
        once, one at a time (reading them never waits), and from anything else through a thread;
        a terminal the command runs in the background of (``&``) gives none (reading it would stop
        the command). The end of the input ends the reading, not the watch (``quit``, or Ctrl+C,
        ends that). A line longer than :data:`MAX_LINE` characters is refused whole; bytes that
        aren't UTF-8 read as U+FFFD.
"""

from __future__ import annotations

import asyncio
import enum
import io
import os
import stat
import threading
from typing import IO, TYPE_CHECKING, Protocol

import attrs

if TYPE_CHECKING:
    from mobster_core import Clock, Element, Screen

__all__ = ["HELP", "MAX_LINE", "Command", "Kind", "Lines", "parse", "stdin_lines", "target"]

#: Rule 3: the longest command line taken, in characters.
MAX_LINE = 4096
#: Rule 1: what to type, in one line.
HELP = "type tap LABEL or tap ROW to tap an element, read to read the screen again, help, or quit"
_TOO_LONG = "\x00too long"  # Rule 3: the mark of a refused line (a NUL never comes from a terminal's line)


class Kind(enum.Enum):
    """Rule 1: what a command line asks for."""

    TAP = "tap"
    READ = "read"
    HELP = "help"
    QUIT = "quit"
    BAD = "bad"


@attrs.frozen
class Command:
    """One command (Rule 1): a tap's ``row`` or ``text``; a bad line's ``problem``."""

    kind: Kind
    row: int | None = None
    text: str | None = None
    problem: str | None = None


#: Rule 1: the words that ask for what takes no argument.
_VERBS = {
    "": Kind.READ,
    "read": Kind.READ,
    "help": Kind.HELP,
    "?": Kind.HELP,
    "quit": Kind.QUIT,
    "q": Kind.QUIT,
    "exit": Kind.QUIT,
}


def parse(line: str) -> Command:
    """Rule 1: the command a line says."""
    if line == _TOO_LONG:
        return Command(Kind.BAD, problem=f"a command is one line of at most {MAX_LINE:,} characters; {HELP}")
    words = line.strip()
    verb, rest = (*words.split(maxsplit=1), "", "")[:2]
    kind = _VERBS.get(verb.lower())
    if kind is not None:
        return Command(kind) if not rest.strip() else _bad(words)
    if verb.lower() != "tap":
        return _bad(words)
    return _tap(rest.strip())


def _tap(arg: str) -> Command:
    """Rule 1: ``tap``'s argument: a row, a quoted text kept as written, or the text as typed."""
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'":
        arg, quoted = arg[1:-1], True
    else:
        quoted = False
    if not arg.strip():
        return Command(Kind.BAD, problem=f"tap what? {HELP}")
    number = arg.removeprefix("#")
    if not quoted and number.isascii() and number.isdigit():
        return Command(Kind.TAP, row=int(number))
    return Command(Kind.TAP, text=arg)


def _bad(words: str) -> Command:
    shown = words if len(words) <= 40 else words[:40] + "…"
    return Command(Kind.BAD, problem=f"{shown!r} is no command: {HELP}")


def target(screen: Screen, command: Command) -> Element | str:
    """Rule 2: the shown element a tap names on ``screen``, or why there is none (one line)."""
    if command.row is not None:
        return _row(screen, command.row)
    from mobster_core.screens import Found, suggest

    text = command.text or ""
    found = suggest(screen, text)
    if found.found is Found.UNIQUE:
        return found.candidates[0].element
    if found.found is Found.DUPLICATED:
        rows = _rows_of(screen, [c.element for c in found.candidates if c.hidden is None])
        return f"{found.message.split(':')[0]}: tap one by its row ({rows}); nothing was sent"
    return f"{found.message}; nothing was sent"


def _row(screen: Screen, row: int) -> Element | str:
    count = len(screen.elements)
    if not 1 <= row <= count:
        return f"there is no row {row}: the screen has rows 1 to {count}; nothing was sent"
    element, why = screen.elements[row - 1], screen.hidden[row - 1]
    if why is None:
        return element
    label = f' "{element.label}"' if element.label else ""
    said = f"row {row} ({element.role}{label}) is not shown: {why.value} ({why.why})"
    return f"{said}; a tap can't reach it, nothing was sent"


def _rows_of(screen: Screen, elements: list[Element]) -> str:
    index = {e.path: i + 1 for i, e in enumerate(screen.elements)}
    return ", ".join(f"{index[e.path]} ({e.role})" for e in elements)


# -- Rule 3: the lines, as they come -------------------------------------------------------------


class Lines(Protocol):
    """**Protocol:** the command lines of a watch (Rule 3)."""

    async def next(self, clock: Clock, within: float) -> str | None:
        """The next line (without its newline), or None when none came within ``within`` seconds."""
        ...

    def close(self) -> None:
        """Stop reading."""
        ...


def stdin_lines(stream: IO[str]) -> Lines:
    """Rule 3: the lines of ``stream`` (the command's stdin), read the way that never holds the watch up."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return _AtOnce(stream)  # a stream in memory
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd)):
        return _AtOnce(stream)  # a file, /dev/null: reading never waits (and no selector takes them)
    if os.isatty(fd) and _in_background(fd):
        return _AtOnce(io.StringIO())  # reading the terminal would stop the command (SIGTTIN): no commands
    return _Selected(fd, stream)


def _in_background(fd: int) -> bool:
    """Rule 3: the terminal ``fd`` has another foreground process group (``mobster inspect --watch &``)."""
    try:
        return os.tcgetpgrp(fd) != os.getpgrp()
    except OSError:  # not the command's controlling terminal: reading it stops nothing
        return False


class _AtOnce:
    """Rule 3: a stream whose reads never wait: one line a call, then nothing (a tick each call)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._ended = False

    async def next(self, clock: Clock, within: float) -> str | None:
        if not self._ended:
            line = _one_line(self._stream)
            if line is not None:
                return line
            self._ended = True
        await clock.sleep(within)
        return None

    def close(self) -> None:
        self._ended = True


def _one_line(stream: IO[str]) -> str | None:
    """A line of ``stream`` (None at its end), its bytes read as UTF-8 (Rule 3: U+FFFD for the rest).

    A line longer than :data:`MAX_LINE` is read to its end and refused whole.
    """
    raw = getattr(stream, "buffer", None)
    try:
        if raw is None:  # a text stream of its own
            line = stream.readline(MAX_LINE + 1)
            long = len(line) > MAX_LINE and not line.endswith("\n")
            while long and (more := stream.readline(MAX_LINE)) and not more.endswith("\n"):
                pass
        else:
            data = raw.readline(MAX_LINE * 4 + 1)
            long = len(data) > MAX_LINE * 4 and not data.endswith(b"\n")
            while long and (more := raw.readline(MAX_LINE * 4)) and not more.endswith(b"\n"):
                pass
            line = data.decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    if not line:
        return None
    line = line.removesuffix("\n").removesuffix("\r")
    return _TOO_LONG if long or len(line) > MAX_LINE else line


class _Queued:
    """Lines that arrive on their own (a selector's callback, a thread) into a queue the watch waits on."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._ended = False

    async def next(self, clock: Clock, within: float) -> str | None:
        if not self._queue.empty():
            return self._got(self._queue.get_nowait())
        if self._ended:
            await clock.sleep(within)
            return None
        get = asyncio.ensure_future(self._queue.get())
        nap = asyncio.ensure_future(clock.sleep(within))
        try:
            await asyncio.wait({get, nap}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (get, nap):
                task.cancel()
        return self._got(get.result()) if get.done() and not get.cancelled() else None

    def _got(self, line: str | None) -> str | None:
        if line is None:  # the end of the input: the watch goes on
            self._ended = True
        return line

    def put(self, line: str | None) -> None:
        self._queue.put_nowait(line)

    def close(self) -> None:
        self._ended = True


class _Selected(_Queued):
    """Rule 3: a terminal or a pipe, read when the event loop's selector says it is ready."""

    def __init__(self, fd: int, stream: IO[str]) -> None:
        super().__init__()
        self._fd = fd
        self._stream = stream
        self._buffer = b""
        self._skipping = False  # the rest of a line that was too long
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = False

    async def next(self, clock: Clock, within: float) -> str | None:
        if self._loop is None and not self._thread:
            self._start()
        return await super().next(clock, within)

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            loop.add_reader(self._fd, self._ready)
        except (NotImplementedError, OSError, ValueError):  # a loop or a file no selector takes
            self._thread = True
            threading.Thread(target=self._read_all, args=(loop,), name="mobster-watch-input", daemon=True).start()
            return
        self._loop = loop

    def _ready(self) -> None:
        try:
            chunk = os.read(self._fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._stop_reading()
            self.put(None)
            return
        self._take(chunk)

    def _take(self, chunk: bytes) -> None:
        self._buffer += chunk
        while b"\n" in self._buffer:
            raw, self._buffer = self._buffer.split(b"\n", 1)
            if self._skipping:
                self._skipping = False
                continue
            line = raw.decode("utf-8", errors="replace").removesuffix("\r")
            self.put(_TOO_LONG if len(line) > MAX_LINE else line)
        if len(self._buffer) > MAX_LINE * 4:  # no newline in sight: refuse the line, skip to its end
            if not self._skipping:
                self.put(_TOO_LONG)
            self._buffer, self._skipping = b"", True

    def _read_all(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            line = _one_line(self._stream)
            try:
                loop.call_soon_threadsafe(self.put, line)
            except RuntimeError:  # the loop is closed: the command ended
                return
            if line is None:
                return

    def _stop_reading(self) -> None:
        if self._loop is not None:
            self._loop.remove_reader(self._fd)
            self._loop = None

    def close(self) -> None:
        self._stop_reading()
        super().close()
