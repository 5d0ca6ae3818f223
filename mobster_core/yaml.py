"""The strict YAML loader of check files, for a driver or tool with YAML files of its own.

Safe mode, no duplicate keys, no aliases, nesting and size capped before the scanner runs, and
every problem a :class:`YamlProblem` naming the file and line; :func:`did_you_mean` gives the hint
for an unknown key. See ``docs/checks.md`` for the rules.
"""

from ._rules.yaml import MAX_YAML_BYTES, MAX_YAML_DEPTH, YamlDoc, YamlProblem, did_you_mean, load_yaml

__all__ = ["MAX_YAML_BYTES", "MAX_YAML_DEPTH", "YamlDoc", "YamlProblem", "did_you_mean", "load_yaml"]
