"""The pure rules of the core.

Screens and steps, the matcher, every timing policy, identity, typing, safety, the breaker,
assertions and the verdict, cost, prompts, the names of a run's frames, and the text and YAML
helpers. Nothing here touches a file, awaits, or reads a clock: a rule takes what it needs
(``now`` included) and returns a value. An import-linter contract holds it (no asyncio, os,
datetime, ``_store`` or ``_run``).
"""
