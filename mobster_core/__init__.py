"""Mobster replay: end-to-end checks of iOS apps that replay a passed path with zero model calls.

The core is pure: it decides, and a thin runner carries the decisions out on a
:class:`~mobster_core.protocols.Device`. See ``docs/architecture.md``.
"""

from __future__ import annotations

import logging

from ._clock import SystemClock
from ._rules.assertions import Assertion, AssertionResult, ExpectError, Selector, evaluate
from ._rules.breaker import Breaker
from ._rules.cost import Cost, Price, PriceTable, estimate_usage
from ._rules.device import SPRINGBOARD, Action, AppInfo, DeviceInfo, DeviceKind, LaunchOptions, Reset
from ._rules.identity import Env, path_identity, why_fresh
from ._rules.matcher import Match, match_step
from ._rules.model import Decision, DecisionKind, ModelAction, Prompt, Usage
from ._rules.prompt import ACTION_TOOL, SYSTEM_PROMPT, parse_decision, screen_rows
from ._rules.safety import SafetyDecision, check_commit, classify
from ._rules.screen import DEFAULT_SCREEN_SIZE, Element, Screen, similarity
from ._rules.settle import DEFAULT_POLICY, PollPolicy, SettledRead
from ._rules.steps import Commit, Op, ScreenRef, Step, Target, describe_action, dump_path, load_path
from ._rules.typing_rules import Provenance, is_masked, record_text
from ._rules.verdict import FailureClass, Outcome, Verdict, decide, suite_exit_code
from ._run.agent import Agent, Brief, Limits, ModelCalls, Recorded
from ._run.check import RunOptions, RunStopped, run_check
from ._run.dispatch import Dispatcher
from ._run.heal import Healed, HealJob, heal_step
from ._run.judge import settled_read
from ._run.replay import Drift, LiveStep, Replayed, Replayer
from ._run.results import SCHEMA, CheckResult, Mode, StepReport, StepSource, SuiteResult, junit_xml
from ._run.suite import SuiteStopped, parse_shard, run_suite, shard
from ._store.cache import Lookup, ReplayCache, StoredEnv
from ._store.checks import Check, CheckError, find_checks, load_check, load_check_text
from ._store.fsutil import UnsafeFile, find_project_root
from ._store.healfile import HealEntry, HealFileError, accept_heals, heal_file_for, read_heal_file, reject_heals
from ._store.journal import (
    DuplicateEffect,
    Effect,
    EffectLedger,
    Journal,
    JournalError,
    UnknownOutcomePending,
    read_journal,
)
from .exceptions import (
    DeviceError,
    MobsterError,
    ModelError,
    PathError,
    ScriptError,
    UnknownOutcome,
)
from .protocols import Clock, Device, EvidenceReads, Model, Screenshots, TargetChecks

__all__ = [
    "ACTION_TOOL",
    "DEFAULT_POLICY",
    "DEFAULT_SCREEN_SIZE",
    "SCHEMA",
    "SPRINGBOARD",
    "SYSTEM_PROMPT",
    "Action",
    "Agent",
    "AppInfo",
    "Assertion",
    "AssertionResult",
    "Breaker",
    "Brief",
    "Check",
    "CheckError",
    "CheckResult",
    "Clock",
    "Commit",
    "Cost",
    "Decision",
    "DecisionKind",
    "Device",
    "DeviceError",
    "DeviceInfo",
    "DeviceKind",
    "Dispatcher",
    "Drift",
    "DuplicateEffect",
    "Effect",
    "EffectLedger",
    "Element",
    "Env",
    "EvidenceReads",
    "ExpectError",
    "FailureClass",
    "HealEntry",
    "HealFileError",
    "HealJob",
    "Healed",
    "Journal",
    "JournalError",
    "LaunchOptions",
    "Limits",
    "LiveStep",
    "Lookup",
    "Match",
    "MobsterError",
    "Mode",
    "Model",
    "ModelAction",
    "ModelCalls",
    "ModelError",
    "Op",
    "Outcome",
    "PathError",
    "PollPolicy",
    "Price",
    "PriceTable",
    "Prompt",
    "Provenance",
    "Recorded",
    "ReplayCache",
    "Replayed",
    "Replayer",
    "Reset",
    "RunOptions",
    "RunStopped",
    "SafetyDecision",
    "Screen",
    "ScreenRef",
    "Screenshots",
    "ScriptError",
    "Selector",
    "SettledRead",
    "Step",
    "StepReport",
    "StepSource",
    "StoredEnv",
    "SuiteResult",
    "SuiteStopped",
    "SystemClock",
    "Target",
    "TargetChecks",
    "UnknownOutcome",
    "UnknownOutcomePending",
    "UnsafeFile",
    "Usage",
    "Verdict",
    "accept_heals",
    "check_commit",
    "classify",
    "decide",
    "describe_action",
    "dump_path",
    "estimate_usage",
    "evaluate",
    "find_checks",
    "find_project_root",
    "heal_file_for",
    "heal_step",
    "is_masked",
    "junit_xml",
    "load_check",
    "load_check_text",
    "load_path",
    "match_step",
    "parse_decision",
    "parse_shard",
    "path_identity",
    "read_heal_file",
    "read_journal",
    "record_text",
    "reject_heals",
    "run_check",
    "run_suite",
    "screen_rows",
    "settled_read",
    "shard",
    "similarity",
    "suite_exit_code",
    "why_fresh",
]

# The library never configures logging; it only makes sure nothing prints unless asked to.
logging.getLogger("mobster").addHandler(logging.NullHandler())
