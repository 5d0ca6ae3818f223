"""Issue 25's report merge and heal listing examples, and more of their class, through the command.

Each runs ``mobster`` in-process (``catch_exceptions=False``: a traceback fails the test) with a
10 s bound on each (``no_hang``), and checks the one ``mobster: …`` line naming the file, exit 3,
and that nothing is written when an input is refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP

HANG_SECONDS = 10
pytestmark = pytest.mark.usefixtures("no_hang")


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def one_line(result: Result) -> str:
    lines = [line for line in result.output.splitlines() if line.startswith("mobster: ")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    assert "internal error" not in result.output, result.output
    return lines[0]


@pytest.fixture
def shard(project: Path) -> Path:
    """A suite's folder that merges: the sign-up check recorded, then replayed."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("test", "--scripted", "app.yaml").exit_code == 0
    folders = sorted((project / ".mobster" / "test-results").glob("*/results.json"), key=lambda p: p.stat().st_mtime_ns)
    return folders[-1].parent


def _edit(shard: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads((shard / "results.json").read_text())
    change(doc)
    (shard / "results.json").write_text(json.dumps(doc))


def _refused(project: Path, shard: Path, *, says: str, names: str) -> None:
    out = project / "merged"
    line = one_line(result := mobster("report", "merge", str(shard), "--out", str(out)))
    assert result.exit_code == 3
    assert names in line, line
    assert says in line, line
    assert not out.exists() or not any(out.iterdir()), sorted(out.iterdir())  # nothing written


# -- what a shard's files are ---------------------------------------------------------------------


def test_a_fifo_results_json_is_refused_without_waiting(project: Path, shard: Path) -> None:
    (shard / "results.json").unlink()
    os.mkfifo(shard / "results.json")
    _refused(project, shard, says="not a regular file", names="results.json")


def test_a_dev_zero_symlink_is_never_read(project: Path, shard: Path) -> None:
    (shard / "junit.xml").unlink()
    (shard / "junit.xml").symlink_to("/dev/zero")
    _refused(project, shard, says="not a regular file", names="junit.xml")


@pytest.mark.hand_made_junit
def test_a_4_gb_sparse_junit_is_refused_by_its_size(project: Path, shard: Path) -> None:
    with (shard / "junit.xml").open("r+b") as f:
        f.truncate(4 * 1024**3)
    _refused(project, shard, says="larger than the limit", names="junit.xml")


def test_the_newest_suite_of_a_project_skips_a_fifo_it_cant_read(project: Path, shard: Path) -> None:
    other = project / ".mobster" / "test-results" / "zzz-fifo"
    other.mkdir()
    os.mkfifo(other / "results.json")
    os.utime(other, None)
    result = mobster("report", "merge", str(project), "--out", str(project / "merged"))
    assert result.exit_code == 0, result.output
    assert json.loads((project / "merged" / "results.json").read_text())["merged_from"] == [shard.name]


# -- forged shards ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("cost_usd", "abc", "checks[0].cost_usd: expected a number, got 'abc'"),
        ("heals", [5], "checks[0].heals[0]: expected a mapping, got 5"),
        ("verdict", "FAILED", "checks[0].verdict: expected one of passed, failed, needs_review, couldnt_run"),
        ("model_calls", True, "checks[0].model_calls"),
        ("steps", {"a": 1}, "checks[0].steps"),
        ("run_dir", 5, "checks[0].run_dir: expected a string, got 5"),
    ],
)
def test_a_forged_entry_is_refused_naming_the_file_and_the_key(
    project: Path, shard: Path, key: str, value: object, says: str
) -> None:
    _edit(shard, lambda doc: doc["checks"][0].__setitem__(key, value))
    _refused(project, shard, says=says, names=str(shard / "results.json"))


@pytest.mark.parametrize("key", ["seconds", "started_at", "suite_id"])
def test_a_forged_suite_key_is_refused(project: Path, shard: Path, key: str) -> None:
    _edit(shard, lambda doc: doc.__setitem__(key, [{}]))
    _refused(project, shard, says=f"{key}: expected", names="results.json")


@pytest.mark.parametrize("depth", [100, 100_000])
def test_deeply_nested_json_is_refused_with_its_depth(project: Path, shard: Path, depth: int) -> None:
    text = (shard / "results.json").read_text().rstrip().removesuffix("}")
    (shard / "results.json").write_text(text + ', "later": ' + "[" * depth + "]" * depth + "}")
    _refused(project, shard, says="nested more than 64 levels deep", names="results.json")


def test_brackets_inside_strings_are_not_nesting(project: Path, shard: Path) -> None:
    _edit(shard, lambda doc: doc["checks"][0].__setitem__("name", "[" * 500 + '\\"{' * 100))
    result = mobster("report", "merge", str(shard), "--out", str(project / "merged"))
    assert result.exit_code == 0, result.output


@pytest.mark.hand_made_junit
@pytest.mark.parametrize(
    ("attribute", "value"),
    [("tests", "abc"), ("failures", "-1"), ("errors", "1e999"), ("skipped", "٣"), ("time", "nan"), ("time", "-2")],
)
def test_a_junit_count_that_is_no_count_is_refused_and_no_results_json_is_left(
    project: Path, shard: Path, attribute: str, value: str
) -> None:
    junit = shard / "junit.xml"
    text = junit.read_text()
    start = text.index("<testsuite ")
    tag_end = text.index(">", start)
    tag = text[start:tag_end]
    if f' {attribute}="' in tag:
        head, _, rest = tag.partition(f' {attribute}="')
        tag = head + f' {attribute}="{value}"' + rest.partition('"')[2]
    else:
        tag += f' {attribute}="{value}"'
    junit.write_text(text[:start] + tag + text[tag_end:])
    _refused(project, shard, says=f"{attribute}={value!r}", names="junit.xml")


def test_deeply_nested_xml_is_refused(project: Path, shard: Path) -> None:
    depth = 50_000
    (shard / "junit.xml").write_text(
        "<testsuites><testsuite>" + "<a>" * depth + "</a>" * depth + "</testsuite></testsuites>"
    )
    _refused(project, shard, says="nested more than 64 levels deep", names="junit.xml")


def test_an_entity_bomb_is_refused(project: Path, shard: Path) -> None:
    lol = '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + n)} "{("&" + chr(97 + n) + ";") * 10}">' for n in range(9)
    )
    (shard / "junit.xml").write_text(f'<?xml version="1.0"?>{lol}]><testsuites><testsuite name="&j;"/></testsuites>')
    _refused(project, shard, says="not well-formed XML", names="junit.xml")


# -- where it writes -------------------------------------------------------------------------------


@pytest.mark.parametrize("out", ["/proc/x", "/proc/self/status/x"])
def test_a_folder_that_cant_be_written_is_one_line(project: Path, shard: Path, out: str) -> None:
    line = one_line(result := mobster("report", "merge", str(shard), "--out", out))
    assert result.exit_code == 3
    assert "can't be written there" in line, line


def test_a_symlinked_test_results_folder_is_never_written_through(
    project: Path, shard: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = project / "elsewhere"
    other.mkdir()
    results = project / ".mobster" / "test-results"
    results.rename(project / "kept-results")
    results.symlink_to(other)
    shard = project / "kept-results" / shard.name
    monkeypatch.chdir(project)
    line = one_line(result := mobster("report", "merge", str(shard)))
    assert result.exit_code == 3
    assert "symlink" in line, line
    assert "test-results" in line, line
    assert list(other.iterdir()) == []


def test_a_write_that_fails_half_way_takes_back_what_it_wrote(
    project: Path, shard: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mobster_core import files
    from mobster_report import _merge

    real = files.atomic_write

    def fails_on_junit(path: Path, data: bytes) -> None:
        if path.name == "junit.xml":
            raise OSError(28, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(_merge, "atomic_write", fails_on_junit)
    _refused(project, shard, says="No space left on device", names="junit.xml")


# -- the heal listing over junk run folders ---------------------------------------------------------


@pytest.fixture
def healed(project: Path) -> Path:
    """A heal waiting for review; returns the run folder it names."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    heal = (project / ".mobster" / "checks" / "signup.heal.yaml").read_text()
    run_dir = next(line.split(": ", 1)[1] for line in heal.splitlines() if line.strip().startswith("run_dir:"))
    return project / run_dir.strip()


def _fifo(run: Path) -> None:
    (run / "result.json").unlink()
    os.mkfifo(run / "result.json")


def _deep(run: Path) -> None:
    (run / "result.json").write_text("[" * 100_000 + "]" * 100_000)


def _dev_zero(run: Path) -> None:
    (run / "result.json").unlink()
    (run / "result.json").symlink_to("/dev/zero")


def _junk_types(run: Path) -> None:
    doc = json.loads((run / "result.json").read_text())
    doc["steps"] = [5]
    doc["heals"] = [{"step": "x"}]
    (run / "result.json").write_text(json.dumps(doc))


def _a_folder(run: Path) -> None:
    (run / "result.json").unlink()
    (run / "result.json").mkdir()


def _a_file(run: Path) -> None:
    for child in run.rglob("*"):
        if child.is_file():
            child.unlink()
    for child in sorted(run.rglob("*"), reverse=True):
        child.rmdir()
    run.rmdir()
    run.write_text("not a folder")


@pytest.mark.parametrize("spoil", [_fifo, _deep, _dev_zero, _junk_types, _a_folder, _a_file])
def test_a_junk_run_folder_leaves_the_heal_reviewable(
    project: Path, healed: Path, spoil: Callable[[Path], None]
) -> None:
    spoil(healed)
    result = mobster("test", "heal")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "internal error" not in result.output
    assert 'step 3: Tap "Continue" → Tap "Next"' in result.output
    assert "frames: not shown" in result.output
    assert healed.name in result.output
    assert "accept: mobster test heal --accept CHECK" in result.output
    rejected = mobster("test", "heal", "--reject", "signup.yaml")
    assert rejected.exit_code == 0, rejected.output


def test_junk_run_folders_beside_a_heal_that_names_no_run_are_passed_over(project: Path, healed: Path) -> None:
    heal = project / ".mobster" / "checks" / "signup.heal.yaml"
    heal.write_text("".join(line for line in heal.read_text().splitlines(True) if "run_dir:" not in line))
    runs = project / ".mobster" / "runs"
    for n, spoil in enumerate([_fifo, _deep, _dev_zero, _junk_types, _a_folder]):
        junk = runs / f"99999999T000000Z-junk{n}"
        junk.mkdir(mode=0o700)
        (junk / "result.json").write_text("{}")
        spoil(junk)
    result = mobster("test", "heal")
    assert result.exit_code == 0, result.output
    assert f"frame before: .mobster/runs/{healed.name}/" in result.output
