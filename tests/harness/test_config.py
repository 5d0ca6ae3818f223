"""The project config (``mobster_harness.config``): where it is, its profiles, and every bad input."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest

from mobster_cli import main as cli_main
from mobster_harness.config import KEYS, MAX_BYTES, ConfigError, find_config, line_of, load_config

BASE = """\
profile = "scripted"
frames = "all"
poll-interval = 0.2

[profiles.scripted]
scripted = "apps/yourapp.yaml"
model = "scripted"

[profiles.grid]
appium = ["http://grid:4444"]
caps = "caps/grid.json"
parallel = 4
"""


@pytest.fixture
def root(tmp_path: Path, clean_env: None) -> Path:
    (tmp_path / ".mobster").mkdir()
    return tmp_path


def write(root: Path, text: str, name: str = "mobster.toml") -> Path:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return path


def error(root: Path, **kwargs: object) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(root, env={}, **kwargs)  # type: ignore[arg-type]
    return str(caught.value)


def test_the_profile_lays_over_the_base_and_relative_paths_are_the_files(root: Path) -> None:
    write(root, BASE)
    config = load_config(root / "sub" / "folder", env={})
    assert config.profile == "scripted"
    assert config.profile_from == "mobster.toml's profile key"
    assert config.values["scripted"] == (str(root / "apps" / "yourapp.yaml"),)
    assert config.values["frames"] == "all"
    assert config.values["poll-interval"] == 0.2
    assert config.sources["scripted"] == "mobster.toml [profiles.scripted]"
    assert config.sources["frames"] == "mobster.toml"
    assert config.profiles == ("scripted", "grid")


def test_a_profile_naming_a_device_replaces_the_base_pool(root: Path) -> None:
    write(root, 'scripted = "a.yaml"\nparallel = 2\n[profiles.sim]\nsim = "iPhone 17 Pro"\n')
    config = load_config(root, profile="sim", env={})
    assert config.values == {"sim": ("iPhone 17 Pro",)}
    assert "parallel" not in config.values


def test_the_option_wins_over_the_environment_which_wins_over_the_file(root: Path) -> None:
    write(root, BASE)
    assert load_config(root, env={"MOBSTER_PROFILE": "grid"}).profile == "grid"
    chosen = load_config(root, profile="scripted", env={"MOBSTER_PROFILE": "grid"})
    assert (chosen.profile, chosen.profile_from) == ("scripted", "--profile")
    grid = load_config(root, env={"MOBSTER_PROFILE": "grid"})
    assert grid.profile_from == "MOBSTER_PROFILE"
    assert grid.values["caps"] == (str(root / "caps" / "grid.json"),)
    assert "scripted" not in grid.values


def test_pyproject_tool_table_and_its_profiles(root: Path) -> None:
    write(
        root,
        '[project]\nname = "x"\n\n[tool.mobster]\nmodel = "scripted"\n\n[tool.mobster.profiles.ci]\nno-heal = true\n',
        "pyproject.toml",
    )
    config = load_config(root, profile="ci", env={})
    assert config.values == {"model": "scripted", "no-heal": True}
    assert config.sources["no-heal"] == "pyproject.toml [tool.mobster] [tool.mobster.profiles.ci]"


def test_the_root_is_the_folder_holding_mobster_else_the_nearest_file(tmp_path: Path) -> None:
    outer = write(tmp_path, 'model = "scripted"\n')
    inner = tmp_path / "app"
    (inner / ".mobster").mkdir(parents=True)
    assert find_config(inner) is None  # the root holds .mobster/ and no config: the outer file isn't read
    assert find_config(tmp_path / "other" / "deep") == outer
    write(tmp_path, "[tool.black]\n", "pyproject.toml")
    assert find_config(tmp_path) == outer
    write(tmp_path, "[tool.mobster]\n", "pyproject.toml")
    with pytest.raises(ConfigError, match="both hold"):
        find_config(tmp_path)


def test_no_file_is_no_config_and_a_profile_without_one_is_an_error(root: Path) -> None:
    assert load_config(root, env={}).values == {}
    assert "run `mobster init`" in error(root, profile="grid")


# -- every bad input is one line naming the file, the line and the fix ------------------------------


def test_an_unknown_key_names_its_line_and_the_nearest_key(root: Path) -> None:
    path = write(root, 'frames = "all"\n\n[profiles.grid]\nappium = "http://g"\npoll-intervall = 0.5\n')
    message = error(root)
    assert message == f'{path}: line 5: poll-intervall [profiles.grid]: not a setting; did you mean "poll-interval"?'


def test_an_unknown_key_far_from_any_says_where_the_keys_are(root: Path) -> None:
    path = write(root, "flux = 1\n")
    assert error(root) == f"{path}: line 1: flux: not a setting; the keys are listed in docs/config.md"


@pytest.mark.parametrize(
    ("text", "line", "fix"),
    [
        ('parallel = "2"', 1, "parallel: write a whole number from 1 to 64, such as parallel = 2"),
        ("parallel = 0", 1, "write a whole number from 1 to 64"),
        ("no-heal = 1", 1, "no-heal: write true or false, such as no-heal = true"),
        ("poll-interval = 0.001", 1, "write a number from 0.01 to 10"),
        ("max-usd = 0", 1, "max-usd: write a number above 0"),
        ('frames = "most"', 1, 'write one of "auto" or "all" or "failed" or "none"'),
        ("sim = [1]", 1, "sim: write a text or a list of texts"),
        ('locale = "german"', 1, "a locale is written like en_US"),
        ('model = ""', 1, "model: write a text in quotes"),
        ("session-wait = 0", 1, "session-wait: write a number above 0 to 3600"),
        ("retries = 11", 1, "retries: write a whole number from 0 to 10"),
        ("repeat = 0", 1, "repeat: write a whole number from 1 to 1000"),
        ("session-wait = 7200", 1, "session-wait: write a number above 0 to 3600"),
    ],
)
def test_a_wrong_type_or_range_names_the_line_and_what_to_write(root: Path, text: str, line: int, fix: str) -> None:
    path = write(root, text + "\n")
    message = error(root)
    assert message.startswith(f"{path}: line {line}: ")
    assert fix in message


def test_an_unknown_profile_names_the_known_ones(root: Path) -> None:
    path = write(root, BASE)
    message = error(root, profile="gird")
    assert message == (
        f"{path}: --profile gird: no such profile (profiles: grid, scripted); add [profiles.gird] or choose one of them"
    )
    write(root, 'profile = "nope"\n[profiles.a]\nmodel = "scripted"\n')
    assert "line 1: mobster.toml's profile key nope: no such profile (profiles: a)" in error(root)
    assert "MOBSTER_PROFILE x: no such profile" in str(_env_error(root, "x"))


def _env_error(root: Path, name: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_config(root, env={"MOBSTER_PROFILE": name})
    return caught.value


def test_toml_syntax_error_names_its_line(root: Path) -> None:
    path = write(root, 'model = "scripted"\nframes = "all\n')
    message = error(root)
    assert message.startswith(f"{path}: line 2, column 14: not valid TOML (")
    assert message.endswith("fix it (https://toml.io)")


def test_a_profile_that_is_not_a_table_or_nests_profiles(root: Path) -> None:
    write(root, 'profiles = "grid"\n')
    assert "line 1: profiles: should be tables of settings" in error(root)
    write(root, "[profiles]\ngrid = 3\n")
    assert "line 2: grid [profiles]: a profile is a table of settings" in error(root)
    write(root, '[profiles.grid]\nprofile = "x"\n')
    assert "line 2: profile [profiles.grid]: a profile can't hold profiles" in error(root)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_is_refused_without_waiting(root: Path) -> None:
    os.mkfifo(root / "mobster.toml")
    assert "it is not a regular file; the project config is a regular TOML file" in error(root)


def test_a_huge_file_and_bytes_that_are_not_utf8(root: Path) -> None:
    write(root, "# " + "x" * MAX_BYTES + "\n")
    assert f"larger than the limit of {MAX_BYTES} bytes" in error(root)
    (root / "mobster.toml").write_bytes(b'model = "scripted"\n# caf\xe9\n')
    assert "line 2: byte 25 is not UTF-8; save the file as UTF-8" in error(root)


def test_line_of_finds_keys_headers_and_dotted_keys() -> None:
    text = (
        '[tool.mobster]\nmodel = "x"\nprofiles.grid.sim = "a"\n\n[tool.mobster.profiles."ci run"]\n"no-heal" = true\n'
    )
    assert line_of(text, ("tool", "mobster"), "model") == 2
    assert line_of(text, ("tool", "mobster", "profiles", "grid"), "sim") == 3
    assert line_of(text, ("tool", "mobster", "profiles"), "ci run") == 5
    assert line_of(text, ("tool", "mobster", "profiles", "ci run"), "no-heal") == 6
    assert line_of(text, ("tool",), "nothing") is None


def test_every_key_is_checked_as_its_mobster_test_option_checks_it() -> None:
    """The table keeps in step with ``mobster test``'s options: each key is an option, same ranges and choices."""
    params = {p.name: p for p in cli_main.test.params if isinstance(p, click.Option)}
    for key in KEYS:
        option = params[key.field]
        assert f"--{key.name}" in option.opts, key
        kind = option.type
        if isinstance(kind, click.FloatRange | click.IntRange):
            assert (kind.min, kind.max, kind.min_open) == (key.low, key.high, key.low_open), key
        if isinstance(kind, click.Choice):
            assert tuple(kind.choices) == key.choices, key
        assert option.multiple == (key.kind == "list"), key
        assert option.is_flag == (key.kind == "flag"), key


def test_a_grid_profiles_session_wait_goes_with_its_pool(root: Path) -> None:
    write(
        root,
        'scripted = "a.yaml"\nsession-wait = 60\n[profiles.grid]\nappium = "http://grid:4444"\nsession-wait = 900\n',
    )
    assert load_config(root, profile="grid", env={}).values["session-wait"] == 900.0
    assert load_config(root, env={}).values["session-wait"] == 60.0


def test_the_alert_policy_is_a_word_or_a_table_checked_as_a_check_file_checks_it(root: Path) -> None:
    write(root, 'alerts = "accept"\n[profiles.perms]\nalerts = {allow = ["location"], deny = ["tracking"]}\n')
    assert load_config(root, env={}).values["alerts"] == "accept"
    assert load_config(root, profile="perms", env={}).values["alerts"] == {
        "allow": ("location",),
        "deny": ("tracking",),
    }
    from mobster_harness.settings import Settings
    from mobster_harness.spec import DeviceOptions

    policy = Settings(devices=DeviceOptions(), alerts={"allow": ("location",)}).to_run_options(root).alerts
    assert policy is not None
    assert "location" in str(policy)


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ('alerts = "always"', 'write one of "fail" or "accept" or "dismiss"'),
        ('alerts = {allow = ["locaton"]}', "unknown service 'locaton'"),
        ("alerts = 3", 'write one of "fail", "accept" or "dismiss", or a table'),
    ],
)
def test_a_bad_alert_policy_names_the_line_and_the_fix(root: Path, text: str, fix: str) -> None:
    path = write(root, text + "\n")
    message = error(root)
    assert message.startswith(f"{path}: line 1: ")
    assert fix in message


def test_a_config_nested_too_deeply_is_one_line(root: Path) -> None:
    path = write(root, "a = " + "[" * 5000 + "]" * 5000 + "\n")
    message = error(root)
    assert message.startswith(f"{path}: its arrays or inline tables nest too deeply")
