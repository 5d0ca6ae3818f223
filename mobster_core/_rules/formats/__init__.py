"""Formats: how the core reads what it is given and writes what it keeps.

Rule 1: text from outside is valid Unicode once read (``text``); a lone surrogate is U+FFFD.
Rule 2: data becomes a stable hash one way: canonical JSON and a SHA-256 digest (``canon``).
Rule 3: every YAML or JSON file goes through one strict reader (``yaml``), and every problem in
        one reads ``file:line: key.path: what is wrong; what to write``; a file's own schema is
        read on :class:`~.reader.StrictReader`, data the core wrote itself with cattrs (``strict``).
Rule 4: this room is the floor of the rules: it imports no other room.
"""
