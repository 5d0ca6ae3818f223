"""The project config under ``mobster test`` and ``mobster config``: profiles, precedence, sources."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP, SIGNUP_PAST_THE_KEYBOARD

CONFIG = """\
profile = "scripted"
frames = "none"

[profiles.scripted]
scripted = "apps/app.yaml"
model = "scripted"

[profiles.renamed]
scripted = "apps/renamed.yaml"
model = "scripted"
no-heal = true
"""


@pytest.fixture
def project(project: Path) -> Path:
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (project / "apps").mkdir()
    (project / "apps" / "app.yaml").write_text(sample_path("yourapp").read_text())
    (project / "apps" / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    (project / "mobster.toml").write_text(CONFIG)
    return project


def mobster(*args: str, env: dict[str, str] | None = None) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run), env=env)


def test_the_config_names_the_device_and_model_and_the_profile_switches_them(project: Path) -> None:
    first = mobster("test", "--json")
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    assert doc["checks"][0]["mode"] == "smart"
    # The renamed build under the strict profile: no model, the changed step fails.
    strict = mobster("test", "--profile", "renamed")
    assert strict.exit_code == 1, strict.output
    assert "drift" in strict.output
    by_env = mobster("test", env={"MOBSTER_PROFILE": "renamed"})
    assert by_env.exit_code == 1, by_env.output
    # The command line wins over the profile: the original build replays.
    replayed = mobster("test", "--profile", "renamed", "--scripted", "apps/app.yaml")
    assert replayed.exit_code == 0, replayed.output


def test_frames_from_the_config_reach_the_run(project: Path) -> None:
    result = mobster("test", "--json")
    assert result.exit_code == 0, result.output
    run_dir = project / json.loads(result.stdout)["checks"][0]["run_dir"]
    assert not list(run_dir.glob("frames/*.png"))
    kept = mobster("test", "--frames", "all", "--json")
    assert list((project / json.loads(kept.stdout)["checks"][0]["run_dir"]).glob("frames/*"))


def test_mobster_config_prints_each_setting_and_its_source(project: Path) -> None:
    result = mobster("config", "--model", "claude-x", "--poll-interval", "0.5")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    head = f"config: {project / 'mobster.toml'}; profile scripted (from mobster.toml's profile key)"
    assert lines[0] == f"{head}; profiles: scripted, renamed"
    assert f'scripted           ["{project / "apps" / "app.yaml"}"]  (mobster.toml [profiles.scripted])' in lines
    assert 'model              "claude-x"  (command line)' in lines
    assert "poll-interval      0.5  (command line)" in lines
    assert 'frames             "none"  (mobster.toml)' in lines
    assert "parallel           (none)  (default)" in lines


def test_mobster_config_json_and_the_model_chosen_by_a_key(project: Path) -> None:
    (project / "mobster.toml").write_text('frames = "all"\n')
    result = mobster("config", "--json", env={"ANTHROPIC_API_KEY": "sk-test"})
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["file"] == str(project / "mobster.toml")
    assert doc["profile"] is None
    assert doc["settings"]["frames"] == {"value": "all", "from": "mobster.toml"}
    assert doc["settings"]["model"]["from"] == "environment (ANTHROPIC_API_KEY)"
    assert doc["settings"]["scripted"] == {"value": [], "from": "default"}
    assert "sk-test" not in result.output


PASSWORD = "Pa55-w0rd-of-the-grid"
TOKEN = "c2Vzc2lvbi10b2tlbi0xMjM0NTY3ODkw"  # a per-session endpoint's token: 20 or more URL characters
GRID = f"https://ada:{PASSWORD}@grid.example.com/wd/hub/{TOKEN}"


@pytest.mark.parametrize("given", ["mobster.toml", "--appium", "--wda"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_mobster_config_masks_a_urls_password_and_token(project: Path, given: str, as_json: bool) -> None:
    # Issue 37: `mobster config` printed them in clear, where every other output masks them.
    if given == "mobster.toml":
        (project / "mobster.toml").write_text(f'[profiles.grid]\nappium = ["{GRID}"]\n')
        args = ["config", "--profile", "grid"]
    else:
        args = ["config", given, GRID.replace("https://", "http://")]
    result = mobster(*args, *(["--json"] if as_json else []))
    assert result.exit_code == 0, result.output
    assert PASSWORD not in result.output
    assert TOKEN not in result.output
    kind = "wda" if given == "--wda" else "appium"
    if as_json:
        (url,) = json.loads(result.stdout)["settings"][kind]["value"]
    else:
        (line,) = [line for line in result.output.splitlines() if line.startswith(kind)]
        url = json.loads(line.split()[1])[0]
    assert url.endswith("ada:***@grid.example.com/wd/hub/***")


def test_a_bad_config_stops_every_command_with_one_line(project: Path) -> None:
    (project / "mobster.toml").write_text('frames = "all"\nparalel = 2\n')
    for args in (["test"], ["config"], ["verify", "--check", ".mobster/checks/signup.yaml"]):
        result = mobster(*args)
        assert result.exit_code == 3, result.output
        assert result.output == (
            f'mobster: {project / "mobster.toml"}: line 2: paralel: not a setting; did you mean "parallel"?\n'
        )
    unknown = mobster("test", "--profile", "nope")
    assert unknown.exit_code == 3
    assert "no such profile" not in unknown.output  # the unknown key comes first


def test_an_unknown_profile_names_the_known_ones(project: Path) -> None:
    result = mobster("test", "--profile", "grid")
    assert result.exit_code == 3
    assert result.output == (
        f"mobster: {project / 'mobster.toml'}: --profile grid: no such profile (profiles: renamed, scripted); "
        "add [profiles.grid] or choose one of them\n"
    )


def test_the_paths_store_follows_the_profile_and_every_command_reads_it(project: Path) -> None:
    (project / "mobster.toml").write_text(CONFIG.replace('frames = "none"', 'frames = "none"\npaths = "committed"')
        .replace("[profiles.renamed]", '[profiles.local]\nscripted = "apps/app.yaml"\nmodel = "scripted"\n'
        'paths = "local"\n\n[profiles.renamed]'))  # fmt: skip
    assert mobster("test").exit_code == 0
    assert list((project / ".mobster" / "paths").rglob("*.json"))
    assert "recorded" in mobster("paths", "list").output
    assert mobster("paths", "list", "--paths", "local").output == "no recorded paths in the local store\n"
    assert mobster("paths", "list", env={"MOBSTER_PROFILE": "local"}).output == (
        "no recorded paths in the local store\n"
    )
    local = mobster("config", "--profile", "local", "--json")
    assert json.loads(local.stdout)["settings"]["paths"] == {"value": "local", "from": "mobster.toml [profiles.local]"}


def test_a_location_prompt_fails_by_default_and_passes_under_alerts_from_the_option_or_the_config(
    project: Path,
) -> None:
    (project / "apps" / "location.yaml").write_text(sample_path("yourapp-location").read_text())
    (project / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP_PAST_THE_KEYBOARD)
    location = ("--scripted", "apps/location.yaml", "--json")
    refused = mobster("test", *location)
    assert refused.exit_code == 1, refused.output
    assert "a system alert is in the way" in json.loads(refused.stdout)["checks"][0]["message"]
    accepted = mobster("test", *location, "--alerts", "accept")
    assert accepted.exit_code == 0, accepted.output
    (project / "mobster.toml").write_text(CONFIG + '\n[profiles.location]\nscripted = "apps/location.yaml"\n'
                                          'model = "scripted"\nalerts = {allow = ["location"]}\n')  # fmt: skip
    configured = mobster("test", "--profile", "location", "--fresh")
    assert configured.exit_code == 0, configured.output


# -- --help says the defaults in effect here (_shared Rule 6) -------------------------------------


def _commands(command: click.Command, path: str = "mobster") -> list[tuple[str, click.Command]]:
    """Every command under ``command`` (``mobster test heal`` is a command of its own)."""
    from mobster_cli.main import heal

    found = [(path, command)]
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            found += _commands(sub, f"{path} {name}")
    if path == "mobster":
        found.append(("mobster test heal", heal))
    return found


def test_every_option_a_config_key_sets_says_its_default_here() -> None:
    from mobster_cli._shared import ConfiguredOption
    from mobster_harness.config import KEYS

    fields = {k.field for k in KEYS}
    plain = [
        f"{where} {p.opts[0]}"
        for where, command in _commands(cli)
        for p in command.params
        if isinstance(p, click.Option) and p.name in fields and not isinstance(p, ConfiguredOption)
    ]
    assert plain == []
    taken = {p.name for _w, c in _commands(cli) for p in c.params if isinstance(p, ConfiguredOption)}
    assert taken == fields  # every key has an option somewhere, and every one of them says it


def test_help_shows_the_configs_default_and_never_the_one_it_overrides(project: Path) -> None:
    # `--help` said [default: local] in a project whose config said paths = "committed".
    (project / "mobster.toml").write_text(
        'paths = "committed"\nframes = "all"\nretries = 2\n\n[profiles.ci]\nretries = 4\n'
    )
    for command in (("test",), ("verify",), ("config",), ("mcp",), ("paths", "list"), ("test", "heal")):
        shown = " ".join(mobster(*command, "--help").output.split())
        assert '[default here: "committed", from mobster.toml]' in shown, command
        assert "[default: local]" not in shown, command
    test = " ".join(mobster("test", "--help").output.split())
    assert '[default here: "all", from mobster.toml]' in test
    assert "[default: auto]" not in test
    assert "[default: off]" in test  # --video: the config doesn't set it, the built-in default holds
    assert "[default here: 2, from mobster.toml]" in test
    profiled = " ".join(mobster("test", "--help", env={"MOBSTER_PROFILE": "ci"}).output.split())
    assert "[default here: 4, from mobster.toml [profiles.ci]]" in profiled


def test_help_says_a_team_stores_defaults_and_never_a_password(project: Path) -> None:
    # The store's options say their defaults here (they met the help rule when the stores landed):
    # the URL as written, its password a ${NAME} whose value never shows; a config that holds a
    # password in clear is refused, and its help is the built-in one, without the password.
    (project / "mobster.toml").write_text(
        'paths = "postgresql://mob:${PG_PASSWORD}@127.0.0.1:5432/paths"\npaths-key = "${TEAM_KEY}"\n'
        "paths-write = false\npaths-lease = 30\npaths-wait = 120\n"
    )
    planted = {"PG_PASSWORD": "Pl4nted-db-pass", "TEAM_KEY": "Pl4nted-team-key"}
    for command in (("test",), ("paths", "list"), ("test", "heal"), ("verify",), ("mcp",)):
        result = mobster(*command, "--help", env=planted)
        assert result.exit_code == 0, result.output
        assert "Pl4nted" not in result.output, command
        shown = "".join(result.output.split())  # the URL wraps where the terminal wraps it
        assert '[defaulthere:"postgresql://mob:${PG_PASSWORD}@127.0.0.1:5432/paths",frommobster.toml]' in shown
    test = " ".join(mobster("test", "--help", env=planted).output.split())
    assert "--paths-key ${NAME} The environment variable" in test
    assert '[default here: "${TEAM_KEY}", from mobster.toml]' in test
    assert "[default here: false, from mobster.toml]" in test
    assert "[default here: 30.0, from mobster.toml]" in test
    assert "[default here: 120.0, from mobster.toml]" in test
    (project / "mobster.toml").write_text('paths = "postgresql://mob:Pl4nted-db-pass@127.0.0.1:5432/paths"\n')
    clear = mobster("test", "--help")
    assert clear.exit_code == 0, clear.output
    assert "Pl4nted" not in clear.output
    assert "[default: local]" in " ".join(clear.output.split())


def test_help_without_a_config_or_with_a_broken_one_is_the_built_in_help(project: Path) -> None:
    (project / "mobster.toml").unlink()
    bare = " ".join(mobster("test", "--help").output.split())
    assert "[default: local]" in bare
    assert "default here" not in bare
    (project / "mobster.toml").write_text('paths = "somewhere"\n')
    broken = mobster("test", "--help")
    assert broken.exit_code == 0, broken.output
    assert "[default: local]" in " ".join(broken.output.split())
