"""``mobster_harness``'s door: ``Harness`` opens the devices, readies the models, makes the run options.

What each front end gets through it is compared in ``test_front_ends.py``; here, the door itself
and the one mapper from options and config to settings (``Settings.from_values``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mobster_core as mc
import mobster_harness
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel
from mobster_harness import CouldntOpen, Harness, PoolError, Settings, Timing
from mobster_harness.config import KEYS
from mobster_harness.settings import NAMES
from mobster_harness.spec import DeviceOptions
from mobster_report import HtmlReport
from tests.samples import SIGNUP_BY_BUNDLE

pytestmark = pytest.mark.usefixtures("private_locks", "clean_env")

APP = str(sample_path("yourapp"))


def harness(root: Path, **values: object) -> Harness:
    return Harness(Settings.from_values(values), root, FakeClock())


# -- one device (Rule 2) ---------------------------------------------------------------------------


def test_one_device_is_the_first_of_the_pool_opened(tmp_path: Path) -> None:
    opened = harness(tmp_path, scripted=(APP,)).one_device()
    try:
        assert isinstance(opened.device, ScriptedPhone)
        assert opened.spec.value == APP
    finally:
        opened.release()


def test_a_place_beyond_a_pool_of_scripted_phones_is_a_phone_of_its_own(tmp_path: Path) -> None:
    other = str(sample_path("yourapp-renamed"))
    door = harness(tmp_path, scripted=(APP, other))
    first, third, fourth = door.one_device(0), door.one_device(2), door.one_device(3)  # 2 mod 2: the first script
    try:
        assert (first.spec.value, third.spec.value, fourth.spec.value) == (APP, APP, other)
        assert third.device is not first.device  # a phone of its own
    finally:
        for opened in (first, third, fourth):
            opened.release()


def test_a_place_beyond_a_pool_of_real_devices_has_no_device_and_nothing_opens(tmp_path: Path) -> None:
    door = harness(tmp_path, wda=("http://127.0.0.1:9",))
    with pytest.raises(PoolError, match=r"^the pool has 1 device \(127\.0\.0\.1:9\), and one holder drives each"):
        door.one_device(1)


def test_a_device_that_cant_be_opened_is_said_with_its_class(tmp_path: Path) -> None:
    with pytest.raises(CouldntOpen) as caught:
        harness(tmp_path, wda=("http://127.0.0.1:9",)).one_device()
    assert caught.value.failure_class is mc.FailureClass.DEVICE


def test_no_device_named_is_the_spec_s_own_line(tmp_path: Path) -> None:
    with pytest.raises(PoolError, match=r"^choose a device: --scripted APP\.yaml"):
        harness(tmp_path).one_device()
    assert harness(tmp_path).specs(required=False) == ()


# -- a pool (Rule 3) -------------------------------------------------------------------------------


def test_a_pool_opens_every_device_the_settings_name(tmp_path: Path) -> None:
    check = tmp_path / "signup.yaml"
    check.write_text(SIGNUP_BY_BUNDLE)
    pool = harness(tmp_path, scripted=(APP,), parallel=3).pool([check])
    try:
        assert sorted(pool.devices) == ["yourapp-1", "yourapp-2", "yourapp-3"]
        assert all(isinstance(d, ScriptedPhone) for d in pool.devices.values())
    finally:
        pool.release()


def test_the_appium_sessions_ask_for_the_one_app_of_the_suite(tmp_path: Path) -> None:
    from mobster_harness.door import _one_bundle

    one, other = tmp_path / "a.yaml", tmp_path / "b.yaml"
    one.write_text(SIGNUP_BY_BUNDLE)
    other.write_text(SIGNUP_BY_BUNDLE.replace("com.example.yourapp", "com.example.other"))
    broken = tmp_path / "broken.yaml"
    broken.write_text("version: [")
    assert _one_bundle([one, broken]) == "com.example.yourapp"  # a file that can't be read says nothing
    assert _one_bundle([one, other]) is None  # two apps: the session asks for none
    spec = harness(tmp_path, appium=("http://grid:4444",)).specs(bundle=_one_bundle([one]))[0]
    assert spec.bundle == "com.example.yourapp"


# -- models (Rule 4) -------------------------------------------------------------------------------


def test_the_models_are_ready_so_a_bad_name_stops_before_the_first_check(tmp_path: Path) -> None:
    with pytest.raises(mc.ModelError):
        harness(tmp_path, model="claude-nope").models()
    later = harness(tmp_path, model="claude-nope").models(prepare=False)  # the plugin: the test's run says it
    with pytest.raises(mc.ModelError):
        later()


def test_the_scripted_model_thinks_as_long_as_asked_and_is_new_for_each_run(tmp_path: Path) -> None:
    models = harness(tmp_path, model="scripted").models(scripted_delay=2.5)
    first, second = models(), models()
    assert isinstance(first, ScriptedModel)
    assert first is not second
    assert first.delay == 2.5


def test_no_heal_makes_no_model_and_no_key_chooses_none(tmp_path: Path) -> None:
    assert harness(tmp_path, no_heal=True, model="scripted").models()() is None
    assert Harness(Settings(secrets={}), tmp_path, FakeClock()).models()() is None


# -- run options (Rule 5) --------------------------------------------------------------------------


def test_the_run_options_always_have_the_report_and_its_run_it_again_devices(tmp_path: Path) -> None:
    app = tmp_path / "apps" / "yourapp.yaml"
    app.parent.mkdir()
    app.write_text(sample_path("yourapp").read_text())
    options = harness(tmp_path, scripted=(str(app),), max_usd=0.5, frames="failed").run_options()
    assert isinstance(options.reporter, HtmlReport)
    assert options.reporter.devices == {"yourapp": "--scripted apps/yourapp.yaml", "": "--scripted apps/yourapp.yaml"}
    assert (options.root, options.max_usd, options.frames) == (tmp_path, 0.5, mc.results.FramesMode.FAILED)
    driven = harness(tmp_path).run_options(driver=("pkg.mod:make", "arg"))
    assert isinstance(driven.reporter, HtmlReport)
    assert driven.reporter.devices == {"": "--driver pkg.mod:make arg"}


def test_the_front_end_s_hooks_and_prices_reach_the_run_options(tmp_path: Path) -> None:
    sent: list[str] = []
    prices = mc.PriceTable().extend({"scripted": mc.Price(1.0, 2.0, 0.5)})
    options = harness(tmp_path).run_options(on_sent=sent.append, prices=prices)
    assert options.prices is prices
    assert options.on_sent is not None
    options.on_sent("step 1")
    assert sent == ["step 1"]
    assert harness(tmp_path).run_options().prices == mc.PriceTable()


# -- the one mapper (settings Rule 5) --------------------------------------------------------------


def test_every_config_key_is_a_name_the_mapper_reads() -> None:
    assert {k.field for k in KEYS} <= set(NAMES)


def test_the_mapper_reads_every_name_into_its_setting() -> None:
    values: dict[str, object] = {
        "scripted": ["a.yaml"],
        "caps": (),
        "parallel": 2,
        "no_heal": True,
        "fresh": True,
        "carry": True,
        "model": "scripted",
        "max_usd": 0.5,
        "each_device": True,
        "frames": "failed",
        "poll_interval": 0.5,
        "drift_after": 2.0,
        "give_up_after": 6.0,
        "shard": "1/2",
        "paths_store": "committed",
        "locale": "de_DE",
        "retries": 2,
        "repeat": 3,
        "video": "on",
        "alerts": "accept",
        "env_file": "keys.env",
        "as_json": True,  # a front end's own: not read
    }
    settings = Settings.from_values(values, prefix="--mobster-", given={"scripted": "mobster_scripted (ini)"})
    assert settings.devices == DeviceOptions(scripted=("a.yaml",), parallel=2, prefix="--mobster-")
    assert settings.devices.spelled("scripted") == "mobster_scripted (ini)"
    assert (settings.no_heal, settings.fresh, settings.carry, settings.each_device) == (True, True, True, True)
    assert (settings.model, settings.max_usd, settings.frames, settings.shard) == ("scripted", 0.5, "failed", "1/2")
    assert settings.timing == Timing(0.5, 2.0, 6.0)
    assert (settings.paths, settings.locale, settings.retries, settings.repeat) == ("committed", "de_DE", 2, 3)
    assert (settings.video, settings.alerts, settings.env_file) == ("on", "accept", Path("keys.env"))


def test_a_name_left_out_or_none_is_its_default() -> None:
    assert Settings.from_values({}) == Settings()
    assert Settings.from_values(dict.fromkeys(NAMES)) == Settings()
    keys = {"ANTHROPIC_API_KEY": "sk"}
    made = Settings.from_values({}, secrets=keys, profile="grid")
    assert (made.secrets, made.profile) == (keys, "grid")


def test_a_bad_value_is_the_settings_own_error() -> None:
    with pytest.raises(ValueError, match="frames 'most' is not one of auto, all, failed, none"):
        Settings.from_values({"frames": "most"})


# -- the package's face ----------------------------------------------------------------------------


def test_every_promised_name_is_there() -> None:
    for name in mobster_harness.__all__:
        assert getattr(mobster_harness, name) is not None, name
    from mobster_harness import pool

    assert mobster_harness.run_on_pool is pool.run_on_pool
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        _ = mobster_harness.nothing


def test_the_door_imports_nothing_but_the_standard_library_until_a_device_or_model_is_asked_for() -> None:
    code = (
        "import sys, mobster_harness; from mobster_harness import Harness, Settings; "
        "print(sorted(m for m in sys.modules if m.startswith(('mobster_core', 'mobster_drivers', 'mobster_report', "
        "'attrs', 'cattrs', 'structlog', 'mobster_harness.pool', 'mobster_harness.models'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
