"""The threads the device drivers' calls run in: one executor per run, sized to its devices.

The drivers call their blocking clients (facebook-wda, Appium's, pymobiledevice3) with
``asyncio.to_thread``: every device call of a suite takes a thread of the event loop's default
executor, which asyncio sizes by the CPUs (six threads on two cores), not by the devices.

Rule 1: :func:`size_threads` gives the running loop a default executor of
        :data:`THREADS_PER_DEVICE` (4) threads a device (a read, a screenshot, a target check,
        and a call given up on that still holds its thread), at least asyncio's own size and at
        most :data:`MAX_THREADS` (64). A loop that already has one at least that large keeps it.
Rule 2: an executor it replaces is shut down without waiting (a call still in one runs to its
        end); the last one is shut down when the loop closes (``loop.close`` never waits for it,
        so Ctrl+C still stops a run at once).
"""

from __future__ import annotations

import asyncio
import os
import weakref
from concurrent.futures import ThreadPoolExecutor

__all__ = ["MAX_THREADS", "THREADS_PER_DEVICE", "size_threads", "threads_for"]

#: Rule 1: threads a device's calls may hold at once.
THREADS_PER_DEVICE = 4
#: Rule 1: the most threads one run's devices get.
MAX_THREADS = 64

#: The executor each loop was given here, and its threads.
_installed: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[ThreadPoolExecutor, int]] = (
    weakref.WeakKeyDictionary()
)


def threads_for(devices: int) -> int:
    """Rule 1: the threads a run of ``devices`` devices gets."""
    default = min(32, (os.cpu_count() or 1) + 4)  # what asyncio's own default executor has
    return max(default, min(MAX_THREADS, THREADS_PER_DEVICE * devices))


def size_threads(devices: int) -> int:
    """Rule 1: size the running loop's default executor for ``devices`` devices; returns its threads."""
    loop = asyncio.get_running_loop()
    wanted = threads_for(devices)
    current = _installed.get(loop)
    if current is not None and current[1] >= wanted:
        return current[1]
    executor = ThreadPoolExecutor(max_workers=wanted, thread_name_prefix="mobster-device")
    loop.set_default_executor(executor)
    _installed[loop] = (executor, wanted)
    if current is not None:
        current[0].shutdown(wait=False)  # Rule 2
    return wanted
