"""The scripted phone's pictures: they show what the screen says, stay in their frames, and never leak a secret."""

from __future__ import annotations

import math
import unicodedata
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mobster_core as mc
from mobster_core import Action, LaunchOptions, Op
from mobster_core.protocols import DEFAULT_SCREEN_SIZE
from mobster_core.testing import SPRINGBOARD, FakeClock
from mobster_drivers.devices.scripted import ScreenRenderer, ScriptedPhone, _draw, _font, render_screen, sample_path
from mobster_drivers.devices.scripted._raster import RGB, Raster
from tests.drivers.pictures import colours as colours_of
from tests.drivers.pictures import decoded
from tests.strategies import examples, screens

YOURAPP = "com.example.yourapp"
W, H = DEFAULT_SCREEN_SIZE
WHITE: RGB = (255, 255, 255)


def pt(x: float, y: float, w: float, h: float) -> list[float]:
    """A frame given in points of the default screen, normalized."""
    return [x / W, y / H, w / W, h / H]


def box(frame: list[float], scale: float = 1.0) -> tuple[int, int, int, int]:
    """Where the painter puts a frame: through whole points, then pixels."""
    x, y, w, h = frame
    return (
        round(round(x * W) * scale),
        round(round(y * H) * scale),
        round(round((x + w) * W) * scale),
        round(round((y + h) * H) * scale),
    )


def screen_of(*elements: dict[str, Any], app: str = "com.example.a") -> mc.Screen:
    return mc.Screen.from_dict({"app": app, "elements": list(elements)})


def picture(*elements: dict[str, Any], app: str = "com.example.a", scale: float = 1.0) -> Raster:
    return decoded(render_screen(screen_of(*elements, app=app), scale=scale))


def changed(a: Raster, b: Raster) -> list[tuple[int, int]]:
    """The pixels where two pictures of one size differ."""
    assert (a.width, a.height) == (b.width, b.height)
    out: list[tuple[int, int]] = []
    for y in range(a.height):
        ra, rb = a.row(y), b.row(y)
        if ra != rb:
            out.extend((x, y) for x in range(a.width) if ra[3 * x : 3 * x + 3] != rb[3 * x : 3 * x + 3])
    return out


def inside(points: list[tuple[int, int]], b: tuple[int, int, int, int]) -> bool:
    return all(b[0] <= x < b[2] and b[1] <= y < b[3] for x, y in points)


def same_outside(a: Raster, b: Raster, bounds: tuple[int, int, int, int]) -> bool:
    """Whether two pictures agree on every pixel outside ``bounds`` (row by row, not pixel by pixel)."""
    x0, y0, x1, y1 = bounds
    x0, x1 = max(0, min(x0, a.width)), max(0, min(x1, a.width))
    for y in range(a.height):
        ra, rb = a.row(y), b.row(y)
        if not y0 <= y < y1:
            if ra != rb:
                return False
        elif ra[: 3 * x0] != rb[: 3 * x0] or ra[3 * x1 :] != rb[3 * x1 :]:
            return False
    return True


def darkest(raster: Raster, b: tuple[int, int, int, int]) -> int:
    return min(sum(c) for c in colours_of(raster, b))


def run(clock: FakeClock, scenario: Callable[[], Any]) -> Any:
    async def main() -> Any:
        return await scenario()

    return clock.run(main())


# -- size and scale --------------------------------------------------------------------------------


@pytest.mark.parametrize(("scale", "size"), [(1.0, (402, 874)), (2, (804, 1748)), (0.5, (201, 437))])
def test_a_screenshot_is_the_screen_in_points_times_the_scale(scale: float, size: tuple[int, int]) -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock, screenshot_scale=scale)
    assert phone.screenshot_size == size

    async def shot() -> bytes:
        await phone.launch(YOURAPP, LaunchOptions())
        return await phone.screenshot()

    png = run(clock, shot)
    assert png[25] == 2  # the IHDR colour type: RGB
    raster = decoded(png)
    assert (raster.width, raster.height) == size


@pytest.mark.parametrize("scale", [0, 0.1, 5, math.nan, "2"])
def test_a_scale_out_of_range_is_refused(scale: Any) -> None:
    with pytest.raises(ValueError, match=r"0\.25 to 4\.0 pixels per point"):
        ScreenRenderer(scale=scale)
    with pytest.raises(ValueError, match="pixels per point"):
        ScriptedPhone.from_file(sample_path("yourapp"), clock=FakeClock(), screenshot_scale=scale)


# -- what each element looks like ------------------------------------------------------------------

BUTTON_A = pt(24, 200, 354, 52)
BUTTON_B = pt(24, 270, 354, 52)
BUTTON_C = pt(24, 340, 354, 52)


def band(frame: list[float]) -> tuple[int, int, int, int]:
    """A strip of a button's fill: left of its centred label, clear of its rounded corners."""
    x0, y0, _, y1 = box(frame)
    return (x0 + 20, y0 + 10, x0 + 60, y1 - 10)


def test_the_first_button_is_filled_the_others_tinted_a_disabled_one_grey() -> None:
    raster = picture(
        {"role": "Button", "label": "Sign up", "frame": BUTTON_A},
        {"role": "Button", "label": "Settings", "frame": BUTTON_B},
        {"role": "Button", "label": "Off", "frame": BUTTON_C, "enabled": False},
    )
    assert colours_of(raster, band(BUTTON_A)) == {_draw.TINT: 40 * 32}
    assert colours_of(raster, band(BUTTON_B)) == {_draw.TINTED_FILL: 40 * 32}
    assert colours_of(raster, band(BUTTON_C)) == {_draw.GREY5: 40 * 32}
    # Each label is drawn on its button: white on the filled one, tint on the tinted one.
    assert (255, 255, 255) in colours_of(raster, box(BUTTON_A))
    assert _draw.TINT in colours_of(raster, box(BUTTON_B))


def test_a_small_button_is_tinted_text() -> None:
    frame = pt(300, 60, 80, 24)
    raster = picture({"role": "Button", "label": "Edit", "frame": frame})
    colours = colours_of(raster, box(frame))
    assert _draw.TINT in colours
    assert _draw.TINTED_FILL not in colours
    assert max(colours, key=colours.__getitem__) == WHITE


def test_a_hidden_element_is_not_drawn() -> None:
    hidden = {"role": "Button", "label": "Hidden", "frame": BUTTON_A, "visible": False}
    shown = {"role": "StaticText", "label": "Shown", "frame": BUTTON_B}
    raster = picture(hidden, shown)
    assert colours_of(raster, box(BUTTON_A)) == {WHITE: 354 * 52}
    assert changed(raster, picture(shown)) == []


def test_a_visible_child_of_a_hidden_container_is_drawn_as_wda_reports_it() -> None:
    row = {"role": "StaticText", "label": "Row", "frame": BUTTON_A}
    raster = picture({"role": "CollectionView", "frame": pt(0, 0, 402, 874), "visible": False, "children": [row]})
    assert darkest(raster, box(BUTTON_A)) == 0


def test_text_pixels_appear_inside_a_label_frame_and_not_outside_it() -> None:
    frame = pt(24, 400, 200, 40)
    title = {"role": "StaticText", "label": "Title", "frame": pt(24, 90, 354, 52)}
    empty = picture(title)
    drawn = changed(empty, picture(title, {"role": "StaticText", "label": "Hello there", "frame": frame}))
    assert len(drawn) > 100
    assert inside(drawn, box(frame))


ROLES = (
    "StaticText",
    "Button",
    "TextField",
    "SecureTextField",
    "SearchField",
    "TextView",
    "Cell",
    "Switch",
    "Image",
    "Link",
    "Slider",
    "ProgressIndicator",
    "NavigationBar",
    "TabBar",
    "Keyboard",
    "Key",
    "Other",
    "SomeNewRole",
)
hostile_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["\u202eevil\u202c", "a\u200fb", "\U0001f600\U0001f44d\U0001f3fd", "x\x00y\x07\n\n", "\ud800"]),
)
# Frames partly off the screen too (x + w past the edge): a read of a scrolled list has them.
point_frames = st.tuples(st.integers(0, 400), st.integers(0, 870), st.integers(0, 420), st.integers(0, 300)).map(
    lambda t: pt(*t)
)


# ~1.5 s: two pictures an example, every role, hostile labels; the one check that no role draws out of its frame.
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    role=st.sampled_from(ROLES),
    label=hostile_text,
    value=st.sampled_from(["", "1", "0", "40%", "hunter2", "x" * 300]),
    frame=point_frames,
    enabled=st.booleans(),
    selected=st.booleans(),
)
def test_an_element_draws_only_inside_its_frame(
    role: str, label: str, value: str, frame: list[float], enabled: bool, selected: bool
) -> None:
    x, y, w, h = frame
    element = mc.Element(role, label, "", value, (x, y, w, h), enabled, True, selected, "/0/1")
    # The background is an image: a text or a button could change another's style (the title,
    # the first filled button), which is the screen's look, not drawing out of a frame.
    background = mc.Element("Image", "Above", frame=(24 / W, 60 / H, 100 / W, 40 / H), path="/0/0")
    without = ScreenRenderer().raster(mc.Screen("com.example.a", (background,)))
    with_it = ScreenRenderer().raster(mc.Screen("com.example.a", (background, element)))
    assert same_outside(without, with_it, box(frame))


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(screen=screens())
def test_any_screen_renders_the_same_bytes_twice(screen: mc.Screen) -> None:
    png = render_screen(screen)
    assert png == render_screen(screen)
    assert decoded(png).width == 402


def field(role: str, value: str, label: str = "Password", enabled: bool = True) -> dict[str, Any]:
    return {"role": role, "label": label, "value": value, "frame": BUTTON_A, "enabled": enabled}


def test_a_secure_field_shows_one_bullet_per_character_never_the_characters() -> None:
    secret = picture(field("SecureTextField", "hunter2"))
    # The picture depends on the length alone: any other 7 characters draw the same pixels.
    assert changed(secret, picture(field("SecureTextField", "abcdefg"))) == []
    assert changed(secret, picture(field("SecureTextField", "\u2022" * 7))) == []
    assert changed(secret, picture(field("TextField", "\u2022" * 7))) == []
    assert changed(secret, picture(field("TextField", "hunter2"))) != []
    assert changed(secret, picture(field("SecureTextField", "hunter22"))) != []


def test_a_password_typed_on_the_phone_never_reaches_the_picture() -> None:
    def typed(password: str) -> bytes:
        clock = FakeClock()
        phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

        async def scenario() -> bytes:
            await phone.launch(YOURAPP, LaunchOptions(url="yourapp://signup"))
            (secure,) = (await phone.read()).find("SecureTextField", "Password")
            await phone.act(Action(Op.TYPE, element=secure, text=password))
            return await phone.screenshot()

        return bytes(run(clock, scenario))

    assert typed("hunter2") == typed("sesame!")
    assert typed("hunter2") != typed("hunter")


def test_an_empty_field_shows_its_label_as_a_grey_placeholder() -> None:
    b = box(BUTTON_A)
    empty = picture(field("TextField", "", label="Email"))
    filled = picture(field("TextField", "ada@example.com", label="Email"))
    assert darkest(empty, b) >= sum(_draw.GREY)  # nothing darker than the placeholder grey
    assert darkest(filled, b) < 60  # the value is black
    assert empty.pixel(b[0] + 4, (b[1] + b[3]) // 2) == _draw.GREY6  # the field's fill
    disabled = picture(field("TextField", "", label="Email", enabled=False))
    assert disabled.pixel(b[0] + 4, (b[1] + b[3]) // 2) == _draw.GREY5


def test_a_search_field_has_a_glass_before_its_placeholder() -> None:
    frame = pt(16, 120, 370, 36)
    plain = picture({"role": "TextField", "label": "Search mail", "frame": frame})
    search = picture({"role": "SearchField", "label": "Search mail", "frame": frame})
    b = box(frame)

    def ink_columns(raster: Raster) -> list[int]:
        return [x for x in range(b[0], b[2]) if darkest(raster, (x, b[1], x + 1, b[3])) < 600]

    assert ink_columns(plain)[0] >= b[0] + 12  # the placeholder, 12 points in
    assert ink_columns(search)[0] in range(b[0] + 9, b[0] + 12)  # the glass, 10 points in
    assert ink_columns(search)[-1] > ink_columns(plain)[-1]  # the placeholder moved right of it


@pytest.mark.parametrize(("value", "on"), [("1", True), ("0", False), ("true", True), ("", False)])
def test_a_switch_is_on_or_off_from_its_value(value: str, on: bool) -> None:
    frame = pt(24, 200, 354, 52)
    colours = colours_of(
        picture({"role": "Switch", "label": "Notifications", "value": value, "frame": frame}), box(frame)
    )
    assert (_draw.GREEN in colours) is on
    assert (_draw.SWITCH_OFF in colours) is not on
    assert min(sum(c) for c in colours) < 60  # the label, in black


def test_a_cell_is_a_row_with_a_separator_and_a_chevron() -> None:
    frame = pt(0, 200, 402, 52)
    raster = picture({"role": "Cell", "label": "Account", "value": "Ada", "frame": frame})
    x0, _, x1, y1 = box(frame)
    assert colours_of(raster, (x0 + 16, y1 - 1, x1, y1)) == {_draw.SEPARATOR: x1 - x0 - 16}
    chevron = colours_of(raster, (x1 - 30, y1 - 40, x1 - 10, y1 - 10))
    assert any(c != WHITE and abs(c[0] - c[2]) < 10 for c in chevron)
    value = colours_of(raster, (200, y1 - 40, x1 - 30, y1 - 10))
    assert darkest(raster, (200, y1 - 40, x1 - 30, y1 - 10)) >= sum(_draw.GREY)  # the value is grey
    assert len(value) > 1


def test_an_element_with_children_leaves_its_text_to_them() -> None:
    frame = pt(0, 200, 402, 60)
    child = {"role": "StaticText", "label": "Inner", "frame": pt(20, 210, 200, 40)}
    with_children = picture({"role": "Cell", "label": "Outer words", "frame": frame, "children": [child]})
    alone = picture(
        {"role": "Cell", "label": "", "frame": frame}, {"role": "StaticText", "label": "Inner", "frame": child["frame"]}
    )
    assert changed(with_children, alone) == []


def ink_rows(raster: Raster, b: tuple[int, int, int, int]) -> int:
    return sum(1 for y in range(b[1], b[3]) if darkest(raster, (b[0], y, b[2], y + 1)) < 300)


def test_the_first_text_at_the_top_is_a_large_title() -> None:
    first, second = pt(24, 90, 354, 52), pt(24, 160, 354, 52)
    raster = picture(
        {"role": "StaticText", "label": "Welcome", "frame": first},
        {"role": "StaticText", "label": "Welcome", "frame": second},
    )
    assert ink_rows(raster, box(first)) > 1.5 * ink_rows(raster, box(second))


def test_an_alert_is_a_card_over_a_dimmed_screen() -> None:
    alert = pt(60, 330, 282, 180)
    raster = picture(
        {"role": "StaticText", "label": "Behind", "frame": pt(24, 90, 354, 52)},
        {
            "role": "Alert",
            "label": "Delete?",
            "frame": alert,
            "children": [
                {"role": "StaticText", "label": "Delete all?", "frame": pt(76, 345, 250, 30)},
                {"role": "Button", "label": "Cancel", "frame": pt(60, 466, 141, 44)},
                {"role": "Button", "label": "Delete", "frame": pt(201, 466, 141, 44)},
            ],
        },
    )
    assert raster.pixel(10, 700) == (153, 153, 153)  # white behind, 40% black over it
    b = box(alert)
    assert raster.pixel(b[0] + 10, b[1] + 60) == _draw.ALERT
    assert _draw.TINT in colours_of(raster, box(pt(201, 466, 141, 44)))  # its buttons are tinted text


def test_a_sheet_is_a_white_card_over_a_screen_dimmed_by_a_quarter() -> None:
    sheet = pt(0, 300, 402, 574)
    key = pt(0, 700, 40, 50)
    raster = picture(
        {
            "role": "Sheet",
            "frame": sheet,
            "children": [
                {
                    "role": "Keyboard",
                    "frame": pt(0, 690, 402, 184),
                    "children": [{"role": "Key", "label": "Q", "frame": key}],
                }
            ],
        }
    )
    assert raster.pixel(10, 200) == (191, 191, 191)  # white behind, 25% black over it
    assert raster.pixel(10, 400) == WHITE  # the card
    assert raster.pixel(200, 860) == _draw.KEYBOARD
    k = box(key)
    assert raster.pixel(k[0] + 6, k[1] + 10) == WHITE  # a key is a white cap on the keyboard
    assert darkest(raster, k) < 60  # with its letter


def test_bars_and_tabs() -> None:
    nav, tabs = pt(0, 54, 402, 44), pt(0, 790, 402, 84)
    mail, week = pt(0, 795, 201, 50), pt(201, 795, 201, 50)
    raster = picture(
        {"role": "NavigationBar", "label": "Inbox", "frame": nav},
        {
            "role": "TabBar",
            "frame": tabs,
            "children": [
                {"role": "Button", "label": "Mail", "selected": True, "frame": mail},
                {"role": "Button", "label": "Week", "frame": week},
            ],
        },
        {"role": "Toolbar", "label": "Done", "frame": pt(0, 700, 402, 44)},
    )
    n = box(nav)
    assert raster.pixel(5, n[1] + 5) == _draw.BAR
    assert raster.pixel(5, n[3] - 1) == _draw.SEPARATOR
    assert darkest(raster, n) < 60  # its title
    assert _draw.TINT in colours_of(raster, box(mail))  # the selected tab
    assert _draw.TINT not in colours_of(raster, box(week))
    assert _draw.GREY in colours_of(raster, box(week))
    assert raster.pixel(5, box(tabs)[1]) == _draw.SEPARATOR  # the tab bar's top hairline


@pytest.mark.parametrize(("value", "fraction"), [("40%", 0.4), ("0.4", 0.4), ("40", 0.4), ("", 0.0), ("nan", 0.0)])
def test_a_progress_bar_fills_to_its_value(value: str, fraction: float) -> None:
    frame = pt(0, 400, 402, 20)
    raster = picture({"role": "ProgressIndicator", "value": value, "frame": frame})
    row = (box(frame)[1] + box(frame)[3]) // 2
    tinted = [x for x in range(402) if raster.pixel(x, row) == _draw.TINT]
    assert len(tinted) == pytest.approx(402 * fraction, abs=4)


def test_a_slider_has_a_knob_at_its_value() -> None:
    frame = pt(0, 400, 402, 30)
    raster = picture({"role": "Slider", "value": "0.5", "frame": frame})
    b = box(frame)
    assert raster.pixel(201, (b[1] + b[3]) // 2) == WHITE  # the knob sits on the track's middle
    assert raster.pixel(100, (b[1] + b[3]) // 2) == _draw.TINT


def test_a_segmented_control_holds_its_buttons() -> None:
    frame = pt(20, 400, 362, 32)
    raster = picture(
        {
            "role": "SegmentedControl",
            "frame": frame,
            "children": [{"role": "Button", "label": "Day", "frame": pt(22, 402, 178, 28)}],
        }
    )
    assert raster.pixel(box(frame)[2] - 20, box(frame)[1] + 16) == (238, 238, 239)
    assert _draw.TINT in colours_of(raster, box(frame))


def test_the_home_screen_is_a_wallpaper_with_an_icon_per_app() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)

    async def scenario() -> tuple[mc.Screen, bytes]:
        return await phone.read(), await phone.screenshot()

    screen, png = run(clock, scenario)
    assert screen.app == SPRINGBOARD
    raster = decoded(png)
    assert raster.pixel(200, 600) not in (WHITE, (0, 0, 0))  # the wallpaper
    (icon,) = screen.elements
    colour = _draw.ICON_COLOURS[zlib.crc32(icon.identifier.encode()) % len(_draw.ICON_COLOURS)]
    x0, y0, x1, y1 = box(list(icon.frame))
    assert colours_of(raster, (x0, y0, x1, y1)).get(colour, 0) > 1000
    assert (255, 255, 255) in colours_of(raster, (x0 - 6, y1 - 20, x1 + 6, y1))  # its name, in white


def test_pictures_are_deterministic_and_cached_by_fingerprint() -> None:
    screen = screen_of({"role": "Button", "label": "Go", "frame": BUTTON_A})
    other = screen_of({"role": "Button", "label": "Stop", "frame": BUTTON_A})
    renderer = ScreenRenderer(cache_size=1)
    first = renderer.png(screen)
    assert renderer.png(screen) is first  # a cache hit
    assert first == ScreenRenderer().png(screen) == render_screen(screen)
    renderer.png(other)  # evicts the first: the renderer's cache holds one picture
    assert renderer._cache == {(other.fingerprint, other.size): renderer.png(other)}
    again = renderer.png(screen)
    assert again == first
    assert ScreenRenderer().png(screen) is again  # the renderers of a process share what they drew
    assert ScreenRenderer(scale=2).png(screen) != first  # another scale is another picture
    uncached = ScreenRenderer(cache_size=0).png(screen)
    assert uncached == first
    assert uncached is not first  # no cache at all: drawn again


def test_the_phone_pictures_the_screen_a_read_returns() -> None:
    clock = FakeClock()
    phone = ScriptedPhone.from_file(sample_path("yourapp"), clock=clock)
    renderer = ScreenRenderer()

    async def scenario() -> None:
        for url in (None, "yourapp://signup"):
            await phone.launch(YOURAPP, LaunchOptions(url=url))
            assert await phone.screenshot() == renderer.png(await phone.read())

    run(clock, scenario)


# -- hostile labels ----------------------------------------------------------------------------------

HOSTILE = [
    "W" * 10_000,
    "word " * 2_000,
    "\n" * 10_000,
    "\u200f\u202e" * 3_000 + "rtl",
    "\U0001f600" * 5_000,
    "e\u0301" * 3_000,
    "z" + "\u0301" * 5_000,
    "".join(chr(c) for c in range(32)) * 300,
    "\ud800\udfff" * 100,
    "<script>alert(1)</script>",
]


@pytest.mark.parametrize("role", ["StaticText", "Button", "TextField", "SecureTextField", "Cell", "Alert"])
def test_hostile_labels_render(role: str) -> None:
    elements = [
        {"role": role, "label": text, "value": text, "frame": pt(24, 90 + 70 * i, 354, 60)}
        for i, text in enumerate(HOSTILE)
    ]
    raster = decoded(render_screen(screen_of(*elements)))
    assert raster.width == 402


def test_laying_out_a_long_label_reads_only_what_can_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    normalize = unicodedata.normalize

    def spy(form: Any, text: str) -> str:
        seen.append(len(text))
        return normalize(form, text)

    monkeypatch.setattr(unicodedata, "normalize", spy)
    lines = _font.layout("x" * 1_000_000, 17, _font.REGULAR, 354, 3)
    assert len(lines) == 3
    assert lines[-1][-1] == "\u2026"
    assert seen
    assert max(seen) < 5_000  # bounded by what three lines of the narrowest glyph hold, not a million


# -- the font ----------------------------------------------------------------------------------------


def test_every_printable_ascii_and_latin1_character_has_a_glyph() -> None:
    fallback = _font._glyph("\U0001f600")
    missing = [
        chr(c)
        for c in [*range(0x21, 0x7F), *range(0xA1, 0x100)]
        if chr(c) != "\u00ad" and _font._glyph(chr(c)) is fallback
    ]
    assert missing == []
    assert _font._glyph("\u4e00") is fallback
    assert _font._glyph("\u03a9") is fallback


def test_accented_letters_are_composed_from_the_letter_and_its_mark() -> None:
    e, acute, ring = _font._glyph("e"), _font._glyph("\u00e9"), _font._glyph("\u00c5")
    assert acute.rows[4:] == e.rows[4:]  # the letter itself is unchanged (x-height from row 5)
    assert any(acute.rows[:5])  # the mark sits above it
    assert any(ring.rows[:3])
    assert _font._glyph("\u010d") is not _font._glyph("\U0001f600")  # č: outside Latin-1, composed too
    assert _font._glyph("e\u0301").rows == acute.rows  # a combining mark composes like the precomposed letter


def test_clusters_drop_controls_keep_marks_and_break_lines() -> None:
    assert _font.clusters("a\x00b\u200fc\td\ne", 100) == ["a", "b", "c", " ", "d", "\n", "e"]
    assert _font.clusters("x" + "\u0301" * 50, 100) == ["x" + "\u0301" * 4]
    assert _font.clusters("\u0301leading mark", 3) == ["l", "e", "a"]


@settings(max_examples=examples(50), deadline=None)
@given(
    text=st.text(max_size=200),
    size=st.floats(6, 40),
    width=st.integers(1, 400),
    lines=st.integers(1, 5),
    weight=st.sampled_from([_font.REGULAR, _font.SEMIBOLD, _font.BOLD]),
)
def test_layout_never_exceeds_its_box(text: str, size: float, width: int, lines: int, weight: int) -> None:
    laid = _font.layout(text, size, weight, width, lines)
    assert 1 <= len(laid) <= lines
    for line in laid:
        assert _font.text_width(line, size, weight) <= width or line == ("\u2026",) * 0


def test_layout_wraps_at_spaces_and_ends_cut_text_with_an_ellipsis() -> None:
    def lines(text: str, width: int, n: int) -> list[str]:
        return ["".join(line) for line in _font.layout(text, 17, _font.REGULAR, width, n)]

    assert lines("Create your account", 1000, 2) == ["Create your account"]
    assert lines("Create your account", 120, 3) == ["Create your", "account"]
    two = lines("Create your account now please", 120, 2)
    assert len(two) == 2
    assert two[1].endswith("\u2026")
    assert lines("one\ntwo\nthree", 1000, 2) == ["one", "two\u2026"]
    assert lines("one\n", 1000, 1) == ["one"]
    assert lines("", 100, 3) == [""]


@settings(max_examples=examples(60), deadline=None)
@given(w=st.integers(1, 40), h=st.integers(1, 40), radius=st.floats(0, 25), scale=st.sampled_from([1, 2]))
def test_a_rounded_shape_leaves_the_pixels_outside_its_corners_alone(w: int, h: int, radius: float, scale: int) -> None:
    raster = Raster(50, 50, (9, 9, 9))
    _draw._rounded(raster, (3, 4, 3 + w, 4 + h), radius * scale, (200, 100, 0), (1, 2, 3))
    colours = colours_of(raster, (0, 0, 50, 50))
    assert (1, 2, 3) not in colours  # the surface colour is only ever blended into edge pixels
    assert colours.get((200, 100, 0), 0) >= w * h - 4 * math.ceil(min(radius * scale, w / 2, h / 2)) ** 2
    r = min(radius * scale, w / 2, h / 2)
    if r >= 3:
        assert raster.pixel(3, 4) == (9, 9, 9)  # the corner pixel is wholly outside the circle
    assert colours_of(raster, (0, 0, 50, 4)) == {(9, 9, 9): 200}  # nothing above the box


def test_the_package_exports_what_it_lists() -> None:
    from mobster_drivers.devices import scripted

    assert {"ScreenRenderer", "render_screen", "DEFAULT_SCALE"} <= set(scripted.__all__)
    for name in scripted.__all__:
        assert getattr(scripted, name) is not None
    assert not hasattr(scripted, "render_png")
