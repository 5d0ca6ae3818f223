from __future__ import annotations

import pytest

from mobster_core import Commit, DeviceKind
from mobster_core._safety import COMMIT_WORDS, check_commit, classify


@pytest.mark.parametrize(
    ("label", "role", "commit"),
    [
        ("Subscribe", "Button", Commit.PURCHASE),
        ("Buy now", "Button", Commit.PURCHASE),
        ("Check out", "Button", Commit.PURCHASE),
        ("Checkout", "Button", Commit.PURCHASE),
        ("Place order", "Button", Commit.PURCHASE),
        ("Pay $4.99", "Button", Commit.PURCHASE),
        ("Start free trial", "Button", Commit.PURCHASE),
        ("Send", "Button", Commit.SEND),
        ("Reply all", "Button", Commit.SEND),
        ("Share", "Cell", Commit.SEND),
        ("Post", "Button", Commit.POST),
        ("Publish story", "Button", Commit.POST),
        ("Delete account", "Button", Commit.DELETE),
        ("Remove", "Button", Commit.DELETE),
        ("Erase All Content", "Cell", Commit.DELETE),
        ("DELETE", "Button", Commit.DELETE),
    ],
)
def test_commits(label: str, role: str, commit: Commit) -> None:
    assert classify(label, role) is commit


@pytest.mark.parametrize(
    ("label", "role"),
    [
        ("Restore Purchases", "Button"),
        ("Subscription details", "Button"),
        ("Delete", "StaticText"),
        ("Send", "TextField"),
        ("Order history", "Cell"),
        ("Payment methods", "Cell"),
        ("Manage subscription", "Button"),
        ("Posts", "Button"),
        ("Sender", "Button"),
        ("Deleted items", "Cell"),
        ("Postal code", "Button"),
        ("Upgrade to Pro", "Button"),
        ("Continue", "Button"),
        ("", "Button"),
        ("Undo send", "Button"),
    ],
)
def test_near_misses_commit_nothing(label: str, role: str) -> None:
    assert classify(label, role) is None


def test_every_commit_has_words() -> None:
    assert set(COMMIT_WORDS) == set(Commit)


@pytest.mark.parametrize("commit", list(Commit))
def test_iphone_refuses_every_commit(commit: Commit) -> None:
    d = check_commit(commit, DeviceKind.IPHONE)
    assert not d.allowed
    assert "iPhone" in d.rule
    assert commit.value in d.rule


def test_simulator_refuses_only_purchases() -> None:
    d = check_commit(Commit.PURCHASE, DeviceKind.SIMULATOR)
    assert (d.allowed, d.rule) == (False, "a purchase is refused on a simulator")
    for commit in (Commit.SEND, Commit.POST, Commit.DELETE):
        assert check_commit(commit, DeviceKind.SIMULATOR).allowed


def test_nothing_committed_is_allowed_everywhere() -> None:
    for kind in DeviceKind:
        assert check_commit(None, kind).allowed
