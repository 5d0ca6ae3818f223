"""Before the first action: what is being run on (prepare) and which path it runs (choose a path).

Rule 1: a check needs an app bundle id to run (``couldnt_run``, class ``usage``); the device's
        info and the app's version are read once (a device failure is class ``device``; a device
        another run holds, ``busy``).
Rule 2: the path for the check's identity and the device's env is replayed when there is one;
        Smart records when there is none or with ``fresh``. With ``carry`` and no path for this
        env, the newest path of another env is replayed. A launch-only check (no steps) has no
        path. A cached path that can't be used is dropped and logged (the cache's rules).
Rule 3: a heal file or heal state that can't be read is ``couldnt_run``, class ``usage``. A healed
        path waiting for review replays instead of the recorded one only while its heal file
        holds its heals (the heal file's rules); the breaker counts only the heals of the path
        that replays. The heal state is read from the path store the run uses, beside its paths.
Rule 6: the plan knows the heals that wait for review in other envs' heal states
        (``Plan.waiting``): a heal of one of their steps here would replace it in the heal file,
        so the runner fails that step instead (``steps`` Rule 10).
Rule 5: a locale asked for (``options.locale``, else the check's ``launch.locale``) is launched
        on a device that can (``LocaleLaunches``); on any other the device's own locale must be it,
        else ``couldnt_run``, class ``environment``, naming both (never a drift). The env holds the
        locale the app runs in.
Rule 4: a run that must record (no path) and has no model is ``couldnt_run``, class ``model``, saying
        why it records and why there is no model; its fix gives it one (``give_model``), or,
        under ``no_heal``, turns healing back on (``run_without_no_heal``).
"""

from __future__ import annotations

import attrs

from mobster_core._log import get_logger
from mobster_core._rules.device.device import AppInfo, DeviceInfo, DeviceKind, LaunchOptions
from mobster_core._rules.replay.identity import Env
from mobster_core._rules.verdict.fixes import Fix, FixCode
from mobster_core._rules.verdict.verdict import FailureClass
from mobster_core._rules.vocabulary.steps import Step
from mobster_core._store.cache import ReplayCache, StoredPath
from mobster_core._store.healfile import (
    HealEntry,
    HealFileError,
    HealState,
    adopted,
    check_key,
    heal_file_for,
    heal_states,
    load_heal_state,
    read_heal_file,
    state_name,
    waiting,
)
from mobster_core.exceptions import DeviceBusy, DeviceError
from mobster_core.protocols import LocaleLaunches

from .context import Run, RunOptions
from .dispatch import contract_message
from .ended import couldnt

__all__ = ["Plan", "Prepared", "choose_path", "no_model", "prepare", "read_device", "require_model"]

log = get_logger(__name__)


def no_model(options: RunOptions, to: str) -> tuple[str, Fix]:
    """Rule 4: that there is no model ``to`` do something, and the fix: under ``no_heal``, healing is off."""
    if options.no_heal:
        return f"there is no model to {to}: healing is off", Fix(FixCode.RUN_WITHOUT_NO_HEAL)
    return f"there is no model to {to}", Fix(FixCode.GIVE_MODEL)


@attrs.frozen
class Prepared:
    """What the run is on: the device, the app, the keys of its path (identity and env), how it launches."""

    info: DeviceInfo
    app: AppInfo
    identity: str
    env: Env
    launch: LaunchOptions = attrs.field(factory=LaunchOptions)


@attrs.frozen
class Plan:
    """The path a run takes (Rule 2).

    ``path`` is the path to replay (None: Smart records); ``used`` says a recorded path is replayed;
    ``why`` why none is (or what happened to it); ``carried`` the stored path replayed from
    another env, ``carried_from`` that env in words (``1.0 (1)``); ``state`` the check's heal
    state (the keep-failing steps, a healed path); ``adopted`` says the healed path replays;
    ``pending`` how many steps the heals of the replayed path have healed; ``waiting`` the heals
    that wait for review in other envs' heal states (Rule 6); ``tag`` the version of this env's
    path the lookup read (one it replays, or one it can't use left in a shared store; None: none),
    what a recording of it replaces (the cache's Rule 13).
    """

    path: tuple[Step, ...] | None = None
    used: bool = False
    why: str | None = None
    carried: StoredPath | None = None
    carried_from: str | None = None
    state: HealState = attrs.field(factory=HealState)
    adopted: bool = False
    pending: int = 0
    waiting: tuple[HealEntry, ...] = ()
    tag: str | None = None


async def read_device(run: Run) -> DeviceInfo:
    """The device's info (Rule 1), checked to be what the ``Device`` protocol says (dispatch's Rule 11)."""
    try:
        info = await run.device.info()
    except DeviceBusy as exc:
        raise couldnt(FailureClass.BUSY, str(exc)) from exc
    except DeviceError as exc:
        raise couldnt(FailureClass.DEVICE, str(exc)) from exc
    if not isinstance(info, DeviceInfo):
        raise couldnt(FailureClass.DEVICE, contract_message("info()", info, DeviceInfo))
    if not isinstance(info.kind, DeviceKind):
        raise couldnt(FailureClass.DEVICE, contract_message("info().kind", info.kind, DeviceKind))
    return info


async def prepare(run: Run, info: DeviceInfo) -> Prepared:
    """Rule 1: the app's version, and the path's identity and env."""
    check = run.check
    if check.app.bundle is None:
        raise couldnt(FailureClass.USAGE, f"{check.file}: app.bundle is needed to run this check")
    try:
        app = await run.device.app_info(check.app.bundle)
    except DeviceError as exc:
        raise couldnt(FailureClass.DEVICE, str(exc)) from exc
    if not isinstance(app, AppInfo):
        raise couldnt(FailureClass.DEVICE, contract_message("app_info()", app, AppInfo))
    locale = _locale(run, info)
    launch = attrs.evolve(check.launch_options(), locale=locale if isinstance(run.device, LocaleLaunches) else None)
    return Prepared(info, app, check.identity, Env.of(info, app, locale=locale), launch)


def _locale(run: Run, info: DeviceInfo) -> str | None:
    """Rule 5: the locale the app runs in when one is asked for (None: the device's own)."""
    asked = run.options.locale or run.check.launch.locale
    if asked is None:
        return None
    device = run.device
    if isinstance(device, LocaleLaunches) and device.launches_in_locale():
        return asked
    if info.locale == asked:
        return asked
    said = "doesn't say its language" if info.locale is None else f"runs in {info.locale}"
    raise couldnt(
        FailureClass.ENVIRONMENT,
        f"the check asks for the locale {asked}, and this {info.kind.value} ({info.name}) {said}; it can't "
        f"launch the app in another: set the phone's language and region to {asked} (Settings, General, "
        "Language & Region), or run the check on a simulator, which launches the app in it",
    )


def choose_path(run: Run, prepared: Prepared) -> Plan:
    """Rules 2-4: the path this run replays, or why Smart records."""
    check, options = run.check, run.options
    if check.launch_only:
        return Plan()
    cache = ReplayCache(run.root, run.options.paths)
    lookup = cache.lookup(prepared.identity, prepared.env)
    for dropped in lookup.dropped:
        log.warning("a cached path was dropped", reason=dropped)
    if options.fresh:
        plan = Plan(why="asked to record again")
    elif lookup.steps is not None:
        plan = Plan(lookup.steps, used=True)
    elif options.carry and lookup.carry is not None:
        carried = lookup.carry
        came = carried.stored.env.describe(prepared.env)
        plan = Plan(carried.steps, used=True, why=lookup.why, carried=carried, carried_from=came)
    else:
        # A path set aside (corrupt, 0644, another user's, a symlink) is why this run records:
        # say which file and what to do, not just "no recorded path yet".
        plan = Plan(why=lookup.dropped[0] if lookup.dropped else lookup.why)
    plan = attrs.evolve(plan, tag=lookup.tag)
    env = prepared.env if plan.carried is None else plan.carried.stored.env
    key, words = check_key(run.root, check.file), run.provenance
    try:
        state = load_heal_state(cache.backend, state_name(prepared.identity, env, key), provenance=words)
        entries = read_heal_file(heal_file_for(check.file))
        held = waiting(heal_states(cache, prepared.identity, key, provenance=words), entries) if entries else []
    except HealFileError as exc:
        raise couldnt(FailureClass.USAGE, str(exc)) from exc
    if plan.carried is None and not options.fresh and adopted(state, entries):
        assert state.healed is not None  # adopted() says so
        pending = sum(len(e.new) for e in state.adopts)
        others = tuple(e for other, e in held if other.digest != env.digest)  # Rule 6: its own heals are the path's
        return attrs.evolve(
            plan, path=state.healed, used=True, why=None, state=state, adopted=True, pending=pending, waiting=others
        )
    return attrs.evolve(plan, state=state, waiting=tuple(e for _env, e in held))


def require_model(run: Run, plan: Plan) -> None:
    """Rule 4: a run that records needs a model."""
    if plan.path is None and not run.check.launch_only and run.calls is None:
        why = plan.why or "no recorded path yet"
        none, fix = no_model(run.options, "record one")
        raise couldnt(FailureClass.MODEL, f"{why}, and {none}", fix=fix)
