"""The safe parser (of the YAML reader, ``yaml``): ruamel's safe mode, refusing where a file writes it.

Rule 4: a key written twice in one mapping is refused, naming the key and both lines.
Rule 5: anchors and aliases are refused where the first is written; the scanner stops at
        ``MAX_YAML_DEPTH`` (the backstop of ``yaml_depth``'s pre-scan).
Rule 7: an integer of more than ``MAX_INT_DIGITS`` digits is refused where it is written: no
        file the SDK reads needs one, and Python won't even print one of 4,300 digits.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode
from ruamel.yaml.scanner import Scanner

from .problems import Keys, dotted
from .yaml_depth import FLATTEN, MAX_YAML_DEPTH, TOO_DEEP

__all__ = ["MAX_INT_DIGITS", "Refused", "located", "safe_yaml"]

#: The most digits an integer may have (Rule 7).
MAX_INT_DIGITS = 30


class Refused(Exception):
    """A limit of Rule 4, 5 or 7, hit inside the parser at ``line`` (1-based), at ``key``."""

    def __init__(self, problem: str, fix: str, line: int, key: str | None = None) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem
        self.fix = fix
        self.line = line
        self.key = key


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
            raise Refused(TOO_DEEP, FLATTEN, self.reader.get_mark().line + 1)


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
            raise Refused(_NO_ANCHORS, _WRITE_IT_OUT, line, dotted(keys))
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
        raise Refused(
            f"the key is written twice (lines {where})" if len(lines) == 2 else "the key is written twice",
            "keep one of them",
            key_node.start_mark.line + 1,
            dotted((*(_path_to(self.document, node) or ()), str(key))),
        )

    def construct_yaml_int(self, node: Any) -> Any:
        digits = len(str(node.value).lstrip("+-").replace("_", "").removeprefix("0x").removeprefix("0o"))
        if digits > MAX_INT_DIGITS:
            raise Refused(
                f"a number of {digits} digits; numbers here have at most {MAX_INT_DIGITS}",
                "quote it if it is text",
                node.start_mark.line + 1,
                dotted(_path_to(self.document, node) or ()),
            )
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            # ruamel resolves ``+_`` or ``0x_`` as an int and then can't read it: it is no number.
            raise Refused(
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


def located(root: Node | None, mark: Any) -> tuple[int | None, str | None]:
    """The line of ``mark`` and the key path of the node that starts there (None when none does)."""
    if mark is None:
        return None, None
    keys = next(
        (k for node, k in _nodes(root) if node.start_mark is not None and node.start_mark.index == mark.index), None
    )
    return mark.line + 1, dotted(keys) if keys else None


class _Yaml(YAML):
    constructor: _SafeConstructor


def safe_yaml() -> _Yaml:
    yaml = _Yaml(typ="safe", pure=True)
    yaml.Scanner = _SafeScanner
    yaml.Composer = _SafeComposer
    yaml.Constructor = _SafeConstructor
    return yaml
