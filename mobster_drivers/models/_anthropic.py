"""The Anthropic adapter: one forced ``act`` tool call per turn over the Messages API.

Rule 1: the SDK is imported when a model is made, never when this module is imported (``import
        anthropic`` takes about a second).
Rule 2: one turn is one request: the system text, the ``act`` tool, ``tool_choice`` forcing that
        one tool with parallel calls off, and one user message (the prompt's text, then the
        screenshot as a PNG image block when there is one). The SDK never retries
        (``max_retries=0``): the agent decides what a failed call costs.
Rule 3: the first ``tool_use`` block naming the tool is the answer; ``parse_decision`` checks it.
        No such block, or a reply that is not a message, is a ``ModelError``.
Rule 4: SDK errors become ``ModelError`` here, with the original as ``__cause__``. A message
        never contains the API key in any form a server echoes (``_common.scrub``), and a refused
        key's message does not repeat the server's text (which may quote part of the key).
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
    import anthropic
    from anthropic.types import ImageBlockParam, Message, TextBlockParam

__all__ = ["DEFAULT_ANTHROPIC_URL", "AnthropicModel"]

_log = logging.getLogger(__name__)

#: The Anthropic API's address when no base URL is given (the environment is read only by
#: ``make_model``, so a model made in code never depends on ``ANTHROPIC_BASE_URL``).
DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com"


_VENDOR = Vendor("Anthropic", "ANTHROPIC_API_KEY")


class AnthropicModel:
    """A :class:`~mobster_core.Model` backed by Anthropic's Messages API.

    Args:
        model: the model name sent to the API (``claude-…``).
        api_key: the Anthropic API key (never logged, never in an error message).
        base_url: the API's address; ``None`` means Anthropic's public endpoint.
        timeout: seconds one call may take before it fails with a ``ModelError``.
        max_tokens: the most output tokens one turn may use.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 1024,
    ) -> None:
        api_key = _checked_key(api_key, "ANTHROPIC_API_KEY", "Anthropic")
        import anthropic

        self._model = model
        self._timeout = timeout
        self._max_tokens = max_tokens
        self._base_url = base_url or DEFAULT_ANTHROPIC_URL
        self._client: anthropic.AsyncAnthropic = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=self._base_url,
            max_retries=0,
            timeout=timeout,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context()),
        )

    def __repr__(self) -> str:
        return f"AnthropicModel({self._model!r}, base_url={self._base_url!r})"

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
        """Ask for the next decision (one forced ``act`` tool call). Cancellable (Rule 5)."""
        import anthropic

        tool = prompt.tool_schema or ACTION_TOOL
        tool_name = str(tool["name"])
        content: list[TextBlockParam | ImageBlockParam] = [{"type": "text", "text": prompt.text()}]
        if prompt.screenshot:
            data = base64.b64encode(prompt.screenshot).decode("ascii")
            content.append({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}})
        try:
            message = await self._client.messages.create(
                model=self._model,
                max_tokens=self._max_tokens,
                system=prompt.system,
                tools=[
                    {
                        "name": tool_name,
                        "description": str(tool.get("description", "")),
                        "input_schema": dict(tool["input_schema"]),
                    }
                ],
                tool_choice={"type": "tool", "name": tool_name, "disable_parallel_tool_use": True},
                messages=[{"role": "user", "content": content}],
            )
        except anthropic.AnthropicError as exc:
            # Every message is scrubbed once more as a whole: whatever branch built it (Rule 4).
            raise ModelError(_scrub(str(self._error(exc)), self._client.api_key or "")) from exc
        except json.JSONDecodeError as exc:
            raise ModelError(f"Anthropic's reply is not JSON: {exc}") from exc
        return self._decision(message, tool_name, prompt)

    def _decision(self, message: Message, tool_name: str, prompt: Prompt) -> Decision:
        from anthropic.types import Message, ToolUseBlock

        content = getattr(message, "content", None)
        if not isinstance(message, Message) or not isinstance(content, list):
            raise ModelError(f"Anthropic's reply is not a message: {_show(message)}")
        usage = _usage(message, prompt)
        _log.debug(
            "anthropic %s: %d input, %d output, %d cached tokens",
            self._model,
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_tokens,
        )
        for block in content:
            if isinstance(block, ToolUseBlock) and getattr(block, "name", None) == tool_name:
                return parse_decision(getattr(block, "input", None), usage)
        stop = getattr(message, "stop_reason", None)
        raise ModelError(f"the model answered without calling the {tool_name} tool (stop_reason {stop})")

    def _error(self, exc: anthropic.AnthropicError) -> ModelError:
        import anthropic

        key = self._client.api_key or ""
        if isinstance(exc, anthropic.APITimeoutError):
            return ModelError(f"the call to Anthropic timed out after {self._timeout:g} s")
        if isinstance(exc, anthropic.APIConnectionError):
            cause = _scrub(str(exc.__cause__ or exc.message), key)
            return ModelError(f"couldn't reach Anthropic at {self._base_url}: {cause}")
        if isinstance(exc, anthropic.APIStatusError):
            refusal = refusal_of(
                exc,
                {
                    anthropic.AuthenticationError: "key",
                    anthropic.PermissionDeniedError: "model",
                    anthropic.RateLimitError: "rate",
                },
            )
            detail = _scrub(_detail(exc.body, exc.message), key)
            return status_error(_VENDOR, exc.status_code, detail, refusal, self._model)
        if isinstance(exc, anthropic.APIError):
            return ModelError(f"Anthropic's reply could not be read: {_scrub(exc.message, key)}")
        return ModelError(f"the call to Anthropic failed: {_scrub(str(exc), key)}")


def _usage(message: Message, prompt: Prompt) -> Usage:
    """Tokens from the reply; estimated (4 characters a token, 150 out) when it has none."""
    usage = getattr(message, "usage", None)
    if usage is None:
        return estimate_usage(prompt)
    return Usage(
        input_tokens=_count(getattr(usage, "input_tokens", 0))
        + _count(getattr(usage, "cache_creation_input_tokens", 0)),
        output_tokens=_count(getattr(usage, "output_tokens", 0)),
        cached_tokens=_count(getattr(usage, "cache_read_input_tokens", 0)),
        estimated=False,
    )
