from __future__ import annotations

import pytest

from mobster_core._rules.typing_rules import Provenance, is_masked, record_text

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
