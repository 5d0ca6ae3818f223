r"""What every command of ``mobster`` stands on: its runtime, its one error boundary and its few helpers.

The CLI's rooms stand in one direction (a layers contract in ``pyproject.toml``): ``main`` (the
group and ``test``, ``verify``, ``demo``, ``report``) on top, the command modules below it
(``_inspect``, ``_mcp``, ``_init``, ``_demo``, then ``_paths``, ``_select``, ``_config``,
``_devices``, ``_options``), this module under them, and the words (``_render``, ``_fixes``) at
the ground. A command module takes what it shares from here, never from ``main``.

Rule 1: a command that can't start (a bad option, no checks, an env file that isn't there) ends
        with one ``mobster: …`` line on stderr and exit :data:`USAGE_EXIT` (3), so that exit 2
        always means "needs review" (:func:`fail`).
Rule 2: :func:`boundary` is the one error boundary: a ``MobsterError`` is its message, an
        ``OSError`` its file and fix (``os_error_message``), a usage error of click's (a bad
        option, a value its type refuses) its message and where the help is, anything else
        ``internal`` with its traceback in a private file of the temp folder, never on the
        terminal (exit 3 each).
Rule 3: the clock and the way a coroutine runs come from the :class:`Runtime` in click's ``obj``:
        the system clock and a loop of its own by default; a test passes a fake clock and its
        ``run``.
Rule 4: importing this module imports click and attrs only (``mobster --help`` well under 0.3 s):
        the core, the harness, the report and rich are imported inside the functions that use
        them.
Rule 5: every line the boundary prints is one line (:func:`said`): ``mobster: `` and the message,
        with every control character of the message shown as an escape (a newline as ``\n``,
        ESC as ``\x1b``, a bidi override as ``\u202e``: ``_render.visible``, the escaping labels
        and titles get). Mobster's own words hold no control character, so what is escaped is
        only what came from outside (a profile's name, a tag, an app's id, a file's name, an
        OS's or a server's words): it can't print a line of its own (``mobster: all checks
        passed``), and it is escaped once, here, whoever built the message.
Rule 6: an option a key of the project config can set is a :class:`ConfiguredOption`: its
        ``--help`` line says the value in effect here when the config (at or above the current
        folder, its profile from ``$MOBSTER_PROFILE`` or its ``profile`` key) sets it, with where
        it came from (``[default here: committed, from mobster.toml]``), and drops the built-in
        ``[default: …]`` it overrides; with no config, or one that can't be read, the help is the
        built-in one (the command itself then says what is wrong with the config). A URL's
        password, token, query and fragment are shown as ``***`` there, as ``mobster config``
        shows them (the harness's ``DeviceSpec.scrub``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import attrs
import click

if TYPE_CHECKING:
    from mobster_core import Clock

__all__ = [
    "USAGE_EXIT",
    "ConfiguredOption",
    "Runtime",
    "boundary",
    "console",
    "fail",
    "internal_message",
    "keys",
    "locale_option",
    "note",
    "project_root",
    "resolve_check",
    "runtime",
    "said",
    "usage_error",
]

#: Rule 1: a command that can't start.
USAGE_EXIT = 3
#: Rule 6: where a help's project config is kept, once per command line.
_HELP_CONFIG = "mobster.help-config"


class ConfiguredOption(click.Option):
    """An option a project config key can set: its help says the default in effect here (Rule 6)."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        here = None if record is None or self.name is None else _configured_here(ctx, self.name)
        if record is None or here is None:
            return record
        names, text = record
        built_in = text.rfind("[default: ")
        if built_in != -1 and text.endswith("]"):
            text = text[:built_in].rstrip()
        return names, f"{text}  [default here: {here}]".strip()


def _configured_here(ctx: click.Context, field: str) -> str | None:
    """Rule 6: ``field``'s value in the project config here and where it came from; None when it sets none."""
    from mobster_harness.config import KEYS, ConfigError, load_config, toml_value

    from ._render import visible

    key = next((k for k in KEYS if k.field == field), None)
    if key is None:
        return None
    root = ctx.find_root()
    if _HELP_CONFIG not in root.meta:
        try:
            root.meta[_HELP_CONFIG] = load_config(Path.cwd())
        except ConfigError:
            root.meta[_HELP_CONFIG] = None
    project = root.meta[_HELP_CONFIG]
    if project is None or key.name not in project.values:
        return None
    value = project.values[key.name]
    shown = f"{toml_value(list(value) if isinstance(value, tuple) else value)}, from {project.sources[key.name]}"
    return visible(_scrubbed(shown, project.values))


def _scrubbed(text: str, values: Mapping[str, Any]) -> str:
    """Rule 6: ``text`` with the secrets of each URL the config names (its devices', its store's) as ``***``."""
    from mobster_harness import DeviceSpec

    for kind in ("wda", "appium"):
        urls = values.get(kind) or ()
        for url in [urls] if isinstance(urls, str) else urls:
            text = DeviceSpec(kind, str(url)).scrub(text)
    store = values.get("paths")
    if isinstance(store, str) and "://" in store:  # a team's store: its URL's password masked, as a run names it
        from mobster_drivers.stores import shown

        text = text.replace(store, shown(store))
    return text


@attrs.frozen
class Runtime:
    """What the command runs on (Rule 3): a clock, and how to run a coroutine to its end.

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


def runtime(ctx: click.Context) -> Runtime:
    """The command's :class:`Runtime` (Rule 3): the one in click's ``obj``, else the system's."""
    obj = ctx.find_object(Runtime)
    return obj if obj is not None else Runtime()


def said(message: object) -> str:
    """Rule 5: the one line the boundary prints for ``message``: ``mobster: `` and its text, every control escaped."""
    from ._render import visible

    return f"mobster: {visible(message)}"


def note(message: object) -> None:
    """A ``mobster: …`` line on stderr that ends nothing (``no check has the tag 'nightly'``), as Rule 5 makes it."""
    click.echo(said(message), err=True)


def fail(message: object) -> NoReturn:
    """Rule 1: one ``mobster: …`` line (Rule 5), exit 3."""
    note(message)
    raise SystemExit(USAGE_EXIT)


class UsageLine(click.ClickException):
    """A usage error of click's (Rule 2) as the boundary says it: one ``mobster: …`` line (Rule 5), exit 3.

    Click's own form is its usage, a hint and ``Error: …`` with the message as it stands, and exit
    2, which here means "needs review"; this is its message, with where the help is.
    """

    exit_code = USAGE_EXIT

    def show(self, file: Any = None) -> None:
        click.echo(said(self.message), file=file, err=file is None)


def usage_error(exc: click.ClickException) -> UsageLine:
    """Rule 2: click's usage error ``exc`` as :class:`UsageLine`: its message, then the command whose help says more."""
    if isinstance(exc, UsageLine):
        return exc
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(ctx, click.Context) and ctx.command.get_help_option(ctx) is not None:
        message = f"{message.rstrip('.')} ({ctx.command_path} --help lists the options)"
    return UsageLine(message)


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


def boundary(body: Callable[[], int]) -> int:
    """Rule 2: the command's one error boundary: every failure ends as one ``mobster: …`` line, exit 3.

    Exit 1 means only "a check failed": a problem of the machine or of the files (a symlinked
    folder, a full disk, a folder of another user) is reported with its file and its fix, and an
    unexpected exception as ``internal`` with its traceback in a file, never on the terminal.
    """
    from mobster_core import MobsterError
    from mobster_core.exceptions import os_error_message

    try:
        return body()
    except click.exceptions.ClickException as exc:
        raise usage_error(exc) from None
    except (SystemExit, KeyboardInterrupt, click.exceptions.Exit, click.exceptions.Abort):
        raise
    except MobsterError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(os_error_message(exc))
    except Exception as exc:  # noqa: BLE001 - the boundary: anything else is an internal error
        fail(internal_message(exc))


def console(err: bool = False) -> Any:
    """A rich console for the command's lines (stderr with ``err``): no highlighting, no wrapping."""
    from rich.console import Console

    return Console(stderr=err, highlight=False, soft_wrap=True)


def locale_option(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """``--locale``: a locale as iOS writes it (``de-DE`` is read as ``de_DE``)."""
    if value is None:
        return None
    from mobster_core.text import normal_locale

    try:
        return normal_locale(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.mobster``, else ``cwd``."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".mobster").is_dir():
            return folder
    return cwd


def resolve_check(name: str, cwd: Path) -> Path:
    """A check as ``mobster test`` names one: a path, or a name in ``.mobster/checks/`` (with or without ``.yaml``)."""
    from mobster_core.checks import find_project_root

    path = Path(name)
    if path.exists():
        return path.resolve()
    root = find_project_root(cwd)
    if root is not None:
        for candidate in (root / ".mobster" / "checks" / name, root / ".mobster" / "checks" / f"{name}.yaml"):
            if candidate.exists():
                return candidate.resolve()
    fail(f"no check {name!r}: give a path, or a name in .mobster/checks/")


def keys(env_file: Path | None) -> dict[str, str]:
    """The environment, with the keys of ``--env-file`` (the harness's reader): one usage line when it can't be read."""
    from mobster_harness.envfile import EnvFileError, read_env_file

    env = dict(os.environ)
    if env_file is not None:
        try:
            env.update(read_env_file(env_file))
        except EnvFileError as exc:
            fail(str(exc))
    return env
