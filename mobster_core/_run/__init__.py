"""The runners: the only part of the core that awaits the device, the model and the clock.

The one wait loop, reading and sending, the replay, Smart, the heal, a check's run and a
suite's, and the results they return. Every decision comes from ``_rules``; every file goes
through ``_store``.
"""
