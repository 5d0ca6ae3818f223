"""Heals travel with the paths (issue 35 item 2): through git between clones, and in a bundle.

A team repository is made for real (``git init --bare``, ``git clone``, commits, pulls) in the
test's folder, with ``paths = "committed"`` in its ``mobster.toml``: clone A records the sign-up
check, clone B (CI) runs the rebuild where "Continue" is "Next" with the scripted model, heals
step 3 and commits the heal (the heal file and its heal state in ``.mobster/paths/heals/``),
clone C pulls it and replays it at $0 under ``--no-heal``, accepts it and replays the accepted
path; a reject made in A and committed keeps B's next run failing at that step without a heal.
Each ``mobster`` runs in-process on the scripted phone and a fake clock, as every CLI test.

The review never shows a heal whose before and after say nothing: an older heal file's entry
that reads the same before and after is shown with its actions.

The hostile cases: a heal state in the committed store that is a symlink (or behind one) is
refused and never followed; a forged heal state whose healed path types text the check never
gives is refused (by a run and by an import) and nothing is typed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result

import mobster_core as mc
from mobster_cli.main import Runtime, cli
from mobster_core._store.cache import ReplayCache
from mobster_core._store.healfile import (
    check_key,
    heal_states,
    read_heal_file,
    save_heal_state,
    state_name,
    write_heal_file,
)
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import sample_path
from tests.samples import SIGNUP

COMMITTED = 'paths = "committed"\n'
OTHER_UID = 4242


def mobster(*args: str) -> Result:
    clock = FakeClock()
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, obj=Runtime(clock, clock.run))


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a config of its own (no user's, no system's): its stdout."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Mobster Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Mobster Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    config = ["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "safe.directory=*"]
    done = subprocess.run(["git", *config, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def clone(origin: Path, where: Path) -> Path:
    git(origin.parent, "clone", "-q", str(origin), str(where))
    return where


def commit(clone: Path, message: str) -> None:
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", message)
    git(clone, "push", "-q", "origin", "HEAD:main")


def in_clone(clone: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    monkeypatch.chdir(clone)
    return mobster(*args)


def as_json(result: Result) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> dict[str, Path]:
    """The team repository: A recorded and pushed; B (CI) healed the rebuild and pushed the heal."""
    origin = tmp_path / "origin.git"
    origin.mkdir()
    git(origin, "init", "-q", "--bare")
    a = clone(origin, tmp_path / "a")
    (a / ".mobster" / "checks").mkdir(parents=True)
    (a / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (a / "app.yaml").write_text(sample_path("yourapp").read_text())
    (a / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    (a / "mobster.toml").write_text(COMMITTED)
    recorded = in_clone(a, monkeypatch, "test", "--scripted", "app.yaml", "--model", "scripted")
    assert recorded.exit_code == 0, recorded.output
    commit(a, "Record the sign-up check")
    b = clone(origin, tmp_path / "b")
    healed = in_clone(b, monkeypatch, "test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert healed.exit_code == 0, healed.output
    assert [h["to"] for h in as_json(healed)["checks"][0]["heals"]] == ['Tap "Next"']
    commit(b, "Mobster: healed steps to review")
    return {"origin": origin, "a": a, "b": b}


def test_a_heal_made_on_ci_is_in_use_accepted_and_replayed_on_another_clone(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    b = team["b"]
    # What B's heal commit holds: the heal file and its heal state beside the paths, nothing of B's own.
    changed = git(b, "show", "--name-only", "--format=", "HEAD").split()
    [state] = [name for name in changed if name.startswith(".mobster/paths/heals/")]
    assert sorted(changed) == sorted([".mobster/checks/signup.heal.yaml", state])
    text = (b / state).read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert str(tmp_path) not in text  # no machine's own path; the run_dir is relative, and only informative
    assert json.loads(text)["adopts"][0]["run_dir"].startswith(".mobster/runs/")
    c = clone(team["origin"], tmp_path / "c")
    assert not (c / ".mobster" / "runs").exists()  # the run that made the heal is B's
    listing = in_clone(c, monkeypatch, "test", "heal")
    assert listing.exit_code == 0, listing.output
    assert 'step 3: Tap "Continue" → Tap "Next"' in listing.output
    assert "+ Button 'Next'" in listing.output
    assert "not in use" not in listing.output
    assert "isn't here: made on another machine" in listing.output  # its frames are B's: said, not required
    # In use on C: the rebuild replays the healed path at $0 under --no-heal.
    strict = in_clone(c, monkeypatch, "test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert strict.exit_code == 0, strict.output
    check = as_json(strict)["checks"][0]
    assert (check["verdict"], check["mode"], check["model_calls"], check["cost_usd"]) == ("passed", "replay", 0, 0.0)
    assert git(c, "status", "--porcelain") == ""  # a replay changes nothing git tracks
    # Accepted on C: the healed path becomes the recorded path, and replays as the recorded one.
    accepted = in_clone(c, monkeypatch, "test", "heal", "--accept", "signup")
    assert accepted.exit_code == 0, accepted.output
    assert "kept 1 heal of signup.yaml" in accepted.output
    assert not (c / ".mobster" / "checks" / "signup.heal.yaml").exists()
    assert not (c / state).exists()
    again = in_clone(c, monkeypatch, "test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert again.exit_code == 0, again.output
    check = as_json(again)["checks"][0]
    assert (check["mode"], check["model_calls"], check["heals"]) == ("replay", 0, [])
    [path] = (c / ".mobster" / "paths").glob("*.json")
    assert json.loads(path.read_text())["origin"]["how"] == "healed"
    assert "Next" in path.read_text()


def test_a_reject_committed_in_one_clone_keeps_the_next_run_of_another_failing_without_a_heal(
    team: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = team["a"], team["b"]
    git(a, "pull", "-q", "origin", "main")
    rejected = in_clone(a, monkeypatch, "test", "heal", "--reject", "signup.yaml")
    assert rejected.exit_code == 0, rejected.output
    assert "rejected 1 heal of signup.yaml" in rejected.output
    commit(a, "Reject the heal of the sign-up check: the rename is a bug")
    git(b, "pull", "-q", "origin", "main")
    assert not (b / ".mobster" / "checks" / "signup.heal.yaml").exists()
    [state] = (b / ".mobster" / "paths" / "heals").glob("*.json")
    assert json.loads(state.read_text())["keep_failing"] == [3]  # the reject's mark travelled
    # B's next run, with a model, on the rebuild: step 3 keeps failing, and nothing heals it.
    failing = in_clone(b, monkeypatch, "test", "--scripted", "renamed.yaml", "--model", "scripted", "--json")
    assert failing.exit_code == 1, failing.output
    check = as_json(failing)["checks"][0]
    assert (check["verdict"], check["class"], check["model_calls"], check["heals"]) == ("failed", "drift", 0, [])
    assert "you chose to keep this step failing" in check["message"]
    assert not (b / ".mobster" / "checks" / "signup.heal.yaml").exists()
    assert git(b, "status", "--porcelain") == ""


def checkout(source: Path, target: Path, *, folders: tuple[str, ...]) -> Path:
    """What a CI checkout brings: those folders and the app scripts, 0644 files, another owner where it can."""
    (target / ".mobster").mkdir(parents=True)
    for name in ("app.yaml", "renamed.yaml"):
        shutil.copy(source / name, target / name)
    for name in folders:
        shutil.copytree(source / ".mobster" / name, target / ".mobster" / name)
    for folder, _dirs, files in os.walk(target / ".mobster"):
        Path(folder).chmod(0o755)
        for file in files:
            path = Path(folder) / file
            path.chmod(0o644)
            if os.geteuid() == 0:
                os.chown(path, OTHER_UID, OTHER_UID)
    return target


@pytest.fixture
def healed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """A project (local paths) where the sign-up check was recorded and its rebuild healed."""
    root = tmp_path / "ci-1"
    (root / ".mobster" / "checks").mkdir(parents=True)
    (root / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (root / "app.yaml").write_text(sample_path("yourapp").read_text())
    (root / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    monkeypatch.chdir(root)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    return root


def test_a_bundle_carries_the_heal_to_another_project(
    healed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exported = mobster("paths", "export", str(tmp_path / "bundle.json"))
    assert exported.exit_code == 0, exported.output
    bundle = json.loads((tmp_path / "bundle.json").read_text())
    [heal] = bundle["heals"]
    assert sorted(heal) == ["check_key", "env", "identity", "state"]
    fresh = checkout(healed, tmp_path / "ci-2", folders=("checks",))  # the heal file comes with the checks
    monkeypatch.chdir(fresh)
    before = mobster("test", "heal")
    assert "not in use: made on another machine with `paths = local`" in before.output
    imported = mobster("paths", "import", str(tmp_path / "bundle.json"))
    assert imported.exit_code == 0, imported.output
    assert "1 added, 0 already here, 0 kept (newer here), 0 refused" in imported.output
    assert "heal states: 1 added, 0 kept (one was here)" in imported.output
    [state] = (fresh / ".mobster" / "cache" / "heals").glob("*.json")
    assert (state.stat().st_mode & 0o777, state.stat().st_uid) == (0o600, os.geteuid())  # our modes
    listing = mobster("test", "heal")
    assert "not in use" not in listing.output
    strict = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert strict.exit_code == 0, strict.output
    assert as_json(strict)["summary"]["model_calls"] == 0
    again = mobster("paths", "import", str(tmp_path / "bundle.json"))
    assert "heal states: 0 added, 1 kept (one was here)" in again.output
    assert mobster("test", "heal", "--accept", "signup").exit_code == 0
    assert mobster("test", "--scripted", "renamed.yaml", "--no-heal").exit_code == 0


def test_a_bundle_with_forged_heal_states_refuses_them_and_keeps_the_rest(
    healed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert mobster("paths", "export", "bundle.json").exit_code == 0
    bundle = json.loads((healed / "bundle.json").read_text())
    [good] = bundle["heals"]
    typed = json.loads(json.dumps(good))
    [step] = [s for s in typed["state"]["healed"] if s["op"] == "TYPE"]
    step["text"] = "hunter2"  # text the check never gives
    other = json.loads(json.dumps(good))
    other["check_key"] = "0" * 12
    escape = json.loads(json.dumps(good))
    escape["env"] = "../../../etc"
    bundle["heals"] = [typed, other, escape, "a string", {**good, "state": {"format": 4}}]
    (healed / "bundle.json").write_text(json.dumps(bundle))
    shutil.rmtree(healed / ".mobster" / "cache" / "heals")
    result = mobster("paths", "import", "bundle.json")
    assert result.exit_code == 3, result.output
    assert "shows typed text the check never gives" in result.output or "text the replay wouldn't type" in result.output
    assert "no check file of this project has its steps and its place" in result.output
    assert "a heal state is named by an identity" in result.output
    assert "key 'state': keys are format" in result.output
    assert not (healed / ".mobster" / "cache" / "heals").exists()
    assert not (tmp_path / "etc").exists()


def test_a_heal_made_where_paths_are_local_says_so_on_another_machine(
    healed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = checkout(healed, tmp_path / "laptop", folders=("checks", "cache"))
    shutil.rmtree(other / ".mobster" / "cache" / "heals")  # what a clone has: the heal file, no heal state
    for folder, _dirs, files in os.walk(other / ".mobster" / "cache"):
        for file in files:
            (Path(folder) / file).chmod(0o600)
            os.chown(Path(folder) / file, os.geteuid(), os.getegid())
    monkeypatch.chdir(other)
    listing = mobster("test", "heal")
    assert listing.exit_code == 0, listing.output
    said = next(line.strip() for line in listing.output.splitlines() if "not in use" in line)
    assert said.startswith(
        "not in use: made on another machine with `paths = local`: its healed path stayed in that machine's "
        "git-ignored .mobster/cache/heals (its run .mobster/runs/"
    )
    assert "set `paths = 'committed'` in the project's config so heals travel with the paths" in said
    refused = mobster("test", "heal", "--accept", "signup")
    assert refused.exit_code == 3
    assert "made on another machine with `paths = local`" in refused.output
    assert "the file was edited" not in refused.output
    # Where the heal was made, a heal file cut off from its state says the other reason.
    monkeypatch.chdir(healed)
    shutil.rmtree(healed / ".mobster" / "cache" / "heals")
    here = mobster("test", "heal")
    assert "not in use: no healed path is kept with it (the file was edited" in here.output


@pytest.fixture
def committed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """A project with committed paths where the sign-up check was recorded and its rebuild healed."""
    root = tmp_path / "repo"
    (root / ".mobster" / "checks").mkdir(parents=True)
    (root / ".mobster" / "checks" / "signup.yaml").write_text(SIGNUP)
    (root / "app.yaml").write_text(sample_path("yourapp").read_text())
    (root / "renamed.yaml").write_text(sample_path("yourapp-renamed").read_text())
    (root / "mobster.toml").write_text(COMMITTED)
    monkeypatch.chdir(root)
    assert mobster("test", "--scripted", "app.yaml", "--model", "scripted").exit_code == 0
    assert mobster("test", "--scripted", "renamed.yaml", "--model", "scripted").exit_code == 0
    return root


@pytest.mark.parametrize("where", ["file", "folder"])
def test_a_planted_symlink_heal_state_in_the_committed_store_is_refused_and_never_followed(
    committed: Path, tmp_path: Path, where: str
) -> None:
    heals = committed / ".mobster" / "paths" / "heals"
    [state] = heals.glob("*.json")
    planted = tmp_path / "planted"
    planted.mkdir()
    shutil.copy(state, planted / state.name)
    kept = (planted / state.name).read_bytes()
    if where == "file":
        state.unlink()
        state.symlink_to(planted / state.name)
    else:
        shutil.rmtree(heals)
        heals.symlink_to(planted)
    result = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert result.exit_code == 3, result.output
    check = as_json(result)["checks"][0]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "usage")
    assert "it is a symlink (never followed)" in check["message"]
    assert (state.name if where == "file" else "heals") in check["message"]
    assert (planted / state.name).read_bytes() == kept  # never followed, never written through
    assert "it is a symlink (never followed)" in mobster("test", "heal").output


def test_a_forged_heal_state_whose_healed_path_types_text_the_check_never_gives_is_refused(committed: Path) -> None:
    [state] = (committed / ".mobster" / "paths" / "heals").glob("*.json")
    data = json.loads(state.read_text())
    [typed] = [s for s in data["healed"] if s["op"] == "TYPE"]
    assert typed["text"] == "ada@example.com"
    typed["text"] = "mallory@example.com"
    state.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    result = mobster("test", "--scripted", "renamed.yaml", "--no-heal", "--json")
    assert result.exit_code == 3, result.output
    check = as_json(result)["checks"][0]
    assert (check["verdict"], check["class"]) == ("couldnt_run", "usage")
    assert state.name in check["message"]
    assert "a committed path never holds text the replay wouldn't type" in check["message"]
    assert "delete it" in check["message"]
    assert check["steps"] == []  # refused before the app was even launched: nothing was typed
    refused = mobster("test", "heal", "--accept", "signup")
    assert refused.exit_code == 3
    assert "text the replay wouldn't type" in refused.output


def test_the_review_never_shows_a_heal_whose_before_and_after_say_nothing(healed: Path) -> None:
    # A heal file of an older Mobster, whose entry reads the same before and after.
    check = mc.load_check(healed / ".mobster" / "checks" / "signup.yaml")
    [entry] = read_heal_file(healed / ".mobster" / "checks" / "signup.heal.yaml")
    alike = attrs.evolve(entry, to=entry.from_)
    key = check_key(healed, check.file)
    cache = ReplayCache(healed)
    [(env, state)] = [(e, s) for e, s in heal_states(cache, check.identity, key, provenance=None) if s.adopts]
    write_heal_file(check.file, [alike])
    save_heal_state(healed, state_name(check.identity, env, key), attrs.evolve(state, adopts=(alike,)))
    listing = mobster("test", "heal")
    assert listing.exit_code == 0, listing.output
    lines = [line.strip() for line in listing.output.splitlines()]
    assert 'step 3: Tap "Continue" → Tap "Continue"' in lines
    at = lines.index("actions before → after:")
    assert lines[at + 1].startswith("- TAP Button 'Continue' /0/")
    assert lines[at + 2].startswith("+ TAP Button 'Next' /0/")
    assert "not in use" not in listing.output
