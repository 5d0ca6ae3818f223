r"""Helpers both model adapters use to read replies and to report errors without the key.

Rule 1: a key that an HTTP header can't carry (empty once blanks are stripped, a character outside
        printable ASCII, a space or a control character inside) is a ``ModelError`` naming the
        environment variable, raised before any request (``checked_key``).
Rule 2: ``scrub`` removes a key from any text a server or an SDK may echo, in the forms servers
        echo it: exact, in another letter case, URL-encoded (``%2D``), JSON-escaped (``\u002d``,
        ``\/``), and cut short (any run of 8 or more of the key's characters in a row, so a
        prefix or a suffix a server shows, such as ``sk-test-…6789``, goes too). Shorter keys are
        removed whole only.
Rule 3: the SDKs' HTTP clients share one TLS context per process (``tls_context``): the one the
        SDKs would build each (SSL_CERT_FILE or SSL_CERT_DIR when set, else the system's CAs),
        made once per value of those variables. Building it reads the CA bundle, about 60 ms a
        client, and a pool makes a model per device.
Rule 4: an error status is worded the same way for both vendors (``status_error``): a refused key
        names the environment variable to check, a model the key may not use names the model, a
        rate limit says to try again later, a 5xx is the server's failure, anything else a refusal.
"""

from __future__ import annotations

import functools
import os
import re
import ssl
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from mobster_core import ModelError

__all__ = [
    "Refusal",
    "Vendor",
    "checked_key",
    "count",
    "detail",
    "refusal_of",
    "scrub",
    "show",
    "status_error",
    "tls_context",
]

#: Which refusal an error status is, as the vendor's exception class says (Rule 4).
Refusal = Literal["key", "model", "rate"]


@attrs.frozen
class Vendor:
    """A model API in messages: its name (``Anthropic``) and its key's environment variable."""

    name: str
    key_variable: str


def refusal_of(exc: Exception, refusals: Mapping[type[Exception], Refusal]) -> Refusal | None:
    """Which refusal ``exc`` is, by the first of the vendor's exception classes it is an instance of."""
    return next((refusal for kind, refusal in refusals.items() if isinstance(exc, kind)), None)


def status_error(vendor: Vendor, status: int, detail: str, refusal: Refusal | None, model: str) -> ModelError:
    """An error status from ``vendor``'s API, in words (Rule 4); ``detail`` is already scrubbed of the key."""
    if refusal == "key":
        return ModelError(f"the {vendor.name} key was refused ({status}); check {vendor.key_variable}")
    if refusal == "model":
        return ModelError(f"the {vendor.name} key may not use {model} ({status}): {detail}")
    if refusal == "rate":
        return ModelError(f"rate limited by {vendor.name} ({status}): {detail}; try again later")
    if status >= 500:
        return ModelError(f"{vendor.name}'s server failed ({status}): {detail}")
    return ModelError(f"{vendor.name} refused the request ({status}): {detail}")


#: A fragment of the key this long or longer is removed (Rule 2).
MIN_FRAGMENT = 8
REDACTED = "<redacted>"

# One unit of encoded text: a URL escape, a JSON \u escape, a JSON short escape, or one character.
_UNIT = re.compile(r"%([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|\\([\"\\/bfnrt])|(.)", re.DOTALL)
_SHORT = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def checked_key(key: str, variable: str, vendor: str) -> str:
    """The key with blanks around it stripped (Rule 1); raises ``ModelError`` naming ``variable``."""
    stripped = key.strip()
    if not stripped:
        raise ModelError(f"no {vendor} key: set {variable} or pass --env-file")
    for position, char in enumerate(stripped, 1):
        if not "\x21" <= char <= "\x7e":
            what = "a space" if char.isspace() else "a control character" if char.isascii() else "a non-ASCII character"
            raise ModelError(
                f"{variable} can't be sent: character {position} of the key is {what} (U+{ord(char):04X}), "
                "which an HTTP header can't carry; copy the key again, without quotes or spaces"
            )
    return stripped


def count(value: Any) -> int:
    """A token count from the reply; None (and anything that is not a count) is 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def detail(body: object, fallback: str) -> str:
    """The server's own message from an error body, else the SDK's, cut to 300 characters."""
    text = fallback
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            text = error["message"]
    return text if len(text) <= 300 else text[:297] + "..."


def scrub(text: str, key: str) -> str:
    """``text`` with every echo of ``key`` replaced by ``<redacted>`` (Rule 2)."""
    if not key or not text:
        return text
    folded_key = key.lower()
    size = min(MIN_FRAGMENT, len(folded_key))
    fragments = {folded_key[i : i + size] for i in range(len(folded_key) - size + 1)}
    # The text is read twice: as it is, and with its escapes decoded (a "%" before the key may
    # look like the start of an escape that isn't one), and what either reading finds goes.
    hidden = [False] * len(text)
    for units in (_as_is(text), _decoded(text)):
        chars = "".join(char for char, _, _ in units)
        for i in range(len(units) - size + 1):
            if chars[i : i + size] in fragments:
                for _, start, end in units[i : i + size]:
                    hidden[start:end] = [True] * (end - start)
    out: list[str] = []
    i = 0
    while i < len(text):
        if hidden[i]:
            while i < len(text) and hidden[i]:
                i += 1
            out.append(REDACTED)
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _fold(char: str) -> str:
    # Keys are ASCII (Rule 1): any other character breaks a run, whatever it folds to.
    return char.lower() if char.isascii() else "\x00"


def _as_is(text: str) -> list[tuple[str, int, int]]:
    return [(_fold(c), i, i + 1) for i, c in enumerate(text)]


def _decoded(text: str) -> list[tuple[str, int, int]]:
    units = []
    for unit in _UNIT.finditer(text):
        url, json_u, json_short, plain = unit.groups()
        if url is not None:
            char = chr(int(url, 16))
        elif json_u is not None:
            char = chr(int(json_u, 16))
        elif json_short is not None:
            char = _SHORT.get(json_short, json_short)
        else:
            char = plain
        units.append((_fold(char), *unit.span()))
    return units


def show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def tls_context() -> ssl.SSLContext:
    """The TLS context the SDKs' HTTP clients share (Rule 3)."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _tls_context(_cert_file: str | None, _cert_dir: str | None) -> ssl.SSLContext:
    """httpx2's own context for the environment the arguments name (they key the cache)."""
    import httpx2

    return httpx2.create_ssl_context()
