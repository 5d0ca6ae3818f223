"""Typing: which text a replay may type, and which text never reaches the disk.

Rule 1 (masked): text typed into a ``SecureTextField`` (any label), or into a field whose label or
        identifier says it holds a secret, is masked: it is never written anywhere, never
        replayed, and its step is stored as ``text: null, live: true``. A field says so by a word
        of :data:`MASK_WORDS`, in any of its 24 languages (password, passcode, PIN, code, OTP,
        CVV/CVC, card number, verification code, …; Passwort, Contraseña, 密码, パスワード,
        비밀번호, пароль, senha, mot de passe, …), read as safety reads a label (``safety.fold``:
        case, width, accents and invisible characters don't hide a word) and with identifiers'
        joins taken apart (``passwordField``, ``otp_code``, ``PINCode``, ``SMSCode``). A word
        matches whole in a language with spaces, anywhere in Chinese, Japanese, Korean and Thai.
Rule 2 (provenance): a replay types text only when that text appears word for word in the check's
        steps, its ``launch.url`` or its launch values (``launch.args``, ``launch.env`` values), or
        when it was typed into a ``SearchField``. "Word for word" means the whole text, bounded by
        spaces, quotes, brackets or the end of a sentence, in one of those strings.
Rule 3 (live): any other text is the model's: the step is live and the model types it each run.
Rule 4 (secrets): text that is only ``${NAME}`` references named in the check's own words is kept
        as written and replayed, whatever the field: the reference holds no secret (the value is
        typed as the action leaves for the device, ``_rules/device/secrets.py``).
Rule 5 (a heal keeps it): a heal types what the recorded steps it stands in for typed (from the
        drifted step up to the one the replay resumes at, or to the end when the heal ends the
        steps); so does the model's action for a live step. Their typing steps and the heal's
        typing actions pair one to one, in order (as many of each), and in each pair:

        a. the text the check gives for the step, as the path keeps it (a ``${NAME}`` reference:
           a secret's, or any value the check names by reference and records as the reference;
           the check's own words; a search query as it was typed), is typed as the same text. A
           step the path keeps no text of (live: masked text, never stored, or the model's own
           words) is kept by any typed text: nothing is compared, so no masked value ever is;
        b. the field is the recorded one (its label and role), or one that was not on the step's
           recorded screen (renamed, or new): a field that was there beside it is another field;
        c. a field that hides what is typed (Rule 1, by its role and label) is replaced by one that
           hides it too: a heal never moves a password into a field that shows it.

        :func:`lost_typing` says what the first pair that breaks it lost, naming the text as the
        check gives it (a reference, never a value; literal text quoted on one line).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

from mobster_core._rules.device.secrets import only_references
from mobster_core._rules.safety.safety import fold
from mobster_core._rules.vocabulary.roles import canonical_role
from mobster_core._rules.vocabulary.steps import Op, Step, Target

__all__ = ["MASK_WORDS", "Provenance", "RecordedText", "is_masked", "lost_typing", "record_text", "shown_text"]

#: Rule 1's words, by language: what a field that holds a secret is called.
MASK_WORDS: dict[str, tuple[str, ...]] = {
    "en": (
        "password", "passcode", "passwd", "pwd", "passphrase", "pass phrase", "pin", "code", "otp", "one time",
        "cvv", "cvv2", "cvc", "cvc2", "csc", "cid", "security code", "card number", "card no", "credit card",
        "debit card", "iban", "ssn", "social security", "secret", "token", "2fa", "mfa", "totp",
    ),
    "de": ("passwort", "kennwort", "geheimzahl", "sicherheitscode", "bestatigungscode", "kartennummer", "prufnummer"),
    "fr": ("mot de passe", "code secret", "numero de carte", "cryptogramme", "code de verification"),
    "es": ("contrasena", "clave", "codigo", "numero de tarjeta", "codigo de seguridad", "nip"),
    "pt": ("senha", "codigo", "numero do cartao", "codigo de seguranca"),
    "it": ("parola d'ordine", "codice", "numero della carta", "codice di sicurezza"),
    "nl": ("wachtwoord", "toegangscode", "kaartnummer", "beveiligingscode"),
    "pl": ("hasło", "haslo", "kod", "numer karty"),
    "tr": ("sifre", "parola", "kod", "kart numarası", "kart numarasi"),  # noqa: RUF001 - Turkish dotless i
    "ru": ("пароль", "код", "номер карты"),
    "uk": ("пароль", "код", "номер картки"),
    "sv": ("losenord", "kod", "kortnummer"),
    "da": ("adgangskode", "kodeord", "kode"),
    "no": ("passord", "kode"),
    "fi": ("salasana", "koodi", "tunnusluku"),
    "cs": ("heslo", "kod"),
    "hu": ("jelszo", "kod"),
    "ro": ("parola", "cod"),
    "el": ("κωδικος", "συνθηματικο"),
    "id": ("kata sandi", "kata laluan", "kode", "sandi"),
    "vi": ("mat khau", "ma xac minh", "ma pin"),
    "ar": ("كلمة المرور", "كلمة السر", "رمز التحقق", "رمز", "الرمز"),
    "he": ("סיסמה", "סיסמא", "קוד"),
    "hi": ("पासवर्ड", "कूटशब्द", "ओटीपी", "पिन"),
    # matched anywhere in the text (no spaces between words)
    "zh": ("密码", "密碼", "验证码", "驗證碼", "口令", "卡号", "卡號", "安全码", "动态码"),
    "ja": ("パスワード", "暗証番号", "認証コード", "確認コード", "セキュリティコード", "カード番号", "ワンタイム"),
    "ko": ("비밀번호", "암호", "인증번호", "보안코드", "카드번호", "인증코드"),
    "th": ("รหัสผ่าน", "รหัส"),
}  # fmt: skip
_SPACELESS = ("zh", "ja", "ko", "th")
_WORD = re.compile(r"[^\W_]+")
# identifiers are camelCase, snake_case or kebab-case: "passwordField", "otp_code", "PINCode", "SMSCode"
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _index() -> tuple[frozenset[tuple[str, ...]], int, tuple[str, ...]]:
    phrases: set[tuple[str, ...]] = set()
    anywhere: list[str] = []
    for language, words in MASK_WORDS.items():
        for word in words:
            if language in _SPACELESS:
                anywhere.append("".join(_WORD.findall(fold(word))))
            else:
                phrases.add(tuple(_WORD.findall(fold(word))))
    return frozenset(phrases), max(len(p) for p in phrases), tuple(anywhere)


_PHRASES, _LONGEST, _ANYWHERE = _index()


def _says_secret(text: str) -> bool:
    words = _WORD.findall(fold(_CAMEL.sub(" ", text)))
    for i in range(len(words)):
        for n in range(1, min(_LONGEST, len(words) - i) + 1):
            if tuple(words[i : i + n]) in _PHRASES:
                return True
    joined = "".join(words)
    return any(word in joined for word in _ANYWHERE)


# Rule 2's bounds: the text starts after a space, a quote, a bracket or the start, and ends before
# one of those or a punctuation mark that ends a sentence ("ada@example" is not in "ada@example.com").
_BEFORE = r"(?<![^\s\"'\u201c\u201d\u2018\u2019(\[{<])"
_AFTER = r"(?=$|[\s\"'\u201c\u201d\u2018\u2019)\]}>]|[.,;:!?](?:$|\s))"
MASKED_ROLES = frozenset({"SecureTextField"})
SEARCH_ROLES = frozenset({"SearchField"})


def is_masked(role: str, label: str, identifier: str) -> bool:
    """Rule 1: does text typed into this field stay secret?"""
    if canonical_role(role) in MASKED_ROLES:
        return True
    return _says_secret(label) or _says_secret(identifier)


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


def shown_text(text: str | None, target: Target | None = None) -> str:
    """Rule 5: a step's text as a message shows it: references as written, other text quoted on one line.

    A step whose text the path doesn't keep (None) is named by its field (``into "Password"``).
    """
    if text is None:
        return "text" if target is None else f'into "{target.label}"'
    if only_references(text):
        return text.strip()
    return json.dumps(text, ensure_ascii=False)


def lost_typing(old: Sequence[Step], new: Sequence[Step]) -> str | None:
    """Rule 5: what the steps ``new`` (a heal's, a live step's action) lose of the typing of ``old``.

    None when they keep it; else the words, after a subject such as "the healed step":
    ``no longer types ${LOGIN_PASSWORD}``.
    """
    was = [s for s in old if s.op is Op.TYPE]
    now = [s for s in new if s.op is Op.TYPE]
    for before, after in zip(was, now, strict=False):
        lost = _lost(before, after)
        if lost is not None:
            return lost
    if len(now) < len(was):
        missing = was[len(now)]
        return f"no longer types {shown_text(missing.text, missing.target)}"
    if len(now) > len(was):
        extra = now[len(was)]
        return f"types more than the check says there: {extra.describe()}"
    return None


def _lost(before: Step, after: Step) -> str | None:
    """Rule 5's a-c for one typing step and the typing action standing in for it."""
    if before.text is not None and after.text != before.text:
        return f"no longer types {shown_text(before.text)}"
    what = "" if before.text is None else f" {shown_text(before.text)}"
    old, new = before.target, after.target
    assert old is not None  # a TYPE step has a target (``steps`` Rule 3)
    assert new is not None
    if (new.label, new.role) != (old.label, old.role) and (new.role, new.label) in before.screen.pairs:
        return f'types{what} into "{new.label}", another field of the recorded screen, not into "{old.label}"'
    if is_masked(old.role, old.label, "") and not is_masked(new.role, new.label, ""):
        return f'types{what} into "{new.label}", a field that shows what is typed, where "{old.label}" hid it'
    return None
