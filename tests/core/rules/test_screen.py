from __future__ import annotations

import attrs
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core._rules.vocabulary.screen_data import frame_from
from tests.core.helpers import step_on
from tests.strategies import screens

SIGNUP = {
    "app": "com.example.yourapp",
    "elements": [
        {"role": "StaticText", "label": "Create your account"},
        {
            "role": "Button",
            "label": "Continue",
            "id": "continue",
            "frame": [0.1, 0.8, 0.8, 0.06],
            "children": [],
        },
    ],
}


def test_from_dict_matches_the_public_api_example() -> None:
    screen = mc.Screen.from_dict(SIGNUP)
    assert screen.signature == [["Button", "Continue"], ["StaticText", "Create your account"]]
    assert len(screen.hash) == 16
    assert int(screen.hash, 16) >= 0
    button = screen.elements[1]
    assert (button.role, button.label, button.identifier, button.frame, button.path) == (
        "Button",
        "Continue",
        "continue",
        (0.1, 0.8, 0.8, 0.06),
        "/0/1",
    )


def test_paths_follow_the_tree() -> None:
    screen = mc.Screen.from_dict(
        {
            "app": "a.b",
            "elements": [
                {"role": "Other"},
                {"role": "Other"},
                {"role": "Cell", "children": [{"role": "StaticText"}, {"role": "Button", "label": "x"}]},
            ],
        }
    )
    assert [e.path for e in screen.elements] == ["/0/0", "/0/1", "/0/2", "/0/2/0", "/0/2/1"]
    assert screen.element_at("/0/2/1") == screen.elements[4]
    assert screen.element_at("/0/9") is None


def test_hash_is_sha256_of_the_canonical_signature() -> None:
    # Golden digest: sha256('[["Button","Continue"],["StaticText","Create your account"]]')[:16]
    assert mc.Screen.from_dict(SIGNUP).hash == "af4bfad8f4d08582"


def test_signature_drops_unlabelled_and_invisible_and_duplicates() -> None:
    screen = mc.Screen.from_dict(
        {
            "app": "a.b",
            "elements": [
                {"role": "Button", "label": "Go"},
                {"role": "Button", "label": "Go"},
                {"role": "Image"},
                {"role": "StaticText", "label": "Hidden", "visible": False},
            ],
        }
    )
    assert screen.signature == [["Button", "Go"]]


#: A navigation bar as held-out WDA trees show it: the Cancel button visible, its text reported
#: hidden (issue 26). WDA's rule judges the button alone: it is shown.
NAV_BAR = {
    "app": "com.example.yourapp",
    "elements": [
        {
            "role": "NavigationBar",
            "label": "Edit profile",
            "frame": [0.0, 0.07, 1.0, 0.06],
            "children": [
                {
                    "role": "Button",
                    "label": "Cancel",
                    "frame": [0.03, 0.08, 0.2, 0.04],
                    "children": [
                        {"role": "StaticText", "label": "Cancel", "frame": [0.05, 0.085, 0.16, 0.03], "visible": False}
                    ],
                },
                {"role": "StaticText", "label": "Edit profile", "frame": [0.35, 0.085, 0.3, 0.03]},
            ],
        },
        {
            "role": "SecureTextField",
            "label": "Password",
            "frame": [0.05, 0.3, 0.9, 0.06],
            "children": [
                {
                    "role": "Button",
                    "label": "Show password",
                    "frame": [0.84, 0.31, 0.1, 0.04],
                    "children": [
                        {"role": "Image", "label": "eye", "frame": [0.86, 0.32, 0.06, 0.02], "visible": False}
                    ],
                }
            ],
        },
    ],
}


def test_an_element_is_shown_on_its_own_visibility_whatever_its_children_say() -> None:
    screen = mc.Screen.from_dict(NAV_BAR)
    (cancel,) = screen.find("Button", "Cancel")
    assert screen.is_shown(cancel)
    assert not screen.find("StaticText", "Cancel")  # the text WDA reports hidden stays hidden
    assert ["Button", "Cancel"] in screen.signature
    assert screen.find("Button", "Show password")  # the eye button of a password field
    assert not screen.find("Image", "eye")


def test_the_eye_button_of_a_password_field_is_a_replay_target() -> None:
    screen = mc.Screen.from_dict(NAV_BAR)
    step = step_on(screen, label="Show password")
    match = mc.match_step(step, screen, settled=False)
    assert (match.ok, match.reason) == (True, None)
    assert mc.match_step(step_on(screen, label="Cancel"), screen, settled=False).ok


def test_moved_button_and_new_value_keep_hash_but_change_fingerprint() -> None:
    moved = {
        **SIGNUP,
        "elements": [
            SIGNUP["elements"][0],
            {"role": "Button", "label": "Continue", "frame": [0.1, 0.7, 0.8, 0.06]},
        ],
    }
    a, b = mc.Screen.from_dict(SIGNUP), mc.Screen.from_dict(moved)
    assert a.hash == b.hash
    assert a.fingerprint != b.fingerprint


def test_fingerprint_rounds_frames_to_whole_points() -> None:
    e = mc.Element(role="Button", label="Go", frame=(0.1, 0.5, 0.2, 0.05))
    nudged = attrs.evolve(e, frame=(0.1 + 0.2 / 402, 0.5, 0.2, 0.05))  # a fifth of a point
    moved = attrs.evolve(e, frame=(0.1 + 2 / 402, 0.5, 0.2, 0.05))  # two points
    base = mc.Screen(app="a.b", elements=(e,))
    assert base.fingerprint == mc.Screen(app="a.b", elements=(nudged,)).fingerprint
    assert base.fingerprint != mc.Screen(app="a.b", elements=(moved,)).fingerprint


def test_fingerprint_covers_the_app_in_front() -> None:
    assert mc.Screen(app="a.b").fingerprint != mc.Screen(app="c.d").fingerprint


def test_find_is_exact() -> None:
    screen = mc.Screen.from_dict(
        {
            "app": "a.b",
            "elements": [
                {"role": "Button", "label": "Continue with Apple"},
                {"role": "Button", "label": "Continue"},
            ],
        }
    )
    assert [e.label for e in screen.find("Button", "Continue")] == ["Continue"]
    assert screen.find("StaticText", "Continue") == []


def test_similarity_examples() -> None:
    a = mc.Screen.from_dict(SIGNUP)
    banner = {**SIGNUP, "elements": [{"role": "StaticText", "label": "New!"}, *SIGNUP["elements"]]}
    assert mc.similarity(a, mc.Screen.from_dict(banner)) == pytest.approx(2 / 3)
    assert mc.similarity(mc.Screen(app="a.b"), mc.Screen(app="a.b")) == 1.0
    assert mc.similarity(a, [["Button", "Continue"]]) == 0.5
    assert mc.similarity([], [["Button", "x"]]) == 0.0


def test_center() -> None:
    assert mc.Element(role="Button", frame=(0.25, 0.5, 0.5, 0.25)).center == (0.5, 0.625)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a screen is a mapping"),
        ({"app": "a.b", "elemnts": []}, "unknown key 'elemnts'"),
        ({"elements": []}, "screen.app"),
        ({"app": "a.b", "elements": "x"}, "screen.elements: expected a list"),
        ({"app": "a.b", "elements": [1]}, "elements[0]: expected a mapping"),
        ({"app": "a.b", "elements": [{"label": "x"}]}, "elements[0].role: required"),
        ({"app": "a.b", "elements": [{"role": ""}]}, "elements[0].role: must not be empty"),
        ({"app": "a.b", "elements": [{"role": "B", "label": 1}]}, "elements[0].label: expected a string"),
        ({"app": "a.b", "elements": [{"role": "B", "colour": 1}]}, "unknown key 'colour'"),
        (
            {"app": "a.b", "elements": [{"role": "B", "enabled": "yes"}]},
            "elements[0].enabled: expected true or false",
        ),
        ({"app": "a.b", "elements": [{"role": "B", "frame": [0, 0, 2, 1]}]}, "elements[0].frame"),
        (
            {"app": "a.b", "elements": [{"role": "B", "children": {}}]},
            "elements[0].children: expected a list",
        ),
        (
            {"app": "a.b", "elements": [{"role": "B", "children": [{"role": 3}]}]},
            "elements[0].children[0].role",
        ),
        ({"app": "a.b", "size": [0, 10]}, "screen.size"),
    ],
)
def test_from_dict_rejects_bad_input_naming_the_key(data: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        mc.Screen.from_dict(data)  # type: ignore[arg-type]
    assert message in str(info.value)


@pytest.mark.parametrize(
    "bad", [[0, 0, 1], [0, 0, 1, "1"], [0, 0, 1, True], [0, 0, 1, float("nan")], "0001", [-0.1, 0, 1, 1]]
)
def test_frame_from_rejects(bad: object) -> None:
    with pytest.raises(ValueError, match=r"four numbers each in 0\.\.1"):
        frame_from(bad, "f")


def test_frame_from_accepts_whole_numbers() -> None:
    assert frame_from([0, 0, 1, 1], "f") == (0.0, 0.0, 1.0, 1.0)


# -- properties --------------------------------------------------------------------------------


@given(screens(), screens())
def test_similarity_is_between_0_and_1_and_symmetric(a: mc.Screen, b: mc.Screen) -> None:
    s = mc.similarity(a, b)
    assert 0.0 <= s <= 1.0
    assert s == mc.similarity(b, a)


@given(screens())
def test_a_screen_is_fully_alike_with_itself(a: mc.Screen) -> None:
    assert mc.similarity(a, a) == 1.0


@given(screens(), st.randoms())
def test_element_order_does_not_change_signature_or_hash(a: mc.Screen, rnd: st.SearchStrategy[object]) -> None:
    shuffled = list(a.elements)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    b = mc.Screen(app=a.app, elements=tuple(shuffled))
    assert a.signature == b.signature
    assert a.hash == b.hash


@given(screens(), st.data())
def test_frames_and_values_change_neither_hash_nor_signature_but_change_fingerprint(
    a: mc.Screen, data: st.DataObject
) -> None:
    if not a.elements:
        return
    i = data.draw(st.integers(0, len(a.elements) - 1))
    e = a.elements[i]
    changed = attrs.evolve(e, value=e.value + "!", frame=(1.0 - e.frame[0], e.frame[1], e.frame[2], e.frame[3]))
    b = mc.Screen(app=a.app, elements=(*a.elements[:i], changed, *a.elements[i + 1 :]))
    # A move that takes an element off the screen (or onto it) changes what is shown; any other doesn't.
    assume(b.is_shown(changed) == a.is_shown(e))
    assert (a.signature, a.hash) == (b.signature, b.hash)
    assert a.fingerprint != b.fingerprint


@given(screens())
def test_signature_is_sorted_and_unique(a: mc.Screen) -> None:
    pairs = [tuple(p) for p in a.signature]
    assert pairs == sorted(set(pairs))
