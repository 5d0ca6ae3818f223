"""Check files as pytest items: one per check (one per device with ``--mobster-each-device``).

Rule 1: a check file is ``<project>/.mobster/checks/*.yaml`` (or ``.yml``), not a heal file
        (``*.heal.yaml``), not hidden, not in a sub-folder: the files ``mobster test`` runs.
Rule 2: an item is named for the file's stem (``signup``), and ``signup[yourapp]`` per device under
        ``--mobster-each-device``; ``--mobster-repeat K`` makes K items of each, ``signup[1-3]`` …
        ``signup[3-3]`` (``signup[yourapp-1-3]`` per device), as pytest-repeat names its copies.
        ``-k`` matches the stem, the check's ``name`` and its tags.
Rule 3: the check's ``tags`` become markers (``pytest -m smoke``), registered as they are found, so
        ``--strict-markers`` passes; every item also has the ``mobster`` marker. A tag that names a
        marker pytest or a plugin acts on (``skip``, ``xfail``, ``flaky``, …) stays a keyword for
        ``-k`` and is not made a marker: a label must not skip or rerun a check. So does a tag that
        names a plugin's own markers (``allure_*``: Allure reads its markers' arguments).
Rule 4: a file that doesn't load is still an item; it fails when it runs, ``couldnt_run``, class
        ``usage``, with the file, the line and the key (as ``mobster test`` reports it), and the
        other checks run.
Rule 6: a check file's name is shown with its control characters escaped (``mobster_core.text``):
        its node id, its items' names, so a name holding an escape sequence or a newline can't
        recolour the terminal or forge a line of pytest's own (``PASSED``). A check file that
        isn't a regular file (a FIFO, a device) is an item too, and fails as a file that doesn't
        load (Rule 4), never skipped in silence nor waited on.
Rule 5: a failure is our own one-line report, ``file:line: verdict (class): message``, and a few
        lines under it (device, mode, cost, failed assertions, heals, run folder): never a Python
        traceback of the plugin.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mobster_core.checks import Check, load_check, project_of
from mobster_core.exceptions import CheckError
from mobster_core.text import escape_controls

from ._errors import CheckNotPassed
from ._outcomes import usage_error
from ._runs import run_for
from ._state import settings_of

__all__ = ["RESERVED_MARKERS", "CheckFile", "CheckItem", "ChecksFolder", "is_check_file", "shown"]

#: Markers pytest or a common plugin acts on: a tag of that name stays a keyword (Rule 3).
RESERVED_MARKERS = frozenset(
    {
        "skip",
        "skipif",
        "xfail",
        "parametrize",
        "usefixtures",
        "filterwarnings",
        "tryfirst",
        "trylast",
        "flaky",
        "xdist_group",
        "timeout",
        "asyncio",
        "anyio",
        "django_db",
        "order",
        "dependency",
        "forked",
        "no_cover",
    }
)


def _register_marker(config: pytest.Config, name: str) -> None:
    """Rule 3: registered before it is used, so ``--strict-markers`` knows it."""
    known = {line.split(":", 1)[0].split("(", 1)[0].strip() for line in config.getini("markers")}
    if name not in known:
        config.addinivalue_line("markers", f"{name}: a tag of a Mobster check")


def shown(name: str) -> str:
    """Rule 6: a file's name with its control characters escaped."""
    return escape_controls(name)


class ChecksFolder(pytest.Directory):
    """``.mobster/checks/``: every check file in it, regular or not (Rules 1, 6)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        """Rule 1's files, in name order; nothing else, and no sub-folder."""
        with os.scandir(self.path) as entries:
            names = sorted(e.name for e in entries if not e.is_dir(follow_symlinks=False))
        for name in names:
            path = self.path / name
            if is_check_file(path):
                yield CheckFile.from_parent(self, path=path, name=shown(name), nodeid=f"{self.nodeid}/{shown(name)}")


def is_check_file(path: Path) -> bool:
    """Rule 1, by name."""
    return (
        path.suffix in (".yaml", ".yml")
        and path.parent.name == "checks"
        and path.parent.parent.name == ".mobster"
        and not path.name.startswith(".")
        and not path.name.endswith((".heal.yaml", ".heal.yml"))
    )


class CheckFile(pytest.File):
    """A check file (Rule 1): its items."""

    def collect(self) -> Iterator[CheckItem]:
        """Rule 2: one item, or one per device of the pool under ``--mobster-each-device``."""
        settings = settings_of(self.config)
        try:
            check: Check | None = load_check(self.path)
        except CheckError:
            check = None  # Rule 4: it fails when it runs, with the file, line and key
        slots: list[tuple[int | None, str]] = [(None, "")]
        if settings.each_device and settings.devices:
            slots = [(n, d.label) for n, d in enumerate(settings.devices)]
        k = settings.harness.repeat
        runs: list[tuple[int, int] | None] = [None] if k == 1 else [(i, k) for i in range(1, k + 1)]
        for (slot, label), run in ((s, r) for s in slots for r in runs):
            ids = "-".join([*([label] if label else []), *([f"{run[0]}-{run[1]}"] if run else [])])
            suffix = f"[{ids}]" if ids else ""
            item = CheckItem.from_parent(self, name=f"{shown(self.path.stem)}{suffix}", slot=slot, run=run)
            item.add_marker("mobster")
            if check is not None:
                item.extra_keyword_matches.add(check.name)
                for tag in check.tags:
                    item.extra_keyword_matches.add(tag)
                    if tag not in RESERVED_MARKERS and not tag.startswith(("allure_", "pytest_")):
                        _register_marker(self.config, tag)
                        item.add_marker(tag)
            if slot is not None:
                # Under xdist every item of a device goes to one worker (the plugin makes --dist loadgroup).
                _register_marker(self.config, "xdist_group")
                item.add_marker(pytest.mark.xdist_group(f"mobster-device-{slot}"))
            yield item


class CheckItem(pytest.Item):
    """One check, run on its slot's device (see the module rules)."""

    def __init__(self, *, slot: int | None, run: tuple[int, int] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: The device this item is pinned to (``--mobster-each-device``), else None: the worker's.
        self.slot = slot
        #: Run i of k under ``--mobster-repeat`` (Rule 2), else None.
        self.run = run

    def runtest(self) -> None:
        """Load the check again (it may have changed since collection) and run it."""
        rootdir = self.config.rootpath
        try:
            check = load_check(self.path)
        except CheckError as exc:
            raise usage_error(exc, self.path, rootdir) from None
        _result, error = run_for(self, check, root=project_of(self.path), slot=self.slot, repeat=self.run)
        if error is not None:
            raise error

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        """Rule 5: our lines for a check that didn't pass; pytest's own report for anything else."""
        exc = excinfo.value
        if isinstance(exc, CheckNotPassed):
            return "\n".join([exc.headline, *(f"    {d}" for d in exc.details)])
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """The check file, its first line, and ``mobster check signup``."""
        return self.path, 0, f"mobster check {self.name}"
