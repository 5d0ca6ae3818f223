"""Safety: what an action commits, and which commits a device refuses (SPEC §8).

Rule 1: an action is classified before it is sent, from its target's label and role and the
        step's recorded ``commit``: ``purchase``, ``send``, ``post``, ``delete`` or none.
Rule 2: only elements a person presses can commit (buttons, cells, links, menu items, keys…): a
        ``StaticText`` that says "Delete" is a title, not a delete.
Rule 3: a label commits when one of its words (whole words, any case) is a commit word, unless
        a word in it says the control only shows or manages something ("Restore Purchases",
        "Order history", "Payment methods", "Subscription details").
Rule 4: on a simulator every ``purchase`` is refused; on an iPhone every ``send``, ``post``,
        ``delete`` and ``purchase`` is refused. A refused action is never sent.
"""

from __future__ import annotations

import re

import attrs

from ._device import DeviceKind
from ._steps import Commit

__all__ = ["COMMIT_WORDS", "REFUSED", "SafetyDecision", "check_commit", "classify"]

#: Rule 3's table: the words that make a label commit, by what they commit. Multi-word entries
#: match as a phrase. The order of the table is the order of precedence.
COMMIT_WORDS: dict[Commit, tuple[str, ...]] = {
    Commit.PURCHASE: (
        "buy", "purchase", "subscribe", "pay", "order", "checkout", "check out", "rent",
        "start free trial", "start trial", "try free", "confirm purchase", "place order", "add funds",
    ),
    Commit.DELETE: ("delete", "remove", "erase", "discard", "trash", "clear all", "wipe"),
    Commit.SEND: ("send", "reply", "reply all", "share", "forward", "invite", "transfer"),
    Commit.POST: ("post", "publish", "tweet", "retweet", "repost", "comment", "upload"),
}  # fmt: skip

#: Rule 3's exceptions: a label with one of these words shows or manages, it doesn't commit.
NOT_A_COMMIT = frozenset(
    {
        "restore", "details", "detail", "history", "manage", "info", "information", "terms",
        "policy", "settings", "status", "methods", "options", "help", "about", "learn", "more",
        "undo", "cancel", "preview",
    }
)  # fmt: skip

#: Rule 2: the roles a person presses to commit something.
PRESSABLE_ROLES = frozenset(
    {
        "Button", "Cell", "Link", "MenuItem", "MenuButton", "Key", "Image", "Icon", "Other",
        "Tab", "ToolbarButton", "PopUpButton", "SegmentedControl",
    }
)  # fmt: skip

#: Rule 4: what each kind of device refuses.
REFUSED: dict[DeviceKind, frozenset[Commit]] = {
    DeviceKind.SIMULATOR: frozenset({Commit.PURCHASE}),
    DeviceKind.IPHONE: frozenset({Commit.SEND, Commit.POST, Commit.DELETE, Commit.PURCHASE}),
}

_WORD = re.compile(r"[a-z0-9]+")
_PHRASES: list[tuple[Commit, tuple[str, ...]]] = [
    (commit, tuple(phrase.split())) for commit, phrases in COMMIT_WORDS.items() for phrase in phrases
]


def classify(label: str, role: str) -> Commit | None:
    """What pressing an element with this label and role commits (Rules 2 and 3)."""
    if role not in PRESSABLE_ROLES:
        return None
    words = _WORD.findall(label.lower())
    if not words or NOT_A_COMMIT.intersection(words):
        return None
    for commit, phrase in _PHRASES:
        n = len(phrase)
        if any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1)):
            return commit
    return None


@attrs.frozen
class SafetyDecision:
    """Whether an action may be sent. ``commit`` is what it commits; ``rule`` says why it's refused."""

    allowed: bool
    commit: Commit | None = None
    rule: str = ""


def check_commit(commit: Commit | None, kind: DeviceKind) -> SafetyDecision:
    """Apply Rule 4 to an action that commits ``commit`` on a device of ``kind``."""
    if commit is None or commit not in REFUSED[kind]:
        return SafetyDecision(allowed=True, commit=commit)
    if kind is DeviceKind.SIMULATOR:
        rule = f"a {commit} is refused on a simulator"
    else:
        rule = f"a {commit} is refused on an iPhone (send, post, delete and purchase are)"
    return SafetyDecision(allowed=False, commit=commit, rule=rule)
