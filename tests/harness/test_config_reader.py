"""The three readers of a file's schema stand on one strict reader base, the project config's too.

A check file's, an app script's and the project config's readers are each a ``StrictReader``:
they take its shapes as they are (never a copy of their own), differ only by its hooks (what a
test names below), and say the same shape in the same words, each in its own line (its file and
line, its error) and its file's spelling of a key. The config's reader is imported only once
there is a config to read.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobster_core._store.checks import _Reader as CheckReader
from mobster_core.exceptions import CheckError, ScriptError
from mobster_core.yaml import StrictReader, load_yaml
from mobster_drivers.devices.scripted._script import _Reader as ScriptReader
from mobster_harness._config_reader import ConfigReader, _toml_key
from mobster_harness.config import KEYS, ConfigError, load_config, toml_value
from tests.strategies import examples

#: The same values at the same lines, in each file's own format.
YAML = "top: 1\nwait: '1.5'\nname: 3\nflag: 'yes'\nwiat: 2\n"
TOML = 'top = 1\nwait = "1.5"\nname = 3\nflag = "yes"\nwiat = 2\n'

#: The shapes the base says once: no reader has its own.
SHAPES = ("mapping", "require", "text", "string", "number", "flag", "advice", "quote", "written")


@dataclass(frozen=True)
class Voice:
    """One reader as a test builds it: its class, how its line starts, its error, and the hooks it sets."""

    cls: type[StrictReader]
    build: Callable[[Path], StrictReader]
    where: Callable[[Path, int], str]
    error: type[Exception]
    hooks: frozenset[str]


def _check(tmp: Path) -> StrictReader:
    return CheckReader(load_yaml(YAML, str(tmp / "c.yaml")))


def _script(tmp: Path) -> StrictReader:
    return ScriptReader(load_yaml(YAML, str(tmp / "c.yaml")))


def _config(tmp: Path) -> StrictReader:
    (tmp / "mobster.toml").write_text(TOML)
    return ConfigReader(tmp / "mobster.toml", TOML)


VOICES = {
    "check": Voice(
        CheckReader, _check, lambda tmp, n: f"{tmp / 'c.yaml'}:{n}: ", CheckError,
        frozenset({"refuses_nulls", "error", "unknown_key"}),
    ),
    "script": Voice(
        ScriptReader, _script, lambda tmp, n: f"{tmp / 'c.yaml'}:{n}: ", ScriptError, frozenset({"advises", "error"}),
    ),
    "config": Voice(
        ConfigReader, _config, lambda tmp, n: f"{tmp / 'mobster.toml'}: line {n}: ", ConfigError,
        frozenset({"advises", "assigns", "line", "fail", "unknown_key"}),
    ),
}  # fmt: skip


def said(voice: Voice, tmp: Path, read: Callable[[StrictReader], object]) -> str:
    reader = voice.build(tmp)
    with pytest.raises(voice.error) as caught:
        read(reader)
    assert type(caught.value) is voice.error  # the reader's own error, never the base's problem
    return str(caught.value)


@pytest.mark.parametrize("name", VOICES)
def test_each_reader_is_the_base_with_its_hooks_and_no_shape_of_its_own(name: str) -> None:
    voice = VOICES[name]
    assert issubclass(voice.cls, StrictReader)
    for shape in SHAPES:
        assert getattr(voice.cls, shape) is getattr(StrictReader, shape), (name, shape)
    own = {attr for attr in vars(voice.cls) if not attr.startswith("__") and hasattr(StrictReader, attr)}
    assert own == voice.hooks  # a reader differs from another only by the base's hooks
    if "fail" not in voice.hooks:
        assert voice.cls.fail is StrictReader.fail


# Each case: the shape read, its line, what is wrong, the fix with {=} for the file's spelling of a
# key and its value, and whether the fix is said only by a reader that advises (Rule 3).
CASES = {
    "quoted number": (
        lambda r: r.number("1.5", ("wait",), unit="seconds"), 2,
        "wait: expected a number of seconds, got '1.5' (a string)", "write it without quotes: wait{=}1.5", False,
    ),
    "number for text": (
        lambda r: r.text(3, ("name",), limit=10), 3,
        "name: expected a string, got 3 (a number)", 'quote it: name{=}"3"', False,
    ),
    "text for a flag": (
        lambda r: r.flag("yes", ("flag",)), 4,
        "flag: expected true or false, got 'yes' (a string)", "write flag{=}true", True,
    ),
    "blank text": (lambda r: r.text("  ", ("name",), limit=10), 3, "name: is blank", "write the name", True),
    "flag for a number": (
        lambda r: r.number(True, ("wait",), unit="seconds", most=60), 2,
        "wait: expected a number of seconds, got true (a flag)", "write a number of seconds", True,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", VOICES)
def test_the_same_shape_is_said_in_the_same_words_by_every_reader(tmp_path: Path, name: str, case: str) -> None:
    voice = VOICES[name]
    read, line, problem, fix, advice_only = CASES[case]
    reader = voice.build(tmp_path)
    spelled = fix.replace("{=}", reader.assigns)
    shown = reader.advises or not advice_only
    wanted = voice.where(tmp_path, line) + problem + (f"; {spelled}" if shown else "")
    assert said(voice, tmp_path, read) == wanted


#: An unknown key is the one thing each reader words for its own file (``unknown_key``), on its line.
UNKNOWN = {
    "check": "wiat: unknown key 'wiat' (did you mean 'wait'?); rename it or remove it",
    "script": "wiat: unknown key 'wiat' (did you mean 'wait'?)",
    "config": 'wiat: not a setting; did you mean "wait"?',
}


@pytest.mark.parametrize("name", VOICES)
def test_an_unknown_key_goes_through_each_readers_own_words_and_line(tmp_path: Path, name: str) -> None:
    voice = VOICES[name]
    message = said(voice, tmp_path, lambda r: r.mapping({"top": 1, "wiat": 2}, (), ("top", "wait")))
    assert message == voice.where(tmp_path, 5) + UNKNOWN[name]


@pytest.mark.parametrize("name", VOICES)
def test_a_key_with_a_line_break_is_said_on_one_line_by_every_reader(tmp_path: Path, name: str) -> None:
    message = said(VOICES[name], tmp_path, lambda r: r.mapping({"a\nb\u2028": 1}, (), ("top",)))
    assert len(message.splitlines()) == 1
    assert '"a\\nb\\u2028"' in message  # quoted, as the file would write the key


# -- the config reader's own cases ---------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path, clean_env: None) -> Path:
    (tmp_path / ".mobster").mkdir()
    return tmp_path


def error(root: Path, text: str, name: str = "mobster.toml") -> str:
    (root / name).write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(root, env={})
    return str(caught.value)


def test_a_tables_unknown_key_is_said_before_a_bad_value_as_every_reader_says_it(root: Path) -> None:
    message = error(root, "parallel = 0\nflux = 1\n")
    assert message == f"{root / 'mobster.toml'}: line 2: flux: not a setting; the keys are listed in docs/config.md"
    message = error(root, '[profiles.grid]\nparallel = 0\ninstall = "==1.0"\n')
    assert message == (
        f"{root / 'mobster.toml'}: line 3: install [profiles.grid]: "
        "a profile can't hold profiles or choose one; move it to the base"
    )


def test_a_misspelt_key_of_the_file_itself_is_named_too(root: Path) -> None:
    message = error(root, 'profle = "grid"\n[profiles.grid]\nmodel = "scripted"\n')
    assert message == f'{root / "mobster.toml"}: line 1: profle: not a setting; did you mean "profile"?'
    message = error(root, '[profiles.grid]\nprofle = "x"\n')  # in a profile, only the settings are near
    assert message.endswith("profle [profiles.grid]: not a setting; the keys are listed in docs/config.md")


def test_a_pyprojects_bad_key_names_its_table_without_tool_mobster(root: Path) -> None:
    text = '[project]\nname = "shop"\n\n[tool.mobster.profiles.ci]\nparalel = 2\n'
    message = error(root, text, "pyproject.toml")
    assert message == (
        f"{root / 'pyproject.toml'} [tool.mobster]: line 5: paralel [profiles.ci]: "
        'not a setting; did you mean "parallel"?'
    )


def test_a_key_written_where_no_line_is_found_is_said_without_one(root: Path) -> None:
    # An inline table hides its keys' lines from line_of: the line is left out, never "line None".
    inline = '[tool]\nmobster = {profile = "nope", profiles = {a = {model = "scripted"}}}\n'
    message = error(root, inline, "pyproject.toml")
    assert message == (
        f"{root / 'pyproject.toml'} [tool.mobster]: pyproject.toml [tool.mobster]'s profile key nope: "
        "no such profile (profiles: a); add [tool.mobster.profiles.nope] or choose one of them"
    )
    message = error(root, "[tool]\nmobster = {parallel = 0}\n", "pyproject.toml")
    assert message.startswith(f"{root / 'pyproject.toml'} [tool.mobster]: parallel: write a whole number")


def test_the_config_module_imports_the_core_only_once_a_config_is_read(root: Path) -> None:
    (root / "mobster.toml").write_text('model = "scripted"\n')
    code = (
        "import sys, pathlib, mobster_harness.config as config\n"
        "heavy = lambda: sorted(m for m in sys.modules if m.startswith(('mobster_core', 'attrs', 'ruamel', "
        "'mobster_harness._config_reader')))\n"
        f"root = pathlib.Path({str(root)!r})\n"
        "assert config.find_config(root) is not None\n"
        "print(heavy())\n"
        "config.load_config(root, env={})\n"
        "print('mobster_harness._config_reader' in heavy(), 'mobster_core.yaml' in heavy())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.splitlines() == ["[]", "True True"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('"a\\nb" = 1', 'line 1: "a\\nb": not a setting'),
        ('"" = 1', 'line 1: "": not a setting'),
        ('[profiles."x\\ny"]\nparalel = 1', 'line 2: paralel [profiles."x\\ny"]: not a setting'),
        ('[profiles."ci run"]\nflux = 1', 'line 2: flux [profiles."ci run"]: not a setting'),
        ('profiles = {"q\\"r" = 3}', '"q\\"r" [profiles]: a profile is a table of settings: [profiles."q\\"r"]'),
        ("# one\u2028two\u0085three\nparalel = 1", "line 2: paralel: not a setting"),
    ],
    ids=["line-break", "empty", "profile-line-break", "profile-space", "quote", "unicode-line-separators"],
)
def test_a_key_toml_quotes_is_said_quoted_on_one_line_at_its_line(root: Path, text: str, said: str) -> None:
    message = error(root, text + "\n")
    assert message.startswith(f"{root / 'mobster.toml'}: {said}")
    assert len(message.splitlines()) == 1


def test_a_profile_chosen_with_a_line_break_is_said_quoted_on_one_line(root: Path) -> None:
    (root / "mobster.toml").write_text('[profiles.a]\nmodel = "scripted"\n[profiles."b c"]\nmodel = "scripted"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(root, env={"MOBSTER_PROFILE": 'x\ny"'})
    assert str(caught.value) == (
        f'{root / "mobster.toml"}: MOBSTER_PROFILE "x\\ny\\"": no such profile (profiles: a, "b c"); '
        'add [profiles."x\\ny\\""] or choose one of them'
    )


def test_a_pyprojects_profile_that_isnt_a_table_is_told_its_own_header(root: Path) -> None:
    message = error(root, "[tool.mobster.profiles]\ngrid = 3\n", "pyproject.toml")
    assert message.endswith("grid [profiles]: a profile is a table of settings: [tool.mobster.profiles.grid]")
    message = error(root, '[tool.mobster]\nprofiles = "grid"\n', "pyproject.toml")
    assert message.endswith("profiles: should be tables of settings, such as [tool.mobster.profiles.grid]")


@given(st.text(max_size=30))
@settings(max_examples=examples(200))
def test_toml_value_writes_any_text_on_one_line_as_toml_reads_it_back(text: str) -> None:
    written = toml_value(text)
    assert len(written.splitlines()) <= 1
    assert "\n" not in written
    assert tomllib.loads(f"k = {written}")["k"] == text


NAMES = st.sampled_from([key.name for key in KEYS]) | st.text(max_size=8)
VALUES = st.one_of(
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.lists(st.text(max_size=6), max_size=3),
)
TABLES = st.dictionaries(NAMES, VALUES, max_size=4)


@given(TABLES, st.dictionaries(st.text(min_size=1, max_size=6), TABLES, max_size=2))
@settings(max_examples=examples(100))
def test_any_config_loads_or_is_one_line_naming_the_file(base: dict[str, object], profiles: dict[str, Any]) -> None:
    lines = [f"{_toml_key(k)} = {toml_value(v)}" for k, v in base.items() if k != "profiles"]
    for name, body in profiles.items():
        lines.append(f"[profiles.{_toml_key(name)}]")
        lines.extend(f"{_toml_key(k)} = {toml_value(v)}" for k, v in body.items())
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mobster.toml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        try:
            load_config(Path(folder), env={}, file=path)
        except ConfigError as exc:
            assert str(exc).startswith(f"{path}: "), str(exc)
            assert len(str(exc).splitlines()) == 1, str(exc)
