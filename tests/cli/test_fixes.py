"""``mobster test`` spells every fix with its own options (``mobster_cli._fixes``)."""

from __future__ import annotations

import re

import mobster_core as mc
from mobster_cli._fixes import said, spell
from mobster_cli.main import cli, heal
from mobster_core.results import FIX_ARGS, Fix, FixCode

#: Every option the spellings name, and the command's own options: `mobster test`'s and `mobster test heal`'s,
#: read from the commands themselves, so a fix can't name an option they don't have.
OPTION = re.compile(r"--[a-z][a-z-]*")
CLI_OPTIONS = {o for command in (cli.commands["test"], heal) for p in command.params for o in p.opts}


def test_every_fix_code_is_spelled_with_the_commands_own_options() -> None:
    for code in FixCode:
        text = spell(Fix(code, {name: f"<{name}>" for name in FIX_ARGS[code]}))
        named = set(OPTION.findall(text))
        assert named, (code, text)  # a fix the command spells names what to pass
        assert named <= CLI_OPTIONS, (code, named - CLI_OPTIONS)
        assert "--mobster-" not in text
        assert "RunOptions" not in text


def test_the_terminal_says_the_message_then_the_fix() -> None:
    outcome = mc.Outcome(
        mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL, "no recorded path yet, and there is no model to record one",
        fix=Fix(FixCode.GIVE_MODEL),
    )  # fmt: skip
    assert said(outcome) == (
        "no recorded path yet, and there is no model to record one; "
        "set ANTHROPIC_API_KEY or OPENAI_API_KEY (or --env-file), or pass --model scripted"
    )
    assert said(mc.Outcome(mc.Verdict.FAILED, mc.FailureClass.ASSERTION, "text failed")) == "text failed"


def test_the_docs_table_says_each_code_as_the_command_spells_it() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    table = page.split("| fix code | `mobster test` says |", 1)[1]
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.+) \|$", table, re.MULTILINE))
    args = {"heal_file": ".mobster/checks/signup.heal.yaml", "check": "signup.yaml"}
    for code in FixCode:
        assert rows.get(code.value) == spell(Fix(code, {k: args[k] for k in FIX_ARGS[code]})), code
