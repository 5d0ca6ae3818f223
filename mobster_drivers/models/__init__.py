"""Model adapters: Anthropic and OpenAI behind the core's ``Model`` protocol.

::

    from mobster_drivers.models import make_model

    model = make_model("claude-sonnet-4-5")  # the key from ANTHROPIC_API_KEY
    decision = await model.decide(prompt)

Rule 1: importing this package imports neither SDK; a model's constructor does (``import
        anthropic`` takes about a second, and ``--model scripted`` needs neither).
Rule 2: ``make_model`` picks the adapter by the name's prefix: ``claude-…`` is Anthropic,
        ``gpt-…`` and ``o`` plus a digit (``o3``, ``o4-mini``) are OpenAI. Any other name is a
        ``ModelError`` naming the choices.
Rule 3: ``make_model`` is the one place that reads the environment (``env``, by default
        ``os.environ``): ``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY``, and ``ANTHROPIC_BASE_URL`` /
        ``OPENAI_BASE_URL``. Arguments win over the environment. The adapters themselves read
        nothing from it.
Rule 4: ``scripted`` is not made here: the scripted model needs the recorded steps and a clock,
        so the caller constructs it; ``make_model("scripted")`` raises ``ValueError`` saying so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from mobster_core import Model, ModelError

from ._anthropic import DEFAULT_ANTHROPIC_URL, AnthropicModel
from ._openai import DEFAULT_OPENAI_URL, OpenAIModel

__all__ = ["DEFAULT_ANTHROPIC_URL", "DEFAULT_OPENAI_URL", "AnthropicModel", "OpenAIModel", "make_model"]

_OPENAI_NAME = re.compile(r"gpt-.+|o[0-9].*")


def make_model(
    name: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
) -> Model:
    """Make the model adapter for a model name (Rules 2 to 4).

    Args:
        name: the model's name: ``claude-…`` (Anthropic), ``gpt-…`` or ``o3``… (OpenAI).
        api_key: the key; by default the vendor's ``…_API_KEY`` from ``env``.
        base_url: the API's address; by default the vendor's ``…_BASE_URL`` from ``env``, else
            the vendor's public endpoint.
        timeout: seconds one model call may take.
        env: where keys and base URLs are read; ``os.environ`` by default.

    Raises:
        ModelError: the name is not a known vendor's, or there is no key for it.
        ValueError: ``name`` is ``scripted``: construct the scripted model yourself.
    """
    if name == "scripted":
        raise ValueError(
            "make_model does not make the scripted model: it needs the recorded steps and a clock, "
            "so construct it yourself"
        )
    source: Mapping[str, str] = os.environ if env is None else env
    if name.startswith("claude-"):
        key = api_key or _read(source, "ANTHROPIC_API_KEY")
        if not key:
            raise ModelError(f"no Anthropic key for {name}: set ANTHROPIC_API_KEY or pass --env-file")
        url = base_url or _read(source, "ANTHROPIC_BASE_URL")
        return AnthropicModel(name, api_key=key, base_url=url, timeout=timeout)
    if _OPENAI_NAME.fullmatch(name):
        key = api_key or _read(source, "OPENAI_API_KEY")
        if not key:
            raise ModelError(f"no OpenAI key for {name}: set OPENAI_API_KEY or pass --env-file")
        url = base_url or _read(source, "OPENAI_BASE_URL")
        return OpenAIModel(name, api_key=key, base_url=url, timeout=timeout)
    raise ModelError(
        f"unknown model {name!r}: use a claude-… model (Anthropic), a gpt-… or o… model (OpenAI), or scripted"
    )


def _read(env: Mapping[str, str], name: str) -> str | None:
    """A variable's value with blanks stripped; None when unset or blank."""
    return (env.get(name) or "").strip() or None
