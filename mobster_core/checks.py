"""Check files and the project that holds them.

A project is a folder with ``.mobster/``; its checks are the ``*.yaml`` files of
``.mobster/checks/``. :func:`load_check` reads one strictly (every problem a
:class:`~mobster_core.exceptions.CheckError` naming the file, line and key); :func:`shard` picks
every N-th of them for one of N machines; :func:`read_user_file` reads a user's file (regular files
only, size-capped, never blocking on a FIFO). The format is in ``docs/checks.md``.
"""

from ._rules.controls import AUDIT_TYPES, CONTENT_SIZES, audit_type_name
from ._run.suite import parse_shard, shard
from ._store.checks import Budget, Check, CheckApp, CheckLaunch, find_checks, load_check, load_check_text, project_of
from ._store.fsutil import find_project_root, read_user_file
from .exceptions import CheckError

__all__ = [
    "AUDIT_TYPES",
    "CONTENT_SIZES",
    "Budget",
    "Check",
    "CheckApp",
    "CheckError",
    "CheckLaunch",
    "audit_type_name",
    "find_checks",
    "find_project_root",
    "load_check",
    "load_check_text",
    "parse_shard",
    "project_of",
    "read_user_file",
    "shard",
]
