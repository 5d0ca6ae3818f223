"""Mobster replay under pytest: check files as items, a ``mobster`` fixture, one device per xdist worker.

Install ``mobster[pytest]``; pytest loads the plugin by itself (``mobster_pytest.plugin``). Then
``pytest --mobster-scripted apps/yourapp.yaml`` runs every ``.mobster/checks/*.yaml`` as an item,
and a test can run checks itself::

    def test_signup(mobster):
        result = mobster.run("signup")  # raises CheckFailed / CheckCouldntRun / CheckOutcomeUnknown
        assert result.model_calls == 0

See ``docs/pytest.md``. This module imports nothing of Mobster: the plugin is loaded by every
pytest run in a project where mobster is installed.
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
