"""``mobster mcp``: serve one device to an MCP client (an agent), over stdio or streamable HTTP.

Rule 1: the device is named as ``mobster test`` names one (``--scripted``, ``--sim``, ``--device``,
        ``--wda``, ``--appium`` with ``--caps``), exactly one; the model for ``run_check`` as it
        does (``--model``, else the keys); ``--env-file`` gives keys and ``${NAME}`` values.
Rule 2: stdio by default (stdout carries only the protocol); ``--http PORT`` serves streamable HTTP
        on 127.0.0.1 only, at ``/mcp``.
Rule 3: the MCP SDK is the ``mcp`` extra: without it the command says what to install (exit 3).
Rule 4: the project is the folder at or above ``--project`` (default: the current folder) that
        holds ``.mobster``, else that folder. A ``--project`` that is no folder (not there, a
        file) is refused at start, one line: the first call would have made a folder nobody meant.
Rule 5: the project config (``mobster.toml`` or ``[tool.mobster]``, ``--profile`` or
        ``$MOBSTER_PROFILE``) fills what the command line leaves out, as for ``mobster test``:
        the device, the model, the env file, the locale, the paths store and the waits.
Rule 6: the server runs under the signal rule of every long-lived command (``_signals``):
        Ctrl+C or SIGTERM ends the calls in flight (an action in flight is journaled as
        unknown), releases the device (its lock, its session) and exits 130 or 143, within
        ``GRACE_S`` and the leftovers' moment, whatever the transport is waiting for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ._config import profile_option
from ._options import timing_options
from ._paths import paths_option

__all__ = ["mcp"]


def _timing(f: Any) -> Any:
    for option in reversed(timing_options()):
        f = option(f)
    return f


def _locale(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from .main import _locale_option

    return _locale_option(ctx, param, value)


@click.command(epilog="docs/mcp.md has the config for Claude, Cursor and VS Code, and a worked session.")
@click.option("--scripted", metavar="APP.yaml", multiple=True, help="Serve the scripted phone with this app script.")
@click.option("--sim", metavar="NAME[@PORT]", multiple=True, help="Serve the iOS simulator NAME or UDID.")
@click.option("--device", metavar="NAME", multiple=True, help="Serve the USB iPhone NAME or UDID.")
@click.option("--wda", metavar="URL", multiple=True, help="Serve the WebDriverAgent listening at URL.")
@click.option("--appium", metavar="URL", multiple=True, help="Serve a phone behind the Appium server at URL.")
@click.option("--caps", metavar="FILE", multiple=True, help="The Appium session's capabilities (JSON).")
@click.option("--model", metavar="NAME", help="The model run_check heals with: claude-…, gpt-…, or scripted.")
@click.option("--env-file", type=click.Path(path_type=Path), help="Read API keys and ${NAME} values from this file.")
@click.option("--locale", metavar="LOCALE", callback=_locale, help="Run the app in this locale.")
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
    from .main import _boundary, _runtime

    runtime = _runtime(ctx)
    raise SystemExit(_boundary(lambda: _serve(runtime, _configured(ctx, _project_given(opts)))))


def _project_given(opts: dict[str, Any]) -> dict[str, Any]:
    """Rule 4: ``--project`` names a folder that is there (the first call would make one nobody meant)."""
    from .main import _fail

    project: Path | None = opts["project"]
    if project is not None and not project.is_dir():
        if project.exists():
            _fail(f"--project {project}: it is a file; give the project's folder (the one holding .mobster)")
        _fail(
            f"--project {project}: there is no such folder; give the project's folder (the one holding .mobster), "
            "or make it first"
        )
    return opts


def _configured(ctx: click.Context, opts: dict[str, Any]) -> dict[str, Any]:
    """Rule 5: the options, with the project config's values where the command line gave none."""
    from mobster_drivers.harness.config import ConfigError

    from ._config import apply_config
    from .main import _fail

    try:
        return apply_config(ctx, opts, start=(opts["project"] or Path.cwd()).absolute())[0]
    except ConfigError as exc:
        _fail(str(exc))


def _serve(runtime: Any, opts: dict[str, Any]) -> int:
    from mobster_core.distribution import install_hint

    from .main import _fail, _project_root

    try:
        import mobster_mcp
    except ImportError as exc:  # Rule 3: mobster_mcp imports the SDK when its server is built
        _fail(f"mobster mcp needs the mcp extra ({exc.name} is missing): {install_hint('mcp')}")
    bridge = mobster_mcp.Bridge(_settings(opts), _project_root((opts["project"] or Path.cwd()).absolute()),
                                runtime.the_clock())  # fmt: skip
    try:
        server = mobster_mcp.build_server(bridge)
    except ImportError as exc:
        _fail(f"mobster mcp needs the mcp extra ({exc.name} is missing): {install_hint('mcp')}")
    if opts["http_port"] is None:
        serving = mobster_mcp.stdio_serving(server)
    else:
        click.echo(f"serving MCP on http://{mobster_mcp.LOOPBACK}:{opts['http_port']}/mcp", err=True)
        serving = mobster_mcp.http_serving(server, opts["http_port"])
    return _until_stopped(runtime, serving, bridge)


def _until_stopped(runtime: Any, serving: Any, bridge: Any) -> int:
    """Rule 6: serve until the client goes, or a signal ends the calls in flight; the device is released."""
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


def _settings(opts: dict[str, Any]) -> Any:
    """Rule 1: the harness's settings of the options, with the environment and ``--env-file``."""
    from mobster_drivers.harness.settings import Settings, Timing
    from mobster_drivers.harness.spec import DeviceOptions

    from .main import _fail, _keys

    devices = DeviceOptions().given_as(lambda name: opts.get(name) or ())
    if len(devices.kinds) != 1 or sum(len(v) for v in (devices.scripted, devices.sim, devices.device, devices.wda,
                                                      devices.appium)) != 1:  # fmt: skip
        _fail("mobster mcp serves one device: give one of --scripted APP.yaml, --sim NAME, --device NAME, --wda URL "
              "or --appium URL")  # fmt: skip
    return Settings(
        devices=devices,
        model=opts.get("model"),
        paths=opts.get("paths_store") or "local",
        locale=opts.get("locale"),
        timing=Timing(opts.get("poll_interval"), opts.get("drift_after"), opts.get("give_up_after")),
        secrets=_keys(opts.get("env_file")),
    )
