"""The WebDriverAgent transport: one HTTP request to WDA, sent once, and its reply's value.

Rule 1: a transport sends each request exactly once. It never retries, never follows a stale
        session, never re-sends on a timeout: whether to try again is the device's decision.
Rule 2: a transport says *how* a request failed, because the device maps that to the SDK's errors:
        :class:`WdaUnreachable` (nothing was sent), :class:`WdaNoReply` (sent, and no complete reply
        came: a timeout, a reset), :class:`WdaBadReply` (a reply that is not WDA's JSON envelope)
        and :class:`WdaErrorReply` (WDA answered with an error in its envelope). The original
        exception is the ``__cause__``.
Rule 3: every request has an explicit timeout in seconds; nothing waits on a module-wide default.
        The timeout bounds the whole exchange, not each read of the socket: a reply that trickles
        in a byte at a time ends at the timeout as no reply.
Rule 4: a reply's body is read to :data:`MAX_REPLY_BYTES` and no further: a body that never ends
        (or claims more in its ``Content-Length``) is a bad reply, never read until memory runs
        out.

:class:`FacebookWdaTransport` sends over facebook-wda's connections (``http://`` and facebook-wda's
``http+usbmux://``), under its per-host lock, as its ``Client`` does, and reads the reply itself
(facebook-wda's reader has no size limit and no overall deadline). Another HTTP client can
replace it by implementing :class:`WdaTransport`.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import attrs

if TYPE_CHECKING:
    from http.client import HTTPConnection, HTTPResponse

__all__ = [
    "MAX_REPLY_BYTES",
    "FacebookWdaTransport",
    "WdaBadReply",
    "WdaErrorReply",
    "WdaNoReply",
    "WdaReply",
    "WdaTransport",
    "WdaTransportError",
    "WdaUnreachable",
    "normalize_wda_url",
]

_SESSION_IN_PATH = re.compile(r"^/session/[^/?]+")
#: Rule 4: the largest reply body read, in bytes. A 6K screenshot's base64 PNG and a 10,000-element
#: tree are each well under it.
MAX_REPLY_BYTES = 64 * 1024 * 1024
_CHUNK = 256 * 1024


def endpoint(method: str, path: str) -> str:
    """``POST /wda/tap`` for ``POST /session/<id>/wda/tap``: how messages name an endpoint."""
    bare = _SESSION_IN_PATH.sub("", path.split("?", 1)[0]) or "/session"
    return f"{method} {bare}"


class WdaTransportError(Exception):
    """A request to WebDriverAgent failed; the subclass says how (see the module rules)."""

    def __init__(self, method: str, path: str, detail: str) -> None:
        super().__init__(f"{endpoint(method, path)}: {detail}")
        self.method = method
        self.path = path
        self.detail = detail

    @property
    def endpoint(self) -> str:
        """The endpoint without the session id: ``POST /wda/tap``."""
        return endpoint(self.method, self.path)


class WdaUnreachable(WdaTransportError):
    """Nothing was sent: the connection was refused or could not be made."""


class WdaNoReply(WdaTransportError):
    """The request was sent (or may have been) and no complete reply came: a timeout, a reset."""


class WdaBadReply(WdaTransportError):
    """A reply came that is not WDA's JSON envelope ``{"value": …, "sessionId": …}``."""


class WdaErrorReply(WdaTransportError):
    """WDA answered with an error in its envelope: ``{"value": {"error", "message"}}``.

    ``status`` is the HTTP status when the transport can see it, else None.
    """

    def __init__(self, method: str, path: str, error: str, message: str, status: int | None = None) -> None:
        super().__init__(method, path, f"WDA answered {error!r}: {message}" if message else f"WDA answered {error!r}")
        self.error = error
        self.message = message
        self.status = status


@attrs.frozen
class WdaReply:
    """A successful reply: its ``value`` and the ``sessionId`` beside it (None when absent)."""

    value: Any
    session_id: str | None = None


@runtime_checkable
class WdaTransport(Protocol):
    """**Protocol:** sends one request to WebDriverAgent, once, and returns the reply (module rules).

    ``path`` starts with ``/`` and may hold a query string; ``body`` is sent as JSON when given
    (None and ``{}`` send no body, as WDA's clients do for bodiless POSTs).
    """

    @property
    def url(self) -> str:
        """The WDA base URL, ``http://127.0.0.1:8100``."""
        ...

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None, *, timeout: float) -> WdaReply:
        """Send ``method path`` once; raise a :class:`WdaTransportError` subclass on failure."""
        ...

    def close(self) -> None:
        """Release what the transport holds (safe to call twice)."""
        ...


def normalize_wda_url(url: str) -> str:
    """``http://localhost:8100/`` → ``http://127.0.0.1:8100``; raises ``ValueError`` for a non-URL.

    The scheme and host are lower-cased, ``localhost`` becomes ``127.0.0.1``, a missing port is
    WDA's 8100, and a trailing slash goes.
    """
    text = url.strip()
    if "://" not in text:
        text = f"http://{text}"
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"expected a WebDriverAgent URL such as http://127.0.0.1:8100, got {url!r}")
    if parts.query or parts.fragment or parts.path.strip("/"):
        raise ValueError(f"a WebDriverAgent URL is scheme, host and port only, such as http://127.0.0.1:8100: {url!r}")
    host = parts.hostname.lower()
    if host == "localhost":
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port or 8100
    except ValueError as exc:
        raise ValueError(f"bad port in the WebDriverAgent URL {url!r}") from exc
    return f"{parts.scheme.lower()}://{host}:{port}"


class FacebookWdaTransport:
    """:class:`WdaTransport` over facebook-wda's connections (imported lazily; module rules).

    Each request opens a connection as facebook-wda does (``wda.usbmux.http_create``: a plain
    HTTP one, or one through usbmuxd for ``http+usbmux://UDID:8100``) under facebook-wda's lock
    for the host, so it never runs beside another facebook-wda request to the same WDA; it is
    sent once, and its reply is read within the timeout and the size limit (Rules 3 and 4).
    Calls block, so the device runs them in a worker thread.
    """

    def __init__(self, url: str, *, max_reply_bytes: int = MAX_REPLY_BYTES) -> None:
        import wda  # noqa: F401 - fails here, at construction, when the extra is missing

        self._url = normalize_wda_url(url)
        self._max = max_reply_bytes

    @property
    def url(self) -> str:
        """The WDA base URL."""
        return self._url

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None, *, timeout: float) -> WdaReply:
        """Send once and read the reply within ``timeout`` and the size limit (module rules)."""
        import wda
        from wda.usbmux import http_create

        call = _Call(method, "/" + path.lstrip("/"), timeout, time.monotonic() + timeout)
        data = json.dumps(dict(body)) if body else None
        with wda.namedlock(self._url):  # facebook-wda's own: one request to a WDA at a time
            try:
                conn = http_create(self._url + call.path)
            except Exception as exc:  # usbmuxd's errors (no device, refused) have no common base
                raise WdaUnreachable(method, path, f"can't connect ({_short(exc)})") from exc
            try:
                status, raw = self._exchange(conn, call, data)
            finally:
                conn.close()
        return _reply(method, path, status, raw)

    def _exchange(self, conn: HTTPConnection, call: _Call, data: str | None) -> tuple[int, bytes]:
        conn.timeout = call.timeout
        try:
            if data is None:
                conn.request(call.method, call.path)
            else:
                conn.request(call.method, call.path, data, headers={"Content-Type": "application/json"})
            call.bound(conn)
            response = conn.getresponse()
            return response.status, self._body(response, conn, call)
        except WdaTransportError:
            raise
        except Exception as exc:  # http.client's errors: OSErrors, ValueErrors, HTTPExceptions
            raise _transport_failure(call.method, call.path, exc, call.timeout) from exc

    def _body(self, response: HTTPResponse, conn: HTTPConnection, call: _Call) -> bytes:
        """Rule 4: the body to the limit; Rule 3: within the deadline."""
        declared = response.getheader("Content-Length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self._max:
            raise WdaBadReply(
                call.method, call.path, f"a reply of {int(declared)} bytes, over the limit of {self._max}"
            )
        chunks: list[bytes] = []
        size = 0
        while True:
            call.bound(conn)
            chunk = response.read1(_CHUNK)
            if not chunk:
                if response.length:  # http.client ends a short body quietly: its Content-Length says
                    short = f"the connection failed before a complete reply ({response.length} bytes short)"
                    raise WdaNoReply(call.method, call.path, short)
                return b"".join(chunks)
            size += len(chunk)
            if size > self._max:
                raise WdaBadReply(
                    call.method, call.path, f"a reply over the limit of {self._max} bytes (it didn't end)"
                )
            chunks.append(chunk)

    def close(self) -> None:
        """Nothing to release: each request opens its own connection."""


@attrs.frozen
class _Call:
    """One request under way: what it is, its timeout and the moment it ends (Rule 3)."""

    method: str
    path: str
    timeout: float
    deadline: float

    def bound(self, conn: HTTPConnection) -> None:
        """The socket's next wait ends at the deadline; past it, the request has no reply."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise WdaNoReply(self.method, self.path, f"no complete reply within {self.timeout:g} s")
        if conn.sock is not None:
            conn.sock.settimeout(left)


def _reply(method: str, path: str, status: int, raw: bytes) -> WdaReply:
    """A reply's bytes as WDA's envelope (Rule 2), as facebook-wda reads them."""
    if status == 502:
        raise WdaBadReply(method, path, f"HTTP 502 Bad Gateway: {_snippet(raw)}")
    if not raw.strip():
        raise WdaBadReply(method, path, "an empty reply")
    try:
        reply = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise WdaBadReply(method, path, f"a reply that is not WDA's JSON ({_snippet(raw)})") from exc
    if not isinstance(reply, Mapping) or "value" not in reply:
        raise WdaBadReply(method, path, "a JSON reply without WDA's 'value'")
    value = reply["value"]
    if isinstance(value, Mapping) and value.get("error"):
        raise WdaErrorReply(method, path, str(value.get("error", "")), str(value.get("message", "")), status)
    session = reply.get("sessionId")
    return WdaReply(value, session if isinstance(session, str) and session else None)


def _snippet(raw: bytes) -> str:
    text = raw[:100].decode("utf-8", "replace")
    return repr(text + ("..." if len(raw) > 100 else ""))


def _transport_failure(method: str, path: str, exc: BaseException, timeout: float) -> WdaTransportError:
    cause = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc
    if isinstance(cause, ConnectionRefusedError | socket.gaierror):
        return WdaUnreachable(method, path, f"can't connect ({type(cause).__name__}: {cause})")
    if isinstance(cause, TimeoutError):
        return WdaNoReply(method, path, f"no reply within {timeout:g} s")
    return WdaNoReply(method, path, f"the connection failed before a complete reply ({type(cause).__name__}: {cause})")


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 120 else text[:117] + "..."
