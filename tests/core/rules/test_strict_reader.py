"""The strict reader base (``_rules/formats/reader``, public as ``mobster_core.yaml.StrictReader``).

Each shape is held to its exact words in both voices (a reader that advises, as a check file's
does, and one that doesn't, as an app script's), the order of a mapping's problems, the number
ranges, and, over any value YAML can give, that a shape returns the value as written or the
reader's own error, never another exception and never a converted value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, NoReturn

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobster_core.exceptions import CheckError, ScriptError
from mobster_core.yaml import Keys, StrictReader, YamlDoc, YamlProblem, dotted, load_yaml
from mobster_drivers.devices.scripted import AppScript, sample_path
from tests.strategies import examples


class Advising(StrictReader):
    """A check file's voice: every problem says what to write; nulls refused."""

    refuses_nulls = True


class Terse(StrictReader):
    """An app script's voice: what to write only where the value shows it."""

    advises = False

    def error(self, problem: YamlProblem) -> ScriptError:
        return ScriptError(str(problem))


TEXT = "top:\n  name: 3\n  list: [a, '', 7]\n  flag: 'yes'\n  wait: '1.5'\n  long: .inf\n  none:\n"


def problem_of(reader: StrictReader, read: Any) -> str:
    with pytest.raises(Exception) as info:
        read(reader)
    assert isinstance(info.value, YamlProblem | ScriptError), info.value
    return str(info.value)


def both(read: Any) -> tuple[str, str]:
    doc = load_yaml(TEXT, "f.yaml")
    return problem_of(Advising(doc), read), problem_of(Terse(load_yaml(TEXT, "f.yaml")), read)


def data(reader: StrictReader) -> Any:
    return reader.doc.data["top"]


def test_text_that_is_a_number_says_to_quote_it_in_both_voices() -> None:
    advised, terse = both(lambda r: r.text(data(r)["name"], ("top", "name"), limit=10))
    assert advised == terse == 'f.yaml:2: top.name: expected a string, got 3 (a number); quote it: name: "3"'


def test_a_list_item_that_is_a_number_is_quoted_without_its_index() -> None:
    _, terse = both(lambda r: r.string(data(r)["list"][2], ("top", "list", 2)))
    assert terse == 'f.yaml:3: top.list[2]: expected a string, got 7 (a number); quote it: "7"'


def test_blank_and_empty_text_say_what_to_write_only_when_advising() -> None:
    advised, terse = both(lambda r: r.text(data(r)["list"][1], ("top", "list", 1), limit=10))
    assert advised == "f.yaml:3: top.list[1]: is blank; remove the empty item"
    assert terse == "f.yaml:3: top.list[1]: is blank"
    advised, terse = both(lambda r: r.string(data(r)["list"][1], ("top", "list", 1)))
    assert (advised, terse) == (
        "f.yaml:3: top.list[1]: must not be empty; remove the empty item",
        "f.yaml:3: top.list[1]: must not be empty",
    )
    doc = load_yaml(TEXT, "f.yaml")
    assert Advising(doc).string("", ("top", "x"), empty=True) == ""


def test_text_is_trimmed_and_held_to_its_limit() -> None:
    reader = Advising(load_yaml("a: '  Sign up  '\n", "f.yaml"))
    assert reader.text("  Sign up  ", ("a",), limit=7) == "Sign up"
    assert reader.string("  Sign up  ", ("a",)) == "  Sign up  "  # as written
    assert problem_of(reader, lambda r: r.text("  Sign up  ", ("a",), limit=6)) == (
        "f.yaml:1: a: is 7 characters long; the limit is 6; shorten it"
    )
    assert problem_of(reader, lambda r: r.string("  Sign up  ", ("a",), limit=6)) == (
        "f.yaml:1: a: is 11 characters long; the limit is 6; shorten it"
    )


def test_a_flag_written_yes_is_text() -> None:
    advised, terse = both(lambda r: r.flag(data(r)["flag"], ("top", "flag")))
    assert advised == "f.yaml:4: top.flag: expected true or false, got 'yes' (a string); write flag: true"
    assert terse == "f.yaml:4: top.flag: expected true or false, got 'yes' (a string)"


def test_a_quoted_number_says_to_write_it_without_quotes() -> None:
    advised, terse = both(lambda r: r.number(data(r)["wait"], ("top", "wait"), unit="seconds"))
    assert (
        advised
        == terse
        == (
            "f.yaml:5: top.wait: expected a number of seconds, got '1.5' (a string); write it without quotes: wait: 1.5"
        )
    )


@pytest.mark.parametrize(
    ("written", "fix"),
    [
        (" 60 ", "; write it without quotes: wait: 60"),
        ("1e3", "; write it without quotes: wait: 1e3"),
        ("-2.5", "; write it without quotes: wait: -2.5"),
        ("abc", ""),  # unquoted it is still text
        ("inf", ""),  # YAML's infinity is .inf, and a number here is finite
        (".5", ""),  # TOML reads no number without a digit before its point
        ("007", ""),
        ("1\n5", ""),  # the line would break
        ("9" * 40, ""),
    ],
)
def test_only_a_number_in_quotes_is_told_to_lose_them(written: str, fix: str) -> None:
    terse = Terse(load_yaml(TEXT, "f.yaml"))
    message = problem_of(terse, lambda r: r.number(written, ("top", "wait"), unit="seconds"))
    assert message.endswith(f"(a string){fix}")
    assert len(message.splitlines()) == 1
    advising = Advising(load_yaml(TEXT, "f.yaml"))
    message = problem_of(advising, lambda r: r.number(written, ("top", "wait"), unit="seconds"))
    assert message.endswith(f"(a string){fix or '; write a number of seconds'}")


@pytest.mark.parametrize("flag", [True, False])
def test_a_flag_is_no_number(flag: bool) -> None:
    reader = Terse(load_yaml("n: 1\n", "f.yaml"))
    assert problem_of(reader, lambda r: r.number(flag, ("n",), unit="seconds")) == (
        f"f.yaml:1: n: expected a number of seconds, got {'true' if flag else 'false'} (a flag)"
    )


def test_a_range_with_a_top_is_said_whole_and_one_without_by_the_end_it_misses() -> None:
    reader = Advising(load_yaml("n: 1\n", "f.yaml"))
    for bad in (0, -1, 601, math.inf, math.nan):
        assert problem_of(reader, lambda r, v=bad: r.number(v, ("n",), unit="seconds", above=True, most=600)) == (
            f"f.yaml:1: n: must be more than 0 and at most 600 seconds, got {bad!r}; write a number up to 600"
        )
    assert reader.number(600, ("n",), unit="seconds", above=True, most=600) == 600.0
    terse = Terse(load_yaml("n: 1\n", "f.yaml"))
    assert problem_of(terse, lambda r: r.number(0, ("n",), unit="seconds", above=True)) == (
        "f.yaml:1: n: must be more than 0 seconds, got 0"
    )
    assert problem_of(terse, lambda r: r.number(-0.5, ("n",), unit="seconds")) == (
        "f.yaml:1: n: must be 0 or more seconds, got -0.5"
    )
    assert problem_of(terse, lambda r: r.number(-math.inf, ("n",), unit="seconds")) == (
        "f.yaml:1: n: expected a finite number of seconds, got -inf"
    )
    assert terse.number(0, ("n",), unit="seconds") == 0.0
    assert isinstance(terse.number(3, ("n",), unit="seconds"), float)


def test_a_mapping_says_its_first_problem_in_the_rules_order() -> None:
    doc = load_yaml("top: {nam: a, none: null}\n", "f.yaml")
    reader = Advising(doc)
    allowed = ("name", "none")
    assert problem_of(reader, lambda r: r.mapping(data(r), ("top",), allowed)) == (
        "f.yaml:1: top.nam: unknown key 'nam' (did you mean 'name'?); rename it or remove it"
    )
    fixed = {"name": "a", "none": None}
    assert problem_of(reader, lambda r: r.mapping(fixed, ("top",), allowed)) == (
        "f.yaml:1: top.none: has no value (null); give it a value, or remove the key for the default"
    )
    terse = Terse(load_yaml("top: {name: a, none: null}\n", "f.yaml"))
    assert terse.mapping(fixed, ("top",), allowed) == fixed  # a reader that reads each null as its shape says
    assert problem_of(terse, lambda r: r.require(fixed, ("top",), {"kind": "write kind: simulator"})) == (
        "f.yaml:1: top: key 'kind' is missing; write kind: simulator"
    )


def test_what_a_mapping_is_expected_to_be_is_said_in_each_voice() -> None:
    advising = Advising(load_yaml("top: [1]\n", "f.yaml"))
    assert problem_of(advising, lambda r: r.mapping([1], ("top",), ("a", "b"), "top: {a: 1}")) == (
        "f.yaml:1: top: expected a mapping of a, b, got a list; write top: {a: 1}"
    )
    terse = Terse(load_yaml("top: [1]\n", "f.yaml"))
    assert problem_of(terse, lambda r: r.mapping([1], ("top",), ("a",), "top: {a: 1}", what="an app")) == (
        "f.yaml:1: top: expected an app, got a list"
    )


def test_a_reader_words_an_unknown_key_for_its_own_file() -> None:
    class Hinting(StrictReader):
        def unknown_key(self, keys: Keys, name: str, allowed: Any) -> NoReturn:
            if name == "bundle_id":
                self.fail((name,), f"unknown key {name!r}", "in a check file write app: {bundle: …}")
            super().unknown_key(keys, name, allowed)

    reader = Hinting(load_yaml("bundle_id: x\nzz: 1\n", "f.yaml"))
    assert problem_of(reader, lambda r: r.mapping({"bundle_id": "x"}, (), ("app",))) == (
        "f.yaml:1: bundle_id: unknown key 'bundle_id'; in a check file write app: {bundle: …}"
    )
    assert problem_of(reader, lambda r: r.mapping({"zz": 1}, (), ("app",))) == (
        "f.yaml:2: zz: unknown key 'zz' (allowed: app); rename it or remove it"
    )


class Toml(StrictReader):
    """A reader of a file parsed without YAML's nodes (TOML): it finds each line itself and writes ``key = value``."""

    assigns = " = "
    LINES: ClassVar[dict[Keys, int]] = {("a",): 3, ("a", "b"): 4, ("name",): 1, ("wait",): 2}

    def line(self, keys: Keys) -> int | None:
        return self.LINES.get(keys)


def test_a_reader_of_a_file_without_nodes_says_the_line_it_finds() -> None:
    reader = Toml(YamlDoc("f.toml", None, None))
    assert problem_of(reader, lambda r: r.flag(1, ("a", "b"))) == (
        "f.toml:4: a.b: expected true or false, got 1 (a number); write b = true"
    )
    assert problem_of(reader, lambda r: r.mapping({"c": 1}, ("a",), ("b",))) == (
        "f.toml: a.c: unknown key 'c' (allowed: b); rename it or remove it"  # a line it can't find: none said
    )
    assert problem_of(reader, lambda r: r.require({}, ("a",), {"b": "write b = 1"})) == (
        "f.toml:3: a: key 'b' is missing; write b = 1"
    )


def test_a_fix_shows_the_key_and_its_value_as_the_file_writes_them() -> None:
    reader = Toml(YamlDoc("f.toml", None, None))
    assert problem_of(reader, lambda r: r.text(3, ("name",), limit=10)) == (
        'f.toml:1: name: expected a string, got 3 (a number); quote it: name = "3"'
    )
    assert problem_of(reader, lambda r: r.number("1.5", ("wait",), unit="seconds")) == (
        "f.toml:2: wait: expected a number of seconds, got '1.5' (a string); write it without quotes: wait = 1.5"
    )


def test_a_list_items_fix_shows_its_value_without_the_index() -> None:
    terse = Terse(load_yaml(TEXT, "f.yaml"))
    assert problem_of(terse, lambda r: r.number("2", ("top", "list", 1), unit="seconds")) == (
        "f.yaml:3: top.list[1]: expected a number of seconds, got '2' (a string); write it without quotes: 2"
    )
    advising = Advising(load_yaml(TEXT, "f.yaml"))
    assert problem_of(advising, lambda r: r.flag(7, ("top", "list", 2))) == (
        "f.yaml:3: top.list[2]: expected true or false, got 7 (a number); write true"
    )


def test_a_key_path_is_said_on_one_line_as_the_file_would_quote_it() -> None:
    keys = ("apps", "com.x\ny", 'say "hi"', "a\\b", "tab\there", "\u2028", "\x7f", "caf\u00e9 \U0001f600")
    assert dotted(keys) == (
        'apps."com.x\\ny"."say \\"hi\\""."a\\\\b"."tab\\there"."\\u2028"."\\u007F".'
        '"caf\u00e9 \U0001f600"'  # what prints stays as written
    )
    reader = Terse(load_yaml('"a\\nb": 1\n', "f.yaml"))
    assert problem_of(reader, lambda r: r.mapping(r.doc.data, (), ("a",))) == (
        "f.yaml:1: \"a\\nb\": unknown key 'a\\nb' (allowed: a)"
    )


def test_data_without_a_file_is_named_by_its_source_alone() -> None:
    reader = Terse(YamlDoc("<dict>", {"a": 1}, None))
    assert problem_of(reader, lambda r: r.flag(1, ("a",))) == "<dict>: a: expected true or false, got 1 (a number)"


def test_a_check_files_errors_keep_their_file_line_and_key_as_fields() -> None:
    class CheckReader(StrictReader):
        def error(self, problem: YamlProblem) -> CheckError:
            return CheckError(str(problem), file=problem.source, line=problem.line, key=problem.key)

    with pytest.raises(CheckError) as info:
        CheckReader(load_yaml("a:\n  b: x\n", "c.yaml")).flag("x", ("a", "b"))
    assert (info.value.file, info.value.line, info.value.key) == ("c.yaml", 2, "a.b")


def test_an_app_scripts_list_item_is_quoted_without_its_index() -> None:
    text = sample_path("yourapp-location").read_text("utf-8")
    old = "buttons: [Allow Once, Allow While Using App, Don’t Allow]"
    assert old in text
    with pytest.raises(ScriptError, match=r'buttons\[1\]: expected a string, got 3 \(a number\); quote it: "3"$'):
        AppScript.from_text(text.replace(old, "buttons: [Allow Once, 3]"), "x.yaml")


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@given(VALUES)
@settings(max_examples=examples(200))
@pytest.mark.parametrize("voice", [Terse, Advising])
def test_a_shape_returns_the_value_as_written_or_the_readers_own_error(voice: type[StrictReader], value: Any) -> None:
    reader = voice(YamlDoc("v.yaml", {"v": value}, None))
    keys: Keys = ("v",)
    shapes: dict[str, Callable[[], object]] = {
        "text": lambda: reader.text(value, keys, limit=20),
        "string": lambda: reader.string(value, keys, limit=20, empty=True),
        "number": lambda: reader.number(value, keys, unit="seconds", most=10.0),
        "flag": lambda: reader.flag(value, keys),
        "mapping": lambda: reader.mapping(value, keys, ("a", "b")),
    }
    for name, read in shapes.items():
        try:
            got = read()
        except (ScriptError, YamlProblem) as exc:
            assert str(exc).startswith(("v.yaml: v: ", "v.yaml: v.")), (name, str(exc))  # the value or its key
            assert len(str(exc).splitlines()) == 1, (name, str(exc))  # one line, whatever the value holds
            continue
        if name == "text":
            assert got == value.strip()
        elif name == "number":
            assert got == float(value)
            assert type(value) in (int, float)
        else:
            assert got is value, name
