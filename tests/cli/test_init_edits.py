"""``mobster init`` edits other tools' files from their parsed document and never breaks one (issue 37, item 3).

Every case that edits checks the same three things: every byte of the file stays where it was,
the result parses, and its document is the old one plus exactly the tables (or lines) init adds.
"""

from __future__ import annotations

import codecs
import copy
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mobster_cli import _init
from mobster_cli._edits import EditRefused, add_gitignore_lines, add_toml_tables, gitignore_missing
from mobster_cli._init import Found
from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_harness.config import load_config

HANG_SECONDS = 20
MOBSTER = ("tool", "mobster")
PYTEST = ("tool", "pytest", "ini_options")
ALL_LINES = ".env .mobster/runs/ .mobster/test-results/ .mobster/cache/"


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """An empty folder as the working folder, on a machine with no simulator and no USB iPhone."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_init, "find_devices", Found)
    return tmp_path


def init() -> Result:
    clock = FakeClock()
    result = CliRunner().invoke(cli, ["init"], catch_exceptions=False, obj=Runtime(clock, clock.run))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


def only_added(before: bytes, after: bytes, *tables: tuple[str, ...]) -> dict[str, Any]:
    """``after`` keeps every byte of ``before`` and parses as its document plus exactly ``tables``; its document."""
    assert after.startswith(before)
    old, new = tomllib.loads(before.decode()), tomllib.loads(after.decode())
    rest = copy.deepcopy(new)
    for keys in tables:
        *parents, last = keys
        holder = rest
        for key in parents:
            holder = holder[key]
        assert last not in _at(old, keys[:-1]), f"{'.'.join(keys)} was there already"
        del holder[last]
    _prune(rest, old)
    assert rest == old
    return new


def _at(doc: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        doc = doc.get(key, {})
    return doc


def _prune(rest: dict[str, Any], old: dict[str, Any]) -> None:
    """Tables the additions made on their way (``tool`` in a file that had none) go, when empty."""
    for key in list(rest):
        if isinstance(rest[key], dict):
            _prune(rest[key], old.get(key, {}) if isinstance(old.get(key), dict) else {})
            if not rest[key] and key not in old:
                del rest[key]


def nothing_written_for_the_config(folder: Path) -> None:
    assert not (folder / "mobster.toml").exists()
    assert not (folder / "pytest.ini").exists()


# -- the three forms ---------------------------------------------------------------------


def test_a_quoted_tool_mobster_is_there_and_only_pytest_is_added(empty: Path) -> None:
    before = b'[project]\nname = "shop"\n\n[tool."mobster"]\nprofile = "scripted"\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "left pyproject.toml [tool.mobster] (it is there)" in result.output
    assert "wrote pyproject.toml [tool.pytest.ini_options] (added at its end)" in result.output
    only_added(before, (empty / "pyproject.toml").read_bytes(), PYTEST)
    nothing_written_for_the_config(empty)


def test_an_inline_mobster_under_tool_is_there(empty: Path) -> None:
    before = b'[tool]\nmobster = {model = "scripted", poll-interval = 0.25}\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "left pyproject.toml [tool.mobster] (it is there)" in result.output
    only_added(before, (empty / "pyproject.toml").read_bytes(), PYTEST)
    assert load_config(empty, env={}).values["model"] == "scripted"


def test_an_inline_ini_options_under_tool_pytest_is_there(empty: Path) -> None:
    before = b'[tool.pytest]\nini_options = {addopts = "-q"}\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "left pyproject.toml [tool.pytest.ini_options] (pytest is set up there;" in result.output
    assert "wrote pyproject.toml [tool.mobster] (added at its end)" in result.output
    doc = only_added(before, (empty / "pyproject.toml").read_bytes(), MOBSTER)
    assert doc["tool"]["mobster"]["profile"] == "scripted"
    assert load_config(empty, env={}).profile == "scripted"


# -- hostile forms of our own --------------------------------------------------------------------


def test_dotted_keys_at_the_top_level_are_the_table(empty: Path) -> None:
    before = b'tool.mobster.model = "scripted"\ntool.pytest.ini_options.addopts = "-q"\n[project]\nname = "shop"\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "left pyproject.toml [tool.mobster] (it is there)" in result.output
    assert (empty / "pyproject.toml").read_bytes() == before
    nothing_written_for_the_config(empty)


def test_an_array_of_tables_is_there_and_said_not_to_be_a_table(empty: Path) -> None:
    before = b'[[tool.mobster]]\nmodel = "scripted"\n[tool.pytest.ini_options]\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "left pyproject.toml [tool.mobster] (it is there; it should be a table (docs/config.md))" in result.output
    assert (empty / "pyproject.toml").read_bytes() == before


def test_crlf_no_final_newline_and_a_comment_on_the_header_line(empty: Path) -> None:
    before = b'[project]\r\nname = "shop"\r\n\r\n[tool.black]  # the formatter\r\nline-length = 100  # wide'
    (empty / "pyproject.toml").write_bytes(before)
    init()
    after = (empty / "pyproject.toml").read_bytes()
    assert b"\n" not in after.replace(b"\r\n", b"")  # its line ends are kept
    doc = only_added(before, after, MOBSTER, PYTEST)
    assert doc["tool"]["black"] == {"line-length": 100}
    assert load_config(empty, env={}).profile == "scripted"


def test_a_header_inside_a_string_is_not_the_table(empty: Path) -> None:
    # A pattern took the string's line for the table and wrote no config at all.
    before = b'[project]\nname = "shop"\ndescription = """\n[tool.mobster]\n[tool.pytest.ini_options]\n"""\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "wrote pyproject.toml [tool.mobster] (added at its end)" in result.output
    only_added(before, (empty / "pyproject.toml").read_bytes(), MOBSTER, PYTEST)


def test_a_native_tool_pytest_table_is_pytest_set_up(empty: Path) -> None:
    # pytest 9 refuses [tool.pytest] keys beside [tool.pytest.ini_options]: adding one breaks pytest.
    before = b'[tool.pytest]\nminversion = "9.0"\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "left pyproject.toml [tool.pytest] (pytest is set up there;" in result.output
    doc = only_added(before, (empty / "pyproject.toml").read_bytes(), MOBSTER)
    assert "ini_options" not in doc["tool"]["pytest"]


def test_nan_and_typed_values_are_kept_and_compared_by_type(empty: Path) -> None:
    before = b'[project]\nname = "shop"\n[tool.other]\nratio = nan\nflag = true\none = 1\nwhen = 1979-05-27\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert "wrote pyproject.toml [tool.mobster] (added at its end)" in result.output
    assert (empty / "pyproject.toml").read_bytes().startswith(before)
    nothing_written_for_the_config(empty)


def test_a_tool_that_is_an_inline_table_keeps_the_file_and_the_config_goes_to_its_own_file(empty: Path) -> None:
    before = b"tool = {black = {line-length = 88}}\n"
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert (empty / "pyproject.toml").read_bytes() == before
    assert "wrote mobster.toml" in result.output
    assert "wrote pytest.ini" in result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: pyproject.toml")]
    assert notes == [
        (
            "note: pyproject.toml is left as it is ([tool.mobster] and [tool.pytest.ini_options] can't be added at "
            "its end: TOML refuses it there (Cannot declare ('tool', 'mobster') twice)): mobster.toml and pytest.ini "
            "instead"
        )
    ]
    assert load_config(empty, env={}).profile == "scripted"


def test_a_pyproject_with_a_byte_order_mark_is_left_and_said(empty: Path) -> None:
    before = codecs.BOM_UTF8 + b'[project]\nname = "shop"\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert (empty / "pyproject.toml").read_bytes() == before
    assert (
        "left pyproject.toml as it is (it starts with a byte order mark (BOM); save it as UTF-8 without one): "
        "run mobster init again once it reads, to add [tool.mobster] and [tool.pytest.ini_options]"
    ) in result.output
    nothing_written_for_the_config(empty)


def test_a_pyproject_that_isnt_toml_is_left_with_its_line(empty: Path) -> None:
    before = b'[project\nname = "shop"\n'
    (empty / "pyproject.toml").write_bytes(before)
    result = init()
    assert (empty / "pyproject.toml").read_bytes() == before
    assert "left pyproject.toml as it is (line 1, column 9: not valid TOML (" in result.output
    nothing_written_for_the_config(empty)


def test_a_symlinked_pyproject_is_read_never_written_through(
    empty: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shared = tmp_path_factory.mktemp("shared") / "pyproject.toml"
    before = b'[project]\nname = "shop"\n'
    shared.write_bytes(before)
    (empty / "pyproject.toml").symlink_to(shared)
    result = init()
    assert shared.read_bytes() == before
    assert (empty / "pyproject.toml").is_symlink()
    assert "note: pyproject.toml is left as it is (it is a symlink (mobster never writes through one))" in result.output
    assert load_config(empty, env={}).profile == "scripted"  # from mobster.toml


@pytest.mark.usefixtures("no_hang")
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_pyproject_that_is_a_fifo_or_dev_zero_is_refused_at_once(empty: Path, kind: str) -> None:
    target = empty / "pyproject.toml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    result = init()
    assert "left pyproject.toml as it is (it is not a regular file): run mobster init again" in result.output
    nothing_written_for_the_config(empty)


# -- .gitignore ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_hang")
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_gitignore_that_is_a_fifo_or_dev_zero_is_refused_at_once(empty: Path, kind: str) -> None:
    # A FIFO hung init; /dev/zero ended in a MemoryError.
    target = empty / ".gitignore"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    result = init()
    line = f"left .gitignore as it is (it is not a regular file): add these lines to it by hand: {ALL_LINES}"
    assert line in result.output


def test_a_symlinked_gitignore_is_read_and_never_written_through(
    empty: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    shared = tmp_path_factory.mktemp("dotfiles") / "gitignore"
    shared.write_bytes(b".env\n.mobster/cache/\n")
    (empty / ".gitignore").symlink_to(shared)
    result = init()
    assert shared.read_bytes() == b".env\n.mobster/cache/\n"
    assert (
        "left .gitignore as it is (it is a symlink (mobster never writes through one)): "
        "add these lines to it by hand: .mobster/runs/ .mobster/test-results/"
    ) in result.output


def test_a_gitignore_with_a_bom_crlf_and_no_final_newline_gets_only_what_it_lacks(empty: Path) -> None:
    before = codecs.BOM_UTF8 + b"/.env\r\n.mobster/runs   \r\n!.mobster/cache/\r\n# .mobster/test-results/"
    (empty / ".gitignore").write_bytes(before)
    result = init()
    assert "wrote .gitignore (1 line added at its end)" in result.output
    after = (empty / ".gitignore").read_bytes()
    assert after == before + b"\r\n\r\n# Mobster replay\r\n.mobster/test-results/\r\n"


def test_gitignore_patterns_are_read_as_git_reads_them() -> None:
    wanted = (".env", ".mobster/runs/", ".mobster/test-results/", ".mobster/cache/")
    assert gitignore_missing(b"", wanted) == list(wanted)
    assert gitignore_missing(b".env\\ \n", wanted) == list(wanted)  # an escaped space: another name
    assert gitignore_missing(b"\\.env\n", wanted)[0] == ".mobster/runs/"  # an escaped first character
    assert gitignore_missing(b".envrc\n.mobster/\n", wanted) == list(wanted)  # other names
    assert gitignore_missing(b"!.env\n/.mobster/runs\n.mobster/test-results/\n.mobster/cache\r\n", wanted) == []
    assert add_gitignore_lines(b"a", "b\\ \n") == b"a\n\nb\\ \n"  # the escaped space kept, as git reads it


# -- the verification itself ---------------------------------------------------------------------


def test_an_addition_that_wouldnt_read_back_as_added_is_refused() -> None:
    # A key with no header of its own would land in the file's last table: the document differs.
    with pytest.raises(EditRefused, match="wouldn't read back as added"):
        add_toml_tables(b"[project]\nname = 'shop'\n", "x = 1\n", named="x")


def test_an_addition_toml_refuses_there_is_refused() -> None:
    with pytest.raises(EditRefused, match=r"can't be added at its end: TOML refuses it there"):
        add_toml_tables(b"tool = {black = {}}\n", "[tool.mobster]\nmodel = 'x'\n", named="[tool.mobster]")
    with pytest.raises(EditRefused, match=r"tool is there already as a value, so it can't be added"):
        add_toml_tables(b"tool = 1\n", "[tool.mobster]\nmodel = 'x'\n", named="[tool.mobster]")
    with pytest.raises(EditRefused, match=r"tool is there already as an array of tables"):
        add_toml_tables(b"[[tool]]\nx = 1\n", "[tool.mobster]\nmodel = 'x'\n", named="[tool.mobster]")


def test_an_edit_that_reads_back_is_the_old_bytes_and_the_addition() -> None:
    assert add_toml_tables(b"a = 1", "[b]\nc = 2\n", named="[b]") == b"a = 1\n\n[b]\nc = 2\n"
    assert add_toml_tables(b"", "[b]\n", named="[b]") == b"[b]\n"


# -- the workflow ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_hang")
def test_a_workflow_that_is_a_fifo_is_never_waited_on(empty: Path) -> None:
    checks = empty / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "login.yaml").write_text(
        "version: 1\nname: Login\napp: {bundle: com.example.yourapp}\n"
        'steps:\n  - Type "${LOGIN_PASSWORD}" into "Password"\n'
    )
    workflow = empty / ".github" / "workflows" / "mobster.yml"
    workflow.parent.mkdir(parents=True)
    os.mkfifo(workflow)
    result = init()
    assert (
        "left .github/workflows/mobster.yml (it is there, but can't be read: it is not a regular file; "
        "its mobster test steps' env needs LOGIN_PASSWORD from the secrets)"
    ) in result.output
