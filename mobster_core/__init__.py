"""Mobster replay: end-to-end checks of iOS apps that replay a passed path with zero model calls.

The core is pure: it decides, and a thin runner carries the decisions out on a
:class:`~mobster_core.protocols.Device`. See ``docs/architecture.md``.
"""

from __future__ import annotations

import logging

from ._clock import SystemClock
from ._device import SPRINGBOARD, Action, AppInfo, DeviceInfo, DeviceKind, LaunchOptions, Reset
from ._matcher import Match, match_step
from ._model import Decision, DecisionKind, ModelAction, Prompt, Usage
from ._screen import DEFAULT_SCREEN_SIZE, Element, Screen, similarity
from ._steps import Commit, Op, ScreenRef, Step, Target, dump_path, load_path
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
    "Element",
    "LaunchOptions",
    "Match",
    "MobsterError",
    "Model",
    "ModelAction",
    "ModelError",
    "Op",
    "PathError",
    "Prompt",
    "Reset",
    "Screen",
    "ScreenRef",
    "Screenshots",
    "ScriptError",
    "Step",
    "SystemClock",
    "Target",
    "UnknownOutcome",
    "Usage",
    "dump_path",
    "load_path",
    "match_step",
    "similarity",
]

# The library never configures logging; it only makes sure nothing prints unless asked to.
logging.getLogger("mobster").addHandler(logging.NullHandler())
