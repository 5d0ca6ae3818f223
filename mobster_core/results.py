"""What runs return, in full: a check's result, its steps and heals, a suite's, and their files.

:class:`CheckResult` and :class:`SuiteResult` are also in ``mobster_core``; this module adds the
types of their fields and the ``junit.xml`` writer. ``to_dict()`` is the stable ``mobster.test/1``
JSON (:data:`SCHEMA`) of ``results.json``; see ``docs/cli.md``. :func:`merge_suites` joins shards'
results (``mobster report merge``) and :func:`newest_report` finds the newest page
(``mobster report open``); see ``docs/reports.md``.
"""

from ._rules.assertions import AssertionResult
from ._rules.cost import Cost
from ._run.results import SCHEMA, CheckResult, Mode, StepReport, StepSource, SuiteResult, junit_xml
from ._store.evidence import newest_report
from ._store.healfile import HealEntry
from ._store.merge import MergeError, merge_suites

__all__ = [
    "SCHEMA",
    "AssertionResult",
    "CheckResult",
    "Cost",
    "HealEntry",
    "MergeError",
    "Mode",
    "StepReport",
    "StepSource",
    "SuiteResult",
    "junit_xml",
    "merge_suites",
    "newest_report",
]
