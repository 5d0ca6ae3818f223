"""The one door into a run: every front end parses its options, and the harness does the rest.

Standard library only when imported (like :mod:`.settings`): the pytest plugin loads the package
when pytest starts; the core, the drivers, the models and the report are imported by the method
that needs them.

    harness = Harness(Settings.from_values(options), project_root, clock)
    pool = harness.pool(files)  # or harness.one_device()
    suite = await run_on_pool(files, pool, clock, models=harness.models(), options=harness.run_options())

Rule 1: a front end (``mobster test``, ``verify``, ``inspect``, ``--list``, ``mcp``, the pytest
        plugin, the MCP server, the demo) parses its own options, spells them in its messages and
        prints its own lines; it says what they mean in one
        :class:`~mobster_harness.settings.Settings` (``Settings.from_values``) and gets everything
        after from one :class:`Harness`: its devices, its models and its run options. None of
        them opens a device, makes a model or makes ``RunOptions`` itself (a test reads their
        source to hold it), so a rule of a run is one rule for all of them.
Rule 2: :meth:`Harness.one_device` opens the device at place ``slot`` of the pool the settings
        name (the first by default), locked when it is a real one (``pool`` Rules 1-3). A pool of
        scripted phones or Appium sessions gives a place beyond it the device of ``slot mod N``
        (a phone of its own, another session of that URL, as ``--parallel`` does); a pool of
        simulators, iPhones or WDAs has no device there (:class:`~.spec.PoolError`): one holder
        drives each. With a platform selected (``Settings.platform``), the pool's places are those
        of its devices whose kind may be of it (an app script's or an Appium URL's is known once it
        opens, and a suite leaves one of the other platform out: the core's suite Rule 14); none is
        a :class:`~.spec.PoolError`. A front end that serves exactly one device checks :meth:`Harness.specs`
        and says so in its own words.
Rule 3: :meth:`Harness.pool` opens the pool for ``files``: its Appium sessions ask for the app
        every check of ``files`` tests, when there is one (``appium:bundleId``); the devices open
        in parallel threads and an ``Opening`` lets another thread abandon them (``pool`` Rules
        4, 6, 7).
Rule 4: :meth:`Harness.models` gives the runs' models ready: the harness's one chooser
        (``models`` Rules 1-4), a vendor's adapter made at once, so that a bad name or a missing
        key is a ``ModelError`` before the first check (``prepare=False`` leaves it to the first
        run: the plugin's test then ends ``couldnt_run``, class ``model``).
Rule 5: :meth:`Harness.run_options` gives the run options of a check of the project at ``root``
        (settings Rule 2), always with the HTML report whose "Run it again" line names each device
        as ``mobster test`` takes it (settings Rule 4), whichever front end runs the check. What
        only a front end has it passes in: its progress lines (``on_sent``, ``on_sending``,
        ``on_result``), ``--driver``'s words for the line, a price table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .settings import Settings
from .spec import DeviceSpec, PoolError, pool_specs

if TYPE_CHECKING:
    from mobster_core import CheckResult, Clock, PriceTable, RunOptions

    from .models import Models
    from .pool import OpenDevice, Opening, Pool

__all__ = ["Harness"]


class Harness:
    """The devices, models and run options of the runs ``settings`` describe, for the project at ``root``."""

    def __init__(self, settings: Settings, root: Path, clock: Clock) -> None:
        self.settings = settings
        self.root = root
        self.clock = clock

    def __repr__(self) -> str:
        return f"Harness({self.settings!r}, {str(self.root)!r})"

    def specs(self, *, bundle: str | None = None, required: bool = True) -> tuple[DeviceSpec, ...]:
        """The specs of the pool the settings name (spec Rule 4); a :class:`PoolError` says what to write instead."""
        return pool_specs(self.settings.devices, bundle=bundle, required=required)

    def one_device(self, slot: int = 0, *, bundle: str | None = None) -> OpenDevice:
        """Rule 2: the device at place ``slot`` of the pool, opened; ``release()`` it when done."""
        from .pool import open_device

        specs = _of_platform(self.specs(bundle=bundle), self.settings.platform, self.settings.devices.prefix)
        if slot >= len(specs) and any(s.exclusive for s in specs):
            noun = "device" if len(specs) == 1 else "devices"
            raise PoolError(
                f"the pool has {len(specs)} {noun} ({', '.join(s.label for s in specs)}), and one holder drives "
                f"each: there is no device {slot + 1}; name one more"
            )
        return open_device(specs[slot % len(specs)], self.clock)

    def pool(self, files: Sequence[Path], opening: Opening | None = None) -> Pool:
        """Rule 3: the pool the settings name for a suite of ``files``, opened (``run_on_pool`` runs it)."""
        from .pool import open_pool

        return open_pool(self.specs(bundle=_one_bundle(files)), self.clock, opening=opening)

    def models(self, *, prepare: bool = True, by_key: bool = True, scripted_delay: float = 0.0) -> Models:
        """Rule 4: a model for each run, ready; ``scripted_delay`` seconds the scripted model thinks a call."""
        from .models import choose_models

        models = choose_models(self.settings, self.clock, by_key=by_key, scripted_delay=scripted_delay)
        if prepare:
            models.prepare()
        return models

    def run_options(
        self,
        *,
        on_sent: Callable[[str], None] | None = None,
        on_sending: Callable[[str | None], None] | None = None,
        on_result: Callable[[CheckResult], None] | None = None,
        driver: Sequence[str] = (),
        prices: PriceTable | None = None,
    ) -> RunOptions:
        """Rule 5: the run options, with the report and its "Run it again" devices, and the front end's hooks."""
        import attrs

        from mobster_report import HtmlReport

        report = HtmlReport(devices=self.settings.rerun_options(self.root, driver))
        options = self.settings.to_run_options(
            self.root, reporter=report, on_sent=on_sent, on_sending=on_sending, on_result=on_result
        )
        return options if prices is None else attrs.evolve(options, prices=prices)


#: The kinds whose platform the kind says; an app script's or an Appium URL's is known once it opens.
_PLATFORM_OF_KIND = {"sim": "ios", "device": "ios", "wda": "ios", "android": "android"}


def _of_platform(specs: tuple[DeviceSpec, ...], platform: str | None, prefix: str) -> tuple[DeviceSpec, ...]:
    """Rule 2: with a platform selected, the specs that may be of it (a spec's kind may say it is not)."""
    if platform is None:
        return specs
    kept = tuple(s for s in specs if _PLATFORM_OF_KIND.get(s.kind, platform) == platform)
    if not kept:
        written = "iOS" if platform == "ios" else "Android"
        raise PoolError(
            f"{prefix}platform {platform}: no device of the pool runs {written} "
            f"({', '.join(s.option for s in specs)}); name one, or choose the other platform"
        )
    return kept


def _one_bundle(files: Sequence[Path]) -> str | None:
    """Rule 3: the app every check of the suite tests, when there is one (a file that can't be read says nothing)."""
    from mobster_core import load_check
    from mobster_core.checks import CheckError

    bundles = set()
    for file in files:
        try:
            bundles.add(load_check(file).app.bundle)
        except (CheckError, OSError, ValueError):
            continue
    return bundles.pop() if len(bundles) == 1 else None
