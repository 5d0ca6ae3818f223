"""The suite's page, ``index.html``: a checks-by-devices matrix linking to each run's ``report.html``.

Rule 1: one column per device: the pool's label for it (``device_label``) and the device as it
        says it is (name and iOS); two phones of one model are two columns. Columns are in the
        pool's order (labels compared with their numbers as numbers: ``sim-2`` before ``sim-10``).
Rule 1a: a suite that ran on more than one platform groups its columns by platform (iOS's, then
        Android's, each in the pool's order) under a header row naming each platform, so a check's
        row reads as its path per platform; a suite of one platform has no such row.
Rule 2: one row per check, in the order of the check files (path, then name); in a cell, the
        runs of that check on that device in the order the results list them (the attempts, and
        merged suites in the order they were given).

It follows the run page's rules (``_run_page``): self-contained, every outside string escaped
(``_text``), and links only relative ones, each path segment percent-encoded.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from mobster_core.text import valid_text

from ._page import VERDICTS as _VERDICTS
from ._page import page as _page
from ._text import attr as _a
from ._text import cost as _cost
from ._text import items as _list
from ._text import mapping as _map
from ._text import number as _num
from ._text import seconds as _seconds
from ._text import string as _str
from ._text import text as _t

__all__ = ["render_suite", "report_href"]

#: How a suite's cell names a run's mode.
_MODES = {"replay": "replayed", "smart": "recorded by Smart", "launch": "launch only"}


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
    parts = [_suite_header(results, summary, checks), _pass_rates(results)]
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
    parts.append(_matrix(checks, here))
    return _page(f"suite {_a(suite_id, 80)}", "".join(parts))


def _matrix(checks: Sequence[Mapping[str, Any]], here: str) -> str:
    """Rules 1 and 2: the checks-by-devices matrix, a column per device and a row per check file."""
    devices: list[tuple[str, str]] = []
    platforms: dict[tuple[str, str], str] = {}
    rows: dict[tuple[str, str], dict[tuple[str, str], list[Mapping[str, Any]]]] = {}
    for c in checks:
        dkey = _device_key(c)
        if dkey not in devices:
            devices.append(dkey)
            platforms[dkey] = _platform_of(c)
        rows.setdefault((_str(c, "file"), _str(c, "name")), {}).setdefault(dkey, []).append(c)
    devices.sort(key=lambda d: (_PLATFORM_ORDER.get(platforms[d], 2), _natural(d[0]), _natural(d[1])))
    groups = list(dict.fromkeys(platforms[d] for d in devices))
    over = ""
    if len(groups) > 1:  # Rule 1a
        spans = [(g, sum(1 for d in devices if platforms[d] == g)) for g in groups]
        named = "".join(f"<th scope=colgroup colspan={n}>{_t(_PLATFORM_NAMES.get(g, g))}</th>" for g, n in spans)
        over = f"<tr><td></td>{named}</tr>"
    head = "".join(
        "<th scope=col>"
        + (f"<bdi class=label>{_t(label, 200)}</bdi><div class=file><bdi>{_t(d, 200)}</bdi></div>" if label else
           f"<bdi>{_t(d, 200)}</bdi>")
        + "</th>"
        for label, d in devices
    )  # fmt: skip
    body = []
    for (file, name), cells in sorted(rows.items(), key=lambda row: (_natural(row[0][0]), _natural(row[0][1]))):
        tds = "".join(
            "<td>" + "".join(_cell_link(c, here) for c in cells.get(d, [])) + "</td>"
            if d in cells
            else "<td class=none>—</td>"
            for d in devices
        )
        body.append(f"<tr><th scope=row><bdi>{_t(name)}</bdi><div class=file>{_t(file)}</div></th>{tds}</tr>")
    return (
        "<section id=matrix><h2>Checks &times; devices</h2>"
        f"<table class=matrix><thead>{over}<tr><th scope=col>check</th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
        "</section>"
    )


#: Rule 1a: the platforms' order and names in the matrix; a run with no device read is "no device".
_PLATFORM_ORDER = {"ios": 0, "android": 1}
_PLATFORM_NAMES = {"ios": "iOS", "android": "Android", "": "no device"}


def _platform_of(c: Mapping[str, Any]) -> str:
    """A run's platform: its ``platform``, else its device's (``platform: android`` only on Android), else ""."""
    device = _map(c.get("device"))
    named = _str(c, "platform") or (_str(device, "platform") if device else "")
    return named or ("ios" if device else "")


def _device_key(c: Mapping[str, Any]) -> tuple[str, str]:
    """A run's column: the pool's label for its device (``""`` without one), and the device as it says it is."""
    device = _map(c.get("device"))
    system = "Android API" if device and device.get("platform") == "android" else "iOS"
    name = f"{_str(device, 'name')}, {system} {_str(device, 'ios')}" if device else "no device"
    return _str(c, "device_label"), name


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """``sim-2`` before ``sim-10``: digits compare as numbers (each part tagged, so parts always compare)."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", text) if part)


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
    flaky = _num(summary.get("flaky"))
    if flaky:
        line += f", {flaky:.0f} flaky (passed on a retry)"
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
        device, pool = _map(c.get("device")), _str(c, "device_label")
        named = f"<bdi>{_t(device.get('name'), 200)}</bdi>" if device else ""
        if pool:  # a pool's device: its label, then what it is
            named = f"<bdi>{_t(pool, 200)}</bdi>" + (f" ({named})" if named else "")
        where = f" on {named}" if named else ""
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
    label += _flaky_badge(c)
    inner = f'<a href="{href}">{label}</a>' if href else label
    return f'<div class="cell v-{vclass}">{inner}{_attempt_links(c, here)}</div>'


def _flaky_badge(c: Mapping[str, Any]) -> str:
    """A run of ``--repeat`` says which; a check that passed on a retry is badged ``flaky``."""
    badge = ""
    repeat = _map(c.get("repeat"))
    if repeat:
        badge += f" <span class=dim>run {_t(repeat.get('run'), 10)} of {_t(repeat.get('of'), 10)}</span>"
    if c.get("flaky") is True:
        badge += ' <span class="badge b-other flaky" title="passed on a retry">flaky</span>'
    return badge


def _attempt_links(c: Mapping[str, Any], here: str) -> str:
    """A retried check's earlier attempts, each linked to its own run's report, in its own verdict's colour."""
    attempts = [_map(a) for a in _list(c.get("attempts"))]
    if len(attempts) < 2:  # one attempt is the run itself
        return ""
    items = []
    for n, a in enumerate(attempts[:-1], start=1):
        href = report_href(_str(a, "run_dir"), here)
        verdict = _str(a, "verdict")
        vclass = verdict if verdict in _VERDICTS else "unknown"
        mark, word = _VERDICTS.get(verdict, ("•", verdict or "unknown"))
        cls = _str(a, "class")
        said = f"attempt {n} of {len(attempts)}: {mark} {_t(word, 40)}" + (f" ({_t(cls, 80)})" if cls else "")
        # Each attempt in its own verdict's colour and words, not the cell's (the check's last verdict).
        inner = f'<a href="{href}">{said}</a>' if href else said
        items.append(f'<li class="v-{vclass}">{inner}</li>')
    return f"<ul class=attempts>{''.join(items)}</ul>"


def _pass_rates(results: Mapping[str, Any]) -> str:
    """``--repeat``'s pass rates: each check's (and device's) runs that passed."""
    rates = [_map(r) for r in _list(results.get("pass_rates"))]
    if not rates:
        return ""
    rows = []
    for r in rates:
        passed, runs = _num(r.get("passed")) or 0, _num(r.get("runs")) or 0
        share = f"{round(100 * passed / runs)}%" if runs else "-"
        device = f" on <bdi>{_t(r.get('device_label'), 200)}</bdi>" if r.get("device_label") else ""
        rows.append(
            f"<tr><th scope=row><bdi>{_t(r.get('name'))}</bdi>{device}</th>"
            f"<td>{passed:.0f}/{runs:.0f}</td><td>{share}</td></tr>"
        )
    return (
        "<section id=pass-rates><h2>Pass rates</h2><table class=rates>"
        "<thead><tr><th scope=col>check</th><th scope=col>passed</th><th scope=col>rate</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )
