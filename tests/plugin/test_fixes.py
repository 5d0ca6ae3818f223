"""The plugin spells every fix with pytest's options for Mobster (``mobster_pytest._fixes``)."""

from __future__ import annotations

import re

from mobster_core.results import FIX_ARGS, Fix, FixCode
from mobster_pytest._fixes import spell
from mobster_pytest._settings import OPTIONS

OPTION = re.compile(r"--[a-z][a-z-]*")


def test_every_fix_code_is_spelled_with_the_plugins_own_options() -> None:
    ours = {o.flag for o in OPTIONS}
    for code in FixCode:
        text = spell(Fix(code, {name: f"<{name}>" for name in FIX_ARGS[code]}))
        named = set(OPTION.findall(text))
        assert named, (code, text)
        assert named <= ours, (code, named - ours)  # --mobster-fresh, never the mobster command's --fresh
        assert "RunOptions" not in text


def test_the_docs_table_says_each_code_as_the_plugin_spells_it() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "pytest.md").read_text()
    table = page.split("| fix code | the plugin says |", 1)[1]
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.+) \|$", table, re.MULTILINE))
    args = {"heal_file": ".mobster/checks/signup.heal.yaml", "check": "signup.yaml"}
    for code in FixCode:
        assert rows.get(code.value) == spell(Fix(code, {k: args[k] for k in FIX_ARGS[code]})), code
