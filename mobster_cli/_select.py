"""``mobster test``'s selection (``--tag``, ``--exclude-tag``), ``--list``, ``--retries`` and ``--repeat``.

Rule 1: ``--tag T`` (repeatable) keeps a check that has every tag given (AND); ``--exclude-tag T``
        (repeatable) drops one that has any of them. A check file that can't be read is kept
        (its run says what is wrong with it, as without a tag): a filter never hides a broken
        file. A tag no check has is no error; a note on stderr says so. A selection that keeps
        no check exits 3, as an empty checks folder does.
Rule 2: ``--list`` runs nothing: it prints each selected check (file, name, tags) and whether a
        path is recorded for it in the chosen store (``--paths``); with a device option, whether
        one is recorded for that device's env (its ``info()`` and the app's ``app_info()``, the
        pool's first device; the public ``mobster_core.paths.env_key``), else how many are
        recorded for any env. A launch-only check (no steps) records no path: it is listed as such,
        never as one Smart must record (``launch_only`` in the JSON). ``--list --json`` prints the
        same as ``mobster.list/1``.
Rule 3: text from files (names, tags, envs) goes through ``visible`` before it is printed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ._shared import ConfiguredOption

if TYPE_CHECKING:
    from mobster_core import AppInfo, Check, DeviceInfo
    from mobster_harness import Harness

    from ._shared import Runtime

__all__ = ["LIST_SCHEMA", "by_tags", "list_checks", "retries_option", "selection_options"]

#: Rule 2: ``--list --json``'s document.
LIST_SCHEMA = "mobster.list/1"


def retries_option(f: Any) -> Any:
    """``--retries N``: also ``mobster verify``'s."""
    return click.option(
        "--retries",
        cls=ConfiguredOption,
        type=click.IntRange(0, 10),
        metavar="N",
        help="Run a check that couldn't run because of the machine (class device, busy or environment) up to N "
        "times more, on another device of the pool when there is one; one that passes so is flaky. Never a drift, "
        "a failed assertion or an unknown outcome. Default 0.",
    )(f)


def selection_options(f: Any) -> Any:
    """Rule 1's and 2's options, and ``--retries``, ``--repeat``."""
    options: list[Callable[[Any], Any]] = [
        click.option(
            "--tag",
            "tags",
            metavar="TAG",
            multiple=True,
            help="Run the checks that have this tag (repeat: each must have every tag given).",
        ),
        click.option(
            "--exclude-tag",
            "exclude_tags",
            metavar="TAG",
            multiple=True,
            help="Leave out the checks that have this tag (repeat: any of them).",
        ),
        click.option(
            "--list",
            "list_only",
            is_flag=True,
            help="Print the selected checks, their tags and whether a path is recorded (for the device "
            "named, if one is), and run nothing.",
        ),
        retries_option,
        click.option(
            "--repeat",
            cls=ConfiguredOption,
            type=click.IntRange(1, 1000),
            metavar="K",
            help="Run each check K times and report its pass rate; the exit code is the worst run's.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _tags_of(file: Path) -> tuple[str, ...] | None:
    """A check file's tags; None when it can't be read."""
    from mobster_core import load_check
    from mobster_core.checks import CheckError

    try:
        return load_check(file).tags
    except (CheckError, OSError, ValueError):
        return None


def by_tags(
    files: Sequence[Path], tags: Sequence[str], exclude: Sequence[str], note: Callable[[str], None]
) -> list[Path]:
    """Rule 1: the files kept by ``--tag`` (all) and ``--exclude-tag`` (any); ``note`` hears of unknown tags."""
    if not tags and not exclude:
        return list(files)
    found = {file: _tags_of(file) for file in files}
    known = {t for given in found.values() if given for t in given}
    for tag in dict.fromkeys([*tags, *exclude]):
        if tag not in known:
            note(f"no check has the tag {tag!r}")
    return [
        file
        for file, given in found.items()
        if given is None or (all(t in given for t in tags) and not any(t in given for t in exclude))
    ]


def list_checks(
    root: Path,
    files: Sequence[Path],
    harness: Harness,
    runtime: Runtime,
    *,
    as_json: bool,
) -> int:
    """Rule 2: print the selected checks and their paths; exit 0."""
    from mobster_core import load_check
    from mobster_core.checks import CheckError

    settings = harness.settings
    envs = _device_envs(files, harness, runtime) if settings.devices.kinds else None
    rows = []
    for file in files:
        try:
            check = load_check(file)
        except (CheckError, OSError, ValueError) as exc:
            rows.append(_row_unread(root, file, str(exc)))
            continue
        rows.append(_row(root, check, settings.paths, envs))
    if as_json:
        from ._render import json_text

        doc = {"schema": LIST_SCHEMA, "store": settings.paths, "checks": rows}
        click.echo(json_text(json.dumps(doc, indent=2, ensure_ascii=False)))
        return 0
    for line in _lines(rows, device=envs is not None):
        click.echo(line)
    return 0


def _shown(root: Path, file: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(file)


def _row_unread(root: Path, file: Path, error: str) -> dict[str, Any]:
    return {
        "file": _shown(root, file),
        "name": None,
        "tags": [],
        "paths": 0,
        "env": None,
        "recorded": None,
        "error": error,
        "launch_only": None,
    }


def _row(root: Path, check: Check, store: str, envs: dict[str, tuple[str, str] | str] | None) -> dict[str, Any]:
    from mobster_core import recorded_paths

    recorded = recorded_paths(check, root, paths=store)
    row: dict[str, Any] = {
        "file": _shown(root, check.file),
        "name": check.name,
        "tags": list(check.tags),
        "paths": len(recorded),
        "env": None,
        "recorded": None,
        "error": None,
        "launch_only": check.launch_only,
    }
    if envs is not None and not check.launch_only:  # Rule 2: a launch-only check has no path to look for
        env = envs.get(check.app.bundle or "")
        if isinstance(env, tuple):
            row["env"] = env[0]
            row["recorded"] = any(p.env_digest == env[1] for p in recorded)
        elif isinstance(env, str):
            row["error"] = env
    return row


def _lines(rows: Sequence[dict[str, Any]], *, device: bool) -> list[str]:
    from ._render import visible

    lines = []
    for row in rows:
        tags = f"  [{', '.join(visible(t) for t in row['tags'])}]" if row["tags"] else ""
        head = f"{visible(row['file'])}  {visible(row['name'] or '?')}{tags}"
        n = row["paths"]
        if row["name"] is None:
            lines.append(f"{head}  can't be read: {visible(row['error'])}")
        elif row["launch_only"]:
            lines.append(f"{head}  launch only: no path to record (it runs with no model, at $0)")
        elif row["recorded"] is True:
            lines.append(f"{head}  path recorded for {visible(row['env'])}")
        elif row["recorded"] is False:
            others = f" ({n} for other envs)" if n else ""
            lines.append(f"{head}  no path for {visible(row['env'])}{others}: Smart records it on its first run")
        elif device and row["error"]:
            lines.append(
                f"{head}  {n} path{'s' if n != 1 else ''} recorded; this device's env unknown: {visible(row['error'])}"
            )
        else:
            lines.append(f"{head}  {n} path{'s' if n != 1 else ''} recorded" if n else f"{head}  no path recorded")
    lines.append(f"{len(rows)} check{'s' if len(rows) != 1 else ''} selected; none run")
    return lines


def _device_envs(
    files: Sequence[Path],
    harness: Harness,
    runtime: Runtime,
) -> dict[str, tuple[str, str] | str]:
    """Rule 2: each app's env on the pool's first device (or why it isn't known), by bundle."""
    from mobster_core import MobsterError, load_check
    from mobster_core.checks import CheckError
    from mobster_harness import CouldntOpen, PoolError

    from ._shared import note

    bundles: set[str] = set()
    for file in files:
        try:
            bundle = load_check(file).app.bundle
        except (CheckError, OSError, ValueError):
            continue
        if bundle:
            bundles.add(bundle)
    try:
        opened = harness.one_device()  # the pool's first device
    except (CouldntOpen, PoolError, MobsterError) as exc:
        note(f"the device can't be opened, so its env isn't known: {exc}")
        return dict.fromkeys(bundles, str(exc))
    try:
        return dict(runtime.run_to_end(_envs(opened.device, sorted(bundles), harness.settings.locale)))
    finally:
        opened.release()


async def _envs(device: Any, bundles: Sequence[str], locale: str | None) -> list[tuple[str, tuple[str, str] | str]]:
    from mobster_core import DeviceError
    from mobster_core.paths import env_key

    try:
        info: DeviceInfo = await device.info()
    except DeviceError as exc:
        return [(b, f"info(): {exc}") for b in bundles]
    found: list[tuple[str, tuple[str, str] | str]] = []
    for bundle in bundles:
        try:
            app: AppInfo = await device.app_info(bundle)
        except DeviceError as exc:
            found.append((bundle, f"app_info({bundle}): {exc}"))
            continue
        found.append((bundle, env_key(info, app, locale=locale)))
    return found
