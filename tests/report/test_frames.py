"""A run's frames in its report: names, and the size policy (--frames and the cap) over the frames its steps name."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mobster_core._results.frames import drift_frame, step_frame
from mobster_core.results import FramesMode
from mobster_report._frames import (
    FINAL,
    FULL_FIRST,
    FrameLimits,
    FramePlan,
    _spread,
    base_of,
    frame_file,
    heal_frames,
    plan_frames,
)


def base(p: int) -> str:
    """The base of the frame the run took before its ``p``-th action (``step-003-before``)."""
    found = base_of(step_frame(p))
    assert found is not None
    return found


def step(index: int, source: str = "replay", reason: str | None = None) -> dict[str, Any]:
    frame = step_frame(index)
    return {"index": index, "op": "TAP", "text": f"Tap {index}", "source": source, "reason": reason, "frame": frame}


def run(n: int, verdict: str = "passed", **changes: Any) -> dict[str, Any]:
    steps = [step(i) for i in range(1, n + 1)]
    return {"verdict": verdict, "steps": steps, "heals": [], **changes}


def test_names() -> None:
    assert step_frame(3) == "frames/step-003-before.png"  # the core names the frames it writes
    assert step_frame(1234) == "frames/step-1234-before.png"
    assert drift_frame(4) == "frames/step-004-drifted.png"
    assert base_of(step_frame(3)) == "step-003-before"
    assert base_of(drift_frame(4)) == "step-004-drifted"
    assert frame_file(base(3)) == "frames/step-003-before.png"
    assert frame_file(FINAL, "thumb", "jpg") == "frames/final.thumb.jpg"
    assert frame_file(FINAL, "view", "png") == "frames/final.view.png"
    with pytest.raises(ValueError, match="from 1"):
        step_frame(0)
    with pytest.raises(ValueError, match="from 1"):
        drift_frame(0)
    with pytest.raises(ValueError, match="no frame file"):
        frame_file(FINAL, "full", "jpg")  # a full frame is the device's PNG


@pytest.mark.parametrize(
    "name",
    [
        None, 3, "", "step-001-before.png", "frames/../result.json", "frames/../../etc/passwd.png", "/frames/a.png",
        "frames/a/b.png", "frames/a.thumb.png", "frames/.png", "frames/-x.png", "frames/a.png\n", "frames/x" * 40,
    ],
)  # fmt: skip
def test_a_frame_named_otherwise_names_no_file(name: object) -> None:
    # A results file is read from disk: a frame key that isn't frames/<letters>.png is never opened or deleted.
    assert base_of(name) is None


def test_none_takes_nothing() -> None:
    plan = plan_frames(run(5), "none")
    assert plan == FramePlan()
    assert not plan.keeps(FINAL)


def test_auto_keeps_the_first_twenty_in_full_and_a_thumbnail_of_every_step() -> None:
    plan = plan_frames(run(200))
    assert plan.thumbs == {base(p) for p in range(1, 201)} | {FINAL}
    assert plan.full == {base(p) for p in range(1, FULL_FIRST + 1)} | {FINAL}
    assert plan.views == {FINAL}


def test_auto_keeps_drifted_healed_and_failed_steps_past_twenty_in_full() -> None:
    result = run(200, verdict="failed")
    steps = result["steps"]
    steps[149] = step(150, "healed")  # healed step 150: its frame and the screen it left (151's)
    steps[99] = step(100, "live")
    steps[199] = step(200, reason='"Pay" isn\'t on the screen')
    result["heals"] = [{"step": 150, "from": "Tap 150", "to": "Tap 150b", "why": "…", "old": [{}], "new": [{}]}]
    plan = plan_frames(result)
    matter = {base(150), base(151), base(200)}
    assert plan.full == {base(p) for p in range(1, 21)} | matter | {FINAL}
    assert plan.views == matter | {FINAL}
    assert base(100) not in plan.full  # a live step matters no more than a replayed one


def test_a_failed_runs_last_step_matters() -> None:
    plan = plan_frames(run(40, verdict="couldnt_run"))
    assert base(40) in plan.full
    assert base(40) in plan.views
    assert base(39) not in plan.full


def test_failed_mode_keeps_only_the_final_frame_of_a_passed_run() -> None:
    passed = plan_frames(run(30), FramesMode.FAILED)
    assert passed.full == passed.thumbs == passed.views == {FINAL}
    failed = plan_frames(run(30, verdict="failed"), FramesMode.FAILED)
    assert failed == plan_frames(run(30, verdict="failed"), FramesMode.AUTO)


def test_all_keeps_every_frame_up_to_the_cap() -> None:
    plan = plan_frames(run(50), "all")
    assert plan.full == {base(p) for p in range(1, 51)} | {FINAL}
    capped = plan_frames(run(200), "all")
    assert len(capped.full) == FrameLimits().max_full
    assert {FINAL, base(1), base(200)} <= capped.full
    assert len(capped.thumbs) == 201


def test_the_cap_keeps_what_matters_first_then_spreads_the_rest() -> None:
    result = run(200, verdict="failed")
    result["steps"][179] = step(180, reason="gone")
    plan = plan_frames(result, "all", limits=FrameLimits(max_full=10))
    assert len(plan.full) == 10
    assert {FINAL, base(180), base(200)} <= plan.full
    kept = sorted(int(b[5:8]) for b in plan.full if b.startswith("step-"))
    assert kept[0] == 1  # the spread starts at the first step
    gaps = [b - a for a, b in itertools.pairwise(kept)]
    assert max(gaps) <= 50  # and reaches across the run


def test_the_byte_cap_drops_frames_past_it_but_keeps_smaller_ones_that_fit() -> None:
    sizes = {base(p): 1000 for p in range(1, 11)} | {FINAL: 500, base(3): 5000}
    plan = plan_frames(run(10), "all", sizes=sizes, limits=FrameLimits(max_full_bytes=4600))
    assert FINAL in plan.full
    assert base(3) not in plan.full  # too big for what is left
    assert sum(sizes[b] for b in plan.full) <= 4600
    assert len(plan.full) == 5  # 500 + 4 x 1000


def test_a_garbled_result_plans_only_the_final_frame() -> None:
    plan = plan_frames({"verdict": "failed", "steps": "nope", "heals": 3})
    assert plan.full == plan.thumbs == {FINAL}


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="sometimes"):
        plan_frames(run(1), "sometimes")


@given(st.lists(st.integers(), max_size=300, unique=True))
def test_spread_is_a_permutation_starting_with_the_ends(items: list[int]) -> None:
    spread = _spread([str(i) for i in items])
    assert sorted(spread) == sorted(str(i) for i in items)
    if len(items) >= 2:
        assert spread[:2] == [str(items[0]), str(items[-1])]


def test_heal_frames_are_the_screen_before_its_first_action_and_after_its_last() -> None:
    steps = [step(1), step(2), step(3, "healed"), step(4, "healed"), step(5)]
    heal = {"step": 3, "new": [{}, {}]}
    assert heal_frames(steps, heal) == (base(3), base(5))
    last = [step(1), step(2, "healed")]
    assert heal_frames(last, {"step": 2, "new": [{}]}) == (base(2), FINAL)
    assert heal_frames(steps, {"step": 9, "new": []}) == (None, None)


def test_a_step_without_a_frame_plans_none_and_the_others_keep_theirs() -> None:
    result = run(5, verdict="failed")
    result["steps"][1]["frame"] = None  # its screenshot failed
    result["steps"][4]["frame"] = drift_frame(5)  # the last step drifted: its frame says so
    result["steps"][4]["reason"] = "gone"
    plan = plan_frames(result)
    assert plan.thumbs == {base(1), base(3), base(4), "step-005-drifted", FINAL}
    assert "step-005-drifted" in plan.views  # the step that drifted matters
