r"""The one strict YAML reader: check files, app scripts, heal files and Appium caps files.

Rule 1: a file is parsed once, in ruamel's safe mode (no Python tags, no anchors), which decides
        whether it is acceptable; the document's nodes are kept beside the data, and give the
        line of each key for messages. JSON is YAML, so a JSON file reads too.
Rule 2: a file larger than ``MAX_YAML_BYTES`` or not UTF-8 is refused before parsing (a UTF-16
        file is named as one). A UTF-8 byte order mark and CRLF line ends read as if absent.
Rule 3: every problem is a :class:`YamlProblem` that reads ``file:line: key.path: what is wrong;
        what to write instead`` (``problems``, where the words every reader shares are).
Rules 4, 5 and 7: a key written twice, anchors and aliases, nesting deeper than
        ``MAX_YAML_DEPTH`` and integers of more than ``MAX_INT_DIGITS`` digits are refused where
        they are written (``yaml_safe``; nesting first by a linear pre-scan, ``yaml_depth``).
Rule 6: the text of a file is valid Unicode once loaded: a ``"\ud83d\ude00"`` escape pair reads as
        the character it encodes, a lone ``"\ud800"`` as U+FFFD (``text.py``, Rule 1).
Rule 8: the parses of the most recent files are kept by their name and text, so a file read
        again unchanged (a check, its heal file, an app script, at every run of a suite) is
        parsed once whatever its size: the last 32 files, whose texts hold at most 4 MiB in all
        (a file over 4 MiB is parsed each time); every caller gets its own copy of the data (the
        kept parse is never handed out), and a file that fails is parsed again.
"""

from __future__ import annotations

import contextlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from ruamel.yaml.constructor import ConstructorError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .problems import KeyedProblem, Keys, YamlProblem, YamlSyntaxError, did_you_mean, dotted, kind_of, quote_fix
from .text import valid_data, valid_text
from .yaml_depth import MAX_YAML_DEPTH, refuse_deep_nesting
from .yaml_safe import MAX_INT_DIGITS, Refused, located
from .yaml_safe import safe_yaml as _yaml  # looked up by this name when a file is parsed

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
    refuse_deep_nesting(text, source)  # before Python's JSON parser, which recurses and has no cap of its own
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
    refuse_deep_nesting(text, source)
    yaml = _yaml()
    try:
        data = yaml.load(text)
    except Refused as exc:
        raise YamlProblem(source, exc.problem, exc.fix, line=exc.line or None, key=exc.key) from None
    except RecursionError as exc:
        raise YamlProblem(source, "the YAML is nested too deeply to read", "flatten it") from exc
    except ConstructorError as exc:  # a tag no constructor reads: a value, at a key
        mark = exc.problem_mark or exc.context_mark
        where = located(yaml.constructor.document, mark)
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
