"""axe-core, the accessibility engine, run on a page loaded in the tests' headless Chromium.

``scripts/install-validators.sh`` (``make test`` runs it) installs the pinned axe-core from npm
into ``.validators/axe``; where it could not, :func:`unavailable` says why and the tests skip
with that. The pages run no script and their Content-Security-Policy lets none run: axe is
evaluated into the loaded page over the DevTools protocol (``Runtime.evaluate``, which the page's
policy doesn't govern), so the page under test is the product's own file, policy and all.

What :func:`audit` returns: every violation of every rule axe runs by default (WCAG 2.0 to 2.2 A
and AA, and its best practices; colour contrast at 4.5:1 for text) as one line each, and every
result axe could not decide (``incomplete``) except a contrast it can't measure on a glyph that
is no text (the verdict's ``✓``, whose colour the palette test holds).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from tests.browser import Browser

#: axe-core's folder (scripts/install-validators.sh).
HOME = Path(__file__).resolve().parents[1] / ".validators"
SCRIPT = HOME / "axe" / "node_modules" / "axe-core" / "axe.min.js"
#: The version the install pins (its package.json says it).
VERSION = "4.14.1"

_RUN = """
axe.run(document, {resultTypes: ['violations', 'incomplete']}).then(r => ({
  version: axe.version,
  violations: r.violations.flatMap(v => v.nodes.map(n =>
    `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.failureSummary.replace(/\\s+/g, ' ')}`)),
  incomplete: r.incomplete.flatMap(v => v.nodes
    .filter(n => !(v.id === 'color-contrast' && n.any.every(a => a.data && a.data.messageKey === 'nonBmp')))
    .map(n => `${v.id} (undecided): ${n.target.join(' ')}: ${n.any.map(a => a.message).join('; ')}`)),
}))
"""


def unavailable() -> str | None:
    """None when the pinned axe-core is installed, else why not (what a test skips with)."""
    package = SCRIPT.parent / "package.json"
    if SCRIPT.is_file() and package.is_file() and json.loads(package.read_text("utf-8")).get("version") == VERSION:
        return None
    reason = HOME / "axe-core.unavailable"
    if reason.is_file():
        return f"axe-core isn't installed here: {reason.read_text('utf-8').strip()}"
    return f"axe-core {VERSION} isn't in {SCRIPT.parent}: run `make test` (or bash scripts/install-validators.sh)"


@functools.cache
def _source() -> str:
    return SCRIPT.read_text("utf-8")


def audit(browser: Browser) -> list[str]:
    """axe's findings on the page the browser shows now (load it first): empty when it passes."""
    browser.evaluate(_source() + ";0")
    result = browser.evaluate(_RUN)
    assert result["version"] == VERSION, result["version"]
    return [*result["violations"], *result["incomplete"]]
