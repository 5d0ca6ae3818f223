"""Fixtures shared by the core tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mobster_core._report import RunReport
from tests.core.report_runs import scenarios


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[RunReport, dict[str, Any]]]:
    """Five real runs of the demo app (record, replay, heal, drift, a failed assertion) as report inputs.

    Built once a session: they run ``run_check`` on the scripted phone and model, on a FakeClock.
    """
    return scenarios(Path(tmp_path_factory.mktemp("report-runs")))
