"""The public surface is a contract (SPEC §17): pin it."""

from __future__ import annotations

import mobster_core as mc
from mobster_core import protocols, testing


def test_all_is_pinned() -> None:
    assert sorted(mc.__all__) == sorted(
        [
            "ACTION_TOOL", "Action", "Agent", "AppInfo", "Assertion", "AssertionResult", "Breaker", "Brief",
            "Check", "CheckError", "CheckResult", "Clock", "Commit", "Cost", "DEFAULT_POLICY",
            "DEFAULT_SCREEN_SIZE", "Decision", "DecisionKind", "Device", "DeviceError", "DeviceInfo",
            "DeviceKind", "Dispatcher", "Drift", "DuplicateEffect", "Effect", "EffectLedger", "Element",
            "Env", "EvidenceReads", "ExpectError", "FailureClass", "HealEntry", "HealFileError", "HealJob",
            "Healed", "Journal", "JournalError", "LaunchOptions", "Limits", "LiveStep", "Lookup", "Match",
            "MobsterError", "Mode", "Model", "ModelAction", "ModelCalls", "ModelError", "Op", "Outcome",
            "PathError", "PollPolicy", "Price", "PriceTable", "Prompt", "Provenance", "Recorded",
            "ReplayCache", "Replayed", "Replayer", "Reset", "RunOptions", "RunStopped", "SCHEMA",
            "SPRINGBOARD", "SYSTEM_PROMPT", "SafetyDecision", "Screen", "ScreenRef", "Screenshots",
            "ScriptError", "Selector", "SettledRead", "Step", "StepReport", "StepSource", "StoredEnv",
            "SuiteResult", "SuiteStopped", "SystemClock", "Target", "TargetChecks", "UnknownOutcome",
            "UnknownOutcomePending", "UnsafeFile", "Usage", "Verdict", "accept_heals", "check_commit",
            "classify", "decide", "describe_action", "dump_path", "estimate_usage", "evaluate", "find_checks",
            "find_project_root", "heal_file_for", "heal_step", "is_masked", "junit_xml", "load_check",
            "load_check_text", "load_path", "match_step", "parse_decision", "parse_shard", "path_identity",
            "read_heal_file", "read_journal", "record_text", "reject_heals", "run_check", "run_suite",
            "screen_rows", "settled_read", "shard", "similarity", "suite_exit_code", "why_fresh",
        ]
    )  # fmt: skip
    for name in mc.__all__:
        assert getattr(mc, name) is not None


def test_protocols_and_testing_exports() -> None:
    assert sorted(protocols.__all__) == ["Clock", "Device", "EvidenceReads", "Model", "Screenshots", "TargetChecks"]
    assert sorted(testing.__all__) == ["FakeClock", "MemoryJournal", "SPRINGBOARD", "check_device"]


def test_exception_tree() -> None:
    assert issubclass(mc.UnknownOutcome, mc.DeviceError)
    for exc in (mc.PathError, mc.ScriptError, mc.DeviceError, mc.ModelError):
        assert issubclass(exc, mc.MobsterError)


def test_core_does_not_import_drivers_or_vendors() -> None:
    # rich is left out: structlog itself imports it for pretty tracebacks when it is installed.
    import subprocess
    import sys

    code = (
        "import sys, mobster_core, mobster_core.testing;"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('mobster_drivers', 'mobster_cli', 'anthropic', 'openai', 'wda', 'pymobiledevice3',"
        " 'click')];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
