"""Options more than one command takes, spelled once: the pacing of a step's waits, and finite numbers.

Rule 1: every number an option takes is a :class:`FiniteNumber`: a number in the option's range,
        where NaN and the infinities are out of every range. Click's ``FloatRange`` takes ``nan``
        (each comparison with NaN is false, so NaN is inside any range): ``inspect --every nan``
        was taken and spun a CPU, where 0 and ``inf`` were refused. A refused number is the
        option's one usage line: the range, an example and what was given (exit 3).
"""

from __future__ import annotations

import math
from typing import Any

import click

from ._shared import ConfiguredOption

__all__ = ["FiniteNumber", "timing_options"]


class FiniteNumber(click.FloatRange):
    """Rule 1: a finite number from ``low`` (above it with ``low_open``) to ``high``, said as ``what``."""

    name = "number"

    def __init__(
        self,
        low: float,
        high: float | None = None,
        *,
        low_open: bool = False,
        what: str = "seconds",
        example: str = "1",
    ) -> None:
        super().__init__(low, high, min_open=low_open)
        self.what = what
        self.example = example

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = super().convert(value, param, ctx)
        except click.BadParameter:
            number = math.nan
        if not math.isfinite(number):
            self.fail(f"give {self.what} {self.span()}, such as {self.example}, not {value!r}", param, ctx)
        return number

    def span(self) -> str:
        """The range in words: ``from 0.1 to 60``, ``above 0``."""
        low = f"{'above' if self.min_open else 'from'} {self.min:g}"
        return low if self.max is None else f"{low} to {self.max:g}"


def timing_options() -> list[Any]:
    """``--poll-interval``, ``--drift-after`` and ``--give-up-after`` (``mobster test``, ``verify``, ``mcp``)."""
    return [
        click.option(
            "--poll-interval",
            cls=ConfiguredOption,
            type=FiniteNumber(0.01, 10.0, example="0.15"),
            metavar="SECONDS",
            help="Seconds between the starts of two reads while a step waits (default 0.15; see docs/scale.md "
            "for a slow remote read).",
        ),
        click.option(
            "--drift-after",
            cls=ConfiguredOption,
            type=FiniteNumber(0.0, 600.0, example="1.0"),
            metavar="SECONDS",
            help="A step drifts once its screen has settled this long without a match (default 1.0; "
            "about 2.5 x a read's time on a slow remote read).",
        ),
        click.option(
            "--give-up-after",
            cls=ConfiguredOption,
            type=FiniteNumber(0.0, 600.0, example="3.0"),
            metavar="SECONDS",
            help="A step drifts once its screen has kept changing this long (default 3.0; about 6 x a read's "
            "time on a slow remote read).",
        ),
    ]
