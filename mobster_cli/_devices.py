"""Choosing devices and models from the command line's options."""

from __future__ import annotations

import atexit
from collections.abc import Callable, Mapping
from pathlib import Path

from mobster_core import Clock, Device, MobsterError, Model

__all__ = ["UsageProblem", "make_devices", "model_factory", "read_env_file"]

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"
DEFAULT_OPENAI_MODEL = "gpt-5.5"


class UsageProblem(MobsterError):
    """The command was asked for something it can't do; the message says what to do instead."""


def make_devices(  # noqa: PLR0913 - reshaped with the --driver option
    *, scripted: str | None, wda: str | None, sim: str | None, device: str | None, parallel: int, clock: Clock
) -> list[Device]:
    """The devices a suite runs on: ``parallel`` of them."""
    chosen = [
        name
        for name, value in (("--scripted", scripted), ("--wda", wda), ("--sim", sim), ("--device", device))
        if value
    ]
    if len(chosen) > 1:
        raise UsageProblem(f"choose one device option, not {' and '.join(chosen)}")
    if scripted:
        from mobster_drivers.scripted import ScriptedPhone

        return [ScriptedPhone.from_file(Path(scripted), clock=clock) for _ in range(parallel)]
    if not chosen:
        raise UsageProblem("choose a device: --scripted APP.yaml, --wda URL, --sim NAME or --device NAME")
    if parallel > 1:
        raise UsageProblem(
            f"--parallel {parallel} needs {parallel} devices, and {chosen[0]} names one: "
            "run one mobster per device (each with its own --shard)"
        )
    if wda:
        return [_open_wda(wda)]
    if sim:
        return [_open_simulator(sim)]
    return [_open_iphone(device or "")]


# -- real devices: each one locked for this run (mobster_drivers._lock) -------------------------


def _on_exit(release: Callable[[], None]) -> None:
    """Run ``release`` when the command ends: with click's context, else at interpreter exit."""
    import click

    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(release)
    else:
        atexit.register(release)


def _lock(identity: str) -> None:
    from mobster_drivers._lock import device_lock

    lock = device_lock(identity).acquire()
    _on_exit(lock.release)


def _missing_extra(option: str, extra: str, exc: ImportError) -> UsageProblem:
    return UsageProblem(f"{option} needs the {extra} extra ({exc.name} is missing): pip install 'mobster[{extra}]'")


def _open_wda(url: str) -> Device:
    try:
        import filelock  # noqa: F401 - the device lock needs it; say so before connecting
        import wda  # noqa: F401

        from mobster_drivers.wda import WdaDevice, normalize_wda_url
    except ImportError as exc:
        raise _missing_extra("--wda", "simulator", exc) from exc
    try:
        normalized = normalize_wda_url(url)
    except ValueError as exc:
        raise UsageProblem(f"--wda: {exc}") from exc
    _lock(f"wda {normalized}")
    device = WdaDevice(normalized)  # the kind comes from WDA's /status (a simulator when it doesn't say)
    device.status_sync()
    return device


def _open_simulator(name: str) -> Device:
    try:
        import filelock  # noqa: F401
        import wda  # noqa: F401

        from mobster_drivers.simulator import SimulatorDevice
    except ImportError as exc:
        raise _missing_extra("--sim", "simulator", exc) from exc
    device = SimulatorDevice.connect(name)
    _on_exit(device.close)
    _lock(f"sim {device.udid}")
    _lock(f"wda {device.wda.url}")
    return device


def _open_iphone(name: str) -> Device:
    try:
        import filelock  # noqa: F401
        import pymobiledevice3  # noqa: F401
        import wda  # noqa: F401

        from mobster_drivers.usb import UsbIphone
    except ImportError as exc:
        raise _missing_extra("--device", "usb", exc) from exc
    phone = UsbIphone.connect(name)
    _on_exit(phone.close)
    _lock(f"usb {phone.udid}")
    return phone


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` lines (``#`` comments, optional quotes, ``export`` allowed); never echoes a value."""
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageProblem(f"--env-file {path}: can't read it ({type(exc).__name__})") from exc
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip().isidentifier():
            raise UsageProblem(f"--env-file {path}:{n}: expected KEY=value")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key.strip()] = value
    return out


def model_factory(
    name: str | None, env: Mapping[str, str], clock: Clock
) -> tuple[Callable[[], Model | None], str | None]:
    """A factory of models for ``--model`` (a new scripted model per check run) and the model's name."""
    if name == "scripted":
        from mobster_drivers.models.scripted import ScriptedModel

        return (lambda: ScriptedModel(clock=clock)), "scripted"
    if name is None:
        if env.get("ANTHROPIC_API_KEY"):
            name = DEFAULT_ANTHROPIC_MODEL
        elif env.get("OPENAI_API_KEY"):
            name = DEFAULT_OPENAI_MODEL
        else:
            return (lambda: None), None
    from mobster_drivers.models import make_model

    model = make_model(name, env=env)
    return (lambda: model), name
