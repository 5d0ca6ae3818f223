"""Choosing devices and models from the command line's options."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from mobster_core import Clock, Device, MobsterError, Model

__all__ = ["UsageProblem", "make_devices", "model_factory", "read_env_file"]

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"
DEFAULT_OPENAI_MODEL = "gpt-5.5"


class UsageProblem(MobsterError):
    """The command was asked for something it can't do; the message says what to do instead."""


def make_devices(
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
    if chosen:
        raise UsageProblem(
            f"{chosen[0]} needs the WebDriverAgent drivers, which are not in this build yet; "
            "use --scripted APP.yaml (see docs/scripted-phone.md)"
        )
    raise UsageProblem("choose a device: --scripted APP.yaml, --wda URL, --sim NAME or --device NAME")


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
