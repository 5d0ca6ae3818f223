"""Loading user YAML files safely, with line numbers for error messages.

Rule 1: a file is parsed twice: once in ruamel's safe mode (no Python tags, no duplicate keys),
        which decides whether it is acceptable, and once in round-trip mode, only to know the
        line of each key for messages.
Rule 2: a file larger than ``MAX_YAML_BYTES`` or not UTF-8 is refused before parsing.
Rule 3: an unknown key gets a "did you mean" hint from the keys that are allowed there.
Rule 4: anchors and aliases are refused, and so is nesting too deep to parse.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent

__all__ = ["MAX_YAML_BYTES", "YamlDoc", "YamlProblem", "did_you_mean", "load_yaml"]

#: The largest YAML file the SDK reads (1 MiB): check files and app scripts are far smaller.
MAX_YAML_BYTES = 1024 * 1024


class YamlProblem(ValueError):
    """A YAML file that can't be read; the message starts with ``file:line:``."""


class YamlDoc:
    """A parsed file: ``data`` (plain dicts and lists) and the line of each key or item."""

    def __init__(self, source: str, data: Any, tree: Any) -> None:
        self.source = source
        self.data = data
        self._tree = tree

    def line(self, keys: Sequence[str | int]) -> int | None:
        """The 1-based line of the value at ``keys`` (dict keys and list indexes), or None."""
        node = self._tree
        line: int | None = None
        for key in keys:
            lc = getattr(node, "lc", None)
            try:
                if lc is not None:
                    line = (lc.item(key) if isinstance(key, int) else lc.key(key))[0] + 1
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return line
        return line

    def where(self, keys: Sequence[str | int]) -> str:
        """``file:line`` for the value at ``keys`` (``file`` alone when the line is unknown)."""
        line = self.line(keys)
        return self.source if line is None else f"{self.source}:{line}"


def load_yaml(raw: bytes | str, source: str) -> YamlDoc:
    """Parse a YAML document from ``raw``; ``source`` names it in every message."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_YAML_BYTES:
            raise YamlProblem(f"{source}: the file is {len(raw)} bytes; the limit is {MAX_YAML_BYTES}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlProblem(f"{source}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from exc
    else:
        text = raw
        if len(text.encode("utf-8")) > MAX_YAML_BYTES:
            raise YamlProblem(f"{source}: the file is over the {MAX_YAML_BYTES}-byte limit")
    try:
        _refuse_aliases(text, source)
        data = YAML(typ="safe", pure=True).load(text)
        tree = YAML(typ="rt", pure=True).load(text)
    except RecursionError as exc:
        raise YamlProblem(f"{source}: the YAML is nested too deeply to read; flatten it") from exc
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        what = exc.problem or exc.context or "not valid YAML"
        raise YamlProblem(f"{source}{line}: {what}; fix the YAML there") from exc
    except YAMLError as exc:
        raise YamlProblem(f"{source}: not valid YAML ({exc})") from exc
    return YamlDoc(source, data, tree)


def _refuse_aliases(text: str, source: str) -> None:
    """Rule 4: refuse anchors and aliases.

    A few lines of them can expand to billions of values ("billion laughs"), and no file the SDK
    reads needs them.
    """
    for event in YAML(typ="safe", pure=True).parse(text):
        if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
            mark = event.start_mark
            line = f":{mark.line + 1}" if mark is not None else ""
            raise YamlProblem(
                f"{source}{line}: anchors and aliases (&name, *name) are not allowed; write the value out"
            )


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest allowed word, or a list of what is allowed."""
    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (allowed: {', '.join(options)})"
