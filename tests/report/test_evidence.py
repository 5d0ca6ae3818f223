"""The writer's side of a report: it keeps what the plan says of the frames the result names, and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from mobster_core import CheckResult
from mobster_core.files import atomic_write
from mobster_drivers.devices.scripted._raster import Raster
from mobster_report import heal_evidence
from mobster_report._evidence import keep_frames
from mobster_report._frames import FrameLimits
from tests.report.report_runs import Runs


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


def test_a_heal_is_found_in_the_run_it_names(report_runs: Runs) -> None:
    root = report_runs.root
    _, data = report_runs["heal"]
    check = root / ".mobster" / "checks" / "signup.yaml"
    (heal,) = CheckResult.from_dict(data).heals
    assert heal.run_dir == data["run_dir"]  # the heal names the run that made it
    found = heal_evidence(root, check, heal)
    assert found is not None
    assert (found.run_dir, found.report) == (data["run_dir"], f"{data['run_dir']}/report.html")
    assert found.before is not None
    assert found.before.startswith(f"{data['run_dir']}/frames/")
    # A heal of an older heal file names no run: the newest run that made it is searched for.
    assert heal_evidence(root, check, attrs.evolve(heal, run_dir=None)) == found


@pytest.mark.parametrize(
    "run_dir", ["../elsewhere", "/tmp/runs/x", ".mobster/runs", ".mobster/runs/x/../..", ".mobster/cache/x"]
)
def test_a_heal_that_names_a_folder_outside_the_runs_finds_nothing(report_runs: Runs, run_dir: str) -> None:
    root = report_runs.root
    _, data = report_runs["heal"]
    (heal,) = CheckResult.from_dict(data).heals
    # A heal file is text anyone may edit: nothing outside .mobster/runs/<run_id> is read.
    assert (
        heal_evidence(root, root / ".mobster" / "checks" / "signup.yaml", attrs.evolve(heal, run_dir=run_dir)) is None
    )
