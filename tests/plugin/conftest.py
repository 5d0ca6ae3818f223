"""The pytest plugin's tests: each runs pytest in-process with ``pytester`` (see ``helpers``)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from .helpers import PAYWALL, SIGNUP, Project, record_paths

#: Modules every inner pytest run would import, imported once here: pytester restores sys.modules
#: after each in-process run, so a module first imported inside one run is imported again (and
#: its asserts rewritten again, with bytecode writes off) by the next: seconds a run.
PRELOADED = (
    "mobster_drivers.models.scripted",
    "mobster_drivers.devices.scripted",
    "mobster_pytest._fixture",
    "mobster_pytest._items",
    "mobster_pytest._session",
)
for _name in PRELOADED:
    importlib.import_module(_name)


@pytest.fixture(scope="session")
def recorded_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample checks' recorded paths, made once (``helpers.record`` copies them)."""
    return record_paths(tmp_path_factory.mktemp("recorded"))


@pytest.fixture
def project(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
    recorded_cache: Path,
    clean_env: None,
) -> Project:
    """A project with the sample app on "Phone A" and the two sample checks; no keys, private locks."""
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # helpers.BASE names the plugins
    locks = tmp_path_factory.mktemp("locks")
    locks.chmod(0o700)
    monkeypatch.setenv("MOBSTER_LOCK_DIR", str(locks))
    p = Project(pytester, recorded_cache)
    p.app("yourapp.yaml")
    p.check("signup", SIGNUP)
    p.check("paywall", PAYWALL)
    return p
