"""docs/python.md is run as it is: every ```python block, in order, in one namespace, in an empty folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "python.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def blocks() -> list[str]:
    return BLOCK.findall(PAGE.read_text())


def test_the_page_has_an_example_for_each_thing_a_newcomer_does() -> None:
    text = PAGE.read_text()
    for heading in ("## Run a check", "## Run a suite", "## Look at a recorded path", "## Match a step",
                    "## Your own device", "## Your own model"):  # fmt: skip
        assert heading in text
    assert len(blocks()) >= 8


def test_every_example_of_the_page_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "python_md"}
    for number, code in enumerate(blocks(), 1):
        try:
            exec(compile(code, f"docs/python.md, block {number}", "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"docs/python.md, block {number} failed: {type(exc).__name__}: {exc}") from exc
    out = capsys.readouterr().out
    assert "smart 4" in out  # the first run: Smart, four model calls (three steps and "done")
    assert 'step 3 (Tap "Continue") drifted' in out
    # A fix spelled for Python names RunOptions, never a flag of the CLI or the plugin.
    assert "(healing is off); run it with RunOptions(no_heal=False)" in out
    assert "--no-heal" not in out
    assert "seconds: expected a number, got '3'" in out  # from_dict names the key it refused


def test_the_readme_example_runs() -> None:
    # The first code a visitor reads must run as printed (it once lagged behind the step format).
    readme = PAGE.parents[1] / "README.md"
    (code,) = re.findall(r"^```python\n(.*?)^```$", readme.read_text(), re.DOTALL | re.MULTILINE)
    namespace: dict[str, object] = {"__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)
    import mobster_core as mc

    step, screen = namespace["step"], namespace["screen"]
    assert isinstance(step, mc.Step)
    assert isinstance(screen, mc.Screen)
    assert mc.match_step(step, screen, settled=False).ok  # what the README's last line says


def test_the_own_model_example_of_smart_md_runs_on_the_public_api() -> None:
    # It once called mc._prompt.parse_decision: a private module, which no example may use.
    page = PAGE.parent / "smart.md"
    section = page.read_text().split("## Using your own model", 1)[1]
    code = BLOCK.findall(section)[0]
    assert "._" not in code
    namespace: dict[str, object] = {"__name__": "smart_md"}
    exec(compile(code, "docs/smart.md", "exec"), namespace)
    import asyncio

    import mobster_core as mc
    from mobster_core.prompts import ACTION_TOOL, SYSTEM_PROMPT

    model = namespace["MyModel"]()  # type: ignore[operator]
    assert isinstance(model, mc.Model)
    prompt = mc.Prompt(system=SYSTEM_PROMPT, request="Tap Go", history=(), screen="", tool_schema=ACTION_TOOL)
    decision = asyncio.run(model.decide(prompt))
    assert decision == mc.Decision(
        mc.DecisionKind.DONE, reason="every step is done", usage=mc.Usage(input_tokens=1200, output_tokens=40)
    )


def _pages() -> list[Path]:
    root = PAGE.parents[1]
    return [*sorted((root / "docs").glob("*.md")), root / "README.md"]


def _says_how_to_install(text: str, name: str) -> bool:
    """A paragraph of the page's prose (outside code blocks) names `name` and says it is installed apart."""
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.DOTALL | re.MULTILINE)
    return any(f"`{name}`" in p and "install" in p for p in prose.split("\n\n"))


def test_every_python_block_of_every_page_is_python() -> None:
    # reports.md had pseudo-code in a ```python block: a SyntaxError for anyone who ran it.
    import ast

    broken = []
    for page in _pages():
        for number, code in enumerate(BLOCK.findall(page.read_text()), 1):
            try:
                ast.parse(code)
            except SyntaxError as exc:
                broken.append(f"{page.name}, python block {number}: {exc}")
    assert broken == []


def test_every_module_a_python_block_imports_is_installed_with_mobster_or_the_page_says_how() -> None:
    # writing-a-driver.md's HTTP driver imported httpx, which no extra installs and no line mentioned.
    import ast
    import sys
    from importlib.metadata import packages_distributions, requires

    from packaging.requirements import Requirement

    ours = {Requirement(r).name.lower().replace("_", "-") for r in requires("mobster-replay") or ()}
    dists = packages_distributions()
    unsaid = []
    for page in _pages():
        text = page.read_text()
        for code in BLOCK.findall(text):
            for node in ast.walk(ast.parse(code)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                for name in (n.split(".")[0] for n in names):
                    given = {d.lower().replace("_", "-") for d in dists.get(name, [])}
                    if name in sys.stdlib_module_names or name.startswith("mobster_") or given & ours:
                        continue
                    if not _says_how_to_install(text, name):
                        unsaid.append(f"{page.name}: import {name}")
    assert unsaid == []
