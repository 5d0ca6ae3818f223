"""The stores: every file Mobster reads or writes under ``.mobster/`` and beside the checks.

Check files, the replay cache, the heal file and heal state, the run's journal, and the private,
atomic file helpers they all go through. Nothing here awaits (an import-linter contract: no
asyncio, no ``_run``).
"""
