"""``mobster_harness.pool``: opening one device with its lock, a pool, a suite on it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import attrs
import pytest

import mobster_core as mc
from mobster_core.distribution import install_hint
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import AppScript, ScriptedPhone, sample_path
from mobster_harness._lock import device_lock
from mobster_harness.pool import CouldntOpen, OpenDevice, address_key, open_device, open_pool, run_on_pool
from mobster_harness.spec import DeviceOptions, DeviceSpec, PoolError, pool_specs

pytestmark = pytest.mark.usefixtures("private_locks")  # no caps file or lock of the shell's


def test_open_a_scripted_phone_and_release_it_twice() -> None:
    opened = open_device(DeviceSpec("scripted", str(sample_path("yourapp"))), FakeClock())
    assert isinstance(opened.device, ScriptedPhone)
    opened.release()
    opened.release()


def test_a_device_another_holder_has_is_busy_and_nothing_stays_open() -> None:
    held = device_lock(f"wda {address_key('http://127.0.0.1:9')}").acquire()
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
    device_lock(f"wda {address_key('http://127.0.0.1:9')}").acquire().release()  # released again


@pytest.mark.parametrize(
    "other",
    ["http://127.1:{port}", "http://[::ffff:127.0.0.1]:{port}", "http://localhost:{port}/", "HTTP://0x7f.0.0.1:{port}"],
)
def test_one_phone_has_one_lock_however_its_url_is_written(other: str) -> None:
    from mobster_drivers.testing.wda import FakeWda

    with FakeWda(sample_path("yourapp"), lifetime=30) as wda:
        first = open_device(DeviceSpec("wda", wda.url), FakeClock())
        try:
            with pytest.raises(CouldntOpen) as caught:
                open_device(DeviceSpec("wda", other.format(port=wda.port)), FakeClock())
            assert caught.value.failure_class is mc.FailureClass.BUSY
        finally:
            first.release()


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
    assert caught.value.message.endswith(f"(appium is missing): {install_hint('appium')}")


def test_a_pool_leaves_out_what_cant_be_opened_and_raises_on_usage() -> None:
    held = device_lock(f"wda {address_key('http://127.0.0.1:9')}").acquire()
    try:
        specs = [
            *pool_specs(DeviceOptions(scripted=(str(sample_path("yourapp")),))),
            DeviceSpec("wda", "http://127.0.0.1:9"),
        ]
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
    specs = pool_specs(DeviceOptions(scripted=(str(sample_path("yourapp")),), parallel=2))
    pool = open_pool(specs, clock)
    suite = clock.run(run_on_pool(_files(tmp_path, 3), pool, clock, options=mc.RunOptions(root=tmp_path)))
    assert suite.exit_code == 0
    assert {c.device_label for c in suite.checks} <= {"yourapp-1", "yourapp-2"}
    assert pool.opened == []  # released


def test_a_pool_of_one_names_the_device_by_what_it_is(tmp_path: Path) -> None:
    clock = FakeClock()
    specs = pool_specs(DeviceOptions(scripted=(str(sample_path("yourapp")),)))
    suite = clock.run(run_on_pool(_files(tmp_path, 1), specs, clock, options=mc.RunOptions(root=tmp_path)))
    assert suite.checks[0].device_label is None


def test_no_device_opened_ends_every_check_with_its_reason(tmp_path: Path) -> None:
    clock = FakeClock()
    held = device_lock(f"wda {address_key('http://127.0.0.1:9')}").acquire()
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
    specs = pool_specs(DeviceOptions(scripted=(str(sample_path("yourapp")),), parallel=2))
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
        specs = pool_specs(DeviceOptions(appium=(server.url,), sessions=2), bundle="com.example.yourapp")
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
        pool = open_pool(
            pool_specs(DeviceOptions(appium=(server.url,), caps=(str(caps),), sessions=3)), mc.SystemClock()
        )
        try:
            assert len(pool.opened) == 1
            assert len(pool.merged) == 2
            assert "POST /session" not in server.commands  # merged on the caps: no session made, none claimed
        finally:
            pool.release()


def test_a_hubs_sessions_on_their_own_phones_stay_apart() -> None:
    from mobster_drivers.testing.appium import FakeAppium

    with FakeAppium(_iphone(), lifetime=60, devices=3) as hub:
        pool = open_pool(pool_specs(DeviceOptions(appium=(hub.url,), sessions=3)), mc.SystemClock())
        try:
            assert (len(pool.opened), pool.merged) == (3, [])
            assert sorted(hub.phone_of(s) or 0 for s in hub.sessions) == [0, 1, 2]
        finally:
            pool.release()
        assert hub.sessions == {}


def test_a_session_wait_goes_with_appium_and_bounds_the_device() -> None:
    (spec,) = pool_specs(DeviceOptions(appium=("http://a:4723",), session_wait=12.5))
    assert spec.session_wait == 12.5
    with pytest.raises(PoolError, match="--session-wait SECONDS goes with --appium URL"):
        pool_specs(DeviceOptions(wda=("http://x",), session_wait=5))
    with pytest.raises(PoolError, match="--session-wait takes seconds from more than 0 to 3600, not 0"):
        pool_specs(DeviceOptions(appium=("http://a",), session_wait=0))


def test_an_abandoned_opening_releases_what_opened_and_what_opens_later() -> None:
    from mobster_harness.pool import Opening

    released: list[str] = []

    def device(name: str) -> OpenDevice:
        return OpenDevice(
            DeviceSpec("scripted", name), ScriptedPhone(_iphone(), clock=FakeClock()), lambda: released.append(name)
        )

    opening = Opening()
    assert opening.hold(device("first.yaml"))
    assert released == []
    opening.abandon()
    assert released == ["first.yaml"]
    assert not opening.hold(device("late.yaml"))  # opened after the stop: released as it opens
    assert released == ["first.yaml", "late.yaml"]
    opening.abandon()  # twice: nothing more to release
    assert released == ["first.yaml", "late.yaml"]


def test_an_abandoned_pool_comes_back_empty_and_released() -> None:
    from mobster_harness.pool import Opening

    opening = Opening()
    opening.abandon()  # stopped before anything opened
    pool = open_pool(
        pool_specs(DeviceOptions(scripted=(str(sample_path("yourapp")),), parallel=2)), FakeClock(), opening=opening
    )
    assert pool.opened == []
    assert [why.failure_class for _, why in pool.unavailable] == [mc.FailureClass.STOPPED] * 2


def test_closing_with_grace_deletes_the_session_a_request_in_flight_makes() -> None:
    """A pool abandoned while a session is being made: the session the server makes is not left on it."""
    import threading

    from mobster_drivers.devices.appium import appium_device, load_caps
    from mobster_drivers.testing.appium import FakeAppium

    with FakeAppium(_iphone(), lifetime=60, latency=0.4) as server:
        device = appium_device(server.url, load_caps(None), mc.SystemClock())
        failed: list[BaseException] = []

        def start() -> None:
            try:
                device.start_session_sync()
            except mc.DeviceError as exc:
                failed.append(exc)

        starter = threading.Thread(target=start)
        starter.start()
        assert server.wait_for(lambda request: getattr(request, "command", None) == "POST /session", 10)
        device.close(grace=5.0)
        starter.join(10)
        assert server.sessions == {}  # made, then deleted: not left to the idle timeout
        assert failed
        assert "closed while its session was made" in str(failed[0])


def test_a_second_close_never_cuts_the_first_ones_delete() -> None:
    """A pool's release and an abandoned opening may close one Appium device from two threads."""
    import threading

    from mobster_drivers.devices.appium import appium_device, load_caps
    from mobster_drivers.testing.appium import FakeAppium

    with FakeAppium(_iphone(), lifetime=60, latency=0.4) as server:
        device = appium_device(server.url, load_caps(None), mc.SystemClock())
        device.start_session_sync()
        assert len(server.sessions) == 1
        first = threading.Thread(target=device.close)
        first.start()
        assert server.wait_for(lambda request: getattr(request, "command", None) == "DELETE /session/{id}", 10)
        device.close()  # the second: returns at once, the first's DELETE still in flight
        first.join(10)
        assert server.sessions == {}


# -- a pool of two platforms (spec Rule 8) --------------------------------------------------------


def test_android_devices_make_a_pool_beside_one_kind_of_ios_device_ios_first() -> None:
    specs = pool_specs(DeviceOptions(android=("emulator-5554",), sim=("iPhone 17", "iPhone Air")))
    assert [(s.kind, s.value) for s in specs] == [
        ("sim", "iPhone 17@8100"),
        ("sim", "iPhone Air@8101"),
        ("android", "emulator-5554"),
    ]
    mixed = pool_specs(DeviceOptions(appium=("http://a:4723",), android=("", "x"), caps=("c.json",), sessions=2))
    assert [(s.kind, s.caps) for s in mixed] == [
        ("appium", "c.json"),
        ("appium", "c.json"),
        ("android", None),
        ("android", None),
    ]
    assert len({s.label for s in mixed}) == 4
    first = pool_specs(DeviceOptions(wda=("http://w:8100",), android=("x", "y"), parallel=2))
    assert [s.kind for s in first] == ["wda", "android"]
    with pytest.raises(PoolError, match="--parallel 4 needs 4 devices, and the pool names 3"):
        pool_specs(DeviceOptions(wda=("http://w:8100",), android=("x", "y"), parallel=4))


@pytest.mark.parametrize(
    "options",
    [
        DeviceOptions(scripted=("a.yaml",), android=("x",)),  # the scripted phone mixes by its scripts
        DeviceOptions(sim=("A",), wda=("http://w",)),
        DeviceOptions(sim=("A",), wda=("http://w",), android=("x",)),
    ],
)
def test_other_mixes_of_kinds_are_refused(options: DeviceOptions) -> None:
    with pytest.raises(PoolError, match="a pool holds devices of one kind, or Android devices"):
        pool_specs(options)


def test_a_platform_selects_the_specs_one_device_may_open_and_a_pool_without_it_is_refused(tmp_path: Path) -> None:
    from mobster_harness import Harness, Settings

    settings = Settings.from_values(
        {"wda": ["http://127.0.0.1:1"], "android": ["emulator-5554"], "platform": "android"}
    )
    assert settings.to_run_options(tmp_path).platform == "android"
    harness = Harness(settings, tmp_path, mc.SystemClock())
    with pytest.raises(PoolError, match="--platform ios: no device of the pool runs iOS"):
        Harness(Settings.from_values({"android": ["x"], "platform": "ios"}), tmp_path, mc.SystemClock()).one_device()
    assert harness.specs()[0].kind == "wda"  # the pool is still both; one_device takes Android's place
    with pytest.raises(ValueError, match="platform 'windows' is not one of ios, android"):
        Settings(platform="windows")
