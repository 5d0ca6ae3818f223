r"""A check run's page, ``report.html`` (pure: data in, text out; the suite's is ``_suite_page``).

A person opens the report at 2 a.m. from a CI artifact and wants to see what happened: the
verdict and where the run stopped come first, then what healed, then the assertions, then every
step with the screen it acted on and why the replay trusted it, then the journal.

Rule 1 (self-contained): one file; pictures are ``data:`` URIs; the only other links are relative
        ones to files beside the report (full frames, ``result.json``, other runs' reports, the
        run's ``video.mp4``), and a cloud's page of the session's video: an ``https`` link whose
        host is the provider's (:data:`VIDEO_HOSTS`), its path percent-encoded segment by segment.
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
Rule 5 (frames): a step's pictures are those of the frame its ``frame`` names, the final screen's
        those of ``frames/final``, each as a thumbnail, a view and a full PNG (``_frames``); a
        step without a frame says so.
"""

from __future__ import annotations

import base64
import html
import json
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import attrs

from mobster_core.exceptions import UnsafeFile
from mobster_core.files import read_private
from mobster_core.results import SIMILAR, SIMILAR_SETTLED, FinishedEarly, Mode

from ._frames import FINAL, base_of, heal_frames
from ._frames import frame_file as _frame_file
from ._page import VERDICTS as _VERDICTS
from ._page import page as _page
from ._pictures import sniff
from ._recorded import recorded_base
from ._text import MAX_CELL
from ._text import attr as _a
from ._text import cost as _cost
from ._text import items as _list
from ._text import mapping as _map
from ._text import number as _num
from ._text import percent as _percent
from ._text import quoted as _q
from ._text import seconds as _seconds
from ._text import string as _str
from ._text import text as _t

__all__ = ["EMBED_BUDGET", "RunReport", "render_run"]

#: Rule 3: the most picture bytes a page embeds (before base64), about 8 MB once encoded.
EMBED_BUDGET = 6 * 1024 * 1024
#: The most journal entries a page lists (the rest stay in ``journal.jsonl``).
MAX_JOURNAL = 2000
#: The largest picture file read from disk, in bytes.
MAX_PICTURE_FILE = 32 * 1024 * 1024

_SOURCES = {
    "replay": "replayed",
    "healed": "healed",
    "smart": "Smart",
    "live": "live",
}
#: How the summary counts steps by source.
_COUNTED = {"replay": "replayed", "healed": "healed", "smart": "by Smart", "live": "typed live"}


@attrs.frozen
class RunReport:
    """What a check run's ``report.html`` shows.

    ``result`` is the run's ``result.json`` (``CheckResult.to_dict()``); a step may also hold a
    ``target`` (``{label, role, id, frame}``, as a heal's actions do) and an assertion ``matches``
    (a list of ``{label, role, frame}``), which the page outlines. ``journal`` is the run's
    journal entries (``read_journal``). ``frames`` maps a frame's file name in the run folder
    (``frames/step-003-before.thumb.jpg``) to its bytes or its path. ``rerun`` is the command that runs the
    check again (``mobster test <file>`` when None). ``note`` is said at the top of the page
    (plain text: why it has no pictures, when it has none).
    """

    result: Mapping[str, Any]
    journal: Sequence[Mapping[str, Any]] = ()
    frames: Mapping[str, bytes | Path] = attrs.field(factory=dict)
    rerun: str | None = None
    note: str | None = None


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

    def same(self, one: str | None, other: str, size: str) -> bool:
        """Whether two frames show the same picture (the same bytes) at this size."""
        data = None if one is None else self._first(one, size)
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
    heals = [_map(h) for h in _list(r.get("heals"))]
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
    notes = [] if report.note is None else [f"<p class=note>{_t(report.note)}</p>"]
    if pictures.left_out:
        notes.append(
            f"<p class=note>{pictures.left_out} picture{'s' if pictures.left_out != 1 else ''} left out: "
            "the page's picture budget is spent. The run folder's <code>frames/</code> keeps what the run kept.</p>",
        )
    parts[2:2] = notes
    title = f"{_a(word, 80)}: {_a(r.get('name'), 200)}"
    return _page(title, "".join(parts))


#: What to look at first, by failure class (the message says what happened; this says where to look).
_HINTS = {
    "drift": "A step's screen changed. If the app changed on purpose, let the step heal (run with a model) "
    "or record the path again; if it didn't, the check caught a bug.",
    "assertion": "The steps ran, and the final screen doesn't show what the check expects: compare it with the "
    "failed assertions.",
    "heal_limit": "Too many recorded steps changed to heal them safely: record the path again.",
    "review_heal": "A heal waits for review, and this build doesn't fit it: review it (<code>mobster test heal</code> "
    "shows it, then accept or reject it), or record the path again.",
    "settle_heal": "A heal waits for review at this step, and this build doesn't fit it: it is never healed over. "
    "Settle it first (<code>mobster test heal --accept</code> or <code>--reject</code>).",
    "undo_reject": "This step's heal was rejected, so it keeps failing when its screen changes: a model doesn't heal "
    "it. If the change is right, undo the reject (<code>mobster test heal --unreject</code>) and run it with a model, "
    "or record the path again; if it isn't, the check caught a bug.",
    "steps_skipped": "The check asks for all its steps, and the run ended before its last one: look at the steps "
    "that ran, and at the screen where they stopped.",
    "unknown_outcome": "An action may or may not have happened. Look at the app before running again; the "
    "journal says which action.",
    "app_not_running": "The app was not in front at the end: it crashed, or the flow left it.",
    "refused": "An action was refused by the safety rules; the message says which rule.",
    "stopped": "The run was stopped from outside; an action in flight may or may not have happened.",
}


#: The fixes whose hint says more than their class's: what the run can't do by itself.
_FIX_HINTS = frozenset({"review_heal", "settle_heal", "undo_reject"})


def _header(r: Mapping[str, Any], mark: str, word: str, vclass: str, heals: Sequence[Mapping[str, Any]]) -> str:
    cls = r.get("class")
    message = _str(r, "message")
    badge = f" <span class=cls>{_t(cls, 80)}</span>" if cls else ""
    lines = f"<p class=msg>{_t(message)}</p>" if message else ""
    fix = _map(r.get("fix")).get("code")
    hint = _HINTS.get(fix if fix in _FIX_HINTS else cls) if isinstance(cls, str) else None
    if hint:
        lines += f"<p class=hint>{hint}</p>"
    early = finished_early(r)
    if early is not None and r.get("verdict") == "passed":  # a steps_skipped failure says it in its message
        lines += f"<p class=hint id=finished-early>{_t(early.held)}</p>"
    if heals:
        healed, n = _steps_healed(r, "healed step")
        lines += (
            f'<p class=hint><a href="#heals">{healed}</a> '
            f"{'waits' if n == 1 else 'wait'} for review: <code>mobster test heal</code></p>"
        )
    return (
        f'<header class="verdict v-{vclass}"><div class=mark aria-hidden="true">{mark}</div><div>'
        f"<h1><span class=word>{_t(word, 80)}</span>{badge}</h1>{lines}"
        f"<p class=name><bdi>{_t(r.get('name'), 1000)}</bdi> <span class=file>{_t(r.get('file'), 1000)}</span></p>"
        "</div></header>"
    )


def finished_early(r: Mapping[str, Any]) -> FinishedEarly | None:
    """The result's ``finished_early`` (Smart ended after step 1 of 3), None when absent or not one."""
    early = _map(r.get("finished_early"))
    after, of, by, why = early.get("after_step"), early.get("of"), early.get("by"), early.get("why")
    if not (isinstance(after, int) and isinstance(of, int) and by in ("smart", "replay")):
        return None
    return FinishedEarly(after, of, Mode(by), why if isinstance(why, str) else None)


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
                f"<bdi>{_t(device.get('name'), 200)}</bdi>, {_os(device)}"
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
    shown = _t(mode, 40) if mode else "<span class=dim>none: the run ended before its steps</span>"
    rows.append(("Mode", shown + (f" <span class=dim>· {counts}</span>" if counts else "")))
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
        rows.append(("Healed", f"{_steps_healed(r)[0]}, waiting for review"))
    video = _video(r)
    if video:
        rows.append(("Video", video))
    cells = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in rows)
    return f"<section class=facts aria-label=Summary><dl>{cells}</dl></section>"


#: Rule 1: the run's own video, the one name a run folder gives it (``_run/controls``).
VIDEO_FILE = "video.mp4"
#: Rule 1: the hosts of the clouds' pages of a session's video.
VIDEO_HOSTS = frozenset({"app.saucelabs.com", "app-automate.browserstack.com"})
_SAUCE_REGION = re.compile(r"app\.[a-z0-9-]{1,40}\.saucelabs\.com")


def _video(r: Mapping[str, Any]) -> str:
    """Rule 1: the links to the run's video and the cloud's; "" when there is neither."""
    links: list[str] = []
    if r.get("video") == VIDEO_FILE:
        links.append(f'<a href="{VIDEO_FILE}">{VIDEO_FILE}</a>')
    url = r.get("video_url")
    if isinstance(url, str):
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme == "https" and (host in VIDEO_HOSTS or _SAUCE_REGION.fullmatch(host)) and not parts.port:
            path = "/".join(quote(unquote(seg), safe="") for seg in parts.path.split("/"))
            links.append(f'<a href="https://{host}{path}" rel="noreferrer">the cloud\'s video of the session</a>')
    return " · ".join(links)


def _steps_healed(r: Mapping[str, Any], noun: str = "step") -> tuple[str, int | None]:
    """``2 steps``: the result's own count (``CheckResult.healed_steps``), and the count (None without one)."""
    n = _num(r.get("healed_steps"))
    if n is None:  # a document without the count: say there are some
        return f"{noun}s", None
    return f"{n:.0f} {noun}{'s' if n != 1 else ''}", int(n)


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
    """``3 replayed, 1 drifted``: how the steps ran; a step that drifted sent nothing, so it is no replayed one."""
    counts: dict[str, int] = {}
    for s in steps:
        source = "drifted" if s.get("reason") is not None else _str(s, "source")
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
        base = base_of(s.get("frame"))
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
            + _recorded_figure(pictures, number)
            + pictures.figure(before, "view", alt="the screen the step drifted on", marks=marks, caption=legend)
            + pictures.figure(after, "view", alt="the screen after the heal", caption="<b>After the heal</b>")
            + "</div>"
            "<div class=cmds><p>Keep the healed steps, or bring the recorded ones back and keep failing:</p>"
            f"<pre><code>mobster test heal --accept {_t(name)}\nmobster test heal --reject {_t(name)}</code></pre>"
            "</div></article>"
        )
    n = len(heals)
    return f"<section id=heals><h2>{n} heal{'s' if n != 1 else ''} to review</h2>{''.join(cards)}</section>"


def _recorded_figure(pictures: _Pictures, step: float | None) -> str:
    """The screen the healed step was sent on when it was recorded (``_recorded`` Rule 2), or why there is none."""
    if step is None or step != int(step) or not 1 <= step <= 999:
        return ""
    base = recorded_base(int(step))
    if not pictures.has(base):
        return (
            '<figure class="shot view"><div class=noframe>recorded screen not kept on this machine</div>'
            "<figcaption><b>As recorded</b></figcaption></figure>"
        )
    return pictures.figure(base, "thumb", alt="the screen as the step was recorded", caption="<b>As recorded</b>")


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
        fig = pictures.figure(base_of(s.get("frame")), "thumb", alt=f"the screen before step {shown}", marks=marks)
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


#: The journal's keys the table shows in its own columns (or, as ``frame``, beside the step): the rest are listed.
_JOURNAL_KEYS = (
    "seq", "event", "key", "op", "step", "source", "target", "text", "masked", "outcome", "detail", "frame",
)  # fmt: skip


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


def _os(device: Mapping[str, Any]) -> str:
    """The device's OS as the result names it: ``iOS 26.4``; on Android (``platform``) its release and API level."""
    if device.get("platform") != "android":
        return f"iOS {_t(device.get('ios'), 40)}"
    release = device.get("release")
    api = _t(device.get("ios"), 40)
    return f"Android {_t(release, 40)} (API {api})" if isinstance(release, str) and release else f"Android API {api}"
