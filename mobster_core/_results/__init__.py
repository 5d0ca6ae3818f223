"""The results format: what a run returns and leaves, and the files it is written to.

A check's result and a suite's (``results``: ``result.json``, ``results.json`` and ``junit.xml``),
read back typed (``documents``), and the names of a run's frame files (``frames``). Nothing here
awaits or reads a clock: the runner (``_run``) makes the values, the reporters read them.
"""
