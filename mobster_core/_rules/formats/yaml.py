r"""The one strict YAML reader: check files, app scripts, heal files and Appium caps files.

Rule 1: a file is parsed once, in ruamel's safe mode (no Python tags, no anchors), which decides
        whether it is acceptable; the document's nodes are kept beside the data, and give the
        line of each key for messages. JSON is YAML, so a JSON file reads too.
Rule 2: a file larger than ``MAX_YAML_BYTES`` or not UTF-8 is refused before parsing (a UTF-16
        file is named as one). A UTF-8 byte order mark and CRLF line ends read as if absent.
Rule 3: every problem is a :class:`YamlProblem` that reads ``file:line: key.path: what is wrong;
        what to write instead``, with the line and the key when they are known (a syntax error
        has a line, and no key the parser can vouch for). :func:`dotted` spells key paths,
        :func:`kind_of` describes a value, :func:`quote_fix` says how to write a string,
        :func:`did_you_mean` hints at an unknown key, so
        every caller's own schema errors read the same way.
Rule 4: a key written twice in one mapping is refused, naming the key and both lines.
Rule 5: anchors and aliases are refused. Nesting deeper than ``MAX_YAML_DEPTH`` (100 levels of
        blocks and flow collections) is refused before the parser runs: a pre-scan of the text
        measures it in linear time, and the parser's scanner stops at the same depth should the
        pre-scan ever read a file differently (ruamel's scanner costs time quadratic in depth:
        5,000 levels took 14 s).
Rule 6: the text of a file is valid Unicode once loaded: a ``"\ud83d\ude00"`` escape pair reads as
        the character it encodes, a lone ``"\ud800"`` as U+FFFD (``text.py``, Rule 1).
Rule 7: an integer of more than ``MAX_INT_DIGITS`` digits is refused where it is written: no
        file the SDK reads needs one, and Python won't even print one of 4,300 digits.
Rule 8: the parses of the most recent files are kept by their name and text, so a file read
        again unchanged (a check, its heal file, an app script, at every run of a suite) is
        parsed once whatever its size: the last 32 files, whose texts hold at most 4 MiB in all
        (a file over 4 MiB is parsed each time); every caller gets its own copy of the data (the
        kept parse is never handed out), and a file that fails is parsed again.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import ConstructorError, SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.scanner import Scanner

from .text import valid_data, valid_text

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "KeyedProblem",
    "Keys",
    "YamlDoc",
    "YamlProblem",
    "YamlSyntaxError",
    "did_you_mean",
    "dotted",
    "kind_of",
    "load_json",
    "load_yaml",
    "quote_fix",
]

#: The largest YAML file the SDK reads (1 MiB): check files and app scripts are far smaller.
MAX_YAML_BYTES = 1024 * 1024
#: The deepest nesting of blocks and flow collections a file may have (a check needs 6).
MAX_YAML_DEPTH = 100
#: The most digits an integer may have (Rule 7).
MAX_INT_DIGITS = 30


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

    def problem(self, keys: Keys, problem: str, fix: str = "") -> YamlProblem:
        """The :class:`YamlProblem` of the value at ``keys``: its file, line and key (Rule 3)."""
        return YamlProblem(self.source, problem, fix, line=self.line(keys), key=dotted(keys))


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
    """Parse a YAML (or JSON) document from ``raw``; ``source`` names it in every message.

    Raises :class:`YamlProblem` (:class:`YamlSyntaxError` for text that isn't YAML). A small file
    read again with the same text (a run reads its check file and heal file more than once) is
    parsed once (Rule 8); each caller gets its own copy of the data.
    """
    text = _decoded(raw, source)
    parsed = _parsed(source, text)
    return parsed.copy()


def load_json(raw: bytes | str, source: str) -> YamlDoc:
    """Parse a JSON document from ``raw``: JSON's syntax, and everything else as :func:`load_yaml`.

    A file that promises JSON (a ``.json`` file, a JSON value in an environment variable) is held
    to JSON's grammar by Python's own JSON parser (``NaN`` and ``Infinity`` are not JSON), then
    read as YAML (JSON is YAML), so its lines, duplicate keys, limits and messages are the ones
    every file gets (Rule 1). Raises :class:`YamlSyntaxError` for text that isn't JSON.
    """
    text = _decoded(raw, source)
    _refuse_deep_nesting(text, source)  # before Python's JSON parser, which recurses and has no cap of its own
    try:
        json.loads(text.removeprefix("\ufeff"), parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise YamlSyntaxError(source, f"not valid JSON ({exc.msg})", "fix the JSON there", line=exc.lineno) from None
    except ValueError as exc:
        raise YamlSyntaxError(source, f"not valid JSON ({exc})", "write a number, or quote it") from None
    parsed = _parsed(source, text)
    return parsed.copy()


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON number")


_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def _decoded(raw: bytes | str, source: str) -> str:
    """Rule 2: the text of a file of at most ``MAX_YAML_BYTES``, UTF-8."""
    if isinstance(raw, str):
        text = valid_text(raw)
        if len(text.encode("utf-8")) > MAX_YAML_BYTES:
            raise YamlProblem(source, f"the file is over the {MAX_YAML_BYTES}-byte limit")
        return text
    if len(raw) > MAX_YAML_BYTES:
        raise YamlProblem(source, f"the file is {len(raw)} bytes; the limit is {MAX_YAML_BYTES}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if raw.startswith(_UTF16_MARKS):
            problem = "not UTF-8 text: it is UTF-16 (it starts with its byte order mark)"
            raise YamlProblem(source, problem, _AS_UTF8) from exc
        raise YamlProblem(source, f"not UTF-8 text (byte {exc.start})", _AS_UTF8) from exc


_AS_UTF8 = "save it as UTF-8"

#: Rule 8: the most recent files' parses are kept: this many files, their texts this many characters in all.
_REMEMBERED_CHARS = 4 * 1024 * 1024
_REMEMBERED_FILES = 32


def _parse(source: str, text: str) -> YamlDoc:
    _refuse_deep_nesting(text, source)
    yaml = _yaml()
    try:
        data = yaml.load(text)
    except _Refused as exc:
        raise YamlProblem(source, exc.problem, exc.fix, line=exc.line or None, key=exc.key) from None
    except RecursionError as exc:
        raise YamlProblem(source, "the YAML is nested too deeply to read", "flatten it") from exc
    except ConstructorError as exc:  # a tag no constructor reads: a value, at a key
        mark = exc.problem_mark or exc.context_mark
        where = _located(yaml.constructor.document, mark)
        fix = "remove the tag (quote the value if it is text)"
        raise YamlProblem(source, exc.problem or "not valid YAML", fix, line=where[0], key=where[1]) from exc
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise YamlSyntaxError(source, exc.problem or exc.context or "not valid YAML", _FIX_YAML, line=line) from exc
    except YAMLError as exc:
        raise YamlSyntaxError(source, f"not valid YAML ({exc})") from exc
    except ValueError as exc:  # a scalar the YAML library resolved but can't construct
        raise YamlProblem(source, f"not valid YAML ({exc})", "quote the value if it is text") from exc
    return YamlDoc(source, valid_data(data), yaml.constructor.document)


_FIX_YAML = "fix the YAML there"

_kept: OrderedDict[tuple[str, str], YamlDoc] = OrderedDict()


def _parsed(source: str, text: str) -> YamlDoc:
    """Rule 8: ``_parse``, its result kept for the most recent files within the budget.

    Readers may run in worker threads (a driver's app script): every step tolerates another
    thread's change to the kept parses between two of its operations (the GIL makes each one whole).
    """
    key = (source, text)
    doc = _kept.get(key)
    if doc is not None:
        with contextlib.suppress(KeyError):
            _kept.move_to_end(key)
        return doc
    doc = _parse(source, text)
    if len(text) > _REMEMBERED_CHARS:
        return doc
    _kept[key] = doc
    while len(_kept) > _REMEMBERED_FILES or sum(len(t) for _, t in list(_kept)) > _REMEMBERED_CHARS:
        try:
            _kept.popitem(last=False)
        except KeyError:
            break
    return doc


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


# -- Rule 3: the words every reader's messages share ----------------------------------------------

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_:-]*")
_SHOW_CHARS = 80
_SHOW_PATH = 200


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest allowed word, or a list of what is allowed."""
    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (allowed: {', '.join(options)})"


def dotted(keys: Sequence[str | int]) -> str:
    """``expect[2].count.equals`` for ``("expect", 2, "count", "equals")`` (list indexes from 0).

    A key that isn't a plain name is quoted (``apps."com.example.a".screens``); a path longer
    than 200 characters keeps its end, the part that names the value.
    """
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key}]"
        elif _PLAIN_KEY.fullmatch(key):
            out += f".{key}" if out else key
        else:
            quoted = '"' + key.replace('"', '\\"') + '"'
            out += f".{quoted}" if out else quoted
    return out if len(out) <= _SHOW_PATH else "\u2026" + out[-(_SHOW_PATH - 1) :]


def quote_fix(keys: Keys, value: Any) -> str:
    """What to write for a value that should have been a string: ``quote it: name: "3"``."""
    if not isinstance(value, bool | int | float):
        return "write a string"
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    shown = json.dumps(text, ensure_ascii=False)
    last = keys[-1] if keys else None
    return f"quote it: {last}: {shown}" if isinstance(last, str) else f"quote it: {shown}"


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


# -- Rules 4, 5 and 7: refused inside the parser, where they are written ---------------------------


class _Refused(Exception):
    """A limit of Rule 4, 5 or 7, hit inside the parser at ``line`` (1-based), at ``key``."""

    def __init__(self, problem: str, fix: str, line: int, key: str | None = None) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem
        self.fix = fix
        self.line = line
        self.key = key


_TOO_DEEP = f"nested more than {MAX_YAML_DEPTH} levels deep"
_FLATTEN = "flatten it"


class _DepthGuard:
    """Rule 5's backstop inside ruamel's scanner: stop at the depth limit, before the cost grows."""

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
            raise _Refused(_TOO_DEEP, _FLATTEN, self.reader.get_mark().line + 1)


class _SafeScanner(_DepthGuard, Scanner):
    pass


class _SafeComposer(Composer):
    """Rule 5: refuse anchors and aliases where the first one is written, before anything is built.

    A few lines of them can expand to billions of values ("billion laughs"), and no file the SDK
    reads needs them. The composer keeps the key path of each node it is composing, for the message.
    """

    parser: Any

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self._paths: list[Keys] = []

    def compose_node(self, parent: Any, index: Any) -> Any:
        keys = self._keys(parent, index)
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            raise _Refused(_NO_ANCHORS, _WRITE_IT_OUT, line, dotted(keys))
        self._paths.append(keys)
        try:
            return super().compose_node(parent, index)
        finally:
            self._paths.pop()

    def _keys(self, parent: Node | None, index: Any) -> Keys:
        """The key path of the node about to be composed under ``parent``: ``index`` is its key or place."""
        if parent is None or not self._paths:
            return ()
        base = self._paths[-1]
        if isinstance(index, ScalarNode):
            return (*base, str(index.value))
        if isinstance(index, int):
            return (*base, index)
        return base  # a mapping's key, or a value under a key that isn't a scalar


_NO_ANCHORS = "anchors and aliases (&name, *name) are not allowed"
_WRITE_IT_OUT = "write the value out"


class _SafeConstructor(SafeConstructor):
    """Rules 4 and 7: refuse a key written twice and an integer of too many digits where written.

    It keeps the document's nodes: each with the line it starts on, they are what
    :meth:`YamlDoc.line` reads (Rule 1), and they give a problem's key path.
    """

    document: Node | None = None

    def construct_document(self, node: Any) -> Any:
        self.document = node
        return super().construct_document(node)

    def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, *_value: Any) -> bool:
        if key not in mapping:
            return True
        first = next(
            (k for k, _ in node.value if k is not key_node and self.construct_object(k, deep=True) == key), None
        )
        lines = [n.start_mark.line + 1 for n in (first, key_node) if n is not None]
        where = " and ".join(str(n) for n in lines)
        raise _Refused(
            f"the key is written twice (lines {where})" if len(lines) == 2 else "the key is written twice",
            "keep one of them",
            key_node.start_mark.line + 1,
            dotted((*(_path_to(self.document, node) or ()), str(key))),
        )

    def construct_yaml_int(self, node: Any) -> Any:
        digits = len(str(node.value).lstrip("+-").replace("_", "").removeprefix("0x").removeprefix("0o"))
        if digits > MAX_INT_DIGITS:
            raise _Refused(
                f"a number of {digits} digits; numbers here have at most {MAX_INT_DIGITS}",
                "quote it if it is text",
                node.start_mark.line + 1,
                dotted(_path_to(self.document, node) or ()),
            )
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            # ruamel resolves ``+_`` or ``0x_`` as an int and then can't read it: it is no number.
            raise _Refused(
                f"{str(node.value)[:40]!r} looks like a number but isn't one",
                "quote it if it is text",
                node.start_mark.line + 1,
                dotted(_path_to(self.document, node) or ()),
            ) from None


_SafeConstructor.add_constructor("tag:yaml.org,2002:int", _SafeConstructor.construct_yaml_int)


def _nodes(root: Node | None) -> Iterator[tuple[Node, Keys]]:
    """Every value node under ``root`` (mapping keys aside), with its key path."""
    stack: list[tuple[Node, Keys]] = [] if root is None else [(root, ())]
    while stack:
        node, keys = stack.pop()
        yield node, keys
        if isinstance(node, MappingNode):
            for name, value in node.value:
                stack.append((value, (*keys, str(name.value) if isinstance(name, ScalarNode) else "?")))
        elif isinstance(node, CollectionNode):
            stack.extend((item, (*keys, i)) for i, item in enumerate(node.value))


def _path_to(root: Node | None, target: Node) -> Keys | None:
    """The key path from ``root`` to the node ``target`` (by identity), or None when it isn't there."""
    return next((keys for node, keys in _nodes(root) if node is target), None)


def _located(root: Node | None, mark: Any) -> tuple[int | None, str | None]:
    """The line of ``mark`` and the key path of the node that starts there (None when none does)."""
    if mark is None:
        return None, None
    keys = next(
        (k for node, k in _nodes(root) if node.start_mark is not None and node.start_mark.index == mark.index), None
    )
    return mark.line + 1, dotted(keys) if keys else None


class _Yaml(YAML):
    constructor: _SafeConstructor


def _yaml() -> _Yaml:
    yaml = _Yaml(typ="safe", pure=True)
    yaml.Scanner = _SafeScanner
    yaml.Composer = _SafeComposer
    yaml.Constructor = _SafeConstructor
    return yaml


def _refuse_deep_nesting(text: str, source: str) -> None:
    """Rule 5's pre-scan: raise when the text nests deeper than ``MAX_YAML_DEPTH``.

    It reads the text the way YAML does where nesting is decided: block indentation, the ``- ``,
    ``? `` and ``: `` indicators, and ``[``/``{`` where a node may start (not inside quotes,
    comments or block scalars). One pass over the characters; it errs toward counting more.
    Lines end where ruamel's reader ends them (LF, CRLF, a lone CR, NEL, LS and PS), so the
    line it names is the one an editor shows.
    """
    scan = _DepthScan()
    for number, line in enumerate(_LINE_BREAK.split(text), 1):
        if scan.line(line) > MAX_YAML_DEPTH:
            raise YamlProblem(source, f"the YAML is {_TOO_DEEP}", _FLATTEN, line=number)


_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class _DepthScan:
    """The state of Rule 5's pre-scan between lines."""

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
