"""Running a check for a pytest test: the device of its slot, the run, its reports, its exception.

Rule 1: check items and the ``mobster`` fixture run checks the same way, through :func:`run_for`:
        the slot's device, a model, the run, then the run's record (which the test's report turns
        into its facts, ``_reports``' Rule 1, and pytest-html reads) and its Allure steps.
Rule 2: a device or a model that can't be had is the check's :class:`CheckCouldntRun` with the
        class a run would give it (``usage``, ``device``, ``busy``, ``model``), raised with no
        cause or context (``_errors``' Rule 2).
Rule 3: frames per step are kept when a report shows them (``_settings``' Rule 5): each run's record
        names them, for Allure now and pytest-html after the test.
Rule 5: with ``--mobster-retries N``, a run that couldn't run for a class of the machine
        (``mobster_core.results.retryable``: ``device``, ``busy``, ``environment``) is run again in
        the same test, up to N times more, on the test's own device (the worker's: the others are
        other workers'), each attempt with a new model and its own run folder; never a drift, a
        failed assertion or an unknown outcome. The test's result is ``with_attempts`` of them:
        the last attempt's, its attempts listed, costs summed, ``flaky`` when it passed so.
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
from mobster_core.results import retryable, with_attempts
from mobster_harness import CouldntOpen

from ._errors import CheckNotPassed
from ._outcomes import couldnt, exception_for
from ._reports import allure_steps, step_frames
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
    repeat: tuple[int, int] | None = None,
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
    runs = [session.run(check, device=opened.device, model=chosen, options=options)]
    while len(runs) <= session.settings.harness.retries and retryable(runs[-1]):  # Rule 5
        try:
            chosen = session.model() if model is DEFAULT else model
        except CouldntOpen as exc:
            raise couldnt(exc.failure_class, exc.message) from None
        runs.append(session.run(check, device=opened.device, model=chosen, options=options))
    result = with_attempts(runs)
    if repeat is not None:
        result = attrs.evolve(result, repeat=repeat)
    run_root = options.root or check.file.parent
    frames = step_frames(result, run_root) if session.settings.step_frames else ()
    record = RunRecord(result, run_root, frames)
    node.stash.setdefault(RECORDS, []).append(record)
    if allure_on(config):
        allure_steps(record)
    return record.result, exception_for(record.result, check, root=record.root, rootdir=config.rootpath)
