"""Rule 5's pre-scan (of the YAML reader, ``yaml``): nesting measured before the parser runs.

Rule 5: nesting deeper than ``MAX_YAML_DEPTH`` (100 levels of blocks and flow collections) is
        refused before the parser runs: this pre-scan of the text measures it in linear time, and
        the parser's scanner stops at the same depth should the pre-scan ever read a file
        differently (``yaml_safe``; ruamel's scanner costs time quadratic in depth: 5,000 levels
        took 14 s).
"""

from __future__ import annotations

import re

from .problems import YamlProblem

__all__ = ["FLATTEN", "MAX_YAML_DEPTH", "TOO_DEEP", "refuse_deep_nesting"]

#: The deepest nesting of blocks and flow collections a file may have (a check needs 6).
MAX_YAML_DEPTH = 100

TOO_DEEP = f"nested more than {MAX_YAML_DEPTH} levels deep"
FLATTEN = "flatten it"


def refuse_deep_nesting(text: str, source: str) -> None:
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
            raise YamlProblem(source, f"the YAML is {TOO_DEEP}", FLATTEN, line=number)


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
