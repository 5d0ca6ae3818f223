"""Files under ``.mobster/``, written and read as the core writes and reads its own.

For a reporter or a tool that writes beside the core's files (``mobster_report`` writes its pages
and pictures into run folders): :func:`atomic_write` (a temporary file, fsynced, renamed; mode
0600 in 0700 folders, never through a symlink), :func:`private_dir` and :func:`read_private`
(only a regular file of the current user, 0600 or narrower, within a size limit; anything else
raises :class:`~mobster_core.exceptions.UnsafeFile`). ``MOBSTER_DIR`` is the folder's name.

For a file a user hands over (a shard's ``results.json``, a ``junit.xml``): :func:`read_user_file`
reads only a regular file, never waits on a FIFO, never reads ``/dev/zero``, and stops at a size
limit, before and while reading; :func:`open_user_file` opens one the same way for a reader that
streams it. For a user's file written outside ``.mobster/`` (a file ``mobster init`` edits, a
bundle, a ``--junit`` copy): :func:`write_user_file` writes only over a regular file (never
through a symlink, never onto a FIFO or a device), through a temporary file beside it (created
exclusively) renamed into place, keeping the old file's mode; ``new=True`` never replaces one, and
``replacing=`` never loses an edit made meanwhile.
"""

from ._store.fsutil import (
    MOBSTER_DIR,
    atomic_write,
    open_user_file,
    private_dir,
    read_private,
    read_user_file,
    write_user_file,
)

__all__ = [
    "MOBSTER_DIR",
    "atomic_write",
    "open_user_file",
    "private_dir",
    "read_private",
    "read_user_file",
    "write_user_file",
]
