"""The report's public surface is a promise too: pinned, and held to the package's real attributes."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import types

import mobster_report


def test_all_is_pinned() -> None:
    assert sorted(mobster_report.__all__) == sorted(
        ["HtmlReport", "FrameLimits", "HealFrames", "MergeError", "heal_evidence", "merge_suites", "newest_report"]
    )


def test_all_is_every_public_attribute_of_the_package() -> None:
    public = [
        name
        for name, value in vars(mobster_report).items()
        if not name.startswith("_")
        and not (isinstance(value, types.ModuleType) and value.__name__ == f"mobster_report.{name}")
    ]
    assert sorted(mobster_report.__all__) == sorted(public)


def test_every_module_of_the_report_is_private() -> None:
    assert {m.name for m in pkgutil.iter_modules(mobster_report.__path__) if not m.name.startswith("_")} == set()


def test_the_html_report_is_a_reporter() -> None:
    from mobster_core.protocols import Reporter

    assert isinstance(mobster_report.HtmlReport(), Reporter)


def test_importing_the_report_loads_no_driver_no_cli_and_no_pillow_until_a_picture_is_made() -> None:
    code = (
        "import sys, mobster_report;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'mobster_drivers', 'mobster_cli', 'mobster_pytest', 'PIL', 'click', 'wda'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
