"""How a check is run: the options a caller gives, and what every phase of one run shares.

Rule 1: :class:`RunOptions` is frozen: the same options run a whole suite.
Rule 2: :class:`Run` is built once per check run and never changes; the phases read it and
        return values of their own. Its dispatcher and model calls are the run's two records of
        effects (what was sent, what the model cost): they are written only through their methods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from mobster_core._results.frames import FramesMode
from mobster_core._results.results import CheckResult
from mobster_core._rules.device.alerts import AlertPolicy
from mobster_core._rules.device.controls import VideoMode
from mobster_core._rules.device.device import Platform, normal_locale
from mobster_core._rules.model.cost import PriceTable
from mobster_core._rules.replay.settle import DEFAULT_POLICY, PollPolicy
from mobster_core._rules.replay.typing_rules import Provenance
from mobster_core._store.cache import RecordedBy
from mobster_core._store.checks import Check
from mobster_core._store.lease import LeasePolicy
from mobster_core._store.pathstores import PATH_STORE_MEMBERS, missing_members
from mobster_core.protocols import Clock, Device, PathStore, Reporter

from .agent import ModelCalls
from .dispatch import Dispatcher

__all__ = ["Run", "RunOptions"]


def _check_paths(value: object) -> None:
    """``paths`` is a store's name or a whole ``PathStore`` (one written before its documents says what it lacks)."""
    if isinstance(value, str) and value not in ("local", "committed"):
        raise ValueError(f"paths is 'local', 'committed' or a PathStore, not {value!r}")
    if not isinstance(value, str) and not isinstance(value, PathStore):
        lacks = missing_members(value)
        said = f" (it has no {', '.join(lacks)})" if lacks and len(lacks) < len(PATH_STORE_MEMBERS) else ""
        raise TypeError(f"paths is 'local', 'committed' or a PathStore, not {type(value).__name__}{said}")


@attrs.frozen
class RunOptions:
    """How to run checks (Rule 1).

    ``no_heal``: strict CI, a changed step fails (class ``drift``) and no model is asked.
    ``fresh``: record again with Smart. ``carry``: replay the newest path of another env (a new
    build) when this env has none. ``max_usd`` caps each check's model spend (the lower of it and
    the check's ``budget.max_usd``). ``prices`` prices the model's tokens. ``timing`` times every
    wait of a step (``policy``, its old name, is deprecated: given, it is the timing, and reading
    ``options.policy`` reads ``timing``). ``screenshots``: give the model a picture and keep the last frame, when the
    device takes screenshots. ``reporter`` presents each check's result and each suite's once
    they are written (``mobster_report.HtmlReport``: ``report.html`` and ``index.html``); with
    none, no page is written and no frame taken. ``frames`` (``auto``, ``all``, ``failed``,
    ``none``) says which frames the reporter keeps (see docs/reports.md); ``none`` takes none.
    Frames need ``screenshots`` and a reporter.
    ``root`` is the project folder (the one holding ``.mobster/``); by
    default the one holding the check file, else the check file's folder. ``on_sent`` is called
    with a line per action sent (``step 2 (Tap "Sign up")``), ``on_sending`` with the same line
    as the action goes out and with None when its reply came (what a stopped run was waiting
    for), and ``on_result`` with each check's result once it is written, for progress output.
    ``each_device`` (suites only): run every check on every device, one result per check and
    device, instead of each check once on the next free device. ``device_label`` is the pool's
    name for the device a run is on (``sim-2``, ``127.0.0.1:4723#3``), written in its result; a
    suite sets it per device. ``secrets`` is where a check's ``${NAME}`` references get their
    values (``docs/checks.md``): None reads the process environment; a front end passes the
    environment with its env file over it. ``locale`` asks every check for that locale (over a
    check's own ``launch.locale``; ``protocols.LocaleLaunches`` says where it can be applied).
    ``paths`` is where recorded paths are kept and read: ``"local"`` (private, git-ignored),
    ``"committed"`` (``.mobster/paths/``, tracked in git) or a ``protocols.PathStore``.
    ``retries`` (suites only) tries a check that couldn't run for a class of the machine
    (``device``, ``busy``, ``environment``) up to that many times more, on another device of the
    pool when there is one; ``repeat`` (suites only) runs each check that many times, each run its
    own result (see docs/retries.md).
    ``alerts`` answers every check's system alerts by this policy (``docs/alerts.md``) over the
    check's own ``alerts:``; None (the default) leaves each check's.
    ``video`` (``off``, ``on``, ``retain-on-failure``) records the screen into the run folder on a
    device that records (``protocols.Recordings``; ``_run/controls`` Rule 2).
    ``platform`` (suites only: ``ios``, ``android``) runs the checks on that platform's devices of
    the pool only; None (the default) runs each check once on each platform the pool holds
    (``_run/suite`` Rule 14).
    ``recorder`` names this machine and CI build in each path it records (``paths.RecordedBy``:
    the device and the model are the run's own). ``lease`` (a ``paths.LeasePolicy``) makes a run
    that must record take the store's recording lease of the identity and env first, or wait for
    the machine that holds it and replay what it stores (docs/paths.md); None takes none.
    """

    no_heal: bool = False
    fresh: bool = False
    carry: bool = False
    max_usd: float | None = None
    prices: PriceTable = attrs.field(factory=PriceTable)
    timing: PollPolicy = DEFAULT_POLICY
    screenshots: bool = True
    frames: FramesMode = attrs.field(default=FramesMode.AUTO, converter=FramesMode)
    reporter: Reporter | None = attrs.field(default=None, eq=False)
    root: Path | None = None
    each_device: bool = False
    device_label: str | None = None
    locale: str | None = attrs.field(default=None, converter=attrs.converters.optional(normal_locale))
    paths: str | PathStore = "local"
    alerts: AlertPolicy | None = None
    video: VideoMode = attrs.field(default=VideoMode.OFF, converter=VideoMode)
    secrets: Mapping[str, str] | None = attrs.field(default=None, eq=False, repr=False)
    on_sent: Callable[[str], None] | None = attrs.field(default=None, eq=False)
    on_sending: Callable[[str | None], None] | None = attrs.field(default=None, eq=False)
    on_result: Callable[[CheckResult], None] | None = attrs.field(default=None, eq=False)
    retries: int = attrs.field(default=0, validator=[attrs.validators.instance_of(int), attrs.validators.ge(0)])
    repeat: int = attrs.field(default=1, validator=[attrs.validators.instance_of(int), attrs.validators.ge(1)])
    platform: Platform | None = attrs.field(default=None, converter=attrs.converters.optional(Platform))
    recorder: RecordedBy = attrs.field(factory=RecordedBy, eq=False)  # who records: informational
    lease: LeasePolicy | None = None
    #: Deprecated: ``timing``'s old name, taken as ``RunOptions(policy=...)`` and never kept (see ``timing``).
    _policy: PollPolicy | None = attrs.field(default=None, alias="policy", eq=False, repr=False, kw_only=True)

    def __attrs_post_init__(self) -> None:
        _check_paths(self.paths)
        if self._policy is not None:  # the old name wins, so attrs.evolve(options, policy=...) still works
            object.__setattr__(self, "timing", self._policy)
            object.__setattr__(self, "_policy", None)

    @property
    def policy(self) -> PollPolicy:
        """Deprecated: ``timing``'s old name (``Dispatcher(timing=)`` and the settings already call it so)."""
        return self.timing


@attrs.frozen
class Run:
    """What the phases of one check run share (Rule 2)."""

    check: Check
    device: Device
    clock: Clock
    root: Path
    options: RunOptions
    dispatch: Dispatcher
    calls: ModelCalls | None
    #: The run's folder, relative to the project (``.mobster/runs/<run_id>``): what its heals name.
    run_dir: str | None = None
    provenance: Provenance = attrs.field(init=False)

    @provenance.default
    def _provenance(self) -> Provenance:
        return self.check.provenance

    @property
    def takes_frames(self) -> bool:
        """Whether the run takes frames: the options want them and a reporter will show them."""
        options = self.options
        return options.screenshots and options.frames is not FramesMode.NONE and options.reporter is not None

    @property
    def bundle(self) -> str:
        """The app under test (a check without a bundle never gets this far)."""
        return self.check.app.bundle or ""
