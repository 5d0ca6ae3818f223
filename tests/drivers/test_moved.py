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


def test_the_second_layouts_harness_is_the_harness_package_without_a_warning() -> None:
    import warnings

    import mobster_harness
    import mobster_harness.settings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a documented deprecation (the CHANGELOG's), never a warning
        old = importlib.import_module("mobster_drivers.harness.settings")
        door = importlib.import_module("mobster_drivers.harness").Harness
    assert old is mobster_harness.settings
    assert door is mobster_harness.Harness


def test_an_old_harness_path_imports_first_in_a_fresh_interpreter() -> None:
    code = (
        "from mobster_drivers.harness.pool import open_device; import mobster_harness.pool as new; "
        "import mobster_drivers.pool as first; print(open_device is new.open_device, first is new)"
    )
    done = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
