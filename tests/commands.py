"""The ``mobster`` command's tree, walked: what a test over every command enumerates, so a new one is covered."""

from __future__ import annotations

from collections.abc import Iterator

import click

from mobster_cli.main import cli, heal


def commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command under ``group`` by its words (``("paths", "show")``), and ``mobster test heal``.

    ``test heal`` is a command of its own that ``mobster test`` hands its arguments to (it is no
    subcommand of a group), so the walk adds it after ``test``.
    """
    for name, command in sorted(group.commands.items()):
        words = (*path, name)
        if isinstance(command, click.Group):
            yield from commands(command, words)
        else:
            yield words, command
        if words == ("test",):
            yield ("test", "heal"), heal


def takes(command: click.Command, name: str) -> bool:
    """Whether ``command`` has the parameter ``name`` (its destination: ``as_json``, ``appium``)."""
    return any(p.name == name for p in command.params)
