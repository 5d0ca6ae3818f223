"""One call of a model adapter through its real SDK, as the adapters' tests make it."""

from __future__ import annotations

import asyncio

import pytest

from mobster_core import Decision, ModelError, Prompt
from mobster_drivers.models import AnthropicModel, OpenAIModel
from tests.samples import PROMPT

#: What a screenshot is to the adapters' tests: PNG's signature and a few bytes.
PNG = b"\x89PNG\r\n\x1a\nnot-really-an-image"


def decide(model: AnthropicModel | OpenAIModel, prompt: Prompt = PROMPT) -> Decision:
    """``model.decide(prompt)`` on a loop of its own; the client is closed after."""

    async def go() -> Decision:
        try:
            return await model.decide(prompt)
        finally:
            await model.aclose()

    return asyncio.run(go())


def error_of(model: AnthropicModel | OpenAIModel, prompt: Prompt = PROMPT) -> ModelError:
    """The :class:`ModelError` the call raises (the test fails when it raises none)."""
    with pytest.raises(ModelError) as info:
        decide(model, prompt)
    return info.value
