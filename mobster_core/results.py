"""What runs return, in full: a check's result, its steps and heals, a suite's, and their files.

:class:`CheckResult` and :class:`SuiteResult` are also in ``mobster_core``; this module adds the
types of their fields (:class:`FinishedEarly`: steps that ended before the check's last one; an
outcome's :class:`Fix`: a :class:`FixCode` and its arguments, which a front end spells with
:func:`fill` and its own table, or with :func:`spell_fix` for Python; the message and a spelled
fix read as one with :func:`joined`), the ``junit.xml`` writer, and what a reporter reads beside
them: the run's journal (:func:`read_journal`), the ``--frames`` modes (:class:`FramesMode`), the
matcher's thresholds a step's ``similarity`` is read against (:data:`SIMILAR`,
:data:`SIMILAR_SETTLED`), the suite's exit code rule (:func:`suite_exit_code`), and retries and
repeats: which classes are retried (:data:`RETRYABLE`, :func:`retryable`), a retried check's
result (:func:`with_attempts`, each :class:`Attempt`) and a repeated one's :class:`PassRate`
(``docs/retries.md``); and :func:`stopped_suite`, the files of a suite stopped before any check
began (a front end stopped while its devices were being opened).
``to_dict()`` is the stable ``mobster.test/1`` JSON (:data:`SCHEMA`) of ``results.json``, and
``from_dict()`` reads it back, typed; see ``docs/cli.md``. The pages, the
merge of shards and the newest page are ``mobster_report``'s (``docs/reports.md``).
"""

from ._results.frames import FramesMode
from ._results.junit import junit_xml
from ._results.results import (
    RETRYABLE,
    SCHEMA,
    Attempt,
    CheckResult,
    FinishedEarly,
    Mode,
    PassRate,
    StepReport,
    StepSource,
    SuiteResult,
    retryable,
    with_attempts,
)
from ._rules.assertions import AssertionResult
from ._rules.device.controls import VideoMode
from ._rules.model.cost import Cost
from ._rules.replay.matcher import SIMILAR, SIMILAR_SETTLED
from ._rules.verdict.fixes import ARGS as FIX_ARGS
from ._rules.verdict.fixes import Fix, FixCode, fill, joined
from ._rules.verdict.fixes import spell as spell_fix
from ._rules.verdict.verdict import suite_exit_code
from ._run.suite import stopped_suite
from ._store.healfile import HealEntry
from ._store.journal import read_journal

__all__ = [
    "FIX_ARGS",
    "RETRYABLE",
    "SCHEMA",
    "SIMILAR",
    "SIMILAR_SETTLED",
    "AssertionResult",
    "Attempt",
    "CheckResult",
    "Cost",
    "FinishedEarly",
    "Fix",
    "FixCode",
    "FramesMode",
    "HealEntry",
    "Mode",
    "PassRate",
    "StepReport",
    "StepSource",
    "SuiteResult",
    "VideoMode",
    "fill",
    "joined",
    "junit_xml",
    "read_journal",
    "retryable",
    "spell_fix",
    "stopped_suite",
    "suite_exit_code",
    "with_attempts",
]
