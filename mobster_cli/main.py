"""The ``mobster`` command: parses, calls the library, renders. No logic the library lacks.

Start-up stays fast (``mobster --help`` well under 0.3 s): the library, drivers, models and rich
are imported inside the commands that need them.

Exit codes: a suite's (0 passed, 1 failed, 2 needs review, 3 couldn't run). A command that can't
start (a bad option, no checks, an env file that isn't there) exits 3, with one line that says
what to do, so that exit code 2 always means "needs review". A device that can't be opened is no
such problem: every check ends ``couldnt_run`` and the results are written as for any run.

The clock and the way a coroutine runs come from the :class:`Runtime` in click's ``obj``: the
system clock and ``asyncio.run`` by default; a test passes a fake clock and its ``run``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import attrs
import click

from ._config import apply_config, config_command, profile_option
from ._init import init
from ._inspect import inspect_command
from ._mcp import mcp
from ._options import timing_options
from ._paths import paths, paths_option
from ._select import retries_option, selection_options

if TYPE_CHECKING:
    from mobster_core import CheckResult, Clock, Device, Model, RunOptions, SuiteResult
    from mobster_drivers.harness.settings import Settings

__all__ = ["Runtime", "cli", "main"]

USAGE_EXIT = 3
#: The last action sent, for the line a stop prints (what the run was waiting for).
_IN_FLIGHT: list[str] = []
_HEAL_ARGS = "mobster.heal-args"


@attrs.frozen
class Runtime:
    """What the command runs on: a clock, and how to run a coroutine to its end.

    ``clock`` is None for the system clock (made when first needed, so ``--help`` imports nothing).
    """

    clock: Clock | None = None
    run: Callable[[Coroutine[Any, Any, Any]], Any] | None = None

    def the_clock(self) -> Clock:
        """The clock every wait of the command goes through."""
        if self.clock is not None:
            return self.clock
        from mobster_core import SystemClock

        return SystemClock()

    def run_to_end(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` to its end on a new event loop, unless the runtime says otherwise.

        Unlike ``asyncio.run``, the end never waits for the device calls running in threads (a
        WDA tap whose reply never comes): a stopped run abandons them (``main`` then exits
        without joining them), so Ctrl+C stops the command at once.
        """
        if self.run is not None:
            return self.run(coro)
        import asyncio
        from concurrent.futures import ThreadPoolExecutor

        loop = asyncio.new_event_loop()
        executor = ThreadPoolExecutor(thread_name_prefix="mobster-device")
        loop.set_default_executor(executor)
        try:
            return loop.run_until_complete(coro)
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()


def _fail(message: str) -> NoReturn:
    from ._render import visible

    click.echo(f"mobster: {visible(message, keep_newlines=True)}", err=True)
    raise SystemExit(USAGE_EXIT)


def internal_message(exc: BaseException) -> str:
    """An unexpected exception: one line, and its traceback in a private file of the temp folder."""
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(exc))
    try:
        fd, name = tempfile.mkstemp(prefix="mobster-internal-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:
            f.write(text)
        where = f"the traceback is in {name}"
    except OSError:
        where = "the traceback could not be saved"
    return f"internal error ({type(exc).__name__}); {where}; please report it"


def _boundary(body: Callable[[], int]) -> int:
    """The command's one error boundary: every failure ends as one ``mobster: …`` line, exit 3.

    Exit 1 means only "a check failed": a problem of the machine or of the files (a symlinked
    folder, a full disk, a folder of another user) is reported with its file and its fix, and an
    unexpected exception as ``internal`` with its traceback in a file, never on the terminal.
    """
    from mobster_core import MobsterError
    from mobster_core.exceptions import os_error_message

    try:
        return body()
    except (SystemExit, KeyboardInterrupt, click.exceptions.ClickException, click.exceptions.Exit):
        raise
    except MobsterError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(os_error_message(exc))
    except Exception as exc:  # noqa: BLE001 - the boundary: anything else is an internal error
        _fail(internal_message(exc))


def _console(err: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=err, highlight=False, soft_wrap=True)


def _runtime(ctx: click.Context) -> Runtime:
    obj = ctx.find_object(Runtime)
    return obj if obj is not None else Runtime()


class _Guarded(click.Group):
    """The top group: every command under it runs behind :func:`_boundary`, whether or not it asks."""

    def invoke(self, ctx: click.Context) -> Any:
        outcome: list[Any] = []

        def body() -> int:
            outcome.append(super(_Guarded, self).invoke(ctx))
            return 0

        _boundary(body)
        return outcome[0] if outcome else None


@click.group(cls=_Guarded, context_settings={"help_option_names": ["-h", "--help"]})
# The distribution's own name (mobster_core.distribution): the registry's `mobster` is another project.
@click.version_option(package_name="mobster-replay", prog_name="mobster", message="%(package)s %(version)s")
def cli() -> None:
    """Mobster replay: end-to-end checks of iOS apps.

    A model-driven agent performs a check's plain-English steps until it passes once; later runs
    replay that path with zero model calls while the screen still matches. The verdict always
    comes from assertions on the accessibility tree.
    """


def _locale_option(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """``--locale``: a locale as iOS writes it (``de-DE`` is read as ``de_DE``)."""
    if value is None:
        return None
    from mobster_core.text import normal_locale

    try:
        return normal_locale(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _positive_usd(_ctx: click.Context, _param: click.Parameter, value: float | None) -> float | None:
    """``--max-usd`` is a finite number above zero (NaN, infinities and negatives are refused)."""
    import math

    if value is not None and not (math.isfinite(value) and value > 0):
        _fail(f"--max-usd {value}: give a number of dollars above 0, such as 0.25")
    return value


def _device_options(f: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--scripted", metavar="APP.yaml", multiple=True, help="Run on the scripted phone with this app script."
            ),
            click.option(
                "--wda",
                metavar="URL",
                multiple=True,
                help="Drive a WebDriverAgent already listening at URL (repeat: a pool).",
            ),
            click.option(
                "--sim",
                metavar="NAME[@PORT]",
                multiple=True,
                help="Run on the iOS simulator NAME or UDID, its WDA on PORT (repeat: a pool; WDA ports 8100, 8101, … "
                "by default).",
            ),
            click.option(
                "--device", metavar="NAME", multiple=True, help="Run on the USB iPhone NAME or UDID (repeat: a pool)."
            ),
            click.option(
                "--appium",
                metavar="URL",
                multiple=True,
                help="Run on phones behind the Appium server, Selenium Grid or device cloud at URL (repeat: a pool).",
            ),
            click.option(
                "--android",
                metavar="[SERIAL]",
                multiple=True,
                is_flag=False,
                flag_value="",
                help="Run on the Android device or emulator SERIAL, through adb and the UiAutomator2 server "
                "(no SERIAL: the only one adb lists; repeat: a pool; docs/android.md).",
            ),
            click.option(
                "--caps",
                metavar="FILE",
                multiple=True,
                help="The Appium session's capabilities (JSON, ${ENV} expanded); one for all --appium, or one each. "
                "Default: $MOBSTER_APPIUM_CAPS.",
            ),
            click.option(
                "--session-wait",
                type=click.FloatRange(0, 3600, min_open=True),
                metavar="SECONDS",
                help="With --appium: how long a new session may take (a Grid's queue, a cloud finding a phone). "
                "Default: 300.",
            ),
            click.option(
                "--driver",
                nargs=2,
                metavar="FACTORY ARG",
                help="Run on your own driver: FACTORY is package.module:function or an entry point of "
                "mobster.drivers, called as FACTORY(ARG, clock=clock).",
            ),
            click.option("--model", metavar="NAME", help="claude-…, gpt-…, or scripted. Default: from your keys."),
            click.option("--env-file", type=click.Path(path_type=Path), help="Read API keys from this file."),
            click.option("--no-heal", is_flag=True, help="Strict CI: fail a check whose screen changed; no model."),
            click.option("--fresh", is_flag=True, help="Run every step with Smart and record again."),
            click.option(
                "--carry", is_flag=True, help="On a new build, replay the newest earlier build's path before recording."
            ),
            click.option("--max-usd", type=float, callback=_positive_usd, help="Cap each check's model spend (USD)."),
            click.option(
                "--locale",
                metavar="LOCALE",
                callback=_locale_option,
                help="Run the app in this locale (de_DE): a simulator launches it so; elsewhere the device's must be.",
            ),
            *timing_options(),
            click.option(
                "--alerts",
                type=click.Choice(["fail", "accept", "dismiss"]),
                help="Answer every check's system alerts so, over the check's own alerts: (docs/alerts.md). "
                "Default: each check's, else fail.",
            ),
            click.option(
                "--frames",
                type=click.Choice(["auto", "all", "failed", "none"]),
                default="auto",
                show_default=True,
                help="Which screens each run keeps for its report.html: auto keeps a thumbnail of every step "
                "and full frames of the first 20 and of the steps that drifted, healed or failed.",
            ),
            click.option(
                "--video",
                type=click.Choice(["off", "on", "retain-on-failure"]),
                default="off",
                show_default=True,
                help="Record the screen into each run folder (simulator, Appium, a cloud's own video linked): "
                "retain-on-failure keeps it only for a check that didn't pass. A recording that can't start is a "
                "warning.",
            ),
            click.option("--json", "as_json", is_flag=True, help="Print results.json on stdout."),
            click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Also copy junit.xml here."),
        ]
    ):
        f = option(f)
    return profile_option(f)


class _TestCommand(click.Command):
    """``mobster test``; ``mobster test heal …`` is its own command, with its own options and help."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args[:1] == ["heal"]:
            ctx.meta[_HEAL_ARGS] = args[1:]
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        rest = ctx.meta.get(_HEAL_ARGS)
        if rest is None:
            return super().invoke(ctx)
        return heal.main(rest, prog_name=f"{ctx.command_path} heal", standalone_mode=False, obj=ctx.obj)


@cli.command(cls=_TestCommand, epilog="`mobster test heal --help` says how to review heals.")
@click.argument("checks", nargs=-1)
@_device_options
@click.option(
    "--parallel",
    type=click.IntRange(1, 64),
    metavar="N",
    help="Devices at once: N scripted phones or N Appium sessions; the first N of a named pool. Default: the pool.",
)
@click.option(
    "--sessions", type=click.IntRange(1, 64), metavar="N", help="Appium sessions per --appium URL (a Grid or a cloud)."
)
@click.option(
    "--session-per-check",
    is_flag=True,
    help="End each Appium session after its check (one dashboard entry per check) instead of one per device.",
)
@click.option("--each-device", is_flag=True, help="Run every check on every device (one result per check and device).")
@click.option("--shard", metavar="I/N", help="Run every N-th check, starting at the I-th.")
@selection_options
@paths_option
@click.pass_context
def test(ctx: click.Context, /, checks: tuple[str, ...], **opts: Any) -> None:
    """Run checks (every check in .mobster/checks by default).

    With a key (or --model scripted), Smart runs each check until it passes once, then later runs
    replay. Without a key: replay, $0.

    `mobster test heal [CHECK]` lists the heals waiting for review.
    """
    raise SystemExit(_boundary(lambda: _run_tests(_runtime(ctx), list(checks), _configured(ctx, opts, checks))))


def _configured(ctx: click.Context, opts: dict[str, Any], checks: Sequence[str] = ()) -> dict[str, Any]:
    """The options with the project config's values where the command line gave none (``_config``)."""
    from mobster_drivers.harness.config import ConfigError

    try:
        merged, _sources, project = apply_config(ctx, opts, checks)
    except ConfigError as exc:
        _fail(str(exc))
    return {**merged, "profile_used": project.profile}  # for the "Run it again" line


@click.command(name="heal", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("checks", nargs=-1)
@click.option("--accept", metavar="CHECK", help="Keep the healed steps of CHECK as its recorded path.")
@click.option(
    "--reject", metavar="CHECK", help="Bring CHECK's recorded steps back; they fail (class drift) if they change."
)
@paths_option
def heal(checks: tuple[str, ...], accept: str | None, reject: str | None, paths_store: str) -> None:
    """List the heals waiting for review, with the screen before and after; or decide one.

    With no option it lists the heals of CHECKS (every check by default). A heal is in the heal
    file beside its check (signup.heal.yaml); replays run the healed steps until you decide.
    """
    raise SystemExit(_boundary(lambda: _heal_command(checks, accept=accept, reject=reject, store=paths_store)))


@cli.command(epilog="Exit codes: 0 passed, 1 failed, 2 needs review, 3 couldn't run.")
@click.option(
    "--check",
    "check_file",
    required=True,
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The check file to run.",
)
@_device_options
@retries_option
@paths_option
@click.pass_context
def verify(ctx: click.Context, /, check_file: Path, **opts: Any) -> None:
    """Run one check file on one device and exit with its verdict's code."""
    opts = _configured(ctx, opts, [str(check_file)])
    opts.update(parallel=None, sessions=None, each_device=False, session_per_check=False, shard=None, verify=True)
    raise SystemExit(_boundary(lambda: _run_tests(_runtime(ctx), [str(check_file)], opts)))


@cli.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Run a sample project on the scripted phone: no key, no phone."""
    from ._demo import run_demo

    raise SystemExit(_boundary(lambda: run_demo(directory or Path("mobster-demo"))))


cli.add_command(paths)
cli.add_command(inspect_command(_device_options))
cli.add_command(config_command(test, _fail))
cli.add_command(init)
cli.add_command(mcp)


@cli.group()
def report() -> None:
    """The HTML reports: join shards' results, find the newest page."""


@report.command(name="merge")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the merged files here (default: .mobster/test-results/merged-<time>).",
)
def report_merge(dirs: tuple[Path, ...], out: Path | None) -> None:
    """Join shards' results.json, junit.xml and index.html into one.

    Each DIR is a suite's folder (.mobster/test-results/<suite_id>) or a project or CI artifact
    holding one (its newest is taken). The summary is the one an unsharded run would give.
    """
    from mobster_report import MergeError, merge_suites

    from ._render import visible

    if out is None:
        from datetime import UTC, datetime

        out = Path(".mobster") / "test-results" / f"merged-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"
    try:
        merged = merge_suites(list(dirs), out)
    except MergeError as exc:
        _fail(str(exc))
    summary = merged["summary"]
    words = {"passed": "passed", "failed": "failed", "needs_review": "need review", "couldnt_run": "couldn't run"}
    counts = ", ".join(f"{summary[k]} {word}" for k, word in words.items())
    console = _console()
    console.print(f"merged {len(dirs)} shard{'s' if len(dirs) != 1 else ''}: {counts}", markup=False)
    for name in ("results.json", "junit.xml", "index.html"):
        console.print(f"  {visible(_shown_path(out / name))}", markup=False)


@report.command(name="open")
@click.option("--run", "run_page", is_flag=True, help="The newest check run's report.html, not a suite's index.html.")
@click.option("--browser", is_flag=True, help="Also open it in the default browser.")
def report_open(run_page: bool, browser: bool) -> None:
    """Print the path of the newest report (in this project), or open it."""
    from mobster_report import newest_report

    from ._render import visible

    root = _project_root(Path.cwd())
    page = newest_report(root, runs=run_page)
    if page is None:
        _fail(f"no report in {root / '.mobster'} yet: run mobster test first")
    click.echo(visible(_shown_path(page)))
    if browser:
        import webbrowser

        if not webbrowser.open(page.resolve().as_uri()):
            _fail("no browser could be opened; open the path above yourself")


def _project_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.mobster``, else ``cwd``."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".mobster").is_dir():
            return folder
    return cwd


# -- mobster test ------------------------------------------------------------------------------


def _root_and_files(checks: Sequence[str]) -> tuple[Path, list[Path]]:
    from mobster_core import find_checks
    from mobster_core.checks import find_project_root

    cwd = Path.cwd()
    if checks:
        files = [_resolve_check(c, cwd) for c in checks]
        root = find_project_root(files[0].parent) or cwd
        return root, files
    found = find_project_root(cwd)
    if found is None:
        _fail("no .mobster/ folder here or above: add checks to .mobster/checks/, or run `mobster demo`")
    files = find_checks(found)
    if not files:
        _fail(f"no checks in {found / '.mobster' / 'checks'}: add a check file, or run `mobster demo`")
    return found, files


def _resolve_check(name: str, cwd: Path) -> Path:
    from mobster_core.checks import find_project_root

    path = Path(name)
    if path.exists():
        return path.resolve()
    root = find_project_root(cwd)
    if root is not None:
        for candidate in (root / ".mobster" / "checks" / name, root / ".mobster" / "checks" / f"{name}.yaml"):
            if candidate.exists():
                return candidate.resolve()
    _fail(f"no check {name!r}: give a path, or a name in .mobster/checks/")


def _selected(checks: Sequence[str], shard: str | None) -> tuple[Path, list[Path]]:
    """The project and the check files to run (``--shard`` keeps its share)."""
    from mobster_core.checks import parse_shard
    from mobster_core.checks import shard as share

    root, files = _root_and_files(checks)
    if shard:
        try:
            index, total = parse_shard(shard)
        except ValueError as exc:
            _fail(str(exc))
        kept = share(files, index, total)
        if not kept:
            _fail(
                f"--shard {shard} keeps no check: there are {len(files)} check{'s' if len(files) != 1 else ''}, "
                f"so only shards 1/{total} to {min(len(files), total)}/{total} have one; use fewer shards"
            )
        files = kept
    return root, files


def _by_tags(files: list[Path], opts: dict[str, Any]) -> list[Path]:
    """``--tag`` and ``--exclude-tag`` (``_select``'s Rule 1): no check kept is exit 3."""
    from ._select import by_tags

    tags, exclude = tuple(opts.get("tags") or ()), tuple(opts.get("exclude_tags") or ())
    kept = by_tags(files, tags, exclude, lambda line: click.echo(f"mobster: {line}", err=True))
    if not kept:
        asked = " ".join([*(f"--tag {t}" for t in tags), *(f"--exclude-tag {t}" for t in exclude)])
        _fail(f"{asked} keeps none of the {len(files)} checks: run mobster test --list to see their tags")
    return kept


def _settings(opts: dict[str, Any]) -> Settings:
    """What the options say, as the harness's one settings value (the environment's keys not yet read)."""
    from mobster_drivers.harness.settings import Settings, Timing
    from mobster_drivers.harness.spec import DeviceOptions

    devices = DeviceOptions(
        sessions=opts.get("sessions"),
        parallel=opts.get("parallel"),
        session_per_check=bool(opts.get("session_per_check")),
        session_wait=opts.get("session_wait"),
    ).given_as(lambda name: opts.get(name) or ())
    return Settings(
        devices=devices,
        no_heal=bool(opts["no_heal"]),
        fresh=bool(opts["fresh"]),
        carry=bool(opts.get("carry")),
        model=opts.get("model"),
        max_usd=opts.get("max_usd"),
        each_device=bool(opts.get("each_device")),
        frames=opts.get("frames") or "auto",
        timing=Timing(opts.get("poll_interval"), opts.get("drift_after"), opts.get("give_up_after")),
        shard=opts.get("shard"),
        paths=opts.get("paths_store") or "local",
        locale=opts.get("locale"),
        alerts=opts.get("alerts"),
        retries=opts.get("retries") or 0,
        repeat=opts.get("repeat") or 1,
        video=opts.get("video") or "off",
        profile=opts.get("profile_used"),
        env_file=opts.get("env_file"),
    )


def _keys(env_file: Path | None) -> dict[str, str]:
    """The environment, with the keys of ``--env-file``: one usage line when it can't be read."""
    from ._devices import UsageProblem, read_env_file

    env = dict(os.environ)
    if env_file is not None:
        try:
            env.update(read_env_file(env_file))
        except UsageProblem as exc:
            _fail(str(exc))
    return env


def _models(settings: Settings, clock: Clock) -> Callable[[], Model | None]:
    """A model per check run (the harness's chooser); under ``--no-heal`` (strict CI) none is even constructed."""
    from mobster_core import MobsterError
    from mobster_drivers.harness.models import choose_models

    models = choose_models(settings, clock)
    try:
        models.prepare()  # a vendor's adapter now: a bad name or a missing key stops the command
    except (MobsterError, ValueError) as exc:
        _fail(str(exc))
    return models


async def _driver_devices(opts: dict[str, Any], settings: Settings, clock: Clock) -> list[Device]:
    """``--driver FACTORY ARG``'s devices; one that can't be made ends each check ``couldnt_run``."""
    from mobster_core import DeviceError, MobsterError
    from mobster_drivers.harness.pool import unavailable

    from ._devices import load_driver_devices

    named = settings.devices
    if named.kinds:
        _fail(f"choose one device option, not --driver and {' and '.join(f'--{k}' for k in named.kinds)}")
    if named.sessions or named.caps or named.session_wait is not None:
        _fail("--sessions, --caps and --session-wait go with --appium URL, not --driver")
    try:
        return await load_driver_devices(tuple(opts["driver"]), parallel=named.parallel or 1, clock=clock)
    except DeviceError as exc:
        return [unavailable(exc)]
    except (MobsterError, ValueError) as exc:
        _fail(str(exc))


def _open_pool(settings: Settings, files: Sequence[Path], clock: Clock, *, verify: bool, opening: Any = None) -> Any:
    """The pool the device options name (``mobster_drivers.harness``); a usage problem exits 3."""
    from mobster_core import FailureClass

    from ._render import visible

    if not settings.devices.kinds:
        _fail(
            "choose a device: --scripted APP.yaml, --sim NAME, --device NAME, --wda URL, --appium URL, "
            "--android [SERIAL] or --driver FACTORY ARG"
        )
    try:
        from mobster_drivers.harness.pool import CouldntOpen, PoolError, open_pool, pool_specs

        specs = pool_specs(settings.devices, bundle=_one_bundle(files))
        if verify and len(specs) > 1:
            _fail(f"verify runs one check on one device; the options name {len(specs)}: use mobster test")
        pool = open_pool(specs, clock, opening=opening)
    except (PoolError, CouldntOpen) as exc:
        _fail(str(exc))
    progress = _console(err=True)
    for spec, why in pool.unavailable:
        if why.failure_class is FailureClass.STOPPED:
            continue  # the run was stopped while the pool opened: it says so itself
        progress.print(f"{visible(spec.label)} is left out of the pool: {visible(why.message)}", markup=False)
    for note in pool.notes():
        progress.print(visible(note), markup=False)
    if len(pool.opened) > 1:
        names = ", ".join(visible(o.spec.label) for o in pool.opened)
        progress.print(f"on {len(pool.opened)} devices: {names}", style="dim", markup=False)
    return pool


def _one_bundle(files: Sequence[Path]) -> str | None:
    """The app every check of the suite tests, when there is one: the Appium session's bundle."""
    from mobster_core import load_check
    from mobster_core.checks import CheckError

    bundles = set()
    for file in files:
        try:
            bundles.add(load_check(file).app.bundle)
        except (CheckError, OSError, ValueError):
            continue
    return bundles.pop() if len(bundles) == 1 else None


@attrs.frozen
class _Suite:
    """A suite to run: its files, what the options say, a model per check run, and the run options."""

    files: list[Path]
    settings: Settings
    models: Callable[[], Model | None]
    options: RunOptions


def _run_tests(runtime: Runtime, checks: list[str], opts: dict[str, Any]) -> int:
    import asyncio
    import dataclasses

    from mobster_core import SuiteStopped

    settings = _settings(opts)
    root, files = _selected(checks, settings.shard)
    files = _by_tags(files, opts)
    settings = dataclasses.replace(settings, secrets=_keys(opts.get("env_file")))
    clock = runtime.the_clock()
    if opts.get("list_only"):
        from ._select import list_checks

        return list_checks(root, files, settings, runtime, as_json=bool(opts.get("as_json")))
    models = _models(settings, clock)
    out = _console(err=bool(opts.get("as_json")))
    job = _Suite(files, settings, models, _run_options(settings, root, out, opts.get("driver") or ()))
    _console(err=True).print(f"running {len(files)} check{'s' if len(files) != 1 else ''} …", style="dim")
    received: list[int] = []
    try:
        suite = runtime.run_to_end(_until_stopped(_suite(job, opts, clock), received))
    except SuiteStopped as exc:
        code = _stopped(out, exc.suite, root, received)
        _outputs(exc.suite, opts)
        return code
    except asyncio.CancelledError:  # stopped before the suite began: opening the devices (a driver's factory)
        if not received:
            raise
        import signal

        name = signal.Signals(received[0]).name
        _console(err=True).print(f"stopped by {name} while the devices were being opened: no check ran", markup=False)
        return 128 + int(received[0])
    _print_summary(out, suite, root)
    _outputs(suite, opts)
    return int(suite.exit_code)


def _outputs(suite: SuiteResult, opts: dict[str, Any]) -> None:
    """``--json`` on stdout, then the ``--junit`` copy: written for a stopped suite too."""
    if opts.get("as_json"):
        from ._render import json_text

        click.echo(json_text(json.dumps(suite.to_dict(), indent=2, ensure_ascii=False)))
    if opts.get("junit"):
        _copy_junit(suite, opts["junit"])


def _copy_junit(suite: SuiteResult, target: Path) -> None:
    """``--junit FILE``: a copy of the suite's junit.xml; a folder that isn't there is one line."""
    from mobster_core.exceptions import os_error_message

    try:
        if target.exists() and not target.is_file():
            _fail(f"--junit {target}: it is not a regular file; give a file name (the results are in {suite.folder})")
        target.write_bytes((suite.folder / "junit.xml").read_bytes())
    except OSError as exc:
        _fail(f"--junit: {os_error_message(exc)} (the results are in {suite.folder})")


def _run_options(settings: Settings, root: Path, out: Any, driver: Sequence[str] = ()) -> RunOptions:
    from mobster_report import HtmlReport

    from ._render import visible

    progress = _console(err=True)

    def sending(what: str | None) -> None:
        _IN_FLIGHT[:] = [] if what is None else [what]

    return settings.to_run_options(
        root,
        reporter=HtmlReport(devices=settings.rerun_options(root, driver)),  # "Run it again" names them
        on_sent=lambda what: progress.print(f"  · {visible(what)}", style="dim", markup=False),
        on_sending=sending,
        on_result=lambda result: _print_check(out, result),
    )


async def _suite(job: _Suite, opts: dict[str, Any], clock: Clock) -> SuiteResult:
    from mobster_core import run_suite

    if opts.get("driver"):
        devices = await _driver_devices(opts, job.settings, clock)
        return await run_suite(job.files, devices, clock, models=job.models, options=job.options)
    from mobster_drivers.harness.pool import run_on_pool

    pool = await _opening(job.settings, job.files, clock, verify=bool(opts.get("verify")))
    return await run_on_pool(job.files, pool, clock, models=job.models, options=job.options)


async def _opening(settings: Settings, files: Sequence[Path], clock: Clock, *, verify: bool) -> Any:
    """:func:`_open_pool` in a thread of its own, so Ctrl+C and SIGTERM stop a run whose devices never answer.

    Opening asks every device (a WDA's status, a simulator's boot, Appium sessions) and can wait
    for their timeouts; the event loop stays free to take the signal, and abandons the opening:
    what opened is released at once (locks, Appium sessions), what opens later as it does
    (``mobster_drivers.harness.pool``'s Rule 7).
    """
    import asyncio
    import contextlib
    from concurrent.futures import Future, InvalidStateError

    from mobster_drivers.harness.pool import Opening

    opening = Opening()
    opened: Future[Any] = Future()

    def work() -> None:
        try:
            pool = _open_pool(settings, files, clock, verify=verify, opening=opening)
        except BaseException as exc:  # noqa: BLE001 - a usage exit too: handed to the awaiting run
            with contextlib.suppress(InvalidStateError):  # the run was stopped: nobody awaits it
                opened.set_exception(exc)
            return
        with contextlib.suppress(InvalidStateError):
            opened.set_result(pool)

    threading.Thread(target=work, name="mobster-open", daemon=True).start()
    try:
        return await asyncio.wrap_future(opened)
    except asyncio.CancelledError:
        opening.abandon()
        raise


async def _until_stopped(suite: Coroutine[Any, Any, SuiteResult], received: list[int]) -> SuiteResult:
    """Run ``suite``; Ctrl+C and SIGTERM cancel it.

    Each check in flight then writes a ``stopped`` result, its in-flight action is journaled as
    unknown, and nothing is cached (``SuiteStopped``).
    """
    import asyncio
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None

    def stop(signum: int) -> None:
        if not received:
            from ._render import visible

            waiting = f"the device's reply to {visible(_IN_FLIGHT[-1])}" if _IN_FLIGHT else "the device's reads"
            print(
                f"stopping ({signal.Signals(signum).name}): no longer waiting for {waiting}; "
                "an action in flight is recorded as unknown",
                file=sys.stderr,
                flush=True,
            )
        received.append(signum)
        task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await suite
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


def _stopped(out: Any, suite: SuiteResult, root: Path, received: list[int]) -> int:
    import signal

    from mobster_core import FailureClass

    from ._render import visible

    for result in suite.checks:
        if result.outcome.failure_class is FailureClass.STOPPED:
            _print_check(out, result)
    _print_summary(out, suite, root)
    signum = received[0] if received else signal.SIGINT
    _console(err=True).print(
        f"stopped by {signal.Signals(signum).name}; results are in {visible(suite.folder)}", markup=False
    )
    return 128 + int(signum)


def _print_check(out: Any, result: CheckResult) -> None:
    from ._render import STYLE, check_lines

    first, *rest = check_lines(result)
    out.print(first, style=STYLE[result.verdict], markup=False)
    for line in rest:
        out.print(line, markup=False)


def _print_summary(out: Any, suite: SuiteResult, root: Path) -> None:
    from ._render import pass_rate_lines, pending_line, summary_line, visible

    index = suite.folder / "index.html"
    if index.is_file():
        out.print(f"report: {visible(_shown_path(index))}", markup=False)
    for rate in pass_rate_lines(suite):
        out.print(rate, markup=False)
    out.print(summary_line(suite), markup=False)
    pending = _pending_heals([Path(root / c.file) for c in suite.checks])
    line = pending_line(pending)
    if line:
        out.print(line, markup=False)


def _shown_path(path: Path) -> str:
    """``path`` relative to the working folder when it is under it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())


def _pending_heals(files: Sequence[Path]) -> int:
    from mobster_core.heals import HealFileError, heal_file_for, read_heal_file

    total = 0
    for f in files:
        try:
            total += sum(len(e.new) for e in read_heal_file(heal_file_for(f)))
        except HealFileError:
            continue
    return total


# -- mobster test heal -------------------------------------------------------------------------


def _heal_command(checks: Sequence[str], *, accept: str | None, reject: str | None, store: str = "local") -> int:
    from mobster_core.exceptions import CheckError
    from mobster_core.heals import HealFileError

    from ._render import visible

    if accept and reject:
        _fail("choose --accept or --reject, not both")
    out = _console()
    if accept or reject:
        _decide(out, accept=accept, reject=reject, store=store)
        return 0
    root, files = _root_and_files(list(checks))
    listed = unreadable = 0
    for file in files:
        try:
            lines = _heal_lines(root, file, store)
        except (CheckError, HealFileError) as exc:
            # Listed, and the command ends as a usage problem: "no heals wait" would hide it.
            out.print(f"{visible(file.name)}: {visible(exc)}", markup=False)
            unreadable += 1
            continue
        for line in lines:
            out.print(line, markup=False)
        listed += bool(lines)
    if listed:
        out.print("accept: mobster test heal --accept CHECK    reject: mobster test heal --reject CHECK")
    elif not unreadable:
        out.print("no heals wait for review")
    return USAGE_EXIT if unreadable else 0


def _decide(out: Any, *, accept: str | None, reject: str | None, store: str) -> None:
    from mobster_core import load_check
    from mobster_core.exceptions import CheckError
    from mobster_core.heals import HealFileError, accept_heals, reject_heals

    from ._render import visible

    file = _resolve_check(accept or reject or "", Path.cwd())
    try:
        check = load_check(file)
        n = accept_heals(check, paths=store) if accept else reject_heals(check, paths=store)
    except (CheckError, HealFileError) as exc:
        _fail(str(exc))
    heals = f"{n} heal{'s' if n != 1 else ''} of {visible(file.name)}"
    if accept:
        out.print(f"kept {heals}: the healed steps are the recorded path", markup=False)
    else:
        out.print(
            f"rejected {heals}: the recorded steps are back and fail with class drift when they change again",
            markup=False,
        )


def _heal_lines(root: Path, file: Path, store: str) -> list[str]:
    from mobster_core import load_check
    from mobster_core.heals import heal_file_for, pending_heals, read_heal_file
    from mobster_report import heal_evidence

    from ._render import heal_listing, visible

    if not read_heal_file(heal_file_for(file)):
        return []
    check = load_check(file)
    rows = []
    for pending in pending_heals(check, root, paths=store):
        e = pending.entry
        diff: list[str] = []
        if pending.env is not None and (pending.gone or pending.came):
            diff = [f"screen before → after ({pending.env}):"]
            diff += [f"- {role} {label!r}" for role, label in pending.gone]
            diff += [f"+ {role} {label!r}" for role, label in pending.came]
        elif pending.env is not None:
            diff = [f"screen before → after ({pending.env}): the same labels"]
        if not (pending.gone or pending.came) or e.from_ == e.to:
            # Never an empty difference: when the screens' labels or the lines say nothing, the actions do.
            diff += ["actions before → after:", *_actions("-", e.old), *_actions("+", e.new)]
        if not pending.in_use:
            diff.append(f"not in use: {pending.why}")
        found = heal_evidence(root, file, e)
        if found is not None:
            diff.append(f"frame before: {found.before or 'not kept'}")
            diff.append(f"frame after:  {found.after or 'not kept'}")
            diff.append(f"recorded:     {found.recorded or 'not kept on this machine'}")
            if found.report is not None:
                diff.append(f"report: {found.report}")
        elif e.run_dir is not None:
            diff.append(
                f"frames: not shown (the run {visible(e.run_dir)} isn't here: made on another machine, gone, "
                "or its result.json can't be read)"
            )
        rows.append((e.step, e.from_, e.to, e.why, diff))
    return heal_listing(f"{check.name} ({file.name})", rows)


def _actions(sign: str, actions: Sequence[Mapping[str, Any]]) -> list[str]:
    """A heal's actions for ``mobster test heal``: ``- TAP Button 'Next' /0/3 (2 of 2)``; ``nothing`` for none."""
    if not actions:
        return [f"{sign} nothing"]
    lines = []
    for a in actions:
        parts = [str(a.get("op", "?"))]
        if a.get("role") is not None or a.get("label") is not None:
            parts.append(f"{a.get('role') or '?'} {a.get('label')!r}")
        if a.get("id"):
            parts.append(str(a["id"]))
        if "count" in a:
            parts.append(f"({int(a.get('nth', 0)) + 1} of {a['count']})")
        if "text" in a:
            parts.append(f"text {a['text']!r}")
        lines.append(f"{sign} {' '.join(parts)}")
    return lines


def main() -> None:
    """The console script's entry point.

    A run stopped by a signal exits at once, without joining the threads of device calls it
    abandoned (a tap whose reply never comes would otherwise hold the exit until its timeout).
    """
    try:
        cli(standalone_mode=False)
    except SystemExit as exc:
        if isinstance(exc.code, int) and exc.code in (130, 143):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(exc.code)
        raise
    except click.exceptions.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except click.ClickException as exc:
        exc.show()
        raise SystemExit(USAGE_EXIT) from None
    except click.exceptions.Abort:
        click.echo("stopped", err=True)
        raise SystemExit(130) from None


if __name__ == "__main__":  # pragma: no cover
    main()
    sys.exit(0)
