"""What a reply costs on real WDA, in seconds, and the request being handled's bill.

Rule 11: with ``costs`` (:class:`ReadCosts`), each reply is held as long as real WDA would take:
         a source read costs per node, and more per node for each costly attribute it keeps
         (``visible``, ``accessible``); a query costs a snapshot per node plus ``visible`` for each
         element it had to read it of. Off by default, so tests stay fast. Not checked: real
         timings (the model is Mobster's measurements).
"""

from __future__ import annotations

import contextvars

import attrs

__all__ = ["CHARGE", "ReadCosts", "charge"]


@attrs.frozen
class ReadCosts:
    """How long real WDA takes to answer reads, in seconds (Rule 11); the model in ``docs/benchmarks.md``.

    The defaults are Mobster's measurements of Settings' first screen (167 elements) on an iPhone
    17 Pro simulator: the fast source (no ``visible``, no ``accessible``) 0.10 s, the source that
    keeps ``visible`` 0.76 s (p50), both together about 0.95 s; so a node costs 0.6 ms to
    snapshot, 3.95 ms more for ``visible`` and 1.1 ms more for ``accessible``. A predicate query
    costs a snapshot plus ``visible`` for each element it reads it of. ``request`` is every
    request's fixed cost. Settings > General (1.07 s) and About (1.61 s) cost more per element
    on the same loaded Mac: pass ``visible`` higher to model them.
    """

    snapshot: float = 0.10 / 167
    visible: float = (0.76 - 0.10) / 167
    accessible: float = (0.95 - 0.76) / 167
    request: float = 0.0

    def source(self, nodes: int, *, visible: bool, accessible: bool) -> float:
        """A source read of ``nodes`` elements that keeps the given costly attributes."""
        per_node = self.snapshot + (self.visible if visible else 0.0) + (self.accessible if accessible else 0.0)
        return self.request + nodes * per_node

    def query(self, nodes: int, visible_reads: int) -> float:
        """A predicate query over ``nodes`` elements that read ``visible`` of ``visible_reads`` of them."""
        return self.request + nodes * self.snapshot + visible_reads * self.visible


#: What the request being handled costs on real WDA, in seconds (Rule 11): one holder per task.
CHARGE: contextvars.ContextVar[list[float]] = contextvars.ContextVar("fake_wda_charge")


def charge(seconds: float) -> None:
    """Add ``seconds`` to the bill of the request being handled (none outside one)."""
    holder = CHARGE.get(None)
    if holder is not None:
        holder[0] += seconds
