"""``mobster mcp`` on a team's store: the config's store keys apply to it, as to ``mobster test``.

The MCP server goes through the harness's door like every front end (its ``run_check`` gets the
run options ``mobster test`` would), so the store it records into, signs and leases is the one the
config names; its heal tools read and decide in that store too, and refuse a decision where the
store is read-only (``paths-write = false``), as ``mobster test heal`` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mobster_cli._mcp import RUN_KEYS
from mobster_core.paths import ReadOnlyPaths, SignedPaths
from mobster_core.testing import FakeClock
from mobster_harness import Settings
from mobster_harness.config import KEYS
from mobster_mcp import Bridge
from mobster_mcp._bridge import ToolProblem
from tests.cli.test_paths import make_project


def test_mcp_takes_every_store_key_of_the_config() -> None:
    assert {k.name for k in KEYS if k.name.startswith("paths-")} <= set(RUN_KEYS)


def test_the_heal_tools_use_the_store_a_run_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    monkeypatch.setenv("MOBSTER_TEAM_KEY", "a-team-key-of-32-characters-long")
    values = {"scripted": [str(root / "app.yaml")], "paths_write": False, "paths_key": "MOBSTER_TEAM_KEY"}
    bridge = Bridge(Settings.from_values(values), root, FakeClock())
    store = bridge.settings.path_store(root)
    assert isinstance(store, ReadOnlyPaths)
    assert isinstance(store.inner, SignedPaths)
    assert bridge.list_heals() == {"heals": []}
    with pytest.raises(ToolProblem, match=r"read-only here \(the config's paths-write = false\)"):
        bridge.decide_heal("signup", accept=True)


def test_an_unset_store_variable_is_one_line_from_a_heal_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    monkeypatch.delenv("MOBSTER_NO_SUCH_STORE", raising=False)
    values = {"scripted": [str(root / "app.yaml")], "paths_store": "${MOBSTER_NO_SUCH_STORE}"}
    bridge = Bridge(Settings.from_values(values), root, FakeClock())
    with pytest.raises(ToolProblem, match="MOBSTER_NO_SUCH_STORE isn't set"):
        bridge.decide_heal("signup", accept=True)
