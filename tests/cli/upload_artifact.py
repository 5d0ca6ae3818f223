"""What ``actions/upload-artifact`` uploads for a ``path:`` input: its search, ported from its source.

Read from actions/upload-artifact v7 (``src/shared/search.ts``: ``findFilesToUpload`` and
``getMultiPathLCA``), the ``@actions/glob`` it calls (``internal-pattern.ts``,
``internal-pattern-helper.ts``, ``internal-globber.ts``: patterns, search paths, implicit
descendants, hidden files) and ``@actions/artifact``'s zip specification
(``upload-zip-specification.ts``, ``path-and-artifact-name-validation.ts``: each file's name in
the artifact is its path below the root directory, and a name holding ``"`` ``:`` ``<`` ``>``
``|`` ``*`` ``?`` or a line break fails the upload). ``test_workflow.py`` holds this port to the
action's own search tests (``__tests__/search.test.ts``). :func:`broken_links` says which links of
an artifact's pages and JUnit files point at a file the artifact doesn't hold.

Rules kept, as the action has them:

1. ``path:`` is split into lines, each trimmed; empty lines and lines starting with ``#`` are
   skipped; leading ``!`` negates (each one flips it). A relative pattern is under the workspace
   (the working folder); ``.`` and ``..`` segments are refused (a leading ``./`` is the workspace).
2. A pattern's search path is its literal segments before the first one with a glob (``*``,
   ``?``, a ``[set]`` of more than one character). The search paths are the patterns' (not the
   negated ones), without duplicates and without those below another.
3. Matching is minimatch's with ``dot`` (a ``*`` matches a leading dot), no braces, no extglobs;
   ``**`` as a whole segment is any number of segments. A pattern ending in ``/`` matches
   directories only. Each pattern not ending in ``**`` (or ending in ``/``) also matches its
   matches' descendants (``implicitDescendants``). A later negated pattern takes away what it
   matches.
4. The walk starts at each search path that exists; with ``include-hidden-files: false`` (the
   default) an item whose name starts with ``.`` is skipped with all it holds, but a search path's
   own ancestors are never looked at (``.mobster/runs/`` walks ``runs`` and below). Symlinks are
   followed; a broken one is left out. Directories are not uploaded, only files.
5. The root directory: with more than one search path, their least common ancestor (segment by
   segment); with one search path that is the one file found, its folder; else the search path.
"""

from __future__ import annotations

import html.parser
import os
import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree as ET

__all__ = ["Artifact", "InvalidArtifactPath", "broken_links", "upload"]

#: ``@actions/artifact``'s characters a file's name in an artifact may not hold.
_FORBIDDEN = ('"', ":", "<", ">", "|", "*", "?", "\r", "\n")


class InvalidArtifactPath(ValueError):
    """The upload fails: a file's name in the artifact holds a character the artifact service refuses."""


@dataclass(frozen=True)
class Artifact:
    """What the action uploads: the files found and the root their names in the artifact are below."""

    files: tuple[Path, ...]
    root: Path

    @property
    def names(self) -> frozenset[str]:
        """Each file's name in the artifact (``.mobster/runs/<id>/report.html``)."""
        return frozenset(f.relative_to(self.root).as_posix() for f in self.files)


@dataclass(frozen=True)
class _Pattern:
    negate: bool
    segments: tuple[str, ...]  # the first is "/", the rest are path segments (glob or literal)
    directories_only: bool
    implicit: bool = False

    @property
    def search_path(self) -> Path:
        literal: list[str] = []
        for segment in self.segments:
            value = _literal(segment)
            if value is None:
                break
            literal.append(value)
        return Path(*literal)

    def match(self, path: Path) -> int:
        """0 (none), 1 (a directory), 3 (all), as ``MatchKind``."""
        parts = path.parts[1:]
        pattern = self.segments[1:]
        if pattern and pattern[-1] == "**" and self.implicit and not parts[len(pattern) - 1 :]:
            return 0  # an implicit ``x/**`` needs a segment below x (minimatch without the trailing-slash quirk)
        if not _matches(pattern, parts):
            return 0
        return 1 if self.directories_only else 3


def _literal(segment: str) -> str | None:
    """The segment as a literal (escapes and one-character sets resolved), or None when it is a glob."""
    out, i = [], 0
    while i < len(segment):
        c = segment[i]
        if c == "\\" and i + 1 < len(segment):
            out.append(segment[i + 1])
            i += 2
            continue
        if c in "*?":
            return None
        if c == "[":
            close = segment.find("]", i + 1)
            if close > 0:
                inner = segment[i + 1 : close]
                if len(inner) > 1:
                    return None
                if inner:
                    out.append(inner)
                    i = close + 1
                    continue
        out.append(c)
        i += 1
    return "".join(out)


def _segment_regex(segment: str) -> re.Pattern[str]:
    """One segment's glob as a regex (minimatch with ``dot``: ``*`` matches a leading dot too)."""
    out, i = [], 0
    while i < len(segment):
        c = segment[i]
        if c == "\\" and i + 1 < len(segment):
            out.append(re.escape(segment[i + 1]))
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (close := segment.find("]", i + 2)) > 0:
            inner = segment[i + 1 : close]
            negated = inner[:1] in ("!", "^")
            body = inner[1:] if negated else inner
            out.append(f"[{'^' if negated else ''}{body.replace(chr(92), chr(92) * 2)}]")
            i = close + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _matches(pattern: Sequence[str], parts: Sequence[str]) -> bool:
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_matches(rest, parts[k:]) for k in range(len(parts) + 1))
    return bool(parts) and bool(_segment_regex(head).match(parts[0])) and _matches(rest, parts[1:])


def _patterns(path_input: str, workspace: Path) -> list[_Pattern]:
    """Rule 1: the ``path:`` input's patterns, each absolute."""
    found = []
    for raw in path_input.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = False
        while line.startswith("!"):
            negate, line = not negate, line[1:].strip()
        directories_only = line.endswith("/")
        body = line.rstrip("/") or "/"
        if body == "." or body.startswith("./"):
            body = body[2:] if body.startswith("./") else ""
        segments = [s for s in body.split("/") if s]
        if any(s in (".", "..") for s in segments):
            raise ValueError(f"Invalid pattern '{line}'. Relative pathing '.' and '..' is not allowed.")
        base = () if body.startswith("/") else workspace.absolute().parts[1:]
        found.append(_Pattern(negate, ("/", *base, *segments), directories_only))
    return found


def _search_paths(patterns: Sequence[_Pattern]) -> list[Path]:
    """Rule 2: the search paths, without duplicates and without those below another."""
    kept = [p for p in patterns if not p.negate]
    candidates = {p.search_path for p in kept}
    result: list[Path] = []
    for p in kept:
        path = p.search_path
        if path in result:
            continue
        if any(parent in candidates for parent in path.parents):
            continue
        result.append(path)
    return result


def _with_descendants(patterns: Sequence[_Pattern]) -> list[_Pattern]:
    """Rule 3: each pattern, and after it its implicit ``/**`` (unless it ends in ``**`` and not in ``/``)."""
    out: list[_Pattern] = []
    for p in patterns:
        out.append(p)
        if p.directories_only or p.segments[-1] != "**":
            out.append(_Pattern(p.negate, (*p.segments, "**"), directories_only=False, implicit=True))
    return out


def _match(patterns: Sequence[_Pattern], path: Path) -> int:
    result = 0
    for p in patterns:
        result = result & ~p.match(path) if p.negate else result | p.match(path)
    return result


def _walk(start: Path, include_hidden: bool) -> Iterator[tuple[Path, bool]]:
    """Rule 4: (path, is a directory) from ``start`` down, hidden items skipped with what they hold."""
    stack = [start]
    while stack:
        item = stack.pop()
        try:
            is_dir = item.is_dir()  # follows symlinks, as the action's stat
            exists = item.exists()
        except OSError:
            continue
        if not exists:  # a broken symlink
            continue
        if not include_hidden and item.name.startswith("."):
            continue
        yield item, is_dir
        if is_dir:
            stack.extend(sorted(item.iterdir(), reverse=True))


def _lca(paths: Sequence[Path]) -> Path:
    """Rule 5: the least common ancestor of the search paths, segment by segment."""
    split = [Path(os.path.normpath(p)).parts for p in paths]
    common: list[str] = []
    for column in zip(*split, strict=False):
        if any(c != column[0] for c in column):
            break
        common.append(column[0])
    return Path(*common)


def upload(path_input: str, workspace: Path, *, include_hidden_files: bool = False) -> Artifact:
    """The files ``actions/upload-artifact`` uploads for ``path_input``, run in ``workspace`` (the module rules)."""
    patterns = _patterns(path_input, workspace)
    searched = _search_paths(patterns)
    every = _with_descendants(patterns)
    files: list[Path] = []
    for start in searched:
        if not start.exists() and not start.is_symlink():
            continue
        for item, is_dir in _walk(start, include_hidden_files):
            if not is_dir and _match(every, item) & 2:
                files.append(item)
    if len(searched) > 1:
        root = _lca(searched)
    elif len(files) == 1 and searched and searched[0] == files[0]:
        root = files[0].parent
    else:
        root = searched[0] if searched else workspace
    for f in files:
        name = "/" + f.relative_to(root).as_posix()
        bad = [c for c in _FORBIDDEN if c in name]
        if bad:
            raise InvalidArtifactPath(f"The path for one of the files in artifact is not valid: {name} ({bad[0]!r})")
    return Artifact(tuple(files), root)


# -- what the artifact must hold ---------------------------------------------------------------


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [v for k, v in attrs if k in ("href", "src") and v]


def _local(link: str) -> str | None:
    """A link's target in the same tree (its fragment and query dropped); None for data:, a fragment, a URL."""
    if link.startswith(("#", "data:", "http://", "https://", "mailto:")):
        return None
    return unquote(link.split("#", 1)[0].split("?", 1)[0]) or None


def broken_links(artifact: Artifact) -> list[str]:
    """Every link of the artifact's pages and JUnit files whose target the artifact doesn't hold."""
    names = artifact.names
    broken = []
    for name in sorted(names):
        file = artifact.root / name
        if name.endswith(".html"):
            parser = _Links()
            parser.feed(file.read_text(encoding="utf-8"))
            for link in filter(None, map(_local, parser.links)):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), link))
                exists = (file.parent / link).exists()
                held = target in names or (link.endswith("/") and any(n.startswith(target + "/") for n in names))
                if exists and not held:
                    broken.append(f"{name} -> {link}")
                assert exists or link.endswith("/"), f"{name} links to {link}, which the run didn't write"
        elif name.endswith("junit.xml"):
            text = "".join(ET.parse(file).getroot().itertext())
            attached = re.findall(r"\[\[ATTACHMENT\|([^\]]+)\]\]", text)  # paths from the project root
            broken += [f"{name} -> {a}" for a in attached if posixpath.normpath(a) not in names]
    return broken
