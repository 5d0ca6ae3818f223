r"""Loading user YAML files safely, with line numbers for error messages.

Rule 1: a file is parsed once, in ruamel's safe mode (no Python tags, no duplicate keys, no
        anchors), which decides whether it is acceptable; the document's nodes are kept beside
        the data, and give the line of each key for messages.
Rule 2: a file larger than ``MAX_YAML_BYTES`` or not UTF-8 is refused before parsing.
Rule 3: an unknown key gets a "did you mean" hint from the keys that are allowed there.
Rule 4: anchors and aliases are refused. Nesting deeper than ``MAX_YAML_DEPTH`` (100 levels of
        blocks and flow collections) is refused before the parser runs: a pre-scan of the text
        measures it in linear time, and the parser's scanner stops at the same depth should the
        pre-scan ever read a file differently (ruamel's scanner costs time quadratic in depth:
        5,000 levels took 14 s).
Rule 5: the text of a file is valid Unicode once loaded: a ``"\ud800"`` escape (a lone
        surrogate) reads as U+FFFD (``_text.py``, Rule 1).
Rule 6: an integer of more than ``MAX_INT_DIGITS`` digits is refused where it is written: no
        file the SDK reads needs one, and Python won't even print one of 4,300 digits.
Rule 7: the parses of the last 32 files of at most 8 KiB are kept by their name and text, so a
        file read again unchanged is not parsed again; every caller gets its own copy of the
        data (the kept parse is never handed out), and a file that fails is parsed again.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.scanner import Scanner

from .text import valid_data, valid_text

__all__ = ["MAX_INT_DIGITS", "MAX_YAML_BYTES", "MAX_YAML_DEPTH", "YamlDoc", "YamlProblem", "did_you_mean", "load_yaml"]

#: The largest YAML file the SDK reads (1 MiB): check files and app scripts are far smaller.
MAX_YAML_BYTES = 1024 * 1024
#: The deepest nesting of blocks and flow collections a file may have (a check needs 6).
MAX_YAML_DEPTH = 100
#: The most digits an integer may have (Rule 6).
MAX_INT_DIGITS = 30


class YamlProblem(ValueError):
    """A YAML file that can't be read; the message starts with ``file:line:``."""


class YamlDoc:
    """A parsed file: ``data`` (plain dicts and lists) and the line of each key or item."""

    def __init__(self, source: str, data: Any, node: Node | None) -> None:
        self.source = source
        self.data = data
        self._node = node

    def line(self, keys: Sequence[str | int]) -> int | None:
        """The 1-based line of the value at ``keys`` (dict keys and list indexes), or None.

        A dict key's line is where the key is written; a list item's where the item starts. When
        ``keys`` leads somewhere the file doesn't have, the line of the deepest key found.
        """
        node = self._node
        line: int | None = None
        for key in keys:
            found = _child(node, key)
            if found is None:
                return line
            line, node = found
        return line

    def copy(self) -> YamlDoc:
        """The same document with a copy of ``data`` that shares nothing mutable with this one."""
        return YamlDoc(self.source, _copy(self.data), self._node)

    def where(self, keys: Sequence[str | int]) -> str:
        """``file:line`` for the value at ``keys`` (``file`` alone when the line is unknown)."""
        line = self.line(keys)
        return self.source if line is None else f"{self.source}:{line}"


def _child(node: Node | None, key: str | int) -> tuple[int, Node] | None:
    """The line and node of ``key`` under ``node``: a dict key as written, or a list index."""
    if isinstance(node, MappingNode) and isinstance(key, str):
        for name, value in node.value:
            if isinstance(name, ScalarNode) and name.value == key:
                return name.start_mark.line + 1, value
    elif isinstance(node, SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        item = node.value[key]
        return item.start_mark.line + 1, item
    return None


def load_yaml(raw: bytes | str, source: str) -> YamlDoc:
    """Parse a YAML document from ``raw``; ``source`` names it in every message.

    A small file read again with the same text (a run reads its check file and heal file more
    than once) is parsed once (Rule 7); each caller gets its own copy of the data.
    """
    if isinstance(raw, bytes):
        if len(raw) > MAX_YAML_BYTES:
            raise YamlProblem(f"{source}: the file is {len(raw)} bytes; the limit is {MAX_YAML_BYTES}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlProblem(f"{source}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc
    else:
        text = valid_text(raw)
        if len(text.encode("utf-8")) > MAX_YAML_BYTES:
            raise YamlProblem(f"{source}: the file is over the {MAX_YAML_BYTES}-byte limit")
    parsed = _parsed(source, text) if len(text) <= _REMEMBERED_CHARS else _parse(source, text)
    return parsed.copy()


#: Rule 7: the most recent small files' parses are kept (a few MiB at most).
_REMEMBERED_CHARS = 8 * 1024
_REMEMBERED_FILES = 32


def _parse(source: str, text: str) -> YamlDoc:
    _refuse_deep_nesting(text, source)
    yaml = _yaml()
    try:
        data = yaml.load(text)
    except _Refused as exc:
        raise YamlProblem(f"{source}:{exc.line}: {exc}" if exc.line else f"{source}: {exc}") from None
    except RecursionError as exc:
        raise YamlProblem(f"{source}: the YAML is nested too deeply to read; flatten it") from exc
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        what = exc.problem or exc.context or "not valid YAML"
        raise YamlProblem(f"{source}{line}: {what}; fix the YAML there") from exc
    except YAMLError as exc:
        raise YamlProblem(f"{source}: not valid YAML ({exc})") from exc
    except ValueError as exc:  # a scalar the YAML library resolved but can't construct
        raise YamlProblem(f"{source}: not valid YAML ({exc}); quote the value if it is text") from exc
    return YamlDoc(source, valid_data(data), yaml.constructor.document)


_parsed = functools.lru_cache(maxsize=_REMEMBERED_FILES)(_parse)


def _copy(value: Any) -> Any:
    """A copy of parsed data that shares nothing mutable with it (its leaves are immutable)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if isinstance(value, set):
        return set(value)
    return value


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest allowed word, or a list of what is allowed."""
    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (allowed: {', '.join(options)})"


# -- Rules 4 and 6 ------------------------------------------------------------------------------


class _Refused(Exception):
    """A limit of Rule 4 or 6, hit inside the parser at ``line`` (1-based)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


_TOO_DEEP = f"nested more than {MAX_YAML_DEPTH} levels deep; flatten it"


class _DepthGuard:
    """Rule 4's backstop inside ruamel's scanner: stop at the depth limit, before the cost grows."""

    indents: list[int]
    flow_context: list[str]
    reader: Any

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: str) -> None:  # noqa: N803 - ruamel's name
        self._guard()
        super().fetch_flow_collection_start(TokenClass, to_push)  # type: ignore[misc]

    def add_indent(self, column: int) -> bool:
        added: bool = super().add_indent(column)  # type: ignore[misc]
        if added:
            self._guard()
        return added

    def _guard(self) -> None:
        if len(self.indents) + len(self.flow_context) >= MAX_YAML_DEPTH:
            raise _Refused(_TOO_DEEP, self.reader.get_mark().line + 1)


class _SafeScanner(_DepthGuard, Scanner):
    pass


class _SafeComposer(Composer):
    """Rule 4: refuse anchors and aliases where the first one is written, before anything is built.

    A few lines of them can expand to billions of values ("billion laughs"), and no file the SDK
    reads needs them.
    """

    parser: Any

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            raise _Refused(_NO_ANCHORS, line)
        return super().compose_node(parent, index)


_NO_ANCHORS = "anchors and aliases (&name, *name) are not allowed; write the value out"


class _SafeConstructor(SafeConstructor):
    """Rule 6: refuse an integer of too many digits where it is written; keep the document's nodes.

    The nodes (each with the line it starts on) are what :meth:`YamlDoc.line` reads (Rule 1).
    """

    document: Node | None = None

    def construct_document(self, node: Any) -> Any:
        self.document = node
        return super().construct_document(node)

    def construct_yaml_int(self, node: Any) -> Any:
        digits = len(str(node.value).lstrip("+-").replace("_", "").removeprefix("0x").removeprefix("0o"))
        if digits > MAX_INT_DIGITS:
            raise _Refused(
                f"a number of {digits} digits; numbers here have at most {MAX_INT_DIGITS} (quote it if it is text)",
                node.start_mark.line + 1,
            )
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            # ruamel resolves ``+_`` or ``0x_`` as an int and then can't read it: it is no number.
            raise _Refused(
                f"{str(node.value)[:40]!r} looks like a number but isn't one; quote it if it is text",
                node.start_mark.line + 1,
            ) from None


_SafeConstructor.add_constructor("tag:yaml.org,2002:int", _SafeConstructor.construct_yaml_int)


class _Yaml(YAML):
    constructor: _SafeConstructor


def _yaml() -> _Yaml:
    yaml = _Yaml(typ="safe", pure=True)
    yaml.Scanner = _SafeScanner
    yaml.Composer = _SafeComposer
    yaml.Constructor = _SafeConstructor
    return yaml


def _refuse_deep_nesting(text: str, source: str) -> None:
    """Rule 4's pre-scan: raise when the text nests deeper than ``MAX_YAML_DEPTH``.

    It reads the text the way YAML does where nesting is decided: block indentation, the ``- ``,
    ``? `` and ``: `` indicators, and ``[``/``{`` where a node may start (not inside quotes,
    comments or block scalars). One pass over the characters; it errs toward counting more.
    """
    scan = _DepthScan()
    for number, line in enumerate(text.split("\n"), 1):
        if scan.line(line.rstrip("\r")) > MAX_YAML_DEPTH:
            raise YamlProblem(f"{source}:{number}: the YAML is {_TOO_DEEP}")


class _DepthScan:
    """The state of Rule 4's pre-scan between lines."""

    def __init__(self) -> None:
        self.indents: list[int] = []
        self.flow = 0
        self.quote: str | None = None
        self.block_scalar: int | None = None
        self.expect_node = True
        self._extra = 0  # the nesting indicators (``- ``, ``? ``, ``: ``) of this line so far
        self._deepest = 0  # the deepest nesting of this line so far

    def line(self, line: str) -> int:
        """Scan one line; return the deepest nesting seen on it."""
        i = self._indent(line) if self.quote is None and self.flow == 0 else 0
        if i < 0:
            return 0  # a line that nests nothing: blank, a comment, or inside a block scalar
        self._extra = 0
        self._deepest = len(self.indents) + self.flow
        while i < len(line):
            i = self._step(line, i)
        return self._deepest

    def _indent(self, line: str) -> int:
        """Block indentation: where the line's content starts, or -1 for a line that nests nothing."""
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if self.block_scalar is not None:
            if not stripped.strip() or indent > self.block_scalar:
                return -1
            self.block_scalar = None
        if not stripped or stripped.startswith("#"):
            return -1
        while self.indents and self.indents[-1] > indent:
            self.indents.pop()
        if not self.indents or self.indents[-1] < indent:
            self.indents.append(indent)
        self.expect_node = True
        return indent

    def _step(self, line: str, i: int) -> int:
        """Scan the character at ``i``; return where to go on (the line's length to stop)."""
        c = line[i]
        if self.quote is not None:
            return self._close_quote(line, i)
        if c in " \t":
            return i + 1
        if c == "#" and (i == 0 or line[i - 1] in " \t"):
            return len(line)
        blank_after = i + 1 == len(line) or line[i + 1] in " \t"
        if self.expect_node:
            moved = self._node_start(line, i, blank_after=blank_after)
            if moved is not None:
                return moved
            self.expect_node = False
        if self.flow:
            if c in "]}":
                self.flow -= 1
            elif c == "," or (c == ":" and (blank_after or line[i + 1] in ",[]{}")):
                self.expect_node = True
        elif c == ":" and blank_after:
            self.expect_node = True
        return i + 1

    def _node_start(self, line: str, i: int, *, blank_after: bool) -> int | None:
        """Where a node may start: an indicator that nests, a quote, a block scalar, a property.

        Returns where to go on, or None when the character starts a plain scalar.
        """
        c = line[i]
        if c in "-?:" and blank_after and self.flow == 0:
            self._extra += 1
            self._deepest = max(self._deepest, len(self.indents) + self._extra)
            return i + 1
        if c in "[{":
            self.flow += 1
            self._deepest = max(self._deepest, len(self.indents) + self._extra + self.flow)
            return i + 1
        if c in "\"'":
            self.quote = c
            return i + 1
        if c in "|>" and self.flow == 0:
            self.block_scalar = len(line) - len(line.lstrip(" "))
            return len(line)
        if c in "&!":
            while i < len(line) and line[i] not in " \t":
                i += 1
            return i
        return None

    def _close_quote(self, line: str, i: int) -> int:
        """Move past the end of the open quoted scalar on this line, or to the end of the line."""
        n = len(line)
        while i < n:
            c = line[i]
            if self.quote == "'" and c == "'":
                if i + 1 < n and line[i + 1] == "'":
                    i += 2
                    continue
                self.quote = None
                self.expect_node = False
                return i + 1
            if self.quote == '"':
                if c == "\\":
                    i += 2
                    continue
                if c == '"':
                    self.quote = None
                    self.expect_node = False
                    return i + 1
            i += 1
        return n
