"""A meter of CPU seconds, to bound work: never to wait, never to decide what a run does.

Rule 1: :func:`work_seconds` is this process's CPU time (``time.process_time``). The assertions use
        it to stop a check's regexes after their budget of one read, whatever the injected clock
        says (a fake clock doesn't move while a regex spins).
Rule 2: it is the one reading of ``time`` in the rules (an import-linter contract names it).
"""

from __future__ import annotations

import time

__all__ = ["work_seconds"]


def work_seconds() -> float:
    """CPU seconds this process has used (``time.process_time``): to bound work, never to wait."""
    return time.process_time()
