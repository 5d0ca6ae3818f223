from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobster_core import DeviceKind
from mobster_core._rules.safety.safety import (
    _ORDER,
    COMMIT_WORDS,
    COMMIT_WORDS_BY_LANGUAGE,
    HARMLESS_PHRASES,
    check_commit,
    classify,
    commit_of_label,
    fold,
    strictest,
)
from mobster_core._rules.vocabulary.steps import Commit
from tests.strategies import examples


@pytest.mark.parametrize(
    ("label", "role", "commit"),
    [
        ("Subscribe", "Button", Commit.PURCHASE),
        ("Buy now", "Button", Commit.PURCHASE),
        ("Check out", "Button", Commit.PURCHASE),
        ("Checkout", "Button", Commit.PURCHASE),
        ("Place order", "Button", Commit.PURCHASE),
        ("Pay $4.99", "Button", Commit.PURCHASE),
        ("Start free trial", "Button", Commit.PURCHASE),
        ("Send", "Button", Commit.SEND),
        ("Reply all", "Button", Commit.SEND),
        ("Share", "Cell", Commit.SEND),
        ("Post", "Button", Commit.POST),
        ("Publish story", "Button", Commit.POST),
        ("Delete account", "Button", Commit.DELETE),
        ("Remove", "Button", Commit.DELETE),
        ("Erase All Content", "Cell", Commit.DELETE),
        ("DELETE", "Button", Commit.DELETE),
    ],
)
def test_commits(label: str, role: str, commit: Commit) -> None:
    assert classify(label, role) is commit


@pytest.mark.parametrize(
    ("label", "role"),
    [
        ("Restore Purchases", "Button"),
        ("Subscription details", "Button"),
        ("Delete", "StaticText"),
        ("Send", "TextField"),
        ("Order history", "Cell"),
        ("Payment methods", "Cell"),
        ("Manage subscription", "Button"),
        ("Posts", "Button"),
        ("Sender", "Button"),
        ("Deleted items", "Cell"),
        ("Postal code", "Button"),
        ("Upgrade to Pro", "Button"),
        ("Continue", "Button"),
        ("", "Button"),
        ("Undo send", "Button"),
        ("Shopping list", "Cell"),
        ("Sent", "Cell"),
        ("Recently Deleted", "Cell"),
    ],
)
def test_near_misses_commit_nothing(label: str, role: str) -> None:
    assert classify(label, role) is None


def test_every_commit_has_words() -> None:
    assert set(COMMIT_WORDS) == set(Commit)


@pytest.mark.parametrize("commit", list(Commit))
def test_iphone_refuses_every_commit(commit: Commit) -> None:
    d = check_commit(commit, DeviceKind.IPHONE)
    assert not d.allowed
    assert "iPhone" in d.rule
    assert commit.value in d.rule


def test_simulator_refuses_only_purchases() -> None:
    d = check_commit(Commit.PURCHASE, DeviceKind.SIMULATOR)
    assert (d.allowed, d.rule) == (False, "a purchase is refused on a simulator")
    for commit in (Commit.SEND, Commit.POST, Commit.DELETE):
        assert check_commit(commit, DeviceKind.SIMULATOR).allowed


def test_nothing_committed_is_allowed_everywhere() -> None:
    for kind in DeviceKind:
        assert check_commit(None, kind).allowed


# -- issue 15: safety errs toward refusing -------------------------------------------------


@pytest.mark.parametrize(
    ("label", "commit"),
    [
        ("Erase All Content and Settings", Commit.DELETE),
        ("Delete my information", Commit.DELETE),
        ("Send more invites", Commit.SEND),
        ("Buy more coins", Commit.PURCHASE),
        ("Delete account details", Commit.DELETE),
        ("Restore Purchases, Buy", Commit.PURCHASE),
        ("Purchase History, Delete", Commit.DELETE),
        ("Subscribe (learn more)", Commit.PURCHASE),
        ("Help me post", Commit.POST),
    ],
)
def test_no_other_word_vetoes_a_commit_word(label: str, commit: Commit) -> None:
    assert classify(label, "Button") is commit
    assert not check_commit(classify(label, "Button"), DeviceKind.IPHONE).allowed


@pytest.mark.parametrize(
    "label",
    [
        "\uff24\uff45\uff4c\uff45\uff54\uff45",  # full-width letters
        "De\u200blete",  # zero-width space
        "De\u00adlete",  # soft hyphen
        "De\u200dle\u200cte",  # zero-width joiner and non-joiner
        "\u202eDelete\u202c",  # bidi override
        "\u2066Delete\u2069",  # bidi isolate
        "De\ufeffle\u2060te",  # BOM and word joiner
        "Dele\ufe0fte",  # variation selector
        "D\u0435l\u0435t\u0435",  # Cyrillic e
        "DELETE",
        "D E L E T E",
        "De-lete",
        "D\u0301el\u0308ete",  # combining accents
        "\U0001d403\U0001d41e\U0001d425\U0001d41e\U0001d42d\U0001d41e",  # mathematical bold
    ],
)
def test_hidden_commit_words_are_found(label: str) -> None:
    assert classify(label, "Button") is Commit.DELETE


def test_a_price_alone_on_a_button_is_a_purchase() -> None:
    for label in ("$0.99", "US$1.99", "4,99 \u20ac", "\u00a5120", "\uffe5120", "CHF 3.00", "$4.99 / month", "R$ 5,90"):
        assert classify(label, "Button") is Commit.PURCHASE, label
    for label in ("10 min", "3", "2024", "Annual, $39.99 / year"):
        assert classify(label, "Button") is None, label
    assert classify("$0.99", "Cell") is None  # a plan row selects, it doesn't buy


def test_roles_that_are_not_pressed_never_commit() -> None:
    for role in ("StaticText", "TextField", "SecureTextField", "NavigationBar", "Alert", "XCUIElementTypeStaticText"):
        assert classify("Delete everything and buy", role) is None


@pytest.mark.parametrize(
    "role",
    [
        "Button", "XCUIElementTypeButton", "button", "BUTTON", "xcuielementtypebutton", "CheckBox", "WebView",
        "Toggle", "Switch", "RadioButton", "Key", "Cell", "Other", "SomeDriversOwnRole", "", "  Button ",
    ],
)  # fmt: skip
def test_every_role_a_person_may_press_can_commit_however_a_driver_spells_it(role: str) -> None:
    assert classify("Buy now", role) is Commit.PURCHASE
    assert classify("Delete", role) is Commit.DELETE


@pytest.mark.parametrize(
    ("label", "commit"),
    [
        ("\u202ewon yuB", Commit.PURCHASE),  # shows "Buy now"
        ("\u202eeteleD", Commit.DELETE),  # shows "Delete"
        ("Tap \u202etnuocca eteled\u202c now", Commit.DELETE),  # the override ends at its pop
        ("DeleteAccount", Commit.DELETE),
        ("deleteIcon", Commit.DELETE),
        ("Delete\u2060Account", Commit.DELETE),
        ("Buy\u200bNow", Commit.PURCHASE),
        ("SendMessage", Commit.SEND),
        ("postComment", Commit.POST),
        ("SubscribeButton", Commit.PURCHASE),
        ("btnDELETE", Commit.DELETE),
    ],
)
def test_a_label_is_read_as_a_person_sees_it(label: str, commit: Commit) -> None:
    assert classify(label, "Button") is commit


@pytest.mark.parametrize(
    "label",
    [
        "\u20ba49,99", "49,99 z\u0142", "99 kr", "\u20aa19.90", "\u20ac0.99 per month", "TRY 49,99",
        "1.299,00 kr", "12 500 \u20bd", "9,99 \u20ac/Monat", "\u00a5600/\u6708", "PLN 19,99", "199 K\u010d",
        "$4.99/mo", "US$ 2.99", "\u20ac0,99", "1,234.56 USD", "R 99,99", "\u20b9 499", "\u20a9 5,900",
        "\u0e3f35", "\u20ab 49.000", "2,99 \u20ac pro Monat", "19,99 \u20ac al mes", "4,99 \u20ac / an",
    ],
)  # fmt: skip
def test_a_price_in_any_currency_alone_on_a_button_is_a_purchase(label: str) -> None:
    assert classify(label, "Button") is Commit.PURCHASE, label


@pytest.mark.parametrize(
    "label", ["All 5", "Level 2", "Top 10", "Version 2.1", "Page 3 of 9", "10 min", "5 stars", "Step 2", "iOS 26"]
)
def test_a_number_beside_a_word_that_isnt_a_currency_is_no_price(label: str) -> None:
    assert classify(label, "Button") is None, label


def test_languages() -> None:
    assert classify("Jetzt kaufen", "Button") is Commit.PURCHASE
    assert classify("Konto l\u00f6schen", "Button") is Commit.DELETE
    assert classify("Konto loeschen", "Button") is Commit.DELETE
    assert classify("Suscr\u00edbete", "Button") is Commit.PURCHASE
    assert classify("Eliminar cuenta", "Button") is Commit.DELETE
    assert classify("\u7acb\u5373\u8d2d\u4e70", "Button") is Commit.PURCHASE  # buy now
    assert classify("\u8cfc\u5165\u3059\u308b", "Button") is Commit.PURCHASE  # to purchase
    assert classify("\u30a2\u30ab\u30a6\u30f3\u30c8\u3092\u524a\u9664", "Button") is Commit.DELETE
    assert classify("\u8cfc\u5165\u5c65\u6b74", "Cell") is None  # purchase history


def test_every_harmless_phrase_holds_a_commit_word_and_is_harmless() -> None:
    # An entry without a commit word would be dead weight; one that still commits is a typo.
    for phrase in HARMLESS_PHRASES:
        assert commit_of_label("xx " + phrase) is not None, phrase
        assert classify(phrase, "Button") is None, phrase
        assert classify(phrase.upper(), "Cell") is None, phrase


def test_a_harmless_phrase_must_be_the_whole_part() -> None:
    assert classify("Purchase History", "Cell") is None
    assert classify("Purchase History now", "Cell") is Commit.PURCHASE
    assert classify("Subscriptions, 2", "Cell") is None
    assert classify("Payment Methods, Visa \u2022\u2022\u2022\u2022 4242", "Cell") is None


def test_every_language_has_every_commit() -> None:
    # Issue 40 asked for the word tables in fifteen languages: the five, and ten that came with Android.
    fifteen = {"en", "es", "de", "zh", "ja", "fr", "pt", "it", "nl", "pl", "tr", "ru", "ko", "id", "ar"}
    assert set(COMMIT_WORDS_BY_LANGUAGE) == fifteen
    for language, table in COMMIT_WORDS_BY_LANGUAGE.items():
        assert set(table) == set(Commit), language
        for commit, words in table.items():
            for word in words:
                got = commit_of_label(word)
                assert got is not None, (language, word)
                assert strictest(got, commit) is got, (language, word)  # its own class, or a stricter one


def test_purchase_wins_so_a_simulator_never_misses_one() -> None:
    assert classify("Delete and buy", "Button") is Commit.PURCHASE
    assert classify("Send money", "Button") is Commit.PURCHASE
    assert strictest(Commit.SEND, Commit.PURCHASE) is Commit.PURCHASE
    assert strictest(None, Commit.POST) is Commit.POST
    assert strictest(None, None) is None


def test_a_long_label_is_classified_in_linear_work() -> None:
    # Quadratic work would never finish on these; linear work takes a fraction of a second.
    assert classify("word " * 10_000 + "delete", "Cell") is Commit.DELETE
    assert classify("\u524a" * 50_000 + "\u524a\u9664", "Cell") is Commit.DELETE
    assert classify("a," * 20_000, "Cell") is None


def test_every_format_character_is_invisible_to_the_classifier() -> None:
    planes = [*range(0x20000), *range(0xE0000, 0xE1000)]
    for code in planes:
        char = chr(code)
        if unicodedata.category(char) == "Cf" and not 0xD800 <= code <= 0xDFFF:
            assert fold(f"x{char}y") == "xy", hex(code)


def test_a_lone_surrogate_in_a_label_is_classified() -> None:
    assert classify("Delete \ud83d", "Button") is Commit.DELETE
    assert fold("\ud800") == "\ufffd"


invisible = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\ufeff", "\u200e", "\u202a", "\ufe0f"])


@settings(max_examples=examples(100), deadline=None)
@given(
    word=st.sampled_from(["Delete", "Send", "Buy", "Post", "Subscribe", "Erase", "Publish", "Remove"]),
    before=st.text(alphabet="abcdefghij ", max_size=10),
    inserts=st.lists(st.tuples(st.integers(min_value=0, max_value=10), invisible), max_size=5),
    wide=st.booleans(),
    upper=st.booleans(),
)
def test_invisible_marks_case_and_width_never_hide_a_commit_word(
    word: str, before: str, inserts: list[tuple[int, str]], wide: bool, upper: bool
) -> None:
    expected = classify(word, "Button")
    assert expected is not None
    hidden = word.upper() if upper else word
    if wide:
        hidden = "".join(chr(ord(c) + 0xFEE0) for c in hidden)
    for position, mark in inserts:
        at = position % (len(hidden) + 1)
        hidden = hidden[:at] + mark + hidden[at:]
    label = f"{before} {hidden}" if before.strip() else hidden
    assert strictest(classify(label, "Button"), expected) is strictest(expected, classify(label, "Button"))
    assert classify(label, "Button") is not None
    assert _ORDER.index(classify(label, "Button")) <= _ORDER.index(expected)
