"""``mobster init [DIR]``: a project's starter files, with a profile for each device found.

Rule 1: init never overwrites a file. A file that is there is left (and said so), except for
        text added at the end of two files that say nothing of Mobster yet: ``[tool.mobster]``
        (and ``[tool.pytest.ini_options]``) appended to a ``pyproject.toml`` that has none, the
        lines a ``.gitignore`` lacks appended to it; every other byte of them stays.
Rule 2: it writes ``.mobster/checks/signup.yaml`` (a starter check for the scripted phone's sample
        app, its first line naming the check schema for editors), ``.mobster/check.schema.json``
        (the package's schema), ``apps/yourapp.yaml`` (the sample app script), the config
        (``mobster.toml``, or ``[tool.mobster]`` in an existing ``pyproject.toml``), the pytest
        lines (``pytest.ini``, or ``[tool.pytest.ini_options]`` in that ``pyproject.toml``), the
        ``.gitignore`` lines and ``.github/workflows/mobster.yml`` (a strict ``--no-heal`` job, and
        a healing job that opens the heal files as a pull request).
Rule 3: the config's default profile is ``scripted`` (the sample app on the scripted phone, the
        scripted model: it passes with no key and no phone) and it keeps recorded paths in
        ``.mobster/paths`` (``paths = "committed"``), so CI replays what was recorded here. Each
        device found is a profile: simulators from ``xcrun simctl list devices -j`` (through the
        simulator driver's runner; the booted iPhones, else the iPhones of the newest iOS), USB
        iPhones from usbmuxd (through the USB driver's listing). With neither, a comment says how to
        add one.
Rule 4: folders it makes under ``.mobster/`` are 0700 and its files there 0600 (written whole).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

__all__ = ["Found", "find_devices", "init", "init_project"]

SCHEMA_NAME = "check.schema.json"

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

#: The steps both jobs start with: the checkout, Python and Mobster.
_SETUP = """\
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: pip install mobster
"""

_WORKFLOW = """\
# Mobster replay in CI (docs/ci.md, docs/config.md), written by `mobster init`.
# strict: replays the recorded paths (.mobster/paths) with no model: a changed screen fails.
# heal: run by hand (or on a schedule) with a model; the heal files and healed paths it writes are
# opened as a pull request to review (peter-evans/create-pull-request).
name: mobster

on:
  pull_request:
  push:
    branches: [main]
  workflow_dispatch:

permissions:
  contents: read

jobs:
  strict:
    name: checks (strict, no heal)
    runs-on: ubuntu-latest  # the scripted phone; a simulator needs macos-latest
    steps:
<setup>      - run: mobster test --no-heal --junit junit.xml
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: mobster-results
          path: |
            .mobster/test-results/
            junit.xml

  heal:
    name: heal changed steps (opens a pull request)
    if: github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    permissions:
      contents: write
      pull-requests: write
    steps:
<setup>      - run: mobster test
        continue-on-error: true  # a check that needs review exits 2; the pull request is the review
        env:
          ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}
      - uses: peter-evans/create-pull-request@v7
        with:
          branch: mobster/heals
          title: "Mobster: healed steps to review"
          commit-message: "Mobster: healed steps"
          body: |
            Steps whose screen changed were healed by the model. Review each heal file
            (`mobster test heal` lists them), then merge to keep the healed paths.
          add-paths: |
            .mobster/checks/*.heal.yaml
            .mobster/paths/
"""
#: Rule 2: the CI workflow (GitHub Actions).
WORKFLOW = _WORKFLOW.replace("<setup>", _SETUP)


@dataclass(frozen=True)
class Found:
    """The devices init found: simulators (name, iOS) and USB iPhones (name, UDID, iOS)."""

    simulators: tuple[tuple[str, str], ...] = ()
    iphones: tuple[tuple[str, str, str], ...] = ()


@dataclass
class _Report:
    wrote: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


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


def config_text(found: Found, *, profiles: str = "profiles") -> str:
    """Rule 3: the config's keys, with a profile per device found (``profiles``: the tables' prefix)."""
    lines = [
        'profile = "scripted"',
        'paths = "committed"   # recorded paths in .mobster/paths, in git: CI replays them',
        "",
        f"[{profiles}.scripted]",
        'scripted = "apps/yourapp.yaml"   # the scripted phone: no key, no phone (docs/scripted-phone.md)',
        'model = "scripted"',
    ]
    names: set[str] = {"scripted"}
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


def init_project(folder: Path, found: Found) -> _Report:
    """Rules 1 and 2: write what is missing in ``folder``; what was written and what was left."""
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
    pyproject = folder / "pyproject.toml"
    _config(folder, pyproject, found, report)
    _pytest(folder, pyproject, report)
    _gitignore(folder / ".gitignore", folder, report)
    _new(folder / ".github" / "workflows" / "mobster.yml", WORKFLOW, folder, report)
    return report


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
    """A file written only when there is none (Rule 1): created exclusively, never replaced."""
    if path.exists() or path.is_symlink():
        report.left.append(f"{_rel(path, folder)} (it is there)")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as f:
        f.write(text)
    report.wrote.append(_rel(path, folder))


def _new_private(path: Path, text: str, folder: Path, report: _Report) -> None:
    from mobster_core.files import atomic_write

    if path.exists() or path.is_symlink():
        report.left.append(f"{_rel(path, folder)} (it is there)")
        return
    atomic_write(path, text.encode())
    report.wrote.append(_rel(path, folder))


def _append(path: Path, text: str) -> None:
    """Text added at the end of ``path``; every byte before it stays (Rule 1)."""
    data = path.read_bytes()
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    joiner = b"" if not data or data.endswith(b"\n") else newline
    gap = newline if data.strip() else b""
    with path.open("ab") as f:
        f.write(joiner + gap + text.encode().replace(b"\n", newline))


_TABLE = re.compile(r"^\s*\[\s*tool\s*\.\s*{}\s*[\].]", re.MULTILINE)


def _has_table(path: Path, name: str) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    return bool(re.search(_TABLE.pattern.format(re.escape(name)), text, re.MULTILINE))


def _config(folder: Path, pyproject: Path, found: Found, report: _Report) -> None:
    own = folder / "mobster.toml"
    if own.exists():
        report.left.append("mobster.toml (it is there)")
    elif pyproject.is_file() and _has_table(pyproject, "mobster"):
        report.left.append("pyproject.toml [tool.mobster] (it is there)")
    elif pyproject.is_file():
        _append(pyproject, "[tool.mobster]\n" + _CONFIG_HEAD + config_text(found, profiles="tool.mobster.profiles"))
        report.wrote.append("pyproject.toml [tool.mobster] (added at its end)")
    else:
        _new(own, _CONFIG_HEAD + "\n" + config_text(found), folder, report)


def _pytest(folder: Path, pyproject: Path, report: _Report) -> None:
    ini = folder / "pytest.ini"
    others = [n for n in ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg") if (folder / n).is_file()]
    if pyproject.is_file() and _has_table(pyproject, r"pytest\s*\.\s*ini_options"):
        others.append("pyproject.toml [tool.pytest.ini_options]")
    if others:
        report.left.append(f"{others[0]} (pytest is set up there; the plugin reads the project config by itself)")
    elif pyproject.is_file():
        _append(pyproject, "[tool.pytest.ini_options]\n" + PYTEST_INI)
        report.wrote.append("pyproject.toml [tool.pytest.ini_options] (added at its end)")
    else:
        _new(ini, "[pytest]\n" + PYTEST_INI, folder, report)


def _gitignore(path: Path, folder: Path, report: _Report) -> None:
    if not path.exists():
        _new(
            path,
            "# Mobster replay: API keys and what runs leave (docs/config.md)\n" + "\n".join(GITIGNORE) + "\n",
            folder,
            report,
        )
        return
    have = {line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines()}
    missing = [line for line in GITIGNORE if line not in have and line.rstrip("/") not in have]
    if not missing:
        report.left.append(".gitignore (it has Mobster's lines)")
        return
    _append(path, "# Mobster replay\n" + "\n".join(missing) + "\n")
    report.wrote.append(f".gitignore ({len(missing)} line{'s' if len(missing) != 1 else ''} added at its end)")


def lines(report: _Report, found: Found, folder: Path) -> Sequence[str]:
    """What ``mobster init`` prints: what it wrote, what it left, and what to run next."""
    out = [f"wrote {name}" for name in report.wrote]
    out += [f"left {name}" for name in report.left]
    devices = [f"simulator {n} (iOS {v})" for n, v in found.simulators]
    devices += [f"iPhone {n} (iOS {v})" for n, _, v in found.iphones]
    out.append(f"devices found: {', '.join(devices)}" if devices else "devices found: none (the scripted phone)")
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {folder} && "
    out.append(f"next: {where}mobster test   (the scripted profile; mobster config shows the settings)")
    return out


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def init(directory: Path | None) -> None:
    """Start a project here (or in DIRECTORY): a starter check, the config, pytest, .gitignore and CI.

    The config has a profile for each simulator and USB iPhone found, and the scripted phone's as
    the default, so `mobster test` passes at once. Nothing that is there is overwritten.
    """
    from ._render import visible

    folder = directory or Path()
    if folder.exists() and not folder.is_dir():
        raise click.UsageError(f"{folder} is not a folder: give a folder for the project")
    found = find_devices()
    report = init_project(folder, found)
    for line in lines(report, found, folder):
        click.echo(visible(line))
