"""make_model: names to adapters, keys and base URLs from the environment, and a lazy import."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from mobster_core import Decision, DecisionKind, Model, ModelError, Prompt
from mobster_core.prompts import ACTION_TOOL, SYSTEM_PROMPT
from mobster_drivers.models import (
    DEFAULT_ANTHROPIC_URL,
    DEFAULT_OPENAI_URL,
    AnthropicModel,
    OpenAIModel,
    make_model,
)
from mobster_drivers.testing.llm import FakeAnthropic, FakeOpenAI

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-from-env", "OPENAI_API_KEY": "sk-openai-from-env"}
PROMPT = Prompt(system=SYSTEM_PROMPT, request="Open settings.", history=(), screen="", tool_schema=ACTION_TOOL)


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("claude-sonnet-4-5", AnthropicModel),
        ("claude-haiku-4-5-20251001", AnthropicModel),
        ("gpt-5", OpenAIModel),
        ("gpt-4.1-mini", OpenAIModel),
        ("o3", OpenAIModel),
        ("o4-mini", OpenAIModel),
    ],
)
def test_the_name_picks_the_adapter(name: str, cls: type[Model]) -> None:
    model = make_model(name, env=KEYS)

    assert type(model) is cls
    assert isinstance(model, Model)
    assert model.name == name


@pytest.mark.parametrize("name", ["llama-3.1-8b", "", "claude", "gpt", "opus", "o", "ollama/llama3", "Claude-3"])
def test_an_unknown_name_is_a_model_error_naming_the_choices(name: str) -> None:
    with pytest.raises(ModelError, match=r"unknown model .*claude-… model \(Anthropic\), a gpt-… or o… model"):
        make_model(name, env=KEYS)


def test_scripted_is_left_to_the_caller() -> None:
    with pytest.raises(ValueError, match="construct it yourself"):
        make_model("scripted", env={})


@pytest.mark.parametrize(
    ("name", "variable"), [("claude-sonnet-4-5", "ANTHROPIC_API_KEY"), ("gpt-5", "OPENAI_API_KEY")]
)
@pytest.mark.parametrize("value", [None, "", "   "])
def test_a_missing_key_says_which_variable_to_set(name: str, variable: str, value: str | None) -> None:
    env = {} if value is None else {variable: value}
    with pytest.raises(ModelError, match=f"set {variable} or pass --env-file"):
        make_model(name, env=env)


def test_the_other_vendors_key_does_not_count() -> None:
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        make_model("claude-sonnet-4-5", env={"OPENAI_API_KEY": "sk-openai"})


def test_an_explicit_key_needs_no_environment() -> None:
    assert isinstance(make_model("gpt-5", api_key="sk-explicit", env={}), OpenAIModel)


def test_keys_are_read_from_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-process")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")

    model = make_model("claude-sonnet-4-5")
    assert isinstance(model, AnthropicModel)
    assert model.base_url == "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("name", "variable", "default"),
    [
        ("claude-sonnet-4-5", "ANTHROPIC_BASE_URL", DEFAULT_ANTHROPIC_URL),
        ("gpt-5", "OPENAI_BASE_URL", DEFAULT_OPENAI_URL),
    ],
)
def test_the_base_url_comes_from_the_argument_then_the_environment_then_the_vendor(
    name: str, variable: str, default: str
) -> None:
    def url(base_url: str | None = None) -> str:
        model = make_model(name, base_url=base_url, env={**KEYS, variable: "http://127.0.0.1:1234/from-env"})
        assert isinstance(model, AnthropicModel | OpenAIModel)
        return model.base_url

    assert url() == "http://127.0.0.1:1234/from-env"
    assert url(base_url="http://127.0.0.1:5678") == "http://127.0.0.1:5678"
    model = make_model(name, env=KEYS)
    assert isinstance(model, AnthropicModel | OpenAIModel)
    assert model.base_url == default


def test_a_model_made_from_the_environment_talks_to_that_server() -> None:
    async def go(model: Model) -> Decision:
        assert isinstance(model, AnthropicModel | OpenAIModel)
        try:
            return await model.decide(PROMPT)
        finally:
            await model.aclose()

    with FakeAnthropic(lifetime=30) as anthropic_api, FakeOpenAI(lifetime=30) as openai_api:
        anthropic_api.reply_tool({"status": "done"})
        openai_api.reply_tool({"status": "blocked", "reason": "no settings"})
        env = {**KEYS, "ANTHROPIC_BASE_URL": anthropic_api.url, "OPENAI_BASE_URL": openai_api.url}

        # Made-up names: the SDKs warn about the deprecated real ones.
        assert asyncio.run(go(make_model("claude-test-1", env=env))).kind is DecisionKind.DONE
        assert asyncio.run(go(make_model("gpt-test-1", env=env))).kind is DecisionKind.BLOCKED
        assert anthropic_api.requests[0].api_key == KEYS["ANTHROPIC_API_KEY"]
        assert openai_api.requests[0].api_key == KEYS["OPENAI_API_KEY"]


def test_importing_the_package_imports_no_vendor_sdk() -> None:
    code = (
        "import sys, mobster_drivers.models; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'anthropic', 'openai'}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)

    assert result.stdout.strip() == "[]"


def test_the_sdk_clients_share_one_tls_context_that_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    import ssl

    from mobster_drivers.models import AnthropicModel, OpenAIModel

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    claude = AnthropicModel("claude-sonnet-4-5", api_key="k-1")
    gpt = OpenAIModel("gpt-5", api_key="k-2")
    contexts = [_tls_of(claude), _tls_of(gpt)]
    assert contexts[0] is contexts[1]
    assert contexts[0].verify_mode == ssl.CERT_REQUIRED
    assert contexts[0].check_hostname
    assert contexts[0].cert_store_stats()["x509_ca"] > 0  # the system's CAs, as the SDK would load

    # Another CA bundle in the environment: another context, made from that bundle.
    bundle = ssl.get_default_verify_paths().cafile or "/etc/ssl/certs/ca-certificates.crt"
    monkeypatch.setenv("SSL_CERT_FILE", bundle)
    again = AnthropicModel("claude-sonnet-4-5", api_key="k-3")
    assert _tls_of(again) is not contexts[0]


def _tls_of(model: Any) -> Any:
    """The TLS context of the connection pool of the SDK's HTTP client inside ``model``."""
    return model._client._client._transport._pool._ssl_context
