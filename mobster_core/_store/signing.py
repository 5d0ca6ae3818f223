"""A signed path store: with a team key, every document is signed, and one without a good signature is refused.

A store a team shares (an object store, a database) is foreign input: anyone who can write to it
can write a path. With a team key configured, the store is wrapped in :class:`SignedPaths`.

Rule 1 (what is signed): a path or a heal state is written with one more top-level key,
        ``"signature": "hmac-sha256:<64 hex>"``: the HMAC-SHA256, with the team key, of the
        document's name, a newline, and its canonical form: the JSON object without
        ``signature``, with sorted keys, no whitespace (``,`` and ``:``), non-ASCII as it is, in
        UTF-8. The name is signed too, so a signed document can't be moved under another name.
        The stored document keeps the store's layout (two-space indentation, sorted keys, a final
        newline): a reader without the key reads it as it reads any path (the key is ignored).
Rule 2 (what is refused): a path or heal state read from a signed store that has no signature,
        isn't a JSON object, or whose signature isn't Rule 1's HMAC with this key is refused
        with one line (:class:`~mobster_core.exceptions.UnsafeFile`, problem ``unsigned`` or
        ``forged``; it carries the version read). Nothing of it is sent to the device: the run
        records again. A shared store's refused path or heal state (a team's remote store) is
        left byte for byte and said, and the run's recording replaces that version (the cache's
        Rule 12); a private store's is set aside (``<name>.unsigned`` / ``.forged``). A refused
        heal state is no heal state: the recorded path replays.
Rule 3: the MAC is compared in constant time (``hmac.compare_digest``); the key is never written,
        logged or shown (its ``repr`` is ``<team key>``).
Rule 4 (leases are not signed): a recording lease (``lease``) decides which machine records, never
        what is replayed; a forged lease delays a run at most its ``wait_s``, then the run records.
        Leases pass through as they are.
Rule 5: the safety rules still judge every replayed action, signed or not: a signature says who
        wrote a path, not that it is safe.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

from mobster_core._rules.formats.text import utf8
from mobster_core.exceptions import Problem, UnsafeFile

from .pathstores import PathStore, Versioned

__all__ = ["SIGNATURE_KEY", "SignedPaths", "TeamKey", "canonical", "sign", "verify"]

#: Rule 1: the top-level key a signed document carries.
SIGNATURE_KEY = "signature"
_PREFIX = "hmac-sha256:"
_UNSIGNED_KINDS = ("leases/",)


class TeamKey:
    """Rule 3: the team's signing key (bytes); its ``repr`` never shows it."""

    def __init__(self, secret: str | bytes) -> None:
        value = secret.encode() if isinstance(secret, str) else bytes(secret)
        if len(value) < 16:
            raise ValueError("a team key is at least 16 bytes (e.g. 32 random bytes, hex): it signs the team's paths")
        self._value = value

    def mac(self, message: bytes) -> str:
        """Rule 1's HMAC-SHA256 of ``message``, as the signature's text."""
        return _PREFIX + hmac.new(self._value, message, hashlib.sha256).hexdigest()

    def __repr__(self) -> str:
        return "<team key>"


def canonical(name: str, document: dict[str, Any]) -> bytes:
    """Rule 1: what is signed: the name, a newline, the object without its signature in canonical JSON."""
    body = {k: v for k, v in document.items() if k != SIGNATURE_KEY}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return utf8(f"{name}\n{text}")


def sign(key: TeamKey, name: str, data: bytes) -> bytes:
    """Rule 1: ``data`` (a JSON object, as the core writes it) with its signature, in the store's layout."""
    document = json.loads(data)
    if not isinstance(document, dict):
        raise TypeError(f"only a JSON object is signed, not {type(document).__name__}")
    document[SIGNATURE_KEY] = key.mac(canonical(name, document))
    return utf8(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for k, v in pairs:
        if k in found:
            raise ValueError(f"the key {k!r} appears twice")
        found[k] = v
    return found


def verify(key: TeamKey, name: str, data: bytes, where: str, tag: str | None = None) -> None:
    """Rule 2: raise :class:`UnsafeFile` (``unsigned`` or ``forged``) unless ``data`` carries this key's signature.

    ``tag`` is the version read (the refusal carries it: a shared store's refused document is
    left in place, and the recording that replaces it expects that version).
    """
    try:
        document = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError):
        document = None  # a duplicate key could show the verifier one value and the reader another
    if not isinstance(document, dict) or not isinstance(document.get(SIGNATURE_KEY), str):
        raise UnsafeFile(
            Path(where),
            "it is not signed with the team key (a signed store refuses unsigned documents)",
            problem=Problem.UNSIGNED,
            fix="the next run records it again and signs it",
            tag=tag,
        )
    if not hmac.compare_digest(document[SIGNATURE_KEY], key.mac(canonical(name, document))):
        raise UnsafeFile(
            Path(where),
            "its signature doesn't match the team key (forged, changed since signed, or signed with another key)",
            problem=Problem.FORGED,
            fix="the next run records it again and signs it",
            tag=tag,
        )


class SignedPaths:
    """Rules 1-4: ``inner``'s documents, signed with ``key`` as they are written and verified as they are read."""

    def __init__(self, inner: PathStore, key: TeamKey) -> None:
        self.inner = inner
        self.key = key
        self.name = inner.name
        self.shared = inner.shared

    @staticmethod
    def _path_name(identity: str, env: str) -> str:
        return f"paths/{identity}-{env}.json"

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """``inner``'s names."""
        return self.inner.names(identity)

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """Rule 2: one path, verified."""
        got = self.inner.read(identity, env, max_bytes=max_bytes)
        if isinstance(got, Versioned):
            verify(self.key, self._path_name(identity, env), got.data, self.inner.where(identity, env), got.tag)
        return got

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 1: one path, signed."""
        return self.inner.write(identity, env, sign(self.key, self._path_name(identity, env), data), expect=expect)

    def remove(self, identity: str, env: str) -> None:
        """``inner``'s."""
        self.inner.remove(identity, env)

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """``inner``'s."""
        return self.inner.set_aside(identity, env, suffix)

    def where(self, identity: str, env: str) -> str:
        """``inner``'s."""
        return self.inner.where(identity, env)

    def documents(self, prefix: str) -> list[str]:
        """``inner``'s."""
        return self.inner.documents(prefix)

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """Rule 2 (Rule 4: a lease as it is)."""
        got = self.inner.read_document(name, max_bytes=max_bytes)
        if isinstance(got, Versioned) and not name.startswith(_UNSIGNED_KINDS):
            verify(self.key, name, got.data, self.inner.where_document(name), got.tag)
        return got

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 1 (Rule 4: a lease as it is)."""
        signed = data if name.startswith(_UNSIGNED_KINDS) else sign(self.key, name, data)
        return self.inner.write_document(name, signed, expect=expect)

    def remove_document(self, name: str) -> None:
        """``inner``'s."""
        self.inner.remove_document(name)

    def where_document(self, name: str) -> str:
        """``inner``'s."""
        return self.inner.where_document(name)
