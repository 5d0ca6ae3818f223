"""Hypothesis strategies shared by the tests."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core.results import (
    FIX_ARGS,
    AssertionResult,
    Cost,
    FinishedEarly,
    Fix,
    FixCode,
    HealEntry,
    Mode,
    StepReport,
    StepSource,
)


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


# -- results at the precision results.json keeps them (for from_dict(to_dict(r)) == r) ------------

#: Text of any kind, as results hold labels, names and messages from outside.
texts = st.text(max_size=12)
maybe_texts = st.none() | texts


def _exact(places: int, top: int) -> st.SearchStrategy[float]:
    """Numbers with ``places`` decimals at most, as ``to_dict`` rounds them."""
    return st.integers(0, top).map(lambda n: n / 10**places)


kept_frames = st.tuples(*[_exact(6, 1_000_000)] * 4)
tree_paths = st.lists(st.integers(0, 30), max_size=4).map(lambda p: "/0" + "".join(f"/{n}" for n in p))


@st.composite
def kept_elements(draw: st.DrawFn, *, target: bool) -> mc.Element:
    """An element as results.json keeps it: role, label, frame and, for a step's target, its tree path."""
    path = draw(tree_paths) if target else mc.Element(role="x").path
    return mc.Element(role=draw(texts), label=draw(texts), frame=draw(kept_frames), path=path)


@st.composite
def step_reports(draw: st.DrawFn) -> StepReport:
    return StepReport(
        index=draw(st.integers(1, 40)), op=draw(st.sampled_from(mc.Op)), text=draw(texts),
        source=draw(st.sampled_from(StepSource)), waited_s=draw(_exact(3, 10_000)),
        similarity=draw(st.none() | _exact(4, 10_000)), settled=draw(st.booleans()), reason=draw(maybe_texts),
        target=draw(st.none() | kept_elements(target=True)), frame=draw(maybe_texts),
    )  # fmt: skip


actions = st.dictionaries(st.sampled_from(("op", "label", "role", "id")), texts, max_size=4)


@st.composite
def heal_entries(draw: st.DrawFn) -> HealEntry:
    old, new = draw(st.lists(actions, max_size=2)), draw(st.lists(actions, max_size=3))
    step, said = draw(st.integers(1, 40)), draw(st.tuples(texts, texts, texts))
    return HealEntry(step, *said, tuple(old), tuple(new), draw(maybe_texts))


@st.composite
def assertion_results(draw: st.DrawFn) -> AssertionResult:
    matches = tuple(draw(st.lists(kept_elements(target=False), max_size=2)))
    return AssertionResult(
        draw(texts), draw(st.booleans()), draw(texts), matches, draw(maybe_texts), draw(maybe_texts),
        draw(st.none() | st.integers(1, 500)),
    )  # fmt: skip


@st.composite
def outcomes(draw: st.DrawFn) -> mc.Outcome:
    verdict = draw(st.sampled_from(mc.Verdict))
    failure = None if verdict is mc.Verdict.PASSED else draw(st.sampled_from(mc.FailureClass))
    code = draw(st.none() | st.sampled_from(FixCode))
    fix = None if code is None else Fix(code, {name: draw(texts) for name in sorted(FIX_ARGS[code])})
    return mc.Outcome(verdict, failure, draw(texts), step=draw(st.none() | st.integers(1, 40)), fix=fix)


@st.composite
def check_results(draw: st.DrawFn) -> mc.CheckResult:
    """A check's result whose every value survives results.json as written."""
    device = draw(st.none() | st.builds(
        mc.DeviceInfo, texts, st.sampled_from(("26.4", "17", "18.1.2")), st.sampled_from(mc.DeviceKind)
    ))  # fmt: skip
    app = draw(st.none() | st.builds(mc.AppInfo, texts, maybe_texts, maybe_texts))
    return mc.CheckResult(
        name=draw(texts), file=draw(texts), device=device, app=app, outcome=draw(outcomes()),
        mode=draw(st.none() | st.sampled_from(Mode)), seconds=draw(_exact(3, 1_000_000)),
        cost=Cost(draw(_exact(6, 10_000_000)), draw(st.booleans())), model_calls=draw(st.integers(0, 100)),
        identity=draw(maybe_texts), env=draw(maybe_texts), path_used=draw(st.booleans()), path_why=draw(maybe_texts),
        steps=tuple(draw(st.lists(step_reports(), max_size=3))),
        heals=tuple(draw(st.lists(heal_entries(), max_size=2))),
        assertions=tuple(draw(st.lists(assertion_results(), max_size=2))), run_dir=draw(texts),
        stable=draw(st.none() | st.booleans()), carried_from=draw(maybe_texts), device_label=draw(maybe_texts),
        final_frame=draw(maybe_texts),
        finished_early=draw(st.none() | st.builds(
            FinishedEarly, st.integers(0, 20), st.integers(1, 20), st.sampled_from((Mode.SMART, Mode.REPLAY)),
            maybe_texts,
        )),
    )  # fmt: skip
