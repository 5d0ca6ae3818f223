"""The scripted phone's font: a bitmap font drawn as data, rasterized once per size and cached.

Nothing here needs an imaging library or a font file: the glyphs below were designed for this
project on a small grid, and are turned into anti-aliased pixels by area coverage.

Rule 1: a glyph is drawn on a grid of units: 7 units of capital height above the baseline, 2 of
        descender below it, 3 above the capitals for accents, at most 7 wide. One em is 11 units:
        at a font size of S pixels a unit is S / 11 pixels, and a line (12 units) is 1.09 S
        pixels high. Text is then about as wide as the system font's at the same size, so
        labels fit frames sized for it.
Rule 2: the characters drawn: printable ASCII, the Latin-1 supplement, the typography apps use
        (curly quotes, dashes, the ellipsis, bullets, the euro, arrows, a check mark), and
        letters with accents, composed from a base letter and its marks (Unicode canonical
        decomposition), so Latin letters outside Latin-1 (č, ő, ł, ș) draw too.
        Control and format characters (bidi marks, zero-width joiners, variation selectors)
        draw nothing, as on a phone. Anything else (emoji, CJK, Greek, Cyrillic)
        draws the fallback glyph, a hollow box, so a picture shows that text was there.
Rule 3: text runs left to right as stored: no bidirectional reordering, no shaping, no kerning.
        A line break in a label breaks the line; a tab is a space.
Rule 4: a glyph is smoothed (two passes of Scale2x on its grid), emboldened for the heavier
        weights, and each pixel takes the share of the glyph's area it covers (anti-aliasing).
        That work is done once per character, size and weight, and cached with a bound.
Rule 5: layout is bounded by the box it fills: a label of any length costs at most what fits.
"""

from __future__ import annotations

import math
import unicodedata
from functools import lru_cache

from ._raster import RGB, Raster

__all__ = ["BOLD", "REGULAR", "SEMIBOLD", "Strip", "draw_text", "layout", "line_height", "strip", "text_width"]

#: Weights: how many quarter units a stroke is thickened by.
REGULAR, SEMIBOLD, BOLD = 0, 1, 2

_ELLIPSIS = "\u2026"
_FALLBACK = "\u25a1"
_TOP = 3  # grid rows above the capitals, for accents
_ROWS = 12  # 3 accent rows, 7 capital rows, 2 descender rows
_SPACE_UNITS = 3
_EM = 11  # grid units per em
_SUB = 4  # smoothing: each unit becomes 4 x 4 sub-pixels

# The glyphs: blocks of a header line (each character at the start of its 8-column field) and
# 9 rows (7 of capital height, 2 of descender), a glyph in each 7-column field. "#" is ink.
_SHEET = r"""
!       "       #       $       %       &       '       (       )       *
#...... #.#.... .#.#... ..#.... ##..... .##.... #...... ..#.... #...... .......
#...... #.#.... .#.#... .####.. ##..#.. #..#... #...... .#..... .#..... ..#....
#...... ....... #####.. #.#.... ...#... #.#.... ....... #...... ..#.... #.#.#..
#...... ....... .#.#... .###... ..#.... .#..... ....... #...... ..#.... .###...
#...... ....... #####.. ..#.#.. .#..... #.#.#.. ....... #...... ..#.... #.#.#..
....... ....... .#.#... ####... #..##.. #..#... ....... .#..... .#..... ..#....
#...... ....... .#.#... ..#.... ...##.. .##.#.. ....... ..#.... #...... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
+       ,       -       .       /       0       1       2       3       4
....... ....... ....... ....... ....#.. .###... ..#.... .###... .###... ...#...
..#.... ....... ....... ....... ....#.. #...#.. .##.... #...#.. #...#.. ..##...
..#.... ....... ....... ....... ...#... #..##.. #.#.... ....#.. ....#.. .#.#...
#####.. ....... ####... ....... ..#.... #.#.#.. ..#.... ...#... ..##... #..#...
..#.... ....... ....... ....... .#..... ##..#.. ..#.... ..#.... ....#.. #####..
..#.... .#..... ....... ....... #...... #...#.. ..#.... .#..... #...#.. ...#...
....... .#..... ....... #...... #...... .###... #####.. #####.. .###... ...#...
....... #...... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
5       6       7       8       9       :       ;       <       =       >
#####.. ..##... #####.. .###... .###... ....... ....... ...#... ....... #......
#...... .#..... ....#.. #...#.. #...#.. ....... ....... ..#.... ....... .#.....
####... #...... ...#... #...#.. #...#.. #...... .#..... .#..... #####.. ..#....
....#.. ####... ..#.... .###... .####.. ....... ....... #...... ....... ...#...
....#.. #...#.. .#..... #...#.. ....#.. ....... ....... .#..... #####.. ..#....
#...#.. #...#.. .#..... #...#.. ...#... ....... ....... ..#.... ....... .#.....
.###... .###... .#..... .###... .##.... #...... .#..... ...#... ....... #......
....... ....... ....... ....... ....... ....... .#..... ....... ....... .......
....... ....... ....... ....... ....... ....... #...... ....... ....... .......
?       @       A       B       C       D       E       F       G       H
.###... .###... ..#.... ####... .###... ####... #####.. #####.. .###... #...#..
#...#.. #...#.. .#.#... #...#.. #...#.. #...#.. #...... #...... #...#.. #...#..
....#.. #.###.. #...#.. #...#.. #...... #...#.. #...... #...... #...... #...#..
...#... #.#.#.. #...#.. ####... #...... #...#.. ####... ####... #.###.. #####..
..#.... #.###.. #####.. #...#.. #...... #...#.. #...... #...... #...#.. #...#..
....... #...... #...#.. #...#.. #...#.. #...#.. #...... #...... #...#.. #...#..
..#.... .###... #...#.. ####... .###... ####... #####.. #...... .####.. #...#..
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
I       J       K       L       M       N       O       P       Q       R
###.... ..###.. #...#.. #...... #...#.. #...#.. .###... ####... .###... ####...
.#..... ...#... #..#... #...... ##.##.. #...#.. #...#.. #...#.. #...#.. #...#..
.#..... ...#... #.#.... #...... #.#.#.. ##..#.. #...#.. #...#.. #...#.. #...#..
.#..... ...#... ##..... #...... #.#.#.. #.#.#.. #...#.. ####... #...#.. ####...
.#..... ...#... #.#.... #...... #...#.. #..##.. #...#.. #...... #.#.#.. #.#....
.#..... #..#... #..#... #...... #...#.. #...#.. #...#.. #...... #..#... #..#...
###.... .##.... #...#.. #####.. #...#.. #...#.. .###... #...... .##.#.. #...#..
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
S       T       U       V       W       X       Y       Z       [       \
.###... #####.. #...#.. #...#.. #...#.. #...#.. #...#.. #####.. ###.... #......
#...#.. ..#.... #...#.. #...#.. #...#.. #...#.. #...#.. ....#.. #...... #......
#...... ..#.... #...#.. #...#.. #...#.. .#.#... .#.#... ...#... #...... .#.....
.###... ..#.... #...#.. #...#.. #.#.#.. ..#.... ..#.... ..#.... #...... ..#....
....#.. ..#.... #...#.. #...#.. #.#.#.. .#.#... ..#.... .#..... #...... ...#...
#...#.. ..#.... #...#.. .#.#... #.#.#.. #...#.. ..#.... #...... #...... ....#..
.###... ..#.... .###... ..#.... .#.#... #...#.. ..#.... #####.. ###.... ....#..
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
]       ^       _       `       a       b       c       d       e       f
###.... ..#.... ....... #...... ....... #...... ....... ....#.. ....... ..##...
..#.... .#.#... ....... .#..... ....... #...... ....... ....#.. ....... .#.....
..#.... #...#.. ....... ....... .###... ####... .###... .####.. .###... ####...
..#.... ....... ....... ....... ....#.. #...#.. #...... #...#.. #...#.. .#.....
..#.... ....... ....... ....... .####.. #...#.. #...... #...#.. #####.. .#.....
..#.... ....... ....... ....... #...#.. #...#.. #...... #...#.. #...... .#.....
###.... ....... ....... ....... .####.. ####... .###... .####.. .###... .#.....
....... ....... #####.. ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
g       h       i       j       k       l       m       n       o       p
....... #...... #...... ..#.... #...... #...... ....... ....... ....... .......
....... #...... ....... ....... #...... #...... ....... ....... ....... .......
.####.. ####... #...... ..#.... #..#... #...... ##.#... ####... .###... ####...
#...#.. #...#.. #...... ..#.... #.#.... #...... #.#.#.. #...#.. #...#.. #...#..
#...#.. #...#.. #...... ..#.... ##..... #...... #.#.#.. #...#.. #...#.. #...#..
#...#.. #...#.. #...... ..#.... #.#.... #...... #.#.#.. #...#.. #...#.. #...#..
.####.. #...#.. #...... ..#.... #..#... #...... #.#.#.. #...#.. .###... ####...
....#.. ....... ....... ..#.... ....... ....... ....... ....... ....... #......
.###... ....... ....... ##..... ....... ....... ....... ....... ....... #......
q       r       s       t       u       v       w       x       y       z
....... ....... ....... .#..... ....... ....... ....... ....... ....... .......
....... ....... ....... .#..... ....... ....... ....... ....... ....... .......
.####.. #.##... .####.. ####... #...#.. #...#.. #...#.. #...#.. #...#.. #####..
#...#.. ##..... #...... .#..... #...#.. #...#.. #...#.. .#.#... #...#.. ...#...
#...#.. #...... .###... .#..... #...#.. #...#.. #.#.#.. ..#.... #...#.. ..#....
#...#.. #...... ....#.. .#..... #...#.. .#.#... #.#.#.. .#.#... #...#.. .#.....
.####.. #...... ####... ..##... .####.. ..#.... .#.#... #...#.. .####.. #####..
....#.. ....... ....... ....... ....... ....... ....... ....... ....#.. .......
....#.. ....... ....... ....... ....... ....... ....... ....... .###... .......
{       |       }       ~       ¡       ¢       £       ¤       ¥       ¦
..##... #...... ##..... ....... #...... ....... ..##... ....... #...#.. #......
.#..... #...... ..#.... ....... ....... ..#.... .#..#.. #...#.. .#.#... #......
.#..... #...... ..#.... ....... #...... .####.. .#..... .###... ..#.... #......
#...... #...... ...#... .##.#.. #...... #.#.... ###.... .#.#... #####.. .......
.#..... #...... ..#.... #..#... #...... #.#.... .#..... .###... ..#.... #......
.#..... #...... ..#.... ....... #...... .####.. .#..#.. #...#.. #####.. #......
..##... #...... ##..... ....... #...... ..#.... #.##... ....... ..#.... #......
....... #...... ....... ....... ....... ....... ....... ....... ....... .......
....... #...... ....... ....... ....... ....... ....... ....... ....... .......
§       ¨       ©       ª       «       ¬       ®       ¯       °       ±
.###... #.#.... .#####. .##.... ....... ....... .#####. ####... .##.... ..#....
#...... ....... #.....# ...#... ....... ....... #.....# ....... #..#... ..#....
.##.... ....... #..##.# .###... ..#.#.. ....... #.##..# ....... #..#... #####..
#..#... ....... #.#...# #..#... .#.#... #####.. #.#.#.# ....... .##.... ..#....
.##.... ....... #..##.# .###... #.#.... ....#.. #.##..# ....... ....... ..#....
...#... ....... #.....# ....... .#.#... ....#.. #.#.#.# ....... ....... .......
###.... ....... .#####. ....... ..#.#.. ....... .#####. ....... ....... #####..
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
²       ³       ´       µ       ¶       ·       ¸       ¹       º       »
##..... ##..... .#..... ....... .####.. ....... ....... .#..... .##.... .......
..#.... .##.... #...... ....... ###.#.. ....... ....... ##..... #..#... .......
.#..... ..#.... ....... #...#.. ###.#.. ....... ....... .#..... #..#... #.#....
###.... ##..... ....... #...#.. .##.#.. #...... ....... ###.... .##.... .#.#...
....... ....... ....... #...#.. ..#.#.. ....... ....... ....... ....... ..#.#..
....... ....... ....... ##..#.. ..#.#.. ....... ....... ....... ....... .#.#...
....... ....... ....... #.##... ..#.#.. ....... ....... ....... ....... #.#....
....... ....... ....... #...... ....... ....... .#..... ....... ....... .......
....... ....... ....... #...... ....... ....... #...... ....... ....... .......
¼       ½       ¾       ¿       ×       ÷       ß       Æ       æ       Ø
#.....# #.....# ##....# ..#.... ....... ....... .##.... .###### ....... .####..
#....#. #....#. .#...#. ....... ....... ..#.... #..#... #..#... ....... #..##..
#...#.. #...#.. ##..#.. ..#.... #...#.. ....... #..#... #..#... .##.##. #.#.#..
...#.#. ...#.## ...#.#. .#..... .#.#... #####.. #.#.... ####### ...#..# #.#.#..
..#.##. ..#...# ..#.##. #...... ..#.... ....... #..#... #..#... .###### #.#.#..
.#.#### .#...#. .#.#### #...#.. .#.#... ..#.... #...#.. #..#... #..#... ##..#..
#....#. #...### #....#. .###... #...#.. ....... #.##... #..#### .##.### ####...
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
ø       Ð       ð       Þ       þ       ı       ȷ       Œ       œ       Ł
....... .####.. .#.#... #...... #...... ....... ....... .###### ....... .#.....
....... .#...#. ..#.... ####... #...... ....... ....... #..#... ....... .#.....
.####.. .#...#. .#.#... #...#.. ####... #...... .#..... #..#... .##.##. .#.#...
#..##.. ####.#. ....#.. #...#.. #...#.. #...... .#..... #..#### #..#..# .##....
#.#.#.. .#...#. .####.. ####... #...#.. #...... .#..... #..#... #..#### ##.....
##..#.. .#...#. #...#.. #...... #...#.. #...... .#..... #..#... #..#... .#.....
####... .####.. .###... #...... ####... #...... .#..... .###### .##.### .####..
....... ....... ....... ....... #...... ....... .#..... ....... ....... .......
....... ....... ....... ....... #...... ....... #...... ....... ....... .......
ł       Đ       đ       •       …       ‘       ’       ‚       “       ”
.#..... .####.. ...#... ....... ....... .#..... .#..... ....... .#.#... .#.#...
.#..... .#...#. ..###.. ....... ....... #...... .#..... ....... #.#.... .#.#...
.##.... .#...#. ...#... .###... ....... #...... #...... ....... #.#.... #.#....
##..... ####.#. .###... #####.. ....... ....... ....... ....... ....... .......
.#..... .#...#. #..#... #####.. ....... ....... ....... ....... ....... .......
.#..... .#...#. #..#... #####.. ....... ....... ....... .#..... ....... .......
.#..... .####.. .###... .###... #..#..# ....... ....... .#..... ....... .......
....... ....... ....... ....... ....... ....... ....... #...... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
„       –       —       ‹       ›       €       ™       ✓       ←       →
....... ....... ....... ....... ....... ..###.. ###.#.# ......# ....... .......
....... ....... ....... ....... ....... .#..... .#.#### .....#. ..#.... ....#..
....... ....... ....... ...#... .#..... ####... .#.#.#. ....#.. .#..... .....#.
....... #####.. ####### ..#.... ..#.... .#..... .#.#.#. #..#... ####### #######
....... ....... ....... .#..... ...#... ####... ....... .##.... .#..... .....#.
.#.#... ....... ....... ..#.... ..#.... .#..... ....... ....... ..#.... ....#..
.#.#... ....... ....... ...#... .#..... ..###.. ....... ....... ....... .......
#.#.... ....... ....... ....... ....... ....... ....... ....... ....... .......
....... ....... ....... ....... ....... ....... ....... ....... ....... .......
−       □
....... #####..
....... #...#..
....... #...#..
#####.. #...#..
....... #...#..
....... #...#..
....... #...#..
....... #...#..
....... #####..

"""  # noqa: RUF001 - the glyphs of look-alike characters are the point

# Accents: rows of ink, placed above the letter (with a row of gap), below it, or at its lower
# right; keyed by their combining character.
_ABOVE, _BELOW, _OGONEK = 0, 1, 2
_MARKS: dict[str, tuple[int, tuple[str, ...]]] = {
    "\u0300": (_ABOVE, ("#.", ".#")),  # grave
    "\u0301": (_ABOVE, (".#", "#.")),  # acute
    "\u0302": (_ABOVE, (".#.", "#.#")),  # circumflex
    "\u0303": (_ABOVE, (".#.#", "#.#.")),  # tilde
    "\u0304": (_ABOVE, ("###",)),  # macron
    "\u0306": (_ABOVE, ("#..#", ".##.")),  # breve
    "\u0307": (_ABOVE, ("#",)),  # dot above
    "\u0308": (_ABOVE, ("#.#",)),  # diaeresis
    "\u030a": (_ABOVE, (".#.", "#.#", ".#.")),  # ring
    "\u030b": (_ABOVE, (".#..#", "#..#.")),  # double acute
    "\u030c": (_ABOVE, ("#.#", ".#.")),  # caron
    "\u0323": (_BELOW, ("#",)),  # dot below
    "\u0326": (_BELOW, (".#", "#.")),  # comma below
    "\u0327": (_BELOW, (".#", "##")),  # cedilla
    "\u0328": (_OGONEK, ("#.", ".#")),  # ogonek
}
_DOTLESS = {"i": "\u0131", "j": "\u0237"}
_MAX_MARKS = 4  # marks kept per character; more (as in "zalgo" text) are dropped


class _Glyph:
    """A glyph on the grid: ``rows[r]`` has bit ``c`` set where column ``c`` of row ``r`` is ink.

    ``key`` names it in the raster caches: every character drawn as the fallback shares one.
    """

    __slots__ = ("key", "rows", "width")

    def __init__(self, width: int, rows: tuple[int, ...], key: str = "") -> None:
        self.width = width
        self.rows = rows
        self.key = key


def _parse(sheet: str) -> dict[str, _Glyph]:
    lines = sheet.strip("\n").split("\n")
    glyphs: dict[str, _Glyph] = {}
    for start in range(0, len(lines), 10):
        header, rows = lines[start], lines[start + 1 : start + 10]
        for i in range((len(rows[0]) + 1) // 8):
            char = header[8 * i]
            cells = [row[8 * i : 8 * i + 7] for row in rows]
            glyph = _trimmed([0] * _TOP + [_bits(cell) for cell in cells])
            glyph.key = char
            glyphs[char] = glyph
    return glyphs


def _bits(cell: str) -> int:
    return sum(1 << c for c, mark in enumerate(cell) if mark == "#")


def _trimmed(rows: list[int]) -> _Glyph:
    """The glyph with its empty columns at left and right removed (the font is proportional)."""
    ink = 0
    for row in rows:
        ink |= row
    if not ink:
        return _Glyph(0, tuple(rows))
    left = (ink & -ink).bit_length() - 1
    return _Glyph(ink.bit_length() - left, tuple(row >> left for row in rows))


_GLYPHS = _parse(_SHEET)


@lru_cache(maxsize=2048)
def _glyph(cluster: str) -> _Glyph:
    """The glyph of a character and its marks (Rule 2): designed, composed, or the fallback."""
    found = _GLYPHS.get(cluster)
    if found is not None:
        return found
    decomposed = unicodedata.normalize("NFD", cluster)
    base, marks = decomposed[0], [m for m in decomposed[1:] if m in _MARKS]
    if any(_MARKS[m][0] == _ABOVE for m in marks):
        base = _DOTLESS.get(base, base)
    glyph = _GLYPHS.get(base)
    if glyph is None:
        return _GLYPHS[_FALLBACK]
    rows = list(glyph.rows)
    shift = 0  # how far the base moved right to make room for a wider mark
    for mark in marks:
        place, pattern = _MARKS[mark]
        mark_glyph = _trimmed([_bits(p) for p in pattern])
        mark_w = mark_glyph.width
        x = shift + glyph.width - 1 if place == _OGONEK else shift + (glyph.width - mark_w) // 2
        if x < 0:
            rows = [row << -x for row in rows]
            shift -= x
            x = 0
        height = len(pattern)
        if place == _ABOVE:
            ink_top = next((r for r, row in enumerate(rows) if row), _TOP)
            first = max(0, ink_top - 1 - height)
        else:
            first = _TOP + 7  # the descender rows
        for k, pattern_row in enumerate(mark_glyph.rows[:height]):
            if 0 <= first + k < _ROWS:
                rows[first + k] |= pattern_row << x
    composed = _trimmed(rows)
    composed.key = cluster
    return composed


def clusters(text: str, limit: int) -> list[str]:
    r"""The first ``limit`` drawable characters of ``text``, each with its combining marks (Rule 2).

    Line breaks come back as ``"\n"``; spaces of every kind as ``" "``; control and format
    characters are dropped; at most four marks are kept on a character.
    """
    out: list[str] = []
    # Each drawn character takes at most 1 + _MAX_MARKS code points worth keeping, and
    # normalization never needs more than a few; looking further is wasted on long labels.
    text = unicodedata.normalize("NFC", text[: (limit + 1) * 8])
    for ch in text:
        if len(out) > limit:
            break
        if ch in "\n\r\u2028\u2029\x0b\x0c\x85":
            out.append("\n")
            continue
        category = unicodedata.category(ch)
        if ch == "\t" or category == "Zs":
            out.append(" ")
        elif category in ("Mn", "Me"):
            if out and out[-1] not in (" ", "\n") and len(out[-1]) <= _MAX_MARKS:
                out[-1] += ch
        elif category not in ("Cc", "Cf"):
            out.append(ch)
    return out[:limit]


# -- rasterizing -----------------------------------------------------------------------------


def _scale2x(grid: list[list[int]]) -> list[list[int]]:
    """Scale2x (EPX): doubles a bitmap, rounding the corners of diagonal steps."""
    h, w = len(grid), len(grid[0])
    out = [[0] * (2 * w) for _ in range(2 * h)]
    for y in range(h):
        up = grid[y - 1] if y else [0] * w
        down = grid[y + 1] if y + 1 < h else [0] * w
        row = grid[y]
        top, bottom = out[2 * y], out[2 * y + 1]
        for x in range(w):
            p = row[x]
            a, d = up[x], down[x]
            c = row[x - 1] if x else 0
            b = row[x + 1] if x + 1 < w else 0
            top[2 * x] = a if c == a and c != d and a != b else p
            top[2 * x + 1] = b if a == b and a != c and b != d else p
            bottom[2 * x] = c if d == c and d != b and c != a else p
            bottom[2 * x + 1] = d if b == d and b != a and d != c else p
    return out


class _Raster:
    """A glyph's pixels at one size and weight: its advance and one row of coverage per pixel row."""

    __slots__ = ("advance", "alphas", "ink_bottom", "ink_top")

    def __init__(self, advance: int, alphas: tuple[bytes, ...]) -> None:
        self.advance = advance
        self.alphas = alphas
        inked = [r for r, row in enumerate(alphas) if any(row)]
        self.ink_top = inked[0] if inked else 0
        self.ink_bottom = inked[-1] + 1 if inked else 0


@lru_cache(maxsize=256)
def line_height(size: float) -> int:
    """The height of a line of text in pixels at a font size of ``size`` pixels (12 units, rounded up)."""
    return max(1, math.ceil(_ROWS * _unit(_quantized(size))))


def _unit(quarters: int) -> float:
    """Pixels per grid unit at a size given in quarter pixels (Rule 1)."""
    return quarters / (4 * _EM)


def _quantized(size: float) -> int:
    """Sizes are rasterized in quarter pixels, so the caches stay small."""
    return max(1, round(size * 4))


def _key(cluster: str) -> str:
    """The name a character's glyph is cached under (the fallback's for any undrawable one)."""
    return " " if cluster == " " else _glyph(cluster).key


@lru_cache(maxsize=1024)
def _smooth(cluster: str, weight: int) -> tuple[int, tuple[int, ...]]:
    """A glyph smoothed to 4 x 4 sub-pixels per unit and emboldened: its width and row bitmasks."""
    glyph = _glyph(cluster)
    grid = _scale2x(_scale2x([[(row >> c) & 1 for c in range(glyph.width)] for row in glyph.rows]))
    rows = []
    for line in grid:
        mask = sum(1 << x for x, ink in enumerate(line) if ink)
        for _ in range(weight):
            mask |= mask << 1
        rows.append(mask)
    return len(grid[0]) + weight, tuple(rows)


def _shares(start: float, step: float, count: int, limit: int) -> list[tuple[int, list[tuple[int, float]]]]:
    """For each of ``count`` pixels, the sub-pixels of ``[0, limit)`` it covers.

    Each comes as a mask of the whole ones and ``(index, share)`` of the partly covered ones.
    Pixel ``k`` spans sub-pixels ``start + k * step`` to ``start + (k + 1) * step``.
    """
    out: list[tuple[int, list[tuple[int, float]]]] = []
    for k in range(count):
        a = max(0.0, start + k * step)
        b = min(float(limit), start + (k + 1) * step)
        if b <= a:
            out.append((0, []))
            continue
        first, last = math.ceil(a), math.floor(b)
        if first > last:  # inside one sub-pixel
            out.append((0, [(int(a), b - a)]))
            continue
        mask = ((1 << (last - first)) - 1) << first
        partial = []
        if first > a:
            partial.append((first - 1, first - a))
        if b > last and last < limit:
            partial.append((last, b - last))
        out.append((mask, partial))
    return out


def _rasterized(cluster: str, quarters: int, weight: int) -> _Raster:
    """A character's pixels at a size (in quarter pixels) and weight, cached by its glyph (Rule 4)."""
    return _rasterized_glyph(_key(cluster), quarters, weight)


@lru_cache(maxsize=4096)
def _rasterized_glyph(cluster: str, quarters: int, weight: int) -> _Raster:
    unit = _unit(quarters)
    height = math.ceil(_ROWS * unit)
    if cluster == " ":
        space = max(1, round(_SPACE_UNITS * unit))
        return _Raster(space, (bytes(space),) * height)
    advance = max(1, round((_glyph(cluster).width + 1) * unit))
    sub_w, rows = _smooth(cluster, weight)
    step = _SUB / unit  # sub-pixels per pixel
    columns = _shares(-_SUB / 2, step, advance, sub_w)  # half a unit of bearing left of the ink
    area = step * step
    alphas: list[bytes] = []
    for mask_y, partial_y in _shares(0.0, step, height, len(rows)):
        bands = [(rows[y], 1.0) for y in range(len(rows)) if mask_y >> y & 1] + [(rows[y], w) for y, w in partial_y]
        bands = [(r, w) for r, w in bands if r]
        if not bands:
            alphas.append(bytes(advance))
            continue
        out = bytearray(advance)
        for px, (mask_x, partial_x) in enumerate(columns):
            total = 0.0
            for row, share in bands:
                inked: float = (row & mask_x).bit_count()
                for x, w in partial_x:
                    if row >> x & 1:
                        inked += w
                total += share * inked
            if total:
                # A little more contrast than plain coverage: thin strokes stay dark when small.
                out[px] = min(255, round(255 * min(1.0, total / area) ** 0.8))
        alphas.append(bytes(out))
    return _Raster(advance, tuple(alphas))


@lru_cache(maxsize=256)
def _ramp(fg: RGB, bg: RGB) -> tuple[bytes, ...]:
    """For each coverage 0..255, the pixel's RGB bytes: ``fg`` laid over ``bg``."""
    return tuple(bytes(round(b + (f - b) * a / 255) for f, b in zip(fg, bg, strict=True)) for a in range(256))


def _tinted(cluster: str, quarters: int, weight: int, fg: RGB, bg: RGB) -> tuple[bytes, ...]:
    return _tinted_glyph(_key(cluster), quarters, weight, fg, bg)


@lru_cache(maxsize=8192)
def _tinted_glyph(cluster: str, quarters: int, weight: int, fg: RGB, bg: RGB) -> tuple[bytes, ...]:
    ramp = _ramp(fg, bg)
    return tuple(b"".join([ramp[a] for a in row]) for row in _rasterized_glyph(cluster, quarters, weight).alphas)


def text_width(line: list[str] | tuple[str, ...], size: float, weight: int = REGULAR) -> int:
    """The width in pixels of a line of characters (as :func:`clusters` gives them)."""
    q = _quantized(size)
    return sum(_rasterized(c, q, weight).advance for c in line)


def layout(text: str, size: float, weight: int, max_width: int, max_lines: int) -> tuple[tuple[str, ...], ...]:
    """Break ``text`` into at most ``max_lines`` lines of at most ``max_width`` pixels (Rule 5).

    Lines break at spaces, or inside a word too long for a line; a line break in the text
    starts a new line; spaces that open a wrapped line are dropped. Text that does not fit ends
    its last line with "…". Each line is a tuple of characters (with their marks).
    """
    if max_lines < 1 or max_width < 1:
        return ()
    q = _quantized(size)
    if len(text) <= _CACHED_TEXT:
        return _layout(text, q, weight, max_width, max_lines)
    return _layout.__wrapped__(text, q, weight, max_width, max_lines)


_CACHED_TEXT = 512  # longer labels are laid out every time rather than held in the cache


@lru_cache(maxsize=4096)
def _layout(text: str, q: int, weight: int, max_width: int, max_lines: int) -> tuple[tuple[str, ...], ...]:
    def adv(c: str) -> int:
        return _rasterized(c, q, weight).advance

    narrowest = adv("l")  # no glyph is narrower: the lines can't hold more than this many
    limit = max_lines * (max_width // narrowest + 1) + 1
    chars = clusters(text, limit + 1)
    cut = len(chars) > limit
    chars = chars[:limit]
    n = len(chars)
    lines: list[list[str]] = []
    line: list[str] = []
    width = 0
    overflow = False
    i = 0
    while i < n:
        if chars[i] == "\n":
            if len(lines) + 1 == max_lines:
                overflow = any(c not in " \n" for c in chars[i:])
                break
            lines.append(line)
            line, width = [], 0
            i += 1
            continue
        j = i
        while j < n and chars[j] == " ":
            j += 1
        k = j
        while k < n and chars[k] not in (" ", "\n"):
            k += 1
        spaces_w = sum(adv(c) for c in chars[i:j])
        word_w = sum(adv(c) for c in chars[j:k])
        if width + spaces_w + word_w <= max_width:
            line.extend(chars[i:k])
            width += spaces_w + word_w
            i = k
            continue
        if line and word_w <= max_width:  # wrap before the word
            if len(lines) + 1 == max_lines:
                overflow = True
                break
            lines.append(line)
            line, width = [], 0
            i = j
            continue
        # A word wider than a line: fill this line with as much of it as fits, then wrap.
        while i < k and width + adv(chars[i]) <= max_width:
            width += adv(chars[i])
            line.append(chars[i])
            i += 1
        if len(lines) + 1 == max_lines or not line:
            overflow = True
            break
        lines.append(line)
        line, width = [], 0
        while i < n and chars[i] == " ":
            i += 1
    lines.append(line)
    if overflow or cut:
        lines[-1] = _with_ellipsis(lines[-1], q, weight, max_width)
    return tuple(tuple(line) for line in lines)


def _with_ellipsis(line: list[str], quarters: int, weight: int, max_width: int) -> list[str]:
    ell = _rasterized(_ELLIPSIS, quarters, weight).advance
    out = list(line)
    while out and out[-1] == " ":
        out.pop()
    width = sum(_rasterized(c, quarters, weight).advance for c in out)
    while out and width + ell > max_width:
        width -= _rasterized(out.pop(), quarters, weight).advance
        while out and out[-1] == " ":
            width -= _rasterized(out.pop(), quarters, weight).advance
    return [*out, _ELLIPSIS] if ell <= max_width else out


class Strip:
    """A line of text as pixels: ``rows`` of RGB bytes, ``width`` pixels wide, ink in ``ink_top..ink_bottom``."""

    __slots__ = ("ink_bottom", "ink_top", "rows", "width")

    def __init__(self, width: int, rows: tuple[bytes, ...], ink_top: int, ink_bottom: int) -> None:
        self.width = width
        self.rows = rows
        self.ink_top = ink_top
        self.ink_bottom = ink_bottom


@lru_cache(maxsize=2048)
def strip(line: tuple[str, ...], size: float, weight: int, fg: RGB, bg: RGB) -> Strip:
    """A line of characters drawn in ``fg`` on ``bg``: one join per pixel row, cached."""
    q = _quantized(size)
    height = line_height(size)
    glyphs = [_tinted(c, q, weight, fg, bg) for c in line]
    rasters = [_rasterized(c, q, weight) for c in line]
    inked = [r for r in rasters if r.ink_bottom]
    top = min((r.ink_top for r in inked), default=0)
    bottom = max((r.ink_bottom for r in inked), default=0)
    rows = tuple(b"".join([g[y] for g in glyphs]) for y in range(height))
    return Strip(sum(r.advance for r in rasters), rows, top, bottom)


def draw_text(
    raster: Raster,
    text: str,
    box: tuple[int, int, int, int],
    *,
    size: float,
    fg: RGB,
    bg: RGB,
    weight: int = REGULAR,
    align: str = "left",
    max_lines: int | None = None,
) -> int:
    """Draw ``text`` inside ``box`` (pixels), wrapped and truncated to fit; returns the lines drawn.

    ``bg`` is the colour under the text: the anti-aliased edges are blended with it, so text
    sits on a surface of one colour. ``align`` is ``left``, ``center`` or ``right``; the block
    of lines is centred vertically on the capitals. At most ``max_lines`` lines, or as many as
    the box holds (at least one).
    """
    x0, y0, x1, y1 = box
    pitch = line_height(size)
    room = max(1, (y1 - y0) // pitch)
    lines = layout(text, size, weight, x1 - x0, min(room, max_lines or room))
    if not lines:
        return 0
    unit = _unit(_quantized(size))
    # Centre the capitals (grid rows 3..10 of the first line) rather than the whole line box.
    block = pitch * (len(lines) - 1) + round(7 * unit)
    top = y0 + ((y1 - y0) - block) // 2 - round(_TOP * unit)
    for k, line in enumerate(lines):
        s = strip(line, size, weight, fg, bg)
        if align == "center":
            x = x0 + (x1 - x0 - s.width) // 2
        elif align == "right":
            x = x1 - s.width
        else:
            x = x0
        y = top + k * pitch
        raster.paste(x, y + s.ink_top, s.rows[s.ink_top : s.ink_bottom])
    return len(lines)
