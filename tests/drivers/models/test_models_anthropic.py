"""The Anthropic adapter against a fake Messages API on loopback, through the real SDK."""

from __future__ import annotations

import asyncio
import base64
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from mobster_core import Decision, DecisionKind, Model, ModelAction, ModelError, Op, Usage
from mobster_core.prompts import ACTION_TOOL, SYSTEM_PROMPT, estimate_usage
from mobster_drivers.models import AnthropicModel
from mobster_drivers.testing.llm import FakeAnthropic
from tests.drivers.models.calls import PNG, decide, error_of
from tests.samples import PROMPT

KEY = "sk-ant-test-0123456789abcdef"


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


@pytest.fixture
def api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(lifetime=30) as fake:
        yield fake


def model_for(api: FakeAnthropic, **options: Any) -> AnthropicModel:
    return AnthropicModel("claude-test-1", api_key=KEY, base_url=api.url, **options)


# -- the round trip ------------------------------------------------------------------------------


def test_a_tool_call_round_trip_sends_one_forced_tool_and_reads_the_actions(api: FakeAnthropic) -> None:
    api.reply_tool(
        {
            "status": "act",
            "actions": [{"op": "TAP", "target": "e12"}, {"op": "TYPE", "target": "e4", "text": "a@b.c"}],
            "reason": "continue, then fill the email",
        }
    )
    decision = decide(model_for(api))

    assert decision.kind is DecisionKind.ACT
    assert decision.actions == (
        ModelAction(op=Op.TAP, target="e12"),
        ModelAction(op=Op.TYPE, target="e4", text="a@b.c"),
    )
    assert decision.reason == "continue, then fill the email"
    [request] = api.requests
    assert request.path == "/v1/messages"
    assert request.body == {
        "model": "claude-test-1",
        "max_tokens": 1024,
        "system": SYSTEM_PROMPT,
        "tools": [
            {
                "name": "act",
                "description": ACTION_TOOL["description"],
                "input_schema": ACTION_TOOL["input_schema"],
            }
        ],
        "tool_choice": {"type": "tool", "name": "act", "disable_parallel_tool_use": True},
        "messages": [{"role": "user", "content": [{"type": "text", "text": PROMPT.text()}]}],
    }
    assert request.api_key == KEY
    assert KEY not in repr(request)


def test_a_screenshot_goes_after_the_text_as_a_base64_png_block(api: FakeAnthropic) -> None:
    api.reply_tool({"status": "done"})
    decide(model_for(api), attrs.evolve(PROMPT, screenshot=PNG))

    [content] = [m["content"] for m in api.requests[0].body["messages"]]
    assert content == [
        {"type": "text", "text": PROMPT.text()},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
        },
    ]


def test_without_a_tool_schema_in_the_prompt_the_core_act_tool_is_sent(api: FakeAnthropic) -> None:
    api.reply_tool({"status": "done"})
    decide(model_for(api), attrs.evolve(PROMPT, tool_schema={}))

    assert api.requests[0].body["tools"][0]["input_schema"] == ACTION_TOOL["input_schema"]


def test_max_tokens_is_sent_as_given(api: FakeAnthropic) -> None:
    api.reply_tool({"status": "done"})
    decide(model_for(api, max_tokens=256))

    assert api.requests[0].body["max_tokens"] == 256


@pytest.mark.parametrize("kind", [DecisionKind.DONE, DecisionKind.BLOCKED])
def test_done_and_blocked_replies_carry_the_reason_and_no_actions(api: FakeAnthropic, kind: DecisionKind) -> None:
    api.reply_tool({"status": kind.value, "reason": "the paywall has no close button"})
    decision = decide(model_for(api))

    assert decision == Decision(kind=kind, reason="the paywall has no close button", usage=decision.usage)


# -- usage ---------------------------------------------------------------------------------------


def test_usage_counts_cache_writes_as_input_and_cache_reads_as_cached(api: FakeAnthropic) -> None:
    api.reply_tool(
        {"status": "done"},
        usage={
            "input_tokens": 1000,
            "output_tokens": 42,
            "cache_creation_input_tokens": 200,
            "cache_read_input_tokens": 300,
        },
    )
    decision = decide(model_for(api))

    assert decision.usage == Usage(input_tokens=1200, output_tokens=42, cached_tokens=300, estimated=False)


def test_usage_treats_missing_cache_counts_as_zero(api: FakeAnthropic) -> None:
    api.reply_tool(
        {"status": "done"},
        usage={
            "input_tokens": 7,
            "output_tokens": 3,
            "cache_creation_input_tokens": None,
            "cache_read_input_tokens": None,
        },
    )
    assert decide(model_for(api)).usage == Usage(input_tokens=7, output_tokens=3)


def test_a_reply_without_usage_is_estimated_and_says_so(api: FakeAnthropic) -> None:
    api.reply_json(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test-1",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "act", "input": {"status": "done"}}],
            "stop_reason": "tool_use",
        }
    )
    usage = decide(model_for(api)).usage

    assert usage == estimate_usage(PROMPT)
    assert usage.estimated


# -- replies that don't fit ----------------------------------------------------------------------


def test_a_text_reply_without_the_tool_is_a_model_error_naming_the_stop_reason(api: FakeAnthropic) -> None:
    api.reply_text("I think you should tap Continue.")
    error = error_of(model_for(api))

    assert str(error) == "the model answered without calling the act tool (stop_reason end_turn)"


def test_a_call_of_another_tool_is_not_an_answer(api: FakeAnthropic) -> None:
    api.reply_tool({"status": "done"}, name="tap")
    assert "without calling the act tool" in str(error_of(model_for(api)))


def test_a_body_that_is_not_json_is_a_model_error(api: FakeAnthropic) -> None:
    api.reply_raw(b"<html>502 Bad Gateway</html>")
    error = error_of(model_for(api))

    assert str(error).startswith("Anthropic's reply is not JSON")


def test_a_body_that_is_not_even_labelled_json_is_a_model_error(api: FakeAnthropic) -> None:
    api.reply_raw(b"<html>oops</html>", content_type="text/html")
    assert str(error_of(model_for(api))).startswith("Anthropic's reply is not a message")


@pytest.mark.parametrize("body", [{"unexpected": True}, [1, 2], None])
def test_json_of_the_wrong_shape_is_a_model_error(api: FakeAnthropic, body: Any) -> None:
    api.reply_json(body)
    assert "is not a message" in str(error_of(model_for(api)))


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        ({"status": "act", "actions": [{"op": "FLY", "target": "e1"}]}, "action 1 has an unknown op 'FLY'"),
        # A check's device steps are the runner's (agent Rule 10): the model can't name one.
        ({"status": "act", "actions": [{"op": "BIOMETRIC_MATCH"}]}, "action 1 has an unknown op 'BIOMETRIC_MATCH'"),
        (
            {"status": "act", "actions": [{"op": "HOME"}, {"op": "PUSH", "text": "p.json"}]},
            "action 2 has an unknown op 'PUSH'",
        ),
        ({"status": "act", "actions": [{"op": "HOME"}] * 4}, "the model asked for 4 actions at once"),
        ({"status": "act", "actions": []}, "the model said act but gave no actions"),
        ({"status": "finished"}, "the model's status is 'finished'"),
        ({"status": "act", "actions": [{"op": "TAP", "target": "Continue"}]}, "is not a row id"),
        ("tap continue", "the model's tool input is not valid JSON"),
        ([1], "the model's tool input is not an object"),
    ],
)
def test_a_tool_input_that_does_not_fit_is_a_model_error(api: FakeAnthropic, tool_input: Any, message: str) -> None:
    api.reply_tool(tool_input)
    error = error_of(model_for(api))

    assert message in str(error)


# -- errors of the API ---------------------------------------------------------------------------


def test_a_429_is_a_rate_limit_model_error(api: FakeAnthropic) -> None:
    api.reply_error(429, "Number of request tokens has exceeded your per-minute rate limit")
    error = error_of(model_for(api))

    assert str(error) == (
        "rate limited by Anthropic (429): Number of request tokens has exceeded your per-minute rate limit; "
        "try again later"
    )
    assert type(error.__cause__).__name__ == "RateLimitError"
    assert len(api.requests) == 1  # never retried by the SDK


@pytest.mark.parametrize(("status", "kind"), [(500, "api_error"), (529, "overloaded_error")])
def test_a_5xx_is_a_server_model_error(api: FakeAnthropic, status: int, kind: str) -> None:
    api.reply_error(status, "Internal server error", type=kind)
    error = error_of(model_for(api))

    assert str(error) == f"Anthropic's server failed ({status}): Internal server error"
    assert len(api.requests) == 1


def test_a_refused_key_is_a_model_error_that_never_shows_the_key(
    api: FakeAnthropic, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    api.reply_error(401, f"invalid x-api-key {KEY} ({KEY[:6]}...{KEY[-4:]})")
    model = model_for(api)
    error = error_of(model)

    assert str(error) == "the Anthropic key was refused (401); check ANTHROPIC_API_KEY"
    assert KEY not in str(error)
    assert KEY[-4:] not in str(error)
    assert KEY not in repr(model)
    assert KEY not in caplog.text
    assert api.requests[0].api_key == KEY


def test_another_4xx_names_the_status_and_the_servers_message(api: FakeAnthropic) -> None:
    api.reply_error(400, "messages: at least one message is required")
    assert str(error_of(model_for(api))) == (
        "Anthropic refused the request (400): messages: at least one message is required"
    )


def test_an_unreachable_server_is_a_model_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = AnthropicModel("claude-test-1", api_key=KEY, base_url=f"http://127.0.0.1:{port}")
    error = error_of(model)

    assert str(error).startswith(f"couldn't reach Anthropic at http://127.0.0.1:{port}")


def test_a_call_that_takes_too_long_times_out(api: FakeAnthropic) -> None:
    api.reply_slow(5)
    error = error_of(model_for(api, timeout=0.25))

    assert str(error) == "the call to Anthropic timed out after 0.25 s"


# -- cancellation --------------------------------------------------------------------------------


def test_cancelling_a_call_in_flight_drops_the_request(api: FakeAnthropic) -> None:
    api.reply_slow(5)
    model = model_for(api)

    async def go() -> float:
        task = asyncio.create_task(model.decide(PROMPT))
        deadline = time.monotonic() + 2
        while not api.requests:
            assert time.monotonic() < deadline, "the request never arrived"
            await asyncio.sleep(0.005)
        cancelled_at = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        took = time.monotonic() - cancelled_at
        await model.aclose()
        return took

    assert asyncio.run(go()) < 0.5
    deadline = time.monotonic() + 2
    while api.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert api.disconnects == 1


# -- the adapter's shape -------------------------------------------------------------------------


def test_the_adapter_is_a_model_named_as_sent(api: FakeAnthropic) -> None:
    model = model_for(api)
    assert isinstance(model, Model)
    assert model.name == "claude-test-1"
    assert model.base_url == api.url


def test_an_empty_key_is_refused_before_any_call() -> None:
    with pytest.raises(ModelError, match="set ANTHROPIC_API_KEY or pass --env-file"):
        AnthropicModel("claude-test-1", api_key="")


# -- the fake itself -----------------------------------------------------------------------------


def test_a_request_with_nothing_scripted_gets_a_clear_error(api: FakeAnthropic) -> None:
    assert "FakeAnthropic has no scripted reply left" in str(error_of(model_for(api)))


def test_the_fake_stops_by_itself_after_its_lifetime() -> None:
    fake = FakeAnthropic(lifetime=0.05).start()
    port = fake.port
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
        except OSError:
            break
        time.sleep(0.01)
    else:
        pytest.fail("the fake still listens after its lifetime")
    fake.stop()  # stopping twice is harmless
