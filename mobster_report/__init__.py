"""Mobster replay's reports: the HTML pages of runs and suites, their pictures, and the merge of shards.

A consumer of results, outside the engine (``mobster_core`` knows only the small
``mobster_core.protocols.Reporter`` protocol and never imports this package):

- :class:`HtmlReport`: the reporter ``mobster test`` runs with
  (``RunOptions(reporter=HtmlReport())``): each check run's ``report.html`` with its frames'
  thumbnails and views (made with Pillow: the ``report`` extra, ``mobster-replay[report]``), each suite's
  ``index.html``; :class:`FrameLimits` caps the full frames a run keeps;
- :func:`merge_suites` (``mobster report merge``) joins shards' ``results.json``, ``junit.xml``
  and ``index.html``, raising :class:`MergeError`;
- :func:`newest_report` (``mobster report open``) finds the newest page;
- :func:`heal_evidence` (``mobster test heal``) finds the run that made a heal and its frames
  (:class:`HealFrames`).

See ``docs/reports.md``. Everything else (modules whose names start with ``_``) is internal.
"""

from ._evidence import HealFrames, HtmlReport, heal_evidence, newest_report
from ._frames import FrameLimits
from ._merge import MergeError, merge_suites

__all__ = ["FrameLimits", "HealFrames", "HtmlReport", "MergeError", "heal_evidence", "merge_suites", "newest_report"]
