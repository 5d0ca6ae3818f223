"""The replay engine: which path a check replays, when a step matches, and what it may do.

Rule 1: a path is found by the check's identity and the env it was recorded in (``identity``).
Rule 2: a step matches a read by the matcher's rules (``matcher``); every wait for one is a pure
        wait (``settle``), driven by the runner's one wait loop.
Rule 3: what is typed is recorded by its provenance (``typing_rules``); what an action commits,
        and what a device refuses, is the ``safety`` room's.
Rule 4: the heals of a run stop at the breaker's limits (``breaker``).
Rule 5: this room stands on ``safety``, ``device``, ``vocabulary`` and ``formats``; it knows no
        assertion, model or verdict.
"""
