"""An asyncio event loop in a daemon thread, for blocking code that must call coroutines.

The fake WDA server runs its scripted phone on one (HTTP handler threads submit coroutines to
it); the USB driver runs pymobiledevice3, which is async-only, and its port forwarder on one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    """A running event loop in a daemon thread; :meth:`call` runs a coroutine on it and waits."""

    def __init__(self, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        self._ready.wait(5.0)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The loop (use it only through :meth:`call` or ``call_soon_threadsafe``)."""
        return self._loop

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        try:
            self._loop.run_forever()
        finally:
            try:
                pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
                for task in pending:
                    task.cancel()
                if pending:
                    self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            finally:
                self._loop.close()

    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and wait for its result (``TimeoutError`` after ``timeout`` s)."""
        if not self._thread.is_alive():
            coro.close()
            raise RuntimeError("the loop thread has stopped")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop (its tasks are cancelled) and join the thread; safe to call twice."""
        if self._thread.is_alive() and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # closed between the check and the call
                self._loop.call_soon_threadsafe(self._loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
