"""Options more than one command takes, spelled once: the pacing of a step's waits."""

from __future__ import annotations

from typing import Any

import click

from ._shared import ConfiguredOption

__all__ = ["timing_options"]


def timing_options() -> list[Any]:
    """``--poll-interval``, ``--drift-after`` and ``--give-up-after`` (``mobster test``, ``verify``, ``mcp``)."""
    return [
        click.option(
            "--poll-interval",
            cls=ConfiguredOption,
            type=click.FloatRange(0.01, 10.0),
            metavar="SECONDS",
            help="Seconds between the starts of two reads while a step waits (default 0.15; see docs/scale.md "
            "for a slow remote read).",
        ),
        click.option(
            "--drift-after",
            cls=ConfiguredOption,
            type=click.FloatRange(0.0, 600.0),
            metavar="SECONDS",
            help="A step drifts once its screen has settled this long without a match (default 1.0; "
            "about 2.5 x a read's time on a slow remote read).",
        ),
        click.option(
            "--give-up-after",
            cls=ConfiguredOption,
            type=click.FloatRange(0.0, 600.0),
            metavar="SECONDS",
            help="A step drifts once its screen has kept changing this long (default 3.0; about 6 x a read's "
            "time on a slow remote read).",
        ),
    ]
