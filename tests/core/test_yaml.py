from __future__ import annotations

import pytest

from mobster_core._yaml import MAX_YAML_BYTES, YamlProblem, did_you_mean, load_yaml


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
