"""The model a check run uses: the one chooser, and its defaults, for both front ends.

Rule 1: the model the settings name (``--model``, ``--mobster-model``), else
        :data:`DEFAULT_ANTHROPIC_MODEL` with ``ANTHROPIC_API_KEY`` set, else
        :data:`DEFAULT_OPENAI_MODEL` with ``OPENAI_API_KEY``, else none (the checks replay, or say
        that there is no model to record with). Keys are read from the settings' ``secrets`` (the
        environment with an env file's keys), else from the process's environment.
Rule 2: under no-heal (without fresh) there is no model: none is constructed and no key is read.
Rule 3: ``scripted`` is a new scripted model for each check run, on the run's clock (thinking
        ``scripted_delay`` seconds a call on it: the demo's and the benchmark's 2.5 s). A vendor's
        adapter is made the first time it is asked for and shared by every run after: a bad name
        or a missing key is a ``ModelError`` then (``mobster test`` asks before its first check and
        stops with it; the pytest plugin asks for a test's run, which ends ``couldnt_run``, class
        ``model``).
Rule 4: ``by_key=False`` leaves the default out: no name, no model (the plugin's simulated clock,
        where a vendor's network calls can't live).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from mobster_core import Clock, Model

from .settings import Settings

__all__ = ["DEFAULT_ANTHROPIC_MODEL", "DEFAULT_OPENAI_MODEL", "Models", "choose_models", "default_model"]

#: The model a run uses with ``ANTHROPIC_API_KEY`` set and none named (Rule 1).
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"
#: The model a run uses with ``OPENAI_API_KEY`` set (and no Anthropic key) and none named.
DEFAULT_OPENAI_MODEL = "gpt-5.5"


def default_model(env: Mapping[str, str]) -> str | None:
    """Rule 1: the model the keys in ``env`` choose, or None."""
    if env.get("ANTHROPIC_API_KEY"):
        return DEFAULT_ANTHROPIC_MODEL
    if env.get("OPENAI_API_KEY"):
        return DEFAULT_OPENAI_MODEL
    return None


class Models:
    """A model for each check run (Rule 3): call it; ``name`` is the model's (None: no model)."""

    def __init__(
        self, name: str | None, clock: Clock, env: Mapping[str, str] | None = None, *, scripted_delay: float = 0.0
    ) -> None:
        self.name = name
        self._clock = clock
        self._env = env
        self._delay = scripted_delay
        self._vendor: Model | None = None

    def __call__(self) -> Model | None:
        """The model of one run: None, a new scripted model, or the one vendor adapter (``ModelError``)."""
        if self.name is None:
            return None
        if self.name == "scripted":
            from mobster_drivers.models.scripted import ScriptedModel

            return ScriptedModel(clock=self._clock, delay=self._delay)
        if self._vendor is None:
            from mobster_drivers.models import make_model

            self._vendor = make_model(self.name, env=self._env)
        return self._vendor

    def prepare(self) -> None:
        """Make a vendor's adapter now (Rule 3): a bad name or a missing key is a ``ModelError`` here."""
        if self.name not in (None, "scripted"):
            self()


def choose_models(settings: Settings, clock: Clock, *, by_key: bool = True, scripted_delay: float = 0.0) -> Models:
    """The models of the runs ``settings`` describe, on ``clock`` (the module rules); nothing is made yet."""
    if not settings.wants_model:
        return Models(None, clock)
    env = settings.secrets
    name = settings.model
    if name is None and by_key:
        name = default_model(os.environ if env is None else env)
    return Models(name, clock, env, scripted_delay=scripted_delay)
