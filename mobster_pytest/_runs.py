"""Running a check for a pytest test: the device of its slot, the run, its reports, its exception.

Rule 1: check items and the ``mobster`` fixture run checks the same way, through :func:`run_for`:
        the slot's device, a model, the run, then the run's ``mobster.*`` properties, its Allure
        steps and its record for pytest-html (``_reports``).
Rule 2: a device or a model that can't be had is the check's :class:`CheckCouldntRun` with the
        class a run would give it (``usage``, ``device``, ``busy``, ``model``), raised with no
        cause or context (``_errors``' Rule 2).
Rule 3: frames per step are kept when a report shows them: ``--mobster-step-frames on``, or ``auto``
        (the default) with Allure (``--alluredir``) or pytest-html (``--html``) on.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from mobster_core import Check, CheckResult, Model

from ._devices import CouldntOpen
from ._errors import CheckNotPassed
from ._outcomes import couldnt, exception_for
from ._reports import add_properties, allure_steps
from ._settings import FramesMode
from ._state import RECORDS, allure_on, html_on, session_of, settings_of

__all__ = ["DEFAULT", "frames_wanted", "run_for"]

#: "Use the session's model" (None means no model).
DEFAULT: Any = object()


def frames_wanted(config: pytest.Config) -> bool:
    """Rule 3."""
    mode = settings_of(config).step_frames
    if mode is FramesMode.AUTO:
        return allure_on(config) or html_on(config)
    return mode is FramesMode.ON


def run_for(  # noqa: PLR0913 - the test, the check, where it runs, and how: each is the caller's to say
    node: pytest.Item,
    check: Check,
    *,
    root: Path,
    slot: int | None,
    model: Model | None = DEFAULT,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[CheckResult, CheckNotPassed | None]:
    """Run ``check`` for the test ``node`` (Rule 1): its result, and the exception it makes (None: passed)."""
    config = node.config
    session = session_of(config)
    try:
        opened = session.device(session.slot(slot))
        chosen = session.model() if model is DEFAULT else model
    except CouldntOpen as exc:
        raise couldnt(exc.failure_class, exc.message) from None
    options = attrs.evolve(session.options(root), **dict(overrides or {}))
    record = session.run(check, device=opened.device, model=chosen, options=options, frames=frames_wanted(config))
    add_properties(node.user_properties, record, config.rootpath)
    node.stash.setdefault(RECORDS, []).append(record)
    if allure_on(config):
        allure_steps(record)
    return record.result, exception_for(record.result, check, root=record.root, rootdir=config.rootpath)
