"""Flows' segments on a team store (issues 39 and 42): conditional writes, leases, prune and bundles.

Several "machines" (projects of their own with the same check and flow files, each on its own
scripted phone) share one in-memory store on one fake clock. A flow's segment is recorded by one
machine while the others wait for it and replay it, whichever check they run; a segment another
machine stored while this run recorded is theirs, kept as it is; prune never takes a segment a
check uses for an orphan; a flow's heal state travels in a bundle to the checks that use the flow.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core._store.lease import look
from mobster_core.paths import LeasePolicy, RecordedBy, export_paths, import_paths, prune_paths
from mobster_core.testing import FakeClock, MemoryPaths
from mobster_drivers.devices.scripted import ScriptedPhone
from mobster_drivers.models.scripted import ScriptedModel
from tests.core.flows.apps import SECRETS, own_check, shop, shop_project

POLICY = LeasePolicy(lease_s=30.0, wait_s=300.0, poll_s=1.0)
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
CHECKS = {
    "settings": own_check("Save settings", "Settings", "Settings saved"),
    "orders": own_check("Refresh orders", "Orders", "Orders refreshed"),
}


def machine(tmp_path: Path, n: int) -> dict[str, Path]:
    return shop_project(tmp_path / f"machine-{n}", CHECKS)


async def fleet(
    clock: FakeClock, files: list[Path], store: MemoryPaths, policy: LeasePolicy | None, app: str = ""
) -> list[tuple[mc.CheckResult, int]]:
    async def one(file: Path, n: int) -> tuple[mc.CheckResult, int]:
        model = ScriptedModel(clock=clock, delay=2.0)
        root = file.parent.parent.parent
        options = RunOptions(root=root, paths=store, lease=policy, recorder=RecordedBy(f"ci-{n}"), secrets=SECRETS)
        phone = ScriptedPhone.from_text(app or shop(), clock=clock)
        return await run_check(load_check(file), phone, clock, model=model, options=options), model.calls

    return list(await asyncio.gather(*(one(f, n) for n, f in enumerate(files))))


def test_a_flow_s_segment_is_recorded_by_one_machine_while_the_others_wait_whatever_check_they_run(
    tmp_path: Path,
) -> None:
    files = [machine(tmp_path, 0)["settings"], machine(tmp_path, 1)["orders"], machine(tmp_path, 2)["orders"]]
    store, clock = MemoryPaths(), FakeClock()
    results = clock.run(fleet(clock, files, store, POLICY))
    assert [r.verdict for r, _ in results] == [mc.Verdict.PASSED] * 3, [r.outcome.message for r, _ in results]
    # The login once (3 steps and done: 4 calls), each check's own 2 steps once (3 calls each): 10,
    # where a lease of each check's whole identity (never stored for a path in parts) let all three record (21).
    assert sum(calls for _r, calls in results) == 4 + 3 + 3
    login = load_check(files[0]).parts[0]
    assert login.flow == "login"
    assert login.identity == load_check(files[1]).parts[0].identity  # one segment for both checks
    assert len(store.names(login.identity)) == 1
    assert len(store.names()) == 3  # the login's segment, and each check's own steps
    waited = [r.path_why or "" for r, _ in results if "replaying the path it stored" in (r.path_why or "")]
    assert len(waited) == 2, [r.path_why for r, _ in results]
    assert store.documents("leases/")  # the waits were on leases, each released when its recording ended
    assert all(not look(store, name, path=True).held for name in store.documents("leases/"))


def test_a_segment_another_machine_stored_while_this_run_recorded_is_theirs_and_the_rest_is_kept(
    tmp_path: Path,
) -> None:
    file = machine(tmp_path, 0)["settings"]
    login = load_check(file).parts[0].identity
    elsewhere, clock = MemoryPaths(), FakeClock()
    clock.run(fleet(clock, [machine(tmp_path, 9)["orders"]], elsewhere, None))  # another machine's login
    [(_, env)] = elsewhere.names(login)
    theirs = elsewhere.read(login, env, max_bytes=1 << 20).data
    store = MemoryPaths()

    class AnotherMachineMeanwhile(ScriptedModel):
        """While this run records, another machine stores the login's segment (after this run's plan read none)."""

        async def decide(self, prompt: mc.Prompt) -> mc.Decision:
            if not store.names(login):
                assert store.write(login, env, theirs, expect=None)
            return await super().decide(prompt)

    model = AnotherMachineMeanwhile(clock=clock)
    options = RunOptions(root=tmp_path / "machine-0", paths=store, secrets=SECRETS)
    result = clock.run(run_check(load_check(file), ScriptedPhone.from_text(shop(), clock=clock), clock, model=model,
                                 options=options))  # fmt: skip
    assert result.verdict is mc.Verdict.PASSED
    assert result.path_why is not None
    assert "another run stored the flow login first" in result.path_why
    assert store.read(login, env, max_bytes=1 << 20).data == theirs  # theirs stays, byte for byte
    assert len(store.names()) == 2  # this run's own steps are still kept


def test_prune_keeps_the_segments_and_own_steps_of_checks_that_use_flows(tmp_path: Path) -> None:
    files = machine(tmp_path, 0)
    root = tmp_path / "machine-0"
    store, clock = MemoryPaths(), FakeClock()
    clock.run(fleet(clock, list(files.values()), store, None))
    assert len(store.names()) == 3
    checks = [load_check(f) for f in files.values()]
    assert prune_paths(root, checks, paths=store) == ()
    assert len(store.names()) == 3
    # The check that used the flow is gone: its own steps are an orphan now, the shared login is not.
    gone = prune_paths(root, checks[:1], paths=store)
    assert [identity for _stored, identity in gone] == [checks[1].parts[1].identity]


def test_a_flow_s_heal_state_travels_in_a_bundle_to_the_checks_that_use_the_flow(tmp_path: Path) -> None:
    here, there = machine(tmp_path, 0), machine(tmp_path, 1)
    store, clock = MemoryPaths(), FakeClock()
    clock.run(fleet(clock, list(here.values()), store, None))
    [(healed, _)] = clock.run(fleet(clock, [here["settings"]], store, None, shop("Log in")))
    assert healed.heals, healed.outcome.message
    [state] = store.documents("heals/")
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(export_paths(tmp_path / "machine-0", paths=store, now=NOW))
    elsewhere = MemoryPaths()
    checks = [load_check(f) for f in there.values()]
    report = import_paths(tmp_path / "machine-1", bundle, checks, paths=elsewhere)
    assert report.refused == ()
    assert len(report.heals_added) == 1
    assert elsewhere.documents("heals/") == [state]
