"""One executor per run, sized to its devices (``mobster_harness.threads``)."""

from __future__ import annotations

import asyncio
import os
import threading

from mobster_harness.threads import MAX_THREADS, THREADS_PER_DEVICE, size_threads, threads_for


def test_a_pool_gets_four_threads_a_device_within_a_bound() -> None:
    default = min(32, (os.cpu_count() or 1) + 4)
    assert threads_for(1) == default
    assert threads_for(10) == max(default, 10 * THREADS_PER_DEVICE)
    assert threads_for(1000) == MAX_THREADS


def test_ten_devices_calls_run_at_once_in_the_loops_default_executor() -> None:
    gate = threading.Barrier(40, timeout=10)  # every call blocks until 40 of them run at once

    async def scenario() -> int:
        threads = size_threads(10)
        await asyncio.gather(*(asyncio.to_thread(gate.wait) for _ in range(40)))
        return threads

    assert asyncio.run(scenario()) == 40


def test_a_loop_keeps_a_larger_executor_and_a_replaced_one_is_shut_down() -> None:
    async def scenario() -> tuple[int, int, int]:
        big = size_threads(12)
        kept = size_threads(2)  # a smaller run on the same loop keeps the larger executor
        bigger = size_threads(16)
        await asyncio.to_thread(lambda: None)  # the new executor takes work
        return big, kept, bigger

    assert asyncio.run(scenario()) == (48, 48, 64)
