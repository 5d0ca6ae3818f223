"""The OpenAI adapter: one forced ``act`` function call per turn over the Responses API.

Rule 1: the SDK is imported when a model is made, never when this module is imported.
Rule 2: one turn is one stateless request (``store=False``: screenshots of the app under test
        are not kept by the provider): the system text as ``instructions``, the ``act`` function
        (not strict: the schema has optional keys), ``tool_choice`` forcing it with parallel
        calls off, and one user input (the prompt's text, then the screenshot as a PNG data URL
        when there is one). The SDK never retries (``max_retries=0``).
Rule 3: the first ``function_call`` output item naming the tool is the answer; its ``arguments``
        (a JSON string) go to ``parse_decision``. No such item, or a reply that is not a
        response, is a ``ModelError``.
Rule 4: SDK errors become ``ModelError`` here, with the original as ``__cause__``. A message
        never contains the API key in any form a server echoes (``_common.scrub``), and a refused
        key's message does not repeat the server's text (OpenAI's quotes part of the key).
Rule 5: cancellation is never caught: a cancelled ``decide`` drops the HTTP request in flight.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import TYPE_CHECKING

from mobster_core import Decision, ModelError, Prompt, Usage
from mobster_core.prompts import ACTION_TOOL, estimate_usage, parse_decision

from ._common import Vendor, refusal_of, status_error, tls_context
from ._common import checked_key as _checked_key
from ._common import count as _count
from ._common import detail as _detail
from ._common import scrub as _scrub
from ._common import show as _show

if TYPE_CHECKING:
    import openai
    from openai.types.responses import (
        EasyInputMessageParam,
        FunctionToolParam,
        Response,
        ResponseInputMessageContentListParam,
        ToolChoiceFunctionParam,
    )

__all__ = ["DEFAULT_OPENAI_URL", "OpenAIModel"]

_log = logging.getLogger(__name__)

#: The OpenAI API's address when no base URL is given (the environment is read only by
#: ``make_model``, so a model made in code never depends on ``OPENAI_BASE_URL``).
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"


_VENDOR = Vendor("OpenAI", "OPENAI_API_KEY")


class OpenAIModel:
    """A :class:`~mobster_core.Model` backed by OpenAI's Responses API.

    Args:
        model: the model name sent to the API (``gpt-…``, ``o3``…).
        api_key: the OpenAI API key (never logged, never in an error message).
        base_url: the API's address including ``/v1``; ``None`` means OpenAI's public endpoint.
        timeout: seconds one call may take before it fails with a ``ModelError``.
        max_output_tokens: the most output tokens one turn may use.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_output_tokens: int = 1024,
    ) -> None:
        api_key = _checked_key(api_key, "OPENAI_API_KEY", "OpenAI")
        import openai

        self._model = model
        self._timeout = timeout
        self._max_output_tokens = max_output_tokens
        self._base_url = base_url or DEFAULT_OPENAI_URL
        self._client: openai.AsyncOpenAI = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=self._base_url,
            max_retries=0,
            timeout=timeout,
            http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
        )

    def __repr__(self) -> str:
        return f"OpenAIModel({self._model!r}, base_url={self._base_url!r})"

    @property
    def name(self) -> str:
        """The model's name, as sent to the API."""
        return self._model

    @property
    def base_url(self) -> str:
        """The address requests go to."""
        return self._base_url

    async def aclose(self) -> None:
        """Close the HTTP connections the client holds."""
        await self._client.close()

    async def decide(self, prompt: Prompt) -> Decision:
        """Ask for the next decision (one forced ``act`` function call). Cancellable (Rule 5)."""
        import openai

        tool = prompt.tool_schema or ACTION_TOOL
        tool_name = str(tool["name"])
        content: ResponseInputMessageContentListParam = [{"type": "input_text", "text": prompt.text()}]
        if prompt.screenshot:
            data = base64.b64encode(prompt.screenshot).decode("ascii")
            content.append({"type": "input_image", "image_url": f"data:image/png;base64,{data}", "detail": "auto"})
        message: EasyInputMessageParam = {"role": "user", "content": content}
        function: FunctionToolParam = {
            "type": "function",
            "name": tool_name,
            "description": str(tool.get("description", "")),
            "parameters": dict(tool["input_schema"]),
            "strict": False,
        }
        choice: ToolChoiceFunctionParam = {"type": "function", "name": tool_name}
        try:
            response = await self._client.responses.create(
                model=self._model,
                instructions=prompt.system,
                input=[message],
                tools=[function],
                tool_choice=choice,
                parallel_tool_calls=False,
                max_output_tokens=self._max_output_tokens,
                store=False,
            )
        except openai.OpenAIError as exc:
            # Every message is scrubbed once more as a whole: whatever branch built it (Rule 4).
            raise ModelError(_scrub(str(self._error(exc)), self._client.api_key or "")) from exc
        except json.JSONDecodeError as exc:
            raise ModelError(f"OpenAI's reply is not JSON: {exc}") from exc
        return self._decision(response, tool_name, prompt)

    def _decision(self, response: Response, tool_name: str, prompt: Prompt) -> Decision:
        from openai.types.responses import Response, ResponseFunctionToolCall

        output = getattr(response, "output", None)
        if not isinstance(response, Response) or not isinstance(output, list):
            raise ModelError(f"OpenAI's reply is not a response: {_show(response)}")
        usage = _usage(response, prompt)
        _log.debug(
            "openai %s: %d input, %d output, %d cached tokens",
            self._model,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_tokens,
        )
        for item in output:
            if isinstance(item, ResponseFunctionToolCall) and getattr(item, "name", None) == tool_name:
                arguments = getattr(item, "arguments", None)
                if not isinstance(arguments, str):
                    raise ModelError(f"the model's {tool_name} call has no arguments")
                return parse_decision(arguments, usage)
        status = getattr(response, "status", None)
        raise ModelError(f"the model answered without calling the {tool_name} tool (status {status})")

    def _error(self, exc: openai.OpenAIError) -> ModelError:
        import openai

        key = self._client.api_key or ""
        if isinstance(exc, openai.APITimeoutError):
            return ModelError(f"the call to OpenAI timed out after {self._timeout:g} s")
        if isinstance(exc, openai.APIConnectionError):
            cause = _scrub(str(exc.__cause__ or exc.message), key)
            return ModelError(f"couldn't reach OpenAI at {self._base_url}: {cause}")
        if isinstance(exc, openai.APIStatusError):
            refusal = refusal_of(
                exc,
                {
                    openai.AuthenticationError: "key",
                    openai.PermissionDeniedError: "model",
                    openai.RateLimitError: "rate",
                },
            )
            detail = _scrub(_detail(exc.body, exc.message), key)
            return status_error(_VENDOR, exc.status_code, detail, refusal, self._model)
        if isinstance(exc, openai.APIError):
            return ModelError(f"OpenAI's reply could not be read: {_scrub(exc.message, key)}")
        return ModelError(f"the call to OpenAI failed: {_scrub(str(exc), key)}")


def _usage(response: Response, prompt: Prompt) -> Usage:
    """Tokens from the reply (input without the cached part); estimated when it has none."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return estimate_usage(prompt)
    cached = _count(getattr(getattr(usage, "input_tokens_details", None), "cached_tokens", 0))
    total_in = _count(getattr(usage, "input_tokens", 0))
    return Usage(
        input_tokens=max(total_in - cached, 0),
        output_tokens=_count(getattr(usage, "output_tokens", 0)),
        cached_tokens=cached,
        estimated=False,
    )
