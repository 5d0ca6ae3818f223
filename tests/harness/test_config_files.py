"""The project config's files as TOML holds them: every form of ``tool.mobster``, and a byte order mark said as one."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from click.testing import CliRunner

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_harness.config import ConfigError, find_config, load_config

BOM_FIX = "it starts with a byte order mark (BOM); save it as UTF-8 without one"


@pytest.fixture
def root(tmp_path: Path, clean_env: None) -> Path:
    (tmp_path / ".mobster").mkdir()
    return tmp_path


def error(root: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(root, env={})
    return str(caught.value)


def test_a_mobster_toml_with_a_byte_order_mark_says_so_and_the_fix(root: Path) -> None:
    (root / "mobster.toml").write_bytes(codecs.BOM_UTF8 + b'model = "scripted"\n')
    assert error(root) == f"{root / 'mobster.toml'}: {BOM_FIX}"  # not "Invalid statement (at line 1, column 1)"


def test_a_pyproject_with_a_byte_order_mark_says_so_rather_than_having_no_config(root: Path) -> None:
    # The mark hid the header from the pattern: the config was silently absent (every value its default).
    (root / "pyproject.toml").write_bytes(codecs.BOM_UTF8 + b'[tool.mobster]\nmodel = "scripted"\n')
    assert find_config(root) == root / "pyproject.toml"
    assert error(root) == f"{root / 'pyproject.toml'}: {BOM_FIX}"


@pytest.mark.parametrize(
    ("mark", "encoding"),
    [
        (codecs.BOM_UTF16_LE, "UTF-16"),
        (codecs.BOM_UTF16_BE, "UTF-16"),
        (codecs.BOM_UTF32_LE, "UTF-32"),
        (codecs.BOM_UTF32_BE, "UTF-32"),
    ],
)
def test_a_config_saved_as_utf16_or_utf32_names_its_encoding(root: Path, mark: bytes, encoding: str) -> None:
    codec = {"UTF-16": "utf-16-le", "UTF-32": "utf-32-le"}[encoding]
    (root / "mobster.toml").write_bytes(mark + 'model = "scripted"\n'.encode(codec))
    assert error(root) == (
        f"{root / 'mobster.toml'}: it is {encoding} text (it starts with its byte order mark); "
        "save it as UTF-8 without one"
    )


def test_the_bom_message_is_the_push_payloads_own() -> None:
    from mobster_core.checks import push_problem

    assert push_problem(codecs.BOM_UTF8 + b'{"aps": {}}') == BOM_FIX


@pytest.mark.parametrize(
    "text",
    [
        '[tool."mobster"]\nmodel = "scripted"\n',
        "[tool.'mobster']\nmodel = \"scripted\"\n",
        '[tool]\nmobster = {model = "scripted"}\n',
        'tool.mobster.model = "scripted"\n[project]\nname = "shop"\n',
        '[tool]\nmobster.model = "scripted"\n',
        '[ tool . mobster ]  # ours\nmodel = "scripted"\n',
    ],
    ids=["quoted", "single-quoted", "inline", "dotted-top-level", "dotted-under-tool", "spaced-header"],
)
def test_every_form_toml_allows_for_tool_mobster_is_the_config(root: Path, text: str) -> None:
    (root / "pyproject.toml").write_text(text)
    assert find_config(root) == root / "pyproject.toml"
    assert load_config(root, env={}).values["model"] == "scripted"


def test_an_array_of_tables_is_found_and_said_not_to_be_a_table(root: Path) -> None:
    (root / "pyproject.toml").write_text('[[tool.mobster]]\nmodel = "scripted"\n')
    assert "tool.mobster should be a table" in error(root)


def test_a_header_inside_a_string_is_no_config(root: Path) -> None:
    # A pattern saw a line starting "[tool.mobster]" and then refused the file: it is text of a string.
    text = '[project]\nname = "shop"\nreadme = """\n[tool.mobster]\nmodel = 3\n"""\n'
    (root / "pyproject.toml").write_text(text)
    assert find_config(root) is None
    assert load_config(root, env={}).file is None


def test_a_pyproject_that_doesnt_parse_is_the_config_when_it_looks_so_and_says_why(root: Path) -> None:
    (root / "pyproject.toml").write_text('[tool.mobster]\nmodel = "scripted\n')
    assert "line 2, column" in error(root)
    assert "not valid TOML" in error(root)


def test_mobster_config_says_the_bom_in_one_line(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "mobster.toml").write_bytes(codecs.BOM_UTF8 + b'model = "scripted"\n')
    monkeypatch.chdir(root)
    clock = FakeClock()
    result = CliRunner().invoke(cli, ["config"], catch_exceptions=False, obj=Runtime(clock, clock.run))
    assert result.exit_code == 3
    assert result.output.strip() == f"mobster: {root / 'mobster.toml'}: {BOM_FIX}"


@pytest.mark.parametrize("name", ["mobster.toml", "pyproject.toml"])
def test_the_workflows_install_step_says_the_bom_too(tmp_path: Path, name: str) -> None:
    """The step ``mobster init`` writes reads the config in CI: a mark is one line there too, not a traceback."""
    import os
    import subprocess
    import sys

    from mobster_cli._init import INSTALL_SCRIPT

    body = b'install = "==0.2.0"\n' if name == "mobster.toml" else b'[tool.mobster]\ninstall = "==0.2.0"\n'
    (tmp_path / name).write_bytes(codecs.BOM_UTF8 + body)
    (tmp_path / "github-env").write_text("")
    environ = {"PATH": os.environ.get("PATH", ""), "GITHUB_ENV": str(tmp_path / "github-env"), "MOBSTER_EXTRAS": "cli"}
    done = subprocess.run(
        [sys.executable, "-c", INSTALL_SCRIPT], cwd=tmp_path, env=environ, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stderr == f"{name}: {BOM_FIX}\n"
    (tmp_path / name).write_bytes(b"install = \n")
    done = subprocess.run(
        [sys.executable, "-c", INSTALL_SCRIPT], cwd=tmp_path, env=environ, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"{name}: it can't be read as TOML (")
    assert "Traceback" not in done.stderr
