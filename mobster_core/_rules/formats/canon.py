"""Canonical JSON and short digests: the one way the core turns data into a stable hash.

Rule 1: canonical JSON is ``json.dumps`` with sorted keys, no spaces, and non-ASCII kept as is.
Rule 2: a digest is the first N hex digits of SHA-256 over the UTF-8 of that JSON.
Rule 3: never hash a float: callers round frames to whole points before hashing.
Rule 4: text that UTF-8 can't encode (a lone surrogate) is hashed as U+FFFD, the way it is
        stored (``_text.py``): hashing never fails.
Rule 5: a hot path may write the canonical JSON of a shape it knows itself, the same text byte
        for byte: each string escaped by the encoder's own function (``encode_basestring``), the
        brackets and commas written around them, and any value it can't write as the encoder
        does handed to the encoder instead. :func:`pairs_digest` (a screen's signature) and the
        read fingerprint (``screen.py``) do; :func:`text_digest` digests such a text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from itertools import chain
from json.encoder import encode_basestring
from typing import Any

from .text import utf8


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of ``value`` (sorted keys, compact, UTF-8 kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any, length: int) -> str:
    """Return the first ``length`` hex digits of SHA-256 over the canonical JSON of ``value``."""
    return text_digest(canonical_json(value), length)


def text_digest(text: str, length: int) -> str:
    """The first ``length`` hex digits of SHA-256 over the UTF-8 of a canonical JSON ``text`` (Rule 5)."""
    return hashlib.sha256(utf8(text)).hexdigest()[:length]


def pairs_digest(pairs: Sequence[tuple[str, str]], length: int) -> str:
    """:func:`digest` of ``pairs`` (``[["a","b"],["c","d"]]``), without the encoder's work per item (Rule 5)."""
    if not pairs:
        return digest([], length)
    try:
        strings = iter(list(map(encode_basestring, chain.from_iterable(pairs))))
    except TypeError:  # a value that isn't a string: the encoder writes it
        return digest(pairs, length)
    text = "[[" + "],[".join(map(",".join, zip(strings, strings, strict=True))) + "]]"
    return text_digest(text, length)
