"""Fixtures shared by the core tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.report_runs import Runs, scenarios


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Five real runs of the demo app (record, replay, heal, drift, a failed assertion) as report inputs.

    Built once a session: they run ``run_check`` on the scripted phone and model, on a FakeClock.
    """
    return scenarios(Path(tmp_path_factory.mktemp("report-runs")))
