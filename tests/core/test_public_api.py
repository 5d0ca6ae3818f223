"""The public surface is a contract (SPEC §17): pin it."""

from __future__ import annotations

import mobster_core as mc
from mobster_core import protocols, testing


def test_all_is_pinned() -> None:
    assert sorted(mc.__all__) == sorted(
        [
            "DEFAULT_SCREEN_SIZE", "SPRINGBOARD", "Action", "AppInfo", "Clock", "Commit", "Decision",
            "DecisionKind",
            "Device", "DeviceError", "DeviceInfo", "DeviceKind", "Element", "LaunchOptions", "Match",
            "MobsterError", "Model", "ModelAction", "ModelError", "Op", "PathError", "Prompt", "Reset",
            "Screen", "ScreenRef", "Screenshots", "ScriptError", "Step", "SystemClock", "Target",
            "UnknownOutcome", "Usage", "dump_path", "load_path", "match_step", "similarity",
        ]
    )  # fmt: skip
    for name in mc.__all__:
        assert getattr(mc, name) is not None


def test_protocols_and_testing_exports() -> None:
    assert sorted(protocols.__all__) == ["Clock", "Device", "Model", "Screenshots"]
    assert sorted(testing.__all__) == ["FakeClock", "SPRINGBOARD", "check_device"]


def test_exception_tree() -> None:
    assert issubclass(mc.UnknownOutcome, mc.DeviceError)
    for exc in (mc.PathError, mc.ScriptError, mc.DeviceError, mc.ModelError):
        assert issubclass(exc, mc.MobsterError)


def test_core_does_not_import_drivers_or_vendors() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mobster_core, mobster_core.testing;"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('mobster_drivers', 'mobster_cli', 'anthropic', 'openai', 'wda', 'pymobiledevice3',"
        " 'click', 'rich')];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
