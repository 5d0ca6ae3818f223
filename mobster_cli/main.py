"""The ``mobster`` command: parses, calls the library, renders. No logic the library lacks.

Start-up stays fast (``mobster --help`` well under 0.3 s): the library, drivers, models and rich
are imported inside the commands that need them.

Exit codes: a suite's (0 passed, 1 failed, 2 needs review, 3 couldn't run). A command that can't
start (a bad option, no checks, an env file that isn't there) exits 3, with one line that says
what to do, so that exit code 2 always means "needs review". A device that can't be opened is no
such problem: every check ends ``couldnt_run`` and the results are written as for any run.

The clock and the way a coroutine runs come from the :class:`Runtime` in click's ``obj``
(``_shared``'s Rule 3): the system clock and a loop of its own by default; a test passes a fake
clock and its ``run``. Everything after the options goes through the harness's door
(``mobster_harness.Harness``): the pool, the models, the run options with the report.
The command's rooms stand in one direction: this module on top, the command modules below it,
``_shared`` under them (``_shared``'s docstring); none of them imports this one.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from ._config import config_command, configured, profile_option
from ._init import init
from ._inspect import inspect_command
from ._mcp import mcp
from ._options import FiniteNumber, timing_options
from ._paths import open_paths, paths, paths_option, read_only_bundle
from ._select import retries_option, selection_options
from ._shared import (
    USAGE_EXIT,
    ConfiguredOption,
    Runtime,
    boundary,
    console,
    fail,
    keys,
    locale_option,
    note,
    project_root,
    resolve_check,
    runtime,
    usage_error,
)

if TYPE_CHECKING:
    from mobster_core import CheckResult, Clock, Model, RunOptions, SuiteResult
    from mobster_harness import Harness, Opening, Pool

    from ._signals import Stop

__all__ = ["Runtime", "cli", "main"]

#: The last action sent, for the line a stop prints (what the run was waiting for).
_IN_FLIGHT: list[str] = []
_HEAL_ARGS = "mobster.heal-args"


class _Guarded(click.Group):
    """The top group: every command under it runs behind :func:`~._shared.boundary`, whether or not it asks.

    The group's own options are parsed behind it too (``mobster --bogus``), so every usage error
    is one line and exit 3, under click's ``main`` (``CliRunner``) as under :func:`main`.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:
            raise usage_error(exc) from None

    def invoke(self, ctx: click.Context) -> Any:
        outcome: list[Any] = []

        def body() -> int:
            outcome.append(super(_Guarded, self).invoke(ctx))
            return 0

        boundary(body)
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


def _store_options(f: Any) -> Any:
    """``mobster test``'s store options: ``--paths`` and the team store's write, key, lease and wait (docs/paths.md).

    Here, not in ``_paths``: its lease and wait are ``FiniteNumber``s (``_options``, a sibling room).
    """
    for option in reversed(
        [
            click.option(
                "--paths-write/--no-paths-write",
                "paths_write",
                cls=ConfiguredOption,
                default=None,
                help="Write recorded and healed paths to the store (--no-paths-write: a pull request's job replays the "
                "store's paths and keeps what it records in a bundle). Default: the config's paths-write, else write.",
            ),
            click.option(
                "--paths-key",
                "paths_key",
                cls=ConfiguredOption,
                metavar="${NAME}",
                help="The environment variable that holds the team key: documents are signed, and unsigned or forged "
                "ones refused and recorded again.",
            ),
            click.option(
                "--paths-lease",
                "paths_lease",
                cls=ConfiguredOption,
                type=FiniteNumber(1.0, 3600.0, example="60"),
                metavar="SECONDS",
                help="How long a recording lease lives without renewal (a remote store; default 60).",
            ),
            click.option(
                "--paths-wait",
                "paths_wait",
                cls=ConfiguredOption,
                type=FiniteNumber(0, 86400.0, low_open=True, example="900"),
                metavar="SECONDS",
                help="How long a run waits for another machine's recording before it records itself (default 900).",
            ),
        ]
    ):
        f = option(f)
    return paths_option(f)


def _device_options(f: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--scripted",
                cls=ConfiguredOption,
                metavar="APP.yaml",
                multiple=True,
                help="Run on the scripted phone with this app script.",
            ),
            click.option(
                "--wda",
                cls=ConfiguredOption,
                metavar="URL",
                multiple=True,
                help="Drive a WebDriverAgent already listening at URL (repeat: a pool).",
            ),
            click.option(
                "--sim",
                cls=ConfiguredOption,
                metavar="NAME[@PORT]",
                multiple=True,
                help="Run on the iOS simulator NAME or UDID, its WDA on PORT (repeat: a pool; WDA ports 8100, 8101, … "
                "by default).",
            ),
            click.option(
                "--device",
                cls=ConfiguredOption,
                metavar="NAME",
                multiple=True,
                help="Run on the USB iPhone NAME or UDID (repeat: a pool).",
            ),
            click.option(
                "--appium",
                cls=ConfiguredOption,
                metavar="URL",
                multiple=True,
                help="Run on phones behind the Appium server, Selenium Grid or device cloud at URL (repeat: a pool).",
            ),
            click.option(
                "--android",
                cls=ConfiguredOption,
                metavar="[SERIAL]",
                multiple=True,
                is_flag=False,
                flag_value="",
                help="Run on the Android device or emulator SERIAL, through adb and the UiAutomator2 server "
                "(no SERIAL: the only one adb lists; repeat: a pool; docs/android.md).",
            ),
            click.option(
                "--caps",
                cls=ConfiguredOption,
                metavar="FILE",
                multiple=True,
                help="The Appium session's capabilities (JSON, ${ENV} expanded); one for all --appium, or one each. "
                "Default: $MOBSTER_APPIUM_CAPS.",
            ),
            click.option(
                "--session-wait",
                cls=ConfiguredOption,
                type=FiniteNumber(0, 3600, low_open=True, example="600"),
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
            click.option(
                "--model",
                cls=ConfiguredOption,
                metavar="NAME",
                help="claude-…, gpt-…, or scripted. Default: from your keys.",
            ),
            click.option(
                "--env-file",
                cls=ConfiguredOption,
                type=click.Path(path_type=Path),
                help="Read API keys from this file.",
            ),
            click.option(
                "--no-heal",
                cls=ConfiguredOption,
                is_flag=True,
                help="Strict CI: fail a check whose screen changed; no model.",
            ),
            click.option(
                "--fresh", cls=ConfiguredOption, is_flag=True, help="Run every step with Smart and record again."
            ),
            click.option(
                "--carry",
                cls=ConfiguredOption,
                is_flag=True,
                help="On a new build, replay the newest earlier build's path before recording.",
            ),
            click.option(
                "--max-usd",
                cls=ConfiguredOption,
                type=FiniteNumber(0, low_open=True, what="a number of dollars", example="0.25"),
                metavar="X",
                help="Cap each check's model spend (USD).",
            ),
            click.option(
                "--locale",
                cls=ConfiguredOption,
                metavar="LOCALE",
                callback=locale_option,
                help="Run the app in this locale (de_DE): a simulator launches it so; elsewhere the device's must be.",
            ),
            *timing_options(),
            click.option(
                "--alerts",
                cls=ConfiguredOption,
                type=click.Choice(["fail", "accept", "dismiss"]),
                help="Answer every check's system alerts so, over the check's own alerts: (docs/alerts.md). "
                "Default: each check's, else fail.",
            ),
            click.option(
                "--frames",
                cls=ConfiguredOption,
                type=click.Choice(["auto", "all", "failed", "none"]),
                default="auto",
                show_default=True,
                help="Which screens each run keeps for its report.html: auto keeps a thumbnail of every step "
                "and full frames of the first 20 and of the steps that drifted, healed or failed.",
            ),
            click.option(
                "--video",
                cls=ConfiguredOption,
                type=click.Choice(["off", "on", "retain-on-failure"]),
                default="off",
                show_default=True,
                help="Record the screen into each run folder (simulator, Appium, a cloud's own video linked): "
                "retain-on-failure keeps it only for a check that didn't pass. A recording that can't start is a "
                "warning.",
            ),
            click.option(
                "--platform",
                cls=ConfiguredOption,
                type=click.Choice(["ios", "android"]),
                default=None,
                help="Run the checks on this platform's devices of the pool only. Default: each check once on "
                "each platform the pool holds (docs/scale.md).",
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
    cls=ConfiguredOption,
    type=click.IntRange(1, 64),
    metavar="N",
    help="Devices at once: N scripted phones or N Appium sessions; the first N of a named pool. Default: the pool.",
)
@click.option(
    "--sessions",
    cls=ConfiguredOption,
    type=click.IntRange(1, 64),
    metavar="N",
    help="Appium sessions per --appium URL (a Grid or a cloud).",
)
@click.option(
    "--session-per-check",
    cls=ConfiguredOption,
    is_flag=True,
    help="End each Appium session after its check (one dashboard entry per check) instead of one per device.",
)
@click.option(
    "--each-device",
    cls=ConfiguredOption,
    is_flag=True,
    help="Run every check on every device (one result per check and device).",
)
@click.option("--shard", metavar="I/N", help="Run every N-th check, starting at the I-th.")
@selection_options
@_store_options
@click.pass_context
def test(ctx: click.Context, /, checks: tuple[str, ...], **opts: Any) -> None:
    """Run checks (every check in .mobster/checks by default).

    With a key (or --model scripted), Smart runs each check until it passes once, then later runs
    replay. Without a key: replay, $0.

    `mobster test heal [CHECK]` lists the heals waiting for review.
    """
    raise SystemExit(boundary(lambda: _run_tests(runtime(ctx), list(checks), configured(ctx, opts, checks))))


@click.command(name="heal", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("checks", nargs=-1)
@click.option("--accept", metavar="CHECK", help="Keep the healed steps of CHECK as its recorded path.")
@click.option(
    "--reject", metavar="CHECK", help="Bring CHECK's recorded steps back; they fail (class drift) if they change."
)
@click.option(
    "--unreject",
    metavar="CHECK",
    help="Undo the reject of CHECK's heals: the steps it kept failing heal again on their next drift, in a run "
    "with a model (every rejected step, or --step N).",
)
@click.option("--step", type=click.IntRange(1, 1000), metavar="N", help="With --unreject: only step N.")
@paths_option
def heal(checks: tuple[str, ...], paths_store: str, **decision: Any) -> None:
    """List the heals waiting for review, with the screen before and after; or decide one.

    With no option it lists the heals of CHECKS (every check by default), and the steps a reject
    keeps failing. A heal is in the heal file beside its check (signup.heal.yaml); replays run the
    healed steps until you decide.
    """
    decided = _Decision(**decision)  # --accept, --reject, --unreject and --step
    raise SystemExit(boundary(lambda: _heal_command(checks, decided, store=paths_store)))


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
    opts = configured(ctx, opts, [str(check_file)])
    opts.update(parallel=None, sessions=None, each_device=False, session_per_check=False, shard=None, verify=True)
    raise SystemExit(boundary(lambda: _run_tests(runtime(ctx), [str(check_file)], opts)))


@cli.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Run a sample project on the scripted phone: no key, no phone."""
    from ._demo import run_demo

    raise SystemExit(boundary(lambda: run_demo(directory or Path("mobster-demo"))))


cli.add_command(paths)
cli.add_command(inspect_command(_device_options))
cli.add_command(config_command(test))
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
        fail(str(exc))
    summary = merged["summary"]
    words = {"passed": "passed", "failed": "failed", "needs_review": "need review", "couldnt_run": "couldn't run"}
    counts = ", ".join(f"{summary[k]} {word}" for k, word in words.items())
    lines = console()
    lines.print(f"merged {len(dirs)} shard{'s' if len(dirs) != 1 else ''}: {counts}", markup=False)
    for name in ("results.json", "junit.xml", "index.html"):
        lines.print(f"  {visible(_shown_path(out / name))}", markup=False)


@report.command(name="open")
@click.option("--run", "run_page", is_flag=True, help="The newest check run's report.html, not a suite's index.html.")
@click.option("--browser", is_flag=True, help="Also open it in the default browser.")
def report_open(run_page: bool, browser: bool) -> None:
    """Print the path of the newest report (in this project), or open it."""
    from mobster_report import newest_report

    from ._render import visible

    root = project_root(Path.cwd())
    page = newest_report(root, runs=run_page)
    if page is None:
        fail(f"no report in {root / '.mobster'} yet: run mobster test first")
    click.echo(visible(_shown_path(page)))
    if browser:
        import webbrowser

        if not webbrowser.open(page.resolve().as_uri()):
            fail("no browser could be opened; open the path above yourself")


# -- mobster test ------------------------------------------------------------------------------


def _root_and_files(checks: Sequence[str]) -> tuple[Path, list[Path]]:
    from mobster_core import find_checks
    from mobster_core.checks import find_project_root

    cwd = Path.cwd()
    if checks:
        files = [resolve_check(c, cwd) for c in checks]
        root = find_project_root(files[0].parent) or cwd
        return root, files
    found = find_project_root(cwd)
    if found is None:
        fail("no .mobster/ folder here or above: add checks to .mobster/checks/, or run `mobster demo`")
    files = find_checks(found)
    if not files:
        fail(f"no checks in {found / '.mobster' / 'checks'}: add a check file, or run `mobster demo`")
    return found, files


def _selected(checks: Sequence[str], shard: str | None) -> tuple[Path, list[Path]]:
    """The project and the check files to run (``--shard`` keeps its share)."""
    from mobster_core.checks import parse_shard
    from mobster_core.checks import shard as share

    root, files = _root_and_files(checks)
    if shard:
        try:
            index, total = parse_shard(shard)
        except ValueError as exc:
            fail(str(exc))
        kept = share(files, index, total)
        if not kept:
            fail(
                f"--shard {shard} keeps no check: there are {len(files)} check{'s' if len(files) != 1 else ''}, "
                f"so only shards 1/{total} to {min(len(files), total)}/{total} have one; use fewer shards"
            )
        files = kept
    return root, files


def _by_tags(files: list[Path], opts: dict[str, Any]) -> list[Path]:
    """``--tag`` and ``--exclude-tag`` (``_select``'s Rule 1): no check kept is exit 3."""
    from ._select import by_tags

    tags, exclude = tuple(opts.get("tags") or ()), tuple(opts.get("exclude_tags") or ())
    notes: list[str] = []
    kept = by_tags(files, tags, exclude, notes.append)
    if not kept:  # one line: the failure, with what the notes would have said
        asked = " ".join([*(f"--tag {t}" for t in tags), *(f"--exclude-tag {t}" for t in exclude)])
        why = f" ({'; '.join(notes)})" if notes else ""
        fail(f"{asked} keeps none of the {len(files)} checks{why}: run mobster test --list to see their tags")
    for line in notes:
        note(line)
    return kept


def _models(harness: Harness) -> Callable[[], Model | None]:
    """A model per check run, ready (the harness's); under ``--no-heal`` (strict CI) none is even constructed."""
    from mobster_core import MobsterError

    try:
        return harness.models()  # a vendor's adapter now: a bad name or a missing key stops the command
    except (MobsterError, ValueError) as exc:
        fail(str(exc))


def _open_pool(harness: Harness, files: Sequence[Path], *, verify: bool, opening: Opening | None = None) -> Pool:
    """The pool the device options name, opened by the harness; a usage problem exits 3."""
    from mobster_core import FailureClass
    from mobster_harness import CouldntOpen, PoolError

    from ._render import visible

    if not harness.settings.devices.kinds:
        fail(
            "choose a device: --scripted APP.yaml, --sim NAME, --device NAME, --wda URL, --appium URL, "
            "--android [SERIAL] or --driver FACTORY ARG"
        )
    try:
        count = len(harness.specs())
        if verify and count > 1:
            fail(f"verify runs one check on one device; the options name {count}: use mobster test")
        pool = harness.pool(files, opening)
    except (PoolError, CouldntOpen) as exc:
        fail(str(exc))
    progress = console(err=True)
    for spec, why in pool.unavailable:
        if why.failure_class is FailureClass.STOPPED:
            continue  # the run was stopped while the pool opened: it says so itself
        progress.print(f"{visible(spec.label)} is left out of the pool: {visible(why.message)}", markup=False)
    for said in pool.notes():
        progress.print(visible(said), markup=False)
    if len(pool.opened) > 1:
        names = ", ".join(visible(o.spec.label) for o in pool.opened)
        progress.print(f"on {len(pool.opened)} devices: {names}", style="dim", markup=False)
    return pool


@attrs.frozen
class _Suite:
    """A suite to run: its files, the door its devices come through, a model per check run, and the run options."""

    files: list[Path]
    harness: Harness
    models: Callable[[], Model | None]
    options: RunOptions


def _run_tests(runtime: Runtime, checks: list[str], opts: dict[str, Any]) -> int:
    import dataclasses

    from mobster_core import SuiteStopped
    from mobster_harness import Harness, Settings

    from ._signals import Stop, Stopped

    settings = Settings.from_values(opts, profile=opts.get("profile_used"))
    root, files = _selected(checks, settings.shard)
    files = _by_tags(files, opts)
    settings = dataclasses.replace(settings, secrets=keys(opts.get("env_file")))
    clock = runtime.the_clock()
    harness = Harness(settings, root, clock)
    if opts.get("list_only"):
        from ._select import list_checks

        return list_checks(root, files, harness, runtime, as_json=bool(opts.get("as_json")))
    models = _models(harness)
    out = console(err=bool(opts.get("as_json")))
    job = _Suite(files, harness, models, _run_options(harness, out, opts.get("driver") or ()))
    console(err=True).print(f"running {len(files)} check{'s' if len(files) != 1 else ''} …", style="dim")
    stop = Stop()
    try:
        suite = runtime.run_to_end(_until_stopped(_suite(job, opts, clock), stop))
    except SuiteStopped as exc:
        code = _stopped(out, exc.suite, root, stop)
        _outputs(exc.suite, opts)
        return code
    except Stopped:  # stopped before the suite began: opening the devices (a driver's factory)
        return _stopped_opening(out, job, root, stop, opts)
    _print_summary(out, suite, root)
    _outputs(suite, opts)
    read_only_bundle(job.options.paths, suite.folder, root, console(err=True))
    return int(suite.exit_code)


def _stopped_opening(out: Any, job: _Suite, root: Path, stop: Stop, opts: dict[str, Any]) -> int:
    """A signal while the devices were being opened: every check ``stopped``, and the outputs of any stop."""
    from mobster_core.results import stopped_suite

    from ._render import visible

    why = f"stopped by {stop.name} while the devices were being opened: the check didn't start, and nothing was sent"
    suite = stopped_suite(job.files, why, options=job.options)
    for result in suite.checks:
        _print_check(out, result)
    _print_summary(out, suite, root)
    console(err=True).print(
        f"stopped by {stop.name} while the devices were being opened: no check ran; results are in "
        f"{visible(suite.folder)}",
        markup=False,
    )
    _outputs(suite, opts)
    return stop.code or 130


def _outputs(suite: SuiteResult, opts: dict[str, Any]) -> None:
    """``--json`` on stdout, then the ``--junit`` copy: written for a stopped suite too."""
    if opts.get("as_json"):
        from ._render import json_text

        click.echo(json_text(json.dumps(suite.to_dict(), indent=2, ensure_ascii=False)))
    if opts.get("junit"):
        _copy_junit(suite, opts["junit"])


def _copy_junit(suite: SuiteResult, target: Path) -> None:
    """``--junit FILE``: a copy of the suite's junit.xml, written as every user's file (``write_user_file``)."""
    from mobster_core.exceptions import UnsafeFile, os_error_message
    from mobster_core.files import read_private, write_user_file

    try:
        write_user_file(target, read_private(suite.folder / "junit.xml", max_bytes=_MAX_JUNIT_BYTES))
    except UnsafeFile as exc:
        fail(f"--junit {exc.path}: {exc.reason}; {exc.fix} (the results are in {suite.folder})")
    except OSError as exc:
        fail(f"--junit: {os_error_message(exc)} (the results are in {suite.folder})")


#: The suite's own junit.xml, read back for ``--junit``: a suite of tens of thousands of checks fits.
_MAX_JUNIT_BYTES = 256 * 1024 * 1024


def _run_options(harness: Harness, out: Any, driver: Sequence[str] = ()) -> RunOptions:
    """The harness's run options (the report names the devices), with the command's progress lines."""
    from ._render import visible

    progress = console(err=True)

    def sending(what: str | None) -> None:
        _IN_FLIGHT[:] = [] if what is None else [what]

    try:
        return harness.run_options(
            on_sent=lambda what: progress.print(f"  · {visible(what)}", style="dim", markup=False),
            on_sending=sending,
            on_result=lambda result: _print_check(out, result),
            driver=driver,
        )
    except ValueError as exc:  # the path store's setting: an unset ${NAME}, a team key too short
        fail(str(exc))


async def _suite(job: _Suite, opts: dict[str, Any], clock: Clock) -> SuiteResult:
    if opts.get("driver"):
        from mobster_core import run_suite

        from ._devices import driver_devices

        devices = await driver_devices(tuple(opts["driver"]), job.harness.settings, clock)
        return await run_suite(job.files, devices, clock, models=job.models, options=job.options)
    from mobster_harness import run_on_pool

    pool = await _opening(job.harness, job.files, verify=bool(opts.get("verify")))
    return await run_on_pool(job.files, pool, clock, models=job.models, options=job.options)


async def _opening(harness: Harness, files: Sequence[Path], *, verify: bool) -> Pool:
    """:func:`_open_pool` in a thread of its own, so Ctrl+C and SIGTERM stop a run whose devices never answer.

    Opening asks every device (a WDA's status, a simulator's boot, Appium sessions) and can wait
    for their timeouts; the event loop stays free to take the signal, and abandons the opening:
    what opened is released at once (locks, Appium sessions), what opens later as it does
    (``mobster_harness.pool``'s Rule 7).
    """
    import asyncio
    import contextlib
    from concurrent.futures import Future, InvalidStateError

    from mobster_harness import Opening

    opening = Opening()
    opened: Future[Pool] = Future()

    def work() -> None:
        try:
            pool = _open_pool(harness, files, verify=verify, opening=opening)
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


async def _until_stopped(suite: Coroutine[Any, Any, SuiteResult], stop: Stop) -> SuiteResult:
    """Run ``suite`` under the signal rule (``_signals``): Ctrl+C and SIGTERM cancel it.

    Each check in flight then writes a ``stopped`` result, its in-flight action is journaled as
    unknown, and nothing is cached (``SuiteStopped``).
    """
    from ._signals import until_stopped

    def say(signum: int) -> None:
        import signal

        from ._render import visible

        waiting = f"the device's reply to {visible(_IN_FLIGHT[-1])}" if _IN_FLIGHT else "the device's reads"
        print(
            f"stopping ({signal.Signals(signum).name}): no longer waiting for {waiting}; "
            "an action in flight is recorded as unknown",
            file=sys.stderr,
            flush=True,
        )

    return await until_stopped(suite, stop, say=say)


def _stopped(out: Any, suite: SuiteResult, root: Path, stop: Stop) -> int:
    from mobster_core import FailureClass

    from ._render import visible

    for result in suite.checks:
        if result.outcome.failure_class is FailureClass.STOPPED:
            _print_check(out, result)
    _print_summary(out, suite, root)
    console(err=True).print(f"stopped by {stop.name or 'SIGINT'}; results are in {visible(suite.folder)}", markup=False)
    return stop.code or 130


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
    # A check file once, however many results it has (--repeat, --each-device, rows): its heal file is one.
    pending = _pending_heals(list(dict.fromkeys(Path(root / c.file) for c in suite.checks)))
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
    """The heals waiting for review in the heal files of ``files`` (each file given once)."""
    from mobster_core.heals import HealFileError, heal_file_for, read_heal_file

    total = 0
    for f in files:
        try:
            total += sum(len(e.new) for e in read_heal_file(heal_file_for(f)))
        except HealFileError:
            continue
    return total


# -- mobster test heal -------------------------------------------------------------------------


@attrs.frozen
class _Decision:
    """``mobster test heal``'s decision: the check of ``--accept``, ``--reject`` or ``--unreject`` (one), ``--step``."""

    accept: str | None = None
    reject: str | None = None
    unreject: str | None = None
    step: int | None = None


def _heal_command(checks: Sequence[str], decision: _Decision, *, store: Any = "local") -> int:
    chosen = [o for o, v in (("--accept", decision.accept), ("--reject", decision.reject),
                             ("--unreject", decision.unreject)) if v]  # fmt: skip
    if len(chosen) > 1:
        fail(f"choose one of {', '.join(chosen)}, not {'both' if len(chosen) == 2 else 'all three'}")
    if decision.step is not None and not decision.unreject:
        fail("--step N goes with --unreject CHECK: the one rejected step to let heal again")
    store = open_paths(store, writes=bool(decision.accept or decision.reject or decision.unreject))
    out = console()
    if decision.unreject:
        return _unreject(out, decision.unreject, decision.step, store=store)
    if decision.accept or decision.reject:
        _decide(out, accept=decision.accept, reject=decision.reject, store=store)
        return 0
    return _heal_listing(out, checks, store)


def _heal_listing(out: Any, checks: Sequence[str], store: Any) -> int:
    """The heals waiting for review of ``checks`` (every check by default), then the steps a reject keeps failing."""
    from mobster_core.exceptions import CheckError
    from mobster_core.heals import HealFileError

    from ._render import visible

    root, files = _root_and_files(list(checks))
    listed = unreadable = 0
    kept_failing: list[str] = []
    for file in files:
        try:
            lines = _heal_lines(root, file, store)
            kept_failing += _rejected_lines(root, file, store)
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
    for line in kept_failing:
        out.print(line, markup=False)
    return USAGE_EXIT if unreadable else 0


def _rejected_lines(root: Path, file: Path, store: Any) -> list[str]:
    """The steps a reject keeps failing, with how to undo it (none when the check has no path here)."""
    from mobster_core import load_check
    from mobster_core.heals import rejected_steps

    from ._render import visible

    check = load_check(file)
    steps = rejected_steps(check, root, paths=store)
    if not steps:
        return []
    said = ", ".join(str(n) for n in steps)
    one = len(steps) == 1
    line = (
        f"{visible(check.name)} ({visible(file.name)}): step{'' if one else 's'} {said} keep{'s' if one else ''} "
        f"failing (a heal was rejected): mobster test heal --unreject {visible(file.name)} lets "
        f"{'it' if one else 'them'} heal again"
    )
    return [line]


def _unreject(out: Any, name: str, step: int | None, *, store: Any) -> int:
    """``--unreject CHECK [--step N]``: undo the reject; a step that wasn't rejected is a usage problem."""
    from mobster_core import load_check
    from mobster_core.exceptions import CheckError
    from mobster_core.heals import HealFileError, rejected_steps, unreject_heals

    from ._render import visible

    file = resolve_check(name, Path.cwd())
    try:
        check = load_check(file)
        marked = rejected_steps(check, paths=store)
        if step is not None and step not in marked:
            rejected = f"its rejected steps: {', '.join(map(str, marked))}" if marked else "it has none"
            fail(f"step {step} of {file.name} isn't a rejected step ({rejected}); see mobster test heal")
        undone = unreject_heals(check, paths=store, step=step)
    except (CheckError, HealFileError) as exc:
        fail(str(exc))
    if not undone:
        out.print(f"{visible(file.name)} has no rejected step: nothing to undo", markup=False)
        return 0
    said = ", ".join(str(n) for n in undone)
    out.print(
        f"undid the reject of {visible(file.name)}'s step{'s' if len(undone) != 1 else ''} {said}: "
        f"{'it heals' if len(undone) == 1 else 'they heal'} again on the next drift, in a run with a model",
        markup=False,
    )
    return 0


def _decide(out: Any, *, accept: str | None, reject: str | None, store: Any) -> None:
    from mobster_core import load_check
    from mobster_core.exceptions import CheckError
    from mobster_core.heals import HealFileError, accept_heals, reject_heals

    from ._render import visible

    file = resolve_check(accept or reject or "", Path.cwd())
    try:
        check = load_check(file)
        n = accept_heals(check, paths=store) if accept else reject_heals(check, paths=store)
    except (CheckError, HealFileError) as exc:
        fail(str(exc))
    heals = f"{n} heal{'s' if n != 1 else ''} of {visible(file.name)}"
    if accept:
        out.print(f"kept {heals}: the healed steps are the recorded path", markup=False)
    else:
        out.print(
            f"rejected {heals}: the recorded steps are back and fail with class drift when they change again",
            markup=False,
        )


def _heal_lines(root: Path, file: Path, store: Any) -> list[str]:
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
        cli(prog_name="mobster", standalone_mode=False)  # its name in every line, however it was started
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
