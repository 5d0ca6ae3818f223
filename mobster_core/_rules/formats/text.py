r"""Text from outside: one rule for text that UTF-8 can't encode, and a safe form for each output.

Rule 1: text from outside is made valid Unicode where it enters the core: a high surrogate
        followed by a low one (a UTF-16 pair, as a YAML or JSON ``"\ud83d\ude00"`` escape writes
        an emoji) is the character the pair encodes, and every lone surrogate (U+D800..U+DFFF,
        which UTF-8 can't encode) becomes U+FFFD, the replacement character.
        Text enters from a device's screen (a label cut in the middle of an emoji by the app),
        a YAML file (a ``"\ud800"`` escape), a model's reply (a JSON ``\ud800``), a file
        name (bytes that are not UTF-8), an OS error message. So what is hashed, matched,
        cached and shown is the same text.
Rule 2: the same function runs again where text leaves as bytes (hashes, JSON, YAML, XML files):
        a surrogate that got in some other way is replaced there too, and never crashes a write.
Rule 3: ``junit.xml`` holds no character XML 1.0 forbids (C0 controls other than tab, line feed
        and carriage return; U+FFFE and U+FFFF; surrogates), nor the C1 controls XML discourages:
        they are removed, so the file stays well-formed.
Rule 4: for a terminal, control characters (C0, DEL, C1), line and paragraph separators and the
        bidi controls are shown as escapes (``\x1b``, ``\n``, ``\u202e``), never emitted raw:
        an escape sequence in a label can't recolour, move or hide the output, and a newline in
        a check name can't forge a line of its own.
Rule 5: a file whose format is UTF-8 without a byte order mark (TOML, JSON a device is sent)
        and starts with one is said as such, with the fix, before it is parsed
        (:func:`bom_problem`): a UTF-8 mark ("it starts with a byte order mark (BOM); save it as
        UTF-8 without one"), or the mark of UTF-16 or UTF-32 (what some editors save as
        "Unicode"). A parser would say "Invalid statement" at line 1, column 1.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping

__all__ = ["bom_problem", "escape_controls", "utf8", "valid_data", "valid_text", "xml_text"]

#: What Rule 1 puts in place of a lone surrogate.
REPLACEMENT = "\ufffd"

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
# Rule 3: forbidden by XML 1.0 (and surrogates, already replaced by Rule 1), then the C1 controls.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\x7f-\x84\x86-\x9f]")
# Rule 4: C0 controls, DEL, C1 controls, LS/PS, and the bidi marks, embeddings, overrides, isolates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_NEWLINE_KEPT = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def valid_text(text: str) -> str:
    """``text`` with surrogate pairs joined and lone ones replaced by U+FFFD (Rule 1); the same object when valid."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, _PAIR.sub(_joined, text))
    return text


def _joined(pair: re.Match[str]) -> str:
    text = pair.group()
    return chr(0x10000 + ((ord(text[0]) - 0xD800) << 10) + (ord(text[1]) - 0xDC00))


def valid_data(value: object) -> object:
    """Rule 1 over parsed data: every string (keys too) in dicts and lists made valid.

    Containers without a bad string are returned as they are. Call it on data whose depth is
    already bounded (the YAML loader caps nesting before it parses).
    """
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, Mapping):
        items = [(valid_data(k), valid_data(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, list):
        cleaned = [valid_data(v) for v in value]
        if all(c is v for c, v in zip(cleaned, value, strict=True)):
            return value
        return cleaned
    return value


def utf8(text: str) -> bytes:
    """The UTF-8 bytes of ``text`` after Rule 1 (Rule 2: every write of text goes through this)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return valid_text(text).encode("utf-8")


def xml_text(text: str) -> str:
    """``text`` as XML 1.0 may hold it (Rule 3): valid Unicode, forbidden characters removed."""
    return _NOT_XML.sub("", valid_text(text))


def escape_controls(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control character shown as an escape (Rule 4).

    ``keep_newlines`` keeps line feeds for text that is meant to span lines (each line is still
    escaped). Lone surrogates become U+FFFD first (Rule 1).
    """
    text = valid_text(text)
    pattern = _CONTROL_OR_NEWLINE_KEPT if keep_newlines else _CONTROL
    return pattern.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


#: Rule 5: the byte order marks, longest first (UTF-32's little-endian mark starts with UTF-16's).
_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF8, "UTF-8"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_NO_MARK = "save it as UTF-8 without one"


def bom_problem(data: bytes) -> str | None:
    """Rule 5: what a byte order mark at the start of ``data`` is, with the fix (one phrase), or None."""
    for mark, encoding in _MARKS:
        if data.startswith(mark):
            if encoding == "UTF-8":
                return f"it starts with a byte order mark (BOM); {_NO_MARK}"
            return f"it is {encoding} text (it starts with its byte order mark); {_NO_MARK}"
    return None
