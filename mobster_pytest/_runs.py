"""Running a check for a pytest test: the device of its slot, the run, its reports, its exception.

Rule 1: check items and the ``mobster`` fixture run checks the same way, through :func:`run_for`:
        the slot's device, a model, the run, then the run's ``mobster.*`` properties, its Allure
        steps and its record for pytest-html (``_reports``).
Rule 2: a device or a model that can't be had is the check's :class:`CheckCouldntRun` with the
        class a run would give it (``usage``, ``device``, ``busy``, ``model``), raised with no
        cause or context (``_errors``' Rule 2).
Rule 3: frames per step are kept when a report shows them (``_settings``' Rule 5): each run's record
        names them, for Allure now and pytest-html after the test.
Rule 4: a test's data flows one way: from the item (collection) to the run (the session's device,
        model and clock) to the reports (properties, Allure, the record pytest-html reads after the
        test), and nothing calls back into a room it came from (the plugin's layers contract).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from mobster_core import Check, CheckResult, Model
from mobster_drivers.harness.pool import CouldntOpen

from ._errors import CheckNotPassed
from ._outcomes import couldnt, exception_for
from ._reports import add_properties, allure_steps, step_frames
from ._session import session_of
from ._settings import allure_on
from ._state import RECORDS, RunRecord

__all__ = ["DEFAULT", "run_for"]

#: "Use the session's model" (None means no model).
DEFAULT: Any = object()


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
    result = session.run(check, device=opened.device, model=chosen, options=options)
    run_root = options.root or check.file.parent
    frames = step_frames(result, run_root) if session.settings.step_frames else ()
    record = RunRecord(result, run_root, frames)
    add_properties(node.user_properties, record, config.rootpath)
    node.stash.setdefault(RECORDS, []).append(record)
    if allure_on(config):
        allure_steps(record)
    return record.result, exception_for(record.result, check, root=record.root, rootdir=config.rootpath)
