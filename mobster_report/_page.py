"""What every page shares: the document around its body, its policy and its style.

Rule 1 (self-contained): one file; the Content-Security-Policy ``<meta>`` (:data:`CSP`) comes first
        in ``<head>``, the style is this module's constant, and there is no script: what opens and
        closes is ``<details>``.
Rule 2 (contrast, WCAG AA): in each theme (light, and dark where the screen prefers it) every
        colour text is written in has 4.5:1 against every colour it is written on: the status
        colours (``--pass``, ``--fail``, ``--review``, ``--cant``, ``--heal``, ``--smart``,
        ``--live``, ``--dim``, the inks ``--tap-ink`` and ``--old-ink``) against the backgrounds
        (``--bg``, ``--card``, ``--code``) and against ``--on``, the text on a status-coloured badge,
        number or chip (white in the light theme, the page's dark in the dark one). The outlines
        laid on pictures keep their vivid ``--tap`` and ``--old`` (no text is written on them);
        their legend's words and the chips on them use the inks. Paper is printed in the light
        palette whatever the screen's theme.
"""

from __future__ import annotations

__all__ = ["CSP", "VERDICTS", "page"]

#: Rule 1's policy, exactly as the page's ``<meta>`` holds it.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

#: A verdict's mark and words.
VERDICTS = {
    "passed": ("✓", "passed"),
    "failed": ("✗", "failed"),
    "needs_review": ("?", "needs review"),
    "couldnt_run": ("!", "couldn't run"),
}


def page(title: str, body: str) -> str:
    """A whole page: the policy first in ``<head>`` (Rule 1), the style, ``body``; ``title`` is escaped already."""
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


# Rule 2: the two palettes; the dark one is the screen's only (``screen and``): paper gets the light one.
_CSS = """
:root{--bg:#f6f7f9;--fg:#1b1f24;--dim:#5c6570;--card:#fff;--line:#d8dde3;--code:#eef1f4;--on:#fff;
--pass:#197a35;--fail:#cf222e;--review:#8f6000;--cant:#7c4cd4;--tap:#ff0a78;--old:#e36209;
--tap-ink:#cf0861;--old-ink:#af4b07;--heal:#7c4cd4;--smart:#0969da;--live:#8b6300;color-scheme:light dark}
@media screen and (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#9198a1;--card:#161b22;
--line:#30363d;--code:#1f2630;--on:#0d1117;--pass:#3fb950;--fail:#f85149;--review:#d29922;--cant:#a371f7;
--tap:#ff4d9d;--old:#f0883e;--tap-ink:#ff4d9d;--old-ink:#f0883e;--heal:#a371f7;--smart:#58a6ff;--live:#d29922}}
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
.box.tap{--k:var(--tap);--ki:var(--tap-ink)}.box.old{--k:var(--old);--ki:var(--old-ink);outline-style:dashed;
outline-offset:5px;box-shadow:none}.box.pass{--k:var(--pass)}.box.fail{--k:var(--fail)}
.box b{position:absolute;left:-2px;top:-2px;transform:translate(-50%,-50%);background:var(--ki,var(--k));
color:var(--on);font:700 11px/18px system-ui,sans-serif;min-width:18px;height:18px;border-radius:9px;
text-align:center;padding:0 4px}
.asserts{list-style:none;margin:0;padding:0}
.asserts li{background:var(--card);border:1px solid var(--line);border-left:5px solid var(--c);border-radius:8px;
padding:8px 12px;margin:0 0 8px}
.asserts li.ok{--c:var(--pass)}.asserts li.bad{--c:var(--fail)}
.asserts .num{display:inline-block;min-width:20px;height:20px;border-radius:10px;background:var(--c);color:var(--on);
text-align:center;font-size:12px;font-weight:700;line-height:20px;margin-right:6px}
.asserts .res{font-weight:600;color:var(--c)}
.asserts .obs{color:var(--dim);font-size:13px;margin-top:4px}
.reason{color:var(--fail)}
.heal{background:var(--card);border:1px solid var(--line);border-left:6px solid var(--heal);border-radius:10px;
padding:14px 16px;margin:0 0 16px}
.heal .why{color:var(--dim)}
.sbs{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;margin:12px 0}
.sbs>div{background:var(--bg);border-radius:8px;padding:8px 10px}
.k-old{color:var(--old-ink);font-weight:600}.k-tap{color:var(--tap-ink);font-weight:600}
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
color:var(--on);background:var(--b);overflow-wrap:anywhere}
.b-replay{--b:var(--pass)}.b-healed{--b:var(--heal)}.b-smart{--b:var(--smart)}.b-live{--b:var(--live)}
.b-drifted{--b:var(--fail)}.b-other{--b:var(--dim)}
details>summary{cursor:pointer;list-style:none}
details>summary::-webkit-details-marker{display:none}
details>summary h2{display:inline-block}
details>summary h2::before{content:"▸ ";color:var(--dim)}
details[open]>summary h2::before{content:"▾ "}
table{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.masked{font-weight:600}
.oc-ok{color:var(--pass)}.oc-unknown,.oc-refused{color:var(--fail)}.oc-not_sent{color:var(--review)}
.matrix th[scope=row]{min-width:220px}
.cell a{text-decoration:none;color:inherit}
.cell{color:var(--c);font-weight:600}
.cell .dim{font-weight:400}
.cell .msg{color:var(--fg);font-weight:400;font-size:13px}
.attempts li{color:var(--c)}
td.none{color:var(--dim)}
ul.bad,ul.heals{padding-left:20px}
@media (max-width:760px){.sbs{grid-template-columns:minmax(0,1fr)}}
@media print{:root{--bg:#fff;--fg:#000;--card:#fff;--code:#f2f2f2;color-scheme:light}
body{font-size:11pt}main{max-width:none;padding:0}footer{padding:0}
.step,.heal,.asserts li,figure,tr{break-inside:avoid}
.box,.badge,.asserts .num,.verdict{-webkit-print-color-adjust:exact;print-color-adjust:exact}
details>summary h2::before{content:""}
details::details-content{content-visibility:visible;display:contents}
a{color:inherit}}
"""
