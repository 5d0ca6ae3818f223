"""What every test shares: the hypothesis profiles, and the fixtures more than one module uses.

Fixtures: ``clean_env`` (no key or Mobster setting from the shell), ``project`` (an empty project
as the working folder), ``private_locks``, ``permissive_umask`` and ``no_hang``. Shared data is in
``samples.py``. Every test is followed by the JUnit sweep (``tests/junit_schema.py``): each JUnit
file Mobster (or pytest, with the plugin) wrote in its temporary folders must be valid against
Jenkins' ``junit-10.xsd``.

Hypothesis runs under one of two profiles, chosen by ``HYPOTHESIS_PROFILE`` (default ``dev``):

- ``dev``: 20 examples a property (a fifth of what a test asks for under ``ci``, see
  :func:`tests.strategies.examples`), random ones, with the example database: fast, and it keeps
  finding new cases.
- ``ci``: 100 examples a property, or what the test asks for; derandomized (the examples follow
  from each test's source, so a run never fails on an example no run saw before) and without the
  database; a 1 s deadline an example, as the gate runs a worker per core on two shared cores.
  ``scripts/check.sh`` (``make test``, CI) sets it.
"""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import settings

from tests import junit_schema

settings.register_profile(
    "ci", max_examples=100, derandomize=True, database=None, deadline=timedelta(seconds=1), print_blob=True
)
settings.register_profile("dev", max_examples=20, deadline=timedelta(seconds=1))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


#: The environment the product reads: model keys and endpoints (``ANTHROPIC_*``, ``OPENAI_*``) and
#: Mobster's own settings (``MOBSTER_APPIUM_CAPS``, ``MOBSTER_LOCK_DIR``, ``MOBSTER_WDA_PORT``).
PRODUCT_ENV = ("ANTHROPIC_", "OPENAI_", "MOBSTER_")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """None of ``PRODUCT_ENV`` from the shell: no developer's key or setting reaches the test."""
    for name in list(os.environ):
        if name.startswith(PRODUCT_ENV):
            monkeypatch.delenv(name)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """An empty project as the working folder (``.mobster/checks/``), in a clean environment.

    A module that needs checks or app scripts in it overrides ``project`` with a fixture of the
    same name that takes this one and writes them.
    """
    (tmp_path / ".mobster" / "checks").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def private_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: None) -> Path:
    """Device locks in a folder of the test's own (``MOBSTER_LOCK_DIR``, made by the first lock)."""
    locks = tmp_path / "locks"
    monkeypatch.setenv("MOBSTER_LOCK_DIR", str(locks))
    return locks


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """umask 0 for the test: what Mobster writes is private because Mobster makes it so."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def no_hang(request: pytest.FixtureRequest) -> Iterator[None]:
    """A hang fails the test after the module's ``HANG_SECONDS`` (60 unless it says) instead of blocking CI."""

    def hung(_signum: int, _frame: FrameType | None) -> None:
        raise TimeoutError("hung")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(int(getattr(request.module, "HANG_SECONDS", 60)))
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


#: The fixtures that make a temporary folder (``project`` and the others take ``tmp_path``).
TEMP_FIXTURES = frozenset({"tmp_path", "tmp_path_factory", "pytester"})
#: The folders under the session's base temporary folder the sweep has seen.
_SWEPT: set[str] = set()


@pytest.fixture(autouse=True)
def _junit_sweep(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Rule 2 of ``tests/junit_schema.py``: the JUnit files Mobster wrote in the test's folders validate.

    The folders are those made under the base temporary folder since the last test's sweep: the
    test's own, and any a module's fixture made for it. Off when the schema isn't installed (its
    own tests skip, saying why).
    """
    yield
    if not TEMP_FIXTURES.intersection(request.fixturenames) or _schema_missing():
        return
    base = tmp_path_factory.getbasetemp()
    names = {e.name for e in os.scandir(base) if e.is_dir(follow_symlinks=False)}
    new = sorted(names - _SWEPT)
    _SWEPT.update(names)  # a marked test's folders too: the next test's sweep doesn't take them for its own
    if request.node.get_closest_marker("hand_made_junit"):
        return
    found = [p for f in junit_schema.mobster_junit_files(base / n for n in new) for p in junit_schema.problems(f)]
    if found:
        pytest.fail(
            "Mobster (or pytest with the plugin) wrote JUnit that Jenkins' junit-10.xsd refuses:\n" + "\n".join(found),
            pytrace=False,
        )


@functools.cache
def _schema_missing() -> bool:
    return junit_schema.unavailable() is not None
