"""The project config on the command line: ``--profile``, the config under ``mobster test``, ``mobster config``.

Rule 1: what the config says is the harness's (:mod:`mobster_harness.config`); here its
        values fill the options the command line left out: an option given on the command line
        (or by its environment variable) wins, then the profile's key, then the base key, then
        the option's default. An option naming a device (``--scripted``, ``--sim``, ``--device``,
        ``--wda``, ``--appium``, ``--driver``) replaces the config's whole pool. A key of an option
        the command doesn't take is left out (``verify`` has no ``--parallel``), unless the command
        asks for it (``also``: ``mobster mcp``'s ``run_check`` takes the run's keys it has no
        option for, so it runs as ``mobster test`` does).
Rule 2: ``mobster config`` takes ``mobster test``'s options and prints the settings they and the
        config make, each with where it came from (``default``, the file and profile,
        ``command line``, ``environment``); ``--json`` prints them as one JSON object.
Rule 3: what ``mobster config`` prints holds no secret: every value it shows goes through the
        scrubber of each WebDriverAgent and Appium URL the settings name (the harness's
        ``DeviceSpec.scrub``, the one every other output uses), so a URL's password and its
        token-like path segments show as ``***``, in the text and in ``--json``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from ._shared import fail, keys

if TYPE_CHECKING:
    from mobster_harness.config import ProjectConfig

__all__ = ["apply_config", "config_command", "configured", "profile_option"]

_GIVEN = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT, ParameterSource.PROMPT)
_DEVICE_OPTIONS = ("scripted", "sim", "device", "wda", "appium", "android", "driver")


def profile_option(f: Any) -> Any:
    """``--profile NAME``: the config's profile (default: ``$MOBSTER_PROFILE``, else the file's ``profile``)."""
    return click.option(
        "--profile",
        metavar="NAME",
        help="Use this profile of the project config (mobster.toml or [tool.mobster]; docs/config.md). "
        "Default: $MOBSTER_PROFILE, else the config's profile key.",
    )(f)


def _start(checks: Any) -> Path:
    """Where the config is looked for: the first check's folder when one is given by path, else here."""
    for name in checks or ():
        path = Path(str(name))
        if path.exists():
            return path.absolute().parent
    return Path.cwd()


def configured(
    ctx: click.Context, opts: dict[str, Any], checks: Any = (), *, start: Path | None = None, also: Collection[str] = ()
) -> dict[str, Any]:
    """Rule 1 for a command: :func:`apply_config`'s options, and ``profile_used`` (the "Run it again" line's).

    A config that can't be used is one line and exit 3.
    """
    from mobster_harness.config import ConfigError

    try:
        merged, _sources, project = apply_config(ctx, opts, checks, start=start, also=also)
    except ConfigError as exc:
        fail(str(exc))
    return {**merged, "profile_used": project.profile}


def apply_config(
    ctx: click.Context, opts: dict[str, Any], checks: Any = (), *, start: Path | None = None, also: Collection[str] = ()
) -> tuple[dict[str, Any], dict[str, str], ProjectConfig]:
    """Rule 1: ``opts`` with the config's values where the command line gave none, and each one's source.

    The config is looked for from ``start`` (``mobster mcp --project``), else the first check's
    folder, else here. ``also`` names the keys (``max-usd``) taken from the config though the
    command has no option for them.
    """
    from mobster_harness.config import KEYS, load_config

    project = load_config(start or _start(checks), profile=opts.get("profile"))
    merged = dict(opts)
    sources: dict[str, str] = {}
    if any(_given(ctx, name) for name in _DEVICE_OPTIONS):
        project = project.without_pool()
    for key in KEYS:
        if key.field not in opts:
            if key.name in also and key.name in project.values:
                merged[key.field] = project.values[key.name]
                sources[key.name] = project.sources[key.name]
            continue  # an option this command doesn't take (verify has no --parallel)
        if _given(ctx, key.field):
            sources[key.name] = "command line"
        elif key.name in project.values:
            merged[key.field] = project.values[key.name]
            sources[key.name] = project.sources[key.name]
        else:
            default = _default(ctx, key.field)
            if isinstance(default, str):  # ``--paths``' local, not what its callback took from the default profile
                merged[key.field] = default
            sources[key.name] = "default"
    return merged, sources, project


def _default(ctx: click.Context, name: str) -> Any:
    """The option's default as click holds it (``--paths``' ``local``; a sentinel for a list)."""
    param = next(p for p in ctx.command.params if p.name == name)
    return param.get_default(ctx)


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) in _GIVEN


# -- mobster config (Rule 2) -----------------------------------------------------------------------


def config_command(test: click.Command) -> click.Command:
    """``mobster config``: the options of ``test`` (its device, wait and store options), and ``--json``."""
    skipped = {"checks", "as_json", "junit"}
    params = [p for p in test.params if p.name not in skipped]
    params.append(click.Option(["--json", "as_json"], is_flag=True, help="Print the settings as JSON."))

    def callback(**opts: Any) -> None:
        from mobster_harness.config import ConfigError

        ctx = click.get_current_context()
        try:
            merged, sources, project = apply_config(ctx, opts)
        except ConfigError as exc:
            fail(str(exc))
        rows = _scrubbed(_rows(merged, sources), merged)
        if opts.get("as_json"):
            import json

            from ._render import json_text

            doc = {
                "file": str(project.file) if project.file else None,
                "profile": project.profile,
                "profile_from": project.profile_from,
                "profiles": list(project.profiles),
                "settings": {name: {"value": value, "from": where} for name, value, where in rows},
            }
            click.echo(json_text(json.dumps(doc, indent=2, ensure_ascii=False)))
            return
        _print(project, rows)

    return click.Command(
        "config",
        callback=callback,
        params=params,
        help="Print the settings a `mobster test` with these options would use, and where each came from.\n\n"
        "The project config is mobster.toml, or [tool.mobster] in pyproject.toml, at the project root "
        "(docs/config.md); options given here win over it.",
        context_settings={"help_option_names": ["-h", "--help"]},
    )


def _rows(merged: Mapping[str, Any], sources: Mapping[str, str]) -> list[tuple[str, Any, str]]:
    """Each key's effective value (JSON-ready) and its source; the model from the keys when none is named."""
    from mobster_core import PollPolicy
    from mobster_harness import default_model
    from mobster_harness.config import KEYS

    policy = PollPolicy()
    waits = {"poll_interval": policy.interval, "drift_after": policy.drift_after, "give_up_after": policy.give_up_after}
    rows: list[tuple[str, Any, str]] = []
    for key in KEYS:
        if key.name not in sources:
            continue
        value = merged.get(key.field)
        where = sources[key.name]
        if value is None and key.field in waits:
            value = waits[key.field]  # the core's default wait
        if key.name == "paths" and isinstance(value, str):
            from mobster_drivers.stores import shown

            value = shown(value)  # a URL's password is never printed
        if key.name == "model" and value is None and where == "default" and not merged.get("no_heal"):
            env_file = merged.get("env_file")
            value = default_model(keys(Path(env_file) if env_file else None))
            if value is not None:
                name = "ANTHROPIC_API_KEY" if "claude" in value else "OPENAI_API_KEY"
                where = f"environment ({name})"
        rows.append((key.name, _plain(value), where))
    return rows


def _scrubbed(rows: list[tuple[str, Any, str]], merged: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """Rule 3: every value of ``rows`` with the secrets of each URL the settings name shown as ``***``."""
    from mobster_harness import DeviceSpec

    specs = [DeviceSpec(kind, str(url)) for kind in ("wda", "appium") for url in merged.get(kind) or ()]

    def scrub(value: Any) -> Any:
        if isinstance(value, str):
            for spec in specs:
                value = spec.scrub(value)
            return value
        if isinstance(value, list):
            return [scrub(v) for v in value]
        if isinstance(value, dict):
            return {scrub(k): scrub(v) for k, v in value.items()}
        return value

    return [(name, scrub(value), scrub(where)) for name, value, where in rows]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _print(project: ProjectConfig, rows: list[tuple[str, Any, str]]) -> None:
    from mobster_harness.config import toml_value

    from ._render import visible

    if project.file is None:
        click.echo("config: none (mobster.toml, or [tool.mobster] in pyproject.toml; `mobster init` writes one)")
    else:
        chosen = f"; profile {project.profile} (from {project.profile_from})" if project.profile else ""
        known = f"; profiles: {', '.join(project.profiles)}" if project.profiles else ""
        click.echo(visible(f"config: {project.file}{chosen}{known}"))
    width = max(len(name) for name, _, _ in rows)
    for name, value, where in rows:
        text = "(none)" if value in (None, [], ()) else toml_value(value)
        click.echo(visible(f"{name.ljust(width)}  {text}  ({where})"))
