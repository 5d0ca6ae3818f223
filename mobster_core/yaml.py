"""The one strict YAML reader, for every YAML (or JSON) file Mobster reads, and a driver's own.

Check files, app scripts, heal files and Appium caps files all come through :func:`load_yaml`
(:func:`load_json` for a file that promises JSON: JSON's grammar, then the same reading):
safe mode, no anchors, a key written twice refused with both lines, nesting and size capped before
the scanner runs, a UTF-8 byte order mark and CRLF read as if absent, and every problem a
:class:`YamlProblem` that reads ``file:line: key.path: what is wrong; what to write``. A caller
keeps only its own schema: a reader subclasses :class:`StrictReader`, which gives the shapes every
reader checks (a mapping of known keys, text, a string, a number, a flag) and says each problem
once, in the same words (:meth:`YamlDoc.problem`, :func:`dotted`, :func:`kind_of`, :func:`quote_fix`,
:func:`did_you_mean`). See ``docs/checks.md`` for the rules.
"""

from ._rules.formats.reader import StrictReader
from ._rules.formats.yaml import (
    MAX_YAML_BYTES,
    MAX_YAML_DEPTH,
    Keys,
    YamlDoc,
    YamlProblem,
    YamlSyntaxError,
    did_you_mean,
    dotted,
    kind_of,
    load_json,
    load_yaml,
    quote_fix,
)

__all__ = [
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "Keys",
    "StrictReader",
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
