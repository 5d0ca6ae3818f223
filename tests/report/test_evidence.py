"""The writer's side of a report: it keeps what the plan says of the frames the result names, and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mobster_core.files import atomic_write
from mobster_drivers.devices.scripted._raster import Raster
from mobster_report._evidence import keep_frames
from mobster_report._frames import FrameLimits


def frame_png(colour: tuple[int, int, int]) -> bytes:
    return Raster(402, 874, colour).png()


def run_folder(tmp_path: Path, steps: int) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path / ".mobster" / "runs" / "r1"
    result: dict[str, Any] = {"verdict": "passed", "heals": [], "final_frame": "frames/final.png", "steps": []}
    for p in range(1, steps + 1):
        name = f"frames/step-{p:03d}-before.png"
        atomic_write(folder / name, frame_png((p, 2 * p, 3 * p)))
        result["steps"].append({"index": p, "source": "replay", "reason": None, "frame": name})
    atomic_write(folder / "frames" / "final.png", frame_png((9, 9, 9)))
    return folder, result


def test_the_full_frames_past_the_plan_go_and_every_step_keeps_its_thumbnail(tmp_path: Path) -> None:
    folder, result = run_folder(tmp_path, 5)
    files = keep_frames(folder, result, "auto", FrameLimits(max_full=3))
    full = sorted(p.name for p in (folder / "frames").glob("*.png") if p.name.count(".") == 1)
    assert full == ["final.png", "step-001-before.png", "step-005-before.png"]  # the final, then the ends
    thumbs = sorted(n for n in files if ".thumb." in n)
    assert thumbs == ["frames/final.thumb.png"] + [f"frames/step-00{p}-before.thumb.png" for p in range(1, 6)]
    assert all((folder / n).read_bytes() == files[n] for n in thumbs)


def test_none_keeps_no_picture_and_a_stray_file_is_left_alone(tmp_path: Path) -> None:
    folder, result = run_folder(tmp_path, 2)
    stray = folder / "frames" / "step-009-before.png"  # a frame no step names (an unfinished action's)
    atomic_write(stray, frame_png((1, 1, 1)))
    keep_frames(folder, result, "all")
    assert stray.is_file()
    assert not (folder / "frames" / "step-009-before.thumb.png").exists()


@pytest.mark.parametrize("frame", ["frames/../result.json", "../../outside.png", "/etc/passwd"])
def test_a_frame_key_outside_frames_reads_and_deletes_nothing(tmp_path: Path, frame: str) -> None:
    folder, result = run_folder(tmp_path, 1)
    atomic_write(folder / "result.json", b"{}")
    outside = tmp_path / ".mobster" / "outside.png"
    atomic_write(outside, frame_png((5, 5, 5)))
    result["steps"][0]["frame"] = frame
    keep_frames(folder, result, "auto")
    assert (folder / "result.json").read_bytes() == b"{}"
    assert outside.is_file()


def test_a_frame_that_is_a_symlink_is_neither_read_nor_followed(tmp_path: Path) -> None:
    folder, result = run_folder(tmp_path, 1)
    target = tmp_path / "elsewhere.png"
    target.write_bytes(frame_png((7, 7, 7)))
    link = folder / "frames" / "step-001-before.png"
    link.unlink()
    link.symlink_to(target)
    files = keep_frames(folder, result, "auto", FrameLimits(max_full=1))  # the plan would delete it
    assert link.is_symlink()
    assert target.is_file()
    assert not any(n.startswith("frames/step-001-before.") for n in files)
