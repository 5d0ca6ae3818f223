"""A fix is a code with arguments (``_rules/fixes``): the core's messages name no front end's option."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

import mobster_core as mc
from mobster_core.results import FIX_ARGS, Fix, FixCode, joined, spell_fix

#: The options and commands of the front ends: none may appear in a message the core makes.
FRONT_END_WORDS = re.compile(
    r"--(no-heal|fresh|model|carry|max-usd|reject|accept|env-file|scripted|sim|wda|device|appium|frames|json)\b"
    r"|--mobster-|mobster test|RunOptions\("
)
#: Text of the core that names a front end on purpose, and why.
NAMED_ON_PURPOSE = {
    # The heal file is a file for people, in the pull request: it says how to review it, and only
    # the mobster command reviews heals (the plugin has no review of its own).
    ("_store/healfile.py", "_HEADER"),
    # The testsuite's name in junit.xml, which CI shows: not a message.
    ("_results/junit.py", "junit_xml"),
    # The Python spelling of each fix (Rule 2): the one front end that lives in the core.
    ("_rules/verdict/fixes.py", "_PYTHON"),
}
CORE = pathlib.Path(mc.__file__).parent


def sample(code: FixCode) -> Fix:
    return Fix(code, {name: f"<{name}>" for name in FIX_ARGS[code]})


def test_every_code_has_its_arguments_a_sentence_and_a_python_spelling() -> None:
    for code in FixCode:
        fix = sample(code)
        assert fix.sentence, code
        assert spell_fix(fix), code
        assert not FRONT_END_WORDS.search(fix.sentence), (code, fix.sentence)
        assert any(word in spell_fix(fix) for word in ("RunOptions(", "model=", "mobster_core.")), code
        assert "--" not in spell_fix(fix), code  # Python has no flags


def test_the_codes_are_stable_values() -> None:
    assert {c.value for c in FixCode} == {
        "record_again", "give_model", "run_without_no_heal", "review_heal", "settle_heal", "undo_reject"
    }  # fmt: skip


def test_a_fix_takes_exactly_its_codes_arguments_as_text() -> None:
    with pytest.raises(ValueError, match="the fix give_model takes the text arguments: none; got"):
        Fix(FixCode.GIVE_MODEL, {"name": "X"})
    assert Fix("record_again") == Fix(FixCode.RECORD_AGAIN, {})
    assert hash(Fix("record_again")) == hash(Fix(FixCode.RECORD_AGAIN))  # an outcome can be hashed
    fix = Fix(FixCode.GIVE_MODEL)
    with pytest.raises(TypeError):
        fix.args["x"] = "y"  # type: ignore[index]  # frozen, as the outcome that holds it


def test_a_message_and_a_fix_read_as_one_sentence() -> None:
    assert joined("there is no model to record one", "give it one") == "there is no model to record one; give it one"
    assert joined("the message", None) == "the message"
    assert joined("", "give it one") == "give it one"
    outcome = mc.Outcome(mc.Verdict.COULDNT_RUN, mc.FailureClass.MODEL, "no model", fix=Fix(FixCode.GIVE_MODEL))
    assert outcome.sentence == "no model; give the run a model (a model key, or the scripted model)"
    assert mc.Outcome(mc.Verdict.PASSED).sentence == ""


def test_an_outcome_counts_its_step_from_one() -> None:
    with pytest.raises(ValueError, match="a step is counted from 1"):
        mc.Outcome(mc.Verdict.FAILED, mc.FailureClass.DRIFT, "x", step=0)
    assert mc.Outcome(mc.Verdict.FAILED, mc.FailureClass.DRIFT, "x", step=3).step == 3


def test_every_fix_code_is_made_somewhere_in_the_core() -> None:
    # As for failure classes: a code the core never gives is a spelling no one reads.
    made: set[str] = set()
    for file in CORE.rglob("*.py"):
        if file.name != "fixes.py":
            made |= set(re.findall(r"FixCode\.([A-Z_]+)", file.read_text()))
    assert {c.name for c in FixCode} <= made


def _named(file: pathlib.Path) -> list[tuple[str, str, str]]:
    """Every string the module holds outside docstrings: (module, the definition it is in, the text)."""
    tree = ast.parse(file.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: list[tuple[str, str, str]] = []
    for top in tree.body:
        names = [t.id for t in getattr(top, "targets", []) if isinstance(t, ast.Name)]
        owner = getattr(top, "name", None) or (names[0] if names else "")
        if isinstance(top, ast.AnnAssign) and isinstance(top.target, ast.Name):
            owner = top.target.id
        found.extend(
            (file.relative_to(CORE).as_posix(), owner, node.value)
            for node in ast.walk(top)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        )
    return found


def test_no_message_of_the_core_names_an_option_of_a_front_end() -> None:
    said = [
        (module, owner, text)
        for file in CORE.rglob("*.py")
        for module, owner, text in _named(file)
        if FRONT_END_WORDS.search(text) and (module, owner) not in NAMED_ON_PURPOSE
    ]
    assert said == []
