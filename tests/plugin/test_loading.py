"""The plugin is found by its entry point, and imports nothing of Mobster until it is used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers import Project

pytest_plugins = ["pytester"]


def test_pytest_finds_the_plugin_by_its_entry_point(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    # Autoloading on, as in a user's project (the plugins the test doesn't need stay off, for time).
    off = ("-p", "no:hypothesispytest", "-p", "no:anyio", "-p", "no:pytest_cov", "-p", "no:cacheprovider")
    result = project.pytester.runpytest(*off, "--collect-only", "-q", "--mobster-scripted", "apps/yourapp.yaml")
    assert result.ret == 0
    result.stdout.fnmatch_lines([".mobster/checks/paywall.yaml::paywall", ".mobster/checks/signup.yaml::signup"])


def test_loading_the_plugin_imports_nothing_of_mobster_but_the_harness_settings() -> None:
    # The harness's spec and settings are read when pytest starts: the standard library only.
    code = (
        "import sys, mobster_pytest.plugin, mobster_pytest; "
        "heavy = sorted(m for m in sys.modules if m.startswith(('mobster_core', 'mobster_drivers', 'mobster_harness', "
        "'mobster_report', 'attrs', 'cattrs', 'structlog'))); "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == str(
        [
            "mobster_harness",
            "mobster_harness.door",
            "mobster_harness.settings",
            "mobster_harness.spec",
        ]
    )
