"""The pure rules of the core, in rooms by concept.

Rule 1: nothing here touches a file, awaits, or reads a clock: a rule takes what it needs (``now``
        included) and returns a value. Import contracts hold it (no asyncio, os, datetime,
        ``_store``, ``_results`` or ``_run``); the one reading of ``time`` is the regexes' CPU
        meter (``assertions/work``).
Rule 2: the rooms stand in layers, bottom up, and an import contract holds the order:
        ``formats`` (text, canonical JSON, the strict YAML reader and its base for a file's
        schema); ``vocabulary`` (a read of the screen and a recorded step: what every room speaks
        of); ``device`` (a device's facts and actions, its settings, alerts, keyboard and
        secrets); ``safety`` (what an action commits, and what a device refuses); ``assertions``,
        ``replay`` and ``model``, none of which imports another (what a check expects; which path
        replays, when a step matches, what it may do; what a model is told and answers);
        ``verdict`` on top (the outcome and what to do about it).
Rule 3: each room opens with its rules (its ``__init__``); no module is much over 400 lines and no
        room much over 2,000.
"""
