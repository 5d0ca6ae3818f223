"""Hypothesis strategies shared by the tests."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

import mobster_core as mc


def examples(ci: int) -> int:
    """How many examples a property test that runs ``ci`` of them under the ``ci`` profile runs now.

    The same share of the loaded profile's examples (``tests/conftest.py``): all of them under
    ``ci``, a fifth under ``dev``, never fewer than 5.
    """
    current = settings.default
    assert current is not None  # a profile is always loaded (tests/conftest.py)
    share = current.max_examples / settings.get_profile("ci").max_examples
    return min(ci, max(5, round(ci * share)))


ROLES = ("Button", "StaticText", "TextField", "SecureTextField", "Cell", "Switch", "Image", "SearchField")
labels = st.one_of(st.just(""), st.text(alphabet="abcdefgh XYZ", min_size=1, max_size=8))
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
frames = st.tuples(unit, unit, unit, unit)


@st.composite
def elements(draw: st.DrawFn) -> mc.Element:
    return mc.Element(
        role=draw(st.sampled_from(ROLES)),
        label=draw(labels),
        identifier=draw(st.sampled_from(("", "email", "continue"))),
        value=draw(st.sampled_from(("", "1", "hello"))),
        frame=draw(frames),
        visible=draw(st.booleans()),
    )


@st.composite
def screens(draw: st.DrawFn, max_size: int = 12) -> mc.Screen:
    items = draw(st.lists(elements(), max_size=max_size))
    laid = tuple(
        mc.Element(
            role=e.role,
            label=e.label,
            identifier=e.identifier,
            value=e.value,
            frame=e.frame,
            visible=e.visible,
            path=f"/0/{i}",
        )
        for i, e in enumerate(items)
    )
    return mc.Screen(app=draw(st.sampled_from(("com.example.yourapp", "com.apple.springboard"))), elements=laid)
