"""What runs return, in full: a check's result, its steps and heals, a suite's, and their files.

:class:`CheckResult` and :class:`SuiteResult` are also in ``mobster_core``; this module adds the
types of their fields, the ``junit.xml`` writer, and what a reporter reads beside them: the run's
journal (:func:`read_journal`), the ``--frames`` modes (:class:`FramesMode`), the matcher's
thresholds a step's ``similarity`` is read against (:data:`SIMILAR`, :data:`SIMILAR_SETTLED`) and
the suite's exit code rule (:func:`suite_exit_code`). ``to_dict()`` is the stable
``mobster.test/1`` JSON (:data:`SCHEMA`) of ``results.json``; see ``docs/cli.md``. The pages, the
merge of shards and the newest page are ``mobster_report``'s (``docs/reports.md``).
"""

from ._rules.assertions import AssertionResult
from ._rules.cost import Cost
from ._rules.frames import FramesMode
from ._rules.matcher import SIMILAR, SIMILAR_SETTLED
from ._rules.verdict import suite_exit_code
from ._run.results import SCHEMA, CheckResult, Mode, StepReport, StepSource, SuiteResult, junit_xml
from ._store.healfile import HealEntry
from ._store.journal import read_journal

__all__ = [
    "SCHEMA",
    "SIMILAR",
    "SIMILAR_SETTLED",
    "AssertionResult",
    "CheckResult",
    "Cost",
    "FramesMode",
    "HealEntry",
    "Mode",
    "StepReport",
    "StepSource",
    "SuiteResult",
    "junit_xml",
    "read_journal",
    "suite_exit_code",
]
