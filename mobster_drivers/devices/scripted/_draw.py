"""Pictures of screens: a read of the accessibility tree drawn as an iPhone shows it.

The scripted phone's screenshots come from here, so a report of a run on it shows an app, not
boxes. Only the standard library is used (the scripted phone runs with the base install).

Rule 1: the picture is a function of the screen alone: the app in front, and per element its
        role, label, value, frame (rounded to whole points, as the read fingerprint rounds it),
        enabled, visible and selected flags and its place in the tree. The same screen gives the
        same bytes; :class:`ScreenRenderer` caches pictures by the read fingerprint, and the
        renderers of a process share the last 64 they drew (a new phone draws the same app).
Rule 2: the picture is the screen's size in points times ``scale`` (1 by default, so 402 x 874
        pixels for the default screen), 8-bit RGB PNG.
Rule 3: elements are drawn in tree order, so a child shows over its parent and a later sibling
        over an earlier one. What an element draws stays inside its frame (an icon's name may
        run 6 points past its sides); only an alert or a sheet reaches further: they dim the
        screen behind them. An element with ``visible: false`` is not drawn, nor is an element
        with an empty frame. Its children are judged by their own flag, as WDA reports them: a
        real tree holds rows that show inside a collection view that says it is not visible.
Rule 4: each role has a look: StaticText as text (the first text at the top of a screen as a large
        bold title), Button as a filled or tinted rounded button (the first large one filled), or
        as tinted text when small or in a bar or an alert, fields as rounded fields with their
        value or their label as a grey placeholder (bullets for a secure field: never its
        characters), Switch as a toggle from its value, Cell as a row with a separator and a
        chevron, Image as a picture glyph, bars, alerts, sheets and keyboards as on iOS. A
        disabled element is greyed. An element with children leaves its text to them. A role
        this module doesn't know shows its label as text.
Rule 5: the home screen (``com.apple.springboard``) is a wallpaper with an icon per button, in a
        colour taken from its identifier, under its label.
Rule 6: the status bar (9:41, signal, Wi-Fi, a full battery), the Dynamic Island on tall screens
        and the home indicator are chrome, drawn on every picture; they are not elements.
"""

from __future__ import annotations

import math
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import ClassVar

from mobster_core import Element, Screen
from mobster_core.protocols import HOME_SCREENS

from ._font import BOLD, REGULAR, SEMIBOLD, draw_text, layout, line_height
from ._raster import RGB, Raster

__all__ = ["DEFAULT_SCALE", "ScreenRenderer", "render_screen"]

#: Pixels per point of the pictures, unless told otherwise.
DEFAULT_SCALE = 1.0
_MIN_SCALE, _MAX_SCALE = 0.25, 4.0

# iOS light-mode system colours.
WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)
TINT: RGB = (0, 122, 255)  # systemBlue
TINTED_FILL: RGB = (222, 237, 255)  # systemBlue at 13% over white
GREEN: RGB = (52, 199, 89)
GREY: RGB = (142, 142, 147)  # systemGray: secondary text, placeholders
GREY3: RGB = (199, 199, 204)  # systemGray3: chevrons
GREY5: RGB = (229, 229, 234)  # systemGray5: disabled fills, image wells
GREY6: RGB = (242, 242, 247)  # systemGray6: text fields
DISABLED_TEXT: RGB = (174, 174, 178)
SEPARATOR: RGB = (198, 198, 200)
BAR: RGB = (249, 249, 249)
SWITCH_OFF: RGB = (233, 233, 235)
ALERT: RGB = (242, 242, 242)
KEYBOARD: RGB = (209, 212, 217)
HIGHLIGHT: RGB = (209, 209, 214)
#: Home-screen icon colours, picked by a checksum of the icon's identifier.
ICON_COLOURS: tuple[RGB, ...] = (
    (0, 122, 255),
    (52, 199, 89),
    (255, 149, 0),
    (255, 59, 48),
    (175, 82, 222),
    (48, 176, 199),
    (255, 45, 85),
    (88, 86, 214),
)
_WALLPAPER_TOP: RGB = (28, 52, 120)
_WALLPAPER_BOTTOM: RGB = (176, 92, 150)

# Roles that draw nothing themselves when they hold other elements.
_CONTAINERS = frozenset(
    {
        "Application",
        "Window",
        "Other",
        "Group",
        "ScrollView",
        "Table",
        "CollectionView",
        "LayoutArea",
        "LayoutItem",
        "WebView",
        "Any",
    }
)
_BARS = frozenset({"NavigationBar", "TabBar", "Toolbar", "StatusBar"})
_DIMS = {"Alert": 0.4, "Sheet": 0.25}  # how dark the screen behind them turns
_ON_VALUES = frozenset({"1", "true", "on", "yes"})


def render_screen(screen: Screen, *, scale: float = DEFAULT_SCALE) -> bytes:
    """A PNG picture of ``screen`` at ``scale`` pixels per point (not cached; see :class:`ScreenRenderer`)."""
    return _Painter(screen, _checked_scale(scale)).paint().png()


class ScreenRenderer:
    """Draws screens as PNG pictures and keeps the last ``cache_size`` of them (Rule 1).

    ``scale`` is pixels per point, from 0.25 to 4 (an iPhone's own screenshots are 3).
    """

    def __init__(self, *, scale: float = DEFAULT_SCALE, cache_size: int = 32) -> None:
        self.scale = _checked_scale(scale)
        self._cache_size = max(0, cache_size)
        self._cache: OrderedDict[tuple[str, tuple[int, int]], bytes] = OrderedDict()

    def size(self, screen: Screen) -> tuple[int, int]:
        """The picture's size in pixels for a screen: its points times the scale."""
        return _pixels(screen.size, self.scale)

    def png(self, screen: Screen) -> bytes:
        """The picture of a screen as PNG bytes, from the cache when the same screen was drawn lately."""
        key = (screen.fingerprint, screen.size)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            return found
        png = _drawn((key, self.scale), _Carried(screen)) if self._cache_size else self.raster(screen).png()
        if self._cache_size:
            self._cache[key] = png
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return png

    def raster(self, screen: Screen) -> Raster:
        """The picture of a screen as a fresh :class:`~._raster.Raster` (not cached)."""
        return _Painter(screen, self.scale).paint()


class _Carried:
    """A screen passed through :func:`_drawn`'s cache without being part of its key."""

    __slots__ = ("screen",)

    def __init__(self, screen: Screen) -> None:
        self.screen = screen

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Carried)

    def __hash__(self) -> int:
        return 0


@lru_cache(maxsize=64)
def _drawn(key: tuple[tuple[str, tuple[int, int]], float], carried: _Carried) -> bytes:
    """Rule 1 across renderers: a screen's picture by its fingerprint, size and scale (``key``).

    Every phone in a process shares these: a suite opens a new scripted phone per run, and its
    screens are the same app's screens again.
    """
    return _Painter(carried.screen, key[1]).paint().png()


def _checked_scale(scale: float) -> float:
    if not (isinstance(scale, int | float) and _MIN_SCALE <= scale <= _MAX_SCALE):
        raise ValueError(f"a screenshot scale is {_MIN_SCALE} to {_MAX_SCALE} pixels per point, got {scale!r}")
    return float(scale)


def _pixels(size: tuple[int, int], scale: float) -> tuple[int, int]:
    return (max(1, round(size[0] * scale)), max(1, round(size[1] * scale)))


# -- shapes --------------------------------------------------------------------------------------


def _mix(fg: RGB, bg: RGB, a: float) -> RGB:
    return (
        round(bg[0] + (fg[0] - bg[0]) * a),
        round(bg[1] + (fg[1] - bg[1]) * a),
        round(bg[2] + (fg[2] - bg[2]) * a),
    )


@lru_cache(maxsize=512)
def _corner(radius_q: int, fill: RGB, bg: RGB) -> tuple[tuple[int, bytes, bytes], ...]:
    """The top corners of a rounded box: per row, the pixels wholly outside, then the left and right pieces.

    A row of the top-left corner is ``ceil(r)`` pixels: ``skip`` wholly outside the circle (left
    as they are when drawn), then the rest, each edge pixel taking the share of it inside the
    circle (anti-aliasing, from the distance of its centre to the circle's centre). The right
    piece is its mirror, without the skipped pixels. ``radius_q`` is the radius in quarter pixels.
    """
    r = radius_q / 4
    n = math.ceil(r)
    rows = []
    for y in range(n):
        pixels: list[bytes] = []
        skip = 0
        for x in range(n):
            dx, dy = r - (x + 0.5), r - (y + 0.5)
            # Only a pixel left of and above the circle's centre is at the corner; others are full.
            cover = 1.0 if dx <= 0 or dy <= 0 else min(1.0, max(0.0, r - math.hypot(dx, dy) + 0.5))
            if cover == 0 and len(pixels) == skip:
                skip += 1
            pixels.append(bytes(_mix(fill, bg, cover)))
        kept = pixels[skip:]
        rows.append((skip, b"".join(kept), b"".join(reversed(kept))))
    return tuple(rows)


def _rounded(raster: Raster, box: tuple[int, int, int, int], radius: float, fill: RGB, bg: RGB) -> None:
    """Fill a box with rounded corners of ``radius`` pixels, edges blended into ``bg``.

    Pixels wholly outside the corners are left as they are.
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if w <= 0 or h <= 0:
        return
    quarters = round(max(0.0, min(radius, w / 2, h / 2)) * 4)  # corners are cached by quarter pixels
    n = math.ceil(quarters / 4)
    if n == 0:
        raster.fill(box, fill)
        return
    top = _cap(w, quarters, fill, bg)
    if h < 2 * n:  # an odd height with a radius of half of it: the corners meet in the middle
        rows = [*top[: h - h // 2], *top[: h // 2][::-1]]
    else:
        raster.fill((x0, y0 + n, x1, y1 - n), fill)
        rows = [*top, *([(0, b"")] * (h - 2 * n)), *top[::-1]]
    for k, (skip, row) in enumerate(rows):
        if row:
            raster.paste(x0 + skip, y0 + k, (row,))


@lru_cache(maxsize=1024)
def _cap(w: int, radius_q: int, fill: RGB, bg: RGB) -> tuple[tuple[int, bytes], ...]:
    """The top rows of a rounded box ``w`` pixels wide, down to where its corners end.

    Each row is ``(skip, pixels)``: it starts ``skip`` pixels in and is ``w - 2 * skip`` wide.
    """
    corner = _corner(radius_q, fill, bg)
    n = len(corner)
    out = []
    for skip, left, right in corner:
        if 2 * skip >= w:
            out.append((skip, b""))
        elif w >= 2 * n:
            out.append((skip, left + bytes(fill) * (w - 2 * n) + right))
        else:  # narrower than its two corners (an odd-width circle): the halves overlap
            keep = w - w // 2 - skip
            out.append((skip, left[: 3 * keep] + right[len(right) - 3 * (w // 2 - skip) :]))
    return tuple(out)


def _ring(raster: Raster, box: tuple[int, int, int, int], radius: float, *, line: RGB, fill: RGB, width: int) -> None:
    """A rounded box with a ``width``-pixel border: the border colour, then the fill inset."""
    x0, y0, x1, y1 = box
    bg = raster.pixel(min(max(0, x0), raster.width - 1), min(max(0, y0), raster.height - 1))
    _rounded(raster, box, radius, line, bg)
    _rounded(raster, (x0 + width, y0 + width, x1 - width, y1 - width), max(0.0, radius - width), fill, line)


# -- the tree --------------------------------------------------------------------------------------


class _Node:
    """An element with what drawing it needs to know about its place in the tree."""

    __slots__ = ("box", "element", "has_children", "inside", "parent", "surface")

    def __init__(self, element: Element, parent: _Node | None, inside: frozenset[str]) -> None:
        self.element = element
        self.box = (0, 0, 0, 0)  # its frame in pixels, set by the painter
        self.parent = parent
        self.inside = inside  # the roles of its ancestors
        self.has_children = False
        self.surface: RGB | None = None  # the colour its children sit on, when it paints one


def _tree(elements: tuple[Element, ...]) -> list[_Node]:
    """The elements with their parents, found from their paths (depth first, as a read gives them)."""
    nodes: list[_Node] = []
    by_path: dict[str, _Node] = {}
    for element in elements:
        parent_path = element.path.rsplit("/", 1)[0]
        parent = by_path.get(parent_path)
        inside = frozenset() if parent is None else parent.inside | {parent.element.role}
        node = _Node(element, parent, inside)
        if parent is not None:
            parent.has_children = True
        by_path[element.path] = node
        nodes.append(node)
    return nodes


# -- the painter -----------------------------------------------------------------------------------


_Draw = Callable[["_Painter", _Node, tuple[int, int, int, int], RGB], "RGB | None"]


class _Painter:
    """Draws one screen (Rules 3 to 6); ``paint()`` returns the raster."""

    def __init__(self, screen: Screen, scale: float) -> None:
        self.screen = screen
        self.scale = scale
        self.points = screen.size
        self.width, self.height = _pixels(screen.size, scale)
        self.home = screen.app in HOME_SCREENS
        self.raster = _base(self.width, self.height, scale, self.home).copy()
        self.background = WHITE
        self.prominent_done = False
        self.title: Element | None = None

    # -- units -----------------------------------------------------------------------------

    def pt(self, points: float) -> int:
        """Points to whole pixels."""
        return round(points * self.scale)

    def box(self, element: Element) -> tuple[int, int, int, int]:
        """An element's frame in pixels, through whole points (Rule 1)."""
        x, y, w, h = element.frame
        pw, ph = self.points
        left, top = round(x * pw), round(y * ph)
        right, bottom = round((x + w) * pw), round((y + h) * ph)
        s = self.scale
        return (round(left * s), round(top * s), round(right * s), round(bottom * s))

    def text(
        self,
        value: str,
        box: tuple[int, int, int, int],
        *,
        points: float,
        fg: RGB,
        bg: RGB,
        weight: int = REGULAR,
        align: str = "left",
        max_lines: int | None = None,
        shrink: bool = True,
    ) -> None:
        """Text in a box; the font shrinks (when ``shrink``) until a line fits the box's height."""
        if not value:
            return
        size = points * self.scale
        height = box[3] - box[1]
        if shrink and line_height(size) > height:
            size = size * height / line_height(size)
        if size < 3:  # under 3 pixels nothing would be legible; leave the box as it is
            return
        draw_text(self.raster, value, box, size=size, fg=fg, bg=bg, weight=weight, align=align, max_lines=max_lines)

    # -- the whole picture -----------------------------------------------------------------

    def paint(self) -> Raster:
        nodes = _tree(self.screen.elements)
        for node in nodes:
            node.box = self.box(node.element)
        if self.home:
            self.background = _wallpaper(0.5)
        else:
            self.title = self._find_title(nodes)
        for node in nodes:
            element = node.element
            box = node.box
            if not element.visible or box[2] <= box[0] or box[3] <= box[1]:
                continue
            dim = _DIMS.get(element.role)
            if dim is not None:  # an alert or a sheet dims everything drawn before it
                self.raster.blend((0, 0, self.width, self.height), BLACK, dim)
            surface = self._surface_of(node)
            clip = box
            if self.home:  # an icon's name may be a little wider than the icon
                clip = (box[0] - self.pt(6), box[1], box[2] + self.pt(6), box[3])
            with self.raster.clipped(clip):
                node.surface = self._draw(node, box, surface)
        _home_indicator(self.raster, self.scale, WHITE if self.home else BLACK)
        return self.raster

    def _surface_of(self, node: _Node) -> RGB:
        parent = node.parent
        while parent is not None:
            if parent.surface is not None:
                return parent.surface
            parent = parent.parent
        if self.home:
            y = (node.box[1] + node.box[3]) / 2
            return _wallpaper(y / self.height)
        return self.background

    def _drawn(self, node: _Node) -> bool:
        """Whether an element covers any pixel."""
        x0, y0, x1, y1 = node.box
        return x1 > max(0, x0) and y1 > max(0, y0) and x0 < self.width and y0 < self.height

    def _find_title(self, nodes: list[_Node]) -> Element | None:
        """The first text of the screen when nothing stands above it: drawn as a large title."""
        top_level = [
            n.element
            for n in nodes
            if n.parent is None or n.parent.element.role in ("Application", "Window")
            if n.element.visible and n.element.role not in _BARS and self._drawn(n)
        ]
        if not top_level:
            return None
        first = min(top_level, key=lambda e: e.frame[1])
        return first if first.role == "StaticText" and first is top_level[0] else None

    # -- roles -----------------------------------------------------------------------------

    def _draw(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        role = element.role
        if self.home and role in ("Button", "Icon"):
            self._icon(element, box, surface)
            return None
        draw = self._ROLES.get(role)
        if draw is not None:
            return draw(self, node, box, surface)
        if role in _CONTAINERS and node.has_children:
            return None
        if not node.has_children:
            self._plain_text(element, box, surface)
        return None

    def _plain_text(self, element: Element, box: tuple[int, int, int, int], surface: RGB) -> None:
        fg = _text_colour(surface, enabled=element.enabled)
        self.text(element.label or element.value, box, points=17, fg=fg, bg=surface)

    def _static_text(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        value = element.label or element.value
        inside = node.inside
        fg = _text_colour(surface, enabled=element.enabled)
        if "Alert" in inside:
            first = self._first_text(node)
            self.text(
                value,
                box,
                points=17 if first else 13,
                fg=fg,
                bg=surface,
                weight=SEMIBOLD if first else REGULAR,
                align="center",
            )
        elif "NavigationBar" in inside:
            self.text(value, box, points=17, fg=fg, bg=surface, weight=SEMIBOLD, align="center", max_lines=1)
        elif element is self.title:
            self._title(value, box, fg, surface)
        elif "Cell" in inside or "Button" in inside:
            self.text(value, box, points=17, fg=fg, bg=surface, max_lines=1)
        else:
            self.text(value, box, points=17, fg=fg, bg=surface)
        return None

    def _first_text(self, node: _Node) -> bool:
        """Whether this is the first text of its alert (its title)."""
        alert = node.parent
        while alert is not None and alert.element.role != "Alert":
            alert = alert.parent
        if alert is None:
            return False
        for other in self._texts_in(alert):
            return other is node.element
        return False

    def _texts_in(self, container: _Node) -> list[Element]:
        prefix = container.element.path + "/"
        return [e for e in self.screen.elements if e.path.startswith(prefix) and e.role == "StaticText" and e.visible]

    def _title(self, value: str, box: tuple[int, int, int, int], fg: RGB, bg: RGB) -> None:
        """A large bold title: the largest of 34, 28 and 22 points that fits on one line."""
        width, height = box[2] - box[0], box[3] - box[1]
        for points in (34, 28, 22):
            size = points * self.scale
            if line_height(size) > height:
                continue
            if len(layout(value, size, BOLD, width, 2)) == 1:  # a title that would wrap is too big
                self.text(value, box, points=points, fg=fg, bg=bg, weight=BOLD, max_lines=1)
                return
        self.text(value, box, points=22, fg=fg, bg=bg, weight=BOLD)

    def _button(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        inside = node.inside
        label = "" if node.has_children else element.label or element.value
        if "TabBar" in inside:
            self._tab(element, box, surface)
            return None
        if "Keyboard" in inside:
            return self._key(node, box, surface)
        if "Alert" in inside:
            self.raster.fill((box[0], box[1], box[2], box[1] + max(1, self.pt(0.5))), SEPARATOR)
            fg = TINT if element.enabled else DISABLED_TEXT
            self.text(label, box, points=17, fg=fg, bg=surface, align="center", max_lines=1)
            return None
        w_pt, h_pt = (box[2] - box[0]) / self.scale, (box[3] - box[1]) / self.scale
        small = h_pt < 30 or w_pt < 44
        if small or inside & {"NavigationBar", "Toolbar", "Cell"}:
            fg = TINT if element.enabled else DISABLED_TEXT
            align = "center" if small or "Toolbar" in inside else "left"
            if "NavigationBar" in inside and box[0] > self.width / 2:
                align = "right"
            self.text(label, box, points=17, fg=fg, bg=surface, align=align, max_lines=1)
            return None
        if not element.enabled:
            fill, fg = GREY5, DISABLED_TEXT
        elif element.selected or not self.prominent_done:
            fill, fg = TINT, WHITE
        else:
            fill, fg = TINTED_FILL, TINT
        if element.enabled:
            self.prominent_done = True
        _rounded(self.raster, box, min(self.pt(14), (box[3] - box[1]) / 2), fill, surface)
        inset = self.pt(12)
        self.text(
            label,
            (box[0] + inset, box[1], box[2] - inset, box[3]),
            points=17,
            fg=fg,
            bg=fill,
            weight=SEMIBOLD,
            align="center",
            max_lines=1,
        )
        return fill

    def _field(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        role = element.role
        fill = GREY6 if element.enabled else GREY5
        height = box[3] - box[1]
        radius = height / 2 if role == "SearchField" and height <= self.pt(44) else self.pt(10)
        _rounded(self.raster, box, min(radius, height / 2), fill, surface)
        inset = self.pt(12)
        left = box[0] + inset
        if role == "SearchField":
            left = self._magnifier(box, fill) + self.pt(6)
        value = element.value
        if value and role == "SecureTextField":
            # A secure field shows one bullet per character, never the characters (the phone and
            # WDA already send bullets; a script may not).
            value = "\u2022" * min(len(value), 256)
        if value:
            text, fg = value, (BLACK if element.enabled else DISABLED_TEXT)
        else:
            text, fg = element.label or ("Search" if role == "SearchField" else ""), GREY
        inner = (left, box[1], box[2] - inset, box[3])
        multiline = role == "TextView" and height > 2.5 * line_height(17 * self.scale)
        if multiline:
            pad = self.pt(8)
            lines = max(1, (height - 2 * pad) // line_height(17 * self.scale))
            top_box = (left, box[1] + pad, box[2] - inset, box[1] + pad + lines * line_height(17 * self.scale))
            self.text(text, top_box, points=17, fg=fg, bg=fill, max_lines=lines)
        else:
            self.text(text, inner, points=17, fg=fg, bg=fill, max_lines=1)
        return fill

    def _magnifier(self, box: tuple[int, int, int, int], fill: RGB) -> int:
        """A search glass at the left of a field; returns the x where the text starts."""
        height = box[3] - box[1]
        d = max(4, min(self.pt(13), int(height * 0.45)))
        x = box[0] + self.pt(10)
        y = box[1] + (height - d) // 2 - max(1, d // 8)
        stroke = max(1, round(d / 7))
        _ring(self.raster, (x, y, x + d, y + d), d / 2, line=GREY, fill=fill, width=stroke)
        # The handle: a short diagonal from the ring's lower right.
        start = x + d - max(1, d // 5)
        for k in range(max(2, d // 3)):
            self.raster.fill((start + k, y + d - d // 5 + k, start + k + stroke + 1, y + d - d // 5 + k + stroke), GREY)
        return x + d + max(1, d // 3)

    def _switch(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        on = element.value.strip().lower() in _ON_VALUES
        w, h = self.pt(51), self.pt(31)
        bw, bh = box[2] - box[0], box[3] - box[1]
        if h > bh:
            w, h = round(bh * 51 / 31), bh
        if node.has_children:  # a SwiftUI Toggle: a row around its texts and the switch itself
            return None
        if bw >= w + self.pt(60):
            x = box[2] - w
            label_box = (box[0], box[1], x - self.pt(8), box[3])
            self.text(
                element.label, label_box, points=17, fg=_text_colour(surface, enabled=element.enabled), bg=surface
            )
        else:
            w = min(w, bw)
            x = box[0] + (bw - w) // 2
        y = box[1] + (bh - h) // 2
        track = GREEN if on else SWITCH_OFF
        if not element.enabled:
            track = _mix(track, surface, 0.45)
        _rounded(self.raster, (x, y, x + w, y + h), h / 2, track, surface)
        pad = max(1, self.pt(2))
        d = h - 2 * pad
        kx = x + w - pad - d if on else x + pad
        _ring(
            self.raster, (kx, y + pad, kx + d, y + pad + d), d / 2, line=_mix(BLACK, track, 0.12), fill=WHITE, width=1
        )
        return None

    def _cell(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        fill = surface
        if element.selected:
            fill = HIGHLIGHT
            self.raster.fill(box, fill)
        # Content sits 16 points in from the screen's edges: less inside a cell already inset.
        inset = max(self.pt(4), self.pt(16) - box[0])
        right = box[2] - max(self.pt(4), self.pt(16) - (self.width - box[2]))
        self.raster.fill((box[0] + inset, box[3] - max(1, self.pt(0.5)), box[2], box[3]), SEPARATOR)
        chevron_w = self.pt(12)
        self.text("\u203a", (right - chevron_w, box[1], right, box[3]), points=22, fg=GREY3, bg=fill, align="right")
        if node.has_children:
            return fill
        text_right = right - chevron_w - self.pt(8)
        enabled = element.enabled
        if element.value and element.label:
            value_w = (text_right - box[0] - inset) // 2
            self.text(
                element.value,
                (text_right - value_w, box[1], text_right, box[3]),
                points=17,
                fg=GREY,
                bg=fill,
                align="right",
                max_lines=1,
            )
            text_right -= value_w + self.pt(8)
        fg = BLACK if enabled else DISABLED_TEXT
        self.text(
            element.label or element.value,
            (box[0] + inset, box[1], text_right, box[3]),
            points=17,
            fg=fg,
            bg=fill,
            max_lines=1,
        )
        return fill

    def _image(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        del node
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        _rounded(self.raster, box, min(self.pt(10), w / 4, h / 4), GREY5, surface)
        # A picture glyph: a sun and two mountains, in the middle of the well.
        g = int(min(w, h) * 0.55)
        if g < 6:
            return GREY5
        gx, gy = x0 + (w - g) // 2, y0 + (h - g) // 2
        sun = max(2, g // 4)
        _rounded(
            self.raster, (gx + g - sun - g // 8, gy + g // 8, gx + g - g // 8, gy + g // 8 + sun), sun / 2, GREY3, GREY5
        )
        base = gy + g - g // 8
        peaks = ((gx + g // 3, gy + g // 3, g // 2), (gx + 2 * g // 3, gy + g // 2, g // 3))
        for px, py, half in peaks:
            for y in range(py, base):
                spread = (y - py) * half // max(1, base - py)
                self.raster.hspan(max(gx, px - spread), min(gx + g, px + spread + 1), y, GREY3)
        return GREY5

    def _link(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        fg = TINT if element.enabled else DISABLED_TEXT
        self.text(element.label or element.value, box, points=17, fg=fg, bg=surface)
        return None

    def _bar(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        del surface
        element = node.element
        self.raster.fill(box, BAR)
        line = max(1, self.pt(0.5))
        if element.role == "NavigationBar":
            self.raster.fill((box[0], box[3] - line, box[2], box[3]), SEPARATOR)
            if not node.has_children:
                self.text(element.label, box, points=17, fg=BLACK, bg=BAR, weight=SEMIBOLD, align="center", max_lines=1)
        else:
            self.raster.fill((box[0], box[1], box[2], box[1] + line), SEPARATOR)
            if not node.has_children:
                self.text(element.label, box, points=13, fg=GREY, bg=BAR, align="center", max_lines=1)
        return BAR

    def _tab(self, element: Element, box: tuple[int, int, int, int], surface: RGB) -> None:
        fg = TINT if element.selected else (GREY if element.enabled else DISABLED_TEXT)
        w, h = box[2] - box[0], box[3] - box[1]
        d = min(self.pt(24), int(h * 0.5), w)
        x, y = box[0] + (w - d) // 2, box[1] + max(1, (h - d - line_height(10 * self.scale)) // 2)
        _rounded(self.raster, (x, y, x + d, y + d), d / 4, fg, surface)
        label = element.label or element.value
        self.text(label, (box[0], y + d, box[2], box[3]), points=10, fg=fg, bg=surface, align="center", max_lines=1)

    def _alert(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        del surface
        under = self.raster.pixel(min(max(box[0], 0), self.width - 1), min(max(box[1], 0), self.height - 1))
        _rounded(self.raster, box, self.pt(14), ALERT, under)
        element = node.element
        if not self._texts_in(node) and element.label:
            pad = self.pt(16)
            self.text(
                element.label,
                (box[0] + pad, box[1] + pad, box[2] - pad, box[1] + pad + line_height(17 * self.scale) * 2),
                points=17,
                fg=BLACK,
                bg=ALERT,
                weight=SEMIBOLD,
                align="center",
                shrink=False,
            )
        return ALERT

    def _sheet(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        del node, surface
        under = self.raster.pixel(min(max(box[0], 0), self.width - 1), min(max(box[1], 0), self.height - 1))
        radius = self.pt(12)
        # Only the top corners are round: the shape goes on past the sheet's bottom, clipped away.
        _rounded(self.raster, (box[0], box[1], box[2], box[3] + 2 * radius), radius, WHITE, under)
        gw, gh = self.pt(36), max(2, self.pt(5))
        gx = (box[0] + box[2] - gw) // 2
        _rounded(self.raster, (gx, box[1] + self.pt(5), gx + gw, box[1] + self.pt(5) + gh), gh / 2, GREY3, WHITE)
        return WHITE

    def _keyboard(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        del node, surface
        self.raster.fill(box, KEYBOARD)
        return KEYBOARD

    def _key(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        gap = max(1, self.pt(3))
        inner = (box[0] + gap, box[1] + gap, box[2] - gap, box[3] - gap)
        _rounded(self.raster, inner, self.pt(5), WHITE, surface)
        self.text(element.label, inner, points=20, fg=BLACK, bg=WHITE, align="center", max_lines=1)
        return WHITE

    def _progress(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        element = node.element
        fraction = _fraction(element.value)
        h = max(2, self.pt(4))
        y = (box[1] + box[3] - h) // 2
        _rounded(self.raster, (box[0], y, box[2], y + h), h / 2, GREY5, surface)
        filled = box[0] + round((box[2] - box[0]) * fraction)
        if filled > box[0]:
            _rounded(self.raster, (box[0], y, filled, y + h), h / 2, TINT, GREY5)
        if element.role == "Slider":
            d = min(self.pt(28), box[3] - box[1])
            kx = min(max(box[0], filled - d // 2), box[2] - d)
            ky = (box[1] + box[3] - d) // 2
            _ring(self.raster, (kx, ky, kx + d, ky + d), d / 2, line=_mix(BLACK, surface, 0.15), fill=WHITE, width=1)
        return None

    def _segmented(self, node: _Node, box: tuple[int, int, int, int], surface: RGB) -> RGB | None:
        del node
        fill = (238, 238, 239)
        _rounded(self.raster, box, self.pt(9), fill, surface)
        return fill

    def _icon(self, element: Element, box: tuple[int, int, int, int], surface: RGB) -> None:
        """An app icon on the home screen (Rule 5): a rounded square and its name under it."""
        w, h = box[2] - box[0], box[3] - box[1]
        label_h = line_height(12 * self.scale)
        side = max(4, min(w, h - label_h - self.pt(4), self.pt(64)))
        x = box[0] + (w - side) // 2
        y = box[1] + max(0, (h - side - label_h - self.pt(4)) // 2)
        key = (element.identifier or element.label).encode("utf-8", "surrogatepass")
        colour = ICON_COLOURS[zlib.crc32(key) % len(ICON_COLOURS)]
        if not element.enabled:
            colour = _mix(colour, (128, 128, 128), 0.6)
        _rounded(self.raster, (x, y, x + side, y + side), side * 0.225, colour, surface)
        initial = next((c for c in element.label if c.isalnum()), "")
        if initial:
            self.text(
                initial.upper(),
                (x, y, x + side, y + side),
                points=side * 0.55 / self.scale,
                fg=WHITE,
                bg=colour,
                weight=BOLD,
                align="center",
                max_lines=1,
            )
        label_box = (box[0] - self.pt(6), y + side + self.pt(4), box[2] + self.pt(6), y + side + self.pt(4) + label_h)
        self.text(element.label, label_box, points=12, fg=WHITE, bg=surface, align="center", max_lines=1)

    #: How each role is drawn (a method of the painter), looked up by :meth:`_draw`.
    _ROLES: ClassVar[Mapping[str, _Draw]] = {
        "StaticText": _static_text,
        "Button": _button,
        "TextField": _field,
        "SecureTextField": _field,
        "SearchField": _field,
        "TextView": _field,
        "Switch": _switch,
        "Toggle": _switch,
        "Cell": _cell,
        "MenuItem": _cell,
        "Image": _image,
        "Link": _link,
        "NavigationBar": _bar,
        "TabBar": _bar,
        "Toolbar": _bar,
        "Alert": _alert,
        "Sheet": _sheet,
        "Keyboard": _keyboard,
        "Key": _key,
        "ProgressIndicator": _progress,
        "Slider": _progress,
        "SegmentedControl": _segmented,
    }


def _text_colour(surface: RGB, *, enabled: bool) -> RGB:
    """Black on light surfaces, white on dark ones; grey when disabled."""
    dark = surface[0] * 0.299 + surface[1] * 0.587 + surface[2] * 0.114 < 128
    if not enabled:
        return DISABLED_TEXT if not dark else (150, 150, 155)
    return WHITE if dark else BLACK


def _fraction(value: str) -> float:
    """A progress value as 0..1: ``"40%"``, ``"0.4"`` or ``"40"`` (percent when above 1)."""
    text = value.strip().rstrip("%").strip()
    try:
        number = float(text)
    except ValueError:
        return 0.0
    if not math.isfinite(number):
        return 0.0
    if value.strip().endswith("%") or number > 1:
        number /= 100
    return min(1.0, max(0.0, number))


# -- chrome ------------------------------------------------------------------------------------------


def _wallpaper(t: float) -> RGB:
    """The home screen's wallpaper colour ``t`` of the way down (0 top, 1 bottom)."""
    return _mix(_WALLPAPER_BOTTOM, _WALLPAPER_TOP, min(1.0, max(0.0, t)))


@lru_cache(maxsize=8)
def _base(width: int, height: int, scale: float, home: bool) -> Raster:
    """The background and the status bar (Rule 6), drawn once per size and kept."""
    raster = Raster(width, height, WHITE)
    if home:
        band = max(1, height // 64)  # the gradient in bands: 64 fills instead of one per row
        for y in range(0, height, band):
            raster.fill((0, y, width, y + band), _wallpaper((y + band / 2) / height))
    fg = WHITE if home else BLACK

    def at(y_px: int) -> RGB:
        return raster.pixel(0, min(height - 1, y_px))

    def pt(points: float) -> int:
        return round(points * scale)

    tall = height / width > 2.0
    bar_h = pt(54) if tall else pt(20)
    mid = bar_h // 2 + (pt(3) if tall else 0)
    if tall:  # the Dynamic Island
        iw, ih = pt(125), pt(37)
        ix, iy = (width - iw) // 2, pt(11)
        _rounded(raster, (ix, iy, ix + iw, iy + ih), ih / 2, BLACK, at(iy))
    # The time, centred in the left ear.
    ear = (width - pt(125)) // 2 if tall else width // 3
    size = 17 * scale
    lh = line_height(size)
    draw_text(
        raster,
        "9:41",
        (0, mid - lh // 2, ear, mid - lh // 2 + lh),
        size=size,
        fg=fg,
        bg=at(mid),
        weight=SEMIBOLD,
        align="center",
    )
    # Signal, Wi-Fi and battery, centred in the right ear.
    group_w = pt(18 + 6 + 17 + 6 + 27)
    x = width - ear + (ear - group_w) // 2 if tall else width - group_w - pt(8)
    bottom = mid + pt(6)
    for k in range(4):
        bh = pt(4 + 2.6 * k)
        bx = x + k * pt(4.8)
        _rounded(raster, (bx, bottom - bh, bx + pt(3.2), bottom), pt(1), fg, at(bottom - bh))
    x += pt(18 + 6)
    _wifi(raster, x, bottom, width=pt(17), fg=fg, bg=at(bottom - pt(6)))
    x += pt(17 + 6)
    bw, bh = pt(25), pt(12)
    by = mid - bh // 2
    _ring(raster, (x, by, x + bw, by + bh), pt(4), line=_mix(fg, at(by), 0.4), fill=at(by), width=max(1, pt(1)))
    inset = max(2, pt(2))
    _rounded(raster, (x + inset, by + inset, x + bw - inset, by + bh - inset), pt(2.5), fg, at(by))
    _rounded(raster, (x + bw + pt(1), mid - pt(2), x + bw + pt(2.5), mid + pt(2)), pt(1), _mix(fg, at(by), 0.4), at(by))
    return raster


def _wifi(raster: Raster, x: int, bottom: int, *, width: int, fg: RGB, bg: RGB) -> None:
    """Three arcs and a dot in a fan opening upwards, ``width`` pixels wide, anti-aliased."""
    height = max(3, round(width * 0.72))
    cx, cy = width / 2, height - 0.5  # the fan's point, at the bottom middle
    outer = height - 0.5
    bands = ((0.0, outer * 0.3), (outer * 0.44, outer * 0.64), (outer * 0.78, outer))
    for y in range(height):
        row = []
        for xx in range(width):
            dx, dy = xx + 0.5 - cx, cy - (y + 0.5)
            r = math.hypot(dx, dy)
            inside_angle = dy > 0 and abs(dx) <= dy * 1.05
            cover = 0.0
            if inside_angle:
                for lo, hi in bands:
                    cover = max(cover, min(1.0, max(0.0, min(r - lo + 0.5, hi - r + 0.5))))
            row.append(bytes(_mix(fg, bg, cover)))
        raster.paste(x, bottom - height + y, [b"".join(row)])


def _home_indicator(raster: Raster, scale: float, colour: RGB) -> None:
    w, h = round(134 * scale), max(2, round(5 * scale))
    x, y = (raster.width - w) // 2, raster.height - round(8 * scale) - h
    if raster.height / raster.width <= 2.0 or y < 0:
        return  # phones with a home button have no indicator
    # Drawn over whatever the app shows there, so its rounded ends blend with the actual pixels.
    r = h / 2
    for row in range(h):
        dy = abs(row + 0.5 - r)
        for col in range(math.ceil(r)):
            d = math.hypot(max(0.0, r - (col + 0.5)), dy)
            cover = min(1.0, max(0.0, r - d + 0.5))
            raster.blend_pixel(x + col, y + row, colour, cover)
            raster.blend_pixel(x + w - 1 - col, y + row, colour, cover)
        raster.hspan(x + math.ceil(r), x + w - math.ceil(r), y + row, colour)
