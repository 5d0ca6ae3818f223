"""``mobster_harness.models``: the one model chooser both front ends use, and its defaults."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

import mobster_drivers.models
from mobster_core import Model, ModelError
from mobster_core.testing import FakeClock
from mobster_drivers.models.scripted import ScriptedModel
from mobster_harness.models import (
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_OPENAI_MODEL,
    choose_models,
    default_model,
)
from mobster_harness.settings import Settings

pytestmark = pytest.mark.usefixtures("clean_env")  # no key of the shell's


class _Made:
    """``make_model`` as the chooser calls it: each name and env it was asked for."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Mapping[str, str] | None]] = []

    def __call__(self, name: str, *, env: Mapping[str, str] | None = None) -> Model:
        self.asked.append((name, env))
        return ScriptedModel(clock=FakeClock())  # any Model: the chooser only hands it out


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> _Made:
    spy = _Made()
    monkeypatch.setattr(mobster_drivers.models, "make_model", spy)
    return spy


def test_the_defaults_by_key() -> None:
    assert default_model({"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}) == DEFAULT_ANTHROPIC_MODEL
    assert default_model({"OPENAI_API_KEY": "o"}) == DEFAULT_OPENAI_MODEL
    assert default_model({"ANTHROPIC_API_KEY": ""}) is None
    assert (DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL) == ("claude-sonnet-5-5", "gpt-5.5")


def test_no_heal_makes_no_model_and_reads_no_key(made: _Made) -> None:
    models = choose_models(Settings(no_heal=True, model="claude-sonnet-5-5"), FakeClock())
    models.prepare()
    assert (models.name, models()) == (None, None)
    assert made.asked == []
    assert choose_models(Settings(no_heal=True, fresh=True, model="scripted"), FakeClock()).name == "scripted"


def test_the_scripted_model_is_new_for_each_run_on_the_clock() -> None:
    clock = FakeClock()
    models = choose_models(Settings(model="scripted"), clock)
    first, second = models(), models()
    assert isinstance(first, ScriptedModel)
    assert isinstance(second, ScriptedModel)
    assert first is not second


def test_a_vendors_model_is_made_once_from_the_settings_keys(made: _Made) -> None:
    keys = {"OPENAI_API_KEY": "sk-from-an-env-file"}
    models = choose_models(Settings(secrets=keys), FakeClock())
    assert models.name == DEFAULT_OPENAI_MODEL
    models.prepare()
    assert models() is models()
    assert made.asked == [(DEFAULT_OPENAI_MODEL, keys)]


def test_without_secrets_the_process_environment_chooses(made: _Made, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    models = choose_models(Settings(), FakeClock())
    assert models.name == DEFAULT_ANTHROPIC_MODEL
    models()
    assert made.asked == [(DEFAULT_ANTHROPIC_MODEL, None)]  # make_model reads os.environ itself
    assert choose_models(Settings(), FakeClock(), by_key=False).name is None  # the simulated clock's choice


def test_a_model_that_cant_be_made_is_said_each_time_it_is_asked_for() -> None:
    models = choose_models(Settings(model="claude-sonnet-5-5", secrets={}), FakeClock())
    with pytest.raises(ModelError, match="set ANTHROPIC_API_KEY"):
        models.prepare()
    with pytest.raises(ModelError, match="set ANTHROPIC_API_KEY"):
        models()  # not cached as broken: a rerun after the key is set may make it
    assert choose_models(Settings(), FakeClock()).name is None  # no key, no name: no model
