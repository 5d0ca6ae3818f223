"""A run's frames: names, the size policy (--frames and the cap) and the small pictures made from them."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mobster_core._rules.frames import (
    FINAL,
    FULL_FIRST,
    THUMB_BOX,
    VIEW_BOX,
    FrameLimits,
    FramesMode,
    _spread,
    frame_file,
    heal_frames,
    make_picture,
    plan_frames,
    sniff,
    step_frame,
)
from mobster_core.image import PngError, Raster, decode_png


def step(index: int, source: str = "replay", reason: str | None = None) -> dict[str, Any]:
    return {"index": index, "op": "TAP", "text": f"Tap {index}", "source": source, "reason": reason}


def run(n: int, verdict: str = "passed", **changes: Any) -> dict[str, Any]:
    steps = [step(i) for i in range(1, n + 1)]
    return {"verdict": verdict, "steps": steps, "heals": [], **changes}


def test_names() -> None:
    assert step_frame(3) == "step-003-before"
    assert step_frame(1234) == "step-1234-before"
    assert frame_file(step_frame(3)) == "frames/step-003-before.png"
    assert frame_file(FINAL, "thumb", "jpg") == "frames/final.thumb.jpg"
    assert frame_file(FINAL, "view", "png") == "frames/final.view.png"
    with pytest.raises(ValueError, match="from 1"):
        step_frame(0)
    with pytest.raises(ValueError, match="no frame file"):
        frame_file(FINAL, "full", "jpg")  # a full frame is the device's PNG


def test_none_takes_nothing() -> None:
    plan = plan_frames(run(5), "none")
    assert not plan.take
    assert not plan.keeps(FINAL)


def test_auto_keeps_the_first_twenty_in_full_and_a_thumbnail_of_every_step() -> None:
    plan = plan_frames(run(200))
    assert plan.take
    assert plan.thumbs == {step_frame(p) for p in range(1, 201)} | {FINAL}
    assert plan.full == {step_frame(p) for p in range(1, FULL_FIRST + 1)} | {FINAL}
    assert plan.views == {FINAL}


def test_auto_keeps_drifted_healed_and_failed_steps_past_twenty_in_full() -> None:
    result = run(200, verdict="failed")
    steps = result["steps"]
    steps[149] = step(150, "healed")  # healed step 150: its frame and the screen it left (151's)
    steps[99] = step(100, "live")
    steps[199] = step(200, reason='"Pay" isn\'t on the screen')
    result["heals"] = [{"step": 150, "from": "Tap 150", "to": "Tap 150b", "why": "…", "old": [{}], "new": [{}]}]
    plan = plan_frames(result)
    matter = {step_frame(150), step_frame(151), step_frame(200)}
    assert plan.full == {step_frame(p) for p in range(1, 21)} | matter | {FINAL}
    assert plan.views == matter | {FINAL}
    assert step_frame(100) not in plan.full  # a live step matters no more than a replayed one


def test_a_failed_runs_last_step_matters() -> None:
    plan = plan_frames(run(40, verdict="couldnt_run"))
    assert step_frame(40) in plan.full
    assert step_frame(40) in plan.views
    assert step_frame(39) not in plan.full


def test_failed_mode_keeps_only_the_final_frame_of_a_passed_run() -> None:
    passed = plan_frames(run(30), FramesMode.FAILED)
    assert passed.take  # frames are taken: the verdict isn't known until the end
    assert passed.full == passed.thumbs == passed.views == {FINAL}
    failed = plan_frames(run(30, verdict="failed"), FramesMode.FAILED)
    assert failed == plan_frames(run(30, verdict="failed"), FramesMode.AUTO)


def test_all_keeps_every_frame_up_to_the_cap() -> None:
    plan = plan_frames(run(50), "all")
    assert plan.full == {step_frame(p) for p in range(1, 51)} | {FINAL}
    capped = plan_frames(run(200), "all")
    assert len(capped.full) == FrameLimits().max_full
    assert {FINAL, step_frame(1), step_frame(200)} <= capped.full
    assert len(capped.thumbs) == 201


def test_the_cap_keeps_what_matters_first_then_spreads_the_rest() -> None:
    result = run(200, verdict="failed")
    result["steps"][179] = step(180, reason="gone")
    plan = plan_frames(result, "all", limits=FrameLimits(max_full=10))
    assert len(plan.full) == 10
    assert {FINAL, step_frame(180), step_frame(200)} <= plan.full
    kept = sorted(int(b[5:8]) for b in plan.full if b.startswith("step-"))
    assert kept[0] == 1  # the spread starts at the first step
    gaps = [b - a for a, b in itertools.pairwise(kept)]
    assert max(gaps) <= 50  # and reaches across the run


def test_the_byte_cap_drops_frames_past_it_but_keeps_smaller_ones_that_fit() -> None:
    sizes = {step_frame(p): 1000 for p in range(1, 11)} | {FINAL: 500, step_frame(3): 5000}
    plan = plan_frames(run(10), "all", sizes=sizes, limits=FrameLimits(max_full_bytes=4600))
    assert FINAL in plan.full
    assert step_frame(3) not in plan.full  # too big for what is left
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
    assert heal_frames(steps, heal) == (step_frame(3), step_frame(5))
    last = [step(1), step(2, "healed")]
    assert heal_frames(last, {"step": 2, "new": [{}]}) == (step_frame(2), FINAL)
    assert heal_frames(steps, {"step": 9, "new": []}) == (None, None)


# -- pictures -----------------------------------------------------------------------------------


def interface(width: int = 402, height: int = 874) -> Raster:
    r = Raster(width, height)
    r.fill((24, 300, width - 24, 350), (0, 122, 255))
    r.fill((24, 100, 200, 130), (0, 0, 0))
    return r


def photo(width: int = 402, height: int = 874) -> Raster:
    """Texture (low noise over a mid grey): what PNG compresses worst and JPEG smooths."""
    rng = random.Random(7)
    grain = bytes(96 + v // 6 for v in range(256))
    return Raster.from_rows(width, [rng.randbytes(3 * width).translate(grain) for _ in range(height)])


def test_a_thumbnail_fits_its_box_and_a_flat_interface_stays_png() -> None:
    picture = make_picture(interface().png(), "thumb")
    assert picture.kind == "png"
    assert (picture.width, picture.height) == (134, 292)
    assert picture.width <= THUMB_BOX[0]
    assert picture.height <= THUMB_BOX[1]
    assert decode_png(picture.data).pixel(67, 108) == (0, 122, 255)  # the button, shrunk


def test_a_photo_like_thumbnail_is_jpeg_when_that_is_smaller() -> None:
    source = photo()
    picture = make_picture(source.png(), "thumb")
    assert picture.kind == "jpg"
    assert sniff(picture.data) == "jpg"
    assert len(picture.data) < len(source.thumbnail(*THUMB_BOX).png(level=9))


def test_a_view_of_a_frame_that_already_fits_is_the_frame_itself() -> None:
    png = interface().png()
    picture = make_picture(png, "view")
    assert picture.data is png
    big = make_picture(interface(804, 1748).png(), "view")
    assert (big.width, big.height) == (402, 874)
    assert big.width <= VIEW_BOX[0]


def test_a_large_frame_that_fits_is_encoded_again_when_that_is_smaller() -> None:
    png = photo().png()
    assert len(png) > 64 * 1024
    picture = make_picture(png, "view")
    assert (picture.kind, picture.width, picture.height) == ("jpg", 402, 874)
    assert len(picture.data) < len(png) // 4


def test_pictures_refuse_what_is_not_a_png() -> None:
    with pytest.raises(PngError):
        make_picture(b"\xff\xd8\xff\xe0 a jpeg", "thumb")
    with pytest.raises(ValueError, match="thumb"):
        make_picture(interface().png(), "huge")


def test_sniff() -> None:
    assert sniff(interface(8, 8).png()) == "png"
    assert sniff(b"\xff\xd8\xff\xdb") == "jpg"
    assert sniff(b"GIF89a") is None
    assert sniff(b"") is None
