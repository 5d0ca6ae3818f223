"""Fake Anthropic and OpenAI API servers on loopback, for testing the model adapters.

The real SDKs talk to these over a real socket , so a test sees
what a user would: the request body the SDK built, the SDK's parsing of a reply, its exceptions.

::

    from mobster_drivers.testing.llm import FakeAnthropic

    with FakeAnthropic() as api:
        api.reply_tool({"status": "done", "reason": "all steps carried out"})
        model = AnthropicModel("claude-test", api_key="test-key", base_url=api.url)
        ...
        assert api.requests[0].body["tool_choice"]["name"] == "act"

Rule 1: replies are scripted: each request takes the next reply from a queue (``reply_tool``,
        ``reply_text``, ``reply_raw``, ``reply_error``, ``reply_slow``). With the queue empty a
        request gets a 500 in the vendor's error shape saying so.
Rule 2: every request is recorded in ``requests`` (path, headers, parsed JSON body). The key the
        client sent is kept in ``RecordedRequest.api_key`` and is never printed: it is left out of
        reprs and the recorded headers show ``<redacted>`` in its place. The fake logs nothing.
Rule 3: a slow reply waits in the server thread while watching the socket: when the client closes
        the connection before the reply is written (a cancelled call), ``disconnects`` counts it.
Rule 4: a fake is a loopback server (``_server``): a context manager that starts and stops itself
        (shutdown and close), stops by itself after ``lifetime`` seconds so a forgotten fake never
        outlives its test, and dies at a request a test names (``die_when``).
"""

from __future__ import annotations

import json
import secrets
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import attrs

from ._server import DEAD, Incoming, LoopbackServer, Reply

__all__ = ["FakeAnthropic", "FakeOpenAI", "RecordedRequest"]

_REDACTED = "<redacted>"
_AUTH_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})


@attrs.frozen
class RecordedRequest:
    """One request a fake received.

    ``headers`` has lower-case names, with the credentials replaced by ``<redacted>``; ``body`` is
    the parsed JSON body (None when it was not JSON); ``api_key`` is the key the client sent, in
    either ``Authorization: Bearer`` or ``x-api-key`` (never shown in the repr).
    """

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    raw: bytes = attrs.field(repr=False)
    api_key: str | None = attrs.field(default=None, repr=False)


#: What a scripted reply's body is made from: the parsed JSON request it answers ({} if none).
_Body = Callable[[Mapping[str, Any]], bytes]


@attrs.frozen
class _Scripted:
    """A queued reply: its body is made from the request it answers."""

    status: int
    body: _Body
    content_type: str = "application/json"
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()


class _FakeLLM(LoopbackServer[RecordedRequest]):
    """What both fakes share: the reply queue and the records (their server is the loopback server's)."""

    #: The path the SDK posts to, as the server sees it.
    path: ClassVar[str]

    #: A slow reply watches its socket: a client that gives up is counted (Rule 3).
    watch_holds = True
    #: The SDKs send these; another method is 501, as it always was here.
    http_methods = frozenset({"GET", "POST"})

    def __init__(self, *, lifetime: float = 60.0) -> None:
        super().__init__(lifetime=lifetime)
        self._replies: deque[_Scripted] = deque()
        self._disconnects = 0

    # -- what tests read ---------------------------------------------------------------------

    @property
    def disconnects(self) -> int:
        """How many times a client closed its connection before its reply was written."""
        with self._lock:
            return self._disconnects

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._replies)

    # -- scripting replies -------------------------------------------------------------------

    def reply_raw(
        self,
        body: bytes,
        *,
        status: int = 200,
        content_type: str = "application/json",
        delay: float = 0.0,
    ) -> None:
        """Queue a reply of any bytes: garbage, malformed JSON, a wrong shape."""
        self._push(_Scripted(status=status, body=lambda _: body, content_type=content_type, delay=delay))

    def reply_json(self, body: Any, *, status: int = 200, delay: float = 0.0) -> None:
        """Queue a JSON reply of any shape."""
        self._push(_Scripted(status=status, body=lambda _: _dump(body), delay=delay, headers=self._headers()))

    def reply_error(self, status: int, message: str, *, type: str | None = None) -> None:  # noqa: A002
        """Queue an error in the vendor's error shape; ``type`` defaults to the status's usual one."""
        error = _dump(self._error(status, message, type))
        self._push(_Scripted(status=status, body=lambda _: error, headers=self._headers()))

    def reply_slow(self, seconds: float, then: Mapping[str, Any] | None = None) -> None:
        """Queue a tool call with input ``then`` (default: done), sent after waiting ``seconds``.

        While waiting the server watches the socket: a client that gives up (a cancelled call) is
        counted in ``disconnects`` and gets nothing.
        """
        arguments = dict(then) if then is not None else {"status": "done", "reason": "slow"}
        self._push_tool(arguments, "act", None, delay=seconds)

    # -- for the subclasses and the handler --------------------------------------------------

    def _tool(
        self, arguments: Any, name: str, usage: Mapping[str, Any] | None, request: Mapping[str, Any]
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _push_tool(self, arguments: Any, name: str, usage: Mapping[str, Any] | None, *, delay: float = 0.0) -> None:
        def body(request: Mapping[str, Any]) -> bytes:
            return _dump(self._tool(arguments, name, usage, request))

        self._push(_Scripted(status=200, body=body, delay=delay, headers=self._headers()))

    def _error(self, status: int, message: str, type_: str | None) -> dict[str, Any]:
        raise NotImplementedError

    def _headers(self) -> tuple[tuple[str, str], ...]:
        return ()

    def _push(self, reply: _Scripted) -> None:
        with self._lock:
            self._replies.append(reply)

    def _answer(self, incoming: Incoming) -> Reply:
        request = _recorded(incoming)
        reply = self._admit(request, lambda: self._take(incoming.path))
        if reply is None:
            return DEAD
        body = reply.body(request.body if isinstance(request.body, dict) else {})
        return Reply(reply.status, body, reply.content_type, reply.headers, hold=reply.delay)

    def _take(self, path: str) -> _Scripted:
        """The reply for a request to ``path``: the next one queued (called under the lock, Rule 1)."""
        if path.split("?", 1)[0] != self.path:
            missing = _dump(self._error(404, f"the fake serves POST {self.path}, not {path}", None))
            return _Scripted(status=404, body=lambda _: missing, headers=self._headers())
        if self._replies:
            return self._replies.popleft()
        empty = _dump(self._error(500, f"{type(self).__name__} has no scripted reply left", None))
        return _Scripted(status=500, body=lambda _: empty, headers=self._headers())

    def _gone(self) -> None:
        with self._lock:
            self._disconnects += 1


def _recorded(incoming: Incoming) -> RecordedRequest:
    """The request as recorded: the client's key kept aside, the credentials' headers redacted (Rule 2)."""
    lower = dict(incoming.headers)
    key = lower.get("x-api-key") or lower.get("api-key")
    bearer = lower.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        key = bearer[len("bearer ") :].strip()
    shown = {k: (_REDACTED if k in _AUTH_HEADERS else v) for k, v in lower.items()}
    raw = incoming.body
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = None
    return RecordedRequest(method=incoming.method, path=incoming.path, headers=shown, body=body, raw=raw, api_key=key)


class FakeAnthropic(_FakeLLM):
    """A fake Anthropic Messages API: ``POST /v1/messages``. Give the SDK ``base_url=fake.url``."""

    path = "/v1/messages"

    _ERROR_TYPES: ClassVar[Mapping[int, str]] = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        413: "request_too_large",
        429: "rate_limit_error",
        500: "api_error",
        529: "overloaded_error",
    }

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the SDK appends ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    def reply_tool(
        self,
        input: Any,  # noqa: A002 - the API's name for a tool call's arguments
        *,
        name: str = "act",
        usage: Mapping[str, Any] | None = None,
    ) -> None:
        """Queue a message whose one content block calls tool ``name`` with ``input``.

        ``usage`` is merged over the default usage object (100 input and 20 output tokens).
        """
        self._push_tool(input, name, usage)

    def reply_text(self, text: str, *, stop_reason: str = "end_turn") -> None:
        """Queue a message with only a text block: no tool call."""

        def body(request: Mapping[str, Any]) -> bytes:
            return _dump(self._message([{"type": "text", "text": text}], stop_reason, None, request))

        self._push(_Scripted(status=200, body=body, headers=self._headers()))

    def _tool(
        self, arguments: Any, name: str, usage: Mapping[str, Any] | None, request: Mapping[str, Any]
    ) -> dict[str, Any]:
        block = {"type": "tool_use", "id": _id("toolu_"), "name": name, "input": arguments}
        return self._message([block], "tool_use", usage, request)

    def _message(
        self,
        content: list[dict[str, Any]],
        stop_reason: str,
        usage: Mapping[str, Any] | None,
        request: Mapping[str, Any],
    ) -> dict[str, Any]:
        counts: dict[str, Any] = {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        }
        counts.update(usage or {})
        return {
            "id": _id("msg_"),
            "type": "message",
            "role": "assistant",
            "model": request.get("model", "fake-model"),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": counts,
        }

    def _error(self, status: int, message: str, type_: str | None) -> dict[str, Any]:
        kind = type_ or self._ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}, "request_id": _id("req_")}

    def _headers(self) -> tuple[tuple[str, str], ...]:
        return (("request-id", _id("req_")),)


class FakeOpenAI(_FakeLLM):
    """A fake OpenAI Responses API: ``POST /v1/responses``. Give the SDK ``base_url=fake.url``."""

    path = "/v1/responses"

    _ERROR_TYPES: ClassVar[Mapping[int, tuple[str, str | None]]] = {
        400: ("invalid_request_error", None),
        401: ("invalid_request_error", "invalid_api_key"),
        403: ("invalid_request_error", "unsupported_country_region_territory"),
        404: ("invalid_request_error", "model_not_found"),
        429: ("requests", "rate_limit_exceeded"),
        500: ("server_error", None),
        503: ("server_error", None),
    }

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (the OpenAI SDK needs the ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def reply_tool(
        self,
        input: Any,  # noqa: A002 - the tool call's arguments, as for FakeAnthropic
        *,
        name: str = "act",
        usage: Mapping[str, Any] | None = None,
    ) -> None:
        """Queue a response whose one output item calls function ``name``.

        ``input`` is sent as the JSON-encoded ``arguments``; a ``str`` is sent verbatim (to send
        malformed JSON). ``usage`` is merged over the default usage object (100 input tokens, none
        cached, 20 output tokens).
        """
        self._push_tool(input, name, usage)

    def reply_text(self, text: str) -> None:
        """Queue a response with only a message output item: no function call."""
        item = {
            "type": "message",
            "id": _id("msg_"),
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        self._push(
            _Scripted(
                status=200, body=lambda request: _dump(self._response([item], None, request)), headers=self._headers()
            )
        )

    def _tool(
        self, arguments: Any, name: str, usage: Mapping[str, Any] | None, request: Mapping[str, Any]
    ) -> dict[str, Any]:
        item = {
            "type": "function_call",
            "id": _id("fc_"),
            "call_id": _id("call_"),
            "name": name,
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
            "status": "completed",
        }
        return self._response([item], usage, request)

    def _response(
        self, output: list[dict[str, Any]], usage: Mapping[str, Any] | None, sent: Mapping[str, Any]
    ) -> dict[str, Any]:
        counts: dict[str, Any] = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        counts.update(usage or {})
        counts.setdefault("total_tokens", int(counts["input_tokens"]) + int(counts["output_tokens"]))
        created = int(time.time())
        return {
            "id": _id("resp_"),
            "object": "response",
            "created_at": created,
            "completed_at": created,
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "instructions": sent.get("instructions"),
            "max_output_tokens": sent.get("max_output_tokens"),
            "model": sent.get("model", "fake-model"),
            "output": output,
            "parallel_tool_calls": sent.get("parallel_tool_calls", True),
            "previous_response_id": None,
            "reasoning": {"effort": None, "summary": None},
            "store": sent.get("store", True),
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": sent.get("tool_choice", "auto"),
            "tools": sent.get("tools", []),
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": counts,
            "user": None,
            "metadata": {},
        }

    def _error(self, status: int, message: str, type_: str | None) -> dict[str, Any]:
        kind, code = self._ERROR_TYPES.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
        return {"error": {"message": message, "type": type_ or kind, "param": None, "code": code}}

    def _headers(self) -> tuple[tuple[str, str], ...]:
        return (("x-request-id", _id("req_")),)


def _id(prefix: str) -> str:
    return prefix + secrets.token_hex(12)


def _dump(body: Any) -> bytes:
    return json.dumps(body).encode()
