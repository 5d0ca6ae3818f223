"""The ``mobster`` fixture: run checks from a Python test.

Rule 1: ``mobster.run(check)`` takes a check file's stem (``"signup"``), a path, or a
        :class:`~mobster_core.Check` (one built in code with :meth:`Mobster.check`), runs it on
        this test's device, and returns its :class:`~mobster_core.CheckResult` when it passed.
        A check that didn't pass raises :class:`CheckFailed`, :class:`CheckCouldntRun` or
        :class:`CheckOutcomeUnknown`, whose ``result`` is the result; ``raising=False`` returns
        every result instead.
Rule 2: a name is looked up as a path (from the folder pytest started in, then the test file's
        folder), then in ``.mobster/checks/`` of the project holding the test file (the nearest
        folder with ``.mobster/`` above it), else of pytest's root folder: ``NAME``,
        ``NAME.yaml``, ``NAME.yml``.
Rule 3: a check built in code (``mobster.check({...})``, the same keys as a check file) has a
        file name of its own beside the test module, ``<module>.<check slug>.yaml``, which messages
        name and beside which its heal file would be written; no such file needs to exist. Its
        ``where`` (the exception's ``file:line``) is the line that built it: the
        ``mobster.check(...)`` call in the test's source, as pytest shows paths; there is no check
        file's line to point at.
Rule 4: the test's project (runs, the replay cache) is the project holding the test file, else
        pytest's root folder.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mobster_core import Check, CheckResult, Clock, Device, FailureClass, Model, RunOptions
from mobster_core.checks import find_project_root, load_check, load_check_text
from mobster_core.exceptions import CheckError
from mobster_harness import CouldntOpen

from ._outcomes import couldnt, located, shown_path, usage_error
from ._runs import DEFAULT, run_for
from ._session import MobsterSession

__all__ = ["Mobster"]

T = TypeVar("T")
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")


class Mobster:
    """What the ``mobster`` fixture gives a test (see the module rules)."""

    def __init__(self, node: pytest.Item, session: MobsterSession, slot: int | None) -> None:
        self._node = node
        self._session = session
        self._slot = slot
        test_dir = node.path.parent
        self._test_dir = test_dir
        #: The project this test's runs belong to (Rule 4).
        self.root: Path = find_project_root(test_dir) or find_project_root(node.config.rootpath) or node.config.rootpath
        #: Rule 3: where each check built in code was built (``tests/test_app.py:12``), by its file name.
        self._built: dict[Path, str] = {}

    @property
    def clock(self) -> Clock:
        """The clock the runs wait on (the real one, or the simulated one of ``--mobster-clock``)."""
        return self._session.clock

    @property
    def device(self) -> Device:
        """This test's device (opened the first time it is asked for)."""
        try:
            return self._session.device(self._session.slot(self._slot)).device
        except CouldntOpen as exc:
            raise couldnt(exc.failure_class, exc.message) from None

    @property
    def options(self) -> RunOptions:
        """The run options the command line and ini give (``run(..., **options)`` overrides them)."""
        return self._session.options(self.root)

    def model(self) -> Model | None:
        """A model for one run (None under ``--mobster-no-heal`` or with no model and no key)."""
        try:
            return self._session.model()
        except CouldntOpen as exc:
            raise couldnt(exc.failure_class, exc.message) from None

    def drive(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the plugin's clock and loop: ``mobster.drive(mobster.device.read())``."""
        return self._session.drive(coro)

    def load(self, check: str | Path) -> Check:
        """The check a name or a path means (Rule 2); :class:`CheckCouldntRun` (``usage``) if none."""
        path = self._find(check)
        try:
            return load_check(path)
        except CheckError as exc:
            raise usage_error(exc, path, self._node.config.rootpath) from None

    def check(self, spec: Mapping[str, Any] | str, *, file: str | Path | None = None) -> Check:
        """A check built in code: a mapping of a check file's keys, or its YAML text (Rule 3).

        ``file`` names it (and places its heal file); by default ``<module>.<slug>.yaml`` beside
        the test module, the slug made from the check's name.
        """
        text = spec if isinstance(spec, str) else json.dumps(dict(spec), ensure_ascii=False)
        if file is None:
            name = spec.get("name") if isinstance(spec, Mapping) else None
            slug = _SLUG.sub("-", str(name or self._node.name)).strip("-").lower() or "check"
            file = self._node.path.with_name(f"{self._node.path.stem}.{slug}.yaml")
        source = Path(file)
        try:
            built = load_check_text(text, str(source))
        except CheckError as exc:
            raise usage_error(exc, source, self._node.config.rootpath) from None
        caller = inspect.currentframe()
        caller = None if caller is None else caller.f_back
        if caller is not None:  # Rule 3: the line that built it
            shown = shown_path(Path(caller.f_code.co_filename), self._node.config.rootpath)
            self._built[built.file] = f"{shown}:{caller.f_lineno}"
        return built

    def run(
        self,
        check: str | Path | Check,
        *,
        raising: bool = True,
        model: Model | None = DEFAULT,
        **options: Any,
    ) -> CheckResult:
        """Run a check on this test's device (Rule 1) and return its result.

        ``model`` replaces the session's (None: no model); ``options`` replace fields of
        :attr:`options` for this run (``no_heal=True``, ``max_usd=0.05``, ``root=...``).
        """
        __tracebackhide__ = True
        loaded = check if isinstance(check, Check) else self.load(check)
        root = options.pop("root", None) or self.root
        result, error = run_for(self._node, loaded, root=Path(root), slot=self._slot, model=model, overrides=options)
        if error is not None and error.where is None and loaded.file in self._built:
            error = located(error, self._built[loaded.file])  # Rule 3: a check built in code
        if error is not None and raising:
            raise error
        return result

    def _find(self, name: str | Path) -> Path:
        """Rule 2."""
        path = Path(name)
        for base in (self._node.config.invocation_params.dir, self._test_dir):
            candidate = path if path.is_absolute() else base / path
            if candidate.is_file():
                return candidate
        folder = self.root / ".mobster" / "checks"
        for candidate in (folder / path, folder / f"{path}.yaml", folder / f"{path}.yml"):
            if not path.is_absolute() and candidate.is_file():
                return candidate
        raise couldnt(
            FailureClass.USAGE,
            f"no check {str(name)!r}: give a path, a name in {folder}, or a Check (mobster.check({{...}}))",
        )
