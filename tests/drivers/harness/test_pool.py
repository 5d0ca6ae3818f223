"""``mobster_drivers.harness.pool``: specs from options, opening one device with its lock, a pool, a suite on it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import attrs
import pytest

import mobster_core as mc
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone, sample_path
from mobster_drivers.harness._lock import device_lock
from mobster_drivers.harness.pool import (
    CouldntOpen,
    DeviceSpec,
    PoolError,
    label_of,
    open_device,
    open_pool,
    pool_specs,
    run_on_pool,
    sim_port,
)

pytestmark = pytest.mark.usefixtures("private_locks")  # no caps file or lock of the shell's


def test_a_named_pool_keeps_its_order_and_unique_labels() -> None:
    specs = pool_specs(device=["Ada's iPhone", "Ada's iPhone", "iPad Air"])
    assert [(s.kind, s.value, s.label) for s in specs] == [
        ("device", "Ada's iPhone", "Ada-s-iPhone-1"),
        ("device", "Ada's iPhone", "Ada-s-iPhone-2"),
        ("device", "iPad Air", "iPad-Air"),
    ]
    assert pool_specs(wda=["http://a", "http://b", "http://c"], parallel=2) == pool_specs(wda=["http://a", "http://b"])
    assert specs[2].option == '--device "iPad Air"'
    assert specs[0].exclusive


def test_each_simulator_of_a_pool_gets_its_own_wda_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOBSTER_WDA_PORT", raising=False)
    assert [s.value for s in pool_specs(sim=["A", "B@9000", "C"])] == ["A@8100", "B@9000", "C@8102"]
    assert [s.label for s in pool_specs(sim=["A", "B@9000"])] == ["A", "B"]
    assert [s.value for s in pool_specs(sim=["A"])] == ["A"]  # alone: $MOBSTER_WDA_PORT or 8100, as ever
    monkeypatch.setenv("MOBSTER_WDA_PORT", "8200")
    assert [s.value for s in pool_specs(sim=["A", "B"])] == ["A@8200", "B@8201"]
    with pytest.raises(PoolError, match="one WDA port"):
        pool_specs(sim=["A@8201", "B"])
    monkeypatch.setenv("MOBSTER_WDA_PORT", "http")
    with pytest.raises(PoolError, match="MOBSTER_WDA_PORT"):
        pool_specs(sim=["A", "B"])
    assert sim_port("iPhone 17 Pro@8101") == ("iPhone 17 Pro", 8101)
    assert sim_port("Ada@home") == ("Ada@home", None)
    with pytest.raises(ValueError, match="between 1 and 65535"):
        sim_port("A@70000")


def test_sessions_and_parallel_on_appium() -> None:
    four = pool_specs(appium=["https://ada:k3y@hub.example.com/wd/hub"], caps=["grid.json"], sessions=4, bundle="b")
    assert [s.label for s in four] == [f"hub.example.com-{n}" for n in range(1, 5)]  # no user, no key
    assert {(s.caps, s.bundle) for s in four} == {("grid.json", "b")}
    assert not four[0].exclusive
    assert len(pool_specs(appium=["http://a:4723"], parallel=3)) == 3  # --parallel N on one URL: N sessions
    two_servers = pool_specs(appium=["http://a:4723", "http://b:4723"], caps=["a.json", "b.json"], sessions=2)
    assert [(s.label, s.caps) for s in two_servers] == [
        ("a:4723-1", "a.json"),
        ("a:4723-2", "a.json"),
        ("b:4723-1", "b.json"),
        ("b:4723-2", "b.json"),
    ]
    assert len(pool_specs(appium=["http://a:4723", "http://b:4723"], sessions=2, parallel=3)) == 3


def test_the_scripted_phone_makes_as_many_as_asked() -> None:
    assert [s.label for s in pool_specs(scripted=["app.yaml"], parallel=3)] == ["app-1", "app-2", "app-3"]
    assert [s.label for s in pool_specs(scripted=["a.yaml", "b.yaml"])] == ["a", "b"]


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
def test_bad_options_say_what_to_write(options: dict[str, object], said: str) -> None:
    with pytest.raises(PoolError) as caught:
        pool_specs(**options)  # type: ignore[arg-type]
    assert said in str(caught.value)


def test_the_plugins_prefix_spells_its_options() -> None:
    with pytest.raises(PoolError, match="--mobster-sessions N goes with --mobster-appium URL"):
        pool_specs(sim=["a"], sessions=2, prefix="--mobster-")
    assert pool_specs(sim=["a b"], prefix="--mobster-")[0].option == '--mobster-sim "a b"'


def test_labels() -> None:
    assert label_of("wda", "http://127.0.0.1:8100/") == "127.0.0.1:8100"
    assert label_of("scripted", "/x/apps/yourapp.yaml") == "yourapp"
    assert label_of("sim", "  ") == "sim"
    with pytest.raises(ValueError, match="kind"):
        DeviceSpec("emulator", "x")


def test_open_a_scripted_phone_and_release_it_twice() -> None:
    opened = open_device(DeviceSpec("scripted", str(sample_path("yourapp"))), FakeClock())
    assert isinstance(opened.device, ScriptedPhone)
    opened.release()
    opened.release()


def test_a_device_another_holder_has_is_busy_and_nothing_stays_open() -> None:
    held = device_lock("wda http://127.0.0.1:9").acquire()
    try:
        with pytest.raises(CouldntOpen) as caught:
            open_device(DeviceSpec("wda", "http://127.0.0.1:9"), FakeClock())
        assert caught.value.failure_class is mc.FailureClass.BUSY
        assert caught.value.message.startswith("--wda http://127.0.0.1:9: ")
    finally:
        held.release()


def test_a_wda_that_isnt_answering_is_a_device_problem_and_its_lock_is_let_go() -> None:
    spec = DeviceSpec("wda", "http://127.0.0.1:9")
    with pytest.raises(CouldntOpen) as caught:
        open_device(spec, FakeClock())
    assert caught.value.failure_class is mc.FailureClass.DEVICE
    device_lock("wda http://127.0.0.1:9").acquire().release()  # released again


def test_usage_problems_opening() -> None:
    bad_url = pytest.raises(CouldntOpen)
    with bad_url as caught:
        open_device(DeviceSpec("wda", "ftp://x"), FakeClock())
    assert caught.value.failure_class is mc.FailureClass.USAGE
    with pytest.raises(CouldntOpen) as missing:
        open_device(DeviceSpec("scripted", "/no/such/app.yaml"), FakeClock())
    assert missing.value.failure_class is mc.FailureClass.USAGE


def test_a_caps_file_with_an_unset_variable_is_a_usage_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    caps = tmp_path / "bs.json"
    caps.write_text('{"bstack:options": {"accessKey": "${BS_KEY_FOR_TEST}"}}')
    monkeypatch.delenv("BS_KEY_FOR_TEST", raising=False)
    with pytest.raises(CouldntOpen) as caught:
        open_device(DeviceSpec("appium", "http://127.0.0.1:9", caps=str(caps)), FakeClock())
    assert caught.value.failure_class is mc.FailureClass.USAGE
    assert "BS_KEY_FOR_TEST" in caught.value.message


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "appium", None)  # as if Appium-Python-Client weren't installed
    with pytest.raises(CouldntOpen) as caught:
        open_device(DeviceSpec("appium", "http://127.0.0.1:9"), FakeClock())
    assert caught.value.failure_class is mc.FailureClass.USAGE
    assert "pip install 'mobster[appium]'" in caught.value.message


def test_a_pool_leaves_out_what_cant_be_opened_and_raises_on_usage() -> None:
    held = device_lock("wda http://127.0.0.1:9").acquire()
    try:
        specs = [*pool_specs(scripted=[str(sample_path("yourapp"))]), DeviceSpec("wda", "http://127.0.0.1:9")]
        pool = open_pool(specs, FakeClock())
        assert list(pool.devices) == ["yourapp"]
        assert [(s.label, why.failure_class) for s, why in pool.unavailable] == [("127.0.0.1:9", mc.FailureClass.BUSY)]
        pool.release()
        with pytest.raises(CouldntOpen):
            open_pool([*specs[:1], DeviceSpec("scripted", "/no/such.yaml")], FakeClock())
    finally:
        held.release()


LAUNCH = "version: 1\nname: Welcome {n}\napp: {{bundle: com.example.yourapp}}\nexpect:\n  - text: Sign up\n"


def _files(root: Path, count: int) -> list[Path]:
    checks = root / ".mobster" / "checks"
    checks.mkdir(parents=True)
    for n in range(count):
        (checks / f"w{n}.yaml").write_text(LAUNCH.format(n=n))
    return mc.find_checks(root)


def test_run_on_pool_labels_results_and_releases(tmp_path: Path) -> None:
    clock = FakeClock()
    specs = pool_specs(scripted=[str(sample_path("yourapp"))], parallel=2)
    pool = open_pool(specs, clock)
    suite = clock.run(run_on_pool(_files(tmp_path, 3), pool, clock, options=mc.RunOptions(root=tmp_path)))
    assert suite.exit_code == 0
    assert {c.device_label for c in suite.checks} <= {"yourapp-1", "yourapp-2"}
    assert pool.opened == []  # released


def test_a_pool_of_one_names_the_device_by_what_it_is(tmp_path: Path) -> None:
    clock = FakeClock()
    specs = pool_specs(scripted=[str(sample_path("yourapp"))])
    suite = clock.run(run_on_pool(_files(tmp_path, 1), specs, clock, options=mc.RunOptions(root=tmp_path)))
    assert suite.checks[0].device_label is None


def test_no_device_opened_ends_every_check_with_its_reason(tmp_path: Path) -> None:
    clock = FakeClock()
    held = device_lock("wda http://127.0.0.1:9").acquire()
    try:
        specs = [DeviceSpec("wda", "http://127.0.0.1:9")]
        suite = clock.run(run_on_pool(_files(tmp_path, 2), specs, clock, options=mc.RunOptions(root=tmp_path)))
    finally:
        held.release()
    assert [(c.verdict, c.outcome.failure_class) for c in suite.checks] == [
        (mc.Verdict.COULDNT_RUN, mc.FailureClass.BUSY)
    ] * 2
    assert all("--wda http://127.0.0.1:9" in c.outcome.message for c in suite.checks)


def test_a_stopped_suite_still_releases_the_pool(tmp_path: Path) -> None:
    clock = FakeClock()
    files = _files(tmp_path, 4)
    specs = pool_specs(scripted=[str(sample_path("yourapp"))], parallel=2)
    pool = open_pool(specs, clock)
    released: list[str] = []
    for n, opened in enumerate(pool.opened):
        inner = opened.release

        def release(inner: object = inner, label: str = opened.spec.label) -> None:
            released.append(label)
            inner()  # type: ignore[operator]

        pool.opened[n] = attrs.evolve(opened, release=release)

    async def stop_soon() -> mc.SuiteResult:
        task = asyncio.ensure_future(run_on_pool(files, pool, clock, options=mc.RunOptions(root=tmp_path)))
        await clock.sleep(0.5)  # the launches are under way
        task.cancel()
        return await task

    with pytest.raises(mc.SuiteStopped) as stopped:
        clock.run(stop_soon())
    assert sorted(released) == ["yourapp-1", "yourapp-2"]
    assert mc.FailureClass.STOPPED in {c.outcome.failure_class for c in stopped.value.suite.checks}


def test_no_secret_of_a_url_reaches_a_message(tmp_path: Path) -> None:
    token = "a1B2c3D4e5F6g7H8i9J0k1L2"
    spec = DeviceSpec(
        "appium", f"https://ada:s3cret-KEY@hub.example.com/wd/hub/{token}", caps=str(tmp_path / "no.json")
    )
    assert spec.label == "hub.example.com"
    assert "s3cret-KEY" not in spec.option
    assert token not in spec.option
    with pytest.raises(CouldntOpen) as caught:
        open_device(spec, FakeClock())  # the caps file isn't there: a usage problem naming the option
    assert caught.value.failure_class is mc.FailureClass.USAGE
    assert "s3cret-KEY" not in str(caught.value)
    assert token not in str(caught.value)
    assert "no.json" in str(caught.value)
    bad = DeviceSpec("wda", "ftp://ada:s3cret-KEY@x")
    with pytest.raises(CouldntOpen) as refused:
        open_device(bad, FakeClock())
    assert "s3cret-KEY" not in str(refused.value)


# -- one session per phone (Rule 10) ---------------------------------------------------------------


def _iphone() -> AppScript:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    return AppScript.from_text(text, "yourapp.yaml")


def test_two_sessions_on_one_phone_become_one_device_and_the_other_is_deleted() -> None:
    from mobster_drivers.testing.appium import FakeAppium

    with FakeAppium(_iphone(), lifetime=60) as server:  # one phone: a second session would claim it
        specs = pool_specs(appium=[server.url], sessions=2, bundle="com.example.yourapp")
        pool = open_pool(specs, mc.SystemClock())
        try:
            assert len(pool.opened) == 1
            ((merged, kept, udid),) = pool.merged
            assert udid == server.udids[0]
            assert {merged.label, kept.label} == {s.label for s in specs}
            assert pool.notes() == [
                (
                    f"{merged.label} is on the same phone as {kept.label} (UDID {udid}): they run as one device, "
                    "one session on that phone"
                )
            ]
            (device,) = pool.devices.values()
            assert list(server.sessions) == [device.session_id]  # type: ignore[attr-defined]  # the other deleted
        finally:
            pool.release()
        assert server.sessions == {}


def test_sessions_whose_caps_name_one_phone_are_one_device_before_any_session(tmp_path: Path) -> None:
    from mobster_drivers.testing.appium import FakeAppium

    with FakeAppium(_iphone(), lifetime=60) as server:
        caps = tmp_path / "caps.json"
        caps.write_text(f'{{"appium:udid": "{server.udids[0]}", "appium:platformVersion": "26.4"}}')
        pool = open_pool(pool_specs(appium=[server.url], caps=[str(caps)], sessions=3), mc.SystemClock())
        try:
            assert len(pool.opened) == 1
            assert len(pool.merged) == 2
            assert "POST /session" not in server.commands  # merged on the caps: no session made, none claimed
        finally:
            pool.release()


def test_a_hubs_sessions_on_their_own_phones_stay_apart() -> None:
    from mobster_drivers.testing.appium import FakeAppium

    with FakeAppium(_iphone(), lifetime=60, devices=3) as hub:
        pool = open_pool(pool_specs(appium=[hub.url], sessions=3), mc.SystemClock())
        try:
            assert (len(pool.opened), pool.merged) == (3, [])
            assert sorted(hub.phone_of(s) or 0 for s in hub.sessions) == [0, 1, 2]
        finally:
            pool.release()
        assert hub.sessions == {}


def test_a_session_wait_goes_with_appium_and_bounds_the_device() -> None:
    (spec,) = pool_specs(appium=["http://a:4723"], session_wait=12.5)
    assert spec.session_wait == 12.5
    with pytest.raises(PoolError, match="--session-wait SECONDS goes with --appium URL"):
        pool_specs(wda=["http://x"], session_wait=5)
    with pytest.raises(PoolError, match="--session-wait takes seconds from more than 0 to 3600, not 0"):
        pool_specs(appium=["http://a"], session_wait=0)
