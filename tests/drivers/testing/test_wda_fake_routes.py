"""The fake WDA's route table, held to its families' lists and to WebDriverAgent's own source.

Each route family of the fake (``mobster_drivers.testing._wda``) lists in its docstring the WDA
routes it serves, each with its declarations (``FB<name>:line`` of ``Commands/FB<name>Commands.m``).
The lists are held to the table the fake dispatches on, and, where ``scripts/install-appium.sh``
installed the XCUITest driver (its ``appium-webdriveragent`` package carries WDA's source), to that
source: each route's method, path and lines, and the form WDA registers it in (Rule 2).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mobster_drivers.testing._wda import actions, alerts, apps, device, dispatch, find, session
from mobster_drivers.testing._wda.table import Routes
from mobster_drivers.testing.wda import SESSION_ONLY, WITHOUT_SESSION_ONLY
from tests.real_appium import HOME, installed

FAMILIES = (session, find, actions, alerts, apps, device)
#: The session's own routes, which ``dispatch`` answers before the table.
ANSWERED_FIRST = frozenset({("POST", "/session"), ("GET", "/"), ("DELETE", "/")})
#: The WDA the lists were read from.
VERSION = "16.12.9"
LISTED = re.compile(r"``(GET|POST|DELETE) (/[^`]*)`` \(([^)]*)\)")
DECLARED = re.compile(r'\[\[FBRoute (GET|POST|DELETE|PUT):@"([^"]*)"\]((?:\.\w+)*)')

Route = tuple[str, str]
Where = tuple[str, int]


def listed(module: ModuleType) -> dict[Route, list[Where]]:
    """The routes a family's docstring lists, each with where it says WDA declares it."""
    found: dict[Route, list[Where]] = {}
    for method, route, refs in LISTED.findall(module.__doc__ or ""):
        assert (method, route) not in found, f"{module.__name__} lists {method} {route} twice"
        found[(method, route)] = [(name, int(line)) for name, line in (r.split(":") for r in refs.split(", "))]
    return found


def served(module: ModuleType) -> frozenset[Route]:
    routes: Routes = module.ROUTES
    return routes.routes | (ANSWERED_FIRST if module is session else frozenset())


@pytest.mark.parametrize("family", FAMILIES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_family_lists_exactly_the_routes_it_serves(family: ModuleType) -> None:
    assert set(listed(family)) == served(family)


def test_the_table_is_every_familys_and_no_route_is_served_twice() -> None:
    counts = Counter(route for family in FAMILIES for route in family.ROUTES.routes)
    assert [route for route, n in counts.items() if n > 1] == []
    assert dispatch.TABLE.routes == frozenset(counts)
    assert len(dispatch.TABLE.routes | ANSWERED_FIRST) == 108  # every route the real clients send (docs/drivers.md)


def test_a_route_two_families_serve_fails_when_the_table_is_made() -> None:
    one, other = Routes(), Routes()

    async def handler(*_: Any) -> None:
        return None

    one.serves("GET", "/status")(handler)
    other.serves("GET", "/status")(handler)
    with pytest.raises(ValueError, match=r"serves \[\('GET', '/status'\)\] twice"):
        Routes.merged(one, other)


# -- WDA's own source ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def declared() -> dict[Route, list[tuple[str, int, bool]]]:
    """Every route WDA's ``Commands`` declare: where, and whether ``.withoutSession``."""
    why = installed()
    if why is not None:
        pytest.skip(why)
    homes = [HOME / "node_modules" / "appium-webdriveragent"]
    homes.append(HOME / "node_modules" / "appium-xcuitest-driver" / "node_modules" / "appium-webdriveragent")
    home = next((h for h in homes if (h / "package.json").is_file()), None)
    assert home is not None, f"the XCUITest driver in {HOME} carries no appium-webdriveragent"
    version = json.loads((home / "package.json").read_text("utf-8"))["version"]
    assert version == VERSION, f"the lists were read from WDA {VERSION}, this is {version}: read them again"
    routes: dict[Route, list[tuple[str, int, bool]]] = {}
    for file in sorted(Path(home, "WebDriverAgentLib", "Commands").glob("FB*Commands.m")):
        name = file.name.removesuffix("Commands.m")
        for number, line in enumerate(file.read_text("utf-8").splitlines(), 1):
            for method, path, modifiers in DECLARED.findall(line):
                routes.setdefault((method, path or "/"), []).append((name, number, "withoutSession" in modifiers))
    return routes


@pytest.mark.parametrize("family", FAMILIES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_listed_route_is_declared_by_wda_where_the_list_says(
    family: ModuleType, declared: dict[Route, list[tuple[str, int, bool]]]
) -> None:
    wrong = {
        route: (where, sorted((name, line) for name, line, _ in declared.get(route, [])))
        for route, where in listed(family).items()
        if sorted(where) != sorted((name, line) for name, line, _ in declared.get(route, []))
    }
    assert wrong == {}


def test_every_route_answers_in_the_form_wda_registers_it(declared: dict[Route, list[tuple[str, int, bool]]]) -> None:
    def form(route: Route) -> str:
        kinds = {without for *_, without in declared[route]}
        return {frozenset({True}): "without a session", frozenset({False}): "under a session"}.get(
            frozenset(kinds), "both"
        )

    def fakes(route: Route) -> str:
        path = route[1]
        if path in WITHOUT_SESSION_ONLY:
            return "without a session"
        if path in SESSION_ONLY or route in dispatch._SESSION_ONLY_METHODS or ":uuid" in path:
            return "under a session"
        return "both"

    every = dispatch.TABLE.routes | ANSWERED_FIRST
    assert {r: fakes(r) for r in every if fakes(r) != form(r)} == {}
    # Each route the forms name is one WDA declares in that form, none the fake merely imagined.
    for path in WITHOUT_SESSION_ONLY | SESSION_ONLY:
        assert {form(r) for r in declared if r[1] == path} in ({"without a session"}, {"under a session"}), path
