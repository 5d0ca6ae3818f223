r"""A subset of Apple's NSPredicate, as WebDriverAgent's ``predicate string`` locator takes it.

The fake WDA (``mobster_drivers.testing.wda``) evaluates ``POST /session/:id/elements`` with it.
Checked against Apple's "Predicate Format String Syntax" and WDA's ``NSPredicate+FBFormat``
(appium/WebDriverAgent): keys are WDA's element attributes, and a key WDA doesn't know is an
error, not a false.

Rule 1: the grammar: ``OR``/``||``, ``AND``/``&&``, ``NOT``/``!``, parentheses,
        ``TRUEPREDICATE``/``FALSEPREDICATE``, and comparisons ``key OP value`` (either side may
        be the key) with ``==``/``=``, ``!=``/``<>``, ``<``, ``<=``, ``>``, ``>=``, ``IN``,
        ``CONTAINS``, ``BEGINSWITH``, ``ENDSWITH``, ``LIKE`` (``*`` and ``?``) and ``MATCHES``
        (a whole-string regex), each string operator with ``[c]``, ``[d]`` or ``[cd]``. Keywords
        are case-insensitive. Values: strings in single or double quotes (backslash escapes:
        ``\\ \" \' \n \t \r \uXXXX``), numbers, ``YES``/``NO``/``TRUE``/``FALSE``, ``nil``/``NULL``,
        and ``{…}`` lists.
Rule 2: ``AND`` and ``OR`` evaluate left to right and stop early, as Foundation does: a key on the
        right (WDA's costly ``visible``) is not read for an element the left side already decided.
Rule 3: a number and a boolean compare as numbers (``visible == 1`` holds for a visible element;
        ``visible == "1"`` doesn't: a string is not a number). ``nil`` equals only a missing value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import attrs

__all__ = ["Predicate", "PredicateError", "parse_predicate"]

#: The longest predicate accepted, in characters, and the longest ``MATCHES`` pattern.
MAX_PREDICATE_CHARS = 100_000
MAX_REGEX_CHARS = 500

Lookup: TypeAlias = Callable[[str], Any]


class PredicateError(ValueError):
    """The predicate can't be parsed (Rule 1); ``str()`` says where."""


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<number>-?\d+(?:\.\d+)?)
      | (?P<op>==|!=|<>|<=|>=|=|<|>|&&|\|\||!|\(|\)|\{|\}|,|\[[cdCD]{1,2}\])
      | (?P<word>[A-Za-z_$@][A-Za-z0-9_.$@]*)
    )""",
    re.VERBOSE,
)
_STRING_OPS = frozenset({"CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "IN"})
_COMPARE_OPS = frozenset({"==", "=", "!=", "<>", "<", "<=", ">", ">="})
_CONSTANTS = {"YES": True, "TRUE": True, "NO": False, "FALSE": False, "NIL": None, "NULL": None}
_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r"}


@attrs.frozen
class _Key:
    name: str


@attrs.frozen
class _Compare:
    left: Any
    op: str
    right: Any
    fold: bool = False  # [c]
    strip: bool = False  # [d]


@attrs.frozen
class _Logic:
    op: str  # AND, OR, NOT, TRUE, FALSE
    parts: tuple[Any, ...] = ()


@attrs.frozen
class Predicate:
    """A parsed predicate; :meth:`matches` evaluates it with a key lookup (Rules 2 and 3)."""

    source: str
    tree: Any

    @property
    def keys(self) -> frozenset[str]:
        """Every key the predicate names."""
        out: set[str] = set()
        stack = [self.tree]
        while stack:
            node = stack.pop()
            if isinstance(node, _Logic):
                stack.extend(node.parts)
            elif isinstance(node, _Compare):
                stack.extend(side for side in (node.left, node.right) if isinstance(side, _Key))
            elif isinstance(node, _Key):
                out.add(node.name)
        return frozenset(out)

    def matches(self, lookup: Lookup) -> bool:
        """Does an element whose key values ``lookup`` gives match? Keys are read lazily."""
        return _evaluate(self.tree, lookup)


def parse_predicate(text: str) -> Predicate:
    """Parse a predicate string (Rule 1); raises :class:`PredicateError`."""
    if len(text) > MAX_PREDICATE_CHARS:
        raise PredicateError(f"the predicate is {len(text):,} characters; the limit is {MAX_PREDICATE_CHARS:,}")
    parser = _Parser(text, _tokens(text))
    tree = parser.disjunction()
    if parser.at < len(parser.tokens):
        raise PredicateError(f"Unable to parse the format string {text!r}: unexpected {parser.tokens[parser.at][1]!r}")
    return Predicate(text, tree)


def _tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    at = 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise PredicateError(f"Unable to parse the format string {text!r} at character {at}")
        at = match.end()
        kind = match.lastgroup
        value = match.group(kind or "")
        if kind == "string":
            out.append(("value", _unquote(value, text)))
        elif kind == "number":
            out.append(("value", float(value) if "." in value else int(value)))
        elif kind == "word" and value.upper() in _CONSTANTS:
            out.append(("value", _CONSTANTS[value.upper()]))
        elif kind == "word":
            upper = value.upper()
            keyword = upper in {"AND", "OR", "NOT", "TRUEPREDICATE", "FALSEPREDICATE"} | _STRING_OPS
            out.append(("op", upper) if keyword else ("key", value))
        else:
            out.append(("op", value.lower() if value.startswith("[") else value))
    return out


def _unquote(token: str, text: str) -> str:
    body = token[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            raise PredicateError(f"Unable to parse the format string {text!r}: bad escape \\{nxt}")
    return "".join(out)


class _Parser:
    def __init__(self, text: str, tokens: list[tuple[str, Any]]) -> None:
        self.text = text
        self.tokens = tokens
        self.at = 0

    def _peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self) -> tuple[str, Any]:
        token = self._peek()
        if token is None:
            raise PredicateError(f"Unable to parse the format string {self.text!r}: it ends too early")
        self.at += 1
        return token

    def _is(self, *ops: str) -> bool:
        token = self._peek()
        return token is not None and token[0] == "op" and token[1] in ops

    def disjunction(self) -> Any:
        parts = [self.conjunction()]
        while self._is("OR", "||"):
            self.at += 1
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else _Logic("OR", tuple(parts))

    def conjunction(self) -> Any:
        parts = [self.negation()]
        while self._is("AND", "&&"):
            self.at += 1
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else _Logic("AND", tuple(parts))

    def negation(self) -> Any:
        if self._is("NOT", "!"):
            self.at += 1
            return _Logic("NOT", (self.negation(),))
        return self.primary()

    def primary(self) -> Any:
        if self._is("("):
            self.at += 1
            inner = self.disjunction()
            if not self._is(")"):
                raise PredicateError(f"Unable to parse the format string {self.text!r}: a ( is not closed")
            self.at += 1
            return inner
        if self._is("TRUEPREDICATE"):
            self.at += 1
            return _Logic("TRUE")
        if self._is("FALSEPREDICATE"):
            self.at += 1
            return _Logic("FALSE")
        left = self.operand()
        kind, op = self._take()
        if kind != "op" or (op not in _COMPARE_OPS and op not in _STRING_OPS):
            raise PredicateError(f"Unable to parse the format string {self.text!r}: expected an operator, got {op!r}")
        fold = strip = False
        if self._peek() is not None and self._peek()[0] == "op" and str(self._peek()[1]).startswith("["):  # type: ignore[index]
            flags = str(self._take()[1])
            fold, strip = "c" in flags, "d" in flags
        right = self.operand()
        return _Compare(left, op, right, fold, strip)

    def operand(self) -> Any:
        kind, value = self._take()
        if kind == "key":
            return _Key(value)
        if kind == "value":
            return value
        if kind == "op" and value == "{":
            items: list[Any] = []
            while not self._is("}"):
                item_kind, item = self._take()
                if item_kind != "value":
                    raise PredicateError(f"Unable to parse the format string {self.text!r}: a list holds constants")
                items.append(item)
                if self._is(","):
                    self.at += 1
                elif not self._is("}"):
                    raise PredicateError(f"Unable to parse the format string {self.text!r}: expected , or }}")
            self.at += 1
            return tuple(items)
        raise PredicateError(f"Unable to parse the format string {self.text!r}: unexpected {value!r}")


def _evaluate(node: Any, lookup: Lookup) -> bool:
    if isinstance(node, _Logic):
        if node.op == "AND":
            return all(_evaluate(p, lookup) for p in node.parts)  # stops at the first false
        if node.op == "OR":
            return any(_evaluate(p, lookup) for p in node.parts)
        if node.op == "NOT":
            return not _evaluate(node.parts[0], lookup)
        return node.op == "TRUE"
    assert isinstance(node, _Compare)
    left = lookup(node.left.name) if isinstance(node.left, _Key) else node.left
    right = lookup(node.right.name) if isinstance(node.right, _Key) else node.right
    return _compare(left, node.op, right, node)


def _norm(value: Any, node: _Compare) -> Any:
    if not isinstance(value, str):
        return value
    if node.strip:
        value = "".join(c for c in unicodedata.normalize("NFD", value) if not unicodedata.combining(c))
    return value.casefold() if node.fold else value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    return None


def _equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    na, nb = _number(a), _number(b)
    if na is not None and nb is not None:
        return na == nb
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return False


def _compare(left: Any, op: str, right: Any, node: _Compare) -> bool:
    a, b = _norm(left, node), _norm(right, node)
    if op in ("==", "="):
        return _equal(a, b)
    if op in ("!=", "<>"):
        return not _equal(a, b)
    if op == "IN":
        items: Sequence[Any] = b if isinstance(b, tuple) else ()
        if isinstance(b, str) and isinstance(a, str):
            return a in b
        return any(_equal(a, _norm(item, node)) for item in items)
    if op in ("<", "<=", ">", ">="):
        na, nb = _number(a), _number(b)
        if na is None or nb is None:
            if isinstance(a, str) and isinstance(b, str):
                na_s, nb_s = a, b
                return {"<": na_s < nb_s, "<=": na_s <= nb_s, ">": na_s > nb_s, ">=": na_s >= nb_s}[op]
            return False
        return {"<": na < nb, "<=": na <= nb, ">": na > nb, ">=": na >= nb}[op]
    if not isinstance(a, str):
        return False
    if op == "CONTAINS":
        if isinstance(b, tuple):
            return False
        return isinstance(b, str) and b in a
    if not isinstance(b, str):
        return False
    if op == "BEGINSWITH":
        return a.startswith(b)
    if op == "ENDSWITH":
        return a.endswith(b)
    if op == "LIKE":
        pattern = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in b)
        return re.fullmatch(pattern, a, re.DOTALL) is not None
    if len(b) > MAX_REGEX_CHARS:
        raise PredicateError(f"the MATCHES pattern is {len(b)} characters; the limit is {MAX_REGEX_CHARS}")
    try:
        return re.fullmatch(b, a) is not None
    except re.error as exc:
        raise PredicateError(f"Can't do regex matching, reason: {exc}") from exc
