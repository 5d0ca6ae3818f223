"""The harness: one door into a run for every front end, above the drivers and the report.

The ``mobster`` command (``test``, ``verify``, ``inspect``, ``--list``, ``mcp``, the demo), the
pytest plugin and the MCP server parse their own options (and spell them in their messages), say
what they mean in one :class:`Settings` (:meth:`Settings.from_values`) and get everything after
from one :class:`Harness` (:mod:`~mobster_harness.door`): the devices it opens, the models it
makes ready and the run options, with the report, it gives. By concept:

- :mod:`~mobster_harness.door`: :class:`Harness`, the door;
- :mod:`~mobster_harness.spec`: the one device spec (``DeviceSpec``), the device options as given
  (``DeviceOptions``) and the pool's specs they make (``pool_specs``);
- :mod:`~mobster_harness.settings`: the one neutral ``Settings`` value (the devices, heal and
  record modes, the model named, the budget, frames, timing, …), its one mapper from options and
  config (``from_values``) and the ``RunOptions`` it makes;
- :mod:`~mobster_harness.config`: the project config (``mobster.toml`` or ``[tool.mobster]``), its
  profiles and its keys, checked as the options are;
- :mod:`~mobster_harness.envfile`: env files (``--env-file``, the config's ``env-file``);
- :mod:`~mobster_harness.models`: the one model chooser and its defaults;
- :mod:`~mobster_harness.pool`: opening a device (locked when it is a real one) and pools, and
  suites on them; :mod:`~mobster_harness.threads` the threads their calls run in; ``_lock`` the
  device locks.

Importing the package, ``door``, ``spec``, ``settings``, ``config`` or ``envfile`` imports the
standard library only: the pytest plugin reads its options when pytest starts, in every project
where mobster is installed. The names of ``pool`` and ``models`` below are imported when first
asked for (module ``__getattr__``), so a front end takes every name from this door and
``pytest --help`` still imports neither attrs nor the core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .door import Harness
from .settings import Settings, Timing
from .spec import DeviceOptions, DeviceSpec, PoolError

if TYPE_CHECKING:
    from .models import DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, Models, default_model
    from .pool import CouldntOpen, OpenDevice, Opening, Pool, run_on_pool, unavailable

__all__ = [
    "DEFAULT_ANTHROPIC_MODEL",
    "DEFAULT_OPENAI_MODEL",
    "CouldntOpen",
    "DeviceOptions",
    "DeviceSpec",
    "Harness",
    "Models",
    "OpenDevice",
    "Opening",
    "Pool",
    "PoolError",
    "Settings",
    "Timing",
    "default_model",
    "run_on_pool",
    "unavailable",
]

#: The names imported when first asked for, and their module (the core and attrs come with them).
_LATER = {
    "DEFAULT_ANTHROPIC_MODEL": "models",
    "DEFAULT_OPENAI_MODEL": "models",
    "Models": "models",
    "default_model": "models",
    "CouldntOpen": "pool",
    "OpenDevice": "pool",
    "Opening": "pool",
    "Pool": "pool",
    "run_on_pool": "pool",
    "unavailable": "pool",
}


def __getattr__(name: str) -> Any:
    """A name of ``pool`` or ``models``, imported now (it is looked up each time: a test may patch it there)."""
    module = _LATER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
