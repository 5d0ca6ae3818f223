r"""``mobster inspect``: the device's current screen as the matcher and the verdict see it.

Rule 1: it takes the device options of ``mobster test`` (the same decorator, the same
        ``Settings`` and harness specs), less those of a run (model, heal, frames, waits), and
        reads exactly one device, opened by the harness (``Harness.one_device``). The project
        config and its profiles fill what the command line leaves out as for ``mobster test``
        (``_config``'s Rule 1: ``--profile`` or ``$MOBSTER_PROFILE``, the device, caps,
        ``session-wait``, ``env-file``, ``locale``); the config's run keys don't apply. With
        ``--app BUNDLE`` it says when another app is in front; ``--launch`` launches that app first
        (no reset: an inspection changes nothing else; in ``--locale`` where the device launches
        apps in a locale).
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
        rule, ``_signals``): exit 130 or 143, the device released.
Rule 6: text from the device goes through ``visible`` (``_render``'s Rule 1) and is cut to
        ``MAX_SHOWN`` characters on the terminal, saying how long it was; JSON keeps it whole,
        made safe to print (``json_text``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from ._config import configured
from ._options import FiniteNumber
from ._shared import Runtime, boundary, console, fail, keys, project_root, runtime

if TYPE_CHECKING:
    from mobster_core import Clock, Device, DeviceInfo, Element, Screen
    from mobster_core.screens import Difference, Suggestion
    from mobster_harness import Harness, OpenDevice, Settings

__all__ = ["MAX_SHOWN", "SCHEMA", "inspect_command", "inspect_document", "screen_lines"]

SCHEMA = "mobster.inspect/1"
#: The most characters of one label, value or identifier shown on the terminal.
MAX_SHOWN = 120
#: The options of ``mobster test`` that belong to a run, not to a device: inspect leaves them out.
_RUN_ONLY = frozenset(
    {"model", "no_heal", "fresh", "carry", "max_usd", "poll_interval", "drift_after", "give_up_after"}
    | {"frames", "junit", "as_json"}  # ``--json`` is inspect's own: another document
)
_INTERRUPTED = 130


@attrs.frozen
class _Job:
    """What to do once the device is open: launch, select, watch, and how to print."""

    app: str | None
    launch: bool
    select: str | None
    watch: bool
    every: float
    as_json: bool
    locale: str | None = None


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
        epilog="Exit codes: 0 read, 3 couldn't read (a bad option, no device), 130 or 143 stopped (Ctrl+C, SIGTERM).",
    )
    @click.option("--app", metavar="BUNDLE", help="The app to look at: say so when another is in front.")
    @click.option("--launch", is_flag=True, help="Launch --app first (no reset); default: read what is in front.")
    @click.option("--select", metavar="TEXT", help="The step and expect entries a check would write for TEXT.")
    @click.option("--json", "as_json", is_flag=True, help="Print one mobster.inspect/1 document (docs/inspect.md).")
    @click.option("--watch", is_flag=True, help="Print the screen again each time it changes, until Ctrl+C.")
    @click.option(
        "--every",
        type=FiniteNumber(0.1, 60.0),
        default=1.0,
        show_default=True,
        metavar="SECONDS",
        help="How often --watch reads the screen.",
    )
    @click.pass_context
    def inspect(ctx: click.Context, /, **opts: Any) -> None:
        """Print the device's current screen as the matcher and the verdict see it.

        Each element's role, label, value, identifier, path and frame, and whether it counts as
        shown (and why not). The same device options as mobster test.
        """
        raise SystemExit(boundary(lambda: _inspect(runtime(ctx), configured(ctx, opts))))

    for param in _device_params(device_options):
        inspect.params.append(param)
    return inspect


def _device_params(device_options: Callable[[Any], Any]) -> list[click.Parameter]:
    """The parameters ``device_options`` adds, less those of a run (Rule 1)."""

    def bare() -> None: ...

    holder = click.command()(device_options(bare))
    return [p for p in holder.params if p.name not in _RUN_ONLY]


def _inspect(on: Runtime, opts: dict[str, Any]) -> int:
    from mobster_harness import Harness, Settings

    job = _Job(
        opts["app"], opts["launch"], opts["select"], opts["watch"], opts["every"], opts["as_json"], opts.get("locale")
    )
    if job.launch and job.app is None:
        fail("--launch needs --app BUNDLE: the app to launch")
    if job.select is not None and not job.select.strip():
        fail("--select needs the label to look for, such as --select Continue")
    settings = Settings.from_values(opts, secrets=keys(opts.get("env_file")), profile=opts.get("profile_used"))
    clock = on.the_clock()
    if opts.get("driver"):
        return _on_driver(on, tuple(opts["driver"]), settings, job, clock)
    opened = _open(Harness(settings, project_root(Path.cwd()), clock), job)
    try:
        return _looked(on, _session(opened.device, clock, job))
    finally:
        opened.release()


def _on_driver(on: Runtime, driver: tuple[str, str], settings: Settings, job: _Job, clock: Clock) -> int:
    """``--driver FACTORY ARG``: its first device (``mobster test``'s own loader)."""
    from ._devices import driver_devices

    async def body() -> int:
        devices = await driver_devices(driver, settings, clock)
        return await _session(devices[0], clock, job)

    return _looked(on, body())


def _looked(runtime: Runtime, coro: Any) -> int:
    """Run the inspection under the signal rule (``_signals``): Ctrl+C or SIGTERM ends it, 130 or 143 (Rule 5)."""
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


async def _session(device: Device, clock: Clock, job: _Job) -> int:
    """Launch when asked, print the screen, and under ``--watch`` print it again on every change."""
    from mobster_core import LaunchOptions
    from mobster_core.protocols import LocaleLaunches

    if job.launch and job.app is not None:
        # The locale goes where the device can apply it (as a run's launch does); elsewhere it is the phone's.
        applies = isinstance(device, LocaleLaunches) and device.launches_in_locale()
        await device.launch(job.app, LaunchOptions(locale=job.locale if applies else None))
    info = await device.info()
    reads = await _look(device)
    _print(reads, info, job)
    seen = reads.screen.fingerprint
    while job.watch:
        await clock.sleep(job.every)
        reads = await _look(device)
        if reads.screen.fingerprint != seen:
            seen = reads.screen.fingerprint
            _print(reads, info, job)
    return 0


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


def _print(reads: _Reads, info: DeviceInfo, job: _Job) -> None:
    from mobster_core.screens import suggest

    from ._render import json_text

    chosen = None if job.select is None else suggest(reads.screen, job.select)  # blank: refused before opening
    if job.as_json:
        doc = inspect_document(reads.screen, info, reads=(reads.evidence, reads.differences), select=chosen)
        click.echo(json_text(json.dumps(doc, indent=None if job.watch else 2, ensure_ascii=False)))
        return
    out = console()
    for line, style in screen_lines(reads.screen, info, evidence=reads.evidence, differences=reads.differences):
        out.print(line, style=style, markup=False)
    if job.app is not None and reads.screen.app != job.app:
        out.print(f"{_cut(reads.screen.app)} is in front, not {_cut(job.app)}: add --launch", style="yellow")
    if chosen is not None:
        for line in suggestion_lines(chosen):
            out.print(line, markup=False)
    if job.watch:
        out.print("watching: the screen prints again when it changes; Ctrl+C stops", style="dim", markup=False)


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
    screen: Screen, info: DeviceInfo, *, evidence: bool, differences: tuple[Difference, ...] = ()
) -> list[tuple[str, str | None]]:
    """The screen as indented lines, each with its rich style (None: plain), every text made safe (Rule 6)."""
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
    for element, why in zip(screen.elements, screen.hidden, strict=True):
        depth = max(element.path.count("/") - 2, 0)
        mark = "  " * depth + ("✓ " if why is None else "· ")
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
