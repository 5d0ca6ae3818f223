from __future__ import annotations

import asyncio

import pytest

import mobster_core as mc
from mobster_core.testing import FakeClock


def test_sleeping_jumps_virtual_time() -> None:
    clock = FakeClock()

    async def main() -> float:
        await clock.sleep(3.0)
        return clock.now()

    assert clock.run(main()) == 3.0


def test_concurrent_sleepers_wake_in_deadline_order() -> None:
    clock = FakeClock(start=10.0)
    woke: list[tuple[str, float]] = []

    async def sleeper(name: str, seconds: float) -> None:
        await clock.sleep(seconds)
        woke.append((name, clock.now()))

    async def main() -> None:
        await asyncio.gather(sleeper("slow", 2.5), sleeper("fast", 0.5), sleeper("mid", 1.0))

    clock.run(main())
    assert woke == [("fast", 10.5), ("mid", 11.0), ("slow", 12.5)]


def test_wait_for_times_out_on_virtual_time() -> None:
    clock = FakeClock()

    async def main() -> float:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(clock.sleep(10), timeout=0.25)
        return clock.now()

    assert clock.run(main()) == 0.25


def test_sleep_outside_run_is_refused() -> None:
    clock = FakeClock()
    with pytest.raises(RuntimeError, match=r"inside FakeClock\.run"):
        asyncio.run(clock.sleep(1))


def test_non_positive_sleep_returns_at_once() -> None:
    clock = FakeClock()

    async def main() -> float:
        await clock.sleep(-1)
        await clock.sleep(0)
        return clock.now()

    assert clock.run(main()) == 0.0


def test_a_deadlock_fails_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    import selectors

    monkeypatch.setattr(selectors.DefaultSelector, "select", lambda self, timeout=None: [])
    clock = FakeClock()

    async def main() -> None:
        await asyncio.get_running_loop().create_future()  # nothing will ever complete it

    with pytest.raises(RuntimeError, match="deadlock"):
        clock.run(main())


def test_leftover_tasks_are_cancelled() -> None:
    clock = FakeClock()
    cancelled: list[bool] = []

    async def forever() -> None:
        try:
            await clock.sleep(1000)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def main() -> None:
        asyncio.get_running_loop().create_task(forever())
        await clock.sleep(1)

    clock.run(main())
    assert cancelled == [True]


def test_advance_by_hand() -> None:
    clock = FakeClock()
    clock.advance(0.125)
    assert clock.now() == 0.125
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)


def test_system_clock_is_monotonic_and_sleeps() -> None:
    clock = mc.SystemClock()
    a = clock.now()
    asyncio.run(clock.sleep(0))
    asyncio.run(clock.sleep(-1))
    assert clock.now() >= a
    assert isinstance(clock, mc.Clock)
