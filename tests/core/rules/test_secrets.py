"""``${NAME}`` secrets: found, resolved where an action leaves, scrubbed from whatever comes back."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core._rules.device.secrets import MissingSecret, Secrets, only_references, references, unset_words
from mobster_core._rules.replay.typing_rules import Provenance, record_text


def test_references_are_found_once_in_order() -> None:
    texts = ['Type "${B}" into "Password"', "open ${A}?x=${B}", None, "$NOT {this} ${9no}"]
    assert references(texts) == ("B", "A")


def test_only_references() -> None:
    assert only_references("${PW}")
    assert only_references(" ${A}${B} ")
    assert not only_references("pre-${PW}")
    assert not only_references("hunter2")


def test_a_missing_variable_is_named() -> None:
    with pytest.raises(MissingSecret) as caught:
        Secrets.of(["A", "B"], {"A": "1"})
    assert (caught.value.name, caught.value.names) == ("B", ("B",))
    assert not caught.value.empty


def test_every_missing_variable_is_named_once_in_the_order_the_check_names_them() -> None:
    # A check missing two secrets named only the first: the user learnt of the second on the next run.
    with pytest.raises(MissingSecret) as caught:
        Secrets.of(["A", "B", "C", "B", "D"], {"C": "3"})
    assert caught.value.names == ("A", "B", "D")
    assert unset_words(caught.value.names) == ("${A}, ${B} and ${D}", "the variables A, B and D aren't set")
    assert unset_words(["A", "B"]) == ("${A} and ${B}", "the variables A and B aren't set")
    assert unset_words(["A"]) == ("${A}", "the variable A isn't set")


def test_a_variable_set_to_nothing_is_named_as_empty() -> None:
    # Issue 37: an empty value was typed as nothing, after the launch and a tap had been sent.
    # A CI system gives an unset secret as "" (GitHub's ${{ secrets.X }}): it is refused as unset is.
    with pytest.raises(MissingSecret) as caught:
        Secrets.of(["A", "B"], {"A": "1", "B": ""})
    assert (caught.value.name, caught.value.empty) == ("B", True)
    assert Secrets.of(["A"], {"A": " "}).values == {"A": " "}  # a space is text: typed as it is


def test_every_unset_and_every_empty_variable_is_named_in_one_line() -> None:
    # The two rules together: a check missing one secret and given another empty names both, each as it is.
    with pytest.raises(MissingSecret) as caught:
        Secrets.of(["A", "B", "C", "D"], {"B": "", "C": "3", "D": ""})
    assert (caught.value.names, caught.value.empties, caught.value.unset) == (("A", "B", "D"), ("B", "D"), ("A",))
    assert caught.value.words() == (
        "${A}, ${B} and ${D}",
        "the variable A isn't set and the variables B and D are set but empty",
    )
    assert unset_words(["B"], empty=["B"]) == ("${B}", "the variable B is set but empty")


def test_resolve_and_scrub_are_inverse_in_every_echoed_form() -> None:
    value = 'pa"ss wörd/&'
    secrets = Secrets({"PW": value})
    assert secrets.resolve("x ${PW} ${OTHER}") == f"x {value} ${{OTHER}}"
    for form in (value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1], quote(value, safe="")):
        assert secrets.scrub(f"server said: {form}!") == "server said: ${PW}!"


def test_a_short_value_is_scrubbed_as_a_whole_word_only() -> None:
    secrets = Secrets({"PIN": "12"})
    assert secrets.scrub("PIN 12 typed; 123 and a12 stay") == "PIN ${PIN} typed; 123 and a12 stay"


def test_an_empty_value_scrubs_nothing() -> None:
    assert Secrets({"E": ""}).scrub("anything") == "anything"


def test_the_longer_value_wins_when_one_holds_another() -> None:
    secrets = Secrets({"SHORT": "abcd", "LONG": "abcdefgh"})
    assert secrets.scrub("x abcdefgh y abcd") == "x ${LONG} y ${SHORT}"


def test_a_screen_is_scrubbed_in_labels_values_and_identifiers() -> None:
    screen = mc.Screen.from_dict(
        {
            "app": "com.example.app",
            "elements": [
                {"role": "TextField", "label": "Email", "value": "ada.secret@example.com"},
                {"role": "StaticText", "label": "Signed in as ada.secret@example.com", "id": "ada.secret@example.com"},
                {"role": "Button", "label": "Continue"},
            ],
        }
    )
    secrets = Secrets({"EMAIL": "ada.secret@example.com"})
    out = secrets.scrub_screen(screen)
    assert out.elements[0].value == "${EMAIL}"
    assert out.elements[1].label == "Signed in as ${EMAIL}"
    assert out.elements[1].identifier == "${EMAIL}"
    assert out.elements[2] is screen.elements[2]
    assert Secrets().scrub_screen(screen) is screen


@given(st.text(min_size=4), st.text())
def test_a_scrubbed_text_never_holds_the_value(value: str, around: str) -> None:
    secrets = Secrets({"V": value})
    out = secrets.scrub(around + value + around)
    assert value not in out or value in "${V}"


def test_a_reference_replays_even_into_a_secure_field() -> None:
    provenance = Provenance.of(steps=['Type "${PW}" into "Password"'])
    kept = record_text("${PW}", role="SecureTextField", label="Password", identifier="", provenance=provenance)
    assert (kept.text, kept.live) == ("${PW}", False)
    # a reference the check doesn't name is the model's own: masked as before
    other = record_text("${OTHER}", role="SecureTextField", label="Password", identifier="", provenance=provenance)
    assert (other.text, other.live) == (None, True)
