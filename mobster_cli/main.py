"""The ``mobster`` command: parses, calls the library, renders. No logic the library lacks.

Start-up stays fast (``mobster --help`` well under 0.3 s): the library, drivers, models and rich
are imported inside the commands that need them.

Exit codes: a suite's (0 passed, 1 failed, 2 needs review, 3 couldn't run). A command that can't
start (a bad option, no device, no checks) exits 3, with a message that says what to do, so that
exit code 2 always means "needs review".
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from mobster_core import CheckResult, Model, SuiteResult

__all__ = ["cli", "main"]

USAGE_EXIT = 3


def _fail(message: str) -> NoReturn:
    from ._render import visible

    click.echo(f"mobster: {visible(message, keep_newlines=True)}", err=True)
    raise SystemExit(USAGE_EXIT)


def _console(err: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=err, highlight=False, soft_wrap=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mobster", prog_name="mobster")
def cli() -> None:
    """Mobster replay: end-to-end checks of iOS apps.

    A model-driven agent performs a check's plain-English steps until it passes once; later runs
    replay that path with zero model calls while the screen still matches. The verdict always
    comes from assertions on the accessibility tree.
    """


def _device_options(f: Any) -> Any:
    for option in reversed(
        [
            click.option("--scripted", metavar="APP.yaml", help="Run on the scripted phone with this app script."),
            click.option("--wda", metavar="URL", help="Drive a WebDriverAgent already listening at URL."),
            click.option("--sim", metavar="NAME", help="Run on the iOS simulator NAME (or UDID)."),
            click.option("--device", metavar="NAME", help="Run on the USB iPhone NAME (or UDID)."),
            click.option("--model", metavar="NAME", help="claude-…, gpt-…, or scripted. Default: from your keys."),
            click.option(
                "--env-file", type=click.Path(dir_okay=False, path_type=Path), help="Read API keys from this file."
            ),
            click.option("--no-heal", is_flag=True, help="Strict CI: fail a check whose screen changed; no key."),
            click.option("--fresh", is_flag=True, help="Run every step with Smart and record again."),
            click.option(
                "--carry", is_flag=True, help="On a new build, replay the newest earlier build's path before recording."
            ),
            click.option("--max-usd", type=float, help="Cap each check's model spend (USD)."),
            click.option("--json", "as_json", is_flag=True, help="Print results.json on stdout."),
            click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Also copy junit.xml here."),
        ]
    ):
        f = option(f)
    return f


@cli.command(context_settings={"ignore_unknown_options": False})
@click.argument("checks", nargs=-1)
@_device_options
@click.option("--parallel", type=click.IntRange(1, 64), default=1, show_default=True, help="Devices at once.")
@click.option("--shard", metavar="I/N", help="Run every N-th check, starting at the I-th.")
@click.option("--accept", metavar="CHECK", help="With `test heal`: keep the healed steps of CHECK.")
@click.option("--reject", metavar="CHECK", help="With `test heal`: bring CHECK's recorded steps back.")
def test(checks: tuple[str, ...], **opts: Any) -> None:
    """Run checks (every check in .mobster/checks by default).

    With a key (or --model scripted), Smart runs each check until it passes once, then later runs
    replay. Without a key: replay, $0.

    `mobster test heal [CHECK]` lists the heals waiting for review; add --accept CHECK or
    --reject CHECK to decide.
    """
    if checks and checks[0] == "heal":
        _heal_command(checks[1:], accept=opts["accept"], reject=opts["reject"])
        return
    if opts["accept"] or opts["reject"]:
        _fail("--accept and --reject go with `mobster test heal`")
    code = _run_tests(list(checks), opts)
    raise SystemExit(code)


@cli.command()
@click.option("--check", "check_file", required=True, type=click.Path(dir_okay=False, path_type=Path))
@_device_options
def verify(check_file: Path, **opts: Any) -> None:
    """Run one check file and exit with its verdict's code."""
    opts.update(parallel=1, shard=None)
    raise SystemExit(_run_tests([str(check_file)], opts))


@cli.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def demo(directory: Path | None) -> None:
    """Run a sample project on the scripted phone: no key, no phone."""
    from ._demo import run_demo

    raise SystemExit(run_demo(directory or Path("mobster-demo")))


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


def _run_tests(checks: list[str], opts: dict[str, Any]) -> int:  # noqa: C901, PLR0915 - reshaped next
    import asyncio  # here, not at the top: `mobster --help` doesn't pay for it
    import signal

    from mobster_core import FailureClass, MobsterError, RunOptions, SuiteStopped, SystemClock, run_suite
    from mobster_core.checks import parse_shard, shard

    from ._devices import make_devices, model_factory, read_env_file

    root, files = _root_and_files(checks)
    if opts.get("shard"):
        try:
            index, total = parse_shard(opts["shard"])
        except ValueError as exc:
            _fail(str(exc))
        files = shard(files, index, total)
    env = dict(os.environ)
    if opts.get("env_file"):
        env.update(read_env_file(opts["env_file"]))
    clock = SystemClock()
    try:
        devices = make_devices(
            scripted=opts.get("scripted"),
            wda=opts.get("wda"),
            sim=opts.get("sim"),
            device=opts.get("device"),
            parallel=opts.get("parallel") or 1,
            clock=clock,
        )
        make_model: Callable[[], Model | None] = _no_model
        if not opts["no_heal"] or opts["fresh"]:
            # Under --no-heal (strict CI) no adapter is even constructed: a drifted step fails `drift`.
            make_model, _name = model_factory(opts.get("model"), env, clock)
    except (MobsterError, ValueError) as exc:
        _fail(str(exc))
    as_json = bool(opts.get("as_json"))
    out = _console(err=as_json)
    progress = _console(err=True)
    from ._render import visible

    def on_result(result: CheckResult) -> None:
        _print_check(out, result)

    options = RunOptions(
        no_heal=opts["no_heal"],
        fresh=opts["fresh"],
        carry=bool(opts.get("carry")),
        max_usd=opts.get("max_usd"),
        root=root,
        on_sent=lambda what: progress.print(f"  · {visible(what)}", style="dim", markup=False),
        on_result=on_result,
    )

    progress.print(f"running {len(files)} check{'s' if len(files) != 1 else ''} …", style="dim")
    received: list[int] = []

    async def suite_until_stopped() -> SuiteResult:
        # Ctrl+C and SIGTERM cancel the suite: each check in flight writes a `stopped` result,
        # its in-flight action is journaled as unknown, and nothing is cached (SuiteStopped).
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def stop(signum: int) -> None:
            received.append(signum)
            task.cancel()

        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop, signum)
        try:
            return await run_suite(files, devices, clock, models=make_model, options=options)
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)

    try:
        suite = asyncio.run(suite_until_stopped())
    except SuiteStopped as exc:
        for result in exc.suite.checks:
            if result.outcome.failure_class is FailureClass.STOPPED:
                _print_check(out, result)
        _print_summary(out, exc.suite, root)
        signum = received[0] if received else signal.SIGINT
        progress.print(
            f"stopped by {signal.Signals(signum).name}; results are in {visible(exc.suite.folder)}", markup=False
        )
        return 128 + int(signum)
    _print_summary(out, suite, root)
    if opts.get("junit"):
        opts["junit"].write_bytes((suite.folder / "junit.xml").read_bytes())
    if as_json:
        from ._render import json_text

        click.echo(json_text(json.dumps(suite.to_dict(), indent=2, ensure_ascii=False)))
    return suite.exit_code


def _no_model() -> Model | None:
    return None


def _print_check(out: Any, result: CheckResult) -> None:
    from ._render import STYLE, check_lines

    first, *rest = check_lines(result)
    out.print(first, style=STYLE[result.verdict], markup=False)
    for line in rest:
        out.print(line, markup=False)


def _print_summary(out: Any, suite: SuiteResult, root: Path) -> None:
    from ._render import pending_line, summary_line

    out.print(summary_line(suite), markup=False)
    pending = _pending_heals([Path(root / c.file) for c in suite.checks])
    line = pending_line(pending)
    if line:
        out.print(line, markup=False)


def _pending_heals(files: Sequence[Path]) -> int:
    from mobster_core.exceptions import HealFileError
    from mobster_core.heals import heal_file_for, read_heal_file

    total = 0
    for f in files:
        try:
            total += sum(len(e.new) for e in read_heal_file(heal_file_for(f)))
        except HealFileError:
            continue
    return total


# -- mobster test heal -------------------------------------------------------------------------


def _heal_command(checks: Sequence[str], *, accept: str | None, reject: str | None) -> None:
    from mobster_core import load_check
    from mobster_core.exceptions import CheckError
    from mobster_core.heals import HealFileError, accept_heals, reject_heals

    from ._render import visible

    if accept and reject:
        _fail("choose --accept or --reject, not both")
    cwd = Path.cwd()
    out = _console()
    if accept or reject:
        file = _resolve_check(accept or reject or "", cwd)
        try:
            check = load_check(file)
            if accept:
                n = accept_heals(check)
                out.print(
                    f"kept {n} heal{'s' if n != 1 else ''} of {visible(file.name)}: "
                    "the healed steps are the recorded path",
                    markup=False,
                )
            else:
                n = reject_heals(check)
                out.print(
                    f"rejected {n} heal{'s' if n != 1 else ''} of {visible(file.name)}: "
                    "the recorded steps are back and fail with class drift when they change again",
                    markup=False,
                )
        except (CheckError, HealFileError) as exc:
            _fail(str(exc))
        return
    root, files = _root_and_files(list(checks))
    listed = 0
    for file in files:
        try:
            lines = _heal_lines(root, file)
        except (CheckError, HealFileError) as exc:
            out.print(f"{visible(file.name)}: {visible(exc)}", markup=False)
            continue
        for line in lines:
            out.print(line, markup=False)
        listed += bool(lines)
    if not listed:
        out.print("no heals wait for review")
    else:
        out.print("accept: mobster test heal --accept CHECK    reject: mobster test heal --reject CHECK")


def _heal_lines(root: Path, file: Path) -> list[str]:
    from mobster_core import load_check
    from mobster_core.heals import heal_file_for, pending_heals, read_heal_file

    from ._render import heal_listing

    if not read_heal_file(heal_file_for(file)):
        return []
    check = load_check(file)
    rows = []
    for heal in pending_heals(check, root):
        diff: list[str] = []
        if heal.env is not None:
            diff = [f"screen before → after ({heal.env}):"]
            diff += [f"- {role} {label!r}" for role, label in heal.gone]
            diff += [f"+ {role} {label!r}" for role, label in heal.came]
        e = heal.entry
        rows.append((e.step, e.from_, e.to, e.why, diff))
    return heal_listing(f"{check.name} ({file.name})", rows)


def main() -> None:
    """The console script's entry point."""
    try:
        cli(standalone_mode=False)
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
