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
Rule 4: a fake is a context manager that starts and stops itself (shutdown and close), and it
        stops by itself after ``lifetime`` seconds so a forgotten fake never outlives its test.
"""

from __future__ import annotations

import json
import secrets
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Literal, Self, cast

import attrs

__all__ = ["FakeAnthropic", "FakeOpenAI", "RecordedRequest"]

_REDACTED = "<redacted>"
_AUTH_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})
#: How often a slow reply looks at the socket, in seconds.
_POLL = 0.02


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
class _Reply:
    status: int
    body: _Body
    content_type: str = "application/json"
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: _FakeLLM) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: a client that went away is a recorded disconnect, not a traceback."""


class _Handler(BaseHTTPRequestHandler):
    # One request per connection keeps the fake simple and leaves no idle keep-alive threads.
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Log nothing (Rule 2)."""

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def _serve(self) -> None:
        fake = cast("_Server", self.server).fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        request = fake._record(self.command, self.path, dict(self.headers.items()), raw)
        reply = fake._next_reply(self.path)
        body = reply.body(request.body if isinstance(request.body, dict) else {})
        if reply.delay > 0:
            outcome = self._wait(reply.delay, fake)
            if outcome != "waited":
                if outcome == "gone":
                    fake._note_disconnect()
                self.close_connection = True
                return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            fake._note_disconnect()
            self.close_connection = True

    def _wait(self, seconds: float, fake: _FakeLLM) -> Literal["waited", "gone", "stopped"]:
        """Wait ``seconds`` watching the socket, unless the client closes it or the fake stops."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "waited"
            if fake._stopping.is_set():
                return "stopped"
            readable, _, _ = select.select([self.connection], [], [], min(left, _POLL))
            if not readable:
                continue
            try:
                peeked = self.connection.recv(1, socket.MSG_PEEK)
            except OSError:
                return "gone"
            if not peeked:
                return "gone"
            # Bytes of a pipelined request, not a close: keep waiting without spinning.
            time.sleep(min(left, _POLL))


class _FakeLLM:
    """What both fakes share: the server thread, the reply queue and the records."""

    #: The path the SDK posts to, as the server sees it.
    path: ClassVar[str]

    def __init__(self, *, lifetime: float = 60.0) -> None:
        self._lifetime = lifetime
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._replies: deque[_Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._disconnects = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._stopped = False

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        with self._lock:
            if self._server is not None or self._stopped:
                raise RuntimeError(f"{type(self).__name__} can be started once")
            self._server = _Server(self)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.01},
                name=f"{type(self).__name__}-server",
                daemon=True,
            )
            self._thread.start()
            self._timer = threading.Timer(self._lifetime, self.stop)
            self._timer.daemon = True
            self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (safe to call twice, and from the lifetime timer)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            server, thread, timer = self._server, self._thread, self._timer
        self._stopping.set()
        if timer is not None and timer is not threading.current_thread():
            timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- what tests read ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the fake listens on."""
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give the SDK."""
        raise NotImplementedError

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

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
        self._push(_Reply(status=status, body=lambda _: body, content_type=content_type, delay=delay))

    def reply_json(self, body: Any, *, status: int = 200, delay: float = 0.0) -> None:
        """Queue a JSON reply of any shape."""
        self._push(_Reply(status=status, body=lambda _: _dump(body), delay=delay, headers=self._headers()))

    def reply_error(self, status: int, message: str, *, type: str | None = None) -> None:  # noqa: A002
        """Queue an error in the vendor's error shape; ``type`` defaults to the status's usual one."""
        error = _dump(self._error(status, message, type))
        self._push(_Reply(status=status, body=lambda _: error, headers=self._headers()))

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

        self._push(_Reply(status=200, body=body, delay=delay, headers=self._headers()))

    def _error(self, status: int, message: str, type_: str | None) -> dict[str, Any]:
        raise NotImplementedError

    def _headers(self) -> tuple[tuple[str, str], ...]:
        return ()

    def _push(self, reply: _Reply) -> None:
        with self._lock:
            self._replies.append(reply)

    def _record(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> RecordedRequest:
        lower = {k.lower(): v for k, v in headers.items()}
        key = lower.get("x-api-key") or lower.get("api-key")
        bearer = lower.get("authorization", "")
        if bearer.lower().startswith("bearer "):
            key = bearer[len("bearer ") :].strip()
        shown = {k: (_REDACTED if k in _AUTH_HEADERS else v) for k, v in lower.items()}
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(method=method, path=path, headers=shown, body=body, raw=raw, api_key=key)
        with self._lock:
            self._requests.append(request)
        return request

    def _next_reply(self, path: str) -> _Reply:
        if path.split("?", 1)[0] != self.path:
            missing = _dump(self._error(404, f"the fake serves POST {self.path}, not {path}", None))
            return _Reply(status=404, body=lambda _: missing, headers=self._headers())
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        empty = _dump(self._error(500, f"{type(self).__name__} has no scripted reply left", None))
        return _Reply(status=500, body=lambda _: empty, headers=self._headers())

    def _note_disconnect(self) -> None:
        with self._lock:
            self._disconnects += 1


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

        self._push(_Reply(status=200, body=body, headers=self._headers()))

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
            _Reply(
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
