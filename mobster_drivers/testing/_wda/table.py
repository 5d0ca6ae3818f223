"""How a route family says which of WDA's routes it serves: its own table, merged once by ``dispatch``.

A family's handler takes the WDA state (:class:`~.state.Wda`), the request's JSON body and its
query; one that acts on a target (Rule 13, ``state``) takes the target too, and is found by the
route's template (``/wda/element/:uuid/tap``). A route is served by one family: merging two
tables that both serve it is an error, at import.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

import attrs

from .state import Target, Wda

__all__ = ["Handler", "Routes", "TargetHandler"]

Handler = Callable[[Wda, dict[str, Any], dict[str, str]], Coroutine[Any, Any, Any]]
TargetHandler = Callable[[Wda, Target, dict[str, Any], dict[str, str]], Coroutine[Any, Any, Any]]
H = TypeVar("H")


def _register(table: dict[tuple[str, str], H], method: str, routes: Sequence[str]) -> Callable[[H], H]:
    def register(handler: H) -> H:
        for route in routes:
            table[(method, route)] = handler
        return handler

    return register


@attrs.frozen
class Routes:
    """One family's handlers: ``plain`` by ``(method, route)``, ``acting`` by ``(method, template)``.

    ``/wda/tap`` acts on the app, ``/wda/element/:uuid/tap`` on a cached element,
    ``/element/:uuid/attribute/:name`` too (Rule 13, ``state``).
    """

    plain: dict[tuple[str, str], Handler] = attrs.field(factory=dict)
    acting: dict[tuple[str, str], TargetHandler] = attrs.field(factory=dict)

    def serves(self, method: str, *routes: str) -> Callable[[Handler], Handler]:
        """Register a function as WDA's handler of ``method`` on ``routes``."""
        return _register(self.plain, method, routes)

    def acts_on(self, method: str, *templates: str) -> Callable[[TargetHandler], TargetHandler]:
        """Register a function as WDA's handler of ``method`` on route ``templates`` (Rule 13, ``state``)."""
        return _register(self.acting, method, templates)

    @property
    def routes(self) -> frozenset[tuple[str, str]]:
        """Every ``(method, route or template)`` the family serves."""
        return frozenset(self.plain) | frozenset(self.acting)

    @classmethod
    def merged(cls, *families: Routes) -> Routes:
        """The families' tables as one; ``ValueError`` when two serve one route."""
        table = cls()
        for family in families:
            twice = table.routes & family.routes
            if twice:
                raise ValueError(f"the fake WDA serves {sorted(twice)} twice")
            table.plain.update(family.plain)
            table.acting.update(family.acting)
        return table
