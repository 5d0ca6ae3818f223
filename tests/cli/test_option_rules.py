"""What holds for every option of every command, found by walking click's command tree (issue 37, item 8).

A number option refuses NaN, the infinities and numbers out of its range (``inspect --every nan``
was taken and spun a CPU); every option of ``mobster test`` is a config key but those docs/cli.md
names; and each exit code docs/cli.md gives in its option rows is the one the command exits with
(its ``--locale`` row said 2 where the command exits 3).
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from mobster_cli._options import FiniteNumber
from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from mobster_harness.config import KEYS
from tests.commands import commands
from tests.samples import ROOT, SIGNUP_BY_BUNDLE

CLI_DOC = ROOT / "docs" / "cli.md"


def number_options() -> list[tuple[tuple[str, ...], click.Option]]:
    return [
        (words, p)
        for words, command in commands()
        for p in command.params
        if isinstance(p, click.Option) and isinstance(p.type, click.types.FloatParamType)
    ]


@pytest.fixture
def project(project: Path) -> Path:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_BY_BUNDLE)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    return project


def mobster(*args: str, runtime: Runtime | None = None) -> Result:
    clock = FakeClock()
    obj = runtime or Runtime(clock, clock.run)
    return CliRunner().invoke(cli, list(args), obj=obj, catch_exceptions=False, prog_name="mobster")


# -- numbers ---------------------------------------------------------------------------------------


def test_the_walk_finds_every_number_option_there_is() -> None:
    found = {(" ".join(words), p.opts[0]) for words, p in number_options()}
    assert ("inspect", "--every") in found
    assert ("test", "--max-usd") in found
    assert ("mcp", "--poll-interval") in found
    assert len(found) >= 20  # test, verify, config: 5 each; inspect: --every, --session-wait; mcp: 3 waits


def test_every_number_option_is_a_finite_number() -> None:
    loose = [(" ".join(w), p.opts[0]) for w, p in number_options() if not isinstance(p.type, FiniteNumber)]
    assert loose == []


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "1e999"])
@pytest.mark.parametrize(
    ("words", "option"),
    [(w, p.opts[0]) for w, p in number_options()],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else v,
)
def test_every_number_option_refuses_nan_infinities_and_negatives(
    project: Path, words: tuple[str, ...], option: str, value: str
) -> None:
    result = mobster(*words, option, value)
    assert result.exit_code == 3, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"mobster: Invalid value for '{option}': give "), line
    assert f"not '{value}'" in line
    assert result.stdout == ""


def test_inspect_every_nan_is_refused_before_the_device_is_read(project: Path) -> None:
    result = mobster("inspect", "--scripted", "app.yaml", "--watch", "--every", "nan")
    assert result.exit_code == 3
    assert result.stderr == (
        "mobster: Invalid value for '--every': give seconds from 0.1 to 60, such as 1, not 'nan' "
        "(mobster inspect --help lists the options)\n"
    )


# -- every option of mobster test is a config key, but those the docs name --------------------------


def test_every_option_of_mobster_test_is_a_config_key_but_those_docs_cli_names() -> None:
    said = " ".join(CLI_DOC.read_text().split())
    found = re.search(r"Every option but (.+?) is also a key of the project config", said)
    assert found is not None, "docs/cli.md no longer says which options are config keys"
    named = set(re.findall(r"`(--[a-z-]+)`", found.group(1)))
    options = {p.opts[0]: p.name for p in cli.commands["test"].params if isinstance(p, click.Option)}
    fields = {key.field for key in KEYS}
    not_keys = {opt for opt, name in options.items() if name not in fields}
    assert named == not_keys
    assert {key.field for key in KEYS} <= set(options.values())  # and every key is one of its options


# -- the exit codes docs/cli.md gives --------------------------------------------------------------


def _ctrl_c_after(seconds: float) -> Runtime:
    """A runtime whose run is stopped by Ctrl+C ``seconds`` into it (on the fake clock)."""
    clock = FakeClock()

    def run(coro: Coroutine[Any, Any, Any]) -> Any:
        async def drive() -> Any:
            task = asyncio.ensure_future(coro)
            await clock.sleep(seconds)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise KeyboardInterrupt

        return clock.run(drive())

    return Runtime(clock, run)


def _export_then_import(project: Path) -> Result:
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("paths", "export", "bundle.json").exit_code == 0
    return mobster("paths", "import", "bundle.json")


def _export_onto_a_link(project: Path) -> Result:
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    (project / "elsewhere.json").write_text("{}")
    (project / "bundle.json").symlink_to(project / "elsewhere.json")
    result = mobster("paths", "export", "bundle.json")
    assert (project / "elsewhere.json").read_text() == "{}"  # never written through
    return result


def _not_a_bundle(project: Path) -> Result:
    (project / "junk.json").write_text("[]")
    return mobster("paths", "import", "junk.json")


def _after_with_no_path(project: Path) -> Result:
    return mobster("inspect", "--scripted", "app.yaml", "--after", "signup")


def _after_that_drifts(project: Path) -> Result:
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())  # Continue is Next
    return mobster("inspect", "--scripted", "renamed.yaml", "--after", "signup")


#: For each row of docs/cli.md whose first cell names an option or a command and whose text gives
#: exit codes: how to get each code it gives.
CASES: dict[str, list[Any]] = {
    "--env-file": [("test", "--scripted", "app.yaml", "--env-file", "missing.env")],
    "--locale": [("test", "--scripted", "app.yaml", "--locale", "Deutsch")],
    "--max-usd": [("test", "--scripted", "app.yaml", "--max-usd", value) for value in ("nan", "inf", "0", "-1")],
    "--junit": [("test", "--scripted", "app.yaml", "--model", "scripted", "--junit", "no/such/folder/j.xml")],
    "--shard": [("test", "--scripted", "app.yaml", "--shard", "5/9")],
    "--paths": [("test", "--scripted", "app.yaml", "--paths", "${MOBSTER_TEST_NO_SUCH_STORE}")],
    "--watch": [lambda project: mobster("inspect", "--scripted", "app.yaml", "--watch", runtime=_ctrl_c_after(2.5))],
    "--after": [_after_with_no_path, _after_that_drifts],
    "mobster paths export FILE": [_export_onto_a_link],
    "mobster paths import FILE": [_not_a_bundle, _export_then_import],
}


def _rows_with_exit_codes() -> dict[str, set[int]]:
    rows = {}
    for line in CLI_DOC.read_text().splitlines():
        head = re.match(r"\| `([^`]+)`", line)
        codes = {int(n) for n in re.findall(r"\b(?:exits?|else) (\d{1,3})\b", line)}
        if head and codes:
            first = head.group(1).split()[0] if head.group(1).startswith("--") else head.group(1)
            rows[first] = codes
    return rows


def test_every_row_of_docs_cli_that_gives_an_exit_code_has_a_case() -> None:
    assert set(_rows_with_exit_codes()) == set(CASES)


@pytest.mark.parametrize("row", sorted(CASES))
def test_the_exit_codes_docs_cli_gives_are_the_real_ones(project: Path, row: str) -> None:
    codes = set()
    for case in CASES[row]:
        result = case(project) if callable(case) else mobster(*case)
        codes.add(result.exit_code)
    assert codes == _rows_with_exit_codes()[row], row


def test_a_usage_error_exits_3_through_the_console_script_as_in_the_tests(project: Path) -> None:
    # The tests run the group through click's main (CliRunner), the console script through main():
    # both give a usage error its one line and exit 3.
    args = ["test", "--scripted", "app.yaml", "--locale", "Deutsch"]
    proc = subprocess.run(
        [sys.executable, "-c", "from mobster_cli.main import main; main()", *args],
        cwd=project, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    result = mobster(*args)
    assert (proc.returncode, proc.stderr) == (result.exit_code, result.stderr) == (3, result.stderr)
    assert proc.stderr.count("\n") == 1
