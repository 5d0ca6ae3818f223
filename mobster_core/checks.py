"""Check files and the project that holds them.

A project is a folder with ``.mobster/``; its checks are the ``*.yaml`` files of
``.mobster/checks/``. :func:`load_check` reads one strictly (every problem a
:class:`~mobster_core.exceptions.CheckError` naming the file, line and key); :func:`shard` picks
every N-th of them for one of N machines; :func:`parse_alert_policy` reads a system-alert policy
(``docs/alerts.md``); :func:`secret_names` lists the ``${NAME}`` secrets a check names (what a
CI job must pass it); :func:`read_user_file` reads a user's file (regular files only, size-capped,
never blocking on a FIFO); :func:`push_problem` says what is wrong with a push payload (at most
:data:`MAX_PUSH_BYTES`, a JSON object with an ``aps`` object). The format is in ``docs/checks.md``.
"""

from ._rules.device.alerts import SERVICES as ALERT_SERVICES
from ._rules.device.alerts import AlertMode, AlertPolicy, AlertProblem, parse_alerts
from ._rules.device.controls import AUDIT_TYPES, CONTENT_SIZES, MAX_PUSH_BYTES, audit_type_name, push_problem
from ._rules.device.secrets import references
from ._rules.formats.yaml import dotted
from ._run.suite import parse_shard, shard
from ._store.checks import Budget, Check, CheckApp, CheckLaunch, find_checks, load_check, load_check_text, project_of
from ._store.flows import Flow, FlowInput, find_flows, load_flow
from ._store.fsutil import find_project_root, read_user_file
from ._store.rows import Row
from .exceptions import CheckError

__all__ = [
    "ALERT_SERVICES",
    "AUDIT_TYPES",
    "CONTENT_SIZES",
    "MAX_PUSH_BYTES",
    "AlertMode",
    "AlertPolicy",
    "Budget",
    "Check",
    "CheckApp",
    "CheckError",
    "CheckLaunch",
    "Flow",
    "FlowInput",
    "Row",
    "audit_type_name",
    "find_checks",
    "find_flows",
    "find_project_root",
    "load_check",
    "load_check_text",
    "load_flow",
    "parse_alert_policy",
    "parse_shard",
    "project_of",
    "push_problem",
    "read_user_file",
    "secret_names",
    "shard",
]


def parse_alert_policy(value: object, where: str = "alerts") -> AlertPolicy:
    """The system-alert policy ``value`` says (``"accept"``, ``{"allow": ["location"]}``; ``docs/alerts.md``).

    ``ValueError`` naming ``where`` (and the key below it) and the fix when it is bad.
    """
    try:
        return parse_alerts(value)
    except AlertProblem as exc:
        raise ValueError(f"{dotted((where, *exc.keys))}: {exc.problem}; {exc.fix}") from exc


def secret_names(check: Check) -> tuple[str, ...]:
    """The ``${NAME}`` secrets ``check`` names, each once, in the order they first appear.

    The places a run reads them from (``docs/checks.md``): its steps, and its launch values
    (``launch.args``, ``launch.env``'s values, ``launch.url``). A run without one of them set
    can't run (class ``usage``); a CI job passes each from the repository's secrets.
    A row's names (``rows``) are the row's values, not secrets; the references a row's values
    hold (``${PAID_PASSWORD}``) are.
    """
    launch = check.launch
    names = {n for row in check.rows for n in row.values}
    found = [n for n in references([*check.steps, *launch.args, *launch.env.values(), launch.url]) if n not in names]
    in_rows = references([v for row in check.rows for v in row.values.values()])
    return tuple(dict.fromkeys([*found, *in_rows]))
