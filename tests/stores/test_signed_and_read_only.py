"""A signed store refuses what the team key didn't sign; a read-only run leaves the store as it was.

Through ``run_check`` on the in-memory store (the engines' own tests hold the same for S3 and
PostgreSQL, ``test_remote_runs``): with a team key, a forged or unsigned path is refused with one
line, left as it is in a team's store (set aside in a private one), recorded again over it and
signed, and nothing of it is sent to the phone; a pull
request's run with ``paths-write = false`` replays the team's paths, writes nothing to the store
(byte for byte), and keeps what it recorded in the bundle folder.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core._store.healfile import check_key, state_name
from mobster_core.paths import BUNDLE_DIR, BundlePaths, ReadOnlyPaths, SignedPaths, TeamKey, export_paths
from mobster_core.protocols import PathStore
from mobster_core.testing import FakeClock, MemoryPaths
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from tests.samples import SIGNUP

APP = sample_path("yourapp").read_text()
KEY = TeamKey("team-key-0123456789abcdef")


def check_file(tmp_path: Path) -> Path:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "signup.yaml").write_text(SIGNUP)
    return folder / "signup.yaml"


def run(file: Path, store: PathStore, *, model: bool = True) -> tuple[mc.CheckResult, ScriptedPhone]:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(APP, clock=clock)
    options = RunOptions(root=file.parent.parent.parent, paths=store)
    scripted = ScriptedModel(clock=clock) if model else None
    return clock.run(run_check(load_check(file), phone, clock, model=scripted, options=options)), phone


def only_path(store: MemoryPaths) -> tuple[str, str, bytes]:
    [(identity, env)] = store.names()
    return identity, env, store.read(identity, env, max_bytes=1 << 20).data


def test_a_signed_store_signs_what_it_records_and_replays_it(tmp_path: Path) -> None:
    inner = MemoryPaths()
    file = check_file(tmp_path)
    first, _ = run(file, SignedPaths(inner, KEY))
    assert (first.verdict, first.mode) == (mc.Verdict.PASSED, "smart")
    _, _, raw = only_path(inner)
    assert json.loads(raw)["signature"].startswith("hmac-sha256:")
    again, _ = run(file, SignedPaths(inner, KEY), model=False)
    assert (again.verdict, again.mode, again.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    unkeyed, _ = run(file, inner, model=False)  # a reader without the key reads a signed path as any other
    assert (unkeyed.verdict, unkeyed.mode) == (mc.Verdict.PASSED, "replay")


def forge(store: MemoryPaths, change: str) -> None:
    """Rewrite the one path as someone without the key would."""
    identity, env, raw = only_path(store)
    doc = json.loads(raw)
    if change == "unsigned":
        doc.pop("signature")
    elif change == "forged":
        doc["steps"][0]["target"]["label"] = "Delete account"  # the signature is the old one's
    else:  # signed with another key
        doc.pop("signature")
        doc["signature"] = TeamKey("someone-elses-key-0123456789").mac(b"paths/x\n{}")
    tag = store.read(identity, env, max_bytes=1 << 20).tag
    assert store.write(identity, env, json.dumps(doc).encode(), expect=tag)


@pytest.mark.parametrize("shared", [True, False], ids=["a team's store", "a private store"])
@pytest.mark.parametrize("change", ["unsigned", "forged", "another key"])
def test_a_path_without_the_team_s_signature_is_refused_and_recorded_again(
    tmp_path: Path, change: str, shared: bool
) -> None:
    inner = MemoryPaths(shared=shared)
    file = check_file(tmp_path)
    assert run(file, SignedPaths(inner, KEY))[0].verdict is mc.Verdict.PASSED
    forge(inner, change)
    result, _ = run(file, SignedPaths(inner, KEY))
    assert (result.verdict, result.mode) == (mc.Verdict.PASSED, "smart"), result.outcome.message
    why = result.path_why or ""
    problem = "unsigned" if change == "unsigned" else "forged"
    reason = "it is not signed with the team key" if problem == "unsigned" else "its signature doesn't match"
    assert reason in why, why
    if shared:  # a shared store's reader never moves its document (the cache's Rule 12): the recording replaces it
        assert "can't be used and is left as it is" in why, why
    else:
        assert f".{problem}, the next run records a new path" in why, why
    assert why.count("\n") == 0
    assert "Delete account" not in json.dumps([r.to_dict() for r in result.steps])  # nothing of it was sent
    _, _, raw = only_path(inner)
    assert json.loads(raw)["signature"].startswith("hmac-sha256:")  # recorded again, and signed
    aside = [n for n in inner.docs if n.startswith("aside/") and n.endswith(f".{problem}")]
    assert len(aside) == (0 if shared else 1)  # a private store keeps it aside for inspection
    replay, _ = run(file, SignedPaths(inner, KEY), model=False)
    assert (replay.mode, replay.model_calls) == ("replay", 0)


def test_a_signed_document_moved_under_another_name_is_refused() -> None:
    inner = MemoryPaths()
    store = SignedPaths(inner, KEY)
    body = b'{"format": 2, "identity": "0123456789abcdef"}'
    assert store.write("0123456789abcdef", "abcdef012345", body)
    signed = inner.read("0123456789abcdef", "abcdef012345", max_bytes=4096).data
    assert inner.write("0123456789abcdef", "fedcba543210", signed)
    with pytest.raises(mc.exceptions.UnsafeFile, match="signature doesn't match"):
        store.read("0123456789abcdef", "fedcba543210", max_bytes=4096)


def test_a_duplicate_key_never_shows_the_verifier_one_value_and_the_reader_another() -> None:
    inner = MemoryPaths()
    store = SignedPaths(inner, KEY)
    assert store.write("0123456789abcdef", "abcdef012345", b'{"steps": "benign"}')
    signed = inner.read("0123456789abcdef", "abcdef012345", max_bytes=4096)
    doubled = signed.data.replace(b'"steps": "benign"', b'"steps": "benign", "steps": "evil"')
    assert inner.write("0123456789abcdef", "abcdef012345", doubled, expect=signed.tag)
    with pytest.raises(mc.exceptions.UnsafeFile, match="not signed"):
        store.read("0123456789abcdef", "abcdef012345", max_bytes=4096)


def test_the_team_key_is_never_shown_and_a_short_one_is_refused() -> None:
    assert repr(KEY) == "<team key>"
    assert "team-key" not in repr(SignedPaths(MemoryPaths(), KEY).__dict__)
    with pytest.raises(ValueError, match="at least 16 bytes"):
        TeamKey("short")


def snapshot(store: MemoryPaths) -> tuple[dict[tuple[str, str], tuple[bytes, str]], dict[str, tuple[bytes, str]]]:
    return dict(store.paths), dict(store.docs)


def test_a_read_only_run_replays_the_team_s_paths_and_writes_nothing(tmp_path: Path) -> None:
    team = MemoryPaths()
    file = check_file(tmp_path)
    assert run(file, team)[0].verdict is mc.Verdict.PASSED
    before = snapshot(team)
    result, _ = run(file, ReadOnlyPaths(team, BundlePaths(tmp_path / BUNDLE_DIR)), model=False)
    assert (result.verdict, result.mode, result.model_calls) == (mc.Verdict.PASSED, "replay", 0)
    assert snapshot(team) == before


def test_a_read_only_run_that_records_keeps_it_in_the_bundle_and_the_store_stays_byte_identical(
    tmp_path: Path,
) -> None:
    team = MemoryPaths()
    other = check_file(tmp_path / "main")
    assert run(other, team)[0].verdict is mc.Verdict.PASSED
    forge(team, "forged")  # something the read-only run can't use: it records, and must not set it aside
    before = snapshot(team)
    file = check_file(tmp_path)
    bundle = BundlePaths(tmp_path / BUNDLE_DIR)
    result, _ = run(file, ReadOnlyPaths(SignedPaths(team, KEY), bundle))
    assert (result.verdict, result.mode) == (mc.Verdict.PASSED, "smart"), result.outcome.message
    assert snapshot(team) == before  # byte for byte, versions too
    assert len(bundle.names()) == 1
    assert "can't be used and is left as it is" in (result.path_why or "")  # the team's store is left as it is
    exported = json.loads(export_paths(tmp_path, paths=bundle, now=datetime.now(UTC)))
    assert len(exported["paths"]) == 1


RENAMED = sample_path("yourapp-renamed").read_text()


@pytest.mark.parametrize("shared", [True, False], ids=["a team's store", "a private store"])
def test_a_forged_heal_state_is_refused_and_never_replayed(tmp_path: Path, shared: bool) -> None:
    inner = MemoryPaths(shared=shared)
    file = check_file(tmp_path)
    assert run(file, SignedPaths(inner, KEY))[0].verdict is mc.Verdict.PASSED
    clock = FakeClock()
    phone = ScriptedPhone.from_text(RENAMED, clock=clock)
    options = RunOptions(root=tmp_path, paths=SignedPaths(inner, KEY))
    healed = clock.run(run_check(load_check(file), phone, clock, model=ScriptedModel(clock=clock), options=options))
    assert (healed.verdict, len(healed.heals)) == (mc.Verdict.PASSED, 1)
    [name] = inner.documents("heals/")
    raw, tag = inner.docs[name]
    forged = raw.replace(b'"Next"', b'"Delete account"')
    assert inner.write_document(name, forged, expect=tag)
    clock = FakeClock()
    phone = ScriptedPhone.from_text(RENAMED, clock=clock)
    strict = RunOptions(root=tmp_path, paths=SignedPaths(inner, KEY), no_heal=True)
    result = clock.run(run_check(load_check(file), phone, clock, options=strict))
    # The forged healed path is no heal state: the recorded path replays, and the renamed step drifts.
    assert (result.verdict, result.outcome.failure_class) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT)
    if shared:  # a shared store's document is left byte for byte (the heal file's Rule 12)
        assert inner.documents("heals/") == [name]
        assert inner.docs[name][0] == forged
    else:
        assert inner.documents("heals/") == [f"{name}.forged"]
    assert "Delete account" not in json.dumps([r.to_dict() for r in result.steps])


def test_a_run_that_heals_replaces_a_forged_heal_state_left_in_a_team_s_store(tmp_path: Path) -> None:
    inner = MemoryPaths()
    file = check_file(tmp_path)
    assert run(file, SignedPaths(inner, KEY))[0].verdict is mc.Verdict.PASSED
    [(identity, env)] = inner.names()
    name = state_name(identity, env, check_key(tmp_path, file))
    assert inner.write_document(name, b'{"format": 4, "healed": "Delete account"}', expect=None)  # no signature
    clock = FakeClock()
    phone = ScriptedPhone.from_text(RENAMED, clock=clock)
    options = RunOptions(root=tmp_path, paths=SignedPaths(inner, KEY))
    healed = clock.run(run_check(load_check(file), phone, clock, model=ScriptedModel(clock=clock), options=options))
    assert (healed.verdict, len(healed.heals)) == (mc.Verdict.PASSED, 1), healed.outcome.message
    assert inner.documents("heals/") == [name]  # written over the refused version, under its name
    assert json.loads(inner.docs[name][0])["signature"].startswith("hmac-sha256:")
