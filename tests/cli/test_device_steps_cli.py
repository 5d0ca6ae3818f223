"""A check with device steps through ``mobster test`` and ``mobster paths``: recorded, exported, replayed at $0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_paths import mobster
from tests.samples import FACE_ID_APP, FACE_ID_CHECK, PUSH_PAYLOAD

CHECK = FACE_ID_CHECK.replace("  - biometric: match\n", "  - biometric: match\n  - push: payload.json\n").replace(
    "text: Welcome back", "text: Your order shipped"
)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def test_device_steps_record_export_import_and_replay_at_no_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = tmp_path / ".mobster" / "checks"
    checks.mkdir(parents=True)
    (checks / "signin.yaml").write_text(CHECK)
    (checks / "payload.json").write_text(PUSH_PAYLOAD)
    (tmp_path / "app.yaml").write_text(FACE_ID_APP)
    monkeypatch.chdir(tmp_path)
    first = mobster("test", "--scripted", "app.yaml", "--model", "scripted")
    assert first.exit_code == 0, first.output
    assert "step 2 (Match the Face ID prompt)" in first.output
    assert "step 3 (Send the push notification in payload.json)" in first.output
    assert mobster("paths", "export", str(tmp_path / "bundle.json")).exit_code == 0
    bundle = (tmp_path / "bundle.json").read_text()
    assert "parcel-token-42" not in bundle  # the payload travels by its digest only
    assert [s["op"] for s in json.loads(bundle)["paths"][0]["steps"]] == ["TAP", "BIOMETRIC_MATCH", "PUSH"]
    assert mobster("paths", "forget", "signin").exit_code == 0
    imported = mobster("paths", "import", str(tmp_path / "bundle.json"))
    assert "1 added, 0 already here, 0 kept (newer here), 0 refused" in imported.output
    again = mobster("test", "--scripted", "app.yaml", "--no-heal", "--json")
    assert again.exit_code == 0, again.output
    doc = json.loads(again.stdout)
    assert doc["summary"]["model_calls"] == 0
    [check] = doc["checks"]
    assert (check["verdict"], check["mode"]) == ("passed", "replay")
    assert [(s["index"], s["op"]) for s in check["steps"]] == [(1, "TAP"), (2, "BIOMETRIC_MATCH"), (3, "PUSH")]
