"""What every test shares: the hypothesis profiles, and the fixtures more than one layer uses.

Hypothesis runs under one of two profiles, chosen by ``HYPOTHESIS_PROFILE`` (default ``dev``):

- ``dev``: 20 examples a property (a fifth of what a test asks for under ``ci``, see
  :func:`tests.strategies.examples`), random ones, with the example database: fast, and it keeps
  finding new cases.
- ``ci``: 100 examples a property, or what the test asks for; derandomized (the examples follow
  from each test's source, so a run never fails on an example no run saw before) and without the
  database; a 1 s deadline an example, as the gate runs a worker per core on two shared cores.
  ``scripts/check.sh`` (``make test``, CI) sets it.
"""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import settings

settings.register_profile(
    "ci", max_examples=100, derandomize=True, database=None, deadline=timedelta(seconds=1), print_blob=True
)
settings.register_profile("dev", max_examples=20, deadline=timedelta(seconds=1))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
