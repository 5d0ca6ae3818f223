"""The command line's own devices: ``--driver``'s factory (``--env-file`` is the harness's ``envfile``).

Rule 1: the devices named by ``--scripted``, ``--wda``, ``--sim``, ``--device`` and ``--appium``
        are made by the harness (``mobster_harness``: the one device spec, pool and model
        chooser, shared with the pytest plugin); this module makes ``--driver``'s, which only the
        command has.
Rule 2: ``--driver FACTORY ARG`` makes devices with your own driver, no fork needed. ``FACTORY`` is
        an import path, ``package.module:function``, or the name of an entry point in the
        ``mobster.drivers`` group of an installed distribution. The factory is called once per
        device (``--parallel N`` calls it N times) as ``factory(ARG, clock=clock)`` and returns a
        ``Device`` (or an awaitable of one); ``clock`` is the clock the run waits on. The module is
        looked for on the Python path, then in the current folder (as ``python -m`` would); a
        module that isn't there, or whose own code fails at import (a syntax error, an
        exception), is a usage problem naming the module and the error.
Rule 3: a device that can't be opened (it isn't answering, another run holds it) is no usage
        problem: every check of the run ends ``couldnt_run`` with the device's class (``device``,
        ``busy``) and its message, and the results are written as for any run.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mobster_core import Clock, Device, DeviceError, MobsterError

from ._shared import fail

if TYPE_CHECKING:
    from mobster_harness.settings import Settings

__all__ = ["UsageProblem", "driver_devices", "load_driver", "load_driver_devices"]

#: The entry point group a distribution registers its drivers in (Rule 2).
DRIVER_GROUP = "mobster.drivers"


class UsageProblem(MobsterError):
    """The command was asked for something it can't do; the message says what to do instead."""


async def driver_devices(driver: tuple[str, str], settings: Settings, clock: Clock) -> list[Device]:
    """``--driver FACTORY ARG``'s devices (Rules 2, 3): a usage problem exits 3; a device not made ends each check."""
    from mobster_harness import unavailable

    named = settings.devices
    if named.kinds:
        fail(f"choose one device option, not --driver and {' and '.join(f'--{k}' for k in named.kinds)}")
    if named.sessions or named.caps or named.session_wait is not None:
        fail("--sessions, --caps and --session-wait go with --appium URL, not --driver")
    try:
        return await load_driver_devices(driver, parallel=named.parallel or 1, clock=clock)
    except DeviceError as exc:
        return [unavailable(exc)]
    except (MobsterError, ValueError) as exc:
        fail(str(exc))


async def load_driver_devices(driver: tuple[str, str], *, parallel: int, clock: Clock) -> list[Device]:
    """Rule 2: ``parallel`` devices made by the ``--driver`` factory."""
    factory = load_driver(driver[0])
    return [await _made(factory, driver, clock) for _ in range(parallel)]


def load_driver(spec: str) -> Callable[..., Any]:
    """Rule 2: the factory an import path or an entry point names."""
    if ":" in spec:
        module_name, _, name = spec.partition(":")
        factory = getattr(_import_driver(spec, module_name), name, None)
    else:
        found = [e for e in entry_points(group=DRIVER_GROUP) if e.name == spec]
        if not found:
            known = ", ".join(sorted(e.name for e in entry_points(group=DRIVER_GROUP))) or "none installed"
            raise UsageProblem(
                f"--driver {spec}: no driver of that name in the {DRIVER_GROUP} entry points ({known}); "
                "give an import path such as mypackage.driver:make_device"
            )
        try:
            factory = found[0].load()
        except Exception as exc:  # a driver's own code failing to load is the user's to fix
            said = f"its entry point {found[0].value} fails to load ({_said(exc)})"
            raise UsageProblem(f"--driver {spec}: {said}") from exc
    if not callable(factory):
        raise UsageProblem(f"--driver {spec}: that is not a function that makes a device")
    return factory  # type: ignore[no-any-return]


def _import_driver(spec: str, module_name: str) -> Any:
    """Rule 2: the driver's module, found as ``python -m`` finds one: on the path, else in the current folder.

    Any failure of the module's own code (a syntax error, an exception at import) is a usage
    problem naming the module and the error, never an internal error.
    """
    import sys

    here = str(Path.cwd())
    added = False
    try:
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module_name.startswith(exc.name) or here in sys.path:
                raise
            sys.path.insert(0, here)  # a driver beside the project, as `python -m` would find it
            added = True
            return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise UsageProblem(
            f"--driver {spec}: can't import {module_name} ({exc}): it is looked for on the Python path and in "
            "the current folder; install its package, or set PYTHONPATH"
        ) from exc
    except Exception as exc:  # the module's own code failed: the user's to fix, said as such
        raise UsageProblem(f"--driver {spec}: importing {module_name} failed ({_said(exc)})") from exc
    finally:
        if added and sys.path and sys.path[0] == here:
            sys.path.pop(0)


def _said(exc: BaseException) -> str:
    """An error in one line: its type, message, and for a syntax error its file and line."""
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} at {exc.filename}:{exc.lineno}"
    return f"{type(exc).__name__}: {exc}"


async def _made(factory: Callable[..., Any], driver: tuple[str, str], clock: Clock) -> Device:
    spec, arg = driver
    try:
        device = factory(arg, clock=clock)
        if inspect.isawaitable(device):
            device = await device
    except MobsterError:
        raise
    except Exception as exc:  # a driver's own failure to start is said as a device problem
        raise DeviceError(f"--driver {spec} {arg}: the driver failed to start ({type(exc).__name__}: {exc})") from exc
    if not isinstance(device, Device):
        raise UsageProblem(f"--driver {spec}: the factory returned {type(device).__name__}, not a Device")
    return device
