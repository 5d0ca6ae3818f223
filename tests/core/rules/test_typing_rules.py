from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core._rules.replay.typing_rules import Provenance, is_masked, lost_typing, record_text, shown_text
from tests.core.helpers import screen, step_on
from tests.strategies import examples

PROV = Provenance.of(
    steps=['Tap "Sign up"', 'Type "ada@example.com" into "Email"', "Search for blue shoes"],
    launch_url="yourapp://signup?ref=ci",
    launch_args=["-seed", "42"],
    launch_env={"USER_NAME": "Ada Lovelace", "EMPTY": ""},
)


@pytest.mark.parametrize(
    ("role", "label", "identifier"),
    [
        ("SecureTextField", "Anything", ""),
        ("TextField", "Password", ""),
        ("TextField", "Enter passcode", ""),
        ("TextField", "PIN", ""),
        ("TextField", "Verification code", ""),
        ("TextField", "", "passwordField"),
        ("TextField", "", "otp_code"),
        ("TextField", "", "login-pin"),
        ("TextField", "", "PINCode"),
        ("TextField", "", "SMSCode"),
        ("TextField", "", "cardNumber"),
        ("TextField", "CVV", ""),
        ("TextField", "Security code", ""),
        ("XCUIElementTypeSecureTextField", "Anything", ""),
        ("securetextfield", "Name", ""),
        *[("TextField", label, "") for label in (
            "Passwort", "Kennwort", "Contraseña", "Mot de passe", "Senha", "Parola d'ordine", "Wachtwoord",
            "Hasło", "Şifre", "Пароль", "Lösenord", "Adgangskode", "Passord", "Salasana", "Heslo", "Jelszó",
            "Parolă", "Κωδικός", "Kata sandi", "Mật khẩu", "كلمة المرور", "סיסמה", "पासवर्ड", "密码", "密碼",
            "パスワード", "暗証番号", "비밀번호를 입력하세요", "รหัสผ่าน", "Kartennummer", "Numéro de carte",
            "PASS\u200bWORD", "ｐａｓｓｗｏｒｄ",
        )],
    ],
)  # fmt: skip
def test_masked_fields(role: str, label: str, identifier: str) -> None:
    assert is_masked(role, label, identifier)


@pytest.mark.parametrize(
    ("label", "identifier"),
    [("Email", "email"), ("Spinner", ""), ("Codename", ""), ("", "pinned"), ("Name", "fullName"), ("", "iPhoneName")],
)
def test_unmasked_fields(label: str, identifier: str) -> None:
    assert not is_masked("TextField", label, identifier)


@pytest.mark.parametrize(
    "text", ["ada@example.com", "blue shoes", "42", "Ada Lovelace", "yourapp://signup?ref=ci", "Sign up"]
)
def test_provenance_allows_the_users_own_words(text: str) -> None:
    assert PROV.allows(text)


@pytest.mark.parametrize("text", ["ada@example", "da@example.com", "shoe", "Lovelace Ada", "", "4"])
def test_provenance_refuses_other_text(text: str) -> None:
    assert not PROV.allows(text)


def test_record_text_rules() -> None:
    kept = record_text("ada@example.com", role="TextField", label="Email", identifier="", provenance=PROV)
    assert (kept.text, kept.live, kept.masked) == ("ada@example.com", False, False)
    invented = record_text("Hello there", role="TextField", label="Message", identifier="", provenance=PROV)
    assert (invented.text, invented.live) == (None, True)
    search = record_text("red hats", role="SearchField", label="Search", identifier="", provenance=PROV)
    assert (search.text, search.live) == ("red hats", False)
    secret = record_text("ada@example.com", role="SecureTextField", label="Password", identifier="", provenance=PROV)
    assert (secret.text, secret.live, secret.masked) == (None, True, True)


# -- Rule 5: a heal keeps what the check says to type --------------------------------------------

SECRET = "s3cr3t-Value-42"
REF = "${LOGIN_PASSWORD}"
CHECK_WORDS = Provenance.of(
    steps=['Type "ada@example.com" into "Email"', f'Type "{REF}" into "Password"', 'Type "New York" into "City"']
)
FORM = screen(
    [
        {"role": "StaticText", "label": "Log in"},
        {"role": "TextField", "label": "Email"},
        {"role": "SecureTextField", "label": "Password"},
        {"role": "TextField", "label": "City"},
        {"role": "Button", "label": "Continue"},
    ]
)
#: The rebuild: the fields are renamed (and a plain field and a second secure one are new).
REBUILT = screen(
    [
        {"role": "StaticText", "label": "Log in"},
        {"role": "TextField", "label": "E-mail"},
        {"role": "SecureTextField", "label": "Passcode"},
        {"role": "SecureTextField", "label": "Confirm passcode"},
        {"role": "TextField", "label": "Your word"},
        {"role": "TextField", "label": "Town"},
        {"role": "Button", "label": "Continue"},
    ]
)


def plain(label: str, text: str, on: mc.Screen = REBUILT) -> mc.Step:
    """The step Smart records for typing ``text`` into a text field (the typing rules decide what is kept)."""
    kept = record_text(text, role="TextField", label=label, identifier="", provenance=CHECK_WORDS)
    return step_on(on, "TYPE", label, "TextField", text=kept.text, live=kept.live)


def secure(label: str, text: str, on: mc.Screen = REBUILT) -> mc.Step:
    """The same for a secure field: masked text is never kept (the step is live), a reference is."""
    kept = record_text(text, role="SecureTextField", label=label, identifier="", provenance=CHECK_WORDS)
    return step_on(on, "TYPE", label, "SecureTextField", text=kept.text, live=kept.live)


def tap(label: str, on: mc.Screen = REBUILT, role: str = "Button") -> mc.Step:
    return step_on(on, label=label, role=role)


EMAIL = plain("Email", "ada@example.com", FORM)
PASSWORD = secure("Password", REF, FORM)
LIVE = secure("Password", "hunter22", FORM)  # a password the check writes out: live, never kept
PASSCODE = secure("Passcode", REF)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ([PASSWORD], [PASSCODE]),
        ([PASSWORD], [secure("Password", REF, FORM)]),  # the same field
        ([PASSWORD], [tap("Continue"), PASSCODE]),  # a tap before it types
        ([EMAIL, PASSWORD], [plain("E-mail", "ada@example.com"), PASSCODE]),
        ([tap("Continue", FORM)], [tap("Continue")]),  # nothing typed either side
        ([], [tap("Continue")]),  # a popup dismissed before the step
        ([LIVE], [secure("Passcode", "x")]),  # a live step is kept by any typing: nothing is compared
    ],
)
def test_a_heal_that_types_what_the_steps_typed_keeps_it(old: list[mc.Step], new: list[mc.Step]) -> None:
    assert lost_typing(old, new) is None


@pytest.mark.parametrize(
    ("old", "new", "lost"),
    [
        ([PASSWORD], [tap("Passcode", role="SecureTextField")], f"no longer types {REF}"),
        ([PASSWORD], [], f"no longer types {REF}"),
        # the secret's value itself: masked text the path never keeps, so not the reference
        ([PASSWORD], [secure("Passcode", SECRET)], f"no longer types {REF}"),
        ([PASSWORD], [secure("Passcode", "${LOGIN_PASS")], f"no longer types {REF}"),
        ([PASSWORD], [secure("Passcode", "${OTHER}")], f"no longer types {REF}"),
        ([EMAIL], [plain("E-mail", "ada@example")], 'no longer types "ada@example.com"'),
        # a prefix that the check's words hold too (so the path would keep it)
        ([plain("City", "New York", FORM)], [plain("Town", "New")], 'no longer types "New York"'),
        ([EMAIL, PASSWORD], [plain("E-mail", "ada@example.com")], f"no longer types {REF}"),  # lookahead skipped it
        ([EMAIL, PASSWORD], [PASSCODE, plain("E-mail", "ada@example.com")], 'no longer types "ada@example.com"'),
        ([PASSWORD], [PASSCODE, PASSCODE], f'types more than the check says there: Type "{REF}" into "Passcode"'),
        (
            [PASSWORD],
            [PASSCODE, secure("Confirm passcode", REF)],
            f'types more than the check says there: Type "{REF}" into "Confirm passcode"',
        ),
        ([tap("Continue", FORM)], [PASSCODE], f'types more than the check says there: Type "{REF}" into "Passcode"'),
        (
            [PASSWORD],
            [plain("Email", REF, FORM)],
            f'types {REF} into "Email", another field of the recorded screen, not into "Password"',
        ),
        (
            [PASSWORD],
            [plain("Your word", REF)],
            f'types {REF} into "Your word", a field that shows what is typed, where "Password" hid it',
        ),
        # a live step: nothing typed, or typed into another field of its screen
        ([LIVE], [tap("Password", FORM, "SecureTextField")], 'no longer types into "Password"'),
        (
            [LIVE],
            [plain("Email", "hunter22", FORM)],
            'types into "Email", another field of the recorded screen, not into "Password"',
        ),
    ],
)
def test_a_heal_that_loses_what_the_steps_typed_says_what(old: list[mc.Step], new: list[mc.Step], lost: str) -> None:
    said = lost_typing(old, new)
    assert said == lost
    assert SECRET not in said
    assert "hunter22" not in said


def test_literal_text_is_shown_on_one_line_as_the_check_gives_it() -> None:
    old = step_on(FORM, "TYPE", "City", "TextField", text='two\nlines and a "quote"')
    assert lost_typing([old], []) == 'no longer types "two\\nlines and a \\"quote\\""'
    assert shown_text("${A} ${B}") == "${A} ${B}"  # references as written
    assert shown_text(None) == "text"


@settings(max_examples=examples(100))
@given(
    texts=st.lists(st.sampled_from(["ada@example.com", REF, "New York", None]), max_size=4),
    drop=st.integers(min_value=0, max_value=3),
)
def test_a_heal_keeps_typing_exactly_when_it_types_each_text_once_in_order(texts: list[str | None], drop: int) -> None:
    old = [step_on(FORM, "TYPE", "City", "TextField", text=t, live=t is None) for t in texts]
    renamed = [step_on(REBUILT, "TYPE", "Town", "TextField", text=t, live=t is None) for t in texts]
    assert lost_typing(old, renamed) is None
    if texts:
        n = drop % len(texts)
        assert lost_typing(old, renamed[:n] + renamed[n + 1 :]) is not None  # one typing dropped
        assert lost_typing(old, [*renamed, renamed[n]]) is not None  # one typed again
