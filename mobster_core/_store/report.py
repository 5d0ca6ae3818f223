r"""The HTML reports: ``report.html`` for a check run, ``index.html`` for a suite (pure: data in, text out).

A person opens the report at 2 a.m. from a CI artifact and wants to see what happened: the
verdict and where the run stopped come first, then what healed, then the assertions, then every
step with the screen it acted on and why the replay trusted it, then the journal.

Rule 1 (self-contained): one file; pictures are ``data:`` URIs; the only other links are relative
        ones to files beside the report (full frames, ``result.json``, other runs' reports).
        A Content-Security-Policy ``<meta>`` comes first in ``<head>``:
        ``default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none';
        form-action 'none'``. There is no script: what opens and closes is ``<details>``.
Rule 2 (escaping): every string from the app, the check, the model or a results file is made
        valid Unicode, its control and bidi characters shown as escapes (``\u202e``), cut to
        :data:`MAX_TEXT` characters (saying how long it was), then HTML-escaped, quotes
        included, before it reaches the page; and it reaches only element text or a quoted
        attribute value. It never reaches a ``<style>``, a ``style`` attribute, a class name, a
        URL or a data URI: those hold only this module's constants, numbers it formats itself,
        base64, and (for links) path segments percent-encoded one by one.
Rule 3 (pictures): a picture is embedded only when its bytes are a PNG or a JPEG (sniffed, never
        trusted from a name). Pages embed at most :data:`EMBED_BUDGET` bytes of pictures, in the
        order the page shows them (the failure, the heals and the final screen before the list of
        steps); past it a picture is left out and the page says so, so a run of any length makes
        a page a browser opens.
Rule 4 (outlines): an outline is a box laid over the picture by CSS, at the element's frame in
        percent of the screen (frames are fractions of the screen, as a read gives them), so it
        sits on the element at any size the picture is shown, and the picture stays the pixels
        the device sent. A frame that isn't four finite numbers draws no outline.
Rule 5 (frames): frames are found by the names ``_frames`` gives them (``frames/step-003-before``,
        ``frames/final``, each as a thumbnail, a view and a full PNG); see that module.
"""

from __future__ import annotations

import base64
import html
import json
import math
import posixpath
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs

from mobster_core._rules.frames import FINAL, heal_frames, sniff, step_frame
from mobster_core._rules.frames import frame_file as _frame_file
from mobster_core._rules.matcher import SIMILAR, SIMILAR_SETTLED
from mobster_core._rules.text import escape_controls, valid_text

from .fsutil import UnsafeFile, read_private

__all__ = [
    "CSP",
    "EMBED_BUDGET",
    "MAX_TEXT",
    "RunReport",
    "render_run",
    "render_suite",
    "report_href",
]

#: Rule 1's policy, exactly as the page's ``<meta>`` holds it.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
#: Rule 3: the most picture bytes a page embeds (before base64), about 8 MB once encoded.
EMBED_BUDGET = 6 * 1024 * 1024
#: Rule 2: the most characters of one string a page shows.
MAX_TEXT = 4000
#: The most journal entries a page lists (the rest stay in ``journal.jsonl``).
MAX_JOURNAL = 2000
#: The most characters of one string in a list that repeats per step or entry (the journal, actions).
MAX_CELL = 300
#: The largest picture file read from disk, in bytes.
MAX_PICTURE_FILE = 32 * 1024 * 1024

_VERDICTS = {
    "passed": ("✓", "passed"),
    "failed": ("✗", "failed"),
    "needs_review": ("?", "needs review"),
    "couldnt_run": ("!", "couldn't run"),
}
_SOURCES = {
    "replay": "replayed",
    "healed": "healed",
    "smart": "Smart",
    "live": "live",
}
#: How a suite's cell names a run's mode.
_MODES = {"replay": "replayed", "smart": "recorded by Smart", "launch": "launch only"}
#: How the summary counts steps by source.
_COUNTED = {"replay": "replayed", "healed": "healed", "smart": "by Smart", "live": "typed live"}


@attrs.frozen
class RunReport:
    """What a check run's ``report.html`` shows.

    ``result`` is the run's ``result.json`` (``CheckResult.to_dict()``); a step may also hold a
    ``target`` (``{label, role, id, frame}``, as a heal's actions do) and an assertion ``matches``
    (a list of ``{label, role, frame}``), which the page outlines. ``journal`` is the run's
    journal entries (``read_journal``). ``frames`` maps a frame's file name in the run folder
    (``frames/step-003-before.thumb.jpg``) to its bytes or its path. ``heals`` are the heals to
    show (this run's, from ``result["heals"]``, when None). ``rerun`` is the command that runs the
    check again (``mobster test <file>`` when None).
    """

    result: Mapping[str, Any]
    journal: Sequence[Mapping[str, Any]] = ()
    frames: Mapping[str, bytes | Path] = attrs.field(factory=dict)
    heals: Sequence[Mapping[str, Any]] | None = None
    rerun: str | None = None


# -- text -----------------------------------------------------------------------------------------


def _plain(value: object, limit: int = MAX_TEXT) -> tuple[str, int]:
    """Rule 2 before escaping: valid, controls shown, cut to ``limit`` characters.

    Returns the text and, when it was cut, how many characters the whole string has (else 0).
    Only the start of a long string is escaped: shown as escapes, characters only get longer,
    so ``limit + 1`` characters say whether it is cut.
    """
    if isinstance(value, str):
        text = value
    elif value is None:
        text = ""
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**100:
        text = "(a number too large to show)"  # int -> str refuses over 4,300 digits
    else:
        text = str(value)
    shown = escape_controls(text[: limit + 1])
    if len(shown) > limit:
        return shown[:limit], len(text)
    return shown, 0


def _t(value: object, limit: int = MAX_TEXT) -> str:
    """Rule 2: any value as element text: valid, controls shown, cut, escaped."""
    text, total = _plain(value, limit)
    cut = f"<span class=more>… ({total:,} characters in all)</span>" if total else ""
    return html.escape(text, quote=True) + cut


def _a(value: object, limit: int = 300) -> str:
    """Rule 2: any value as a quoted attribute's text (no markup at all)."""
    text, total = _plain(value, limit)
    return html.escape(text + (f"… ({total:,} characters in all)" if total else ""), quote=True)


def _q(value: object, limit: int = MAX_TEXT) -> str:
    """A string from outside, in quotes, isolated from the text around it (bidi)."""
    return f"“<bdi>{_t(value, limit)}</bdi>”"


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range
        return None
    return number if math.isfinite(number) else None


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _seconds(value: object) -> str:
    number = _num(value)
    if number is None:
        return "—"
    return f"{number:.2f} s" if number < 10 else f"{number:.1f} s"


def _cost(value: object, estimated: object) -> str:
    number = _num(value)
    if number is None:
        return "—"
    return f"{'~' if estimated is True else ''}${number:.4f}" if number else "$0"


def _percent(value: float) -> str:
    """Rounded down, as the matcher says it."""
    return f"{math.floor(value * 100 + 1e-9):d}%"


# -- pictures -------------------------------------------------------------------------------------


@attrs.frozen
class _Box:
    """An element's frame as fractions of the screen, checked (Rule 4)."""

    x: float
    y: float
    w: float
    h: float

    @classmethod
    def of(cls, frame: object) -> _Box | None:
        values = _list(frame)
        if len(values) != 4:
            return None
        numbers = [_num(v) for v in values]
        if any(n is None for n in numbers):
            return None
        x, y, w, h = (n for n in numbers if n is not None)
        x, y = min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)
        w, h = min(max(w, 0.0), 1.0 - x), min(max(h, 0.0), 1.0 - y)
        return cls(x, y, w, h)

    def style(self) -> str:
        return f"left:{self.x * 100:.3f}%;top:{self.y * 100:.3f}%;width:{self.w * 100:.3f}%;height:{self.h * 100:.3f}%"


@attrs.frozen
class _Mark:
    """An outline on a picture: where, how (a CSS class from this module), and a label for people."""

    box: _Box
    kind: str  # tap | old | pass | fail
    label: str  # escaped already
    number: str = ""


class _Pictures:
    """Finds a frame's files, embeds them within the budget (Rule 3) and says what was left out."""

    def __init__(self, frames: Mapping[str, bytes | Path]) -> None:
        self.frames = frames
        self.spent = 0
        self.left_out = 0
        self._read: dict[str, bytes | None] = {}

    def _bytes(self, name: str) -> bytes | None:
        if name not in self._read:
            self._read[name] = self._load(name)
        return self._read[name]

    def _load(self, name: str) -> bytes | None:
        value = self.frames.get(name)
        if isinstance(value, bytes | bytearray | memoryview):
            return bytes(value)
        if isinstance(value, Path):
            try:
                return read_private(value, max_bytes=MAX_PICTURE_FILE)
            except (OSError, UnsafeFile):
                return None
        return None

    def _first(self, base: str, size: str) -> bytes | None:
        for name in self._names(base, size):
            data = self._bytes(name)
            if data is not None and sniff(data) is not None:
                return data
        return None

    def same(self, one: str, other: str, size: str) -> bool:
        """Whether two frames show the same picture (the same bytes) at this size."""
        data = self._first(one, size)
        return data is not None and data == self._first(other, size)

    def has(self, base: str) -> bool:
        return self._first(base, "view") is not None

    def full_link(self, base: str) -> str | None:
        name = _frame_file(base)
        return name if name in self.frames else None

    @staticmethod
    def _names(base: str, size: str) -> list[str]:
        thumb = [_frame_file(base, "thumb", k) for k in ("jpg", "png")]
        view = [_frame_file(base, "view", k) for k in ("jpg", "png")]
        full = [_frame_file(base)]
        # A thumbnail may stand in for a missing view and the other way round; a full frame last.
        return [*thumb, *view, *full] if size == "thumb" else [*view, *full, *thumb]

    def data_uri(self, base: str, size: str) -> str | None:
        """The first picture of this frame there is, as a data URI; None when there is none or no budget."""
        data = self._first(base, size)
        if data is None:
            return None
        if self.spent + len(data) > EMBED_BUDGET:
            self.left_out += 1
            return None
        self.spent += len(data)
        media = "image/png" if sniff(data) == "png" else "image/jpeg"
        return f"data:{media};base64,{base64.b64encode(data).decode('ascii')}"

    def figure(self, base: str | None, size: str, *, alt: str, marks: Sequence[_Mark] = (), caption: str = "") -> str:
        """A picture with its outlines, or a placeholder saying why there is none."""
        uri = None if base is None else self.data_uri(base, size)
        css = f"shot {size}"
        if uri is None:
            why = "no frame" if base is None or not self.has(base) else "left out: the page's picture budget is spent"
            inner = f"<div class=noframe>{why}</div>"
        else:
            boxes = "".join(
                f'<span class="box {m.kind}" style="{m.box.style()}" title="{m.label}">'
                + (f"<b>{m.number}</b>" if m.number else "")
                + "</span>"
                for m in marks
            )
            inner = f'<div class=frame><img src="{uri}" alt="{alt}">{boxes}</div>'
        link = None if base is None else self.full_link(base)
        more = f' <a href="{html.escape(link)}">full frame</a>' if link else ""
        cap = f"<figcaption>{caption}{more}</figcaption>" if caption or more else ""
        return f'<figure class="{css}">{inner}{cap}</figure>'


# -- the run page ---------------------------------------------------------------------------------


def render_run(report: RunReport) -> str:
    """The text of a check run's ``report.html`` (see the module rules)."""
    r = report.result
    steps = [_map(s) for s in _list(r.get("steps"))]
    heals = [_map(h) for h in (_list(r.get("heals")) if report.heals is None else list(report.heals))]
    assertions = [_map(a) for a in _list(r.get("assertions"))]
    pictures = _Pictures(report.frames)
    verdict = _str(r, "verdict")
    mark, word = _VERDICTS.get(verdict, ("•", verdict or "unknown"))
    vclass = verdict if verdict in _VERDICTS else "unknown"
    failing = _failing_step(steps)
    parts = [
        _header(r, mark, word, vclass, heals),
        _facts(r, steps, heals),
    ]
    if vclass != "passed":
        parts.append(_stopped(steps, failing, assertions, pictures, vclass))
    if heals:
        parts.append(_heals(r, steps, heals, pictures))
    if vclass == "passed":
        parts.append(_assertions_section(assertions, pictures))
    parts.append(_steps(steps, failing, pictures))
    parts.append(_journal(report.journal))
    parts.append(_rerun(r, report.rerun))
    if pictures.left_out:
        parts.insert(
            2,
            f"<p class=note>{pictures.left_out} picture{'s' if pictures.left_out != 1 else ''} left out: "
            "the page's picture budget is spent. The run folder's <code>frames/</code> keeps what the run kept.</p>",
        )
    title = f"{_a(word, 80)}: {_a(r.get('name'), 200)}"
    return _page(title, "".join(parts))


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{title}</title><style>{_CSS}</style></head>"
        f"<body><main>{body}</main>"
        "<footer>Made by Mobster replay. This page runs no script and loads nothing.</footer>"
        "</body></html>\n"
    )


#: What to look at first, by failure class (the message says what happened; this says where to look).
_HINTS = {
    "drift": "A step's screen changed. If the app changed on purpose, let the step heal (run with a model) "
    "or record the path again (--fresh); if it didn't, the check caught a bug.",
    "assertion": "The steps ran, and the final screen doesn't show what the check expects: compare it with the "
    "failed assertions.",
    "heal_limit": "Too many recorded steps changed to heal them safely: record the path again (--fresh).",
    "unknown_outcome": "An action may or may not have happened. Look at the app before running again; the "
    "journal says which action.",
    "app_not_running": "The app was not in front at the end: it crashed, or the flow left it.",
    "refused": "An action was refused by the safety rules; the message says which rule.",
    "stopped": "The run was stopped from outside; an action in flight may or may not have happened.",
}


def _header(r: Mapping[str, Any], mark: str, word: str, vclass: str, heals: Sequence[Mapping[str, Any]]) -> str:
    cls = r.get("class")
    message = _str(r, "message")
    badge = f" <span class=cls>{_t(cls, 80)}</span>" if cls else ""
    lines = f"<p class=msg>{_t(message)}</p>" if message else ""
    hint = _HINTS.get(cls) if isinstance(cls, str) else None
    if hint:
        lines += f"<p class=hint>{hint}</p>"
    if heals:
        n = sum(len(_list(h.get("new"))) for h in heals)
        lines += (
            f'<p class=hint><a href="#heals">{n} healed step{"s" if n != 1 else ""}</a> '
            f"{'wait' if n != 1 else 'waits'} for review: <code>mobster test heal</code></p>"
        )
    return (
        f'<header class="verdict v-{vclass}"><div class=mark aria-hidden="true">{mark}</div><div>'
        f"<h1><span class=word>{_t(word, 80)}</span>{badge}</h1>{lines}"
        f"<p class=name><bdi>{_t(r.get('name'), 1000)}</bdi> <span class=file>{_t(r.get('file'), 1000)}</span></p>"
        "</div></header>"
    )


def _facts(r: Mapping[str, Any], steps: Sequence[Mapping[str, Any]], heals: Sequence[Mapping[str, Any]]) -> str:
    device = _map(r.get("device"))
    app = _map(r.get("app"))
    path = _map(r.get("path"))
    rows: list[tuple[str, str]] = []
    if device:
        kind = _str(device, "kind")
        rows.append(
            (
                "Device",
                f"<bdi>{_t(device.get('name'), 200)}</bdi>, iOS {_t(device.get('ios'), 40)}"
                + (f" <span class=dim>({_t(kind, 40)})</span>" if kind else ""),
            )
        )
    else:
        rows.append(("Device", "<span class=dim>none</span>"))
    if app:
        build = f"<span class=dim>(build {_t(app.get('build'), 80)})</span>"
        rows.append(("App", f"{_t(app.get('bundle'), 200)} {_t(app.get('version'), 80)} {build}"))
    mode = _str(r, "mode")
    counts = _source_counts(steps)
    rows.append(("Mode", f"{_t(mode, 40)}" + (f" <span class=dim>· {counts}</span>" if counts else "")))
    rows.append(("Time", _seconds(r.get("seconds"))))
    calls = _num(r.get("model_calls"))
    rows.append(("Model calls", "—" if calls is None else f"{calls:.0f}"))
    rows.append(("Cost", _cost(r.get("cost_usd"), r.get("cost_estimated"))))
    if path:
        rows.append(("Path", _path_line(path)))
    stable = r.get("stable")
    if stable is not None:
        rows.append(
            (
                "Verdict read",
                "settled (two reads agreed)" if stable is True else "didn't settle: the last read decided",
            )
        )
    if heals:
        n = sum(len(_list(h.get("new"))) for h in heals)
        rows.append(("Healed", f"{n} step{'s' if n != 1 else ''}, waiting for review"))
    cells = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in rows)
    return f"<section class=facts aria-label=Summary><dl>{cells}</dl></section>"


def _path_line(path: Mapping[str, Any]) -> str:
    used = path.get("used") is True
    why = path.get("why")
    carried = path.get("carried_from")
    text = "a recorded path was replayed" if used else "no recorded path was replayed"
    if carried:
        text += f", carried from {_t(carried, 200)}"
    if why:
        text += f" <span class=dim>({_t(why)})</span>"
    return text


def _source_counts(steps: Sequence[Mapping[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for s in steps:
        source = _str(s, "source")
        counts[source] = counts.get(source, 0) + 1
    parts = [f"{n} {_t(_COUNTED.get(k, k), 40)}" for k, n in counts.items()]
    return ", ".join(parts)


def _failing_step(steps: Sequence[Mapping[str, Any]]) -> int | None:
    """The position (from 1) of the last step that drifted, if any."""
    found = None
    for p, s in enumerate(steps, 1):
        if s.get("reason") is not None:
            found = p
    return found


def _target_mark(target: object, kind: str = "tap", label: str = "the tapped element") -> list[_Mark]:
    box = _Box.of(_map(target).get("frame"))
    return [] if box is None else [_Mark(box, kind, label)]


def _assertion_marks(assertions: Sequence[Mapping[str, Any]]) -> list[_Mark]:
    marks = []
    for n, a in enumerate(assertions, 1):
        kind = "pass" if a.get("ok") is True else "fail"
        for m in _list(a.get("matches"))[:10]:
            box = _Box.of(_map(m).get("frame"))
            if box is not None:
                marks.append(_Mark(box, kind, f"assertion {n}: {_a(a.get('text'), 200)}", str(n)))
    return marks


def _stopped(
    steps: Sequence[Mapping[str, Any]],
    failing: int | None,
    assertions: Sequence[Mapping[str, Any]],
    pictures: _Pictures,
    vclass: str,
) -> str:
    if vclass == "needs_review":
        title = "What to review"
    elif failing is None and assertions:
        title = "What the verdict saw"  # the steps ran; the verdict's read decided
    else:
        title = "Where it stopped"
    final_caption = "<b>The final screen</b>" + (" (the verdict's read)" if assertions else "")
    final_marks = _assertion_marks(assertions)
    figures = []
    if failing is not None:
        s = steps[failing - 1]
        caption = (
            f"<b>Step {failing}</b> {_t(s.get('text'))}<br><span class=reason>drifted: {_t(s.get('reason'))}</span>"
            "<br><span class=k-old>dashed</span>: where the recorded target was"
        )
        marks = _target_mark(s.get("target"), "old", "where the recorded step's target was")
        base = step_frame(failing)
        if pictures.same(base, FINAL, "view"):
            # The screen it drifted on is the final one (nothing was sent after): show it once.
            marks, caption = [*marks, *final_marks], f"{caption}<br>It is also the final screen."
        else:
            figures.append(
                pictures.figure(base, "view", alt=f"the screen step {failing} drifted on", marks=marks, caption=caption)
            )
            base, marks, caption = FINAL, final_marks, final_caption
        figures.append(
            pictures.figure(base, "view", alt=f"the screen step {failing} drifted on", marks=marks, caption=caption)
        )
    else:
        figures.append(pictures.figure(FINAL, "view", alt="the final screen", marks=final_marks, caption=final_caption))
    listed = (
        _assertion_list(assertions)
        if assertions
        else "<p class=dim>The run stopped before the verdict: no assertion was evaluated.</p>"
    )
    return (
        f"<section id=stopped><h2>{title}</h2>"
        f"<div class=pair><div class=figs>{''.join(figures)}</div><div class=side>{listed}</div></div></section>"
    )


def _assertions_section(assertions: Sequence[Mapping[str, Any]], pictures: _Pictures) -> str:
    fig = pictures.figure(
        FINAL,
        "view",
        alt="the final screen",
        marks=_assertion_marks(assertions),
        caption="<b>The final screen</b> (the verdict's read)",
    )
    listed = _assertion_list(assertions) if assertions else "<p class=dim>This check has no assertions.</p>"
    return (
        "<section id=assertions><h2>Assertions</h2>"
        f"<div class=pair><div class=figs>{fig}</div><div class=side>{listed}</div></div></section>"
    )


def _assertion_list(assertions: Sequence[Mapping[str, Any]]) -> str:
    """The assertions, numbered as the check lists them, the failed ones first."""
    items = []
    numbered = sorted(enumerate(assertions, 1), key=lambda item: item[1].get("ok") is True)
    for n, a in numbered:
        ok = a.get("ok") is True
        items.append(
            f'<li class="{"ok" if ok else "bad"}"><span class=num>{n}</span>'
            f"<span class=res>{'✓ held' if ok else '✗ failed'}</span> <code>{_t(a.get('text'))}</code>"
            f"<div class=obs>observed: {_t(a.get('observed'))}</div></li>"
        )
    return f"<ol class=asserts>{''.join(items)}</ol>"


def _action_rows(actions: Sequence[object]) -> str:
    rows = []
    for a in actions:
        m = _map(a)
        box = _Box.of(m.get("frame"))
        frame = "—" if box is None else f"{box.x:.3f}, {box.y:.3f}, {box.w:.3f}, {box.h:.3f}"  # numbers we formatted
        text = m.get("text")
        typed = f" text {_q(text, MAX_CELL)}" if text is not None else ""
        label = _q(m.get("label"), MAX_CELL) if m.get("label") is not None else ""
        rows.append(
            f"<li><code>{_t(m.get('op'), 40)}</code> {label}"
            f" <span class=dim>{_t(m.get('role'), 80)} {_t(m.get('id'), 200)}</span>{typed}"
            f"<div class=dim>frame {frame}</div></li>"
        )
    return f"<ol class=actions>{''.join(rows)}</ol>" if rows else "<p class=dim>no action</p>"


def _check_name(r: Mapping[str, Any]) -> str:
    """How ``mobster test heal`` names the check: its file name when it is in ``.mobster/checks``."""
    file = _str(r, "file")
    folder, name = posixpath.split(file.replace("\\", "/"))
    return name if folder.endswith(".mobster/checks") or folder == ".mobster/checks" else file


def _heals(
    r: Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    heals: Sequence[Mapping[str, Any]],
    pictures: _Pictures,
) -> str:
    cards = []
    name = shlex.quote(_check_name(r))
    for h in heals:
        number = _num(h.get("step"))
        label = "?" if number is None else f"{number:.0f}"
        before, after = heal_frames(steps, h)
        old, new = _list(h.get("old")), _list(h.get("new"))
        marks = [m for a in old for m in _target_mark(a, "old", "where the recorded step's target was")]
        marks += [m for a in new[:1] for m in _target_mark(a, "tap", "what the heal acted on first")]
        legend = (
            "<b>Before the heal</b>: the screen it drifted on. "
            "<span class=k-old>dashed</span>: the recorded target; <span class=k-tap>solid</span>: the healed one"
        )
        cards.append(
            f"<article class=heal><h3>Step {label}: {_t(h.get('from'))} → {_t(h.get('to'))}</h3>"
            f"<p class=why>Why it drifted: {_t(h.get('why'))}</p>"
            f"<div class=sbs><div class=old><h4>Recorded</h4>{_action_rows(old)}</div>"
            f"<div class=new><h4>Healed</h4>{_action_rows(new)}</div></div>"
            "<div class=figs>"
            + pictures.figure(before, "view", alt="the screen the step drifted on", marks=marks, caption=legend)
            + pictures.figure(after, "view", alt="the screen after the heal", caption="<b>After the heal</b>")
            + "</div>"
            "<div class=cmds><p>Keep the healed steps, or bring the recorded ones back and keep failing:</p>"
            f"<pre><code>mobster test heal --accept {_t(name)}\nmobster test heal --reject {_t(name)}</code></pre>"
            "</div></article>"
        )
    n = len(heals)
    return f"<section id=heals><h2>{n} heal{'s' if n != 1 else ''} to review</h2>{''.join(cards)}</section>"


def _why(step: Mapping[str, Any]) -> str:
    """Why the replay trusted a step (or who did it instead), in words."""
    source = _str(step, "source")
    reason = step.get("reason")
    similarity = _num(step.get("similarity"))
    if reason is not None:
        return f"<span class=reason>Drifted: {_t(reason)}.</span> The screen never matched the recorded step."
    if source in ("replay", "live"):
        if similarity is None:
            trusted = "this step needs no screen to match"
        elif similarity >= 1.0:
            trusted = "the screen was the one recorded"
        elif similarity >= SIMILAR:
            trusted = f"the screen was {_percent(similarity)} like the recorded one ({_percent(SIMILAR)} is enough)"
        else:
            trusted = (
                f"the screen had settled and was {_percent(similarity)} like the recorded one "
                f"({_percent(SIMILAR_SETTLED)} is enough once it settles, with the target there exactly once)"
            )
        if similarity is not None and step.get("op") not in ("HOME", "OPEN_URL", "LAUNCH_APP"):
            trusted += ", and the target was there as recorded"
        if source == "live":
            return f"Trusted: {trusted}. The model typed the text, as it does on every run (it is not replayed)."
        return f"Trusted: {trusted}."
    if source == "healed":
        return "Healed: the model did this in place of the step that drifted (see the heal above)."
    if source == "smart":
        return "Smart: the model did this step while recording the path."
    return f"Done by {_t(source, 40)}."


def _steps(steps: Sequence[Mapping[str, Any]], failing: int | None, pictures: _Pictures) -> str:
    if not steps:
        return "<section id=steps><h2>Steps</h2><p class=dim>No step ran.</p></section>"
    items = []
    for p, s in enumerate(steps, 1):
        source = _str(s, "source")
        scls = source if source in _SOURCES else "other"
        drifted = s.get("reason") is not None
        badge = "drifted" if drifted else _SOURCES.get(source, source)
        target = _map(s.get("target"))
        marks = _target_mark(target, "old" if drifted else "tap", "the step's target")
        index = _num(s.get("index"))
        shown = p if index is None else int(index)
        sim = _num(s.get("similarity"))
        metrics = []
        if source in ("replay", "live") or drifted:
            metrics = [
                f"waited {_seconds(s.get('waited_s'))}",
                "similarity —" if sim is None else f"{_percent(sim)} alike",
                "settled" if s.get("settled") is True else "not settled",
            ]
        fig = pictures.figure(step_frame(p), "thumb", alt=f"the screen before step {shown}", marks=marks)
        items.append(
            f'<li class="step src-{scls}{" drifted" if drifted else ""}{" failing" if p == failing else ""}" '
            f'id="step-{p}">'
            f"{fig}<div class=body><p class=title><span class=n>{shown}</span> "
            f'<span class="badge b-{"drifted" if drifted else scls}">{_t(badge, 40)}</span></p>'
            f"<p class=text>{_t(s.get('text'), 1000)}</p>"
            f"<p class=why>{_why(s)}</p>"
            + (f"<p class=metrics>{' · '.join(metrics)}</p>" if metrics else "")
            + "</div></li>"
        )
    return f"<section id=steps><h2>Steps ({len(steps)})</h2><ol class=steps>{''.join(items)}</ol></section>"


_JOURNAL_KEYS = ("seq", "event", "key", "op", "step", "source", "target", "text", "masked", "outcome", "detail")


def _journal(entries: Sequence[Mapping[str, Any]]) -> str:
    if not entries:
        return "<section id=journal><h2>Journal</h2><p class=dim>No journal entries.</p></section>"
    rows = []
    for e in list(entries)[:MAX_JOURNAL]:
        m = _map(e)
        event = _str(m, "event")
        if event == "intent":
            target = _map(m.get("target"))
            what = _t(m.get("op"), 40)
            if target:
                what += (
                    f" {_q(target.get('label'), MAX_CELL)} "
                    f"<span class=dim>{_t(target.get('role'), 80)} {_t(target.get('path'), 200)}</span>"
                )
            if m.get("masked") is True:
                what += " text <span class=masked>•••• (masked)</span>"
            elif m.get("text") is not None:
                what += f" text {_q(m.get('text'), MAX_CELL)}"
            extra = {k: v for k, v in m.items() if k not in _JOURNAL_KEYS}
            if extra:
                what += f" <span class=dim>{_t(json.dumps(extra, ensure_ascii=False, default=str), 400)}</span>"
            step = m.get("step")
            where = "" if step is None else f"step {_t(step, 20)}"
            if m.get("source") is not None:
                where += f" <span class=dim>{_t(m.get('source'), 40)}</span>"
        else:
            outcome = _str(m, "outcome")
            ocls = outcome if outcome in ("ok", "unknown", "refused", "not_sent") else "other"
            what = f'<span class="oc oc-{ocls}">{_t(outcome, 40)}</span>'
            if m.get("detail"):
                what += f" {_t(m.get('detail'), MAX_CELL)}"
            where = ""
        rows.append(
            f"<tr><td>{_t(m.get('seq'), 20)}</td><td>{_t(event, 20)}</td><td><code>{_t(m.get('key'), 120)}</code></td>"
            f"<td>{where}</td><td>{what}</td></tr>"
        )
    more = len(entries) - MAX_JOURNAL
    tail = f"<p class=dim>{more:,} more entries are in journal.jsonl.</p>" if more > 0 else ""
    return (
        f"<section id=journal><details><summary><h2>Journal ({len(entries)} entries)</h2></summary>"
        "<p class=dim>Every action was written here before it was sent, and how it ended after. "
        "Masked text never reaches the journal.</p>"
        "<table><thead><tr><th>#</th><th>event</th><th>key</th><th>step</th><th>what</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{tail}</details></section>"
    )


def _rerun(r: Mapping[str, Any], rerun: str | None) -> str:
    command = rerun if rerun is not None else f"mobster test {shlex.quote(_str(r, 'file') or 'CHECK')}"
    run_dir = _str(r, "run_dir")
    return (
        "<section id=rerun><h2>Run it again</h2>"
        f"<pre><code>{_t(command)}</code></pre>"
        "<p class=dim>Files beside this page: "
        '<a href="result.json">result.json</a>, <a href="journal.jsonl">journal.jsonl</a>, '
        '<a href="frames/">frames/</a>' + (f" (in <code>{_t(run_dir)}</code>)" if run_dir else "") + ".</p></section>"
    )


# -- the suite page -------------------------------------------------------------------------------


def report_href(run_dir: str, here: str) -> str | None:
    """A relative link from the folder ``here`` to ``<run_dir>/report.html``, both relative to the project.

    Each path segment is percent-encoded (Rule 2), so no run folder name can make the link
    absolute, give it a scheme (``javascript:``) or add a query. None when ``run_dir`` is empty
    or absolute.
    """
    run_dir, here = valid_text(run_dir).replace("\\", "/"), valid_text(here)
    if not run_dir or run_dir.startswith("/") or not here or here.startswith("/"):
        return None
    rel = posixpath.relpath(posixpath.join(posixpath.normpath(run_dir), "report.html"), posixpath.normpath(here))
    return "/".join(quote(part, safe="") for part in rel.split("/"))


def render_suite(results: Mapping[str, Any], *, here: str | None = None) -> str:
    """The text of a suite's ``index.html``: a checks-by-devices matrix linking to each run's report.

    ``results`` is the suite's ``results.json`` (``SuiteResult.to_dict()``, or merged shards).
    ``here`` is the folder ``index.html`` is written to, relative to the project
    (``.mobster/test-results/<suite_id>`` when None); each run's report is linked from its
    ``run_dir``.
    """
    suite_id = _str(results, "suite_id")
    here = here if here is not None else f".mobster/test-results/{suite_id}"
    checks = [_map(c) for c in _list(results.get("checks"))]
    summary = _map(results.get("summary"))
    devices: list[str] = []
    rows: dict[tuple[str, str], dict[str, list[Mapping[str, Any]]]] = {}
    for c in checks:
        device = _map(c.get("device"))
        dkey = f"{_str(device, 'name')}, iOS {_str(device, 'ios')}" if device else "no device"
        if dkey not in devices:
            devices.append(dkey)
        rows.setdefault((_str(c, "name"), _str(c, "file")), {}).setdefault(dkey, []).append(c)
    parts = [_suite_header(results, summary, checks)]
    bad = [c for c in checks if _str(c, "verdict") != "passed"]
    if bad:
        items = "".join(f"<li>{_cell_link(c, here, full=True)}</li>" for c in bad)
        parts.append(
            f"<section id=attention><h2>What didn't pass ({len(bad)})</h2><ul class=bad>{items}</ul></section>"
        )
    healed = [c for c in checks if _list(c.get("heals"))]
    if healed:
        items = "".join(
            f"<li>{_cell_link(c, here, full=True)}<ul>"
            + "".join(
                f"<li>step {_t(_map(h).get('step'), 20)}: {_t(_map(h).get('from'))} → {_t(_map(h).get('to'))}</li>"
                for h in _list(c.get("heals"))
            )
            + "</ul></li>"
            for c in healed
        )
        parts.append(
            f"<section id=healed><h2>Heals to review</h2><ul class=heals>{items}</ul>"
            "<pre><code>mobster test heal</code></pre></section>"
        )
    head = "".join(f"<th scope=col><bdi>{_t(d, 200)}</bdi></th>" for d in devices)
    body = []
    for (name, file), cells in rows.items():
        tds = "".join(
            "<td>" + "".join(_cell_link(c, here) for c in cells.get(d, [])) + "</td>"
            if d in cells
            else "<td class=none>—</td>"
            for d in devices
        )
        body.append(f"<tr><th scope=row><bdi>{_t(name)}</bdi><div class=file>{_t(file)}</div></th>{tds}</tr>")
    parts.append(
        "<section id=matrix><h2>Checks &times; devices</h2>"
        f"<table class=matrix><thead><tr><th scope=col>check</th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
        "</section>"
    )
    return _page(f"suite {_a(suite_id, 80)}", "".join(parts))


def _suite_header(results: Mapping[str, Any], summary: Mapping[str, Any], checks: Sequence[Mapping[str, Any]]) -> str:
    code = _num(results.get("exit_code"))
    verdicts = [_str(c, "verdict") for c in checks]
    if "failed" in verdicts:
        vclass = "failed"
    elif "couldnt_run" in verdicts:
        vclass = "couldnt_run"
    elif "needs_review" in verdicts:
        vclass = "needs_review"
    elif checks:
        vclass = "passed"
    else:
        vclass = "unknown"
    mark, word = _VERDICTS.get(vclass, ("•", "no checks"))
    counts = []
    for key, label in (
        ("passed", "passed"),
        ("failed", "failed"),
        ("needs_review", "need review"),
        ("couldnt_run", "couldn't run"),
    ):
        n = _num(summary.get(key))
        if n:
            counts.append(f"{n:.0f} {label}")
    healed = _num(summary.get("healed_steps"))
    calls = _num(summary.get("model_calls"))
    line = ", ".join(counts) or "no checks"
    line += f" in {_seconds(results.get('seconds'))}, {_cost(summary.get('cost_usd'), summary.get('cost_estimated'))}"
    if calls is not None:
        line += f", {calls:.0f} model call{'s' if calls != 1 else ''}"
    if healed:
        line += f", {healed:.0f} healed step{'s' if healed != 1 else ''} to review"
    return (
        f'<header class="verdict v-{vclass}"><div class=mark aria-hidden="true">{mark}</div><div>'
        f"<h1><span class=word>{_t(word, 80)}</span>"
        + ("" if code is None else f" <span class=cls>exit {code:.0f}</span>")
        + f"</h1><p class=msg>{line}</p>"
        f"<p class=name>suite {_t(results.get('suite_id'), 200)} "
        f"<span class=file>started {_t(results.get('started_at'), 80)}</span></p>"
        "</div></header>"
    )


def _cell_link(c: Mapping[str, Any], here: str, *, full: bool = False) -> str:
    verdict = _str(c, "verdict")
    mark, word = _VERDICTS.get(verdict, ("•", verdict or "unknown"))
    vclass = verdict if verdict in _VERDICTS else "unknown"
    href = report_href(_str(c, "run_dir"), here)
    label = f"{mark} {_t(word, 40)}"
    if full:
        device = _map(c.get("device"))
        where = f" on <bdi>{_t(device.get('name'), 200)}</bdi>" if device else ""
        label += f" <bdi>{_t(c.get('name'))}</bdi>{where}"
        message = _str(c, "message")
        if message:
            label += f"<div class=msg>{_t(c.get('class'), 80)}: {_t(message)}</div>"
    else:
        # A cell may hold several runs of one check on one device (merged suites): say how each ran.
        mode = _MODES.get(_str(c, "mode"), "")
        label += (
            f" <span class=dim>{_seconds(c.get('seconds'))}"
            + (f" · {mode}" if mode else "")
            + f" · {_cost(c.get('cost_usd'), c.get('cost_estimated'))}</span>"
        )
        if _list(c.get("heals")):
            label += " <span class=dim>healed</span>"
    inner = f'<a href="{href}">{label}</a>' if href else label
    return f'<div class="cell v-{vclass}">{inner}</div>'


_CSS = """
:root{--bg:#f6f7f9;--fg:#1b1f24;--dim:#5c6570;--card:#fff;--line:#d8dde3;--code:#eef1f4;
--pass:#1a7f37;--fail:#cf222e;--review:#9a6700;--cant:#8250df;--tap:#ff0a78;--old:#e36209;
--heal:#8250df;--smart:#0969da;--live:#bf8700;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#9198a1;--card:#161b22;--line:#30363d;
--code:#1f2630;--pass:#3fb950;--fail:#f85149;--review:#d29922;--cant:#a371f7;--tap:#ff4d9d;--old:#f0883e;
--heal:#a371f7;--smart:#58a6ff;--live:#d29922}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1180px;margin:0 auto;padding:16px 20px 32px}
footer{max-width:1180px;margin:0 auto;padding:0 20px 24px;color:var(--dim);font-size:13px}
h1,h2,h3,h4{line-height:1.2;margin:0}
h2{font-size:19px;margin:28px 0 12px}
h3{font-size:16px}
h4{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:var(--dim);margin:0 0 6px}
p{margin:4px 0}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{background:var(--code);padding:1px 4px;border-radius:4px}
pre{background:var(--code);padding:10px 12px;border-radius:8px;overflow-x:auto;white-space:pre-wrap}
pre code{background:none;padding:0}
a{color:var(--smart)}
.dim{color:var(--dim)}
.more{color:var(--dim);font-style:italic}
.note{background:var(--card);border:1px solid var(--review);border-radius:8px;padding:8px 12px}
*{overflow-wrap:break-word}
.verdict>div,.side,.step .body,.facts dd{min-width:0}
.verdict{display:flex;gap:16px;align-items:flex-start;background:var(--card);border:1px solid var(--line);
border-left:8px solid var(--c);border-radius:10px;padding:16px 20px}
.v-passed{--c:var(--pass)}.v-failed{--c:var(--fail)}.v-needs_review{--c:var(--review)}.v-couldnt_run{--c:var(--cant)}
.v-unknown{--c:var(--dim)}
.verdict .mark{flex:none;font-size:34px;line-height:1;color:var(--c);font-weight:700}
.verdict h1{font-size:26px;color:var(--c);display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.verdict .cls{font-size:13px;font-weight:600;color:var(--fg);border:1px solid var(--line);border-radius:999px;
padding:2px 10px}
.verdict .msg{font-size:16px;margin-top:6px;white-space:pre-wrap}
.verdict .name{color:var(--dim);margin-top:6px}
.verdict .hint{margin-top:6px}
.file{color:var(--dim);font-size:13px;margin-left:6px}
.facts dl{display:flex;flex-wrap:wrap;background:var(--card);border:1px solid var(--line);border-radius:10px;
overflow:hidden;margin:12px 0 0}
.facts dl>div{flex:1 1 auto;min-width:140px;padding:8px 12px;border-right:1px solid var(--line);
border-bottom:1px solid var(--line);
margin:0 -1px -1px 0}
.facts dt{font-size:12px;color:var(--dim);text-transform:uppercase;letter-spacing:.04em}
.facts dd{margin:2px 0 0}
.pair{display:flex;gap:20px;align-items:flex-start;flex-wrap:wrap}
.figs{display:flex;gap:16px;flex-wrap:wrap}
.side{flex:1 1 320px;min-width:280px}
figure{margin:0}
.shot .frame{position:relative;line-height:0;border:1px solid var(--line);border-radius:10px;overflow:hidden;
background:#fff}
.shot img{display:block;width:100%;height:auto}
.shot.view{width:300px;max-width:100%}
.shot.thumb{width:134px;flex:none}
.shot figcaption{font-size:13px;margin-top:6px;max-width:300px}
.noframe{display:flex;align-items:center;justify-content:center;text-align:center;aspect-ratio:402/874;
border:1px dashed var(--line);border-radius:10px;color:var(--dim);font-size:12px;padding:8px}
.box{position:absolute;border-radius:3px;outline:2px solid var(--k);outline-offset:1px;
box-shadow:0 0 0 4px rgba(255,255,255,.6)}
.box.tap{--k:var(--tap)}.box.old{--k:var(--old);outline-style:dashed;outline-offset:5px;box-shadow:none}.box.pass{--k:var(--pass)}.box.fail{--k:var(--fail)}
.box b{position:absolute;left:-2px;top:-2px;transform:translate(-50%,-50%);background:var(--k);color:#fff;
font:700 11px/18px system-ui,sans-serif;min-width:18px;height:18px;border-radius:9px;text-align:center;padding:0 4px}
.asserts{list-style:none;margin:0;padding:0}
.asserts li{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--c);border-radius:8px;
padding:8px 12px;margin:0 0 8px}
.asserts li.ok{--c:var(--pass)}.asserts li.bad{--c:var(--fail)}
.asserts .num{display:inline-block;min-width:20px;height:20px;border-radius:10px;background:var(--c);color:#fff;
text-align:center;font-size:12px;font-weight:700;line-height:20px;margin-right:6px}
.asserts .res{font-weight:600;color:var(--c)}
.asserts .obs{color:var(--dim);font-size:13px;margin-top:4px}
.reason{color:var(--fail)}
.heal{background:var(--card);border:1px solid var(--line);border-left:6px solid var(--heal);border-radius:10px;
padding:14px 16px;margin:0 0 16px}
.heal .why{color:var(--dim)}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:16px;margin:12px 0}
.sbs>div{background:var(--bg);border-radius:8px;padding:8px 10px}
.k-old{color:var(--old);font-weight:600}.k-tap{color:var(--tap);font-weight:600}
.actions{margin:0;padding-left:20px;font-size:14px}
.cmds{margin-top:12px}
.steps{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(350px,1fr));gap:12px}
.step{display:flex;gap:12px;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px}
.step.drifted,.step.failing{border-color:var(--fail);box-shadow:0 0 0 1px var(--fail)}
.step .body{min-width:0;flex:1}
.step .title{display:flex;gap:8px;align-items:center}
.step .n{font-weight:700;font-size:18px}
.step .text{font-weight:600}
.step .why{font-size:13px}
.step .metrics{font-size:12px;color:var(--dim)}
.badge{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.05em;border-radius:999px;padding:2px 8px;
color:#fff;background:var(--b)}
.b-replay{--b:var(--pass)}.b-healed{--b:var(--heal)}.b-smart{--b:var(--smart)}.b-live{--b:var(--live)}
.b-drifted{--b:var(--fail)}.b-other{--b:var(--dim)}
details>summary{cursor:pointer;list-style:none}
details>summary::-webkit-details-marker{display:none}
details>summary h2{display:inline-block}
details>summary h2::before{content:"▸ ";color:var(--dim)}
details[open]>summary h2::before{content:"▾ "}
table{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
.masked{font-weight:600}
.oc-ok{color:var(--pass)}.oc-unknown,.oc-refused{color:var(--fail)}.oc-not_sent{color:var(--review)}
.matrix th[scope=row]{min-width:220px}
.cell a{text-decoration:none;color:inherit}
.cell{color:var(--c);font-weight:600}
.cell .dim{font-weight:400}
.cell .msg{color:var(--fg);font-weight:400;font-size:13px}
td.none{color:var(--dim)}
ul.bad,ul.heals{padding-left:20px}
@media (max-width:760px){.sbs{grid-template-columns:1fr}}
@media print{:root{--bg:#fff;--fg:#000;--card:#fff;--code:#f2f2f2;color-scheme:light}
body{font-size:11pt}main{max-width:none;padding:0}footer{padding:0}
.step,.heal,.asserts li,figure,tr{break-inside:avoid}
.box,.badge,.asserts .num,.verdict{-webkit-print-color-adjust:exact;print-color-adjust:exact}
details>summary h2::before{content:""}
details::details-content{content-visibility:visible;display:contents}
a{color:inherit}}
"""
