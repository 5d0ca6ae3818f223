"""Secrets under a hostile server (issue 15): a key echoed back in any form never reaches an
error message, and a key that can't be sent is a model error naming its variable before any
request. Each case runs through the real SDK against its fake API server."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.parse
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mobster_core import ModelError, Prompt
from mobster_core.prompts import ACTION_TOOL, SYSTEM_PROMPT
from mobster_drivers.models import AnthropicModel, OpenAIModel, make_model
from mobster_drivers.models._common import MIN_FRAGMENT, REDACTED, scrub
from mobster_drivers.testing.llm import FakeAnthropic, FakeOpenAI
from tests.drivers.models.calls import error_of
from tests.strategies import examples

KEY = "sk-test-Abc/Def+Ghi=Jkl-0123456789"
PROMPT = Prompt(system=SYSTEM_PROMPT, request="Tap Continue.", history=(), screen="e1 Button", tool_schema=ACTION_TOOL)
VENDORS: dict[str, tuple[Any, Any, str, str]] = {
    "anthropic": (FakeAnthropic, AnthropicModel, "ANTHROPIC_API_KEY", "claude-test-1"),
    "openai": (FakeOpenAI, OpenAIModel, "OPENAI_API_KEY", "gpt-test-1"),
}


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


def echoes(key: str) -> dict[str, str]:
    """The forms in which servers and proxies echo a key back."""
    return {
        "exact": key,
        "lower case": key.lower(),
        "upper case": key.upper(),
        "url-encoded": urllib.parse.quote(key, safe=""),
        "url-encoded, lower-case hex": urllib.parse.quote(key, safe="").lower(),
        "form-encoded": urllib.parse.quote_plus(key),
        "json-escaped": json.dumps(key)[1:-1].replace("/", "\\/"),
        "json unicode escapes": "".join(f"\\u{ord(c):04x}" for c in key),
        "cut after 12": key[:12] + "...",
        "last 10 only": "..." + key[-10:],
        "middle": key[5:20],
    }


def leaked(text: str, key: str) -> list[str]:
    """Every form of the key, and every run of MIN_FRAGMENT of its characters, found in ``text``."""
    found = [name for name, form in echoes(key).items() if form.lower() in text.lower()]
    low = text.lower()
    found += [
        key[i : i + MIN_FRAGMENT]
        for i in range(len(key) - MIN_FRAGMENT + 1)
        if key[i : i + MIN_FRAGMENT].lower() in low
    ]
    return found


@pytest.mark.parametrize("vendor", list(VENDORS))
@pytest.mark.parametrize("status", [403, 500])
@pytest.mark.parametrize("form", list(echoes(KEY)))
def test_an_echoed_key_never_reaches_the_error(
    vendor: str, status: int, form: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake_type, model_type, _, name = VENDORS[vendor]
    with fake_type(lifetime=30) as api:
        api.reply_error(status, f"the key {echoes(KEY)[form]} may not do this")
        error = error_of(model_type(name, api_key=KEY, base_url=api.url), PROMPT)
    message = str(error)
    assert str(status) in message
    assert "<redacted>" in message
    assert leaked(message, KEY) == []
    assert leaked(caplog.text, KEY) == []


@pytest.mark.parametrize("vendor", list(VENDORS))
@pytest.mark.parametrize(
    ("key", "what"),
    [
        ("sk-test-caf\u00e9-0123", "character 12 of the key is a non-ASCII character (U+00E9)"),
        ("sk-\u201ctest\u201d", "character 4 of the key is a non-ASCII character (U+201C)"),
        ("sk-test\x00-0123", "character 8 of the key is a control character (U+0000)"),
        ("sk-test\r\nX-Evil: 1", "character 8 of the key is a space (U+000D)"),
        ("sk test", "character 3 of the key is a space (U+0020)"),
        ("sk-\ud800", "character 4 of the key is a non-ASCII character (U+D800)"),
    ],
)
def test_a_key_that_cant_be_sent_is_a_model_error_naming_the_variable(vendor: str, key: str, what: str) -> None:
    fake_type, model_type, variable, name = VENDORS[vendor]
    with fake_type(lifetime=30) as api:
        made: list[Callable[[], Any]] = [
            lambda: model_type(name, api_key=key, base_url=api.url),
            lambda: make_model(name, env={variable: key, f"{variable.split('_')[0]}_BASE_URL": api.url}),
        ]
        for make in made:
            with pytest.raises(ModelError) as info:
                make()
            assert str(info.value) == (
                f"{variable} can't be sent: {what}, which an HTTP header can't carry; "
                "copy the key again, without quotes or spaces"
            )
        assert api.requests == []


@pytest.mark.parametrize("vendor", list(VENDORS))
@pytest.mark.parametrize("key", ["", "   ", "\t\n"])
def test_an_empty_key_is_refused_before_any_request(vendor: str, key: str) -> None:
    _, model_type, variable, name = VENDORS[vendor]
    with pytest.raises(ModelError, match=f"set {variable}"):
        model_type(name, api_key=key)


def test_blanks_around_a_key_are_stripped_and_it_is_sent() -> None:
    with FakeAnthropic(lifetime=30) as api:
        api.reply_tool({"status": "done", "reason": "ok"})
        model = AnthropicModel("claude-test-1", api_key=f"  {KEY}\n", base_url=api.url)

        async def go() -> None:
            try:
                await model.decide(PROMPT)
            finally:
                await model.aclose()

        asyncio.run(go())
        assert api.requests[0].api_key == KEY


keys = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=8, max_size=60)


@settings(max_examples=examples(200), deadline=None)
@given(key=keys, form=st.sampled_from(list(echoes("x" * 8))), before=st.text(max_size=20), after=st.text(max_size=20))
def test_scrub_removes_every_form_of_any_printable_key(key: str, form: str, before: str, after: str) -> None:
    echo = echoes(key)[form]
    assume(len(echo.strip(".")) >= MIN_FRAGMENT and key.lower() not in REDACTED)
    cleaned = scrub(before + echo + after, key)
    assert echo.strip(".").lower() not in cleaned.lower()


def test_scrub_keeps_text_without_the_key() -> None:
    text = "rate limited: 60 requests a minute; see https://docs.example.com/limits (100%)"
    assert scrub(text, KEY) == text
    assert scrub("", KEY) == ""
    assert scrub(text, "") == text
