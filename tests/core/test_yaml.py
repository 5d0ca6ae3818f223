from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mobster_core.yaml import MAX_YAML_BYTES, YamlProblem, did_you_mean, load_yaml


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
        (b"a: 1\na: 2\n", "f.yaml:2: found duplicate key"),
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

from mobster_core._rules.yaml import MAX_YAML_DEPTH, _Refused, _yaml  # noqa: E402


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

    monkeypatch.setattr("mobster_core._rules.yaml._yaml", no_parser)
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
    with pytest.raises(YamlProblem, match=r"n\.yaml:2: a number of \d+ digits; numbers here have at most 30"):
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
    for p in (Path(__file__).parents[2] / folder).rglob("*.yaml")
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
        with pytest.raises(YamlProblem, match=r"f\.yaml:2: found duplicate key"):
            load_yaml("a: 1\na: 2\n", "f.yaml")


def test_a_large_file_is_parsed_each_time_and_still_copied() -> None:
    text = "".join(f"k{i}: [{i}, x]\n" for i in range(2000))  # over the 8 KiB kept
    first = load_yaml(text, "big.yaml")
    first.data["k1"].append("changed")
    assert load_yaml(text, "big.yaml").data["k1"] == [1, "x"]
