"""Typing: which text a replay may type, and which text never reaches the disk.

Rule 1 (masked): text typed into a ``SecureTextField``, or into a field whose label or identifier
        says password, passcode, PIN or code, is masked: it is never written anywhere, never
        replayed, and its step is stored as ``text: null, live: true``.
Rule 2 (provenance): a replay types text only when that text appears word for word in the check's
        steps, its ``launch.url`` or its launch values (``launch.args``, ``launch.env`` values), or
        when it was typed into a ``SearchField``. "Word for word" means the whole text, bounded by
        spaces, quotes, brackets or the end of a sentence, in one of those strings.
Rule 3 (live): any other text is the model's: the step is live and the model types it each run.
Rule 4 (secrets): text that is only ``${NAME}`` references named in the check's own words is kept
        as written and replayed, whatever the field: the reference holds no secret (the value is
        typed as the action leaves for the device, ``_rules/secrets.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

from .secrets import only_references

__all__ = ["Provenance", "RecordedText", "is_masked", "record_text"]

_MASK_WORDS = re.compile(r"(?<![a-z0-9])(password|passcode|passwd|pin|code|otp)(?![a-z0-9])", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Rule 2's bounds: the text starts after a space, a quote, a bracket or the start, and ends before
# one of those or a punctuation mark that ends a sentence ("ada@example" is not in "ada@example.com").
_BEFORE = r"(?<![^\s\"'\u201c\u201d\u2018\u2019(\[{<])"
_AFTER = r"(?=$|[\s\"'\u201c\u201d\u2018\u2019)\]}>]|[.,;:!?](?:$|\s))"
MASKED_ROLES = frozenset({"SecureTextField"})
SEARCH_ROLES = frozenset({"SearchField"})


def is_masked(role: str, label: str, identifier: str) -> bool:
    """Rule 1: does text typed into this field stay secret?"""
    if role in MASKED_ROLES:
        return True
    # identifiers are often camelCase or snake_case: "passwordField", "otp_code"
    words = " ".join(_CAMEL.sub(" ", s).replace("_", " ").replace("-", " ") for s in (label, identifier))
    return bool(_MASK_WORDS.search(words))


@attrs.frozen
class Provenance:
    """The user's own words a replay may type: the check's steps, link and launch values."""

    sources: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        *,
        steps: Sequence[str] = (),
        launch_url: str | None = None,
        launch_args: Iterable[str] = (),
        launch_env: Mapping[str, str] | None = None,
    ) -> Provenance:
        """Collect the sources of Rule 2."""
        sources = [*steps, *(launch_args or ()), *((launch_env or {}).values())]
        if launch_url:
            sources.append(launch_url)
        return cls(tuple(s for s in sources if s))

    def allows(self, text: str) -> bool:
        """Does ``text`` appear word for word in one of the sources?"""
        if not text:
            return False
        pattern = re.compile(_BEFORE + re.escape(text) + _AFTER)
        return any(pattern.search(source) for source in self.sources)


@attrs.frozen
class RecordedText:
    """How a typed text is kept in a path: the text (or None) and whether the step is live."""

    text: str | None
    live: bool
    masked: bool = False


def record_text(text: str, *, role: str, label: str, identifier: str, provenance: Provenance) -> RecordedText:
    """Apply Rules 1-4 to text typed into a field while recording."""
    if only_references(text) and provenance.allows(text):
        return RecordedText(text=text, live=False)
    if is_masked(role, label, identifier):
        return RecordedText(text=None, live=True, masked=True)
    if role in SEARCH_ROLES or provenance.allows(text):
        return RecordedText(text=text, live=False)
    return RecordedText(text=None, live=True)
