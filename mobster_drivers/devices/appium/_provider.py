"""How each device cloud is told a session's name and verdict: the scripts to execute. Pure.

Rule 1: the conventions are the providers' documented JavaScript-executor commands, sent as
        ``POST /session/{id}/execute/sync`` with no arguments:

        ============  ==============================================================  ==========================
        provider      verdict                                                         name
        ============  ==============================================================  ==========================
        BrowserStack  ``browserstack_executor: {"action": "setSessionStatus",         ``setSessionName``
                      "arguments": {"status": "passed"|"failed", "reason": …}}``
        Sauce Labs    ``sauce:job-result=passed|failed``                              ``sauce:job-name=…``
        LambdaTest    ``lambda-hook: {"action": "setTestStatus",                      ``lambda-name=…``
                      "arguments": {"status": "passed"|"failed", "remark": …}}``
        ============  ==============================================================  ==========================

Rule 2: the providers know two outcomes. ``passed`` is passed; ``failed`` and ``couldnt_run``
        are failed (the reason says which); ``needs_review`` (no assertions decided it) sets no
        status, only the name: the dashboard shows the session unmarked.
Rule 3: a name or reason is one line of at most 255 characters (LambdaTest's limit for a remark,
        the smallest of the three); longer text is cut with ``…``.
"""

from __future__ import annotations

import json

from mobster_core import Verdict

from ._caps import Provider

__all__ = ["MAX_TEXT", "provider_scripts"]

#: The longest name or reason sent (Rule 3).
MAX_TEXT = 255


def provider_scripts(provider: Provider, name: str, verdict: Verdict, reason: str) -> list[str]:
    """The scripts that name the session after the check and tell its verdict (module rules)."""
    name = _one_line(name)
    reason = _one_line(reason)
    status = {Verdict.PASSED: "passed", Verdict.FAILED: "failed", Verdict.COULDNT_RUN: "failed"}.get(verdict)
    if verdict is Verdict.COULDNT_RUN and not reason.startswith("couldn't run"):
        reason = _one_line(f"couldn't run: {reason}" if reason else "couldn't run")
    scripts: list[str] = []
    if provider is Provider.BROWSERSTACK:
        scripts.append(_executor("browserstack_executor", "setSessionName", {"name": name}))
        if status is not None:
            scripts.append(_executor("browserstack_executor", "setSessionStatus", {"status": status, "reason": reason}))
    elif provider is Provider.SAUCE:
        scripts.append(f"sauce:job-name={name}")
        if status is not None:
            scripts.append(f"sauce:job-result={status}")
    elif provider is Provider.LAMBDATEST:
        scripts.append(f"lambda-name={name}")
        if status is not None:
            scripts.append(_executor("lambda-hook", "setTestStatus", {"status": status, "remark": reason}))
    return scripts


def _executor(prefix: str, action: str, arguments: dict[str, str]) -> str:
    return f"{prefix}: {json.dumps({'action': action, 'arguments': arguments}, ensure_ascii=False)}"


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1] + "…"
