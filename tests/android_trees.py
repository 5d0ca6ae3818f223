"""The real Android dumps in ``../shared/android-trees`` (read where they are, never copied).

The README there lists each dump's source and licence; ``tests/drivers/uiautomator/`` holds what a
person reading each XML sees.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: Where the dumps are, relative to the project root; tests skip when the folder is absent.
TREES = Path(__file__).resolve().parents[1].parent / "shared" / "android-trees"
NAMES = (
    "avc-nexus-launcher-api27.xml",
    "banjen-tuner-compose.xml",
    "hazel-firetv-webview-error.xml",
    "seniorshield-quick-settings.xml",
    "shirates-anr-dialog.xml",
    "shirates-languages.xml",
    "shirates-network-internet.xml",
    "shirates-security.xml",
    "shirates-settings-top.xml",
    "wdio-demo-login.xml",
    "wdio-notification-shade.xml",
    "xiaocong-launcher-home.xml",
)


def tree_path(name: str) -> Path:
    """The path of one dump; skips the test when the shared folder isn't there."""
    path = TREES / name
    if not path.is_file():
        pytest.skip(f"{path} is not here (the shared Android dumps are read in place, never copied)")
    return path


def tree_bytes(name: str) -> bytes:
    """One dump's bytes, as it stands in the shared folder."""
    return tree_path(name).read_bytes()
