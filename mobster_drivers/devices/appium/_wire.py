"""Appium's W3C WebDriver protocol through Appium-Python-Client: one command, sent once.

Rule 1: requests go through the client's connection (``AppiumConnection``: its urllib3 pool,
        its headers, the ``X-Idempotency-Key`` of a new session, Selenium's command table). The
        client's ``WebDriver`` object and its error handler are not used: the handler ignores the
        HTTP status and passes a reply that is not JSON through as a value, so a load balancer's
        ``502`` page would count as a tap that worked.
Rule 2: nothing is re-sent. urllib3's retries are off (``retries=False``). Its default never
        re-sends a POST (every action is one) but re-sends a GET whose reply was lost up to three
        more times (measured: 4 sends), so a slow read would cost four timeouts; off, every
        command, whatever its method, is sent once. Every command has an explicit timeout in
        seconds (the connection's timeout, set per command while the wire's lock is held).
        Keep-alive stays on: a TLS handshake per command would add a round trip to every read
        and tap on a cloud.
Rule 3: a failure says how it failed, so the device can map it: :class:`AppiumUnreachable`
        (nothing was sent: refused, DNS, TLS, proxy, connect timeout), :class:`AppiumNoReply`
        (sent, no complete reply: a read timeout, a dropped connection), :class:`AppiumBadReply`
        (a reply that is not W3C JSON) and :class:`AppiumErrorReply` (a W3C error: its
        ``error``, ``message`` and HTTP status). Every detail is scrubbed of secrets.
Rule 4: the URL's user info is sent as HTTP basic auth, never in the URL (its password and any
        token in its path are secrets too). While a wire is open, the log lines of Selenium's
        connection (each command's parameters: the capabilities, keys included), of urllib3's
        pool (each path: a per-session endpoint's token) and of the client's own logger go
        through a filter that scrubs the wire's secrets.
Rule 5: headers are built per connection. ``AppiumConnection`` keeps the next new session's
        idempotency key in a class-level dict shared by every connection in the process: two
        sessions created at once from two threads could share one key, and Appium would answer
        both with the same session.
Rule 6: every read of a reply is bounded: its body is read in pieces, at most
        :data:`MAX_REPLY` bytes (a reply that goes on is cut there and is an
        :class:`AppiumBadReply`; a real one is a few MiB at most, a screenshot), and it must end
        within the command's timeout once its headers came (a body that trickles in forever is
        an :class:`AppiumNoReply`), as well as each read of the socket.
Rule 7: a wire can be given up on at once: :meth:`AppiumWire.abort` shuts down its sockets, so
        a call waiting for a reply (a Grid hub's queue that never answers, a stalled command)
        ends now with an :class:`AppiumNoReply` instead of at its timeout; :meth:`AppiumWire.close`
        aborts, and never waits for a call in flight.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib import parse

import attrs

from ._caps import scrub, split_url, url_secrets

if TYPE_CHECKING:
    from urllib.parse import ParseResult

    from appium.webdriver.appium_connection import AppiumConnection

__all__ = [
    "AppiumBadReply",
    "AppiumErrorReply",
    "AppiumNoReply",
    "AppiumTransportError",
    "AppiumUnreachable",
    "AppiumWire",
    "WireReply",
]

#: Appium's own commands the device sends, which Selenium's command table doesn't have (the
#: client's ``WebDriver`` adds them when it is made; the wire doesn't make one).
APPIUM_COMMANDS = {
    "updateSettings": ("POST", "/session/$sessionId/appium/settings"),
    "getSession": ("GET", "/session/$sessionId"),
    # Appium's legacy route: the UiAutomator2 driver types into the focused element (its ``keys``).
    "sendKeysToActive": ("POST", "/session/$sessionId/keys"),
}
#: The longest reply read, in bytes (Rule 6).
MAX_REPLY = 64 << 20
_PIECE = 1 << 16
#: The loggers whose lines may carry capabilities (and so keys): scrubbed while a wire is open.
SCRUBBED_LOGGERS = ("selenium.webdriver.remote.remote_connection", "urllib3.connectionpool", "appium.common.logger")
_SNIPPET = 160


class AppiumTransportError(Exception):
    """A command to Appium failed; the subclass says how (module rules)."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: {detail}")
        self.what = what
        self.detail = detail


class AppiumUnreachable(AppiumTransportError):
    """Nothing was sent: the connection could not be made."""


class AppiumNoReply(AppiumTransportError):
    """The command was sent (or may have been) and no complete reply came."""


class AppiumBadReply(AppiumTransportError):
    """A reply came that is not W3C WebDriver JSON (an HTML error page, a truncated body)."""


class AppiumErrorReply(AppiumTransportError):
    """A W3C error reply: ``{"value": {"error", "message", "stacktrace"}}`` and its HTTP status."""

    def __init__(self, what: str, error: str, message: str, status: int | None) -> None:
        http_status = f"HTTP {status} " if status else ""
        super().__init__(what, f"{http_status}{error!r}: {message}" if message else f"{http_status}{error!r}")
        self.error = error
        self.message = message
        self.status = status


@attrs.frozen
class WireReply:
    """A successful reply: its ``value`` and a top-level ``sessionId`` when there was one."""

    value: Any
    session_id: str | None = None


class _ScrubFilter(logging.Filter):
    """Replaces secrets in a log record's message (Rule 4)."""

    def __init__(self, clean: Callable[[str], str]) -> None:
        super().__init__("mobster-appium-scrub")
        self._clean = clean

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed record is not ours to fix; drop it
            return False
        clean = self._clean(message)
        if clean != message:
            record.msg = clean
            record.args = None
        return True


class _TooLong(Exception):
    """A reply's body went past :data:`MAX_REPLY` (Rule 6)."""


class _TooSlow(Exception):
    """A reply's body didn't end within the command's timeout (Rule 6)."""


class _Tracked:
    """A urllib3 connection that keeps itself in its wire's ``live`` set while it is open (Rule 7)."""

    live: set[Any]
    live_lock: threading.Lock

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]  # the connection class it is mixed into
        with self.live_lock:
            self.live.add(self)

    def close(self) -> None:
        with self.live_lock:
            self.live.discard(self)
        super().close()  # type: ignore[misc]


def _tracked_pools(live: set[Any], lock: threading.Lock) -> dict[str, type[Any]]:
    """urllib3 connection pools whose connections say when they open and close (Rule 7)."""
    import urllib3
    from urllib3.connection import HTTPConnection, HTTPSConnection

    state = {"live": live, "live_lock": lock}
    plain = type("_Plain", (_Tracked, HTTPConnection), state)
    secure = type("_Secure", (_Tracked, HTTPSConnection), state)
    return {
        "http": type("_PlainPool", (urllib3.HTTPConnectionPool,), {"ConnectionCls": plain}),
        "https": type("_SecurePool", (urllib3.HTTPSConnectionPool,), {"ConnectionCls": secure}),
    }


def _connection_class() -> type[AppiumConnection]:
    """``AppiumConnection``: headers per connection, bounded reads, sockets shut at once (Rules 5-7).

    Imported lazily, with the client.
    """
    from appium.webdriver.appium_connection import HEADER_IDEMOTENCY_KEY, AppiumConnection

    class _Connection(AppiumConnection):
        live: set[Any]
        live_lock: threading.Lock

        def _get_connection_manager(self) -> Any:
            manager = super()._get_connection_manager()  # type: ignore[no-untyped-call]
            self.live, self.live_lock = set(), threading.Lock()
            manager.pool_classes_by_scheme = _tracked_pools(self.live, self.live_lock)
            return manager

        def abort(self) -> None:
            """Shut down every socket of the connection's pool (Rule 7)."""
            with self.live_lock:
                live = list(self.live)
            for connection in live:
                sock = getattr(connection, "sock", None)
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)

        def _request(self, method: str, url: str, body: Any = None) -> dict[str, Any]:
            """Selenium's request, its body read in bounded pieces (Rule 6)."""
            headers = self.get_remote_connection_headers(parse.urlparse(url), self._client_config.keep_alive)
            headers.update(self._client_config.get_auth_header() or {})
            if body and method not in ("POST", "PUT"):
                body = None
            timeout = float(self._client_config.timeout or 30)
            response = self._conn.request(
                method, url, body=body, headers=headers, timeout=timeout, preload_content=False
            )
            try:
                data = _bounded(response, time.monotonic() + timeout)
            finally:
                response.release_conn()
            return _reply_dict(response.status, response.reason, response.headers.get("Content-Type"), data)

        def get_remote_connection_headers(  # type: ignore[override]
            self, parsed_url: ParseResult, keep_alive: bool = True
        ) -> dict[str, Any]:
            headers: dict[str, Any] = {
                "Accept": "application/json",
                "Content-Type": "application/json;charset=UTF-8",
                "User-Agent": AppiumConnection.user_agent,
            }
            if keep_alive:
                headers["Connection"] = "keep-alive"
            if parsed_url.path.endswith("/session"):
                headers[HEADER_IDEMOTENCY_KEY] = str(uuid.uuid4())
            return headers

    return _Connection


def _bounded(response: Any, deadline: float) -> str:
    """A reply's body, at most :data:`MAX_REPLY` bytes, ended by ``deadline`` (Rule 6)."""
    pieces: list[bytes] = []
    size = 0
    for piece in response.stream(_PIECE):
        size += len(piece)
        if size > MAX_REPLY:
            raise _TooLong
        pieces.append(piece)
        if time.monotonic() > deadline:
            raise _TooSlow
    return b"".join(pieces).decode("utf-8")


def _reply_dict(status: int, reason: str | None, content_type: str | None, data: str) -> dict[str, Any]:
    """What Selenium's ``_request`` makes of a reply (the wire's ``_reply`` reads it, Rule 1)."""
    if status == 401:
        return {"status": status, "value": "Authorization Required"}
    if status >= 400:
        return {"status": status, "value": data.strip() or reason}
    if any(part.strip().startswith("image/png") for part in (content_type or "").split(";")):
        return {"status": 0, "value": data}
    try:
        parsed = json.loads(data.strip())
    except ValueError:
        return {"status": 0, "value": data.strip()}
    if isinstance(parsed, dict) and "value" not in parsed:
        parsed["value"] = None
    return parsed if isinstance(parsed, dict) else {"status": 0, "value": parsed}


class AppiumWire:
    """One Appium server: sends a command once and returns its value (module rules).

    ``url`` may carry user info (``https://USER:KEY@hub…``); ``secrets`` are scrubbed from every
    detail and from the client's log lines. Commands are serialized: one at a time per wire, as
    Appium runs a session's commands one at a time anyway.
    """

    def __init__(self, url: str, *, secrets: Iterable[str] = ()) -> None:
        from appium.webdriver.client_config import AppiumClientConfig

        clean, user, password = split_url(url)
        self._url = clean
        self._secrets = frozenset(s for s in (*secrets, *url_secrets(url)) if s)
        config = AppiumClientConfig(
            remote_server_addr=clean,
            keep_alive=True,
            timeout=30,
            username=user,
            password=password,
            init_args_for_pool_manager={"init_args_for_pool_manager": {"retries": False}},
            direct_connection=False,
        )
        self._conn = _connection_class()(client_config=config)
        for name, (method, path) in APPIUM_COMMANDS.items():
            self._conn.add_command(name, method, path)  # type: ignore[no-untyped-call]
        self._lock = threading.Lock()  # one call at a time
        self._state = threading.Lock()  # guards _closed, never held while a call waits
        self._filter = _ScrubFilter(self.scrub)
        for name in SCRUBBED_LOGGERS:
            logging.getLogger(name).addFilter(self._filter)
        self._closed = False

    @property
    def url(self) -> str:
        """The server's URL without user info."""
        return self._url

    @property
    def secrets(self) -> frozenset[str]:
        """What :meth:`scrub` hides."""
        return self._secrets

    def scrub(self, text: str) -> str:
        """``text`` without the wire's secrets."""
        return scrub(text, self._secrets)

    def call(
        self,
        command: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float,
        what: str,
        session: str | None = None,
    ) -> WireReply:
        """Send Selenium/Appium command ``command`` once; ``what`` names it in messages (Rule 3)."""
        payload: dict[str, Any] = dict(params or {})
        if session is not None:
            payload["sessionId"] = session
        with self._lock:
            if self._closed:
                raise AppiumUnreachable(what, "the connection to Appium was closed")
            self._conn.client_config.timeout = timeout
            raw = self._send(command, payload, what, timeout)
            if self._closed:  # given up on while it waited (Rule 7)
                raise AppiumNoReply(what, "the connection to Appium was closed before the reply came")
        return self._reply(raw, what)

    def _send(self, command: str, payload: dict[str, Any], what: str, timeout: float) -> Any:
        """The command on the wire, its failures named as Rule 3 says (under the wire's lock)."""
        import urllib3

        try:
            return self._conn.execute(command, payload)  # type: ignore[no-untyped-call]
        except urllib3.exceptions.ReadTimeoutError as exc:
            raise AppiumNoReply(what, f"no reply within {timeout:g} s") from exc
        except (
            urllib3.exceptions.ConnectTimeoutError,  # NewConnectionError (refused, DNS) is one
            urllib3.exceptions.SSLError,
            urllib3.exceptions.ProxyError,
            urllib3.exceptions.LocationValueError,
        ) as exc:
            raise AppiumUnreachable(what, f"can't connect ({self.scrub(_short(exc))})") from exc
        except urllib3.exceptions.ProtocolError as exc:
            raise AppiumNoReply(what, f"the connection closed before a complete reply ({_short(exc)})") from exc
        except (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError) as exc:
            raise AppiumNoReply(
                what, f"the request failed before a complete reply ({self.scrub(_short(exc))})"
            ) from exc
        except UnicodeDecodeError as exc:
            raise AppiumBadReply(what, "a reply that is not UTF-8 text") from exc
        except _TooLong as exc:
            raise AppiumBadReply(what, f"a reply longer than {MAX_REPLY >> 20} MiB (cut there)") from exc
        except _TooSlow as exc:
            raise AppiumNoReply(what, f"the reply did not end within {timeout:g} s") from exc

    def abort(self) -> None:
        """End a call waiting for its reply now: its socket is shut (Rule 7); the wire stays usable."""
        self._conn.abort()  # type: ignore[attr-defined]

    def close(self) -> None:
        """Give up on any call in flight, close the connection pool, stop scrubbing the client's logs.

        Never waits for a call in flight (Rule 7); safe to call twice.
        """
        with self._state:
            if self._closed:
                return
            self._closed = True
        self.abort()
        for name in SCRUBBED_LOGGERS:
            logging.getLogger(name).removeFilter(self._filter)
        if self._lock.acquire(timeout=1.0):  # the call in flight ends at once: its socket was shut
            try:
                self._conn.close()  # type: ignore[no-untyped-call]
            finally:
                self._lock.release()

    def _reply(self, raw: Any, what: str) -> WireReply:
        if not isinstance(raw, dict):
            raise AppiumBadReply(what, f"a reply that is not a JSON object ({type(raw).__name__})")
        status = raw.get("status")
        value = raw.get("value")
        if isinstance(status, int) and not isinstance(status, bool) and status != 0:
            raise self._error(what, status, value)
        if status == 0 and isinstance(value, str) and set(raw) == {"status", "value"}:
            # Selenium's shape for a 2xx body that is not JSON (W3C replies carry no status).
            raise AppiumBadReply(what, f"a reply that is not JSON: {self._snippet(value)}")
        if isinstance(value, dict) and isinstance(value.get("error"), str) and "message" in value:
            raise AppiumErrorReply(what, value["error"], self.scrub(str(value.get("message") or "")), None)
        session = raw.get("sessionId")
        return WireReply(value, session if isinstance(session, str) and session else None)

    def _error(self, what: str, status: int, value: Any) -> AppiumTransportError:
        """A non-2xx reply: Selenium hands over the body text (or a fixed text for a 401)."""
        if status == 401:
            return AppiumErrorReply(what, "unauthorized", "the server wants a user name and key (HTTP 401)", 401)
        body: Any = value
        if isinstance(value, str):
            try:
                body = json.loads(value)
            except ValueError:
                return AppiumBadReply(what, f"HTTP {status} with a body that is not JSON: {self._snippet(value)}")
        inner = body.get("value") if isinstance(body, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("error"), str):
            message = str(inner.get("message") or "")
            return AppiumErrorReply(what, inner["error"], self.scrub(message), status if status >= 100 else None)
        return AppiumBadReply(what, f"HTTP {status} without a W3C error: {self._snippet(json.dumps(body)[:400])}")

    def _snippet(self, text: str) -> str:
        flat = " ".join(text.split())
        flat = flat if len(flat) <= _SNIPPET else flat[: _SNIPPET - 3] + "..."
        return self.scrub(flat)


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 200 else text[:197] + "..."
