"""What each tool answers, as the output schemas ``tools/list`` publishes (MCP's ``outputSchema``).

The SDK derives each tool's ``outputSchema`` from the type its function is annotated to return
(``Annotated[CallToolResult, ScreenRead]``) and checks every answer's structured content against
it before it is sent.

Rule 1: an answer of the server's own is closed: a key the schema doesn't name is an error in the
        server, never sent (``extra="forbid"``; ``additionalProperties: false`` in the schema).
Rule 2: ``run_check``'s answer is a check's result as ``results.json`` writes it (``mobster.test/1``)
        plus ``report``: its keys are required and typed here, and it stays open to the keys a later
        version adds, as every reader of ``results.json`` must be.
Rule 3: a key an answer has only sometimes (an element's ``value``, a check file that can't be
        read and says why) is optional; one it always has, even as null, is required.
Rule 4: the annotations are the types themselves, not their names (no ``from __future__ import
        annotations``): pydantic would otherwise look the names up in ``sys.modules`` when a
        server is built, and a server built after this module left ``sys.modules`` (an
        in-process pytest run restores it as it found it) published no output schema at all.
"""

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

__all__ = [
    "Acted",
    "CheckRun",
    "Checks",
    "Decided",
    "Devices",
    "Heals",
    "Recorded",
    "RecordingStarted",
    "RecordingStopped",
    "Rejected",
    "ScreenRead",
]

_CLOSED = ConfigDict(extra="forbid")

Verdict = Literal["passed", "failed", "needs_review", "couldnt_run"]


@with_config(_CLOSED)
class Element(TypedDict):
    """One shown element: its path (what act's target takes), role and label, and what else it says."""

    path: str
    role: str
    label: str
    value: NotRequired[str]
    id: NotRequired[str]
    placeholder: NotRequired[str]
    enabled: NotRequired[bool]
    selected: NotRequired[bool]


@with_config(_CLOSED)
class Screen(TypedDict):
    """The settled screen: the app in front and its shown elements, in tree order."""

    app: str
    elements: list[Element]
    cut: NotRequired[str]


@with_config(_CLOSED)
class Recording(TypedDict):
    """Whether actions are being recorded, and the words of the steps recorded so far."""

    on: bool
    steps: list[str]


@with_config(_CLOSED)
class Device(TypedDict):
    """The device served: its label and kind, and what it says of itself once opened."""

    label: str
    kind: str
    name: NotRequired[str]
    ios: NotRequired[str]
    device_kind: NotRequired[str]
    opened: NotRequired[bool]


@with_config(_CLOSED)
class Devices(TypedDict):
    """list_devices: the one device this server drives."""

    devices: list[Device]


@with_config(_CLOSED)
class ScreenRead(TypedDict):
    """read_screen: the settled screen, and the recording."""

    app: str
    elements: list[Element]
    cut: NotRequired[str]
    recording: Recording


@with_config(_CLOSED)
class Acted(TypedDict):
    """act: what was done, whether it became a step, and the settled screen after it."""

    done: str
    recorded: bool
    screen: Screen
    recording: Recording


@with_config(_CLOSED)
class RecordingStarted(TypedDict):
    """start_recording: the recording, and the screen the app launched to."""

    recording: Recording
    screen: Screen


@with_config(_CLOSED)
class RecordingStopped(TypedDict):
    """stop_recording: how many recorded steps were dropped."""

    dropped_steps: int
    recording: Recording


@with_config(_CLOSED)
class Assertion(TypedDict):
    """One expectation, as the verdict judged it."""

    text: str
    ok: bool
    observed: str


@with_config(_CLOSED)
class Recorded(TypedDict):
    """record_check: the check written, its steps, where its path is kept and how to replay it."""

    verdict: Verdict
    file: str
    name: str
    steps: list[str]
    paths_store: str
    assertions: list[Assertion]
    replay: str


#: Rule 2: ``results.json``'s keys for one check (``class`` is a keyword: the functional form).
CheckRun = TypedDict(
    "CheckRun",
    {
        "name": str,
        "file": str,
        "verdict": Verdict,
        "class": str | None,
        "message": str,
        "step": int | None,
        "mode": str | None,
        "seconds": float,
        "cost_usd": float,
        "model_calls": int,
        "steps": list[dict[str, Any]],
        "heals": list[dict[str, Any]],
        "assertions": list[dict[str, Any]],
        "healed_steps": int,
        "replayed_with_no_model": bool,
        "run_dir": str | None,
        "report": str | None,
    },
)
CheckRun.__pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[attr-defined]
CheckRun.__doc__ = (
    "run_check: the check's result as results.json writes it (mobster.test/1, open to later keys), "
    "and report, the path of its report.html (null when none was written)."
)


@with_config(_CLOSED)
class CheckRow(TypedDict):
    """One check file: its name, steps, expectations, tags and heals waiting; or why it can't be read."""

    file: str
    name: NotRequired[str]
    steps: NotRequired[list[str]]
    expect: NotRequired[list[str]]
    tags: NotRequired[list[str]]
    heals_waiting: NotRequired[int]
    problem: NotRequired[str]
    #: The flows its steps use (docs/flows.md), in order.
    uses: NotRequired[list[str]]
    #: Its rows' labels: each row runs as the check named ``name [label]``.
    rows: NotRequired[list[str]]


@with_config(_CLOSED)
class FlowRow(TypedDict):
    """One flow file: its name, inputs and steps, the heals waiting beside it; or why it can't be read."""

    file: str
    name: str
    inputs: NotRequired[list[str]]
    steps: NotRequired[list[str]]
    heals_waiting: NotRequired[int]
    problem: NotRequired[str]


@with_config(_CLOSED)
class Checks(TypedDict):
    """list_checks: the project's checks, and apart from them its flows (a flow is never a check)."""

    checks: list[CheckRow]
    flows: NotRequired[list[FlowRow]]


#: One heal waiting for review (``from`` is a keyword: the functional form).
HealRow = TypedDict(
    "HealRow",
    {
        "check": str,
        "file": str,
        "step": int,
        "from": str,
        "to": str,
        "why": str,
        "in_use": bool,
        "gone": list[list[str]],
        "came": list[list[str]],
        "not_in_use": str | None,
    },
)
HealRow.__pydantic_config__ = _CLOSED  # type: ignore[attr-defined]
HealRow.__doc__ = "One heal waiting for review: its check, step, what it was and became, and how the screen changed."


@with_config(_CLOSED)
class Heals(TypedDict):
    """list_heals: the heals waiting for review."""

    heals: list[HealRow]


@with_config(_CLOSED)
class Decided(TypedDict):
    """accept_heal: the check, and how many of its heals are now its recorded path."""

    check: str
    accepted: int


@with_config(_CLOSED)
class Rejected(TypedDict):
    """reject_heal: the check, and how many of its heals were rejected."""

    check: str
    rejected: int
