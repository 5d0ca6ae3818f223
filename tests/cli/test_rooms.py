"""The CLI's rooms stand in one direction: ``main`` on top, the commands, ``_shared``, the words.

The layers contract in ``pyproject.toml`` holds the order; these tests hold what it can't see: no
command module reaches back up into ``main`` at all (a lazy import inside a function is how the
circle was dodged before), and ``mobster --help`` still imports nothing of the library.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

CLI = Path(__file__).parents[2] / "mobster_cli"
MODULES = sorted(p for p in CLI.glob("*.py") if p.name != "main.py")


def imports_of_main(tree: ast.AST) -> list[int]:
    """The lines that import ``mobster_cli.main`` (``from .main import``, ``from . import main``, …)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = ("." * node.level) + (node.module or "")
            names = {a.name for a in node.names}
            if module in (".main", "mobster_cli.main") or (module in (".", "mobster_cli") and "main" in names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name == "mobster_cli.main" for a in node.names):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_no_command_module_imports_main(module: Path) -> None:
    assert imports_of_main(ast.parse(module.read_text())) == []


def test_the_finder_sees_a_lazy_import_of_main() -> None:
    # The check above can fail: a function that borrows from main, as _inspect's five did.
    tree = ast.parse("def f():\n    from .main import _fail\n\n\ndef g():\n    from . import main\n")
    assert imports_of_main(tree) == [2, 6]


def test_importing_the_command_loads_click_and_attrs_only() -> None:
    # `mobster --help` stays well under 0.3 s: the library, the harness, the report and rich load in the commands.
    code = (
        "import sys, mobster_cli.main; "
        "print(sorted({m.split('.')[0] for m in sys.modules if not m.startswith('_')} - set(sys.stdlib_module_names)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == str(["attr", "attrs", "click", "mobster_cli"])
