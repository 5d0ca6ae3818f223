"""The distribution is ``mobster-replay``: its wheel installs by the documented line and the loop runs.

The package index's ``mobster`` is another project (an SBOM tool with its own ``mobster``
command). These tests hold the name in step everywhere it is written and fail on any line that
would install the other one: a bare install of that name, or an extra of it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from mobster_cli._init import INSTALL_SCRIPT, workflow_text
from mobster_cli.main import cli
from mobster_core.distribution import DISTRIBUTION, Source, ci_source, install_hint, installed_from, version
from tests.cli.upload_artifact import broken_links, upload

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("mobster_core", "mobster_drivers", "mobster_cli", "mobster_report", "mobster_pytest", "mobster_mcp")
#: The other project's name as an install line or an extra would write it (built so this file doesn't match).
OTHER = "mob" + "ster"
_BARE_INSTALL = re.compile(rf"pip install (?:-\S+ )*['\"]?{OTHER}(?![\w-])")
_OTHER_EXTRA = re.compile(rf"(?<![\w/-]){OTHER}\[[a-z]")


# -- where this copy came from (mobster_core.distribution) --------------------------------------


class _Dist:
    """A distribution's metadata as importlib.metadata reads it: only ``direct_url.json`` is asked for."""

    def __init__(self, direct_url: dict[str, Any] | str | None) -> None:
        self._text = direct_url if isinstance(direct_url, str | None) else json.dumps(direct_url)

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return self._text


@pytest.mark.parametrize(
    ("direct_url", "source", "hint", "ci"),
    [
        (
            {"url": "https://x-token:ghp_SECRET@github.com/acme/mobster-replay.git",
             "vcs_info": {"vcs": "git", "commit_id": "4b9afa4c", "requested_revision": "v0.1.0"}},
            Source("vcs", "git+https://github.com/acme/mobster-replay.git@4b9afa4c"),
            "pip install 'mobster-replay[mcp] @ git+https://github.com/acme/mobster-replay.git@4b9afa4c'",
            "git+https://github.com/acme/mobster-replay.git@4b9afa4c",
        ),
        (
            {"url": "ssh://git:hunter2@github.com/acme/mobster-replay",
             "vcs_info": {"vcs": "git", "commit_id": "ab12"}},
            Source("vcs", "git+ssh://git@github.com/acme/mobster-replay@ab12"),
            "pip install 'mobster-replay[mcp] @ git+ssh://git@github.com/acme/mobster-replay@ab12'",
            "git+ssh://git@github.com/acme/mobster-replay@ab12",
        ),
        (
            {"url": "file:///home/ada/mobster%20replay", "dir_info": {"editable": True}},
            Source("folder", "/home/ada/mobster replay", editable=True),
            "pip install -e '/home/ada/mobster replay[mcp]'",
            None,
        ),
        (
            {"url": "file:///src/mobster-replay", "dir_info": {}},
            Source("folder", "/src/mobster-replay"),
            "pip install '/src/mobster-replay[mcp]'",
            None,
        ),
        (
            {"url": "file:///w/dist/mobster_replay-0.1.0-py3-none-any.whl", "archive_info": {"hashes": {}}},
            Source("archive", "/w/dist/mobster_replay-0.1.0-py3-none-any.whl"),
            "pip install 'mobster-replay[mcp] @ file:///w/dist/mobster_replay-0.1.0-py3-none-any.whl'",
            None,
        ),
        (
            {"url": "https://files.example.com/mobster_replay-0.1.0-py3-none-any.whl", "archive_info": {}},
            Source("archive", "https://files.example.com/mobster_replay-0.1.0-py3-none-any.whl"),
            "pip install 'mobster-replay[mcp] @ https://files.example.com/mobster_replay-0.1.0-py3-none-any.whl'",
            "https://files.example.com/mobster_replay-0.1.0-py3-none-any.whl",
        ),
        (None, Source("index"), f"pip install 'mobster-replay[mcp]=={version()}'", f"=={version()}"),
        ("{not json", Source("index"), f"pip install 'mobster-replay[mcp]=={version()}'", f"=={version()}"),
    ],
)  # fmt: skip
def test_where_a_copy_came_from_says_how_to_add_an_extra_and_what_ci_installs(
    direct_url: Any, source: Source, hint: str, ci: str | None
) -> None:
    found = installed_from(_Dist(direct_url))
    assert found == source
    assert install_hint("mcp", found) == hint
    assert ci_source(found) == ci
    assert "SECRET" not in hint  # a token in the recorded URL never reaches a line
    assert "hunter2" not in hint
    assert not _BARE_INSTALL.search(hint)
    assert not _OTHER_EXTRA.search(hint)


def test_this_copy_is_mobster_replay_and_version_says_so() -> None:
    assert DISTRIBUTION == "mobster-replay"
    assert version() is not None, "the project is installed (make test installs it editable)"
    said = CliRunner().invoke(cli, ["--version"])
    assert said.exit_code == 0
    assert said.output == f"mobster-replay {version()}\n"


# -- one name everywhere -------------------------------------------------------------------------


def _written() -> list[Path]:
    """What a user reads or runs: README, the docs, pyproject, the packages, the tests, the scripts."""
    found = [ROOT / "README.md", ROOT / "pyproject.toml", *sorted((ROOT / "docs").glob("*.md"))]
    found += [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]
    found += sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "scripts").glob("*"))
    found += [*sorted((ROOT / "benchmarks").rglob("*.py")), ROOT / "benchmarks" / "README.md", ROOT / "Makefile"]
    return [p for p in found if p.is_file()]


def test_no_line_installs_the_registrys_other_mobster() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _written()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _BARE_INSTALL.search(line) or _OTHER_EXTRA.search(line)
    ]
    bad += [f"workflow: {line}" for line in workflow_text(["A"]).splitlines() if _BARE_INSTALL.search(line)]
    assert bad == []


def test_the_checks_fail_on_the_lines_they_guard_against() -> None:
    for line in (
        f"pip install {OTHER}",
        f"pip install '{OTHER}[all]'",
        f"      - run: pip install {OTHER}",
        f'cli = ["{OTHER}[report]", "click>=8.1"]',
        f"python -m pip install -U {OTHER}",
    ):
        assert _BARE_INSTALL.search(line) or _OTHER_EXTRA.search(line), line
    for line in ("pip install 'mobster-replay[all]'", "mobster test", "pip install -e '.[all]'", "mobster_core[x]"):
        assert not _BARE_INSTALL.search(line), line
        assert not _OTHER_EXTRA.search(line), line


def test_pyproject_readme_docs_and_workflow_name_mobster_replay() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"mobster": "mobster_cli.main:main"}  # the command keeps its name
    for extra, requirements in project["optional-dependencies"].items():
        for requirement in requirements:
            name = re.match(r"[A-Za-z0-9._-]+", requirement)
            assert name is not None
            assert name.group(0).lower() != OTHER, (extra, requirement)
    readme = (ROOT / "README.md").read_text()
    assert "pip install './mobster-replay[all]'" in readme
    installs = [
        line for p in (ROOT / "README.md", *(ROOT / "docs").glob("*.md")) for line in p.read_text().splitlines()
    ]
    installs = [line for line in installs if re.search(r"pip install (?!--quiet)", line)]
    assert installs
    ours = (DISTRIBUTION, "$MOBSTER_REQUIREMENT")  # the workflow's: mobster-replay[...] from the config's install
    assert all(any(o in line for o in ours) for line in installs), [
        line for line in installs if not any(o in line for o in ours)
    ]
    assert "mobster-replay[" in workflow_text()
    assert "mobster-replay[" in INSTALL_SCRIPT


# -- the wheel, installed by the documented line, runs init and test ------------------------------


def _uv() -> str | None:
    return shutil.which("uv", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


def _clean_env(**more: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "MOBSTER_", "VIRTUAL_ENV"))
    }
    return {**env, **more}


@pytest.mark.skipif(
    _uv() is None, reason="uv isn't installed: make test brings it (scripts/install.sh), with the cache the test uses"
)
def test_the_wheel_installs_by_the_documented_line_and_init_then_test_pass(tmp_path: Path) -> None:
    uv = _uv()
    assert uv is not None

    def run(*args: str | Path, cwd: Path = tmp_path, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [str(a) for a in args], cwd=cwd, env=env or _clean_env(), capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
        return done.stdout

    # The wheel, built from the source (hatchling, from uv's cache: no network).
    run(uv, "build", "--wheel", "--offline", "--quiet", "--out-dir", tmp_path / "dist", ROOT)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == f"mobster_replay-{version()}-py3-none-any.whl"

    # A developer installs it by README's line for a wheel, into a fresh virtualenv (uv's cache, offline).
    def venv(name: str) -> Path:
        run(uv, "venv", "--quiet", "--python", sys.executable, tmp_path / name)
        return tmp_path / name / "bin"

    laptop = venv("laptop")
    run(
        uv,
        "pip",
        "install",
        "--offline",
        "--quiet",
        "--python",
        laptop / "python",
        f"{DISTRIBUTION}[cli] @ {wheel.as_uri()}",
    )
    assert run(laptop / "mobster", "--version") == f"mobster-replay {version()}\n"

    # mobster init, then mobster test: a recorded path, committed (paths = "committed").
    shop = tmp_path / "shop"
    shop.mkdir()
    env = _clean_env(PATH=f"{laptop}{os.pathsep}{os.environ.get('PATH', '')}")
    said = run(laptop / "mobster", "init", "--agents", cwd=shop, env=env)
    assert "wrote .github/workflows/mobster.yml" in said
    # The skill bundle is package data of the wheel, and init --agents writes it from there.
    skill = ROOT / "mobster_cli" / "skills" / "mobster" / "SKILL.md"
    with zipfile.ZipFile(wheel) as built:
        assert built.read("mobster_cli/skills/mobster/SKILL.md") == skill.read_bytes()
    for home in (".claude", ".agents"):
        assert (shop / home / "skills" / "mobster" / "SKILL.md").read_bytes() == skill.read_bytes()
    assert "passed" in run(laptop / "mobster", "test", cwd=shop, env=env)

    # The team commits the wheel and names it in the config's install (the one place CI reads).
    (shop / "vendor").mkdir()
    shutil.copy(wheel, shop / "vendor" / wheel.name)
    config = (shop / "mobster.toml").read_text()
    commented = '# install = "git+https://github.com/OWNER/mobster-replay@v0.1.0"'
    assert commented in config, "a copy installed from a file says to set install"
    (shop / "mobster.toml").write_text(config.replace(commented, f'install = "vendor/{wheel.name}"'))

    # CI: the strict job's steps, in order, on a fresh machine (a fresh virtualenv).
    doc = YAML(typ="safe").load((shop / ".github" / "workflows" / "mobster.yml").read_text())
    job = doc["jobs"]["strict"]
    ci = venv("ci")
    github_env = tmp_path / "github-env"
    github_env.write_text("")
    job_env = _clean_env(**{k: str(v) for k, v in job["env"].items()}, GITHUB_ENV=str(github_env))
    job_env["PATH"] = f"{ci}{os.pathsep}{os.environ.get('PATH', '')}"
    for step in job["steps"]:
        if step.get("shell") == "python":  # the config's install, read by the setup-python interpreter
            run(sys.executable, "-c", step["run"], cwd=shop, env=job_env)
            job_env.update(line.partition("=")[::2] for line in github_env.read_text().splitlines())
        elif str(step.get("run", "")).startswith("python -m pip install"):
            assert step["run"] == 'python -m pip install "$MOBSTER_REQUIREMENT"'
            wanted = f"{DISTRIBUTION}[cli] @ {(shop / 'vendor' / wheel.name).resolve().as_uri()}"
            assert job_env["MOBSTER_REQUIREMENT"] == wanted
            # pip, offline, is uv here (its cache holds the dependencies); the requirement is the job's own.
            run(uv, "pip", "install", "--offline", "--quiet", "--python", ci / "python", job_env["MOBSTER_REQUIREMENT"])
        elif str(step.get("run", "")).startswith("mobster "):
            out = run(*step["run"].split(), cwd=shop, env={**job_env, **step.get("env", {})})
            assert "1 passed" in out
            assert "0 model calls" in out
        elif str(step.get("uses", "")).startswith("actions/upload-artifact@"):
            artifact = upload(step["with"]["path"], shop)
            assert "junit.xml" in artifact.names
            assert broken_links(artifact) == []
    assert (ci / "mobster").is_file(), "the job installed Mobster replay"
    assert run(ci / "mobster", "--version") == f"mobster-replay {version()}\n"
