"""The harness both front ends share: everything after their own option parsing.

The ``mobster`` command and the pytest plugin parse their own options (and spell them in their
messages) and hand what they mean here, by concept:

- :mod:`~mobster_harness.spec`: the one device spec (``DeviceSpec``), the device options
  as given (``DeviceOptions``) and the pool's specs they make (``pool_specs``); standard library
  only, so the plugin imports it when pytest starts;
- :mod:`~mobster_harness.settings`: the one neutral ``Settings`` value (the devices, heal
  and record modes, the model named, the budget, frames, timing, …) and the ``RunOptions`` it
  makes; standard library only when imported;
- :mod:`~mobster_harness.config`: the project config (``mobster.toml`` or
  ``[tool.mobster]``), its profiles and its keys, checked as the options are; standard library
  only when imported;
- :mod:`~mobster_harness.models`: the one model chooser and its defaults;
- :mod:`~mobster_harness.pool`: opening a device (locked when it is a real one) and
  pools, and suites on them;
- ``_lock``: the device locks.
"""
