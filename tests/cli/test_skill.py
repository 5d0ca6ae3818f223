"""The skill bundle coding agents read (``mobster_cli/skills/mobster/``): its format, and every command it names.

The page tells an agent what to type; a renamed option would mislead every agent that reads it.
So each ``mobster …`` command and each ``--option`` it names (and docs/agents.md names) is held to
the real click commands, and each MCP tool and argument to the server's own tool list.
"""

from __future__ import annotations

import re
import shlex
from importlib.resources import files
from pathlib import Path

import click
import pytest
from ruamel.yaml import YAML

from mobster_cli._init import SKILL, skill_files
from mobster_cli.main import cli, heal

ROOT = Path(__file__).resolve().parents[2]
#: The Agent Skills format's name: 1-64 lowercase letters, digits and single hyphens, not at an end.
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def skill_text() -> str:
    return files("mobster_cli").joinpath("skills", SKILL, "SKILL.md").read_text(encoding="utf-8")


def front_matter(text: str) -> tuple[dict[str, object], str]:
    assert text.startswith("---\n"), "SKILL.md opens with its YAML front matter"
    head, _, body = text[4:].partition("\n---\n")
    data = YAML(typ="safe", pure=True).load(head)
    assert isinstance(data, dict)
    return data, body


def test_the_skill_is_an_agent_skills_folder_shipped_in_the_package() -> None:
    data, body = front_matter(skill_text())
    assert set(data) <= {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
    name, description = data["name"], data["description"]
    assert name == SKILL  # the folder's name, as the format asks
    assert isinstance(name, str)
    assert len(name) <= 64
    assert NAME.fullmatch(name)
    assert isinstance(description, str)
    assert 0 < len(description) <= 1024
    assert "<" not in description
    assert ">" not in description
    metadata = data.get("metadata", {})
    assert isinstance(metadata, dict)
    assert all(isinstance(v, str) for v in metadata.values())  # a map of strings to strings
    assert len(body.splitlines()) < 500  # the format's advice: a page an agent reads whole
    assert set(skill_files()) == {"SKILL.md"}
    for heading in ("## Write a check", "## Run it", "## Read a failure", "## Review a heal",
                    "## Drive a phone through MCP"):  # fmt: skip
        assert heading in body


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], click.Command]:
    found = {path: command}
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            found.update(_commands(sub, (*path, name)))
    found[("test", "heal")] = heal
    return found


COMMANDS = _commands(cli)
#: Every option some command has.
EVERY_OPTION = {o for c in COMMANDS.values() for p in c.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}


def invocations(text: str) -> list[str]:
    """Each ``mobster …`` the page writes: in code spans, and lines of code blocks (comments cut)."""
    found = [span for span in re.findall(r"`([^`\n]+)`", text) if span.startswith("mobster ")]
    for block in re.findall(r"^```[a-z]*\n(.*?)^```$", text, re.DOTALL | re.MULTILINE):
        for line in block.splitlines():
            code = line.split("  #", 1)[0].strip()
            if code.startswith("mobster "):
                found.append(code)
    return found


def problems(text: str) -> list[str]:
    """Every command, subcommand or option of ``text`` the real commands don't have."""
    wrong = []
    for said in invocations(text):
        words = [w.strip("[]()|,") for w in shlex.split(said)[1:]]
        path: tuple[str, ...] = ()
        while words and (*path, words[0]) in COMMANDS:
            path, words = (*path, words[0]), words[1:]
        command = COMMANDS[path]
        if isinstance(command, click.Group) and words and not words[0].startswith("-"):
            wrong.append(f"{said}: no command mobster {' '.join((*path, words[0]))}")
        own = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help", "-h"}
        wrong += [f"{said}: mobster {' '.join(path)} has no {w}" for w in words if w.startswith("-") and w not in own]
    options = {o.rstrip("=") for o in re.findall(r"(?<![\w-])--[a-z][a-z-]*", text)}
    wrong += [f"no command has {o}" for o in sorted(options - EVERY_OPTION)]
    return wrong


@pytest.mark.parametrize("page", ["skill", "docs/agents.md"])
def test_every_command_and_option_the_page_names_is_the_commands_own(page: str) -> None:
    text = skill_text() if page == "skill" else (ROOT / page).read_text()
    assert invocations(text)
    assert problems(text) == []


def test_the_check_catches_what_it_guards_against() -> None:
    assert problems("`mobster test --no-heal`\n```sh\nmobster test heal --unreject x --step 3\n```") == []
    assert problems("`mobster test --no-heals`") == [
        "mobster test --no-heals: mobster test has no --no-heals",
        "no command has --no-heals",
    ]
    assert problems("```sh\nmobster tests signup\n```") == ["mobster tests signup: no command mobster tests"]
    wrong = "mobster verify --check x --paths local --tag smoke"  # --tag is mobster test's, not verify's
    assert problems(f"`{wrong}`") == [f"{wrong}: mobster verify has no --tag"]


def test_every_mcp_tool_the_skill_names_is_the_servers_with_its_arguments(project: Path) -> None:
    pytest.importorskip("mcp", reason="the mcp extra isn't installed")
    from mcp.client import Client

    from mobster_core.testing import FakeClock
    from tests.mcp.helpers import bridge_on, run_fake

    clock = FakeClock()

    async def agent(client: Client) -> object:
        return await client.list_tools()

    tools = {
        t.name: set(t.input_schema.get("properties", {}))
        for t in run_fake(clock, bridge_on(project, clock), agent).tools
    }
    section = skill_text().split("## Drive a phone through MCP", 1)[1]
    named = dict(re.findall(r"`([a-z_]+)\(([^)`]*)\)`", section))
    assert set(named) == set(tools)  # every tool, and no other
    for tool, args in named.items():
        given = {a.strip() for a in args.split(",") if a.strip()}
        assert given == tools[tool], tool
