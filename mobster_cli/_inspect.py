r"""``mobster inspect``: the device's current screen as the matcher and the verdict see it, on any screen.

Rule 1: it takes the device options of ``mobster test`` (the same decorator, the same
        ``Settings`` and harness specs), less those of a run (model, heal, frames), and reads
        exactly one device, opened by the harness (``Harness.one_device``). The project config
        and its profiles fill what the command line leaves out as for ``mobster test``
        (``_config``'s Rule 1: ``--profile`` or ``$MOBSTER_PROFILE``, the device, caps,
        ``session-wait``, ``env-file``, ``locale``, the waits of a step and the paths store, which
        ``--after`` replays with); the config's run keys don't apply. With ``--app BUNDLE`` it
        says when another app is in front; ``--launch`` launches that app first (no reset: an
        inspection changes nothing else; in ``--locale`` where the device launches apps in a
        locale).
Rule 2: the screen shown is the one the verdict reads: the device's evidence read
        (``read_evidence``) when it has one, else its read. Each element is given with its role,
        label, value, identifier, path, frame in points and whether it counts as shown, and why
        not (``Screen.hidden``, the core's one rule). Where the replay's fast read differs, each
        difference is listed (``mobster_core.screens.read_differences``).
Rule 3: ``--select TEXT`` adds the step and the expect entries a check would write for the
        elements labelled TEXT (``mobster_core.screens.suggest``: checked with the assertions'
        rules on this screen), or says the label is hidden or absent, with the candidates.
Rule 4: ``--json`` prints one ``mobster.inspect/1`` document (``docs/inspect.md``); under
        ``--watch``, one document a line, each time the screen changes.
Rule 5: ``--watch`` reads again every ``--every`` seconds on the command's clock and prints the
        screen again when its read fingerprint changed. Ctrl+C or SIGTERM ends it (the signal
        rule, ``_signals``): exit 130 or 143, the device released; ``quit`` ends it with the code
        the inspection had.
Rule 6: text from the device goes through ``visible`` (``_render``'s Rule 1) and is cut to
        ``MAX_SHOWN`` characters on the terminal, saying how long it was; JSON keeps it whole,
        made safe to print (``json_text``).
Rule 7: an inspection that acts does so through one live session (``mobster_core.sessions``),
        opened at its first action: each action is judged by the safety rules, journaled before
        it is sent (a run folder under ``.mobster/runs/``, as a run's) and sent at most once. One
        that only reads writes nothing.
Rule 8: ``--link URL`` opens the link before the read, as a step ``Open link "URL"`` does (the
        device's ``OPEN_URL``; after ``--launch`` when both are given).
Rule 9: ``--after CHECK`` replays the check's recorded path at $0 as ``mobster test --no-heal``
        does (``LiveSession.replay``: its launch, the matcher, the safety rules; never a model),
        ``--step N`` stops after step N of the path, and the screen it ends on is read. A check
        with no path for this device and app (why, as a run says it), an N that is no step of
        the path, or a check that can't be read is one line, exit 3, before anything is sent. A
        replay that stops early (a drift, a refusal, an unknown outcome) says how in one line on
        stderr, and the screen it stopped on is read: exit 1 when the check would fail there (a
        drift), 3 when it couldn't run.
Rule 10: under ``--watch`` the command's input gives commands (``_watch``): the rows are numbered;
        ``tap`` names a shown element of the screen printed last (by ``--select``'s finding, or
        its row), which a settled read must still show there before it is tapped through the
        session (Rule 7: a purchase on a simulator is refused, saying so); the screen is then
        read again and printed. What a command says goes to stdout, or to stderr under ``--json``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from ._config import configured
from ._options import FiniteNumber
from ._paths import paths_option
from ._shared import Runtime, boundary, console, fail, keys, project_root, resolve_check, runtime

if TYPE_CHECKING:
    from mobster_core import Check, Clock, Device, DeviceInfo, Element, RunOptions, Screen
    from mobster_core.screens import Difference, Suggestion
    from mobster_core.sessions import LiveSession, Reached
    from mobster_harness import Harness, OpenDevice, Settings

    from ._watch import Command

__all__ = ["MAX_SHOWN", "SCHEMA", "inspect_command", "inspect_document", "screen_lines"]

SCHEMA = "mobster.inspect/1"
#: The most characters of one label, value or identifier shown on the terminal.
MAX_SHOWN = 120
#: The options of ``mobster test`` that belong to a run, not to a device: inspect leaves them out.
_RUN_ONLY = frozenset(
    {"model", "no_heal", "fresh", "carry", "max_usd", "frames", "junit"}
    | {"as_json"}  # ``--json`` is inspect's own: another document
)
_INTERRUPTED = 130
#: Rule 9: the exit code of a replay that stopped early, by its verdict (``mobster test``'s).
_STOPPED_EXIT = {"failed": 1, "couldnt_run": 3}


class _Stop(Exception):
    """Rule 9: the inspection can't go on; the message is its one line (exit 3)."""


@attrs.frozen
class _Job:
    """What to do once the device is open: reach the screen, select, watch, and how to print."""

    app: str | None
    launch: bool
    select: str | None
    watch: bool
    every: float
    as_json: bool
    locale: str | None = None
    link: str | None = None
    after: Check | None = None
    step: int | None = None
    #: ``--after``'s argument as given, and the check file as shown (relative to the project).
    named: str = ""
    shown_file: str = ""


@attrs.frozen
class _Reads:
    """One look at the screen: the verdict's read, and the fast read when the device has an evidence read."""

    screen: Screen
    evidence: bool
    differences: tuple[Difference, ...]


def inspect_command(device_options: Callable[[Any], Any]) -> click.Command:
    """The ``inspect`` command, with ``device_options`` (``mobster test``'s decorator) less its run options."""

    @click.command(
        name="inspect",
        epilog="Exit codes: 0 read, 1 --after's replay drifted (the check would fail there), 3 couldn't read "
        "(a bad option, no device, no recorded path), 130 or 143 stopped (Ctrl+C, SIGTERM).",
    )
    @click.option("--app", metavar="BUNDLE", help="The app to look at: say so when another is in front.")
    @click.option("--launch", is_flag=True, help="Launch --app first (no reset); default: read what is in front.")
    @click.option("--link", metavar="URL", help='Open this deep link first, as a step Open link "URL" does.')
    @click.option(
        "--after",
        metavar="CHECK",
        help="Replay CHECK's recorded path at $0 (as mobster test --no-heal) and read the screen it ends on.",
    )
    @click.option("--step", metavar="N", help="With --after: stop after step N of the recorded path.")
    @click.option("--select", metavar="TEXT", help="The step and expect entries a check would write for TEXT.")
    @click.option("--json", "as_json", is_flag=True, help="Print one mobster.inspect/1 document (docs/inspect.md).")
    @click.option(
        "--watch",
        is_flag=True,
        help="Print the screen again each time it changes, until Ctrl+C; read commands from stdin "
        "(tap LABEL, tap ROW, read, quit).",
    )
    @click.option(
        "--every",
        type=FiniteNumber(0.1, 60.0),
        default=1.0,
        show_default=True,
        metavar="SECONDS",
        help="How often --watch reads the screen.",
    )
    @paths_option
    @click.pass_context
    def inspect(ctx: click.Context, /, **opts: Any) -> None:
        """Print the device's current screen as the matcher and the verdict see it.

        Each element's role, label, value, identifier, path and frame, and whether it counts as
        shown (and why not). The same device options as mobster test. --link, --after and the
        taps of --watch reach any screen first.
        """
        after = opts.get("after")
        raise SystemExit(boundary(lambda: _inspect(runtime(ctx), configured(ctx, opts, () if not after else (after,)))))

    for param in _device_params(device_options):
        inspect.params.append(param)
    return inspect


def _device_params(device_options: Callable[[Any], Any]) -> list[click.Parameter]:
    """The parameters ``device_options`` adds, less those of a run (Rule 1)."""

    def bare() -> None: ...

    holder = click.command()(device_options(bare))
    return [p for p in holder.params if p.name not in _RUN_ONLY]


def _job(opts: dict[str, Any]) -> _Job:
    """The inspection the options ask for; a bad one is one line, exit 3 (Rules 8, 9)."""
    job = _Job(
        opts["app"], opts["launch"], opts["select"], opts["watch"], opts["every"], opts["as_json"], opts.get("locale")
    )
    if job.launch and job.app is None:
        fail("--launch needs --app BUNDLE: the app to launch")
    if job.select is not None and not job.select.strip():
        fail("--select needs the label to look for, such as --select Continue")
    link = opts.get("link")
    if link is not None and not link.strip():
        fail("--link needs the URL to open, such as --link yourapp://signup")
    job = attrs.evolve(job, link=link)
    after, step = opts.get("after"), opts.get("step")
    if step is not None and after is None:
        fail("--step needs --after CHECK: the check whose recorded path it stops in")
    if after is None:
        return job
    if job.launch:
        fail("--after launches the check's app as its run does: leave out --launch")
    return _with_check(job, after, step)


def _with_check(job: _Job, after: str, step: str | None) -> _Job:
    """Rule 9: ``--after``'s check, read as ``mobster test`` reads it, and ``--step``'s number."""
    from mobster_core import load_check
    from mobster_core.checks import CheckError, find_project_root

    if not after.strip():
        fail("--after needs the check to replay, such as --after signup")
    number = None
    if step is not None:
        if not (step.strip().isascii() and step.strip().isdigit()):
            fail(f"--step {step!r}: give the number of a step of the recorded path, such as --step 2")
        number = int(step)
    file = resolve_check(after, Path.cwd())
    try:
        check = load_check(file)
    except CheckError as exc:
        fail(str(exc))
    root = find_project_root(file.parent) or Path.cwd()
    shown = _relative(file, root)
    return attrs.evolve(job, after=check, step=number, app=job.app or check.app.bundle, named=after, shown_file=shown)


def _relative(file: Path, root: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(file)


def _inspect(on: Runtime, opts: dict[str, Any]) -> int:
    from mobster_core.checks import find_project_root
    from mobster_harness import Harness, Settings

    job = _job(opts)
    settings = Settings.from_values(opts, secrets=keys(opts.get("env_file")), profile=opts.get("profile_used"))
    clock = on.the_clock()
    root = project_root(Path.cwd())
    if job.after is not None:
        root = find_project_root(job.after.file.parent) or root
    harness = Harness(settings, root, clock)
    acts = _Acts(root, clock, harness.run_options)
    try:
        if opts.get("driver"):
            return _on_driver(on, tuple(opts["driver"]), settings, job, acts)
        opened = _open(harness, job)
        try:
            return _looked(on, _session(opened.device, job, acts))
        finally:
            opened.release()
    finally:
        acts.close()


def _on_driver(on: Runtime, driver: tuple[str, str], settings: Settings, job: _Job, acts: _Acts) -> int:
    """``--driver FACTORY ARG``: its first device (``mobster test``'s own loader)."""
    from ._devices import driver_devices

    async def body() -> int:
        devices = await driver_devices(driver, settings, acts.clock)
        return await _session(devices[0], job, acts)

    return _looked(on, body())


def _looked(runtime: Runtime, coro: Any) -> int:
    """Run the inspection under the signal rule (``_signals``): Ctrl+C or SIGTERM ends it, 130 or 143 (Rule 5).

    A problem found on the way (Rule 9) is one line, exit 3.
    """
    from ._signals import Stop, Stopped, until_stopped

    stop = Stop()
    try:
        return int(runtime.run_to_end(until_stopped(coro, stop)))
    except Stopped:
        click.echo(f"stopped by {stop.name}", err=True)
        return stop.code or _INTERRUPTED
    except KeyboardInterrupt:  # before the loop runs (the signal rule holds while it does)
        click.echo("stopped", err=True)
        return _INTERRUPTED
    except _Stop as problem:
        fail(str(problem))


def _open(harness: Harness, job: _Job) -> OpenDevice:
    """The one device the options name, opened by the harness (Rule 1); a problem exits 3."""
    from mobster_harness import CouldntOpen, PoolError

    if not harness.settings.devices.kinds:
        fail(
            "choose a device: --scripted APP.yaml, --sim NAME, --device NAME, --wda URL, --appium URL, "
            "--android [SERIAL] or --driver FACTORY ARG"
        )
    try:
        count = len(harness.specs())
        if count > 1:
            fail(f"inspect reads one device; the options name {count}: give one")
        return harness.one_device(bundle=job.app)
    except (PoolError, CouldntOpen) as exc:
        fail(str(exc))


class _Acts:
    """Rule 7: the inspection's actions, through one live session opened at the first of them."""

    def __init__(self, root: Path, clock: Clock, options: Callable[[], RunOptions]) -> None:
        self.root = root
        self.clock = clock
        self._options = options
        self._session: LiveSession | None = None

    async def session(self, device: Device) -> LiveSession:
        """The live session on ``device``, started the first time (a device that fails is a ``SessionError``)."""
        if self._session is None:
            from mobster_core.sessions import LiveSession

            session = LiveSession(device, self.clock, self.root, self._options())
            await session.start()
            self._session = session
        return self._session

    def close(self) -> None:
        """Close the session's journal: nothing is sent after this."""
        if self._session is not None:
            self._session.close()
            self._session = None


async def _session(device: Device, job: _Job, acts: _Acts) -> int:
    """Reach the screen (Rules 8, 9), print it, and under ``--watch`` go on (Rules 5, 10); the exit code."""
    from mobster_core import LaunchOptions
    from mobster_core.protocols import LocaleLaunches

    reached = None
    if job.after is not None:
        reached = await _replay(device, job, acts)
    elif job.launch and job.app is not None:
        # The locale goes where the device can apply it (as a run's launch does); elsewhere it is the phone's.
        applies = isinstance(device, LocaleLaunches) and device.launches_in_locale()
        await device.launch(job.app, LaunchOptions(locale=job.locale if applies else None))
    if job.link is not None and (reached is None or reached.reached):
        await _open_link(device, job, acts)
    code = 0 if reached is None or reached.outcome is None else _STOPPED_EXIT.get(reached.outcome.verdict.value, 3)
    info = await device.info()
    reads = await _look(device)
    _print(reads, info, job, reached, intro=True)
    if job.watch:
        await _watch(_Watching(device, job, acts, info, reached), reads)
    return code


async def _replay(device: Device, job: _Job, acts: _Acts) -> Reached:
    """Rule 9: the check's recorded path replayed at $0, up to ``--step``; a stop is said on stderr."""
    from mobster_core import FailureClass
    from mobster_core.sessions import NoRecordedPath, NotInPath

    from ._render import visible

    assert job.after is not None
    session = await acts.session(device)
    try:
        reached = await session.replay(job.after, until=job.step)
    except NoRecordedPath as exc:
        raise _Stop(
            f"--after {job.named}: {job.shown_file} has no recorded path for this device and app to replay "
            f"({exc.why}): record it first with mobster test {job.named} (a model records it), then inspect again"
        ) from None
    except NotInPath as exc:
        if exc.steps == 0:
            raise _Stop(
                f"--step {exc.until}: {job.shown_file} has no steps (it only launches its app): leave out --step"
            ) from None
        raise _Stop(
            f"--step {exc.until}: the recorded path of {job.shown_file} has {exc.steps} step{_s(exc.steps)}: give "
            f"--step 1 to {exc.steps} (mobster paths show {job.named} lists them)"
        ) from None
    outcome = reached.outcome
    if outcome is not None:
        where = "it drifted on" if outcome.failure_class is FailureClass.DRIFT else "the replay stopped on"
        console(err=True).print(
            f"mobster: --after {visible(job.named)}: {visible(outcome.message)}; the screen {where} is below",
            markup=False,
        )
    return reached


def _s(n: int) -> str:
    return "" if n == 1 else "s"


async def _open_link(device: Device, job: _Job, acts: _Acts) -> None:
    """Rule 8: the link, opened as a step ``Open link "URL"`` is (journaled, through the session)."""
    from mobster_core import Op
    from mobster_core.sessions import SessionError

    assert job.link is not None
    session = await acts.session(device)
    try:
        await session.act(Op.OPEN_URL, text=job.link)
    except SessionError as exc:
        raise _Stop(f"--link {job.link}: {exc.message}") from None


async def _look(device: Device) -> _Reads:
    """The verdict's read and, when the device has an evidence read, where the fast read differs (Rule 2)."""
    from mobster_core import EvidenceReads
    from mobster_core.screens import read_differences

    if not isinstance(device, EvidenceReads):
        return _Reads(await _twice(device.read), evidence=False, differences=())
    evidence = await _twice(device.read_evidence)
    fast = await _twice(device.read)
    return _Reads(evidence, evidence=True, differences=read_differences(evidence, fast))


async def _twice(read: Callable[[], Awaitable[Screen]]) -> Screen:
    """A read that fails is tried once more, as a run's reads are; a second failure ends the command."""
    from mobster_core import DeviceError

    try:
        return await read()
    except DeviceError:
        return await read()


# -- --watch and its commands (Rules 5, 10) -------------------------------------------------------


@attrs.frozen
class _Watching:
    """Rule 10: what every command of a watch works with."""

    device: Device
    job: _Job
    acts: _Acts
    info: DeviceInfo
    #: How the watch began (``--after``'s replay): every JSON document says it (Rule 4).
    reached: Reached | None = None


async def _watch(w: _Watching, shown: _Reads) -> None:
    """Rule 5: print again on every change; Rule 10: each command line as it comes; until ``quit`` or Ctrl+C."""
    from ._watch import Kind, parse, stdin_lines

    lines = stdin_lines(sys.stdin)
    try:
        while True:
            line = await lines.next(w.acts.clock, w.job.every)
            if line is None:
                reads = await _look(w.device)
                if reads.screen.fingerprint != shown.screen.fingerprint:
                    shown = reads
                    _print(reads, w.info, w.job, w.reached)
                continue
            command = parse(line)
            if command.kind is Kind.QUIT:
                return
            shown = await _command(w, shown, command)
    finally:
        lines.close()


async def _command(w: _Watching, shown: _Reads, command: Command) -> _Reads:
    """Rule 10: do one command; the screen printed last after it."""
    from ._watch import HELP, Kind, target

    if command.kind is Kind.HELP:
        _say(w.job, HELP)
        return shown
    if command.kind is Kind.BAD:
        _say(w.job, command.problem or HELP, "yellow")
        return shown
    if command.kind is Kind.TAP:
        chosen = target(shown.screen, command)
        if isinstance(chosen, str):
            _say(w.job, chosen, "yellow")
            return shown
        problem = await _tap(w, chosen)
        if problem is not None:
            _say(w.job, problem, "yellow")
            return shown
    reads = await _look(w.device)
    _print(reads, w.info, w.job, w.reached)
    return reads


async def _tap(w: _Watching, element: Element) -> str | None:
    """Rule 10: tap ``element`` through the session once a settled read still shows it; what went wrong, or None."""
    from mobster_core import Op
    from mobster_core.sessions import SessionEnded, SessionError

    try:
        session = await w.acts.session(w.device)
        now = await session.read()
        there = now.element_at(element.path)
        if there is None or (there.role, there.label) != (element.role, element.label) or not now.is_shown(there):
            return "the screen changed since it was printed: nothing was sent; type read to print it again"
        acted = await session.act(Op.TAP, target=element.path)
    except SessionEnded as exc:
        said = exc.outcome.message if exc.outcome is not None else exc.message
        return f"{said} Nothing more is sent in this inspection: look at the app, then inspect again"
    except SessionError as exc:
        return exc.message
    _say(w.job, f"tapped: {acted.said}", "dim")
    return None


def _say(job: _Job, text: str, style: str | None = None) -> None:
    """Rule 10: what a command says: on stdout, or on stderr under ``--json`` (its stdout is JSON)."""
    from ._render import visible

    console(err=job.as_json).print(visible(text), style=style, markup=False)


def _print(reads: _Reads, info: DeviceInfo, job: _Job, reached: Reached | None = None, *, intro: bool = False) -> None:
    """One look at the screen, as text or JSON; ``intro``: the first, after how the screen was reached."""
    from mobster_core.screens import suggest

    from ._render import json_text

    chosen = None if job.select is None else suggest(reads.screen, job.select)  # blank: refused before opening
    if job.as_json:
        doc = inspect_document(reads.screen, info, reads=(reads.evidence, reads.differences), select=chosen)
        doc.update(link=job.link, after=None if job.after is None else _after_doc(job, reached))
        click.echo(json_text(json.dumps(doc, indent=None if job.watch else 2, ensure_ascii=False)))
        return
    out = console()
    for line, style in _reach_lines(job, reached) if intro else ():
        out.print(line, style=style, markup=False)
    lines = screen_lines(reads.screen, info, evidence=reads.evidence, differences=reads.differences, rows=job.watch)
    for line, style in lines:
        out.print(line, style=style, markup=False)
    if job.app is not None and reads.screen.app != job.app:
        tail = "" if job.after is not None else ": add --launch"  # a replay launched it: the flow left it
        out.print(f"{_cut(reads.screen.app)} is in front, not {_cut(job.app)}{tail}", style="yellow", markup=False)
    if chosen is not None:
        for line in suggestion_lines(chosen):
            out.print(line, markup=False)
    if job.watch:
        from ._watch import HELP

        out.print(f"watching: the screen prints again when it changes; {HELP}; Ctrl+C stops", style="dim", markup=False)


def _reach_lines(job: _Job, reached: Reached | None) -> list[tuple[str, str | None]]:
    """Rules 8, 9: how the screen was reached, before the screen (the first print only)."""
    lines: list[tuple[str, str | None]] = []
    if reached is not None:
        lines.append((_replayed_line(job, reached), "dim"))
        lines += [(f"  {r.index} {_cut(r.text, MAX_SHOWN * 2)}" + _drifted(r.reason), None) for r in reached.reports]
    if job.link is not None and (reached is None or reached.reached):
        lines.append((f"opened the link {_cut(job.link)}", "dim"))
    return lines


def _drifted(reason: str | None) -> str:
    return "" if reason is None else f"  drifted: {_cut(reason)}"


def _replayed_line(job: _Job, reached: Reached) -> str:
    """Rule 9's first line: how much of the path ran (never a step that didn't as one that did)."""
    file = _cut(job.shown_file)
    if reached.steps == 0:
        did = "launched" if reached.outcome is None else "tried to launch"
        return f"{did} {file}'s app as its run does (it has no steps)"
    healed = "; the healed path, whose heal waits for review" if reached.healed else ""
    if reached.outcome is None:
        upto = reached.steps if reached.until is None else reached.until
        return f"replayed {file}'s recorded path at $0 ({_span(upto)} of {reached.steps}{healed}):"
    ran = sum(1 for r in reached.reports if r.reason is None)
    return f"replayed {file}'s recorded path at $0 ({_span(ran)} of {reached.steps} ran, then it stopped{healed}):"


def _span(n: int) -> str:
    return "no step" if n == 0 else "step 1" if n == 1 else f"steps 1 to {n}"


def _after_doc(job: _Job, reached: Reached | None) -> dict[str, Any] | None:
    """Rule 9's ``after`` of the document (``docs/inspect.md``)."""
    if reached is None:
        return None
    outcome = reached.outcome
    stopped = None
    if outcome is not None:
        stopped = {
            "step": outcome.step,
            "verdict": outcome.verdict.value,
            "class": None if outcome.failure_class is None else outcome.failure_class.value,
            "message": outcome.message,
        }
    return {
        "check": job.shown_file,
        "steps": reached.steps,
        "until": reached.until,
        "healed": reached.healed,
        "replayed": [
            {"index": r.index, "text": r.text, "source": r.source.value, "reason": r.reason} for r in reached.reports
        ],
        "stopped": stopped,
    }


# -- the terminal (Rules 2, 3, 6) ----------------------------------------------------------------


def _cut(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` safe to print (``visible``), cut to ``limit`` characters saying how long it was (Rule 6)."""
    from ._render import visible

    if len(text) <= limit:
        return visible(text)
    return visible(text[:limit]) + f"… ({len(text):,} characters)"


def _quoted(text: str) -> str:
    return '"' + _cut(text) + '"'


def screen_lines(
    screen: Screen,
    info: DeviceInfo,
    *,
    evidence: bool,
    differences: tuple[Difference, ...] = (),
    rows: bool = False,
) -> list[tuple[str, str | None]]:
    """The screen as indented lines, each with its rich style (None: plain), every text made safe (Rule 6).

    With ``rows``, each element's line starts with its row number (from 1, in tree order: Rule 10).
    """
    read = (
        "the evidence read (read_evidence), as the verdict reads it"
        if evidence
        else "its read (it has no evidence read), as the verdict reads it"
    )
    width, height = screen.size
    shown = len(screen.shown)
    lines: list[tuple[str, str | None]] = [
        (f"{_cut(screen.app)} on {_cut(info.name)}, {_cut(info.os_text)}: {width} x {height} pt", "bold"),
        (f"{len(screen.elements)} elements, {shown} shown; screen {screen.hash}; {read}", "dim"),
    ]
    digits = len(str(len(screen.elements)))
    for row, (element, why) in enumerate(zip(screen.elements, screen.hidden, strict=True), start=1):
        depth = max(element.path.count("/") - 2, 0)
        mark = (f"{row:>{digits}} " if rows else "") + "  " * depth + ("✓ " if why is None else "· ")
        tail = "" if why is None else f"  not shown: {why.value} ({why.why})"
        lines.append((mark + _element_text(element, screen) + tail, None if why is None else "dim"))
    if evidence:
        lines += difference_lines(differences)
    return lines


def _element_text(element: Element, screen: Screen) -> str:
    parts = [_cut(element.role)]
    if element.label:
        parts.append(_quoted(element.label))
    if element.identifier:
        parts.append(f"id={_cut(element.identifier)}")
    if element.value:
        parts.append(f"value={_quoted(element.value)}")
    if element.placeholder:
        parts.append(f"placeholder={_quoted(element.placeholder)}")
    if not element.enabled:
        parts.append("disabled")
    if element.selected:
        parts.append("selected")
    x, y, w, h = _points(element, screen)
    parts.append(f"{_cut(element.path)} at {x},{y} {w}x{h}")
    return "  ".join(parts)


def _points(element: Element, screen: Screen) -> tuple[int, int, int, int]:
    width, height = screen.size
    x, y, w, h = element.frame
    return round(x * width), round(y * height), round(w * width), round(h * height)


def difference_lines(differences: tuple[Difference, ...]) -> list[tuple[str, str | None]]:
    """Where the fast read differs from the verdict's (Rule 2)."""
    if not differences:
        return [("the fast read (read) agrees with it on every element", "dim")]
    n = len(differences)
    lines: list[tuple[str, str | None]] = [
        (
            f"the fast read (read, what a replayed step waits on) differs on {n} element{'s' if n != 1 else ''}:",
            "yellow",
        )
    ]
    for d in differences:
        element = d.evidence or d.fast
        label = "" if element is None or not element.label else f" {_quoted(element.label)}"
        role = "" if element is None else f" {_cut(element.role)}"
        lines.append((f"  {_cut(d.path)}{role}{label}: {d.what}", None))
    return lines


def suggestion_lines(suggestion: Suggestion) -> list[str]:
    """``--select``'s answer (Rule 3)."""
    from mobster_core.screens import Found

    lines = [_cut(suggestion.message, MAX_SHOWN * 4)]
    for c in suggestion.candidates:
        where = f"{_cut(c.element.role)} at {_cut(c.element.path)}"
        if c.hidden is not None:
            lines.append(f"  {where}: not shown: {c.hidden.value} ({c.hidden.why})")
            continue
        lines.append(f"  {where}:")
        if c.step is not None:
            lines.append(f"    step:   {_cut(c.step, MAX_SHOWN * 2)}")
        if suggestion.found is Found.DUPLICATED:
            lines.append(
                f"    replay: number {c.nth + 1} of {c.count} in tree order (recorded count {c.count}, nth {c.nth})"
            )
        lines.extend(f"    expect: - {_cut(e, MAX_SHOWN * 2)}" for e in c.expect)
        if c.note is not None:
            lines.append(f"    note:   {c.note}")
    if suggestion.left_out:
        lines.append(f"  …and {suggestion.left_out} more")
    return lines


# -- JSON (Rule 4) --------------------------------------------------------------------------------


def inspect_document(
    screen: Screen,
    info: DeviceInfo,
    *,
    reads: tuple[bool, tuple[Difference, ...]] = (False, ()),
    select: Suggestion | None = None,
) -> dict[str, Any]:
    """The ``mobster.inspect/1`` document (``docs/inspect.md``)."""
    evidence, differences = reads
    return {
        "schema": SCHEMA,
        "device": {"name": info.name, "ios": info.ios, "kind": str(info.kind)},
        "app": screen.app,
        "size": list(screen.size),
        "read": "evidence" if evidence else "read",
        "hash": screen.hash,
        "fingerprint": screen.fingerprint,
        "elements": [_element_doc(e, why, screen) for e, why in zip(screen.elements, screen.hidden, strict=True)],
        "fast_read_differences": [{"path": d.path, "what": d.what} for d in differences] if evidence else None,
        "select": None if select is None else _select_doc(select),
        "link": None,
        "after": None,
    }


def _element_doc(element: Element, why: Any, screen: Screen) -> dict[str, Any]:
    return {
        "path": element.path,
        "role": element.role,
        "label": element.label,
        "value": element.value,
        "identifier": element.identifier,
        "placeholder": element.placeholder,
        "frame": list(_points(element, screen)),
        "enabled": element.enabled,
        "visible": element.visible,
        "selected": element.selected,
        "shown": why is None,
        "hidden": None if why is None else why.value,
        "why": None if why is None else why.why,
    }


def _select_doc(suggestion: Suggestion) -> dict[str, Any]:
    return {
        "text": suggestion.text,
        "found": suggestion.found.value,
        "message": suggestion.message,
        "near_misses": list(suggestion.near_misses),
        "shown": suggestion.shown,
        "left_out": suggestion.left_out,
        "candidates": [
            {
                "path": c.element.path,
                "role": c.element.role,
                "label": c.element.label,
                "shown": c.hidden is None,
                "hidden": None if c.hidden is None else c.hidden.value,
                "step": c.step,
                "expect": list(c.expect),
                "count": c.count,
                "nth": c.nth,
                "near": c.near,
                "note": c.note,
            }
            for c in suggestion.candidates
        ],
    }
