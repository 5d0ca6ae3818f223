"""Safety: what an action commits, and which commits a device refuses.

Safety errs toward refusing: when in doubt, a label commits.

Rule 1: an action is classified before it is sent, from its target's label and role and the
        step's recorded ``commit``: ``purchase``, ``send``, ``post``, ``delete`` or none. When
        the recorded commit and the label disagree, the stricter one counts (``strictest``).
Rule 2: an element can commit unless its role is one a person reads, types into or scrolls
        (:data:`READ_ONLY_ROLES`: a ``StaticText`` that says "Delete" is a title, not a delete; a
        text field, a bar, a list, an alert's frame). Every other role can, a role this table
        doesn't know included (a ``CheckBox``, a ``WebView``, a ``Toggle``, a driver's own name):
        safety errs toward refusing. A role is read in its one spelling (``roles.py``: a driver's
        ``XCUIElementTypeButton`` or ``button`` is ``Button``).
Rule 3: a label is normalized before it is read (``fold``): invalid text repaired, Unicode NFKC
        (full-width letters become plain), case folded, every invisible character removed
        (zero-width spaces and joiners, the soft hyphen, bidi marks and the other format
        characters, variation selectors), accents dropped, and letters that look Latin in
        Cyrillic or Greek read as the Latin letter they look like. A label is read as a person
        may see it, every way at once, and commits what any reading commits (``readings``): as
        written; as shown, where a right-to-left override (U+202E) shows the letters after it in
        reverse ("\u202ewon yuB" shows "Buy now"); with words joined in camel case or by an
        invisible character taken apart ("DeleteAccount", "deleteIcon", "Delete\u2060Account").
Rule 4: a label commits when a commit word of ``COMMIT_WORDS`` (fifteen languages: English,
        Simplified and Traditional Chinese, Japanese, Spanish, German, and with Android French,
        Portuguese, Italian, Dutch, Polish, Turkish, Russian, Korean, Indonesian, Arabic) is in
        it anywhere: as a whole word or phrase in a language with spaces, inside the text in
        Chinese, Japanese and Korean, or spelled out letter by letter ("D E L E T E"). No other
        word in the label vetoes it ("Erase All Content and Settings", "Send more invites", "Buy
        more coins" all commit).
Rule 5: the one exception is a label part that is, as a whole, a known harmless phrase of
        ``HARMLESS_PHRASES`` ("Purchase History", "Payment Methods", "Delete Key Settings"). A
        label's parts are what VoiceOver joins with commas ("Subscriptions, 2"); each part that
        holds a commit word must be harmless as a whole, or the label commits.
Rule 6: a Button whose whole label is a price is a purchase: an amount (either decimal
        separator, grouped or not) with a currency before or after it, as a symbol (``$``, ``€``,
        ``₺``, ``₪``, ``zł``, ``kr``, …: :data:`CURRENCY_SYMBOLS`) or an ISO 4217 code
        (:data:`CURRENCY_CODES`), and an optional period ("/ month", "per year", "pro Monat",
        "/月": :data:`PERIOD_WORDS`).
Rule 7: when a label commits several things, the order of ``COMMIT_WORDS`` decides: purchase,
        then delete, send, post (so a simulator, which refuses only purchases, never misses one).
Rule 8: on a simulator or an Android emulator every ``purchase`` is refused; on an iPhone or a real
        Android device every ``send``, ``post``, ``delete`` and ``purchase`` is refused. A refused
        action is never sent.
Rule 9: the work is linear in the label's length: a label of a megabyte is classified, not skipped.
Rule 10 (a press lands on what holds it): a tap or a long press on an element inside a ``Button`` or
        a ``Cell`` presses that control as well (a button's own text; an Android row's title, whose
        tap the row takes): it commits the strictest of what the element and every such control
        above it commit (:func:`classify_press`). Typing and swipes are judged on their element.

The tables the rules read (commit words, harmless phrases, currencies, roles, refusals) are
``tables``'; this module exports them too.
"""

from __future__ import annotations

import re
import unicodedata

import attrs

from mobster_core._rules.device.device import DeviceKind
from mobster_core._rules.formats.text import valid_text
from mobster_core._rules.vocabulary.roles import canonical_role
from mobster_core._rules.vocabulary.screen import Element, Screen
from mobster_core._rules.vocabulary.steps import Commit, Op

from .tables import (
    COMMIT_WORDS,
    COMMIT_WORDS_BY_LANGUAGE,
    CURRENCY_CODES,
    CURRENCY_SYMBOLS,
    HARMLESS_PHRASES,
    PERIOD_WORDS,
    READ_ONLY_ROLES,
    REFUSED,
)

__all__ = [
    "COMMIT_WORDS",
    "COMMIT_WORDS_BY_LANGUAGE",
    "CURRENCY_CODES",
    "CURRENCY_SYMBOLS",
    "HARMLESS_PHRASES",
    "PERIOD_WORDS",
    "READ_ONLY_ROLES",
    "REFUSED",
    "SafetyDecision",
    "check_commit",
    "classify",
    "classify_press",
    "commit_of_label",
    "fold",
    "readings",
    "strictest",
]

# -- Rule 3: folding ------------------------------------------------------------------------

# Rule 3's invisible characters: every format character (Unicode category Cf: zero-width space,
# joiners, the soft hyphen, bidi marks, the BOM, tag characters…; a test checks the list against
# the running Python's Unicode tables), the combining grapheme joiner, Hangul fillers, Khmer
# inherent vowels, Mongolian selectors and variation selectors.
_INVISIBLE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0\ufe00-\ufe0f\U000e0100-\U000e01ef]"
)
# Cyrillic and Greek letters (after casefolding) that look like a Latin letter (Cyrillic a, e, o,
# p, c, y, x…; Greek alpha, omicron, rho, nu…), and the Latin letter each looks like.
_LOOKALIKE = str.maketrans(
    "\u0430\u0432\u0435\u0451\u0456\u0457\u0458\u043a\u043c\u043d"
    "\u043e\u0440\u0441\u0442\u0443\u0445\u0455\u0501\u051b\u051d"
    "\u0261\u04bb\u04cf\u03b1\u03b2\u03b5\u03b7\u03b9\u03ba\u03bd"
    "\u03bf\u03c1\u03c4\u03c5\u03c7\u03f2\u0131\u0237",
    "abeeiijkmhopctyxsdqwghlabenikvoptuxcij",
)
# Accents: the combining diacritical marks (not the kana voicing marks, which change a word).
_ACCENT = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_PARTS = re.compile(r"[,;\u3001]")
_WORD = re.compile(r"[^\W_]+")
# Chinese, Japanese and Korean: matched inside the text (a Korean verb's ending joins its word: 삭제하기).
_SPACELESS = re.compile(
    r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)


def fold(text: str) -> str:
    """Rule 3: the form in which labels and table entries are compared (words joined by spaces)."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", valid_text(text)).casefold())
    bare = _ACCENT.sub("", unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFC", bare).translate(_LOOKALIKE)


_PERIOD_LEAD = r"(?:/|per|a|an|pro|al|por|par|le|au|im|w|za|na|每|毎|/\s*1)"
_SYMBOL = "|".join(re.escape(sym) for sym in sorted({fold(s) for s in CURRENCY_SYMBOLS}, key=len, reverse=True))
_CODE = "|".join(sorted(CURRENCY_CODES, key=len, reverse=True))
_CURRENCY = rf"(?:{_SYMBOL}|(?<![^\W\d_])(?:{_CODE})(?![^\W\d_]))"
_AMOUNT = r"\d{1,3}(?:[.,\s'\u2019\u00a0\u202f]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_PERIOD = rf"(?:\s?{_PERIOD_LEAD}?\s?(?:{'|'.join(re.escape(fold(w)) for w in PERIOD_WORDS)})\.?)"
_PRICE = re.compile(rf"(?:{_CURRENCY}\s?(?:{_AMOUNT})|(?:{_AMOUNT})\s?{_CURRENCY})(?:{_PERIOD})?")


@attrs.frozen
class _Part:
    words: tuple[str, ...]

    @property
    def key(self) -> str:
        return " ".join(self.words)

    @property
    def squashed(self) -> str:
        return "".join(self.words)


def _parts(label: str) -> list[_Part]:
    return [_Part(tuple(_WORD.findall(part))) for part in _PARTS.split(fold(label))]


def _entries() -> tuple[dict[tuple[str, ...], Commit], list[tuple[str, Commit]], dict[str, Commit], int]:
    """Index Rule 4's table: phrases by words, spaceless entries, and words spelled out."""
    phrases: dict[tuple[str, ...], Commit] = {}
    spaceless: list[tuple[str, Commit]] = []
    squashed: dict[str, Commit] = {}
    for commit, words in COMMIT_WORDS.items():
        for entry in words:
            folded = tuple(_WORD.findall(fold(entry)))
            if _SPACELESS.search(entry):
                spaceless.append(("".join(folded), commit))
                continue
            phrases.setdefault(folded, commit)
            squashed.setdefault("".join(folded), commit)
    longest = max(len(p) for p in phrases)
    return phrases, spaceless, squashed, longest


_PHRASES, _SPACELESS_WORDS, _SQUASHED, _LONGEST = _entries()
_HARMLESS = frozenset(" ".join(_WORD.findall(fold(p))) for p in HARMLESS_PHRASES)
_ORDER = tuple(COMMIT_WORDS)


def _commits_in(part: _Part) -> set[Commit]:
    found: set[Commit] = set()
    words = part.words
    for i in range(len(words)):
        for n in range(1, min(_LONGEST, len(words) - i) + 1):
            commit = _PHRASES.get(words[i : i + n])
            if commit is not None:
                found.add(commit)
    squashed = part.squashed
    commit = _SQUASHED.get(squashed)
    if commit is not None:
        found.add(commit)
    if _SPACELESS.search(squashed):
        found.update(commit for entry, commit in _SPACELESS_WORDS if entry in squashed)
    return found


_RLO, _PDF = "\u202e", "\u202c"
# Camel case joins: "deleteIcon", "DeleteAccount", "btnDELETE", "PINCode"; not a one-letter prefix
# ("iPhone", "eBay", "iCloud" are names, and splitting them would hide a harmless phrase).
_CAMEL = re.compile(r"(?<=[a-z]{2})(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2})")


def _shown(text: str) -> str:
    """Rule 3: the text as shown, each run after a right-to-left override reversed (to its pop or the end)."""
    out: list[str] = []
    rest = text
    while _RLO in rest:
        before, _, after = rest.partition(_RLO)
        run, pop, rest = after.partition(_PDF)
        out += [before, run[::-1]]
        if not pop:
            rest = ""
    out.append(rest)
    return "".join(out)


def readings(label: str) -> tuple[str, ...]:
    """Rule 3: the ways a person may read a label: as written, as shown, and with joined words apart."""
    label = valid_text(label)
    found = [label]
    if _RLO in label:
        found.append(_shown(label))
    for text in tuple(found):
        apart = _INVISIBLE.sub(" ", _CAMEL.sub(" ", text))
        if apart != text:
            found.append(apart)
    return tuple(dict.fromkeys(found))


def commit_of_label(label: str) -> Commit | None:
    """What a label commits when a person presses it (Rules 3 to 7), whatever the role."""
    found: set[Commit] = set()
    for text in readings(label):
        for part in _parts(text):
            if part.key in _HARMLESS:
                continue
            found |= _commits_in(part)
    return strictest(*found)


def classify(label: str, role: str) -> Commit | None:
    """What pressing an element with this label and role commits (Rules 2 to 7)."""
    role = canonical_role(role)
    if role in READ_ONLY_ROLES:
        return None
    if role == "Button" and any(_PRICE.fullmatch(" ".join(fold(text).split())) for text in readings(label)):
        return Commit.PURCHASE
    return commit_of_label(label)


#: Rule 10: the controls a press on an element inside them presses too.
_PRESSED_WITH = frozenset({"Button", "Cell"})


def classify_press(screen: Screen, element: Element, op: Op) -> Commit | None:
    """Rule 10: what ``op`` on ``element`` (of ``screen``) commits, with the controls a press lands on."""
    found = classify(element.label, element.role)
    if op not in (Op.TAP, Op.LONG_PRESS):
        return found
    path = element.path
    while "/" in path[1:]:
        path = path.rsplit("/", 1)[0]
        above = screen.element_at(path)
        if above is not None and above.role in _PRESSED_WITH:
            found = strictest(found, classify(above.label, above.role))
    return found


def strictest(*commits: Commit | None) -> Commit | None:
    """The commit that is refused on the most devices (Rule 7's order); None when there is none."""
    given = {c for c in commits if c is not None}
    return next((c for c in _ORDER if c in given), None)


@attrs.frozen
class SafetyDecision:
    """Whether an action may be sent. ``commit`` is what it commits; ``rule`` says why it's refused."""

    allowed: bool
    commit: Commit | None = None
    rule: str = ""


def check_commit(commit: Commit | None, kind: DeviceKind) -> SafetyDecision:
    """Apply Rule 8 to an action that commits ``commit`` on a device of ``kind``."""
    if commit is None or commit not in REFUSED[kind]:
        return SafetyDecision(allowed=True, commit=commit)
    if not kind.is_real:
        rule = f"a {commit} is refused on {kind.named}"
    else:
        rule = f"a {commit} is refused on {kind.named} (send, post, delete and purchase are)"
    return SafetyDecision(allowed=False, commit=commit, rule=rule)
