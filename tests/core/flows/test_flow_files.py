"""Flows and rows as files: every load-time problem is one line naming the file and line (issue 39)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobster_core import find_checks, load_check
from mobster_core.exceptions import CheckError
from tests.core.flows.apps import LOGIN, shop_project

CHECK = """\
app: {bundle: com.example.shop}
steps:
  - Tap "Plans"
  - USE
"""


def refused(tmp_path: Path, use: str, flows: dict[str, str] | None = None) -> str:
    file = shop_project(tmp_path, {"c": CHECK.replace("USE", use)}, flows)["c"]
    with pytest.raises(CheckError) as caught:
        load_check(file)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_an_unknown_flow_is_refused_at_its_use_line_naming_the_nearest(tmp_path: Path) -> None:
    message = refused(tmp_path, "use: logn")
    assert message.startswith(f"{tmp_path}/.mobster/checks/c.yaml:4: steps[1].use: unknown flow 'logn'")
    assert "did you mean 'login'" in message


def test_an_unknown_flow_in_a_project_with_no_flows_says_there_are_none(tmp_path: Path) -> None:
    message = refused(tmp_path, "use: login", {})
    assert "unknown flow 'login' (the project has no flows in .mobster/flows/); write a flow file" in message
    assert "allowed: )" not in message


def test_a_cycle_of_flows_is_named_as_the_chain_it_makes(tmp_path: Path) -> None:
    flows = {"a": "steps:\n  - Tap A\n  - use: b\n", "b": "steps:\n  - use: a\n"}
    message = refused(tmp_path, "use: a", flows)
    assert message.startswith(f"{tmp_path}/.mobster/flows/b.yaml:2: steps[0].use: ")
    assert "the flows use each other in a cycle: a \u203a b \u203a a" in message


def test_a_flow_using_itself_is_a_cycle_of_one(tmp_path: Path) -> None:
    message = refused(tmp_path, "use: a", {"a": "steps:\n  - Tap A\n  - use: a\n"})
    assert f"{tmp_path}/.mobster/flows/a.yaml:3:" in message
    assert "a \u203a a" in message


def test_flows_deeper_than_five_are_refused(tmp_path: Path) -> None:
    flows = {f"f{n}": f"steps:\n  - Tap {n}\n  - use: f{n + 1}\n" for n in range(1, 6)}
    flows["f6"] = "steps:\n  - Tap 6\n"
    message = refused(tmp_path, "use: f1", flows)
    assert "uses flows 6 deep (f1 \u203a f2 \u203a f3 \u203a f4 \u203a f5 \u203a f6); the limit is 5" in message
    assert message.startswith(f"{tmp_path}/.mobster/flows/f5.yaml:3:")


def test_a_missing_input_is_named_at_the_use(tmp_path: Path) -> None:
    message = refused(tmp_path, 'use: {flow: login, with: {user: "${SHOP_USER}"}}')
    assert message.startswith(f"{tmp_path}/.mobster/checks/c.yaml:4: steps[1].use: ")
    assert "the flow login needs its input password, and it isn't given" in message


def test_an_undeclared_input_is_named_with_the_nearest_one(tmp_path: Path) -> None:
    message = refused(tmp_path, 'use: {flow: login, with: {usr: a, user: b, password: "${P}"}}')
    assert "steps[1].use.with.usr: 'usr' is not an input of the flow login (did you mean 'user'?)" in message


def test_a_secret_input_is_never_bound_to_text_written_in_the_file(tmp_path: Path) -> None:
    message = refused(tmp_path, "use: {flow: login, with: {user: ada, password: hunter22}}")
    assert "password is a secret input of login" in message
    assert "c.yaml:4" in message


@pytest.mark.parametrize("key", ["app", "launch", "rows", "budget", "tags"])
def test_a_flow_with_a_check_s_key_says_a_flow_is_never_a_check(tmp_path: Path, key: str) -> None:
    flows = {"login": f"{key}: x\n" + LOGIN}
    message = refused(tmp_path, "use: login", flows)
    assert message.startswith(f"{tmp_path}/.mobster/flows/login.yaml:1: {key}: ")
    assert "a flow is never a check" in message


def test_a_flow_file_is_never_collected_nor_run_as_a_check(tmp_path: Path) -> None:
    shop_project(tmp_path, {"c": CHECK.replace("USE", "Tap x")})
    assert [f.name for f in find_checks(tmp_path)] == ["c.yaml"]
    with pytest.raises(CheckError, match="is a flow, and a flow is never a check"):
        load_check(tmp_path / ".mobster" / "flows" / "login.yaml")


def test_a_device_step_in_a_flow_belongs_in_the_check(tmp_path: Path) -> None:
    message = refused(tmp_path, "use: f", {"f": "steps:\n  - biometric: match\n"})
    assert "f.yaml:2: steps[0]: " in message
    assert "belong in the check" in message


def test_a_flow_named_otherwise_than_its_file_is_refused(tmp_path: Path) -> None:
    message = refused(tmp_path, "use: f", {"f": "name: g\nsteps: [Tap A]\n"})
    assert "f.yaml:1: name: the flow is named 'g' but its file is f.yaml" in message


ROWS = """\
app: {bundle: com.example.shop}
rows: ROWS
steps:
  - Tap "${plan}"
"""


def rows_refused(tmp_path: Path, rows: str, csv: bytes | None = None) -> str:
    file = shop_project(tmp_path, {"c": ROWS.replace("ROWS", rows)}, {})["c"]
    if csv is not None:
        (file.parent / "plans.csv").write_bytes(csv)
    with pytest.raises(CheckError) as caught:
        load_check(file)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("csv", "line", "said"),
    [
        (b"plan,plan\nfree,pro\n", 1, "the header names plan twice"),
        (b"plan,1st\nfree,a\n", 1, "the header's '1st' is not a ${name} name"),
        (b"plan,user\nfree,a\npro\n", 3, "has 1 columns; the header has 2"),
        (b"plan\nfree\n\npro\n", 3, "the line is blank"),
        (b"\xef\xbb\xbfplan\nfree\n", 1, "byte order mark"),
        (b"plan\nfr\xffee\n", 2, "is not UTF-8"),
        (b'plan\n"free\n', 2, "is not CSV"),
    ],
)
def test_a_bad_csv_of_rows_is_one_line_naming_the_file_and_line(
    tmp_path: Path, csv: bytes, line: int, said: str
) -> None:
    message = rows_refused(tmp_path, "plans.csv", csv)
    assert message.startswith(f"{tmp_path}/.mobster/checks/plans.csv:{line}: "), message
    assert said in message


def test_a_csv_of_rows_bigger_than_its_cap_is_refused(tmp_path: Path) -> None:
    message = rows_refused(tmp_path, "plans.csv", b"plan\n" + b"x" * (300 * 1024) + b"\n")
    assert "plans.csv: can't read the rows file" in message


def test_rows_from_a_csv_are_instances_named_by_their_name_column(tmp_path: Path) -> None:
    file = shop_project(tmp_path, {"c": ROWS.replace("ROWS", "plans.csv")}, {})["c"]
    (file.parent / "plans.csv").write_text('plan,name\npro,"Pro, yearly"\nfree,Free\n')
    check = load_check(file)
    assert [c.name for c in check.instances()] == ['Tap "${plan}" [Pro, yearly]', 'Tap "${plan}" [Free]']
    assert [c.row_values for c in check.instances()] == [{"plan": "pro", "name": "Pro, yearly"},
                                                         {"plan": "free", "name": "Free"}]  # fmt: skip
    assert {c.identity for c in check.instances()} == {check.identity}  # rows share the path's identity


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ("[{plan: 1}]", 'rows[0].plan: expected a string, got 1 (a number); quote it: plan: "1"'),
        ("[{plan: a}, {plan: a}]", "rows 1 and 2 are both labelled 'a'"),
        ("[{plan: a}, {user: b}]", "row 2 has no plan"),
        ("[{1x: a}]", "is not a ${name} name"),
        ("[]", "rows: is an empty list"),
    ],
)
def test_bad_inline_rows_are_one_line_naming_the_key(tmp_path: Path, rows: str, said: str) -> None:
    message = rows_refused(tmp_path, rows)
    assert f"{tmp_path}/.mobster/checks/c.yaml:2:" in message, message
    assert said in message, message


def test_the_identity_of_a_check_without_flows_is_unchanged() -> None:
    """The golden digest: an existing path must still replay (issue 39 keeps flow-less identities)."""
    from mobster_core.checks import load_check_text

    check = load_check_text("app: {bundle: com.example.yourapp}\nsteps: [Tap Sign up]\n", "/nowhere/c.yaml")
    assert check.identity == "d9eab498c5b5e5c9"  # what main computed before flows, pinned
    assert [p.identity for p in check.parts] == [check.identity]


def test_editing_a_flow_changes_only_its_segment_and_editing_the_check_keeps_it(tmp_path: Path) -> None:
    check_text = CHECK.replace("USE", 'use: {flow: login, with: {user: "${U}", password: "${P}"}}')
    file = shop_project(tmp_path, {"c": check_text})["c"]
    before = load_check(file).parts
    (tmp_path / ".mobster" / "flows" / "login.yaml").write_text(LOGIN.replace('Tap "Sign in"', 'Tap "Log in"'))
    flow_edited = load_check(file).parts
    assert [p.identity == q.identity for p, q in zip(before, flow_edited, strict=True)] == [True, False]
    file.write_text(check_text.replace('Tap "Plans"', 'Tap "Orders"'))
    check_edited = load_check(file).parts
    assert [p.identity == q.identity for p, q in zip(flow_edited, check_edited, strict=True)] == [False, True]
