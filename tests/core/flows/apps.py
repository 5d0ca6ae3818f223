"""App scripts and project files the flow and row tests share (the scripted phone's format)."""

from __future__ import annotations

from pathlib import Path

SHOP = """\
version: 1
device: {name: Scripted iPhone, ios: "26.4", kind: simulator}
latency: zero
apps:
  com.example.shop:
    name: Shop
    version: "1.0"
    build: "1"
    launch: login
    screens:
      login:
        - {role: StaticText, label: Sign in to Shop}
        - {role: TextField, label: Email, id: email}
        - {role: SecureTextField, label: Password}
        - {role: Button, label: SIGN_IN, tap: start}
      start:
        - {role: StaticText, label: Welcome back}
        - {role: Button, label: Plans, tap: plans}
        - {role: Button, label: Settings, tap: settings}
        - {role: Button, label: Orders, tap: orders}
      settings:
        - {role: StaticText, label: Settings}
        - {role: Switch, label: Notifications, value: "1"}
        - {role: Button, label: Save, tap: saved}
      saved:
        - {role: StaticText, label: Settings saved}
      orders:
        - {role: StaticText, label: Your orders}
        - {role: Button, label: Refresh, tap: refreshed}
      refreshed:
        - {role: StaticText, label: Orders refreshed}
      plans:
        - {role: StaticText, label: Choose a plan}
        - {role: Button, label: free, tap: checkout}
        - {role: Button, label: basic, tap: checkout}
        - {role: Button, label: plus, tap: checkout}
        - {role: Button, label: pro, tap: sales}
        - {role: Button, label: team, tap: sales}
      checkout:
        - {role: StaticText, label: Checkout}
        - {role: StaticText, label: Pay monthly}
        - {role: StaticText, label: Cancel any time}
        - {role: Button, label: Confirm, tap: thanks}
      sales:
        - {role: StaticText, label: Talk to us}
        - {role: StaticText, label: Pro plans start with a call}
        - {role: StaticText, label: We answer within a day}
        - {role: StaticText, label: Or book a demo}
        - {role: Link, label: Confirm, tap: booked}
      thanks:
        - {role: StaticText, label: Thanks for your order}
      booked:
        - {role: StaticText, label: A call is booked}
"""


def shop(sign_in: str = "Sign in") -> str:
    """The shop's app script, its sign-in button labelled ``sign_in``."""
    return SHOP.replace("SIGN_IN", sign_in)


LOGIN = """\
inputs:
  user: text
  password: secret
steps:
  - Type ${user} into "Email"
  - Type ${password} into "Password"
  - Tap "Sign in"
"""


def shop_project(root: Path, checks: dict[str, str], flows: dict[str, str] | None = None) -> dict[str, Path]:
    """A project at ``root`` with these check files and flow files (by stem); returns the checks by stem."""
    folder = root / ".mobster" / "checks"
    folder.mkdir(parents=True, exist_ok=True)
    (root / ".mobster" / "flows").mkdir(parents=True, exist_ok=True)
    for name, text in (flows if flows is not None else {"login": LOGIN}).items():
        (root / ".mobster" / "flows" / f"{name}.yaml").write_text(text)
    out = {}
    for name, text in checks.items():
        (folder / f"{name}.yaml").write_text(text)
        out[name] = folder / f"{name}.yaml"
    return out


def own_check(name: str, button: str, shown: str) -> str:
    """A check that logs in with the flow, then taps ``button`` and expects ``shown``."""
    return f"""\
name: {name}
app: {{bundle: com.example.shop}}
steps:
  - use: {{flow: login, with: {{user: "${{SHOP_USER}}", password: "${{SHOP_PASSWORD}}"}}}}
  - Tap "{button}"
  - Tap "{"Save" if button == "Settings" else "Refresh"}"
expect:
  - text: {shown}
"""


SECRETS = {"SHOP_USER": "ada@example.com", "SHOP_PASSWORD": "hunter22-secret"}
