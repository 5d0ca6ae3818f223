"""``mobster init [DIR]``: a project's starter files, with a profile for each device found.

Rule 1: init never overwrites a file. A file that is there is left (and said so), except for
        text added at the end of two files that say nothing of Mobster yet: ``[tool.mobster]``
        (and ``[tool.pytest.ini_options]``) appended to a ``pyproject.toml`` that has none, the
        lines a ``.gitignore`` lacks appended to it; every other byte of them stays (Rule 8).
Rule 2: it writes ``.mobster/checks/signup.yaml`` (a starter check for the scripted phone's sample
        app, its first line naming the check schema for editors), ``.mobster/check.schema.json``
        (the package's schema), ``apps/yourapp.yaml`` (the sample app script), the config
        (``mobster.toml``, or ``[tool.mobster]`` in an existing ``pyproject.toml``), the pytest
        lines (``pytest.ini``, or ``[tool.pytest.ini_options]`` in that ``pyproject.toml``), the
        ``.gitignore`` lines and ``.github/workflows/mobster.yml`` (a strict ``--no-heal`` job, and
        a healing job that opens the heal files as a pull request). A workflow that is there is
        left, and the ``${NAME}`` secrets its jobs' ``env`` lacks are named with the lines to add.
Rule 3: the config's default profile is ``scripted`` (the sample app on the scripted phone, the
        scripted model: it passes with no key and no phone) and it keeps recorded paths in
        ``.mobster/paths`` (``paths = "committed"``), so CI replays what was recorded here. Each
        device found is a profile: simulators from ``xcrun simctl list devices -j`` (through the
        simulator driver's runner; the booted iPhones, else the iPhones of the newest iOS), USB
        iPhones from usbmuxd (through the USB driver's listing). With neither, a comment says how to
        add one.
Rule 4: folders it makes under ``.mobster/`` are 0700 and its files there 0600 (written whole).
Rule 5: both jobs install Mobster replay (the distribution ``mobster-replay``, never the registry's
        other ``mobster``) from the config's ``install`` key, read in the job by
        :data:`INSTALL_SCRIPT`, so the team sets it in one place. Init writes it from where this
        copy came (``mobster_core.distribution.ci_source``: a VCS URL at its commit, a wheel's URL,
        ``==VERSION`` from an index), or a comment saying to set it when this copy came from a
        folder or file CI can't reach. The actions are :data:`ACTIONS`: each one's newest major,
        on the node24 runtime.
Rule 6: each job uploads :data:`UPLOAD_PATHS`: the suite's pages and junit.xml and the run folders
        (``.mobster/runs/``) every link of theirs points into, from the workspace, so the
        artifact keeps the project's layout and its links resolve inside it (checked in the
        tests with upload-artifact's own search rules).
Rule 7: every ``${NAME}`` the project's checks name is an ``env:`` line of both jobs' ``mobster
        test`` step (``NAME: ${{ secrets.NAME }}``); the heal job runs the config's ``heal``
        profile, whose model is a real one (``claude-…``, with ``ANTHROPIC_API_KEY`` from the
        secrets): the default profile's model is ``scripted``, which heals nothing a real app
        changes.
Rule 8: a file init edits is another tool's, edited from its parsed document (``_edits``): it is
        read as a careful server reads one (a regular file, a symlink to one followed, at most
        256 KiB: a FIFO or ``/dev/zero`` is refused at once), whether to add is decided from the
        parse (``tool.mobster`` or ``tool.pytest`` there in any form TOML allows; a pattern a
        ``.gitignore`` names, ignored or negated), and the result is verified before it is
        written (it parses as the old document plus exactly what was added) and written by
        ``write_user_file`` (never through a symlink; a file changed meanwhile is left). A
        ``pyproject.toml`` that can't be read or parsed (a byte order mark, not UTF-8, not TOML)
        is left, and nothing is written in its place: the line says why and to run init again.
        One that parses but can't take a table (a ``tool`` that is an inline table, or a
        symlink) is left, and the table goes to a file of its own (``mobster.toml``,
        ``pytest.ini``), said in a note. A ``.gitignore`` that can't take its lines is left, and
        the line names the lines to add by hand. A file init makes is created whole, never
        replacing one that appeared meanwhile (``write_user_file(new=True)``); a workflow that is
        there is only read (Rule 2), the same careful way.
Rule 9: ``--agents`` also writes the skill bundle the package ships (``mobster_cli/skills/mobster/``,
        an Agent Skills folder: ``SKILL.md`` with its ``name`` and ``description``) where coding
        agents look for a project's skills (:data:`SKILL_HOMES`): ``.claude/skills/mobster/``
        (Claude Code) and ``.agents/skills/mobster/`` (Codex, and the other clients of the open
        standard that read the agent-neutral folder). A file that is there is left (Rule 1), and
        one that isn't this version's says so, with how to update it. ``AGENTS.md`` is never
        written: when it is there and names no skill of ours, a note says what line to add. What
        is there is read as Rule 8 reads a file (a link, a FIFO or a huge file is left unread).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

__all__ = ["SKILL_HOMES", "Found", "find_devices", "init", "init_project", "skill_files"]

SCHEMA_NAME = "check.schema.json"
#: Rule 9: the skill's name (its folder in the package and in the project).
SKILL = "mobster"
#: Rule 9: where coding agents look for a project's skills: Claude Code's, and the agent-neutral one.
SKILL_HOMES = (".claude/skills", ".agents/skills")

_STARTER_HEAD = """\
# yaml-language-server: $schema=../{schema}
# A starter check (docs/checks.md): it runs on the scripted phone's sample app (apps/yourapp.yaml).
# Point `app` at your app and write its steps; `mobster test` runs it, `mobster test --profile NAME`
# on another device of mobster.toml.
"""

_CONFIG_HEAD = """\
# Mobster replay's project config (docs/config.md), read by `mobster test` and the pytest plugin.
# Options on the command line win over it; `mobster config` prints what a run would use.
# A profile lays its keys over these: `mobster test --profile NAME` (or MOBSTER_PROFILE=NAME).
"""

_NO_DEVICE = """\
# No simulator or USB iPhone was found. To add one, add a profile such as:
#
# [{profiles}.sim]
# sim = "iPhone 17 Pro"        # a simulator, NAME or UDID (WDA on port 8100)
#
# [{profiles}.iphone]
# device = "Ada's iPhone"      # a USB iPhone, NAME or UDID
#
# [{profiles}.grid]
# appium = "https://grid.example.com/wd/hub"
# caps = "caps/grid.json"
"""

PYTEST_INI = """\
# The mobster pytest plugin (docs/pytest.md) runs the checks in .mobster/checks with the project
# config (mobster.toml or [tool.mobster]); an ini key here (mobster_sim = ...) wins over it, and
# --mobster-profile NAME (or MOBSTER_PROFILE) picks a profile.
"""

GITIGNORE = (".env", ".mobster/runs/", ".mobster/test-results/", ".mobster/cache/")

#: Rule 5: the newest major of each action the workflow uses, each on the node24 runtime (node20's
#: removal is scheduled for 23 September 2026): checked against each action's own action.yml at
#: that tag (docs/ci.md says how), and by actionlint in the tests.
ACTIONS = {
    "checkout": "actions/checkout@v7",
    "setup-python": "actions/setup-python@v7",
    "upload-artifact": "actions/upload-artifact@v7",
    "create-pull-request": "peter-evans/create-pull-request@v8",
}
#: Rule 6: what the artifact holds: the suite's pages and junit.xml, and the run folders they link to.
UPLOAD_PATHS = (".mobster/test-results/", ".mobster/runs/", "junit.xml")
#: Rule 7: the model secret the heal job passes (the heal profile's model is Anthropic's).
MODEL_SECRET = "ANTHROPIC_API_KEY"  # noqa: S105 - the variable's name, not a value
#: Rule 7: the profile the heal job runs: the default profile's model is ``scripted``.
HEAL_PROFILE = "heal"

#: Rule 5: the step that reads the config's ``install`` and says what pip installs (``MOBSTER_REQUIREMENT``
#: in ``$GITHUB_ENV``): Mobster replay with the job's extras (``MOBSTER_EXTRAS``) from a URL, a path of
#: the repository, or a version specifier. No key: one line naming the file and the fix.
INSTALL_SCRIPT = """\
import os
import pathlib
import sys
import tomllib


def read(name):
    data = pathlib.Path(name).read_bytes()
    if data.startswith(b"\\xef\\xbb\\xbf"):
        sys.exit(f"{name}: it starts with a byte order mark (BOM); save it as UTF-8 without one")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        sys.exit(f"{name}: it can't be read as TOML ({exc}); fix it (https://toml.io)")


own = pathlib.Path("mobster.toml")
if own.is_file():
    where, table = own.name, read(own.name)
else:
    doc = read("pyproject.toml")
    where, table = "pyproject.toml [tool.mobster]", doc.get("tool", {}).get("mobster", {})
source = table.get("install")
if not isinstance(source, str) or not source.strip() or any(c.isspace() for c in source.strip()):
    sys.exit(
        f"{where}: install: say where CI installs Mobster replay from, such as "
        'install = "git+https://github.com/OWNER/REPO@v0.1.0" (docs/ci.md)'
    )
source = source.strip()
named = "mobster-replay[" + os.environ["MOBSTER_EXTRAS"] + "]"
if source[0] in "=<>!~":
    requirement = named + source
elif "://" in source:
    requirement = named + " @ " + source
else:
    requirement = named + " @ " + pathlib.Path(source).resolve().as_uri()
print("installing", requirement)
with open(os.environ["GITHUB_ENV"], "a", encoding="utf-8") as env:
    env.write("MOBSTER_REQUIREMENT=" + requirement + "\\n")
"""

_HEAD = """\
# Mobster replay in CI (docs/ci.md), written by `mobster init`.
# strict: on every push and pull request, replays the recorded paths (.mobster/paths) with no model:
#   a changed screen fails the build. Its artifact holds the suite's pages, junit.xml and every
#   check's report they link to.
# heal: run by hand (Actions > mobster > Run workflow) on the config's heal profile, whose model is
#   a real one; the heal files and healed paths it writes are opened as a pull request to review.
# Both install Mobster replay from the config's `install` key (mobster.toml or [tool.mobster]).
# A ${NAME} a check names comes from the repository's secret NAME; a check that names a new one
# needs its line in both jobs' env (`mobster init` lists the missing ones).
name: mobster

on:
  pull_request:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read

jobs:
"""


def _setup(extras: str) -> str:
    """The steps both jobs start with: the checkout, Python, and Mobster replay from the config's ``install``."""
    script = "".join(f"          {line}\n" if line else "\n" for line in INSTALL_SCRIPT.splitlines())
    return (
        f"    env:\n"
        f"      MOBSTER_EXTRAS: {extras}   # with the extras your devices need: simulator, usb, appium\n"
        f"    steps:\n"
        f"      - uses: {ACTIONS['checkout']}\n"
        f"      - uses: {ACTIONS['setup-python']}\n"
        f"        with:\n"
        f'          python-version: "3.11"\n'
        f"      - name: Read where Mobster replay comes from (the config's install)\n"
        f"        shell: python\n"
        f"        run: |\n{script}"
        f"      - name: Install Mobster replay\n"
        f'        run: python -m pip install "$MOBSTER_REQUIREMENT"\n'
    )


def _env(names: Sequence[str]) -> str:
    """Rule 7: a step's ``env:`` lines, one per secret: ``NAME: ${{ secrets.NAME }}``."""
    if not names:
        return ""
    return "        env:\n" + "".join(f"          {n}: ${{{{ secrets.{n} }}}}\n" for n in names)


def _upload(name: str) -> str:
    """Rule 6: the artifact of a job's run: every file the suite's pages and junit.xml link to."""
    paths = "".join(f"            {p}\n" for p in UPLOAD_PATHS)
    return (
        f"      - uses: {ACTIONS['upload-artifact']}\n"
        f"        if: always()\n"
        f"        with:\n"
        f"          name: {name}\n"
        f"          # the suite's index.html and junit.xml link to each check's run folder under .mobster/runs\n"
        f"          path: |\n{paths}"
    )


def workflow_text(secrets: Sequence[str] = ()) -> str:
    """Rules 5-7: the CI workflow (GitHub Actions), with an ``env:`` line for each ``${NAME}`` the checks name."""
    names = sorted(set(secrets))
    heal_names = sorted({*names, MODEL_SECRET})
    return (
        _HEAD + "  strict:\n"
        "    name: checks (strict, no heal)\n"
        "    runs-on: ubuntu-latest  # the scripted phone; a simulator needs macos-latest\n"
        + _setup("cli")
        + "      - run: mobster test --no-heal --junit junit.xml\n"
        + _env(names)
        + _upload("mobster-results")
        + "\n"
        "  heal:\n"
        "    name: heal changed steps (opens a pull request)\n"
        "    if: github.event_name == 'workflow_dispatch'\n"
        "    runs-on: ubuntu-latest\n"
        "    permissions:\n"
        "      contents: write\n"
        "      pull-requests: write\n"
        + _setup("cli,anthropic")
        + f"      - run: mobster test --profile {HEAL_PROFILE} --junit junit.xml\n"
        "        continue-on-error: true  # a check that needs review exits 2; the pull request is the review\n"
        + _env(heal_names)
        + _upload("mobster-heal-results")
        + f"      - uses: {ACTIONS['create-pull-request']}\n"
        "        with:\n"
        "          branch: mobster/heals\n"
        '          title: "Mobster: healed steps to review"\n'
        '          commit-message: "Mobster: healed steps"\n'
        "          body: |\n"
        "            Steps whose screen changed were healed by the model. Review each heal file\n"
        "            (`mobster test heal` lists them), then merge to keep the healed paths.\n"
        "          add-paths: |\n"
        "            .mobster/checks/*.heal.yaml\n"
        "            .mobster/paths/\n"
    )


#: The workflow of a project whose checks name no secret.
WORKFLOW = workflow_text()


@dataclass(frozen=True)
class Found:
    """The devices init found: simulators (name, iOS) and USB iPhones (name, UDID, iOS)."""

    simulators: tuple[tuple[str, str], ...] = ()
    iphones: tuple[tuple[str, str, str], ...] = ()


@dataclass
class _Report:
    wrote: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def find_devices(runner: object = None, *, usbmux_address: str | None = None, lockdown: object = None) -> Found:
    """Rule 3: the simulators and USB iPhones of this machine (none where the tools aren't there)."""
    return Found(_simulators(runner), _iphones(usbmux_address, lockdown))


def _simulators(runner: object) -> tuple[tuple[str, str], ...]:
    from mobster_core import DeviceError
    from mobster_drivers.devices.simulator import Simctl

    try:
        sims = [s for s in Simctl(runner, timeout=20.0).list() if "iPhone" in s.name]  # type: ignore[arg-type]
    except (DeviceError, OSError, TimeoutError):
        return ()
    booted = [s for s in sims if s.booted]
    if not booted and sims:
        newest = max(sims, key=lambda s: tuple(int(p) for p in s.ios.split(".") if p.isdigit())).ios
        booted = [s for s in sims if s.ios == newest]
    return tuple((s.name, s.ios) for s in booted)


def _iphones(usbmux_address: str | None, lockdown: object) -> tuple[tuple[str, str, str], ...]:
    import asyncio

    from mobster_core import DeviceError

    try:
        from mobster_drivers.devices.usb import PymobiledeviceLockdown, list_iphones

        who = lockdown if lockdown is not None else PymobiledeviceLockdown(usbmux_address)
        phones = asyncio.run(asyncio.wait_for(list_iphones(lockdown=who, usbmux_address=usbmux_address), 5.0))  # type: ignore[arg-type]
    except (ImportError, DeviceError, OSError, TimeoutError):
        return ()
    return tuple((p.name, p.udid, p.ios) for p in phones)


# -- the files (Rules 1, 2) ------------------------------------------------------------------------


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_text(found: Found, *, profiles: str = "profiles", install: str | None = None) -> str:
    """Rules 3 and 5: the config's keys, ``install``, and a profile per device found (``profiles``: the tables' prefix).

    ``install`` is where CI installs Mobster replay from (None: this copy came from somewhere CI
    can't reach, and a comment says what to write).
    """
    from mobster_harness import DEFAULT_ANTHROPIC_MODEL
    from mobster_harness.config import toml_value

    lines = [
        'profile = "scripted"',
        'paths = "committed"   # recorded paths in .mobster/paths, in git: CI replays them',
        "# Where CI installs Mobster replay from (.github/workflows/mobster.yml; docs/ci.md): the project's",
        '# Git URL at a tag or commit, a wheel\'s URL or path in this repository, or "==VERSION" once released.',
    ]
    if install is not None:
        lines.append(f"install = {toml_value(install)}")
    else:
        lines += [
            "# This copy was installed from a folder or a file on this machine, which CI can't reach: set it.",
            '# install = "git+https://github.com/OWNER/mobster-replay@v0.1.0"',
        ]
    lines += [
        "",
        f"[{profiles}.scripted]",
        'scripted = "apps/yourapp.yaml"   # the scripted phone: no key, no phone (docs/scripted-phone.md)',
        'model = "scripted"',
        "",
        f"[{profiles}.{HEAL_PROFILE}]   # the CI workflow's heal job: a real model heals ({MODEL_SECRET})",
        'scripted = "apps/yourapp.yaml"   # the device CI runs on: the same as the strict job\'s',
        f"model = {toml_value(DEFAULT_ANTHROPIC_MODEL)}",
    ]
    names: set[str] = {"scripted", HEAL_PROFILE}
    for name, ios in found.simulators:
        slug = _unique(f"sim-{_slug(name)}", names)
        lines += ["", f"[{profiles}.{slug}]   # iOS {ios}", f"sim = {_quoted(name)}"]
    for name, udid, ios in found.iphones:
        slug = _unique(f"iphone-{_slug(name)}", names)
        lines += ["", f"[{profiles}.{slug}]   # {name}, iOS {ios}", f"device = {_quoted(udid)}"]
    text = "\n".join(lines) + "\n"
    if not found.simulators and not found.iphones:
        text += "\n" + _NO_DEVICE.format(profiles=profiles)
    return text


def _unique(slug: str, names: set[str]) -> str:
    name, n = slug, 1
    while name in names:
        n += 1
        name = f"{slug}-{n}"
    names.add(name)
    return name


def skill_files() -> dict[str, str]:
    """Rule 9: the skill bundle the package ships, each file's path in the bundle (``SKILL.md``) and its text."""
    from importlib.resources import files
    from importlib.resources.abc import Traversable

    found: dict[str, str] = {}

    def walk(node: Traversable, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif not child.name.startswith(".") and child.name != "__pycache__":
                found[prefix + child.name] = child.read_text(encoding="utf-8")

    walk(files("mobster_cli").joinpath("skills", SKILL), "")
    return found


def _agents(folder: Path, report: _Report) -> None:
    """Rule 9: the skill bundle where coding agents look; a file there is left, one of another version said."""
    bundle = skill_files()
    for home in SKILL_HOMES:
        for name, text in bundle.items():
            path = folder / home / SKILL / name
            there = _read_there(path)
            if there is not None and there != text.encode():
                report.left.append(
                    f"{_rel(path, folder)} (it is there, and isn't this version's: delete it and run "
                    "mobster init --agents to write this one)"
                )
                continue
            _new(path, text, folder, report)  # Rule 1: one that is there (this version's, a link) is left
    agents = _read_there(folder / "AGENTS.md", follow=True)
    if agents is not None and f"skills/{SKILL}" not in agents.decode("utf-8", errors="replace"):
        report.notes.append(
            f"AGENTS.md names no Mobster skill: for agents that read only it, add a line such as "
            f'"Mobster replay checks: read {SKILL_HOMES[1]}/{SKILL}/SKILL.md"'
        )


def _read_there(path: Path, *, follow: bool = False) -> bytes | None:
    """Rule 9: the bytes of a regular file at ``path``, read as Rule 8 reads one; None for nothing there, or else."""
    from mobster_core.exceptions import UnsafeFile
    from mobster_core.files import read_user_file

    if not os.path.lexists(path):
        return None
    try:
        return read_user_file(path, max_bytes=_MAX_EDITED, follow=follow)
    except (UnsafeFile, OSError):  # a link, a FIFO, a folder, too large: left as it is (Rule 1)
        return None


def init_project(folder: Path, found: Found, *, install: str | None = None, agents: bool = False) -> _Report:
    """Rules 1, 2 and 9: write what is missing in ``folder``; what was written and what was left."""
    from mobster_core.files import atomic_write, private_dir
    from mobster_drivers.devices.scripted import sample_path

    report = _Report()
    folder = folder.absolute()
    folder.mkdir(parents=True, exist_ok=True)
    mobster = private_dir(folder / ".mobster")
    checks = private_dir(mobster / "checks")
    starter = checks / "signup.yaml"
    if any(checks.glob("*.y*ml")):
        report.left.append(f"{_rel(checks, folder)}/ (it holds checks already)")
    else:
        atomic_write(starter, starter_text().encode())
        report.wrote.append(_rel(starter, folder))
    _new_private(mobster / SCHEMA_NAME, schema_text(), folder, report)
    _new(folder / "apps" / "yourapp.yaml", sample_path("yourapp").read_text(encoding="utf-8"), folder, report)
    _config_and_pytest(folder, found, report, install)
    _gitignore(folder / ".gitignore", folder, report)
    secrets = _secrets(folder, report)
    workflow = folder / ".github" / "workflows" / "mobster.yml"
    if os.path.lexists(workflow):
        _missing_env(workflow, secrets, folder, report)
    else:
        _new(workflow, workflow_text(secrets), folder, report)
    if agents:
        _agents(folder, report)
    return report


def _secrets(folder: Path, report: _Report) -> tuple[str, ...]:
    """Rule 7: the ``${NAME}`` secrets the project's checks name, sorted; a check that can't be read is said."""
    from mobster_core.checks import CheckError, find_checks, load_check, secret_names

    names: set[str] = set()
    for file in find_checks(folder):
        try:
            names.update(secret_names(load_check(file)))
        except (CheckError, OSError) as exc:
            report.notes.append(f"{_rel(file, folder)} can't be read, so its ${{NAME}}s aren't in the workflow: {exc}")
    return tuple(sorted(names))


def _missing_env(workflow: Path, secrets: Sequence[str], folder: Path, report: _Report) -> None:
    """Rules 1 and 7: a workflow that is there is left; the secrets its env lacks are named, with the lines to add."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from mobster_core.exceptions import UnsafeFile
    from mobster_core.files import read_user_file
    from mobster_core.yaml import MAX_YAML_BYTES

    rel = _rel(workflow, folder)
    if not secrets:
        report.left.append(f"{rel} (it is there)")
        return
    try:
        data = read_user_file(workflow, max_bytes=MAX_YAML_BYTES)
    except (UnsafeFile, OSError) as exc:
        why = exc.reason if isinstance(exc, UnsafeFile) else (exc.strerror or type(exc).__name__)
        names = ", ".join(secrets)
        report.left.append(
            f"{rel} (it is there, but can't be read: {why}; its mobster test steps' env needs {names} from the secrets)"
        )
        return
    try:
        doc = YAML(typ="safe", pure=True).load(data.decode("utf-8"))
    except (UnicodeDecodeError, YAMLError, RecursionError):
        doc = None
    have: set[str] = set()
    for job in (doc.get("jobs") or {}).values() if isinstance(doc, dict) else ():
        for layer in (job, *(job.get("steps") or ())) if isinstance(job, dict) else ():
            env = layer.get("env") if isinstance(layer, dict) else None
            have.update(env if isinstance(env, dict) else ())
    missing = [n for n in secrets if n not in have]
    if not missing:
        report.left.append(f"{rel} (it is there)")
        return
    lines = ", ".join(f"{n}: ${{{{ secrets.{n} }}}}" for n in missing)
    report.left.append(
        f"{rel} (it is there; the checks name {', '.join(missing)}: add to its mobster test steps' env {lines})"
    )


def starter_text() -> str:
    """The starter check: the demo's sign-up check, tagged, under a line naming the schema (Rule 2)."""
    from ._demo import SIGNUP

    return _STARTER_HEAD.format(schema=SCHEMA_NAME) + SIGNUP.replace("steps:", "tags: [smoke]\nsteps:", 1)


def schema_text() -> str:
    """The check schema published in the package (``mobster_core/schema/check.schema.json``)."""
    from importlib.resources import files

    return files("mobster_core").joinpath("schema", SCHEMA_NAME).read_text(encoding="utf-8")


def _rel(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()


def _new(path: Path, text: str, folder: Path, report: _Report) -> None:
    """Rules 1 and 8: a file written only when there is none: whole, linked into place, never replacing one."""
    from mobster_core.files import write_user_file

    if os.path.lexists(path):
        report.left.append(f"{_rel(path, folder)} (it is there)")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_user_file(path, text.encode(), new=True)
    except FileExistsError:  # made meanwhile (a parallel init): it is kept
        report.left.append(f"{_rel(path, folder)} (it is there)")
        return
    report.wrote.append(_rel(path, folder))


def _new_private(path: Path, text: str, folder: Path, report: _Report) -> None:
    from mobster_core.files import atomic_write

    if path.exists() or path.is_symlink():
        report.left.append(f"{_rel(path, folder)} (it is there)")
        return
    atomic_write(path, text.encode())
    report.wrote.append(_rel(path, folder))


#: Files that set pytest up (pytest reads the first it finds); the plugin needs none of them.
_PYTEST_FILES = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "setup.cfg")
_PYTEST_LEFT = "pytest is set up there; the plugin reads the project config by itself"
#: The largest ``pyproject.toml`` and ``.gitignore`` init reads (the config reader's limit).
_MAX_EDITED = 256 * 1024
#: Rule 8: a table init adds to ``pyproject.toml``, by its header: the key of ``tool`` that says it is there.
_TOOL_KEYS = {"[tool.mobster]": "mobster", "[tool.pytest.ini_options]": "pytest"}


@dataclass(frozen=True)
class _Table:
    """Rule 8: what init adds: a table of ``pyproject.toml``, or else a file of its own."""

    text: str
    own: Path
    own_text: str


def _config_and_pytest(folder: Path, found: Found, report: _Report, install: str | None) -> None:
    """Rules 1, 2 and 8: the config and the pytest lines, as tables of ``pyproject.toml`` when the project has one."""
    own = folder / "mobster.toml"
    pytest_file = next((n for n in _PYTEST_FILES if (folder / n).is_file()), None)
    wanted: dict[str, _Table] = {}
    if os.path.lexists(own):
        report.left.append("mobster.toml (it is there)")
    else:
        body = config_text(found, profiles="tool.mobster.profiles", install=install)
        own_text = _CONFIG_HEAD + "\n" + config_text(found, install=install)
        wanted["[tool.mobster]"] = _Table("[tool.mobster]\n" + _CONFIG_HEAD + body, own, own_text)
    if pytest_file is not None:
        report.left.append(f"{pytest_file} ({_PYTEST_LEFT})")
    else:
        ini = "[tool.pytest.ini_options]\n" + PYTEST_INI
        wanted["[tool.pytest.ini_options]"] = _Table(ini, folder / "pytest.ini", "[pytest]\n" + PYTEST_INI)
    pyproject = folder / "pyproject.toml"
    if wanted and os.path.lexists(pyproject):
        wanted = _into_pyproject(pyproject, wanted, report)
    for left in wanted.values():
        _new(left.own, left.own_text, folder, report)


def _into_pyproject(pyproject: Path, wanted: dict[str, _Table], report: _Report) -> dict[str, _Table]:
    """Rule 8: the ``wanted`` tables ``pyproject.toml`` lacks, added at its end, verified; what goes to its own file."""
    from mobster_core.exceptions import Problem, UnsafeFile
    from mobster_core.files import write_user_file

    from ._edits import EditRefused, add_toml_tables, toml_document

    try:
        data = _read_edited(pyproject)
        tool = toml_document(data).get("tool", {})
    except EditRefused as exc:
        report.left.append(
            f"pyproject.toml as it is ({exc}): run mobster init again once it reads, to add {_and(wanted)}"
        )
        return {}
    missing = {}
    for header, table in wanted.items():
        if isinstance(tool, dict) and _TOOL_KEYS[header] in tool:
            report.left.append(_there(header, tool))
        else:
            missing[header] = table
    if not missing:
        return {}
    try:
        edited = add_toml_tables(data, "\n".join(t.text for t in missing.values()), named=_and(missing))
        write_user_file(pyproject, edited, replacing=data)
    except UnsafeFile as exc:
        if exc.problem is Problem.CHANGED:
            report.left.append(f"pyproject.toml as it is ({exc.reason}): run mobster init again")
            return {}
        why = exc.reason
    except EditRefused as exc:
        why = str(exc)
    else:
        report.wrote.extend(f"pyproject.toml {header} (added at its end)" for header in missing)
        return {}
    instead = " and ".join(t.own.name for t in missing.values())
    report.notes.append(f"pyproject.toml is left as it is ({why}): {instead} instead")
    return missing


def _and(tables: dict[str, _Table]) -> str:
    return " and ".join(tables)


def _there(header: str, tool: dict[str, object]) -> str:
    """Rule 8: what init leaves when ``pyproject.toml`` holds the table, in any form."""
    if header == "[tool.mobster]":
        shape = "" if isinstance(tool["mobster"], dict) else "; it should be a table (docs/config.md)"
        return f"pyproject.toml [tool.mobster] (it is there{shape})"
    held = tool["pytest"]
    ini = isinstance(held, dict) and "ini_options" in held
    return f"pyproject.toml {'[tool.pytest.ini_options]' if ini else '[tool.pytest]'} ({_PYTEST_LEFT})"


def _read_edited(path: Path) -> bytes:
    """A file init may edit, read as a careful server reads one; :class:`EditRefused` saying why it can't be."""
    from mobster_core.exceptions import UnsafeFile
    from mobster_core.files import read_user_file

    from ._edits import EditRefused

    try:
        return read_user_file(path, max_bytes=_MAX_EDITED)
    except UnsafeFile as exc:
        raise EditRefused(exc.reason) from None
    except OSError as exc:
        raise EditRefused(f"it can't be read ({exc.strerror or type(exc).__name__})") from None


def _gitignore(path: Path, folder: Path, report: _Report) -> None:
    """Rules 1 and 8: the lines a ``.gitignore`` lacks, added at its end (the file made when there is none)."""
    from mobster_core.exceptions import UnsafeFile
    from mobster_core.files import write_user_file

    from ._edits import EditRefused, add_gitignore_lines, gitignore_missing

    if not os.path.lexists(path):
        head = "# Mobster replay: API keys and what runs leave (docs/config.md)\n"
        _new(path, head + "\n".join(GITIGNORE) + "\n", folder, report)
        return
    missing = list(GITIGNORE)
    try:
        data = _read_edited(path)
        missing = gitignore_missing(data, GITIGNORE)
        if not missing:
            report.left.append(".gitignore (it has Mobster's lines)")
            return
        added = add_gitignore_lines(data, "# Mobster replay\n" + "\n".join(missing) + "\n")
        write_user_file(path, added, replacing=data)
    except (EditRefused, UnsafeFile) as exc:
        why = exc.reason if isinstance(exc, UnsafeFile) else str(exc)
        report.left.append(f".gitignore as it is ({why}): add these lines to it by hand: {' '.join(missing)}")
        return
    report.wrote.append(f".gitignore ({len(missing)} line{'s' if len(missing) != 1 else ''} added at its end)")


def lines(report: _Report, found: Found, folder: Path) -> Sequence[str]:
    """What ``mobster init`` prints: what it wrote, what it left, and what to run next."""
    out = [f"wrote {name}" for name in report.wrote]
    out += [f"left {name}" for name in report.left]
    out += [f"note: {note}" for note in report.notes]
    devices = [f"simulator {n} (iOS {v})" for n, v in found.simulators]
    devices += [f"iPhone {n} (iOS {v})" for n, _, v in found.iphones]
    out.append(f"devices found: {', '.join(devices)}" if devices else "devices found: none (the scripted phone)")
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {folder} && "
    out.append(f"next: {where}mobster test   (the scripted profile; mobster config shows the settings)")
    return out


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--agents",
    is_flag=True,
    help="Also write the skill that tells coding agents how to write, run and debug checks "
    "(.claude/skills/mobster/SKILL.md and .agents/skills/mobster/SKILL.md; docs/agents.md).",
)
def init(directory: Path | None, agents: bool) -> None:
    """Start a project here (or in DIRECTORY): a starter check, the config, pytest, .gitignore and CI.

    The config has a profile for each simulator and USB iPhone found, and the scripted phone's as
    the default, so `mobster test` passes at once. Nothing that is there is overwritten.
    """
    from ._render import visible

    folder = directory or Path()
    if folder.exists() and not folder.is_dir():
        raise click.UsageError(f"{folder} is not a folder: give a folder for the project")
    from mobster_core.distribution import ci_source

    found = find_devices()
    report = init_project(folder, found, install=ci_source(), agents=agents)
    for line in lines(report, found, folder):
        click.echo(visible(line))
