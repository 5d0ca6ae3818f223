"""The earlier layouts' import paths, kept: each old name is the very module of its new home.

Rule 1: an old name (or any module under it) imports the new module and binds the same object
        under the old name, so ``mobster_drivers.scripted.ScriptedPhone is
        mobster_drivers.devices.scripted.ScriptedPhone`` and state is never duplicated.
Rule 2: ``python -m`` on an old name runs the new module's code (the finder hands runpy the new
        module's code), so ``python -m mobster_drivers.fakes.wda`` still serves a scripted phone.
Rule 3: nothing is imported until an old name is asked for; the finder only answers for names
        in :data:`MOVED`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import CodeType, ModuleType

__all__ = ["MOVED", "install"]

#: Old package -> new package.
MOVED: dict[str, str] = {
    "mobster_drivers.scripted": "mobster_drivers.devices.scripted",
    "mobster_drivers.wda": "mobster_drivers.devices.wda",
    "mobster_drivers.simulator": "mobster_drivers.devices.simulator",
    "mobster_drivers.usb": "mobster_drivers.devices.usb",
    "mobster_drivers.appium": "mobster_drivers.devices.appium",
    "mobster_drivers.pool": "mobster_harness.pool",
    "mobster_drivers.fakes": "mobster_drivers.testing",
    # The second layout's harness, a package of its own since 0.1.0's issue 36 (above the drivers).
    "mobster_drivers.harness": "mobster_harness",
}


def _new_name(fullname: str) -> str | None:
    for old, new in MOVED.items():
        if fullname == old or fullname.startswith(old + "."):
            return new + fullname[len(old) :]
    return None


class _Loader(importlib.abc.Loader):
    """Binds the new module under the old name (Rule 1); gives runpy the new module's code (Rule 2)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self._spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:  # noqa: ARG002 - the loader's API
        module = importlib.import_module(self.new)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed: it keeps its own spec (import set the old name's)."""
        if self._spec is not None:
            module.__spec__ = self._spec

    def get_code(self, fullname: str) -> CodeType | None:  # noqa: ARG002 - runpy's API
        spec = importlib.util.find_spec(self.new)
        loader = None if spec is None else spec.loader
        get_code = getattr(loader, "get_code", None)
        return None if get_code is None else get_code(self.new)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        del path, target
        new = _new_name(fullname)
        if new is None:
            return None
        real = importlib.util.find_spec(new)
        if real is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _Loader(new), origin=real.origin)
        spec.submodule_search_locations = real.submodule_search_locations
        return spec


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
