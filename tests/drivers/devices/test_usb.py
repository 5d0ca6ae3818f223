"""The USB iPhone driver: the real pymobiledevice3 through the fake usbmuxd, to the fake WDA server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import wda as facebook_wda
from pymobiledevice3 import exceptions as pmd3

import mobster_core as mc
from mobster_core import DeviceKind, LaunchOptions
from mobster_core.testing import check_device
from mobster_drivers.devices.scripted import AppScript, sample_path
from mobster_drivers.devices.usb import PhoneFacts, UsbIphone, find_iphone, list_iphones, usb_error
from mobster_drivers.testing.usbmuxd import FakeIphone, FakeLockdown, FakeUsbmuxd
from mobster_drivers.testing.wda import FakeWda
from tests.loopback import closed_port

YOURAPP = "com.example.yourapp"
UDID = "00008140-001A2B3C4D5E801E"
OTHER = "00008110-000E1D2C3B4A0029"


@pytest.fixture
def wda() -> Iterator[FakeWda]:
    text = sample_path("yourapp").read_text("utf-8").replace("kind: simulator", "kind: iphone")
    with FakeWda(AppScript.from_text(text, "iphone.yaml"), lifetime=60) as fake:
        yield fake


def phone(wda: FakeWda, **changes: object) -> FakeIphone:
    fields: dict[str, object] = {"udid": UDID, "name": "Lab iPhone", "ios": "26.4", "ports": {8100: wda.port}}
    fields.update(changes)
    return FakeIphone(**fields)  # type: ignore[arg-type]


def connect(mux: FakeUsbmuxd, name: str = "Lab iPhone") -> UsbIphone:
    return UsbIphone.connect(name, usbmux_address=mux.address, lockdown=mux.lockdown())


def test_the_usb_driver_passes_check_device(wda: FakeWda) -> None:
    made: list[UsbIphone] = []

    def make() -> UsbIphone:
        made.append(connect(mux))
        return made[-1]

    with FakeUsbmuxd([phone(wda)]) as mux:
        try:
            ran = asyncio.run(
                check_device(
                    make,
                    app=YOURAPP,
                    tap=("Button", "Sign up"),
                    field=("TextField", "Email"),
                    link="yourapp://signup",
                )
            )
        finally:
            for device in made:
                device.close()
    assert ran[-3:] == ["screenshot", "evidence read", "target check"]
    assert len(ran) == 12
    assert "Connect" in mux.messages
    assert {c[1] for c in mux.connects} == {8100}


def test_info_comes_from_lockdown_and_the_app_version_is_not_read(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda, ios="18.6.2")]) as mux:
        device = connect(mux)
        try:
            assert asyncio.run(device.info()) == mc.DeviceInfo(
                name="Lab iPhone", ios="18.6.2", kind=DeviceKind.IPHONE, udid=UDID, locale="en_US", appearance="light"
            )
            assert asyncio.run(device.app_info(YOURAPP)) == mc.AppInfo(YOURAPP)
            asyncio.run(device.launch(YOURAPP, LaunchOptions()))
            assert asyncio.run(device.read()).app == YOURAPP
        finally:
            device.close()
            device.close()


def test_the_forwarded_port_reaches_wda_on_the_phone(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda)]) as mux:
        device = connect(mux, UDID)
        try:
            client = facebook_wda.Client(f"http://127.0.0.1:{device.local_port}")
            assert client.status()["os"]["version"] == "26.4"
            assert device.wda.url == f"http://127.0.0.1:{device.local_port}"
            assert device.udid == UDID
        finally:
            device.close()


def test_a_phone_is_found_by_udid_or_name(wda: FakeWda) -> None:
    phones = [phone(wda), phone(wda, udid=OTHER, name="Lab iPad")]
    with FakeUsbmuxd(phones) as mux:
        lockdown = mux.lockdown()
        found = asyncio.run(find_iphone(OTHER.replace("-", ""), lockdown=lockdown, usbmux_address=mux.address))
        assert found == PhoneFacts(OTHER, "Lab iPad", "26.4", "iPhone17,1")
        assert asyncio.run(find_iphone("lab ipad", lockdown=lockdown, usbmux_address=mux.address)).udid == OTHER
        with pytest.raises(mc.DeviceError, match=r"no iPhone called 'Bob' .*connected: 'Lab iPhone' \(0000"):
            asyncio.run(find_iphone("Bob", lockdown=lockdown, usbmux_address=mux.address))


def test_two_phones_with_one_name_need_the_udid(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda), phone(wda, udid=OTHER)]) as mux:
        with pytest.raises(mc.DeviceError, match=r"2 iPhones are called 'Lab iPhone' .*pass the UDID"):
            connect(mux)


def test_network_connections_are_not_usb(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda, connection="Network")]) as mux:
        with pytest.raises(mc.DeviceError, match="no iPhone is connected over USB"):
            connect(mux)


def test_no_usbmuxd() -> None:
    with pytest.raises(mc.DeviceError, match=r"can't reach usbmuxd.*apt install usbmuxd"):
        UsbIphone.connect("x", usbmux_address="/nonexistent/usbmuxd", lockdown=FakeLockdown([]))


def test_no_phone() -> None:
    with FakeUsbmuxd([]) as mux:
        with pytest.raises(mc.DeviceError, match="no iPhone is connected over USB"):
            connect(mux)


def test_a_phone_that_does_not_trust_this_computer(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda, trusted=False)]) as mux:
        with pytest.raises(mc.DeviceError, match=r"doesn't trust this computer: unlock it, tap Trust") as caught:
            connect(mux, UDID)
        assert isinstance(caught.value.__cause__, pmd3.NotPairedError)
        with pytest.raises(mc.DeviceError, match=r"no iPhone called 'Lab iPhone'.*doesn't trust this computer"):
            connect(mux)


def test_a_locked_phone(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda, locked=True)]) as mux:
        with pytest.raises(mc.DeviceError, match="Lab iPhone is locked: unlock it"):
            connect(mux, UDID)


def test_wda_not_running_on_the_phone(wda: FakeWda) -> None:
    with FakeUsbmuxd([phone(wda, ports={8100: closed_port()})]) as mux:
        with pytest.raises(mc.DeviceError, match=r"WebDriverAgent isn't answering on Lab iPhone's port 8100"):
            connect(mux)
        with pytest.raises(mc.DeviceError, match="isn't answering"):
            UsbIphone.connect(UDID, usbmux_address=mux.address, lockdown=mux.lockdown(), device_port=9100)


@pytest.mark.parametrize(
    ("exc", "says"),
    [
        (pmd3.ConnectionFailedToUsbmuxdError(), "can't reach usbmuxd"),
        (pmd3.PasswordRequiredError(), "is locked"),
        (pmd3.PasscodeRequiredError("locked", "id", "26.4"), "is locked"),
        (pmd3.NotPairedError(), "doesn't trust this computer"),
        (pmd3.PairingDialogResponsePendingError(), "doesn't trust this computer"),
        (pmd3.UserDeniedPairingError(), "doesn't trust this computer"),
        (pmd3.NoDeviceConnectedError(), "is not connected over USB"),
        (pmd3.DeviceNotFoundError("x"), "is not connected over USB"),
        (pmd3.ConnectionFailedError(), "usbmuxd couldn't connect to"),
        (pmd3.DeveloperModeIsNotEnabledError(), "DeveloperModeIsNotEnabledError"),
    ],
)
def test_pymobiledevice3_errors_say_what_to_do(exc: BaseException, says: str) -> None:
    assert says in str(usb_error(exc, "Lab iPhone"))


def test_list_iphones_lists_the_usb_phones_and_leaves_out_one_lockdown_refuses(wda: FakeWda) -> None:
    phones = [
        phone(wda),
        phone(wda, udid=OTHER, name="Locked iPhone", locked=True),
        phone(wda, udid="00008120-0000000000000001", name="Wi-Fi iPhone", connection="Network"),
    ]
    with FakeUsbmuxd(phones) as mux:
        listed = asyncio.run(list_iphones(lockdown=mux.lockdown(), usbmux_address=mux.address))
    assert listed == [PhoneFacts(UDID, "Lab iPhone", "26.4", "iPhone17,1")]
