"""The suite page of a pool of iPhones and Android phones: its columns grouped by platform (Rule 1a)."""

from __future__ import annotations

import re
from typing import Any

from mobster_report._suite_page import render_suite


def _check(name: str, label: str, device: dict[str, Any] | None) -> dict[str, Any]:
    platform = None if device is None else device.get("platform", "ios")
    return {"name": name, "file": f"{name}.yaml", "verdict": "passed", "device": device, "device_label": label,
            "platform": platform, "run_dir": ""}  # fmt: skip


PIXEL = {"name": "Pixel 8", "kind": "emulator", "ios": "34", "platform": "android", "release": "14"}
IPHONE = {"name": "iPhone 17 Pro", "kind": "simulator", "ios": "26.4"}


def _columns(page: str) -> list[str]:
    head = page.split("<thead>", 1)[1].split("</thead>", 1)[0]
    return re.findall(r"<bdi class=label>([^<]*)</bdi>", head)


def test_a_suite_of_two_platforms_groups_its_columns_ios_first_under_a_row_naming_each() -> None:
    checks = [
        _check("signup", "pixel-1", PIXEL),
        _check("signup", "iphone-2", IPHONE),
        _check("paywall", "pixel-1", PIXEL),
        _check("paywall", "iphone-1", IPHONE),
    ]
    page = render_suite({"suite_id": "s", "checks": checks, "summary": {}})
    assert _columns(page) == ["iphone-1", "iphone-2", "pixel-1"]
    assert "<th scope=colgroup colspan=2>iOS</th><th scope=colgroup colspan=1>Android</th>" in page


def test_a_suite_of_one_platform_has_no_platform_row() -> None:
    checks = [_check("signup", "iphone-1", IPHONE), _check("signup", "iphone-2", IPHONE)]
    page = render_suite({"suite_id": "s", "checks": checks, "summary": {}})
    assert "colgroup" not in page
    assert _columns(page) == ["iphone-1", "iphone-2"]
