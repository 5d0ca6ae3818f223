"""Mobster replay: end-to-end checks of iOS apps that replay a passed path with zero model calls.

The core is pure: it decides, and a thin runner carries the decisions out on a
:class:`~mobster_core.protocols.Device`. See ``docs/architecture.md``.
"""

from __future__ import annotations

import logging

from ._cache import Lookup, ReplayCache, StoredEnv
from ._clock import SystemClock
from ._device import SPRINGBOARD, Action, AppInfo, DeviceInfo, DeviceKind, LaunchOptions, Reset
from ._fsutil import UnsafeFile, find_project_root
from ._identity import Env, path_identity, why_fresh
from ._journal import DuplicateEffect, EffectLedger, Journal, JournalError, Outcome, UnknownOutcomePending, read_journal
from ._matcher import Match, match_step
from ._model import Decision, DecisionKind, ModelAction, Prompt, Usage
from ._replay import LiveStep, Replayer, ReplayResult, StepReport, StepSource, Stop
from ._safety import SafetyDecision, check_commit, classify
from ._screen import DEFAULT_SCREEN_SIZE, Element, Screen, similarity
from ._settle import DEFAULT_POLICY, PollPolicy
from ._steps import Commit, Op, ScreenRef, Step, Target, describe_action, dump_path, load_path
from ._typing_rules import Provenance, is_masked, record_text
from .exceptions import (
    DeviceError,
    MobsterError,
    ModelError,
    PathError,
    ScriptError,
    UnknownOutcome,
)
from .protocols import Clock, Device, Model, Screenshots

__all__ = [
    "DEFAULT_POLICY",
    "DEFAULT_SCREEN_SIZE",
    "SPRINGBOARD",
    "Action",
    "AppInfo",
    "Clock",
    "Commit",
    "Decision",
    "DecisionKind",
    "Device",
    "DeviceError",
    "DeviceInfo",
    "DeviceKind",
    "DuplicateEffect",
    "EffectLedger",
    "Element",
    "Env",
    "Journal",
    "JournalError",
    "LaunchOptions",
    "LiveStep",
    "Lookup",
    "Match",
    "MobsterError",
    "Model",
    "ModelAction",
    "ModelError",
    "Op",
    "Outcome",
    "PathError",
    "PollPolicy",
    "Prompt",
    "Provenance",
    "ReplayCache",
    "ReplayResult",
    "Replayer",
    "Reset",
    "SafetyDecision",
    "Screen",
    "ScreenRef",
    "Screenshots",
    "ScriptError",
    "Step",
    "StepReport",
    "StepSource",
    "Stop",
    "StoredEnv",
    "SystemClock",
    "Target",
    "UnknownOutcome",
    "UnknownOutcomePending",
    "UnsafeFile",
    "Usage",
    "check_commit",
    "classify",
    "describe_action",
    "dump_path",
    "find_project_root",
    "is_masked",
    "load_path",
    "match_step",
    "path_identity",
    "read_journal",
    "record_text",
    "similarity",
    "why_fresh",
]

# The library never configures logging; it only makes sure nothing prints unless asked to.
logging.getLogger("mobster").addHandler(logging.NullHandler())
