"""The signature, the screen hash and the read fingerprint of a read's elements (the screen's Rules 3 to 5).

Rule 3: the *signature* is the sorted list of unique ``[role, label]`` pairs of the *shown*
        elements with a non-empty label (Rule 7). Frames and values are not part of it.
Rule 4: the *screen hash* is the first 16 hex digits of SHA-256 over the canonical JSON of the
        signature.
Rule 5: the *read fingerprint* covers everything a read returned (the app, and each element's
        path, role, label, identifier, value, enabled, visible, selected and frame rounded to
        whole points, and the placeholder when there is one). Two reads in a row *agree* when their
        fingerprints are equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from json.encoder import encode_basestring

from mobster_core._rules.formats.canon import digest

from .elements import Element

__all__ = ["fingerprint_json", "fingerprint_rows", "signature_hash"]


def signature_hash(pairs: Iterable[Sequence[str]]) -> str:
    """The screen hash of a signature given as ``(role, label)`` pairs, in the given order."""
    return digest([list(p) for p in pairs], 16)


def fingerprint_rows(elements: Sequence[Element], width: int, height: int) -> list[list[object]]:
    """Rule 5's row of each element, for the JSON encoder."""
    return [
        [
            e.path,
            e.role,
            e.label,
            e.identifier,
            e.value,
            e.enabled,
            e.visible,
            e.selected,
            round(e.frame[0] * width),
            round(e.frame[1] * height),
            round(e.frame[2] * width),
            round(e.frame[3] * height),
            # Only when set, so a screen without placeholders keeps the digest it always had.
            *([e.placeholder] if e.placeholder else []),
        ]
        for e in elements
    ]


#: Whole points as JSON writes them, for the frames of a screen up to this size (canon's Rule 5).
_POINTS = {n: str(n) for n in range(4096)}


def fingerprint_json(app: str, elements: Sequence[Element], width: int, height: int) -> str:
    """The canonical JSON of ``[app, fingerprint_rows(...)]``, written directly (canon's Rule 5).

    Raises TypeError or KeyError for what it leaves to the encoder: text that isn't a string, a
    flag that isn't a bool, a frame that isn't floats (``float.__round__`` is ``round`` without
    the builtin's look-up), a point outside ``_POINTS``. A frame that can't be rounded (NaN, an
    infinity) raises what ``round`` raises.
    """
    text = encode_basestring
    points = _POINTS
    to_int = float.__round__
    rows: list[str] = []
    add = rows.append
    for e in elements:
        enabled, visible, selected = e.enabled, e.visible, e.selected
        if enabled.__class__ is not bool or visible.__class__ is not bool or selected.__class__ is not bool:
            raise TypeError(e)
        x, y, w, h = e.frame
        add(
            f"[{text(e.path)},{text(e.role)},{text(e.label)},{text(e.identifier)},{text(e.value)},"
            f"{'true' if enabled else 'false'},{'true' if visible else 'false'},{'true' if selected else 'false'},"
            f"{points[to_int(x * width)]},{points[to_int(y * height)]},"
            f"{points[to_int(w * width)]},{points[to_int(h * height)]}"
            f"{',' + text(e.placeholder) if e.placeholder else ''}]"
        )
    return f"[{text(app)},[{','.join(rows)}]]"
