"""Mobster replay: end-to-end checks of iOS apps that replay a passed path with zero model calls.

What a harness, a driver author and a model-adapter author need, and nothing else (``__all__`` is
pinned by a test). Start with ``docs/python.md``. The details live in public submodules:

- :mod:`mobster_core.protocols`: the interfaces a driver or a model implements;
- :mod:`mobster_core.results`: every type of a result, and ``junit.xml``;
- :mod:`mobster_core.checks`: check files and the project that holds them;
- :mod:`mobster_core.heals`: reviewing heals (list, accept, reject);
- :mod:`mobster_core.paths`: recorded paths: their stores, list, forget, export, import;
- :mod:`mobster_core.prompts`: what a model adapter translates;
- :mod:`mobster_core.screens`: why an element isn't shown, two reads compared, what a check would write;
- :mod:`mobster_core.exceptions`: the error tree;
- :mod:`mobster_core.testing`: a fake clock, an in-memory journal, ``check_device``;
- :mod:`mobster_core.files`: writing and reading files under ``.mobster/`` as the core does;
- :mod:`mobster_core.text`, :mod:`mobster_core.yaml`: helpers for drivers.

The HTML pages, their pictures and the merge of shards are a consumer of results, in their own
package: ``mobster_report`` (``RunOptions(reporter=mobster_report.HtmlReport())``).

Everything else (modules whose names start with ``_``) is internal: importable, never promised.
"""

import logging as _logging

from ._clock import SystemClock
from ._results.results import CheckResult, SuiteResult
from ._rules.device.device import Action, AppInfo, DeviceInfo, DeviceKind, LaunchOptions, Reset
from ._rules.model.cost import Price, PriceTable
from ._rules.model.model import Decision, DecisionKind, ModelAction, Prompt, Usage
from ._rules.replay.matcher import Match, match_step
from ._rules.replay.settle import PollPolicy
from ._rules.verdict.verdict import FailureClass, Outcome, Verdict
from ._rules.vocabulary.screen import Element, Screen, similarity
from ._rules.vocabulary.steps import Op, Step, Target, load_path
from ._run.check import RunOptions, RunStopped, run_check
from ._run.suite import SuiteStopped, run_suite
from ._store.cache import RecordedPath, recorded_paths
from ._store.checks import Check, find_checks, load_check
from .exceptions import DeviceError, MobsterError, ModelError, UnknownOutcome
from .protocols import Clock, Device, EvidenceReads, Model, Screenshots, TargetChecks

__all__ = [
    "Action",
    "AppInfo",
    "Check",
    "CheckResult",
    "Clock",
    "Decision",
    "DecisionKind",
    "Device",
    "DeviceError",
    "DeviceInfo",
    "DeviceKind",
    "Element",
    "EvidenceReads",
    "FailureClass",
    "LaunchOptions",
    "Match",
    "MobsterError",
    "Model",
    "ModelAction",
    "ModelError",
    "Op",
    "Outcome",
    "PollPolicy",
    "Price",
    "PriceTable",
    "Prompt",
    "RecordedPath",
    "Reset",
    "RunOptions",
    "RunStopped",
    "Screen",
    "Screenshots",
    "Step",
    "SuiteResult",
    "SuiteStopped",
    "SystemClock",
    "Target",
    "TargetChecks",
    "UnknownOutcome",
    "Usage",
    "Verdict",
    "find_checks",
    "load_check",
    "load_path",
    "match_step",
    "recorded_paths",
    "run_check",
    "run_suite",
    "similarity",
]

# The library never configures logging; it only makes sure nothing prints unless asked to.
_logging.getLogger("mobster").addHandler(_logging.NullHandler())
