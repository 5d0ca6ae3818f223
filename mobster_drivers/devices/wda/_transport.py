"""The WebDriverAgent transport: one HTTP request to WDA, sent once, and its reply's value.

Rule 1: a transport sends each request exactly once. It never retries, never follows a stale
        session, never re-sends on a timeout: whether to try again is the device's decision.
Rule 2: a transport says *how* a request failed, because the device maps that to the SDK's errors:
        :class:`WdaUnreachable` (nothing was sent), :class:`WdaNoReply` (sent, and no complete reply
        came: a timeout, a reset), :class:`WdaBadReply` (a reply that is not WDA's JSON envelope)
        and :class:`WdaErrorReply` (WDA answered with an error in its envelope). The original
        exception is the ``__cause__``.
Rule 3: every request has an explicit timeout in seconds; nothing waits on a module-wide default.

:class:`FacebookWdaTransport` sends through one plain facebook-wda ``Client`` (its raw
``http.fetch`` helper, with the client's retry callbacks removed).
Another HTTP client can replace it by implementing :class:`WdaTransport`.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import attrs

__all__ = [
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
    """:class:`WdaTransport` over one plain facebook-wda ``Client`` (imported lazily).

    The client's error callbacks are removed so it never re-sends (its stale-session callback
    retries), and every request goes through its raw ``fetch``
    with an explicit timeout. facebook-wda serialises requests to one host with a process-wide
    lock; calls block, so the device runs them in a worker thread.
    """

    def __init__(self, url: str) -> None:
        import wda

        self._url = normalize_wda_url(url)
        self._client = wda.Client(self._url)
        self._client.unregister_callback()

    @property
    def url(self) -> str:
        """The WDA base URL."""
        return self._url

    def request(self, method: str, path: str, body: Mapping[str, Any] | None = None, *, timeout: float) -> WdaReply:
        """Send once through facebook-wda and map its exceptions (module rules)."""
        import wda
        from wda.usbmux.exceptions import HTTPError

        data = dict(body) if body else None
        try:
            reply = self._client.http.fetch(method, path, data, timeout=timeout)
        except wda.WDARequestError as exc:
            value = exc.value if isinstance(exc.value, Mapping) else {}
            raise WdaErrorReply(method, path, str(value.get("error", "")), str(value.get("message", ""))) from exc
        except HTTPError as exc:
            raise _transport_failure(method, path, exc, timeout) from exc
        except wda.WDAEmptyResponseError as exc:
            raise WdaBadReply(method, path, "an empty reply") from exc
        except (wda.WDAError, ValueError, TypeError, AttributeError, KeyError) as exc:
            raise WdaBadReply(method, path, f"a reply that is not WDA's JSON ({_short(exc)})") from exc
        if not isinstance(reply, Mapping) or "value" not in reply:
            raise WdaBadReply(method, path, "a JSON reply without WDA's 'value'")
        session = reply.get("sessionId")
        return WdaReply(reply["value"], session if isinstance(session, str) and session else None)

    def close(self) -> None:
        """Nothing to release: facebook-wda opens a connection per request."""


def _transport_failure(method: str, path: str, exc: Exception, timeout: float) -> WdaTransportError:
    cause = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc.__cause__ or exc.__context__
    if isinstance(cause, ConnectionRefusedError | socket.gaierror):
        return WdaUnreachable(method, path, f"can't connect ({type(cause).__name__}: {cause})")
    if isinstance(cause, TimeoutError):
        return WdaNoReply(method, path, f"no reply within {timeout:g} s")
    name = type(cause).__name__ if cause is not None else type(exc).__name__
    return WdaNoReply(method, path, f"the connection failed before a complete reply ({name}: {cause or exc})")


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 120 else text[:117] + "..."
