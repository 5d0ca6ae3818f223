"""The OpenAI adapter against a fake Responses API on loopback, through the real SDK."""

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
from mobster_drivers.models import OpenAIModel
from mobster_drivers.testing.llm import FakeOpenAI
from tests.drivers.models.calls import PNG, decide, error_of
from tests.samples import PROMPT

KEY = "sk-proj-test-0123456789abcdef"


pytestmark = pytest.mark.usefixtures("clean_env")  # no key or endpoint from the shell


@pytest.fixture
def api() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(lifetime=30) as fake:
        yield fake


def model_for(api: FakeOpenAI, **options: Any) -> OpenAIModel:
    return OpenAIModel("gpt-test-1", api_key=KEY, base_url=api.url, **options)


# -- the round trip ------------------------------------------------------------------------------


def test_a_function_call_round_trip_sends_one_forced_function_and_reads_the_actions(api: FakeOpenAI) -> None:
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
    assert request.path == "/v1/responses"
    assert request.body == {
        "model": "gpt-test-1",
        "instructions": SYSTEM_PROMPT,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": PROMPT.text()}]}],
        "tools": [
            {
                "type": "function",
                "name": "act",
                "description": ACTION_TOOL["description"],
                "parameters": ACTION_TOOL["input_schema"],
                "strict": False,
            }
        ],
        "tool_choice": {"type": "function", "name": "act"},
        "parallel_tool_calls": False,
        "max_output_tokens": 1024,
        "store": False,
    }
    assert request.api_key == KEY
    assert KEY not in repr(request)


def test_a_screenshot_goes_after_the_text_as_a_png_data_url(api: FakeOpenAI) -> None:
    api.reply_tool({"status": "done"})
    decide(model_for(api), attrs.evolve(PROMPT, screenshot=PNG))

    [content] = [m["content"] for m in api.requests[0].body["input"]]
    assert content == [
        {"type": "input_text", "text": PROMPT.text()},
        {
            "type": "input_image",
            "image_url": "data:image/png;base64," + base64.b64encode(PNG).decode(),
            "detail": "auto",
        },
    ]


def test_without_a_tool_schema_in_the_prompt_the_core_act_tool_is_sent(api: FakeOpenAI) -> None:
    api.reply_tool({"status": "done"})
    decide(model_for(api), attrs.evolve(PROMPT, tool_schema={}))

    assert api.requests[0].body["tools"][0]["parameters"] == ACTION_TOOL["input_schema"]


def test_max_output_tokens_is_sent_as_given(api: FakeOpenAI) -> None:
    api.reply_tool({"status": "done"})
    decide(model_for(api, max_output_tokens=256))

    assert api.requests[0].body["max_output_tokens"] == 256


@pytest.mark.parametrize("kind", [DecisionKind.DONE, DecisionKind.BLOCKED])
def test_done_and_blocked_replies_carry_the_reason_and_no_actions(api: FakeOpenAI, kind: DecisionKind) -> None:
    api.reply_tool({"status": kind.value, "reason": "the paywall has no close button"})
    decision = decide(model_for(api))

    assert decision == Decision(kind=kind, reason="the paywall has no close button", usage=decision.usage)


# -- usage ---------------------------------------------------------------------------------------


def test_usage_splits_cached_tokens_out_of_the_input(api: FakeOpenAI) -> None:
    api.reply_tool(
        {"status": "done"},
        usage={
            "input_tokens": 1500,
            "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 0},
            "output_tokens": 42,
        },
    )
    decision = decide(model_for(api))

    assert decision.usage == Usage(input_tokens=476, output_tokens=42, cached_tokens=1024, estimated=False)


def test_usage_without_cached_tokens_counts_them_as_zero(api: FakeOpenAI) -> None:
    api.reply_tool({"status": "done"}, usage={"input_tokens": 7, "output_tokens": 3})
    assert decide(model_for(api)).usage == Usage(input_tokens=7, output_tokens=3)


def test_a_reply_without_usage_is_estimated_and_says_so(api: FakeOpenAI) -> None:
    api.reply_json(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "status": "completed",
            "model": "gpt-test-1",
            "output": [
                {"type": "function_call", "call_id": "call_1", "name": "act", "arguments": '{"status": "done"}'}
            ],
            "parallel_tool_calls": False,
            "tool_choice": {"type": "function", "name": "act"},
            "tools": [],
            "usage": None,
        }
    )
    usage = decide(model_for(api)).usage

    assert usage == estimate_usage(PROMPT)
    assert usage.estimated


# -- replies that don't fit ----------------------------------------------------------------------


def test_a_text_reply_without_the_function_is_a_model_error(api: FakeOpenAI) -> None:
    api.reply_text("I think you should tap Continue.")
    error = error_of(model_for(api))

    assert str(error) == "the model answered without calling the act tool (status completed)"


def test_a_call_of_another_function_is_not_an_answer(api: FakeOpenAI) -> None:
    api.reply_tool({"status": "done"}, name="tap")
    assert "without calling the act tool" in str(error_of(model_for(api)))


def test_malformed_json_arguments_are_a_model_error(api: FakeOpenAI) -> None:
    api.reply_tool('{"status": "act", "actions": [{"op": "TAP"')
    error = error_of(model_for(api))

    assert str(error).startswith("the model's tool input is not valid JSON")
    assert isinstance(error.__cause__, ValueError)


def test_a_body_that_is_not_json_is_a_model_error(api: FakeOpenAI) -> None:
    api.reply_raw(b"<html>502 Bad Gateway</html>")
    assert str(error_of(model_for(api))).startswith("OpenAI's reply is not JSON")


def test_a_body_that_is_not_even_labelled_json_is_a_model_error(api: FakeOpenAI) -> None:
    api.reply_raw(b"<html>oops</html>", content_type="text/html")
    assert str(error_of(model_for(api))).startswith("OpenAI's reply is not a response")


@pytest.mark.parametrize("body", [{"unexpected": True}, [1, 2], None])
def test_json_of_the_wrong_shape_is_a_model_error(api: FakeOpenAI, body: Any) -> None:
    api.reply_json(body)
    assert "is not a response" in str(error_of(model_for(api)))


@pytest.mark.parametrize(
    ("arguments", "message"),
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
        ("[1]", "the model's tool input is not an object"),
    ],
)
def test_arguments_that_do_not_fit_are_a_model_error(api: FakeOpenAI, arguments: Any, message: str) -> None:
    api.reply_tool(arguments)
    assert message in str(error_of(model_for(api)))


# -- errors of the API ---------------------------------------------------------------------------


def test_a_429_is_a_rate_limit_model_error(api: FakeOpenAI) -> None:
    api.reply_error(429, "Rate limit reached for gpt-test-1 on tokens per min (TPM)")
    error = error_of(model_for(api))

    assert str(error) == (
        "rate limited by OpenAI (429): Rate limit reached for gpt-test-1 on tokens per min (TPM); try again later"
    )
    assert type(error.__cause__).__name__ == "RateLimitError"
    assert len(api.requests) == 1  # never retried by the SDK


@pytest.mark.parametrize("status", [500, 503])
def test_a_5xx_is_a_server_model_error(api: FakeOpenAI, status: int) -> None:
    api.reply_error(status, "The server had an error while processing your request.")
    error = error_of(model_for(api))

    assert str(error) == f"OpenAI's server failed ({status}): The server had an error while processing your request."
    assert len(api.requests) == 1


def test_a_refused_key_is_a_model_error_that_never_shows_the_key(
    api: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # OpenAI's own message quotes the key's ends; the adapter does not repeat it.
    api.reply_error(401, f"Incorrect API key provided: {KEY[:8]}***{KEY[-4:]}. You passed {KEY}.")
    model = model_for(api)
    error = error_of(model)

    assert str(error) == "the OpenAI key was refused (401); check OPENAI_API_KEY"
    assert KEY not in str(error)
    assert KEY[-4:] not in str(error)
    assert KEY not in repr(model)
    assert KEY not in caplog.text
    assert api.requests[0].api_key == KEY


def test_another_4xx_names_the_status_and_the_servers_message(api: FakeOpenAI) -> None:
    api.reply_error(400, "Invalid schema for function 'act'")
    assert str(error_of(model_for(api))) == "OpenAI refused the request (400): Invalid schema for function 'act'"


def test_an_unreachable_server_is_a_model_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = OpenAIModel("gpt-test-1", api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1")

    assert str(error_of(model)).startswith(f"couldn't reach OpenAI at http://127.0.0.1:{port}/v1")


def test_a_call_that_takes_too_long_times_out(api: FakeOpenAI) -> None:
    api.reply_slow(5)
    assert str(error_of(model_for(api, timeout=0.25))) == "the call to OpenAI timed out after 0.25 s"


# -- cancellation --------------------------------------------------------------------------------


def test_cancelling_a_call_in_flight_drops_the_request(api: FakeOpenAI) -> None:
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


def test_the_adapter_is_a_model_named_as_sent(api: FakeOpenAI) -> None:
    model = model_for(api)
    assert isinstance(model, Model)
    assert model.name == "gpt-test-1"
    assert model.base_url == api.url


def test_an_empty_key_is_refused_before_any_call() -> None:
    with pytest.raises(ModelError, match="set OPENAI_API_KEY or pass --env-file"):
        OpenAIModel("gpt-test-1", api_key="")
