"""The words every strict reader's problems are said in: where, what is wrong, what to write.

Rule 3 (of the YAML reader, ``yaml``): every problem is a :class:`YamlProblem` that reads
        ``file:line: key.path: what is wrong; what to write instead``, with the line and the key
        when they are known (a syntax error has a line, and no key the parser can vouch for).
        :func:`dotted` spells key paths, :func:`kind_of` describes a value, :func:`quote_fix`
        says how to write a string, :func:`did_you_mean` hints at an unknown key, so every
        caller's own schema errors read the same way (:class:`~.reader.StrictReader` says them).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

__all__ = ["KeyedProblem", "Keys", "YamlProblem", "YamlSyntaxError", "did_you_mean", "dotted", "kind_of", "quote_fix"]

#: A key path inside a file's data: dict keys and list indexes.
Keys: TypeAlias = tuple[str | int, ...]


class KeyedProblem(Exception):
    """A bad value below a key: ``keys`` locate it, ``problem`` says what is wrong, ``fix`` what to write.

    The message reads ``key.path: problem; fix``; the reader that knows the file adds its name and line.
    """

    def __init__(self, keys: Keys, problem: str, fix: str) -> None:
        path = dotted(keys)
        super().__init__(f"{path}: {problem}; {fix}" if path else f"{problem}; {fix}")
        self.keys = keys
        self.problem = problem
        self.fix = fix


class YamlProblem(ValueError):
    """A YAML file that can't be read, or a value in it that can't be used (Rule 3).

    The message reads ``file:line: key.path: problem; fix``. ``source`` names the file, ``line``
    is 1-based (None when unknown), ``key`` the dotted key path (None for the whole file).
    """

    def __init__(
        self, source: str, problem: str, fix: str = "", *, line: int | None = None, key: str | None = None
    ) -> None:
        self.source = source
        self.line = line
        self.key = key or None
        self.problem = problem
        self.fix = fix
        what = f"{self.key}: {problem}" if self.key else problem
        #: The message without its file and line: ``key.path: problem; fix``.
        self.detail = f"{what}; {fix}" if fix else what
        super().__init__(f"{self.where}: {self.detail}")

    @property
    def where(self) -> str:
        """``file:line``, or ``file`` when the line is unknown."""
        return self.source if self.line is None else f"{self.source}:{self.line}"


class YamlSyntaxError(YamlProblem):
    """The text is not YAML (nor JSON) at ``line``: ``problem`` is the parser's account of it."""


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_:-]*")
_SHOW_CHARS = 80
_SHOW_PATH = 200
#: How a quoted key writes the characters that would end it or break its line (the rest: ``\\uXXXX``).
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest allowed word, or a list of what is allowed."""
    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (allowed: {', '.join(options)})"


def dotted(keys: Sequence[str | int]) -> str:
    r"""``expect[2].count.equals`` for ``("expect", 2, "count", "equals")`` (list indexes from 0).

    A key that isn't a plain name is quoted (``apps."com.example.a".screens``), on one line (a
    line break in it is written ``\n``); a path longer than 200 characters keeps its end, the
    part that names the value.
    """
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key}]"
        elif _PLAIN_KEY.fullmatch(key):
            out += f".{key}" if out else key
        else:
            quoted = _quoted(key)
            out += f".{quoted}" if out else quoted
    return out if len(out) <= _SHOW_PATH else "\u2026" + out[-(_SHOW_PATH - 1) :]


def _quoted(key: str) -> str:
    r"""``key`` in double quotes, one line: a quote, a backslash and a character that doesn't print escaped.

    The escapes are YAML's and TOML's alike (``\"``, ``\\``, ``\n``, ``\uXXXX``), so the key
    reads as the file would write it.
    """
    out = (_ESCAPES.get(c) or (c if c.isprintable() else _escape(c)) for c in key)
    return '"' + "".join(out) + '"'


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def quote_fix(keys: Keys, value: Any, *, assigns: str = ": ") -> str:
    """What to write for a value that should have been a string: ``quote it: name: "3"``.

    ``assigns`` stands between the key and its value as the file writes them (TOML's ``name = "3"``).
    """
    if not isinstance(value, bool | int | float):
        return "write a string"
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    shown = json.dumps(text, ensure_ascii=False)
    last = keys[-1] if keys else None
    return f"quote it: {last}{assigns}{shown}" if isinstance(last, str) else f"quote it: {shown}"


def kind_of(value: Any) -> str:  # noqa: PLR0911 - one return per kind of value: it reads as the table it is
    """Describe an untrusted value for a message: ``3 (a number)``, ``'yes' (a string)``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a flag)"
    if isinstance(value, int | float):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOW_CHARS else value[: _SHOW_CHARS - 1] + "\u2026"
        return f"{shown!r} (a string)"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__} (from a YAML tag or an unquoted date)"
