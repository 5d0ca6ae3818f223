"""The Android reader's rules (``_uiautomator/tree.py``, ``roles.py``), each on a small dump and hostile ones."""

from __future__ import annotations

import pytest

from mobster_core import Element
from mobster_core._rules.device.alerts import find_alert
from mobster_core._rules.device.keyboard import covered_by_keyboard
from mobster_drivers._uiautomator import roles, tree
from mobster_drivers._uiautomator.roles import ROUND_TRIP, Facts, class_of, role_of
from mobster_drivers._uiautomator.tree import BULLET, read_source

PKG = "com.example.yourapp"


def server(*nodes: str, width: int = 1080, height: int = 2400) -> str:
    """A page source as the UiAutomator2 server writes it: the active window's root and ``nodes`` in it."""
    inner = "".join(nodes)
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
        f'<hierarchy index="0" class="hierarchy" rotation="0" width="{width}" height="{height}">'
        f'<android.widget.FrameLayout index="0" package="{PKG}" class="android.widget.FrameLayout" text="" '
        f'bounds="[0,0][{width},{height}]" displayed="true">{inner}</android.widget.FrameLayout></hierarchy>'
    )


def el(cls: str, bounds: str = "[0,100][1080,200]", children: str = "", **attrs: str) -> str:
    """One node as the server writes it (its tag the class, ``$`` as ``.``)."""
    tag = cls.replace("$", ".")
    given = {"package": PKG, "class": cls, "text": "", "bounds": bounds, "displayed": "true", **attrs}
    text = " ".join(f'{k.replace("_", "-")}="{v}"' for k, v in given.items())
    return f"<{tag} {text}>{children}</{tag}>"


def dump(*nodes: str) -> str:
    """A ``uiautomator dump``: ``<node>`` elements, every attribute written, ``""`` for null."""
    return f'<?xml version="1.0" ?><hierarchy rotation="0">{"".join(nodes)}</hierarchy>'


def node(cls: str, bounds: str, children: str = "", **attrs: str) -> str:
    given = {
        "index": "0", "text": "", "resource-id": "", "class": cls, "package": PKG, "content-desc": "",
        "checkable": "false", "checked": "false", "clickable": "false", "enabled": "true", "focusable": "false",
        "focused": "false", "scrollable": "false", "long-clickable": "false", "password": "false",
        "selected": "false", "bounds": bounds,
    }  # fmt: skip
    given.update({k.replace("_", "-"): v for k, v in attrs.items()})
    text = " ".join(f'{k}="{v}"' for k, v in given.items())
    return f"<node {text}>{children}</node>"


def only(source: str) -> Element:
    """The one element below the window's root."""
    elements = read_source(source).screen.elements
    assert len(elements) == 2
    return elements[1]


# -- formats (Rule 1) -----------------------------------------------------------------------------


def test_both_formats_of_the_same_node_read_the_same() -> None:
    a = read_source(server(el("android.widget.Button", text="Continue", clickable="true"))).screen
    b = read_source(
        dump(
            node(
                "android.widget.FrameLayout",
                "[0,0][1080,2400]",
                node("android.widget.Button", "[0,100][1080,200]", text="Continue", clickable="true"),
            )
        )
    ).screen
    assert [(e.path, e.role, e.label, e.frame) for e in a.elements] == [
        (e.path, e.role, e.label, e.frame) for e in b.elements
    ]
    assert a.signature_pairs == (("Button", "Continue"),)


def test_an_absent_attribute_reads_as_empty() -> None:
    e = only(server('<android.widget.TextView bounds="[0,0][10,10]" text="Hi" />'))
    assert (e.role, e.label, e.identifier, e.enabled) == ("StaticText", "Hi", "", True)


def test_paths_count_the_nodes_read_not_their_index_attribute() -> None:
    s = read_source(
        server(el("android.widget.TextView", index="0", text="A"), el("android.widget.TextView", index="5", text="B"))
    ).screen
    assert [(e.path, e.label) for e in s.elements[1:]] == [("/0/0/0", "A"), ("/0/0/1", "B")]


def test_a_toast_is_a_window_of_its_own_and_never_the_app_in_front() -> None:
    toast = (
        '<android.widget.Toast package="com.android.settings" class="android.widget.Toast" text="Saved" '
        'displayed="true" bounds="[100,2000][980,2100]" />'
    )
    source = server(el("android.widget.TextView", text="Hi")).replace("</hierarchy>", toast + "</hierarchy>")
    got = read_source(source)
    assert got.package == PKG
    assert [(e.path, e.role, e.label) for e in got.screen.elements][-1] == ("/0/1", "StaticText", "Saved")


# -- frames and shown (Rules 4, 5) ----------------------------------------------------------------


def test_frames_are_normalized_by_the_size_the_device_gives_first() -> None:
    source = server(el("android.widget.TextView", bounds="[108,240][540,480]", text="Hi"))
    assert only(source).frame == pytest.approx((0.1, 0.1, 0.4, 0.1))
    given = read_source(source, size=(2160, 4800)).screen
    assert given.size == (2160, 4800)
    assert given.elements[1].frame == pytest.approx((0.05, 0.05, 0.2, 0.05))


def test_a_dump_without_a_size_takes_the_box_of_its_windows() -> None:
    s = read_source(dump(node("android.widget.FrameLayout", "[0,0][720,1280]"))).screen
    assert s.size == (720, 1280)


@pytest.mark.parametrize(
    "attrs",
    [{"displayed": "false"}, {"visible_to_user": "false"}, {"bounds": "[0,0][0,0]"}, {"bounds": "[5,5][5,90]"}],
)
def test_a_node_the_device_hides_or_that_has_no_area_is_not_shown(attrs: dict[str, str]) -> None:
    s = read_source(server(el("android.widget.Button", text="Hidden", **attrs))).screen
    assert s.find("Button", "Hidden") == []
    assert s.signature_pairs == ()


def test_a_row_cut_by_the_screens_edge_is_shown_clipped() -> None:
    s = read_source(server(el("android.widget.TextView", bounds="[0,2300][1080,2600]", text="Last"))).screen
    (last,) = s.find("StaticText", "Last")
    assert last.frame[1] + last.frame[3] == pytest.approx(1.0)


# -- labels, values, passwords, ids (Rules 7 to 10) -----------------------------------------------


def test_a_field_is_named_by_its_description_else_its_hint_and_an_empty_one_shows_its_hint() -> None:
    empty = only(server(el("android.widget.EditText", text="Email", hint="Email", clickable="true")))
    assert (empty.role, empty.label, empty.value, empty.placeholder) == ("TextField", "Email", "", "Email")
    typed = only(server(el("android.widget.EditText", text="ada@example.com", hint="Email", showing_hint="false")))
    assert (typed.label, typed.value) == ("Email", "ada@example.com")
    hinted = only(server(el("android.widget.EditText", text="Your email", hint="Your email", showing_hint="true")))
    assert hinted.value == ""
    named = only(server(el("android.widget.EditText", text="", hint="Email", content_desc="email field")))
    assert named.label == "email field"


def test_a_password_is_bullets_and_its_clear_last_character_never_leaves_the_reader() -> None:
    got = read_source(
        server(el("android.widget.EditText", text="\u2022\u2022\u2022\u2022t", password="true", hint="Password"))
    )
    field = got.screen.elements[1]
    assert (field.role, field.value, field.label) == ("SecureTextField", BULLET * 5, "Password")
    everything = [got.screen.app] + [
        v for e in got.screen.elements for v in (e.label, e.value, e.identifier, e.placeholder)
    ]
    assert not any("t" in v.replace("Password", "") for v in everything if v != PKG)
    empty = only(server(el("android.widget.EditText", text="Password", password="true", hint="Password")))
    assert (empty.value, empty.placeholder) == ("", "Password")


def test_a_switch_says_its_state_as_a_value_and_on_off_is_no_label() -> None:
    wifi = only(server(el("android.widget.Switch", text="ON", content_desc="Wi-Fi", checked="true", checkable="true")))
    assert (wifi.role, wifi.label, wifi.value) == ("Switch", "Wi-Fi", "1")
    bare = only(server(el("android.widget.Switch", text="OFF", checkable="true")))
    assert (bare.label, bare.value) == ("", "0")
    named = only(server(el("android.widget.CheckBox", text="Remember me", checkable="true")))
    assert (named.role, named.label, named.value) == ("CheckBox", "Remember me", "0")


def test_a_sliders_number_is_its_value() -> None:
    e = only(server(el("android.widget.SeekBar", text="0.5", content_desc="Volume")))
    assert (e.role, e.label, e.value) == ("Slider", "Volume", "0.5")


def test_a_joined_description_is_one_label_with_its_line_break() -> None:
    e = only(server(el("android.widget.Button", content_desc="Explorer&#10;Tab 1 of 3", clickable="true")))
    assert e.label == "Explorer\nTab 1 of 3"


def test_an_id_of_the_nodes_own_package_reads_as_the_app_wrote_it() -> None:
    own = only(server(el("android.widget.EditText", resource_id=f"{PKG}:id/email")))
    assert own.identifier == "email"
    system = only(server(el("android.widget.Button", resource_id="android:id/button1", text="OK")))
    assert system.identifier == "android:id/button1"
    google = (
        '<android.widget.Button package="com.google.android.permissioncontroller" '
        'resource-id="com.android.permissioncontroller:id/permission_allow_button" '
        'text="Allow" bounds="[0,0][10,10]" />'
    )
    assert only(server(google)).identifier == "com.android.permissioncontroller:id/permission_allow_button"


def test_a_naf_node_has_no_label_and_takes_none() -> None:
    s = read_source(dump(node("android.view.View", "[0,0][1080,2400]", NAF="true", clickable="true"))).screen
    assert s.elements[0].label == ""
    assert s.signature_pairs == ()


# -- a row's label, dialogs, the keyboard (Rules 11 to 13) ----------------------------------------


def test_an_unlabelled_row_reads_as_talkback_speaks_it() -> None:
    row = el(
        "android.widget.LinearLayout",
        clickable="true",
        children=el("android.widget.TextView", text="Wi-Fi") + el("android.widget.TextView", text="Connected"),
    )
    s = read_source(server(el("androidx.recyclerview.widget.RecyclerView", scrollable="true", children=row))).screen
    assert ("Cell", "Wi-Fi, Connected") in s.signature_pairs
    assert {("StaticText", "Wi-Fi"), ("StaticText", "Connected")} <= set(s.signature_pairs)


def test_a_nested_control_keeps_its_own_label_out_of_the_row() -> None:
    inner = el("android.widget.Button", text="Edit", clickable="true")
    row = el(
        "android.widget.LinearLayout", clickable="true", children=el("android.widget.TextView", text="Ada") + inner
    )
    s = read_source(server(row)).screen
    assert ("Button", "Ada") in s.signature_pairs
    assert ("Button", "Edit") in s.signature_pairs


def test_a_permission_dialog_is_an_alert_with_its_message_and_buttons() -> None:
    pc = "com.google.android.permissioncontroller"
    ids = "com.android.permissioncontroller:id/"

    def w(cls: str, rid: str, text: str = "", clickable: str = "false") -> str:
        return (
            f'<{cls} package="{pc}" class="{cls}" resource-id="{ids}{rid}" text="{text}" clickable="{clickable}" '
            f'bounds="[60,1400][1020,1500]" displayed="true" />'
        )

    body = (
        w("android.widget.TextView", "permission_message", "Allow YourApp to take pictures and record video?")
        + w("android.widget.Button", "permission_allow_foreground_only_button", "While using the app", "true")
        + w("android.widget.Button", "permission_allow_one_time_button", "Only this time", "true")
        + w("android.widget.Button", "permission_deny_button", "Don\u2019t allow", "true")
    )
    source = (
        '<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">'
        f'<android.widget.FrameLayout package="{pc}" class="android.widget.FrameLayout" bounds="[40,1200][1040,2300]" '
        f'displayed="true">{body}</android.widget.FrameLayout></hierarchy>'
    )
    got = read_source(source)
    assert got.package == pc
    alert = find_alert(got.screen)
    assert alert is not None
    assert alert.title == "Allow YourApp to take pictures and record video?"
    assert alert.service == "camera"
    assert alert.buttons == ("While using the app", "Only this time", "Don\u2019t allow")


def test_an_app_without_a_dialog_id_has_no_alert() -> None:
    got = read_source(server(el("android.widget.TextView", text="Delete?"), el("android.widget.Button", text="OK")))
    assert find_alert(got.screen) is None


def test_the_keyboard_window_covers_what_lies_under_it() -> None:
    field = el("android.widget.EditText", bounds="[0,300][1080,400]", hint="Email", focused="true")
    button = el("android.widget.Button", bounds="[0,2000][1080,2100]", text="Continue", clickable="true")
    got = read_source(server(field, button), keyboard=(0, 1500, 1080, 2400))
    assert got.focused_input is True
    keyboard = got.screen.elements[-1]
    assert (keyboard.role, keyboard.path) == ("Keyboard", "/0/1")
    (cont,) = got.screen.find("Button", "Continue")
    (email,) = got.screen.find("TextField", "Email")
    assert covered_by_keyboard(got.screen, cont)
    assert not covered_by_keyboard(got.screen, email)


# -- bounds on the work (Rule 14) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ('<!DOCTYPE x [<!ENTITY a "b">]><hierarchy/>', "DOCTYPE or an entity declaration"),
        ("<hierarchy><node", "not well-formed XML"),
        ("<AppiumAUT/>", "not <hierarchy>"),
        ("", "not well-formed XML"),
    ],
)
def test_a_source_that_is_no_android_dump_is_refused(source: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        read_source(source)


def test_a_source_over_the_byte_limit_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree, "MAX_XML_BYTES", 100)
    with pytest.raises(ValueError, match="the limit is 100"):
        read_source(server(el("android.widget.TextView", text="x" * 200)))


def test_a_tree_past_the_node_limit_is_cut_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree, "MAX_NODES", 3)
    s = read_source(server(*(el("android.widget.TextView", text=str(i)) for i in range(10)))).screen
    assert len(s.elements) == 3


def test_a_very_deep_tree_is_cut_at_the_depth_limit() -> None:
    deep = "".join('<android.view.View bounds="[0,0][10,10]">' for _ in range(300)) + "</android.view.View>" * 300
    s = read_source(server(deep)).screen
    assert max(e.path.count("/") for e in s.elements) <= tree.MAX_TREE_DEPTH + 2


def test_long_texts_are_cut() -> None:
    e = only(server(el("android.widget.TextView", text="W" * 10_000)))
    assert len(e.label) == tree.MAX_TEXT_CHARS


# -- roles (roles.py) --------------------------------------------------------------------------------


@pytest.mark.parametrize("role", sorted(ROUND_TRIP))
def test_every_round_trip_role_reads_back_as_itself(role: str) -> None:
    cls = class_of(role)
    back = role_of(Facts(cls, password=role == "SecureTextField"))
    assert back == role


@pytest.mark.parametrize(
    ("cls", "facts", "role"),
    [
        ("com.example.FancyTextView", {}, "StaticText"),
        ("com.example.RoundedImageView", {}, "Image"),
        ("com.example.ItemLayout", {"clickable": True}, "Button"),
        ("android.widget.TextView", {"clickable": True}, "Button"),
        ("android.widget.EditText", {"password": True}, "SecureTextField"),
        ("android.widget.SearchView$SearchAutoComplete", {}, "SearchField"),
        ("android.view.View", {"has_text": True}, "StaticText"),
        ("android.view.View", {"has_description": True}, "Image"),
        ("android.view.View", {"checkable": True, "clickable": True}, "Toggle"),
        ("android.view.View", {"scrollable": True}, "ScrollView"),
        ("android.view.View", {}, "Other"),
        ("android.widget.LinearLayout", {"clickable": True, "in_list": True}, "Cell"),
        ("android.widget.LinearLayout", {"has_text": True}, "Other"),
        ("com.android.launcher3.Workspace", {"scrollable": True}, "ScrollView"),
    ],
)
def test_a_node_is_read_by_its_class_then_by_what_it_does(cls: str, facts: dict[str, object], role: str) -> None:
    in_list = bool(facts.pop("in_list", False))
    assert role_of(Facts(cls, **facts), "CollectionView" if in_list else None) == role  # type: ignore[arg-type]


def test_the_class_table_names_only_roles_of_the_core() -> None:
    from mobster_core._rules.vocabulary.roles import ROLES

    assert set(roles.BY_CLASS.values()) <= ROLES
    assert {r for _, r in roles.BY_SUFFIX} <= ROLES
