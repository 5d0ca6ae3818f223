"""Rows: one check run once per row of values (``rows:``, inline or a CSV file beside the check).

Rule 1: ``rows`` is a list of mappings (inline) or the name of a CSV file relative to the check
        file's folder. Every row gives a value to the same names; each name is a ``${name}`` name
        (a letter or ``_``, then letters, digits or ``_``), and each value is text (quote a
        number: YAML 1.2 reads ``1`` as a number). At most :data:`MAX_ROWS` rows of
        :data:`MAX_COLUMNS` names, each value at most :data:`MAX_VALUE_CHARS` characters.
Rule 2: a CSV file is read through the careful reader (a regular file, at most
        :data:`MAX_CSV_BYTES`), UTF-8 (a byte order mark is refused with its fix), strictly: the
        first line is the header, its names valid and none twice; every other line is a row with
        every column (no more, no fewer); a blank line is refused. Every problem is one line
        ``file.csv:line: what is wrong; what to write``.
Rule 3: a row's label is its ``name`` value when the rows have a ``name`` column, else its first
        value; labels are unique (the instance ``Buy a plan [pro]`` is named by it) and one line.
Rule 4: a row's values are the check's data: ``${name}`` in a step is typed as the row's value
        (the path keeps the reference, so every row replays its own), ``${name}`` in an
        expectation is judged with it. A value may itself be references (``${PAID_PASSWORD}``):
        that secret is then typed from the environment and masked as every secret is.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from mobster_core.exceptions import CheckError, Problem

from .flows import NAME, _frozen_map
from .fsutil import UnsafeFile, read_user_file

__all__ = ["MAX_CSV_BYTES", "MAX_ROWS", "Row", "read_csv_rows", "row_label"]

MAX_ROWS = 50
MAX_COLUMNS = 20
MAX_VALUE_CHARS = 1000
MAX_LABEL_CHARS = 60
MAX_CSV_BYTES = 256 * 1024


@attrs.frozen
class Row:
    """One row: its label (Rule 3), its number (from 1) and its values by name."""

    label: str
    number: int
    values: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_map, hash=False)


def row_label(values: Mapping[str, str], columns: tuple[str, ...]) -> str:
    """Rule 3: the ``name`` value when there is a ``name`` column, else the first column's."""
    raw = values["name"] if "name" in values else values[columns[0]]
    one = " ".join(raw.split())
    return one if len(one) <= MAX_LABEL_CHARS else one[: MAX_LABEL_CHARS - 1] + "\u2026"


class RowsError(ValueError):
    """A CSV file's problem: its line (None: the whole file), what is wrong and what to write."""

    def __init__(self, line: int | None, problem: str, fix: str) -> None:
        super().__init__(problem)
        self.line, self.problem, self.fix = line, problem, fix


def read_csv_rows(file: Path, shown: str) -> list[tuple[int, dict[str, str]]]:
    """Rule 2: the rows of a CSV file as ``(line, values)``; raises :class:`CheckError` naming ``shown:line``."""

    def fail(line: int | None, problem: str, fix: str) -> CheckError:
        where = shown if line is None else f"{shown}:{line}"
        return CheckError(f"{where}: {problem}; {fix}", file=shown, line=line, detail=f"{problem}; {fix}")

    try:
        data = read_user_file(file, max_bytes=MAX_CSV_BYTES)
    except UnsafeFile as exc:
        extra = " (not a symlink)" if exc.problem is Problem.SYMLINK else ""
        raise fail(
            None, f"can't read the rows file: {exc.reason}", f"give a CSV file of at most 256 KB{extra}"
        ) from exc
    except OSError as exc:
        raise fail(
            None, f"can't read the rows file ({exc.strerror or exc})", "write the CSV file beside the check"
        ) from exc
    if data.startswith(b"\xef\xbb\xbf"):
        raise fail(1, "the file starts with a byte order mark", "save it as UTF-8 without a BOM")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise fail(line, "is not UTF-8", "save the file as UTF-8") from exc
    try:
        return _parse(text)
    except RowsError as exc:
        raise fail(exc.line, exc.problem, exc.fix) from exc


def _parse(text: str) -> list[tuple[int, dict[str, str]]]:
    """Rule 2: the header, then each row with the line it starts on."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    line = 1
    try:
        for record in reader:
            start, line = line, reader.line_num + 1
            if not record or record == [""]:
                raise RowsError(start, "the line is blank", "remove it (every line is a row with every column)")
            if header is None:
                header = _header(record, start)
                continue
            if len(rows) == MAX_ROWS:
                raise RowsError(start, f"is more than {MAX_ROWS} rows", "split the check in two")
            rows.append((start, _record(record, header, start)))
    except csv.Error as exc:
        raise RowsError(line, f"is not CSV ({exc})", "quote a value that holds a comma or a quote") from exc
    if header is None:
        raise RowsError(None, "the file is empty", "write a header line of names, then one line a row")
    if not rows:
        raise RowsError(None, "the file has a header and no rows", "write one line a row under the header")
    return rows


def _record(record: list[str], header: list[str], line: int) -> dict[str, str]:
    """Rule 2: one row: every column, no more, each value within its limit."""
    if len(record) != len(header):
        raise RowsError(line, f"has {len(record)} columns; the header has {len(header)}",
                        'give every row a value for every column (an empty one is "")')  # fmt: skip
    for name, value in zip(header, record, strict=True):
        if len(value) > MAX_VALUE_CHARS:
            raise RowsError(line, f"{name}'s value is {len(value)} characters long; the limit is {MAX_VALUE_CHARS}",
                            "shorten it")  # fmt: skip
    return dict(zip(header, record, strict=True))


def _header(record: list[str], line: int) -> list[str]:
    if len(record) > MAX_COLUMNS:
        raise RowsError(line, f"the header has {len(record)} columns; the limit is {MAX_COLUMNS}", "remove some")
    seen: set[str] = set()
    for name in record:
        if not NAME.fullmatch(name):
            raise RowsError(line, f"the header's {name!r} is not a ${{name}} name (a letter or '_', then letters, "
                            "digits or '_')", "rename the column, such as plan or user_email")  # fmt: skip
        if name in seen:
            raise RowsError(line, f"the header names {name} twice", "give each column its own name")
        seen.add(name)
    return record


def check_rows(values: list[tuple[Any, dict[str, str]]]) -> tuple[str, ...]:
    """The columns every row shares (the first row's), as a tuple."""
    return tuple(values[0][1]) if values else ()
