"""The results format: what a run returns and leaves, and the files it is written to.

Rule 1: a result is data with a stable form: a check's and a suite's (``results``: their
        ``result.json`` and ``results.json``), made of ``parts`` (each step's report, its attempts),
        read back typed (``documents``), and written as ``junit.xml`` (``junit``); the names of a
        run's frame files and the ``--frames`` modes are ``frames``'.
Rule 2: nothing here awaits, reads a clock or knows the runner: the runner (``_run``) makes the
        values, the front ends and reporters read them. A heal in a result is the heal file's
        entry (``_store/healfile``): this room stands on the stores, never they on it.
Rule 3: its rooms stand in one direction (an import contract): ``junit`` on ``results``, the
        results on their reader (``documents``), the reader on the ``parts``.
"""
