"""``benchmarks/bench_report.py --quick --steps 24``: the shape of what it writes, never a timing.

A 24-step check, healed at step 18, on the scripted phone and a FakeClock, in child interpreters (as
the benchmark measures each run's peak RSS), about 10 s: every frame is drawn, shrunk and encoded
for real.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_report.py"


def test_bench_report_quick(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("_bench_report", BENCHMARK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_bench_report"] = module
    spec.loader.exec_module(module)
    out = tmp_path / "report.json"
    assert module.main(["--quick", "--steps", "24", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc) == {"machine", "pictures", "long_check"}
    kinds = {row["screen"]: row["thumb"]["chosen"] for row in doc["pictures"]}
    assert kinds == {"settings": "png", "photo": "jpg"}  # a flat interface stays PNG, texture goes JPEG
    assert all(row["thumb_and_view_ms"] > 0 for row in doc["pictures"])
    (long,) = doc["long_check"]
    assert (long["mode"], long["steps"], long["healed"]) == ("auto", 24, [18])
    # The first 20 steps, the healed step 18 (among them), the screen it left (19), and the final frame.
    assert long["full_frames_kept"] == 21
    assert 0 < long["thumbs_bytes"] < long["page_bytes"]
    assert long["peak_rss_mb"] > 0
    assert long["peak_rss_none_mb"] > 0
    assert "2. A 24-step check healed at step [18]" in capsys.readouterr().out
