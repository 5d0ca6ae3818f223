"""The first layout's import paths still import, as the very modules of their new homes."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from mobster_drivers._moved import MOVED

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_is_the_new_module(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)
    spec = importlib.import_module(new).__spec__
    assert spec is not None
    assert spec.name == new  # the module keeps its own spec


def test_names_and_submodules_under_an_old_path() -> None:
    from mobster_drivers.devices.scripted import ScriptedPhone

    assert importlib.import_module("mobster_drivers.scripted").ScriptedPhone is ScriptedPhone
    fake = importlib.import_module("mobster_drivers.fakes.wda")
    assert fake is importlib.import_module("mobster_drivers.testing.wda")


def test_a_name_that_never_existed_is_still_missing() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("mobster_drivers.scripted.no_such_module")


def test_python_m_on_the_old_fake_wda_serves_a_phone() -> None:
    app = ROOT / "mobster_drivers" / "devices" / "scripted" / "samples" / "yourapp.yaml"
    args = [sys.executable, "-m", "mobster_drivers.fakes.wda", "--app", str(app), "--lifetime", "0.5"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=30, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("http://127.0.0.1:")
