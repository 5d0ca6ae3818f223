"""``mobster paths``: the project's recorded paths, listed, shown, forgotten, exported and imported.

Rule 1: every subcommand takes ``--paths STORE`` (``local``, ``committed``, ``s3://…``,
        ``postgresql://…``, ``${NAME}``: without it, the project config's ``paths`` (its default
        profile, or ``$MOBSTER_PROFILE``'s), else ``local``, as ``mobster test``) and works on
        the project at or above the current folder. A remote store is opened as a run opens it
        (``mobster_drivers.stores``: ``${NAME}`` from the environment, the config's ``paths-key``
        signs and verifies); it is named with its password masked, never its ``${NAME}``'s value.
Rule 5: with the config's ``paths-write = false`` the store is read-only here too: ``list``,
        ``show`` and ``export`` read it; ``forget``, ``import`` and ``prune`` refuse, saying so.
Rule 7: a read-only run (``paths-write = false``) that recorded or healed writes them as a bundle,
        ``paths-bundle.json`` in the suite's results folder (``.mobster/test-results/<suite>/``,
        which CI uploads), and says where: ``mobster paths import`` brings them into the store.
Rule 6: ``prune`` forgets every path no check of the project has (its steps changed, or it was
        removed), with the heal states and leases of those identities; ``--dry-run`` only lists.
Rule 2: a check is named as ``mobster test`` names it: a path, or a name in ``.mobster/checks``.
        ``forget`` also takes a path's identity (16 hex digits, as ``list`` shows it): the paths
        of a check that was changed or removed have no check left to name them by.
Rule 3: ``import`` writes nothing from a file that isn't a bundle (exit 3); a bundle whose paths
        (and heal states) were all added or kept exits 0; one with a refused path or heal state
        exits 3 after writing the rest, each refusal said on its own line.
Rule 4: text from files (check names, steps, messages) goes through ``visible`` before it is
        printed (``_render``'s Rule 1).
Rule 5: ``export FILE`` writes the bundle as every user's file is written (``write_user_file``):
        over a regular file or none, never through a symlink (at FILE or at a temporary name:
        the temporary file is created exclusively beside it) and never onto a FIFO or a device,
        renamed into place whole. ``import FILE`` reads it as every user's file is read
        (``read_user_file``: a regular file, a symlink to one followed, bounded).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ._shared import ConfiguredOption, boundary, fail, note, resolve_check

if TYPE_CHECKING:
    from mobster_core import Check
    from mobster_core.paths import PathEntry

__all__ = ["open_paths", "paths", "paths_option", "read_only_bundle"]

USAGE_EXIT = 3


def _configured_store(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Rule 1: ``--paths`` as given; else the project config's ``paths``; else ``local``."""
    from click.core import ParameterSource

    from mobster_harness.config import ConfigError, load_config

    if param.name is None or ctx.get_parameter_source(param.name) is not ParameterSource.DEFAULT:
        return value
    try:
        store = load_config(Path.cwd()).values.get("paths", value)
    except ConfigError as exc:
        _fail(str(exc))
    return str(store)


def _check_store(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Rule 1: ``--paths`` as given (checked as the config checks it), else the config's, else ``local``."""
    from mobster_drivers.stores import check_setting

    value = _configured_store(ctx, param, value)
    try:
        return check_setting(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def paths_option(f: Any) -> Any:
    """Rule 1: ``--paths STORE``."""
    return click.option(
        "--paths",
        "paths_store",
        cls=ConfiguredOption,
        metavar="STORE",
        default="local",
        show_default=True,
        callback=_check_store,
        help="Where recorded paths live: local (.mobster/cache/replay, private), committed (.mobster/paths, in git), "
        's3://BUCKET/PREFIX or postgresql://… (a team\'s store: docs/paths.md), or "${NAME}" (one from the '
        "environment).",
    )(f)


def _boundary(body: Any) -> None:
    raise SystemExit(boundary(body))


def _fail(message: str) -> NoReturn:
    fail(message)


def _project() -> tuple[Path, list[Check]]:
    """The project at or above the current folder, and its checks (a check that can't be read is left out)."""
    from mobster_core import find_checks, load_check
    from mobster_core.checks import find_project_root
    from mobster_core.exceptions import CheckError

    root = find_project_root(Path.cwd())
    if root is None:
        _fail("no .mobster/ folder here or above: run mobster test (or mobster demo) first")
    checks = []
    for file in find_checks(root):
        try:
            checks.append(load_check(file))
        except (CheckError, OSError):
            continue
    return root, checks


def _check(name: str) -> Check:
    """Rule 2."""
    from mobster_core import load_check
    from mobster_core.exceptions import CheckError

    try:
        return load_check(resolve_check(name, Path.cwd()))
    except CheckError as exc:
        _fail(str(exc))


def open_paths(store: str, *, writes: bool = False) -> Any:
    """Rules 1, 5: the store ``store`` names, for the project at or above here (``mobster test heal``)."""
    from mobster_core.checks import find_project_root

    return _open(find_project_root(Path.cwd()) or Path.cwd(), store, writes=writes)


def _open(root: Path, store: str, *, writes: bool = False) -> Any:
    """Rules 1, 5: the store ``store`` names, opened as a run opens it; one line when it can't be."""
    import os

    from mobster_drivers.stores import open_store, shown
    from mobster_harness.config import ConfigError, load_config

    try:
        values = load_config(root).values
    except ConfigError as exc:
        _fail(str(exc))
    if writes and values.get("paths-write") is False:
        _fail(
            f"the {shown(store)} store is read-only here (the config's paths-write = false): nothing was changed; "
            "run this where the store may be written"
        )
    key = values.get("paths-key")
    try:
        return open_store(store, root, env=os.environ, key=None if key is None else str(key))
    except ValueError as exc:
        _fail(str(exc))


def _shown(store: str) -> str:
    """Rule 1: the store as messages name it (its URL's password masked)."""
    from mobster_drivers.stores import shown

    return shown(store)


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def paths() -> None:
    """The recorded paths: list, show, forget, export and import them (docs/ci.md)."""


@paths.command(name="list")
@click.argument("checks", nargs=-1)
@paths_option
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
def paths_list(checks: tuple[str, ...], paths_store: str, as_json: bool) -> None:
    """List the recorded paths: check, env, when and from which build, steps, how it came, last replayed."""
    _boundary(lambda: _list(checks, paths_store, as_json=as_json))


def _list(names: tuple[str, ...], store: str, *, as_json: bool) -> int:
    from mobster_core.paths import list_paths

    from ._render import visible

    root, checks = _project()
    wanted = {_check(n).identity for n in names}
    entries = [e for e in list_paths(root, checks, paths=_open(root, store)) if not wanted or e.identity in wanted]
    if as_json:
        click.echo(json.dumps([_entry_json(e) for e in entries], indent=2, ensure_ascii=True))
        return 0
    out = _console()
    if not entries:
        out.print(f"no recorded paths in the {visible(_shown(store))} store", markup=False)
        return 0
    for e in entries:
        out.print(_entry_line(e, visible), markup=False)
    return 0


def _entry_line(e: PathEntry, visible: Any) -> str:
    orphan = f"no check has it now (identity {e.identity}: mobster paths forget {e.identity} forgets it)"
    who = ", ".join(visible(c) for c in e.checks) or orphan
    how = "recorded" if e.stored.origin is None else e.stored.origin.how
    if e.stored.origin is not None and e.stored.origin.came_from:
        how += f" from {visible(e.stored.origin.came_from)}"
    seen = "never replayed here" if e.last_replayed is None else f"last replayed {e.last_replayed:%Y-%m-%d %H:%M}"
    when = e.stored.recorded_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return (
        f"{who}  {visible(e.env)}  [{e.stored.env.digest}]  {when}, {how}, "
        f"{len(e.steps)} step{'s' if len(e.steps) != 1 else ''}, {seen}"
    )


def _entry_json(e: PathEntry) -> dict[str, Any]:
    origin = e.stored.origin
    return {
        "checks": list(e.checks),
        "names": list(e.names),
        "identity": e.identity,
        "env": {**e.stored.env.to_dict(), "described": e.env},
        "recorded_at": e.stored.recorded_at.isoformat(timespec="seconds"),
        "seq": e.stored.seq,
        "steps": list(e.steps),
        "origin": None if origin is None else origin.to_dict(),
        "last_replayed": None if e.last_replayed is None else e.last_replayed.isoformat(timespec="seconds"),
        "where": e.stored.shown,
    }


@paths.command(name="show")
@click.argument("check")
@paths_option
def paths_show(check: str, paths_store: str) -> None:
    """Show CHECK's recorded paths, step by step, newest first."""
    _boundary(lambda: _show(check, paths_store))


def _show(name: str, store: str) -> int:
    from mobster_core import recorded_paths

    from ._render import visible

    root, _checks = _project()
    check = _check(name)
    found = recorded_paths(check, root, paths=_open(root, store))
    out = _console()
    if not found:
        out.print(f"{visible(check.name)}: no recorded path in the {visible(_shown(store))} store", markup=False)
        return 0
    for path in found:
        how = "" if path.origin is None else f", {path.origin.how}"
        out.print(f"{visible(check.name)}  {visible(path.env)}  [{path.env_digest}]{how}", markup=False)
        out.print(f"  {visible(path.where or path.file)}", markup=False)
        by = None if path.origin is None else path.origin.by
        when = path.recorded_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        out.print(f"  recorded {when}, {visible(by.describe()) if by else 'by an unknown machine'}", markup=False)
        for n, step in enumerate(path.steps, 1):
            live = "  (typed by the model each run)" if step.live else ""
            out.print(f"  {n}. {visible(step.describe())}{live}", markup=False)
    return 0


@paths.command(name="forget")
@click.argument("check")
@click.option("--env", "env_digest", metavar="DIGEST", help="Only the path of this env (its 12 hex digits).")
@paths_option
def paths_forget(check: str, env_digest: str | None, paths_store: str) -> None:
    """Forget CHECK's recorded paths (of one env with --env): its next run records afresh.

    CHECK may also be a path's identity (16 hex digits, as mobster paths list shows it): the
    paths of a check that was changed or removed.
    """
    _boundary(lambda: _forget(check, env_digest, paths_store))


_IDENTITY = re.compile(r"[0-9a-f]{16}")


def _forget(name: str, env: str | None, store: str) -> int:
    from mobster_core.paths import forget_paths

    from ._render import visible

    root, checks = _project()
    if not _names_a_check(name, root) and not _IDENTITY.fullmatch(name):
        _fail(
            f"no check {name!r}: give a path, a name in .mobster/checks/, or a path's identity (16 hex digits, "
            "as mobster paths list shows it)"
        )
    target: Check | str = _check(name) if _names_a_check(name, root) else name
    if isinstance(target, str):  # Rule 2: an identity, of a check changed or removed (or of one that is here)
        owners = [c.name for c in checks if c.identity == target]
        said = ", ".join(visible(n) for n in owners) or f"identity {target} (no check has it now)"
    else:
        said = visible(target.name)
    gone = forget_paths(root, target, env=env, paths=_open(root, store, writes=True))
    out = _console()
    if not gone:
        which = f" for env {visible(env)}" if env else ""
        named = visible(_shown(store))
        out.print(f"{said}: no recorded path{which} in the {named} store to forget", markup=False)
        return 0
    for stored in gone:
        out.print(f"forgot {said}  {visible(stored.env.describe())}  [{stored.env.digest}]", markup=False)
    return 0


def _names_a_check(name: str, root: Path) -> bool:
    """Rule 2: ``name`` is a check file's path, or a name in ``.mobster/checks`` (a check wins over an identity)."""
    checks = root / ".mobster" / "checks"
    return any(p.exists() for p in (Path(name), checks / name, checks / f"{name}.yaml"))


@paths.command(name="export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@paths_option
def paths_export(file: Path, paths_store: str) -> None:
    """Write every usable recorded path into one bundle FILE (for a CI cache or artifact)."""
    _boundary(lambda: _export(file, paths_store))


def _export(file: Path, store: str) -> int:
    """Rule 5: the bundle written as every file a user names is (``write_user_file``)."""
    from mobster_core.exceptions import UnsafeFile
    from mobster_core.files import write_user_file
    from mobster_core.paths import export_paths

    from ._render import visible

    root, _checks = _project()
    data = export_paths(root, paths=_open(root, store), now=datetime.now(UTC))
    try:
        write_user_file(file, data)
    except UnsafeFile as exc:
        _fail(f"{file}: {exc.reason}; {exc.fix}")
    count = len(json.loads(data)["paths"])
    _console().print(f"exported {count} path{'s' if count != 1 else ''} to {visible(file)}", markup=False)
    return 0


@paths.command(name="import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@paths_option
def paths_import(file: Path, paths_store: str) -> None:
    """Add the paths of a bundle FILE (each validated; a newer path here is kept)."""
    _boundary(lambda: _import(file, paths_store))


def _import(file: Path, store: str) -> int:
    from mobster_core.paths import BundleError, import_paths

    from ._render import visible

    root, checks = _project()
    try:
        report = import_paths(root, file, checks, paths=_open(root, store, writes=True))
    except BundleError as exc:
        _fail(str(exc))
    out = _console()
    for what, why in report.refused:
        note(f"refused {what}: {why}")
    older = f", {len(report.older)} left out (older than the newest paths kept here)" if report.older else ""
    out.print(
        f"imported into the {visible(_shown(store))} store: {len(report.added)} added, "
        f"{len(report.same)} already here, {len(report.newer_here)} kept (newer here){older}, "
        f"{len(report.refused)} refused",
        markup=False,
    )
    if report.heals_added or report.heals_kept:
        out.print(
            f"heal states: {len(report.heals_added)} added, {len(report.heals_kept)} kept (one was here)", markup=False
        )
    return USAGE_EXIT if report.refused else 0


@paths.command(name="prune")
@click.option("--dry-run", is_flag=True, help="Only list what would be forgotten.")
@paths_option
def paths_prune(dry_run: bool, paths_store: str) -> None:
    """Forget every recorded path no check of the project has (its steps changed, or it was removed)."""
    _boundary(lambda: _prune(paths_store, dry_run=dry_run))


def _prune(store: str, *, dry_run: bool) -> int:
    """Rule 6."""
    from mobster_core.paths import prune_paths

    from ._render import visible

    root, checks = _project()
    opened = _open(root, store) if dry_run else _open(root, store, writes=True)
    gone = prune_paths(root, checks, paths=opened, dry_run=dry_run)
    out = _console()
    verb = "would forget" if dry_run else "forgot"
    for stored, identity in gone:
        out.print(f"{verb} {identity}  {visible(stored.env.describe())}  [{stored.env.digest}]", markup=False)
    count = len(gone)
    out.print(
        f"{verb} {count} path{'s' if count != 1 else ''} no check has, in the {visible(_shown(store))} store",
        markup=False,
    )
    return 0


def read_only_bundle(store: object, folder: Path, root: Path, out: Any) -> Path | None:
    """Rule 7: a read-only run's recordings and heals, as ``paths-bundle.json`` in ``folder``; None when none."""
    from mobster_core.files import atomic_write
    from mobster_core.paths import ReadOnlyPaths, export_paths, read_bundle

    from ._render import visible

    if not isinstance(store, ReadOnlyPaths) or not (store.overlay.names() or store.overlay.documents("heals/")):
        return None
    target = folder / "paths-bundle.json"
    atomic_write(target, export_paths(root, paths=store.overlay, now=datetime.now(UTC)))  # under .mobster: 0600
    count = len(read_bundle(target))
    try:
        shown = target.relative_to(root)
    except ValueError:
        shown = target
    out.print(
        f"the path store is read-only here: {count} path{'s' if count != 1 else ''} this run recorded or healed "
        f"{'are' if count != 1 else 'is'} in {visible(shown)} (mobster paths import it once this change is merged)",
        markup=False,
    )
    return target
