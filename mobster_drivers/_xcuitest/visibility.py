"""What a person sees, kept the same way by every driver that reads WebDriverAgent's tree.

The WebDriverAgent driver and the Appium driver (whose XCUITest driver proxies the same WDA) read
the same JSON source with :func:`~mobster_drivers._xcuitest.tree.read_source`, and ask WDA the same
predicate queries; this module is the part of a device that does so. Only how a query travels
(``POST /elements`` to WDA, or ``POST /session/:id/elements`` with ``-ios predicate string`` to
Appium) and how its failures map stay in each driver.

Rule 1 (reading): a source that is not WDA's shape is a :class:`DeviceError` naming the server.
        A root without a usable rect is measured with the screen size the device knows, else with
        the window size it asks for (once: the device keeps the size of every read).
Rule 2 (the fast read's ambiguous elements): when a fast read has ambiguous elements (``_tree``
        Rule 6e), one predicate query (``label IN {…} AND visible == 1``) asks WDA which of them
        are visible; the others are hidden. The answer is reused while the same elements are
        ambiguous (same app, and the same path, role and label for each: frames are left out, so
        a screen that slides while it animates keeps it) for :data:`ANSWER_SECONDS` on the
        device's clock, and forgotten at every action (:meth:`Visibility.forget`): a tap can
        switch pages without changing the tree.
Rule 3 (the target check): before an action on an element, a query for an element of its type
        and label (else identifier) with ``visible == 1`` must find one at the element's frame
        (1 pt of slack; WDA's rect clipped to the screen as the read's frames are). It is skipped
        when the latest read's own query just confirmed the element.
Rule 4 (what can't be known): a server that refuses a query (the device's ``ask`` raises
        :class:`QueryRefused`) is not asked again until :meth:`Visibility.reset`; meanwhile
        ambiguous elements are hidden (a hidden label taken for a shown one could cost a wrong
        tap; a missing one costs a heal) and the target check answers "can't tell": True. So do
        element replies that don't say which element they are (no ``type`` or ``rect``: compact
        responses). A reply that is not a list is a ``DeviceError``. An empty list is an answer:
        nothing of that kind is visible.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from mobster_core import DeviceError, Element, Screen

from .tree import SourceRead, keep_visible, read_source, same_rect, target_query, visible_paths, visible_query

__all__ = ["ANSWER_SECONDS", "QueryRefused", "Visibility", "read_tree"]

_log = logging.getLogger("mobster.drivers.visibility")

#: How long WDA's answer about a fast read's ambiguous elements is reused while the same elements
#: are ambiguous, in seconds (Rule 2); any action forgets it.
ANSWER_SECONDS = 2.0


class QueryRefused(Exception):
    """The server refused a predicate query (it can't evaluate it): Rule 4."""


@attrs.frozen
class _Answer:
    """WDA's answer about a fast read's ambiguous elements: which (by path) are visible, and when.

    ``key`` is the app and each ambiguous element's path, role and label (Rule 2).
    """

    key: tuple[object, ...]
    at: float
    keep: frozenset[str]


def read_tree(
    tree: Any,
    app: str,
    *,
    size: tuple[int, int] | None,
    window_size: Callable[[], tuple[int, int]],
    where: str,
) -> SourceRead:
    """Read a source tree whose app in front is ``app`` (Rule 1).

    ``size`` is the screen size the device knows (points), None before its first read;
    ``window_size`` asks the server for it. ``where`` names the server in messages.
    """
    try:
        return read_source(tree, app, size=size)
    except ValueError as exc:
        if size is not None:
            raise DeviceError(f"{where} sent a source tree that can't be read: {exc}") from exc
    measured = window_size()
    try:
        return read_source(tree, app, size=measured)
    except ValueError as exc:
        raise DeviceError(f"{where} sent a source tree that can't be read: {exc}") from exc


class Visibility:
    """One device's questions to WDA about what is visible (module rules).

    ``ask`` sends one predicate query and returns the reply's value (raising :class:`QueryRefused`
    when the server refused it, and the device's own errors otherwise); ``size`` gives the screen
    size in points; ``now`` is the device's monotonic clock in seconds; ``where`` names the server
    in messages, and ``scrub`` cleans what a message quotes of a reply.
    """

    def __init__(
        self,
        ask: Callable[[str], Any],
        *,
        size: Callable[[], tuple[int, int]],
        now: Callable[[], float],
        where: str,
        scrub: Callable[[str], str] = str,
    ) -> None:
        self._ask = ask
        self._size = size
        self._now = now
        self._where = where
        self._scrub = scrub
        self._answer: _Answer | None = None
        self._confirmed: frozenset[Element] = frozenset()
        self._refused = False

    @property
    def refused(self) -> bool:
        """Did the server refuse a query (Rule 4)? It is not asked again until :meth:`reset`."""
        return self._refused

    def forget(self) -> None:
        """An action may change what is shown: the answers about the screen before it go (Rule 2)."""
        self._answer = None
        self._confirmed = frozenset()

    def reset(self) -> None:
        """A new session (perhaps another phone): forget everything, a refusal included."""
        self.forget()
        self._refused = False

    def screen(self, read: SourceRead) -> Screen:
        """The read's screen, its ambiguous elements decided by WDA's answer, asked or reused (Rule 2)."""
        self._confirmed = frozenset()
        if not read.ambiguous:
            return read.screen
        key = (read.screen.app, *((e.path, e.role, e.label) for e in read.ambiguous))
        now = self._now()
        answer = self._answer
        if answer is not None and answer.key == key and now - answer.at <= ANSWER_SECONDS:
            return keep_visible(read, answer.keep)
        query = visible_query(read.ambiguous)
        found = self._query(query) if query is not None else None
        keep = visible_paths(read, found) if found is not None else frozenset()
        screen = keep_visible(read, keep)
        self._confirmed = frozenset(e for e in screen.elements if e.path in keep)
        self._answer = _Answer(key, now, keep)
        return screen

    def check_target(self, element: Element) -> bool:
        """Is ``element`` (from the latest read) visible, by WDA's own account (Rules 3, 4)?"""
        if element in self._confirmed or self._refused:
            return True
        found = self._query(target_query(element))
        if found is None:
            return True  # refused, or replies that don't say which element they are: can't tell
        width, height = self._size()
        x, y, w, h = element.frame
        mine = (x * width, y * height, w * width, h * height)
        return any(
            rect is not None and same_rect(mine, rect) for rect in (_item_rect(item, (width, height)) for item in found)
        )

    def _query(self, query: str) -> list[Any] | None:
        """The elements WDA found for ``query``; None when it can't say which they are (Rule 4)."""
        if self._refused:
            return None
        try:
            value = self._ask(query)
        except QueryRefused as exc:
            _log.debug("%s refused a predicate query; not asking again this session: %s", self._where, exc)
            self._refused = True
            return None
        if not isinstance(value, list):
            raise DeviceError(f"{self._where} sent elements that are not a list: {self._scrub(repr(value))[:80]}")
        if any(isinstance(v, Mapping) and ("rect" not in v or "type" not in v) for v in value):
            _log.debug("%s: element replies don't say which element they are (compact responses)", self._where)
            return None
        return value


def _item_rect(item: Any, size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """An element reply's rect in points, clipped to the screen as the read's frames are."""
    rect = item.get("rect") if isinstance(item, Mapping) else None
    if not isinstance(rect, Mapping):
        return None
    nums = [_number(rect.get(k)) for k in ("x", "y", "width", "height")]
    if any(n is None for n in nums):
        return None
    x, y, w, h = (float(n or 0.0) for n in nums)
    width, height = size
    left, top = min(max(x, 0.0), width), min(max(y, 0.0), height)
    right, bottom = min(max(x + w, 0.0), width), min(max(y + h, 0.0), height)
    return (left, top, max(0.0, right - left), max(0.0, bottom - top))


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
