"""The house rules the linters can't say: short functions, narrow signatures, one wall clock.

The core is held to them with no exception. Every other package of the repository (found, not
listed: a new one is covered when it appears) is held to the first two with a baseline of today's
breaches that may only shrink: a breach not on it fails, and so does a listed one that is gone.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

import mobster_core

CORE = Path(mobster_core.__file__).parent
ROOT = CORE.parent
MODULES = sorted(CORE.rglob("*.py"))
#: The packages beside the core, as the repository has them.
PACKAGES = sorted(p.parent for p in ROOT.glob("mobster_*/__init__.py") if p.parent != CORE)
#: The longest a function of the core may be, docstring included (a screen, well under).
MAX_LINES = 60
#: The most parameters a function of the core may take, beyond ``self`` or ``cls``.
MAX_PARAMETERS = 5
#: Reading the time of day, and which module may.
WALL_CLOCK = {("datetime", "now"), ("datetime", "utcnow"), ("datetime", "today"), ("date", "today"), ("time", "time")}
MONOTONIC = {("time", "monotonic"), ("time", "perf_counter"), ("time", "time_ns"), ("time", "monotonic_ns")}
CPU = {("time", "process_time")}


def functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text())
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(CORE.parent)}:{getattr(node, 'lineno', '?')}"


def too_long(f: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """The function's length in lines when it is longer than :data:`MAX_LINES`."""
    lines = (f.end_lineno or f.lineno) - f.lineno + 1
    return lines if lines > MAX_LINES else None


def too_wide(f: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str] | None:
    """The function's parameters beyond ``self``/``cls`` when there are more than :data:`MAX_PARAMETERS`."""
    a = f.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.arg not in ("self", "cls")]
    return names if len(names) > MAX_PARAMETERS else None


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(CORE)))
def test_no_function_of_the_core_is_longer_than_a_screen(path: Path) -> None:
    long = [f"{where(path, f)} {f.name}: {too_long(f)} lines" for f in functions(path) if too_long(f) is not None]
    assert long == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(CORE)))
def test_no_signature_of_the_core_takes_more_than_five_parameters(path: Path) -> None:
    wide = [f"{where(path, f)} {f.name}({', '.join(too_wide(f) or [])})" for f in functions(path) if too_wide(f)]
    assert wide == []


def clock_reads(path: Path) -> set[tuple[str, str]]:
    """``module.function`` calls that read a clock, as ``(object, attribute)``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = node.func.value
            name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            found.add((name, node.func.attr))
    return found & (WALL_CLOCK | MONOTONIC | CPU)


def test_the_wall_clock_is_read_in_one_place() -> None:
    # Time of day: only _clock.utc_now (timestamps, run ids); monotonic time: only SystemClock;
    # CPU time: only the regexes' work meter. Everything else gets time from the injected clock.
    readers = {str(p.relative_to(CORE)): clock_reads(p) for p in MODULES}
    assert {p: r for p, r in readers.items() if r} == {
        "_clock.py": {("datetime", "now"), ("time", "monotonic")},
        "_rules/assertions/work.py": {("time", "process_time")},
    }


def test_the_one_wall_clock_reading_never_decides_what_a_run_does() -> None:
    # utc_now is called where a timestamp or an id is written (a run's or a live session's folder), and
    # where a suite clears the temporary files a killed writer left (their age), and in a recording
    # lease's taken_at (for people: a lease expires by the waiter's own clock, never by a time of day):
    # never by a rule, a wait, or the replay.
    callers = sorted(
        str(p.relative_to(CORE)) for p in MODULES if "utc_now()" in p.read_text() and p.name != "_clock.py"
    )
    assert callers == [
        "_run/check.py",
        "_run/claim.py",
        "_run/keep.py",
        "_run/session.py",
        "_run/suite.py",
        "heals.py",
    ]


# -- the other packages: a baseline that may only shrink -------------------------------------------

#: Today's breaches outside the core, as ``path::function rule`` (``rule`` is ``lines`` or
#: ``parameters``; a method is ``Class.method``, a nested function ``outer.inner``). Fix one, and
#: take it off: the list is kept tight by a test.
BASELINE = frozenset(
    {
        "mobster_cli/_demo.py::run_demo lines",
        "mobster_cli/main.py::_device_options lines",
        "mobster_drivers/devices/appium/_device.py::AppiumDevice.__init__ parameters",
        "mobster_drivers/devices/appium/_device.py::AppiumDevice._call parameters",
        "mobster_drivers/devices/appium/_device.py::appium_device parameters",
        "mobster_drivers/devices/scripted/_draw.py::_Painter.text parameters",
        "mobster_drivers/devices/scripted/_draw.py::_ring parameters",
        "mobster_drivers/devices/scripted/_draw.py::_wifi parameters",
        "mobster_drivers/devices/scripted/_font.py::_layout lines",
        "mobster_drivers/devices/scripted/_font.py::draw_text parameters",
        "mobster_drivers/devices/scripted/_phone.py::_Sim._walk parameters",
        "mobster_drivers/devices/simulator/_device.py::SimulatorDevice.connect parameters",
        "mobster_drivers/devices/wda/_device.py::WdaDevice.__init__ parameters",
        "mobster_drivers/devices/wda/_device.py::WdaDevice._call parameters",
        "mobster_drivers/testing/appium.py::FakeAppium.__init__ parameters",
        "mobster_drivers/testing/wda.py::FakeWda.__init__ parameters",
        "mobster_pytest/_errors.py::CheckNotPassed.__init__ parameters",
        "mobster_pytest/_runs.py::run_for parameters",
    }
)


def named_functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function in ``tree`` with its dotted name (``Class.method``, ``outer.inner``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}{node.name}", node
            yield from named_functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from named_functions(node, f"{prefix}{node.name}.")
        else:
            yield from named_functions(node, prefix)


def breaches(package: Path) -> set[str]:
    """The package's functions that break a house rule, as :data:`BASELINE` names them."""
    found = set()
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for name, f in named_functions(ast.parse(path.read_text())):
            if too_long(f) is not None:
                found.add(f"{where}::{name} lines")
            if too_wide(f) is not None:
                found.add(f"{where}::{name} parameters")
    return found


def test_every_package_that_ships_is_held_to_the_house_rules() -> None:
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    held = {CORE.name, *(p.name for p in PACKAGES)}
    assert set(wheel["packages"]) <= held
    assert {"mobster_drivers", "mobster_cli", "mobster_pytest"} <= held


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_no_function_outside_the_core_breaks_a_house_rule_unless_listed(package: Path) -> None:
    assert breaches(package) - BASELINE == set()


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_listed_breach_still_breaks_its_rule(package: Path) -> None:
    # A function fixed (or gone) comes off the list, so the list can only shrink.
    listed = {b for b in BASELINE if b.startswith(f"{package.name}/")}
    assert listed - breaches(package) == set()


def test_the_baseline_names_only_packages_outside_the_core() -> None:
    assert all(b.split("/", 1)[0] in {p.name for p in PACKAGES} for b in BASELINE)
