"""Mobster replay under pytest: check files as items, a ``mobster`` fixture, one device per xdist worker.

Install the ``pytest`` extra (``mobster-replay[pytest]``); pytest loads the plugin by itself
(``mobster_pytest.plugin``). Then ``pytest --mobster-scripted apps/yourapp.yaml`` runs every
``.mobster/checks/*.yaml`` as an item, and a test can run checks itself::

    def test_signup(mobster):
        result = mobster.run("signup")  # raises CheckFailed / CheckCouldntRun / CheckOutcomeUnknown
        assert result.model_calls == 0

See ``docs/pytest.md``. This module imports nothing of Mobster: the plugin is loaded by every
pytest run in a project where mobster is installed.

What comes after option parsing is the harness's, shared with ``mobster test``
(``mobster_harness``: the one device spec and pool, the model chooser, the settings value
that makes ``RunOptions``); the plugin keeps its own options, ini keys and spelling. Its rooms
stand in layers, each importing only those below it (an import-linter ``layers`` contract holds
them, so a cycle or a back-edge breaks the gate)::

    plugin                 the hooks: options, collection, xdist, reruns, the summary
    _items | _fixture      collection (check files as items) | the mobster fixture: where a test starts
    _runs                  a test's run: the slot's device, a model, the run, its record and reports
    _reports               what a run adds to pytest's reports: properties, Allure, pytest-html
    _outcomes              a result as the exception pytest shows, with its file and line
    _session               the process's clock and loop, its devices and models
    _state                 pytest's stash: the settings, the session, a test's RunRecords
    _settings              options and ini keys read into the harness's Settings, once
    _errors                the exceptions a check that didn't pass raises

An item's data flows one way: collected (``_items``), run (``_runs`` asks ``_session`` for the
device, the model and the run, and makes the :class:`~._state.RunRecord`), reported (``_runs``
gives the record to ``_reports`` and ``_outcomes``; after the test, the plugin's pytest-html hook
reads the records from the item's stash). No room calls back into one it came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import CheckCouldntRun, CheckFailed, CheckNotPassed, CheckOutcomeUnknown

if TYPE_CHECKING:
    from ._fixture import Mobster

# Shown as ``mobster_pytest.CheckFailed`` in tracebacks and summaries, the name users import.
for _cls in (CheckCouldntRun, CheckFailed, CheckNotPassed, CheckOutcomeUnknown):
    _cls.__module__ = __name__

__all__ = ["CheckCouldntRun", "CheckFailed", "CheckNotPassed", "CheckOutcomeUnknown", "Mobster"]


def __getattr__(name: str) -> Any:
    # ``Mobster`` (the fixture's type) imports the core: only when asked for.
    if name == "Mobster":
        from ._fixture import Mobster

        return Mobster
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
