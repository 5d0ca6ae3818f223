from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mobster_core.yaml import MAX_YAML_BYTES, YamlProblem, did_you_mean, load_yaml
from tests.samples import ROOT


def test_lines_of_keys_and_items() -> None:
    doc = load_yaml(
        b"version: 1\napps:\n  a:\n    screens:\n      w:\n        - {role: X}\n        - {role: Y, lable: y}\n",
        "x.yaml",
    )
    assert doc.data["apps"]["a"]["screens"]["w"][1] == {"role": "Y", "lable": "y"}
    assert doc.where(["apps", "a", "screens", "w", 1, "lable"]) == "x.yaml:7"
    assert doc.line(["version"]) == 1
    assert doc.line(["apps", "missing", "deeper"]) == 2
    assert doc.where([]) == "x.yaml"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"a: 1\na: 2\n", "f.yaml:2: a: the key is written twice (lines 1 and 2); keep one of them"),
        (b"!!python/object/apply:os.system [ls]", "f.yaml:1: could not determine a constructor"),
        (b"a: [1,\n", "f.yaml:2:"),
        (b"\xff\xfe", "not UTF-8"),
        (b"a: " + b"x" * MAX_YAML_BYTES, "the limit is"),
        ("a: " + "x" * MAX_YAML_BYTES, "byte limit"),
    ],
)
def test_bad_files_name_the_file_and_line(raw: bytes | str, message: str) -> None:
    with pytest.raises(YamlProblem) as info:
        load_yaml(raw, "f.yaml")
    assert message in str(info.value)


def test_text_input_loads() -> None:
    assert load_yaml("a: [1, 2]", "t").data == {"a": [1, 2]}


def test_yes_stays_a_string_under_yaml_1_2() -> None:
    assert load_yaml("a: yes", "t").data == {"a": "yes"}


def test_did_you_mean() -> None:
    assert did_you_mean("lable", ["label", "role"]) == " (did you mean 'label'?)"
    assert did_you_mean("zzz", ["role", "label"]) == " (allowed: label, role)"


# -- issue 15: nesting capped before the parser, numbers bounded, valid text ----------------

from mobster_core._rules.formats.yaml import MAX_YAML_DEPTH  # noqa: E402
from mobster_core._rules.formats.yaml_safe import Refused as _Refused  # noqa: E402
from mobster_core._rules.formats.yaml_safe import safe_yaml as _yaml  # noqa: E402


def deep_forms(depth: int) -> dict[str, str]:
    return {
        "flow sequences": "a: " + "[" * depth + "]" * depth,
        "flow mappings": "a: " + "{a: " * depth + "1" + "}" * depth,
        "block sequences on one line": "- " * depth + "x",
        "indented mappings": "".join(" " * i + "k:\n" for i in range(depth)) + " " * depth + "k: 1",
        "indented sequences": "".join(" " * (2 * i) + "-\n" for i in range(depth)),
        "mixed": "".join("  " * i + "-\n" for i in range(depth // 2))
        + "  " * (depth // 2)
        + "- "
        + "[{a: " * (depth // 4)
        + "}]" * (depth // 4),
    }


@pytest.mark.parametrize("form", list(deep_forms(1)))
def test_nesting_beyond_the_limit_is_refused_before_the_parser_runs(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parser(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the parser ran")

    monkeypatch.setattr("mobster_core._rules.formats.yaml._yaml", no_parser)
    with pytest.raises(YamlProblem, match=f"nested more than {MAX_YAML_DEPTH} levels deep; flatten it"):
        load_yaml(deep_forms(5000)[form][:200_000], "deep.yaml")


@pytest.mark.parametrize("form", list(deep_forms(1)))
def test_nesting_up_to_the_limit_loads(form: str) -> None:
    assert load_yaml(deep_forms(MAX_YAML_DEPTH - 2)[form], "ok.yaml").data is not None


def test_brackets_in_quotes_comments_and_block_scalars_are_not_nesting() -> None:
    many = "[" * 300
    text = (
        f'a: "{many}"\n'
        f"b: '{many} it''s'\n"
        f"c: x{many}\n"
        f"# {many}\n"
        f"d: |\n  {many}\n  {{{{{{\n"
        f'e: ["{many}", "]]]]", {{f: "{many}"}}]\n'
    )
    data = load_yaml(text, "q.yaml").data
    assert data["a"] == many
    assert data["c"] == "x" + many
    assert data["e"][0] == many


def test_the_scanner_stops_at_the_limit_should_the_pre_scan_read_a_file_differently() -> None:
    with pytest.raises(_Refused) as info:
        _yaml().load("a: " + "[" * 5000)
    assert info.value.line == 1
    with pytest.raises(_Refused):
        _yaml().load("".join(" " * i + "k:\n" for i in range(300)))


@pytest.mark.parametrize("number", ["1" + "0" * 5000, "-" + "9" * 31, "0x" + "f" * 40, "1_000" * 10])
def test_integers_of_too_many_digits_are_refused_where_they_are_written(number: str) -> None:
    with pytest.raises(YamlProblem, match=r"n\.yaml:2: b: a number of \d+ digits; numbers here have at most 30"):
        load_yaml(f"a: 1\nb: {number}\n", "n.yaml")


def test_big_but_allowed_integers_and_floats_load() -> None:
    assert load_yaml("a: " + "9" * 30, "n").data == {"a": int("9" * 30)}
    assert load_yaml("a: 1e999\nb: .nan", "n").data["a"] == float("inf")


def test_lone_surrogates_become_the_replacement_character() -> None:
    doc = load_yaml('"\\ud800k": "a\\udfffb"\nlist: ["\\ud83d"]\n', "s.yaml")
    assert doc.data == {"\ufffdk": "a\ufffdb", "list": ["\ufffd"]}
    assert load_yaml("a: x\ud800", "s").data == {"a": "x\ufffd"}


@pytest.mark.parametrize("text", ["+_", "a: +_", "a: 0x_", "a: -_"])
def test_a_scalar_that_looks_like_a_number_and_isnt_one_is_a_problem_with_its_line(text: str) -> None:
    # Found by the fuzz test: ruamel resolves these as integers, then can't read them.
    with pytest.raises(YamlProblem, match=r"x\.yaml:1: .* looks like a number but isn't one"):
        load_yaml(text, "x.yaml")


def _paths(data: object, keys: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every key path in ``data``, the path itself first."""
    found: list[tuple[str | int, ...]] = [keys]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*keys, str(key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*keys, index))
    return found


def _round_trip(text: str) -> object:
    from ruamel.yaml import YAML

    return YAML(typ="rt", pure=True).load(text)


def _round_trip_line(tree: object, keys: tuple[str | int, ...]) -> int | None:
    """The line ruamel's round-trip loader gives ``keys`` (what messages said before Rule 1 kept the nodes)."""
    node: Any = tree
    line = None
    for key in keys:
        lc = getattr(node, "lc", None)
        try:
            if lc is not None:
                line = (lc.item(key) if isinstance(key, int) else lc.key(key))[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return line
    return line


_FILES = sorted(
    p
    for folder in ("tests/data/checks", "benchmarks/data", "mobster_drivers/devices/scripted/samples")
    for p in (ROOT / folder).rglob("*.yaml")
)


@pytest.mark.parametrize("path", _FILES, ids=lambda p: p.name)
def test_every_key_has_the_line_the_round_trip_loader_gives_it(path: Path) -> None:
    text = path.read_text()
    doc = load_yaml(text, path.name)
    tree = _round_trip(text)
    paths = _paths(doc.data)
    assert len(paths) > 5
    for keys in paths:
        assert doc.line(keys) == _round_trip_line(tree, keys), keys
    # A path the file doesn't have: the line of the deepest key found, as before.
    first = next(k for k in paths if len(k) == 1)
    assert doc.line((*first, "no such key", 3)) == _round_trip_line(tree, first)


def test_lines_of_flow_collections_quoted_keys_and_block_scalars() -> None:
    text = 'a: {"b": 1,\n  c: [x,\n    y]}\n"q k": |\n  one\n  two\nz:\n- - 1\n  - 2\n'
    doc = load_yaml(text, "f.yaml")
    tree = _round_trip(text)
    for keys in _paths(doc.data):
        assert doc.line(keys) == _round_trip_line(tree, keys), keys
    assert doc.where(["a", "c", 1]) == "f.yaml:3"
    assert doc.where(["z", 0, 1]) == "f.yaml:9"


def test_a_file_read_again_unchanged_gives_equal_data_that_shares_nothing() -> None:
    text = "a: [1, {b: [x, y]}]\nc: {d: e}\n"
    first = load_yaml(text, "same.yaml")
    first.data["a"][1]["b"].append("changed by a caller")
    first.data["c"]["d"] = "changed"
    second = load_yaml(text.encode(), "same.yaml")
    assert second.data == {"a": [1, {"b": ["x", "y"]}], "c": {"d": "e"}}
    assert second.where(["a", 1, "b", 1]) == "same.yaml:1"
    assert load_yaml(text, "other.yaml").where(["c"]) == "other.yaml:2"  # its own name in messages


def test_a_changed_file_is_read_as_it_is_now_and_a_bad_one_fails_every_time() -> None:
    assert load_yaml("a: 1\n", "f.yaml").data == {"a": 1}
    assert load_yaml("a: 2\n", "f.yaml").data == {"a": 2}
    for _ in range(2):
        with pytest.raises(YamlProblem, match=r"f\.yaml:2: a: the key is written twice \(lines 1 and 2\)"):
            load_yaml("a: 1\na: 2\n", "f.yaml")


def test_a_large_file_is_parsed_once_and_still_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    from mobster_core._rules.formats import yaml as module

    text = "".join(f"k{i}: [{i}, x]\n" for i in range(2000))  # 30 KiB, a large heal file's size
    parses: list[str] = []
    real = module._parse

    def counting(source: str, text: str) -> module.YamlDoc:
        parses.append(source)
        return real(source, text)

    monkeypatch.setattr(module, "_parse", counting)
    first = load_yaml(text, "big.yaml")
    first.data["k1"].append("changed")
    assert load_yaml(text, "big.yaml").data["k1"] == [1, "x"]
    assert parses == ["big.yaml"]  # parsed once, whatever its size (within 4 MiB)


def test_the_kept_parses_stay_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from mobster_core._rules.formats import yaml as module

    monkeypatch.setattr(module, "_REMEMBERED_CHARS", 1000)
    monkeypatch.setattr(module, "_kept", type(module._kept)())
    texts = [f"n: {i}\npad: {'x' * 300}\n" for i in range(5)]
    for i, text in enumerate(texts):
        load_yaml(text, f"f{i}.yaml")
    assert sum(len(t) for _, t in module._kept) <= 1000
    assert [s for s, _ in module._kept] == ["f2.yaml", "f3.yaml", "f4.yaml"]  # the most recent
    load_yaml("big: " + "y" * 2000 + "\n", "big.yaml")  # over the budget alone: never kept
    assert "big.yaml" not in [s for s, _ in module._kept]


# -- the one reader (issue 23): keys and both lines, BOM and CRLF, JSON held to its grammar ------

from mobster_core.yaml import YamlSyntaxError, dotted, load_json  # noqa: E402


def test_a_key_written_twice_names_the_key_and_both_lines_never_its_values() -> None:
    text = "apps:\n  com.example.a:\n    screens:\n      w: {x: 1}\n      v: [1]\n      w:\n        y: 2\n"
    with pytest.raises(YamlProblem) as info:
        load_yaml(text, "app.yaml")
    problem = info.value
    assert str(problem) == (
        'app.yaml:6: apps."com.example.a".screens.w: the key is written twice (lines 4 and 6); keep one of them'
    )
    assert (problem.line, problem.key) == (6, 'apps."com.example.a".screens.w')
    assert "{}" not in str(problem)  # issue 25 class 9: a mapping's value was shown as {}


def test_a_key_written_twice_in_a_list_item_and_a_number_key() -> None:
    with pytest.raises(YamlProblem, match=r"^f\.yaml:3: steps\[1\]\.op: the key is written twice \(lines 3 and 3\)"):
        load_yaml("steps:\n  - {op: TAP}\n  - {op: TAP, op: SWIPE}\n", "f.yaml")
    with pytest.raises(YamlProblem, match=r'^f\.yaml:2: "1": the key is written twice \(lines 1 and 2\)'):
        load_yaml("1: a\n1: b\n", "f.yaml")


def test_anchors_numbers_and_tags_name_their_key() -> None:
    with pytest.raises(YamlProblem, match=r"^f\.yaml:4: a\.b\[1\]: anchors and aliases"):
        load_yaml("a:\n  b:\n    - 0\n    - &x 1\n", "f.yaml")
    with pytest.raises(YamlProblem, match=r"^f\.yaml:2: a\[0\]\.n: a number of 31 digits"):
        load_yaml("a:\n  - n: " + "1" * 31 + "\n", "f.yaml")
    with pytest.raises(YamlProblem, match=r"^f\.yaml:2: a\.b: could not determine a constructor .*; remove the tag"):
        load_yaml("a:\n  b: !thing x\n", "f.yaml")


def test_a_syntax_error_is_its_own_class_with_a_line_and_no_key() -> None:
    with pytest.raises(YamlSyntaxError) as info:
        load_yaml("a: 1\nb: [1,\n", "f.yaml")
    assert (info.value.line, info.value.key, info.value.fix) == (3, None, "fix the YAML there")
    assert isinstance(info.value, YamlProblem)


def test_a_byte_order_mark_and_crlf_read_as_if_absent() -> None:
    text = "\ufeffa: 1\r\nb:\r\n  - x\r\n  - y\r\nc: z\r\n"
    for raw in (text, text.encode("utf-8")):
        doc = load_yaml(raw, "w.yaml")
        assert doc.data == {"a": 1, "b": ["x", "y"], "c": "z"}
        assert [doc.line(["a"]), doc.line(["b", 1]), doc.line(["c"])] == [1, 4, 5]
    with pytest.raises(YamlProblem, match=r"^w\.yaml:3: a: the key is written twice \(lines 1 and 3\)"):
        load_yaml(b"\xef\xbb\xbfa: 1\r\nb: 2\r\na: 3\r\n", "w.yaml")


def test_the_pre_scan_ends_lines_where_the_parser_does(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parser(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the parser ran")

    monkeypatch.setattr("mobster_core._rules.formats.yaml._yaml", no_parser)
    deep = "".join(" " * i + "k:\r" for i in range(MAX_YAML_DEPTH + 5))  # old Mac line ends
    with pytest.raises(YamlProblem, match=rf"^cr\.yaml:{MAX_YAML_DEPTH + 1}: the YAML is nested more than"):
        load_yaml(deep, "cr.yaml")


def test_a_utf16_file_is_named_as_one() -> None:
    with pytest.raises(YamlProblem, match=r"^u\.yaml: not UTF-8 text: it is UTF-16 .*; save it as UTF-8$"):
        load_yaml("a: 1\n".encode("utf-16"), "u.yaml")


def test_an_escaped_surrogate_pair_is_the_character_it_encodes() -> None:
    doc = load_json('{"face": "\\ud83d\\ude00", "half": "\\ud83d!"}', "e.json")
    assert doc.data == {"face": "\U0001f600", "half": "\ufffd!"}


def test_a_docs_problem_names_the_file_line_and_key() -> None:
    doc = load_yaml("a:\n  b: [1, 2]\n", "d.yaml")
    problem = doc.problem(("a", "b", 1), "expected text, got 2 (a number)", 'quote it: "2"')
    assert str(problem) == 'd.yaml:2: a.b[1]: expected text, got 2 (a number); quote it: "2"'
    assert str(doc.problem((), "the file is empty")) == "d.yaml: the file is empty"


def test_dotted_quotes_a_key_that_is_not_a_plain_name() -> None:
    assert dotted(("apps", "com.example.a", "links", "a://b", 0)) == 'apps."com.example.a".links."a://b"[0]'
    assert dotted(("bstack:options", "accessKey")) == "bstack:options.accessKey"
    assert dotted(("1X", 'say "hi"')) == '"1X"."say \\"hi\\""'
    long = dotted(tuple(f"k{i}" for i in range(100)))
    assert len(long) == 200
    assert long.startswith("\u2026")
    assert long.endswith(".k99")


def test_json_is_held_to_its_grammar_and_read_as_every_file_is() -> None:
    doc = load_json('{\n\t"a": [1, 2.5, true, null],\n\t"b": {"c": "\\/x"}\n}\n', "c.json")
    assert doc.data == {"a": [1, 2.5, True, None], "b": {"c": "/x"}}
    assert doc.where(["b", "c"]) == "c.json:3"
    assert load_json(b'\xef\xbb\xbf{"a": 1}', "bom.json").data == {"a": 1}
    with pytest.raises(YamlSyntaxError, match=r"^c\.json:1: not valid JSON \(Expecting property name"):
        load_json('{"a": 1, oops}', "c.json")  # valid YAML, not JSON
    with pytest.raises(YamlSyntaxError, match=r"NaN is not a JSON number"):
        load_json('{"a": NaN}', "c.json")
    with pytest.raises(YamlProblem, match=r"^c\.json:3: a: the key is written twice \(lines 2 and 3\)"):
        load_json('{\n "a": "first-secret",\n "a": "second-secret"\n}', "c.json")
