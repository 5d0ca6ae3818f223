"""No command prints or writes a planted secret (issue 37, item 1).

Secrets are planted where a user keeps them: an Appium URL's password and path token in
``mobster.toml`` and in ``--appium``, a ``${SIGNUP_EMAIL}`` value in the environment and a
``${SIGNUP_PASSWORD}`` value in the config's env file. Then every command of the CLI runs (found
by walking click's command tree, so a command added later runs too, with no arguments unless
:data:`ARGS` gives it some), with ``--json`` where it has it, with ``--appium`` where it takes it,
and ``mobster mcp`` as a session of the official MCP client over stdio (``run_check`` too). Its stdout, its stderr,
the MCP answers and every byte of every file written under the project are searched for each
secret, as typed, URL-quoted and JSON-escaped. ``mobster config`` printed the URL's password and
token in clear; every other output already masked them.

The phone is the fake Appium in front of the scripted phone (a real socket, so the real clock,
with the short polls of ``tests.real_clock`` in the config).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from click.testing import CliRunner
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from mobster_cli.main import cli
from mobster_drivers.devices.scripted import sample_path
from mobster_drivers.testing.appium import FakeAppium
from tests.commands import commands, takes
from tests.real_clock import QUICK_POLICY

#: An Appium URL's password (in mobster.toml) and one with characters a URL quotes (in --appium).
URL_PASSWORD = "Pl4nted-url-pass"
QUOTED_PASSWORD = "p@ss/w:rd Pl4nted"
#: A per-session endpoint's token, a path segment of the URL.
TOKEN = "cGxhbnRlZC10b2tlbi0xMjM0NTY3ODkw"
#: A ``${NAME}`` value from the environment (typed into a plain field: it shows on the screen).
ENV_VALUE = "planted.value@example.com"
#: A ``${NAME}`` value from the config's env file (typed into the secure field).
FILE_VALUE = "Pl4nted-env-file-pass"
SECRETS = (URL_PASSWORD, QUOTED_PASSWORD, TOKEN, ENV_VALUE, FILE_VALUE)

CHECK = """\
version: 1
name: A new user signs up with secrets
app: {bundle: com.example.yourapp}
steps:
  - Tap "Sign up"
  - Type ${SIGNUP_EMAIL} into Email
  - Type "${SIGNUP_PASSWORD}" into "Password"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
#: The files the test plants (they hold the secrets by design); everything else is Mobster's.
PLANTED = ("mobster.toml", "secrets.env")

#: The arguments that make a command do its work, in the order the commands run (the rest run
#: after these, with none). A callable gets the project.
ARGS: list[tuple[tuple[str, ...], list[Any]]] = [
    (("config",), []),
    (("test",), ["--model", "scripted"]),  # records: types both secrets
    (("test",), []),  # replays
    (("test",), ["--list"]),
    (("verify",), ["--check", ".mobster/checks/signup.yaml"]),
    (("inspect",), ["--app", "com.example.yourapp", "--launch"]),
    (("paths", "list"), []),
    (("paths", "show"), ["signup"]),
    (("paths", "export"), ["bundle.json"]),
    (("paths", "import"), ["bundle.json"]),
    (("test", "heal"), []),
    (("report", "merge"), [lambda root: str(next((root / ".mobster" / "test-results").iterdir()))]),
    (("report", "open"), []),
    (("init",), []),
    (("demo",), ["demo-project"]),
    (("paths", "forget"), ["signup"]),
]


@pytest.fixture
def appium() -> Iterator[FakeAppium]:
    """The fake Appium under a base path that ends with the token, stopped at the end."""
    with FakeAppium(sample_path("yourapp"), base_path=f"/wd/hub/{TOKEN}", lifetime=240) as fake:
        yield fake


@pytest.fixture
def project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The check, the env file, and ``${SIGNUP_EMAIL}`` in the environment; each test writes its config."""
    (project / ".mobster" / "checks" / "signup.yaml").write_text(CHECK)
    (project / "secrets.env").write_text(f"SIGNUP_PASSWORD={FILE_VALUE}\n")
    monkeypatch.setenv("SIGNUP_EMAIL", ENV_VALUE)
    monkeypatch.delenv("SIGNUP_PASSWORD", raising=False)
    return project


def forms(secret: str) -> set[str]:
    """The forms an output may hold a secret in: as typed, URL-quoted, JSON-escaped."""
    return {secret, quote(secret, safe=""), quote(secret), json.dumps(secret)[1:-1]}


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if any(form in text for form in forms(secret))]


def plan() -> list[tuple[tuple[str, ...], list[Any]]]:
    """:data:`ARGS`, and every other command the walk finds with no arguments (``paths forget`` last)."""
    found = dict(commands())
    listed = [words for words, _ in ARGS]
    assert set(listed) <= set(found), "ARGS names a command that isn't there"
    return [*ARGS[:-1], *((words, []) for words in found if words not in listed), ARGS[-1]]


def invocations(root: Path, url: str) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """Each command's runs (:func:`plan`), then again with ``--json`` and with ``--appium`` where it takes them."""
    found = dict(commands())
    for words, args in plan():
        if words == ("mcp",):
            continue  # a session of its own: mcp_session
        given = [a(root) if callable(a) else a for a in args]
        yield words, given
        if takes(found[words], "as_json"):
            yield words, [*given, "--json"]
        if takes(found[words], "appium"):
            yield words, [*given, "--appium", url]


def mcp_session(root: Path, url: str) -> tuple[str, str]:
    """``mobster mcp --appium URL`` as a stdio session of the official client: its answers, and its stderr.

    The config's URL reaches the server as every other command's does (``_config.configured``);
    the session takes the command line's, with the password a URL quotes.
    """
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mobster_cli.main", "mcp", "--project", str(root), "--appium", url],
        cwd=root,
        env={"PYTHONPATH": os.pathsep.join(sys.path), "SIGNUP_EMAIL": ENV_VALUE},
    )
    log = root.parent / "mcp-stderr.log"

    async def session() -> list[Any]:
        with anyio.fail_after(90), log.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                said = [await client.call_tool("list_devices", {})]
                said.append(await client.call_tool("run_check", {"check": "signup"}))
                said.append(await client.call_tool("read_screen", {}))
                return said

    said = asyncio.run(session())
    assert all(not r.is_error for r in said), said
    assert said[1].structured_content["verdict"] == "passed"  # the check ran: the secrets were typed
    return "\n".join(json.dumps(r.model_dump(mode="json"), ensure_ascii=False) for r in said), log.read_text()


def written(root: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.relative_to(root).as_posix() not in PLANTED:
            yield path, path.read_bytes()


def test_no_command_prints_or_writes_a_planted_secret(project: Path, appium: FakeAppium) -> None:
    (project / "mobster.toml").write_text(
        f'appium = "{appium.url.replace("http://", f"http://ada:{URL_PASSWORD}@")}"\n'
        f'env-file = "secrets.env"\nmodel = "scripted"\npoll-interval = {QUICK_POLICY.interval}\n'
        f"drift-after = {QUICK_POLICY.drift_after}\ngive-up-after = {QUICK_POLICY.give_up_after}\n"
    )
    url = appium.url.replace("http://", f"http://ada:{quote(QUOTED_PASSWORD, safe='')}@")
    seen: list[str] = []
    found: list[str] = []
    for words, args in invocations(project, url):
        result = CliRunner().invoke(cli, [*words, *args], catch_exceptions=False, prog_name="mobster")
        name = f"mobster {' '.join([*words, *args])}"
        seen.append(name)
        assert result.exit_code in (0, 3), f"{name}: {result.output}"
        assert "internal error" not in result.output, name
        if words in (("test",), ("verify",)) and "--list" not in args:
            assert result.exit_code == 0, f"{name}: {result.output}"  # it ran: the secrets were typed
        found += [f"{name} (stdout): {s}" for s in leaks(result.stdout)]
        found += [f"{name} (stderr): {s}" for s in leaks(result.stderr)]
    answers, errors = mcp_session(project, url)
    seen.append("mobster mcp --appium URL (a stdio session)")
    found += [f"mobster mcp (answers): {s}" for s in leaks(answers)]
    found += [f"mobster mcp (stderr): {s}" for s in leaks(errors)]
    files = list(written(project))
    found += [
        f"{path.relative_to(project)}: {s}" for path, data in files for s in leaks(data.decode("utf-8", "replace"))
    ]
    assert found == []
    # It ran what it says: the runs typed the secrets, and their files are there to search.
    names = {path.relative_to(project).as_posix() for path, _ in files}
    assert "bundle.json" in names
    assert any(n.endswith("junit.xml") for n in names)
    assert any(n.endswith("report.html") for n in names)
    assert "${SIGNUP_PASSWORD}" in (project / "bundle.json").read_text()  # the reference, never the value
    assert len(seen) > len(list(commands()))


def test_every_command_the_walk_finds_is_run() -> None:
    assert {words for words, _ in plan()} == {words for words, _ in commands()}


@pytest.mark.parametrize(
    "url",
    [
        f"http://ada:{URL_PASSWORD}@127.0.0.1:1/wd/hub?access_token={TOKEN}",  # refused: a URL has no query
        f"http://ada:{URL_PASSWORD}@127.0.0.1:1/wd/hub#{TOKEN}",  # nor a fragment
        f"http://ada:{URL_PASSWORD}@127.0.0.1:1/wd/hub/{TOKEN}",  # nothing listens there
        f"http://ada:{URL_PASSWORD}@127.0.0.1:99999/wd/hub/{TOKEN}",  # no such port
    ],
    ids=["query", "fragment", "refused connection", "bad port"],
)
def test_a_url_no_device_answers_is_masked_in_every_command_that_takes_one(project: Path, url: str) -> None:
    (project / "mobster.toml").write_text('env-file = "secrets.env"\nsession-wait = 1\n')
    found = []
    for words, command in commands():
        for kind in ("appium", "wda"):
            if not takes(command, kind):
                continue
            for extra in ([], ["--json"] if takes(command, "as_json") else []):
                args = [*words, f"--{kind}", url, *extra]
                result = CliRunner().invoke(cli, args, catch_exceptions=False, input="")
                assert "internal error" not in result.output, args
                found += [f"mobster {' '.join(args)}: {s}" for s in leaks(result.output)]
    for path, data in written(project):
        found += [f"{path.relative_to(project)}: {s}" for s in leaks(data.decode("utf-8", "replace"))]
    assert found == []


def test_no_commands_help_prints_a_planted_secret(project: Path) -> None:
    # Issue 38's --help says the defaults a project's config sets ([default here: …, from mobster.toml]):
    # an Appium or WDA URL there is said as mobster config says it, its password and token masked.
    (project / "mobster.toml").write_text(
        f'appium = ["http://ada:{URL_PASSWORD}@grid.example:4444/wd/hub/{TOKEN}", '
        f'"http://ada:{quote(QUOTED_PASSWORD, safe="")}@grid.example:4444/wd/hub?access_token={TOKEN}"]\n'
        f'wda = ["http://ada:{URL_PASSWORD}@127.0.0.1:8100#{TOKEN}"]\nenv-file = "secrets.env"\n'
    )
    found = []
    shown = 0
    for words, _command in commands():
        result = CliRunner().invoke(cli, [*words, "--help"], catch_exceptions=False, prog_name="mobster")
        assert result.exit_code == 0, f"mobster {' '.join(words)} --help: {result.output}"
        unwrapped = re.sub(r"\s*\n\s*", "", result.output)  # click breaks a long URL across lines
        shown += "grid.example" in unwrapped
        found += [f"mobster {' '.join(words)} --help: {s}" for s in {*leaks(result.output), *leaks(unwrapped)}]
    assert found == []
    assert shown >= 3  # test, verify and mcp say the config's URLs, masked
