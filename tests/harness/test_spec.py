"""``mobster_harness.spec``: the one device spec, the device options as given, and the pool they make."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from mobster_harness import pool
from mobster_harness.spec import (
    DeviceOptions,
    DeviceSpec,
    PoolError,
    label_of,
    pool_specs,
    rerun_options,
    sim_port,
)


def named(*, bundle: str | None = None, **options: Any) -> tuple[DeviceSpec, ...]:
    """The pool the options name, given as the command line gives them (lists)."""
    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    return pool_specs(DeviceOptions(**given), bundle=bundle)


def test_a_named_pool_keeps_its_order_and_unique_labels() -> None:
    specs = named(device=["Ada's iPhone", "Ada's iPhone", "iPad Air"])
    assert [(s.kind, s.value, s.label) for s in specs] == [
        ("device", "Ada's iPhone", "Ada-s-iPhone-1"),
        ("device", "Ada's iPhone", "Ada-s-iPhone-2"),
        ("device", "iPad Air", "iPad-Air"),
    ]
    assert named(wda=["http://a", "http://b", "http://c"], parallel=2) == named(wda=["http://a", "http://b"])
    assert specs[2].option == '--device "iPad Air"'
    assert specs[0].exclusive


def test_each_simulator_of_a_pool_gets_its_own_wda_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBSTER_WDA_PORT", raising=False)
    assert [s.value for s in named(sim=["A", "B@9000", "C"])] == ["A@8100", "B@9000", "C@8102"]
    assert [s.label for s in named(sim=["A", "B@9000"])] == ["A", "B"]
    assert [s.value for s in named(sim=["A"])] == ["A"]  # alone: $MOBSTER_WDA_PORT or 8100, as ever
    monkeypatch.setenv("MOBSTER_WDA_PORT", "8200")
    assert [s.value for s in named(sim=["A", "B"])] == ["A@8200", "B@8201"]
    with pytest.raises(PoolError, match="one WDA port"):
        named(sim=["A@8201", "B"])
    monkeypatch.setenv("MOBSTER_WDA_PORT", "http")
    with pytest.raises(PoolError, match="MOBSTER_WDA_PORT"):
        named(sim=["A", "B"])
    assert sim_port("iPhone 17 Pro@8101") == ("iPhone 17 Pro", 8101)
    assert sim_port("Ada@home") == ("Ada@home", None)
    with pytest.raises(ValueError, match="between 1 and 65535"):
        sim_port("A@70000")


def test_sessions_and_parallel_on_appium() -> None:
    four = named(appium=["https://ada:k3y@hub.example.com/wd/hub"], caps=["grid.json"], sessions=4, bundle="b")
    assert [s.label for s in four] == [f"hub.example.com-{n}" for n in range(1, 5)]  # no user, no key
    assert {(s.caps, s.bundle) for s in four} == {("grid.json", "b")}
    assert not four[0].exclusive
    assert len(named(appium=["http://a:4723"], parallel=3)) == 3  # --parallel N on one URL: N sessions
    two_servers = named(appium=["http://a:4723", "http://b:4723"], caps=["a.json", "b.json"], sessions=2)
    assert [(s.label, s.caps) for s in two_servers] == [
        ("a:4723-1", "a.json"),
        ("a:4723-2", "a.json"),
        ("b:4723-1", "b.json"),
        ("b:4723-2", "b.json"),
    ]
    assert len(named(appium=["http://a:4723", "http://b:4723"], sessions=2, parallel=3)) == 3


def test_the_scripted_phone_makes_as_many_as_asked() -> None:
    assert [s.label for s in named(scripted=["app.yaml"], parallel=3)] == ["app-1", "app-2", "app-3"]
    assert [s.label for s in named(scripted=["a.yaml", "b.yaml"])] == ["a", "b"]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"sim": ["a"], "wda": ["http://x"]}, "choose one device option, not --sim and --wda"),
        ({}, "choose a device"),
        ({"sim": ["a"], "caps": ["c.json"]}, "--caps FILE goes with --appium URL"),
        ({"wda": ["http://x"], "sessions": 2}, "--sessions N goes with --appium URL"),
        ({"device": ["a", "b"], "parallel": 3}, "--parallel 3 needs 3 devices, and the pool names 2 iPhones"),
        ({"appium": ["http://a"], "caps": ["1", "2"]}, "2 caps files for 1 Appium servers"),
        ({"appium": ["http://a"], "sessions": 0}, "--sessions takes a whole number from 1"),
    ],
)
def test_bad_options_say_what_to_write(options: dict[str, Any], said: str) -> None:
    with pytest.raises(PoolError) as caught:
        named(**options)
    assert said in str(caught.value)


def test_the_plugins_prefix_spells_its_options() -> None:
    with pytest.raises(PoolError, match="--mobster-sessions N goes with --mobster-appium URL"):
        named(sim=["a"], sessions=2, prefix="--mobster-")
    assert named(sim=["a b"], prefix="--mobster-")[0].option == '--mobster-sim "a b"'


def test_labels() -> None:
    assert label_of("wda", "http://127.0.0.1:8100/") == "127.0.0.1:8100"
    assert label_of("scripted", "/x/apps/yourapp.yaml") == "yourapp"
    assert label_of("sim", "  ") == "sim"
    with pytest.raises(ValueError, match="kind"):
        DeviceSpec("emulator", "x")


def test_an_option_is_named_as_the_user_gave_it() -> None:
    # The plugin names an ini key where the user wrote one; the fix keeps the front end's prefix.
    given = {"sim": "mobster_sim (ini)", "wda": "--mobster-wda", "caps": "mobster_caps (ini)"}
    both = DeviceOptions(sim=("a",), wda=("http://x",), prefix="--mobster-", given=given)
    with pytest.raises(PoolError, match=r"^choose one device option, not mobster_sim \(ini\) and --mobster-wda: "):
        pool_specs(both)
    caps = DeviceOptions(sim=("a",), caps=("c.json",), prefix="--mobster-", given=given)
    with pytest.raises(PoolError, match=r"^mobster_caps \(ini\) goes with --mobster-appium URL "):
        pool_specs(caps)


def test_no_device_named_is_an_error_unless_optional() -> None:
    with pytest.raises(PoolError, match=r"choose a device: --scripted APP\.yaml, --sim NAME"):
        pool_specs(DeviceOptions())
    assert pool_specs(DeviceOptions(), required=False) == ()
    with pytest.raises(PoolError, match="--caps FILE goes with --appium URL"):
        pool_specs(DeviceOptions(caps=("c.json",)), required=False)  # optional, but not half-given


def test_the_session_policy_reaches_every_appium_spec() -> None:
    specs = named(appium=["http://a:4723"], sessions=2, session_per_check=True, bundle="b")
    assert [(s.session_per_check, s.bundle) for s in specs] == [(True, "b"), (True, "b")]
    with pytest.raises(PoolError, match="--session-per-check goes with --appium URL"):
        named(wda=["http://x"], session_per_check=True)


def test_a_spec_is_a_frozen_value_with_its_label() -> None:
    spec = DeviceSpec("scripted", "/x/apps/yourapp.yaml")
    assert spec.label == "yourapp"
    assert spec == DeviceSpec("scripted", "/x/apps/yourapp.yaml", "yourapp")
    assert len({spec, DeviceSpec("scripted", "/x/apps/yourapp.yaml")}) == 1
    with pytest.raises(AttributeError):
        spec.value = "other.yaml"  # type: ignore[misc]


def test_the_pool_module_names_the_same_objects() -> None:
    # ``mobster_harness.pool`` keeps its names (and ``mobster_drivers.pool``, the first layout's).
    assert pool.DeviceSpec is DeviceSpec
    assert pool.pool_specs is pool_specs
    assert pool.PoolError is PoolError
    import mobster_drivers.pool as old  # type: ignore[import-not-found]

    assert old.DeviceSpec is DeviceSpec


def test_the_spec_and_the_settings_import_nothing_but_the_standard_library() -> None:
    # The pytest plugin reads them when pytest starts, in every project where mobster is installed.
    code = (
        "import sys, mobster_harness.spec, mobster_harness.settings; "
        "print(sorted(m for m in sys.modules if m.startswith(('mobster_core', 'attrs', 'cattrs', 'structlog', "
        "'mobster_drivers.devices', 'mobster_drivers.models', 'mobster_harness.pool'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_a_front_end_gives_its_values_by_option_name() -> None:
    given = {"sim": ["A", "B@9000"], "caps": []}
    options = DeviceOptions(parallel=2, prefix="--mobster-").given_as(lambda name: given.get(name, ()))
    assert (options.sim, options.scripted, options.caps) == (("A", "B@9000"), (), ())
    assert (options.parallel, options.prefix, options.kinds) == (2, "--mobster-", ("sim",))


def test_rerun_options_are_spelled_as_mobster_test_takes_them_whatever_the_front_end() -> None:
    plugin = DeviceOptions(scripted=("apps/my app.yaml",), prefix="--mobster-")
    assert rerun_options(plugin) == {"my-app": "--scripted 'apps/my app.yaml'", "": "--scripted 'apps/my app.yaml'"}
    urls = ("http://ada:s3cret@grid.local:4444/wd/hub", "http://cloud.example:443/wd/hub")
    pool = DeviceOptions(appium=urls, caps=("caps.json",), prefix="--mobster-")
    named = rerun_options(pool)
    assert set(named) == {"grid.local:4444", "cloud.example:443"}  # a pool of two: no "" entry
    assert named["grid.local:4444"] == "--appium 'http://ada:***@grid.local:4444/wd/hub' --caps caps.json"
    assert all("s3cret" not in line for line in named.values())
    assert rerun_options(DeviceOptions(), ("pkg.mod:make", "my arg")) == {"": "--driver pkg.mod:make 'my arg'"}
    # Options that make no pool give no line rather than a wrong one.
    assert rerun_options(DeviceOptions(scripted=("a.yaml",), sim=("iPhone 17",))) == {}


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://ada:s3cret@grid.local:4444/wd/hub", "http://ada:***@grid.local:4444/wd/hub"),
        ("http://:s3cret@grid.local/wd/hub", "http://:***@grid.local/wd/hub"),
        ("http://ada:p%40ss%2Fw@grid.local/", "http://ada:***@grid.local/"),
        ("https://hub.example/wd/hub/cGxhbnRlZC10b2tlbi0xMjM0NTY3ODkw", "https://hub.example/wd/hub/***"),
        # A token in the query or the fragment (refused by the driver, whose refusal names the URL):
        ("http://hub.example/wd/hub?access_token=cGxhbnRlZC10b2tlbi0x", "http://hub.example/wd/hub?***"),
        ("http://hub.example/wd/hub#cGxhbnRlZC10b2tlbi0x", "http://hub.example/wd/hub#***"),
    ],
)
def test_a_urls_secrets_are_scrubbed_wherever_they_stand(url: str, shown: str) -> None:
    spec = DeviceSpec("appium", url)
    assert spec.scrub(f"can't reach {url}: refused") == f"can't reach {shown}: refused"
    assert spec.option == f"--appium {shown}"
