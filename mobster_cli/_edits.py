r"""Other tools' files, edited from their parsed document: tables added to ``pyproject.toml``, lines to ``.gitignore``.

Rule 1: whether to add is decided from the parsed document, never by a pattern: a table is there
        in any form TOML allows (a ``[tool.mobster]`` header, a quoted ``[tool."mobster"]``, an
        inline ``mobster = {…}`` under ``[tool]``, dotted ``tool.mobster.x`` keys, an array of
        tables ``[[tool.mobster]]``) (:func:`toml_document`); a ``.gitignore`` names a pattern
        when one of its lines does (Rule 4).
Rule 2: an edit only adds, at the end: every byte before it stays (a byte order mark a
        ``.gitignore`` starts with too), the addition takes the file's line ends (CRLF when the
        file has one) and starts on a line of its own, after a blank line (a last line without a
        newline gets one first).
Rule 3: an edit is verified before anything is written: the new text parses, and its document
        is the old one plus exactly what was added, compared by type and value (``1`` is not
        ``1.0`` nor ``true``; NaN is NaN). When it isn't (a ``tool`` that is an inline table or
        a value, which TOML lets no table follow), :class:`EditRefused` says why in one phrase,
        and the caller writes nothing.
Rule 4: a ``.gitignore``'s document is its patterns, as git reads them: blank lines and ``#``
        comments are none, trailing spaces go (unless escaped with ``\\``), and a leading ``/``
        or a trailing one doesn't make another pattern for a name at the root (``/.env`` and
        ``.env``, ``.mobster/runs`` and ``.mobster/runs/``). A pattern the file already names,
        ignored or negated (``!.env``: the user keeps it tracked), is the user's decision: it is
        not added. A leading UTF-8 byte order mark is not part of the first pattern (git skips it).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from mobster_core.text import bom_problem

__all__ = ["EditRefused", "add_gitignore_lines", "add_toml_tables", "gitignore_missing", "toml_document"]

_BOM = b"\xef\xbb\xbf"
_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)")


class EditRefused(ValueError):
    """An edit that can't be made (or verified): one phrase saying why (Rule 3); nothing was written."""


# -- TOML (Rules 1-3) --------------------------------------------------------------------------


def toml_document(data: bytes) -> dict[str, Any]:
    """The parsed document of a TOML file's bytes; :class:`EditRefused` naming the line and the fix if it isn't one."""
    return tomllib.loads(_toml_text(data))


def _toml_text(data: bytes) -> str:
    bom = bom_problem(data)
    if bom is not None:
        raise EditRefused(bom)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise EditRefused(f"line {line}: byte {exc.start + 1} is not UTF-8; save it as UTF-8") from None
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EditRefused(f"{_where(exc)}not valid TOML ({_what(exc)}); fix it") from None
    except RecursionError:
        raise EditRefused("its arrays or inline tables nest too deeply to read") from None
    return text


def _where(exc: tomllib.TOMLDecodeError) -> str:
    m = _AT.search(str(exc))
    return f"line {m.group(1)}, column {m.group(2)}: " if m else ""


def _what(exc: tomllib.TOMLDecodeError) -> str:
    return _AT.sub("", str(exc)) or "not TOML"


def add_toml_tables(data: bytes, added: str, *, named: str) -> bytes:
    """``data`` with the TOML text ``added`` (tables with their headers, LF line ends) at its end (Rules 2, 3).

    ``named`` is how the refusal names the addition (``[tool.mobster]``). Raises
    :class:`EditRefused` when the file isn't TOML, or the result wouldn't parse as the file's
    document plus exactly ``added``'s.
    """
    text = _toml_text(data)
    before = tomllib.loads(text)
    addition = tomllib.loads(added)
    expected = _merged(before, addition, ())
    result = _appended(text, added)
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise EditRefused(f"{named} can't be added at its end: TOML refuses it there ({_what(exc)})") from None
    if _canonical(after) != _canonical(expected):
        raise EditRefused(f"{named} added at its end wouldn't read back as added")
    return result.encode("utf-8")


def _merged(base: Mapping[str, Any], addition: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``base`` with ``addition``'s tables laid in; a key both hold (other than two tables) is refused."""
    out = dict(base)
    for key, value in addition.items():
        here = (*keys, key)
        if key not in out:
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = _merged(out[key], value, here)
        else:
            raise EditRefused(f"{'.'.join(here)} is there already as {_kind(out[key])}, so it can't be added")
    return out


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array" if not value or not all(isinstance(v, dict) for v in value) else "an array of tables"
    return "a value"


def _canonical(value: object) -> object:
    """Rule 3: a value as compared: its type beside it (``1``, ``1.0`` and ``true`` differ), NaN as itself."""
    if isinstance(value, dict):
        return ("table", tuple(sorted((k, _canonical(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan", math.copysign(1.0, value))
    return (type(value).__name__, value)


def _appended(text: str, added: str) -> str:
    """Rule 2: ``added`` after ``text``, on lines of its own, with ``text``'s line ends."""
    newline = "\r\n" if "\r\n" in text else "\n"
    joiner = "" if not text or text.endswith("\n") else newline
    gap = newline if text.strip() else ""
    return text + joiner + gap + added.replace("\n", newline)


# -- .gitignore (Rules 2, 4) -------------------------------------------------------------------


def _patterns(data: bytes) -> list[str]:
    """Rule 4: the patterns of a ``.gitignore``, each as written (``!`` kept), trailing spaces gone."""
    text = data.removeprefix(_BOM).decode("utf-8", errors="surrogateescape")
    found = []
    for raw in text.split("\n"):  # git's lines: a line feed ends one, a carriage return before it goes
        line = _without_trailing_spaces(raw.removesuffix("\r"))
        if line and not line.startswith("#"):
            found.append(line)
    return found


def _without_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if len(stripped) < len(line) and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        return stripped + " "  # an escaped space is part of the pattern
    return stripped


def _name(pattern: str) -> str:
    """Rule 4: what a pattern names at the root: no ``!``, no escaping backslash, no leading or trailing ``/``."""
    body = pattern.removeprefix("!").removeprefix("\\")
    return body.removeprefix("/").removesuffix("/")


def gitignore_missing(data: bytes, wanted: Sequence[str]) -> list[str]:
    """Rule 4: the lines of ``wanted`` whose pattern ``data`` (a ``.gitignore``'s bytes) doesn't name."""
    named = {_name(p) for p in _patterns(data)}
    return [line for line in wanted if _name(line) not in named]


def add_gitignore_lines(data: bytes, added: str) -> bytes:
    """``data`` with the lines ``added`` (LF line ends) at its end (Rule 2), verified (Rule 3)."""
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    joiner = b"" if not data or data.endswith(b"\n") else newline
    gap = newline if data.removeprefix(_BOM).strip() else b""
    extra = added.encode("utf-8")
    result = data + joiner + gap + extra.replace(b"\n", newline)
    if not result.startswith(data) or _patterns(result) != _patterns(data) + _patterns(extra):
        raise EditRefused("the lines added at its end wouldn't read back as added")
    return result
