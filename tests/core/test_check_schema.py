"""The check schema (``mobster_core/schema/check.schema.json``) keeps in step with the loader.

Every sample check of the repository that the loader takes validates against it, and each bad
check below is refused by both the loader and the schema (what a schema can say: keys, types,
limits, one kind per assertion; not what needs the loader's code, such as a pathological regex).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from mobster_cli._demo import PAYWALL, SIGNUP
from mobster_cli._init import starter_text
from mobster_core.checks import CheckError, load_check_text
from tests import samples

ROOT = Path(__file__).resolve().parents[2]
SCHEMA: dict[str, Any] = json.loads(files("mobster_core").joinpath("schema", "check.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
_YAML_BLOCK = re.compile(r"```ya?ml\n(.*?)```", re.DOTALL)


def _load(text: str) -> object:
    return YAML(typ="safe", pure=True).load(text)


_TOP = set(SCHEMA["properties"])
_APP = "app: {bundle: com.example.app}\n"


def _doc_checks() -> Iterator[tuple[str, str]]:
    """The YAML examples of the docs and the README that are checks, or parts of one made whole.

    A check (a mapping with ``app``) as written; a mapping of a check's keys (``steps: …``) with an
    app; a list of assertions as the ``expect`` of a check. App scripts and other files are left out.
    """
    for page in sorted([*ROOT.joinpath("docs").glob("*.md"), ROOT / "README.md"]):
        for n, block in enumerate(_YAML_BLOCK.findall(page.read_text(encoding="utf-8"))):
            try:
                doc = _load(block)
            except Exception:
                continue
            name = f"{page.name}#{n}"
            if isinstance(doc, dict) and "app" in doc:
                yield name, block
            elif isinstance(doc, dict) and doc and set(doc) <= _TOP:
                yield name, _APP + block
            elif isinstance(doc, list) and doc and all(isinstance(item, dict) for item in doc):
                yield name, _APP + "expect:\n" + block


def samples_checks() -> list[tuple[str, str]]:
    found = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(ROOT.glob("tests/data/checks/*.yaml"))]
    found += [("demo signup", SIGNUP), ("demo paywall", PAYWALL), ("init starter", starter_text())]
    found += [
        (f"tests.samples.{name}", value)
        for name, value in vars(samples).items()
        if isinstance(value, str) and name.isupper() and value.lstrip().startswith(("version: 1", "name:"))
    ]
    found += list(_doc_checks())
    return [(name, text) for name, text in found if _loads(name, text)]


def _loads(name: str, text: str) -> bool:
    """Whether the loader takes it (an app script in ``tests.samples``, a workflow's steps: no check)."""
    try:
        load_check_text(text, name)
    except CheckError:
        return False
    return True


SAMPLES = samples_checks()


def test_the_schema_is_draft_2020_12_and_in_the_wheel() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    build = (ROOT / "pyproject.toml").read_text()
    assert 'packages = ["mobster_core",' in build  # hatch ships every file of the package folder


def test_there_are_samples_of_each_origin() -> None:
    names = [name for name, _ in SAMPLES]
    assert sum(n.endswith(".yaml") for n in names) >= 5
    assert sum("#" in n for n in names) >= 6
    assert any(n.startswith("tests.samples.") for n in names)


@pytest.mark.parametrize(("name", "text"), SAMPLES, ids=[n for n, _ in SAMPLES])
def test_every_sample_check_the_loader_takes_validates(name: str, text: str) -> None:
    errors = [e.message for e in VALIDATOR.iter_errors(_load(text))]
    assert errors == [], name


BASE = 'version: 1\napp: {bundle: com.example.app}\nsteps: [Tap "Go"]\nexpect:\n  - text: Done\n'
BAD = {
    "an unknown key": BASE + "step: [x]\n",
    "an unknown app key": "app: {bundle: com.example.app, bundel: x}\n",
    "no app": "steps: [Tap Go]\n",
    "an app naming nothing": "app: {}\n",
    "a bundle without a dot": "app: {bundle: example}\n",
    "version as text": BASE.replace("version: 1", 'version: "1"'),
    "version 2": BASE.replace("version: 1", "version: 2"),
    "a name too long": BASE + "name: " + "x" * 121 + "\n",
    "a null name": BASE + "name:\n",
    "a bad tag": BASE + "tags: [Smoke]\n",
    "eleven tags": BASE + "tags: [" + ", ".join(f"t{n}" for n in range(11)) + "]\n",
    "a bad reset": BASE + "reset: always\n",
    "no steps": BASE.replace('steps: [Tap "Go"]', "steps: []"),
    "a step too long": BASE.replace('steps: [Tap "Go"]', "steps: [" + "x" * 501 + "]"),
    "21 steps": BASE.replace('steps: [Tap "Go"]', "steps: [" + ", ".join(["go"] * 21) + "]"),
    "a number as a step": BASE.replace('steps: [Tap "Go"]', "steps: [3]"),
    "an unknown assertion": BASE + "  - txt: Done\n",
    "two kinds in one": BASE + "  - text: Done\n    visible: {label: Go}\n",
    "an empty selector": BASE + "  - visible: {}\n",
    "an unknown selector key": BASE + "  - visible: {lable: Go}\n",
    "a count without a bound": BASE + "  - count: {role: button}\n",
    "a count with two bounds": BASE + "  - count: {role: button}\n    at_least: 1\n    at_most: 3\n",
    "a value without equals": BASE + "  - value: {label: Email}\n",
    "a bound on visible": BASE + "  - visible: {label: Go}\n    equals: 1\n",
    "a flag as text": BASE + "  - text: true\n",
    "a budget over a dollar": BASE + "budget: {max_usd: 2}\n",
    "a budget of 0 seconds": BASE + "budget: {max_seconds: 0}\n",
    "a budget as text": BASE + 'budget: {max_usd: "0.10"}\n',
    "a bad env key": BASE + "launch: {env: {lower: x}}\n",
    "a link without a scheme": BASE + "launch: {url: signup}\n",
    "a bad locale": BASE + "launch: {locale: german}\n",
    "an unknown alert policy": BASE + "alerts: always\n",
    "an unknown alert service": BASE + "alerts: {allow: [locaton]}\n",
    "an unknown alert key": BASE + "alerts: {grant: [camera]}\n",
    "all_steps as text": BASE + "all_steps: yes please\n",
    "an unknown audit type": BASE + "  - accessibility_audit: {types: [contrasts]}\n",
    "a negative audit max": BASE + "  - accessibility_audit: {max: -1}\n",
    "an unknown content size": BASE.replace("expect:", "device: {content_size: huge}\nexpect:"),
    "a latitude out of range": BASE.replace("expect:", "device: {location: [91, 0]}\nexpect:"),
    "an unknown device key": BASE.replace("expect:", "device: {colour: dark}\nexpect:"),
    "a device step of two keys": BASE.replace('[Tap "Go"]', "[{biometric: match, push: p.json}]"),
    "an unknown device step": BASE.replace('[Tap "Go"]', "[{shake: true}]"),
    "an unknown biometric result": BASE.replace('[Tap "Go"]', "[{biometric: maybe}]"),
    "an unknown sensor": BASE.replace('[Tap "Go"]', "[{biometric: {result: match, sensor: iris}}]"),
    "a biometric without a result": BASE.replace('[Tap "Go"]', "[{biometric: {sensor: touchId}}]"),
    "a push of no file": BASE.replace('[Tap "Go"]', '[{push: ""}]'),
}


@pytest.mark.parametrize("text", BAD.values(), ids=BAD.keys())
def test_a_check_the_loader_refuses_the_schema_refuses(text: str) -> None:
    with pytest.raises(CheckError):
        load_check_text(text, "bad.yaml")
    assert not VALIDATOR.is_valid(_load(text))


def test_the_base_of_the_bad_checks_is_good() -> None:
    load_check_text(BASE, "good.yaml")
    assert VALIDATOR.is_valid(_load(BASE))


def test_the_schemas_keys_are_the_loaders_and_its_services_the_alert_rules() -> None:
    from mobster_core._store.checks import _TOP_KEYS
    from mobster_core.checks import ALERT_SERVICES

    assert set(SCHEMA["properties"]) == set(_TOP_KEYS)
    assert SCHEMA["$defs"]["alertService"]["enum"] == list(ALERT_SERVICES)
    from mobster_core.checks import AUDIT_TYPES, CONTENT_SIZES

    audit = SCHEMA["$defs"]["assertion"]["properties"]["accessibility_audit"]
    assert audit["properties"]["types"]["items"]["enum"] == list(AUDIT_TYPES)
    assert SCHEMA["properties"]["device"]["oneOf"][1]["properties"]["content_size"]["enum"] == list(CONTENT_SIZES)
    from mobster_core._rules.vocabulary.steps import SENSORS
    from mobster_core._store.checks import _BIOMETRIC_KEYS, _BIOMETRIC_RESULTS, _DEVICE_STEP_KEYS

    step = SCHEMA["$defs"]["deviceStep"]
    assert list(step["properties"]) == list(_DEVICE_STEP_KEYS)
    assert SCHEMA["$defs"]["biometricResult"]["enum"] == list(_BIOMETRIC_RESULTS)
    biometric = step["properties"]["biometric"]["oneOf"][1]["properties"]
    assert list(biometric) == list(_BIOMETRIC_KEYS)
    assert biometric["sensor"]["enum"] == list(SENSORS)
    touch = BASE.replace('[Tap "Go"]', '[Tap "Go", {biometric: {result: fail, sensor: touchId}}, {biometric: match}]')
    ops = [e.op.value for _n, e in load_check_text(touch, "good.yaml").device_steps]
    assert ops == ["BIOMETRIC_FAIL", "BIOMETRIC_MATCH"]
    assert VALIDATOR.is_valid(_load(touch))
    good = BASE + "all_steps: true\nalerts: {allow: [location], deny: [tracking]}\n"
    load_check_text(good, "good.yaml")
    assert VALIDATOR.is_valid(_load(good))


FLOW_SCHEMA: dict[str, Any] = json.loads(files("mobster_core").joinpath("schema", "flow.schema.json").read_text())
FLOW_VALIDATOR = jsonschema.Draft202012Validator(FLOW_SCHEMA)


def test_the_flow_schema_and_the_use_step_and_rows_keep_in_step_with_the_loaders(tmp_path: Path) -> None:
    from mobster_core._store.flows import _CHECK_ONLY, _TOP_KEYS, load_flow

    assert set(FLOW_SCHEMA["properties"]) == set(_TOP_KEYS)
    assert not set(FLOW_SCHEMA["properties"]) & set(_CHECK_ONLY)
    flows = tmp_path / ".mobster" / "flows"
    flows.mkdir(parents=True)
    good = 'inputs: {user: text, password: {type: secret, default: "${P}"}}\nsteps:\n  - Type ${user} into Email\n'
    good += "  - use: other\nexpect:\n  - text: Welcome\n"
    (flows / "login.yaml").write_text(good)
    load_flow(flows / "login.yaml")
    assert FLOW_VALIDATOR.is_valid(_load(good))
    for bad in ("app: {bundle: a.b}\nsteps: [Tap A]\n", "steps: []\n", "inputs: {user: number}\nsteps: [Tap A]\n",
                "steps: [{biometric: match}]\n"):  # fmt: skip
        (flows / "bad.yaml").write_text(bad)
        with pytest.raises(CheckError):
            load_flow(flows / "bad.yaml")
        assert not FLOW_VALIDATOR.is_valid(_load(bad)), bad
    use = BASE.replace('[Tap "Go"]', '[{use: login}, {use: {flow: login, with: {user: "${U}"}}}, Tap "Go"]')
    assert VALIDATOR.is_valid(_load(use + "rows: [{plan: free}, {plan: pro}]\n"))
    assert VALIDATOR.is_valid(_load(use + "rows: plans.csv\n"))
    assert not VALIDATOR.is_valid(_load(use + "rows: [{plan: 1}]\n"))
    assert not VALIDATOR.is_valid(_load(BASE.replace('[Tap "Go"]', "[{use: {flow: login, extra: 1}}]")))
