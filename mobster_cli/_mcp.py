"""``mobster mcp``: serve one device to an MCP client (an agent), over stdio or streamable HTTP.

Rule 1: the device is named as ``mobster test`` names one (``--scripted``, ``--sim``, ``--device``,
        ``--wda``, ``--appium`` with ``--caps``, ``--android``), exactly one; the model for ``run_check`` as it
        does (``--model``, else the keys); ``--env-file`` gives keys and ``${NAME}`` values.
Rule 2: stdio by default (stdout carries only the protocol); ``--http PORT`` serves streamable HTTP
        on 127.0.0.1 only, at ``/mcp``.
Rule 3: the MCP SDK is the ``mcp`` extra: without it the command says what to install (exit 3).
Rule 4: the project is the folder at or above ``--project`` (default: the current folder) that
        holds ``.mobster``, else that folder. A ``--project`` that is no folder (not there, a
        file) is refused at start, one line: the first call would have made a folder nobody meant.
Rule 5: the project config (``mobster.toml`` or ``[tool.mobster]``, ``--profile`` or
        ``$MOBSTER_PROFILE``) fills what the command line leaves out, as for ``mobster test``:
        the device, the model, the env file, the locale, the paths store and the waits; and, though
        the command has no option for them, the keys of a run (:data:`RUN_KEYS`: ``no-heal``,
        ``fresh``, ``carry``, ``max-usd``, ``frames``, ``video``, ``alerts``, ``retries``, an Appium
        session's ``session-wait``, and a team store's ``paths-write``, ``paths-key``,
        ``paths-lease`` and ``paths-wait``), so ``run_check`` runs a check as ``mobster test`` would. The
        keys of a pool and a suite (``parallel``, ``sessions``, ``each-device``, ``repeat``) don't
        apply: the server serves one device, a check at a time; nor does ``session-per-check``: the
        agent's live session and the checks it runs share the one Appium session.
Rule 6: the settings are the harness's (``Settings.from_values``), and the bridge gets the rest
        through its door (``mobster_harness.Harness``): the device, the models, the run options.
Rule 7: the server runs under the signal rule of every long-lived command (``_signals``):
        Ctrl+C or SIGTERM ends the calls in flight (an action in flight is journaled as
        unknown), releases the device (its lock, its session) and exits 130 or 143, within
        ``GRACE_S`` and the leftovers' moment, whatever the transport is waiting for.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ._config import configured, profile_option
from ._options import timing_options
from ._paths import paths_option
from ._shared import ConfiguredOption, Runtime, boundary, fail, keys, locale_option, project_root, runtime

if TYPE_CHECKING:
    from mobster_harness import Settings

__all__ = ["RUN_KEYS", "mcp"]

#: Rule 5: the config's keys a run through ``run_check`` takes, though ``mobster mcp`` has no option for them.
RUN_KEYS = (
    "no-heal", "fresh", "carry", "max-usd", "frames", "video", "alerts", "retries", "session-wait", "platform",
    "paths-write", "paths-key", "paths-lease", "paths-wait",
)  # fmt: skip


def _timing(f: Any) -> Any:
    for option in reversed(timing_options()):
        f = option(f)
    return f


@click.command(epilog="docs/mcp.md has the config for Claude, Cursor and VS Code, and a worked session.")
@click.option(
    "--scripted",
    cls=ConfiguredOption,
    metavar="APP.yaml",
    multiple=True,
    help="Serve the scripted phone with this app script.",
)
@click.option(
    "--sim", cls=ConfiguredOption, metavar="NAME[@PORT]", multiple=True, help="Serve the iOS simulator NAME or UDID."
)
@click.option(
    "--device", cls=ConfiguredOption, metavar="NAME", multiple=True, help="Serve the USB iPhone NAME or UDID."
)
@click.option(
    "--wda", cls=ConfiguredOption, metavar="URL", multiple=True, help="Serve the WebDriverAgent listening at URL."
)
@click.option(
    "--appium",
    cls=ConfiguredOption,
    metavar="URL",
    multiple=True,
    help="Serve a phone behind the Appium server at URL.",
)
@click.option(
    "--android",
    cls=ConfiguredOption,
    metavar="[SERIAL]",
    multiple=True,
    is_flag=False,
    flag_value="",
    help="Serve the Android device or emulator SERIAL (no SERIAL: the only one adb lists).",
)
@click.option(
    "--caps", cls=ConfiguredOption, metavar="FILE", multiple=True, help="The Appium session's capabilities (JSON)."
)
@click.option(
    "--model",
    cls=ConfiguredOption,
    metavar="NAME",
    help="The model run_check heals with: claude-…, gpt-…, or scripted.",
)
@click.option(
    "--env-file",
    cls=ConfiguredOption,
    type=click.Path(path_type=Path),
    help="Read API keys and ${NAME} values from this file.",
)
@click.option(
    "--locale", cls=ConfiguredOption, metavar="LOCALE", callback=locale_option, help="Run the app in this locale."
)
@paths_option
@_timing
@profile_option
@click.option(
    "--project",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="The project folder (the one holding .mobster), which must be there. Default: the current folder.",
)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT.",
)
@click.pass_context
def mcp(ctx: click.Context, /, **opts: Any) -> None:
    """Serve a phone to an MCP client: an agent's session becomes a check that replays with no model."""
    on = runtime(ctx)
    _project_given(opts)
    start = (opts["project"] or Path.cwd()).absolute()
    raise SystemExit(boundary(lambda: _serve(on, configured(ctx, opts, start=start, also=RUN_KEYS))))


def _project_given(opts: dict[str, Any]) -> dict[str, Any]:
    """Rule 4: ``--project`` names a folder that is there (the first call would make one nobody meant)."""
    project: Path | None = opts["project"]
    if project is not None and not project.is_dir():
        if project.exists():
            fail(f"--project {project}: it is a file; give the project's folder (the one holding .mobster)")
        fail(
            f"--project {project}: there is no such folder; give the project's folder (the one holding .mobster), "
            "or make it first"
        )
    return opts


def _serve(on: Runtime, opts: dict[str, Any]) -> int:
    from mobster_core.distribution import install_hint

    try:
        import mobster_mcp
    except ImportError as exc:  # Rule 3: mobster_mcp imports the SDK when its server is built
        fail(f"mobster mcp needs the mcp extra ({exc.name} is missing): {install_hint('mcp')}")
    bridge = mobster_mcp.Bridge(_settings(opts), project_root((opts["project"] or Path.cwd()).absolute()),
                                on.the_clock())  # fmt: skip
    try:
        server = mobster_mcp.build_server(bridge)
    except ImportError as exc:
        fail(f"mobster mcp needs the mcp extra ({exc.name} is missing): {install_hint('mcp')}")
    if opts["http_port"] is None:
        serving = mobster_mcp.stdio_serving(server)
    else:
        click.echo(f"serving MCP on http://{mobster_mcp.LOOPBACK}:{opts['http_port']}/mcp", err=True)
        serving = mobster_mcp.http_serving(server, opts["http_port"])
    return _until_stopped(on, serving, bridge)


def _until_stopped(runtime: Runtime, serving: Any, bridge: Any) -> int:
    """Rule 7: serve until the client goes, or a signal ends the calls in flight; the device is released."""
    from ._signals import GRACE_S, Stop, Stopped, until_stopped

    stop = Stop()

    def say(signum: int) -> None:
        import signal

        name = signal.Signals(signum).name
        click.echo(f"stopping ({name}): ending the calls in flight and releasing the device", err=True)

    try:
        runtime.run_to_end(until_stopped(serving, stop, say=say, grace=GRACE_S))
    except Stopped:
        pass
    finally:
        bridge.close()
    if stop.code is None:
        return 0
    click.echo(f"stopped by {stop.name}: the calls in flight were ended and the device released", err=True)
    return stop.code


def _settings(opts: dict[str, Any]) -> Settings:
    """Rules 1, 6: the harness's settings of the options, with the environment and ``--env-file``."""
    from mobster_harness import Settings

    settings = Settings.from_values(opts, secrets=keys(opts.get("env_file")), profile=opts.get("profile_used"))
    devices = settings.devices
    if len(devices.kinds) != 1 or sum(len(v) for v in (devices.scripted, devices.sim, devices.device, devices.wda,
                                                      devices.appium, devices.android)) != 1:  # fmt: skip
        fail("mobster mcp serves one device: give one of --scripted APP.yaml, --sim NAME, --device NAME, --wda URL, "
              "--appium URL or --android [SERIAL]")  # fmt: skip
    return settings
