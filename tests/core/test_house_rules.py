"""The house rules the linters can't say: short functions, narrow signatures, one wall clock."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mobster_core

CORE = Path(mobster_core.__file__).parent
MODULES = sorted(CORE.rglob("*.py"))
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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(CORE)))
def test_no_function_of_the_core_is_longer_than_a_screen(path: Path) -> None:
    long = []
    for f in functions(path):
        lines = (f.end_lineno or f.lineno) - f.lineno + 1
        if lines > MAX_LINES:
            long.append(f"{where(path, f)} {f.name}: {lines} lines")
    assert long == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(CORE)))
def test_no_signature_of_the_core_takes_more_than_five_parameters(path: Path) -> None:
    wide = []
    for f in functions(path):
        a = f.args
        names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if p.arg not in ("self", "cls")]
        if len(names) > MAX_PARAMETERS:
            wide.append(f"{where(path, f)} {f.name}({', '.join(names)})")
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
        "_rules/work.py": {("time", "process_time")},
    }


def test_the_one_wall_clock_reading_never_decides_what_a_run_does() -> None:
    # utc_now is called where a timestamp or an id is written, and where a suite clears the temporary
    # files a killed writer left (their age): never by a rule, a wait, or the replay.
    callers = sorted(
        str(p.relative_to(CORE)) for p in MODULES if "utc_now()" in p.read_text() and p.name != "_clock.py"
    )
    assert callers == ["_run/check.py", "_run/keep.py", "_run/suite.py", "heals.py"]
