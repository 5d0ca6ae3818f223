"""The public surface is a promise: pin it, and hold it to the module's real attributes (as httpx does)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

import mobster_core as mc
from mobster_core import exceptions, protocols, testing

#: The public submodules: everything else under ``mobster_core`` starts with ``_``.
PUBLIC_MODULES = (
    "checks",
    "distribution",
    "exceptions",
    "files",
    "heals",
    "paths",
    "prompts",
    "protocols",
    "results",
    "screens",
    "sessions",
    "testing",
    "text",
    "yaml",
)


def test_all_is_pinned() -> None:
    assert sorted(mc.__all__) == sorted(
        [
            # running a check or a suite
            "run_check", "run_suite", "RunOptions", "PollPolicy", "PriceTable", "Price", "Check", "load_check",
            "find_checks", "CheckResult", "SuiteResult", "Outcome", "Verdict", "FailureClass", "RunStopped",
            "SuiteStopped",
            # recorded paths and matching
            "Step", "Target", "load_path", "recorded_paths", "RecordedPath", "match_step", "Match", "Screen",
            "Element", "similarity",
            # drivers
            "Device", "Screenshots", "EvidenceReads", "TargetChecks", "Action", "Op", "DeviceInfo", "DeviceKind",
            "AppInfo", "LaunchOptions", "Reset", "DeviceError", "UnknownOutcome",
            # models
            "Model", "Prompt", "Decision", "DecisionKind", "ModelAction", "Usage", "ModelError",
            # time and errors
            "Clock", "SystemClock", "MobsterError",
        ]
    )  # fmt: skip
    assert len(mc.__all__) < 50


def test_all_is_every_public_attribute_of_the_package() -> None:
    # httpx's test_all_imports: a name imported into the package is in __all__, or private.
    public = [
        name
        for name, value in vars(mc).items()
        if not name.startswith("_")
        and not (isinstance(value, types.ModuleType) and value.__name__ == f"mobster_core.{name}")
    ]
    assert sorted(mc.__all__) == sorted(public)
    assert len(set(mc.__all__)) == len(mc.__all__)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_a_public_module_exports_what_it_holds(name: str) -> None:
    module = importlib.import_module(f"mobster_core.{name}")
    for exported in module.__all__:
        assert getattr(module, exported) is not None, exported
    # What the module defines itself is exported or private; what it imports for its own use isn't promised.
    ours = {
        n for n, v in vars(module).items() if not n.startswith("_") and getattr(v, "__module__", "") == module.__name__
    }
    assert ours <= set(module.__all__), ours - set(module.__all__)


def test_the_public_modules_are_the_ones_without_an_underscore() -> None:
    import pkgutil

    found = {m.name for m in pkgutil.iter_modules(mc.__path__) if not m.name.startswith("_")}
    assert found == set(PUBLIC_MODULES)


def test_protocols_and_testing_exports() -> None:
    assert sorted(protocols.__all__) == sorted([
        "DEFAULT_SCREEN_SIZE", "HOME_SCREENS", "SPRINGBOARD", "Platform", "AlertAnswers", "Appearance", "AuditIssue",
        "AuditReport", "Audits",
        "CheckReports", "Clock", "Device", "DeviceControls", "DeviceEvent", "DeviceEvents", "DeviceSettings",
        "EvidenceReads", "Frame",
        "LocaleLaunches", "Model", "PathStore", "Recording", "Recordings", "Reporter", "ScreenshotChannel",
        "Screenshots", "TargetChecks",
    ])  # fmt: skip
    assert sorted(testing.__all__) == [
        "FakeClock",
        "MemoryJournal",
        "MemoryPaths",
        "SPRINGBOARD",
        "VersionNames",
        "check_device",
        "check_path_store",
    ]


def test_exception_tree() -> None:
    assert issubclass(mc.UnknownOutcome, mc.DeviceError)
    assert issubclass(exceptions.DeviceBusy, mc.DeviceError)
    assert issubclass(exceptions.UnknownOutcomePending, exceptions.DuplicateEffect)
    for name in exceptions.__all__:
        error = getattr(exceptions, name)
        if isinstance(error, type) and issubclass(error, Exception):
            assert issubclass(error, mc.MobsterError), name


def test_core_does_not_import_drivers_or_vendors() -> None:
    # rich is left out: structlog itself imports it for pretty tracebacks when it is installed.
    code = (
        "import sys, mobster_core, mobster_core.testing;"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('mobster_drivers', 'mobster_cli', 'mobster_report', 'anthropic', 'openai', 'wda', 'pymobiledevice3',"
        " 'click', 'PIL')];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
