"""Issue 35, item 4: a heal keeps what the check says to type (``typing_rules`` Rule 5, ``heal`` Rule 10).

On the scripted phone and the fake clock: a check types ``${LOGIN_PASSWORD}`` into "Password",
records on the sample app, then runs on rebuilds where that field is renamed, moved or gone,
with the scripted model and with models that heal it wrongly. A heal that types nothing, other
text, into another field of the recorded screen or into a field that shows what is typed fails
the step (class ``drift``) and leaves nothing to review; the value is in no file and no message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mobster_core as mc
from mobster_core import RunOptions, load_check, run_check
from mobster_core._store.healfile import heal_file_for, read_heal_file
from mobster_core.prompts import estimate_usage
from mobster_core.results import Fix, FixCode, StepSource
from mobster_core.testing import FakeClock
from mobster_drivers.devices.scripted import ScriptedPhone, sample_path
from mobster_drivers.models.scripted import ScriptedModel

PASSWORD = "s3cr3t-Value-42"
SECRETS = {"LOGIN_PASSWORD": PASSWORD}
CHECK = """\
version: 1
name: A user logs in
app: {bundle: com.example.yourapp}
steps:
  - Tap "Sign up"
  - Type "ada@example.com" into "Email"
  - Type "${LOGIN_PASSWORD}" into "Password"
  - Tap "Continue"
expect:
  - text: Welcome aboard
"""
#: The same check with the password written in it: typed into a secure field, so it is live.
LITERAL = CHECK.replace('"${LOGIN_PASSWORD}"', '"hunter22"')
APP = sample_path("yourapp").read_text()
PASSWORD_FIELD = "        - {role: SecureTextField, label: Password}\n"


def rebuilt(*fields: str, app: str = APP) -> str:
    """The sample app with its password field replaced by ``fields`` (app script lines)."""
    assert PASSWORD_FIELD in app
    return app.replace(PASSWORD_FIELD, "".join(f"        - {f}\n" for f in fields))


#: The rebuild of the issue: "Password" is now called "Passcode".
PASSCODE = rebuilt("{role: SecureTextField, label: Passcode}")
#: The sample app with four more texts on its form: a form that changes in two places still
#: matches its recording once settled (half alike or more).
TIPS = APP.replace(
    "        - {role: Button, label: Continue, tap: done}\n",
    "".join(f"        - {{role: StaticText, label: Tip {n}}}\n" for n in range(4))
    + "        - {role: Button, label: Continue, tap: done}\n",
)


class HealsWith:
    """A model that records like the scripted model and heals with the actions it is given.

    Each heal call takes the next of ``actions`` (``(op, label, text)``: the row labelled ``label``
    on the screen it is shown); with none left it says done. Its calls are counted.
    """

    name = "scripted"

    def __init__(self, actions: Sequence[tuple[str, str | None, str | None]]) -> None:
        self.actions = list(actions)
        self.scripted = ScriptedModel()
        self.calls = 0

    async def decide(self, prompt: mc.Prompt) -> mc.Decision:
        self.calls += 1
        if not prompt.recorded:
            return await self.scripted.decide(prompt)
        usage = estimate_usage(prompt)
        if not self.actions:
            return mc.Decision(kind=mc.DecisionKind.DONE, reason="done", usage=usage)
        op, label, text = self.actions.pop(0)
        row = None
        if label is not None:
            row = next(line.split()[0] for line in prompt.screen.splitlines() if f' "{label}"' in line)
        action = mc.ModelAction(mc.Op(op), target=row, text=text)
        return mc.Decision(kind=mc.DecisionKind.ACT, actions=(action,), usage=usage)


def project(tmp_path: Path, check: str = CHECK) -> Path:
    folder = tmp_path / ".mobster" / "checks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "login.yaml").write_text(check)
    return folder / "login.yaml"


def run(
    check_file: Path, app: str, model: mc.Model | None = None, **options: Any
) -> tuple[mc.CheckResult, ScriptedPhone]:
    clock = FakeClock()
    phone = ScriptedPhone.from_text(app, clock=clock)
    root = check_file.parent.parent.parent
    opts = RunOptions(root=root, secrets=SECRETS, **options)
    return clock.run(run_check(load_check(check_file), phone, clock, model=model, options=opts)), phone


def recorded(tmp_path: Path, check: str = CHECK, app: str = APP) -> Path:
    """The check, recorded by the scripted model on ``app`` (the sample app)."""
    file = project(tmp_path, check)
    first, _ = run(file, app, ScriptedModel())
    assert first.verdict is mc.Verdict.PASSED, first.outcome
    return file


def typed(phone: ScriptedPhone) -> list[tuple[str, str | None]]:
    """What the phone was asked to type, into which field (the values, as the device gets them)."""
    return [(a.element.label, a.text) for a in phone.actions if a.op is mc.Op.TYPE and a.element is not None]


def leaks(root: Path, result: mc.CheckResult, *values: str) -> list[str]:
    """Where one of ``values`` shows: a file under ``root`` but the check (as written, or JSON-escaped), the result."""
    forms = [f.encode() for v in values for f in (v, json.dumps(v)[1:-1])]
    files = [f for f in root.rglob("*") if f.is_file() and f.name != "login.yaml"]
    found = [str(f) for f in files if any(v in f.read_bytes() for v in forms)]
    shown = json.dumps(result.to_dict())
    return found + [f"result: {v}" for v in values if v in shown]


def drifted(result: mc.CheckResult) -> str:
    """The message of a check that failed, class ``drift``, at step 3 with the fix to record it again."""
    outcome = result.outcome
    assert (result.verdict, outcome.failure_class, outcome.step) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT, 3)
    assert outcome.fix == Fix(FixCode.RECORD_AGAIN)
    assert result.heals == ()
    return outcome.message


def test_a_type_step_healed_into_a_tap_fails_saying_it_no_longer_types_the_reference(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    model = HealsWith([("TAP", "Passcode", None)])
    result, phone = run(check, PASSCODE, model)
    assert drifted(result) == (
        'step 3 (Type "${LOGIN_PASSWORD}" into "Password") drifted: "Password" isn\'t on the screen; '
        'the healed step no longer types ${LOGIN_PASSWORD} (healed as Tap "Passcode")'
    )
    assert typed(phone) == [("Email", "ada@example.com")]  # nothing went into "Passcode"
    assert [s.source for s in result.steps][-1] is StepSource.HEALED  # the tap was sent: the report shows it
    assert model.calls == 1
    # Nothing waits for review, and no healed path is kept: the next run drifts there again.
    assert not heal_file_for(check).exists()
    again, _ = run(check, PASSCODE, no_heal=True)
    assert (again.verdict, again.outcome.failure_class, again.outcome.step) == (
        mc.Verdict.FAILED, mc.FailureClass.DRIFT, 3,
    )  # fmt: skip
    assert leaks(tmp_path, result, PASSWORD) == []


def test_the_scripted_model_types_the_secret_into_the_renamed_secure_field(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    model = ScriptedModel()
    result, phone = run(check, PASSCODE, model)
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    assert model.calls == 1
    assert typed(phone) == [("Email", "ada@example.com"), ("Passcode", PASSWORD)]
    (entry,) = read_heal_file(heal_file_for(check))
    assert (entry.step, entry.from_, entry.to) == (
        3, 'Type "${LOGIN_PASSWORD}" into "Password"', 'Type "${LOGIN_PASSWORD}" into "Passcode"',
    )  # fmt: skip
    assert [dict(a)["text"] for a in entry.new] == ["${LOGIN_PASSWORD}"]
    # The heal waits for review and replays at $0 with no model.
    again, phone = run(check, PASSCODE, no_heal=True)
    assert (again.verdict, again.model_calls) == (mc.Verdict.PASSED, 0)
    assert typed(phone)[-1] == ("Passcode", PASSWORD)
    assert leaks(tmp_path, result, PASSWORD) == []
    assert leaks(tmp_path, again, PASSWORD) == []


def test_a_heal_that_types_the_secrets_value_itself_fails_and_the_value_is_nowhere(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    model = HealsWith([("TYPE", "Passcode", PASSWORD)])
    result, phone = run(check, PASSCODE, model)
    assert drifted(result).endswith(
        '; the healed step no longer types ${LOGIN_PASSWORD} (healed as Type into "Passcode")'
    )
    assert typed(phone)[-1] == ("Passcode", PASSWORD)  # it was typed: the step fails all the same
    assert not heal_file_for(check).exists()
    assert leaks(tmp_path, result, PASSWORD) == []


def test_a_heal_that_types_a_prefix_of_the_checks_text_fails_naming_the_text(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    email = APP.replace("label: Email, id: email}", "label: E-mail, id: email}")
    model = HealsWith([("TYPE", "E-mail", "ada@example")])
    result, _ = run(check, email, model)
    outcome = result.outcome
    assert (result.verdict, outcome.failure_class, outcome.step) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT, 2)
    assert outcome.message.endswith(
        '; the healed step no longer types "ada@example.com" (healed as Type into "E-mail")'
    )
    assert not heal_file_for(check).exists()


def test_a_heal_that_types_the_secret_twice_fails(tmp_path: Path) -> None:
    check = recorded(tmp_path, app=TIPS)
    # "Continue" shows 5 s after the form: nothing after the drifted step matches until then.
    late = rebuilt("{role: SecureTextField, label: Passcode}", app=TIPS).replace(
        "label: Continue, tap: done}", "label: Continue, tap: done, after: 5}"
    )
    twice = ("TYPE", "Passcode", "${LOGIN_PASSWORD}")
    model = HealsWith([twice, twice])
    result, phone = run(check, late, model)
    assert drifted(result).endswith(
        '; the healed step types more than the check says there: Type "${LOGIN_PASSWORD}" into "Passcode" '
        '(healed as Type "${LOGIN_PASSWORD}" into "Passcode", then Type "${LOGIN_PASSWORD}" into "Passcode")'
    )
    assert [label for label, _text in typed(phone)] == ["Email", "Passcode", "Passcode"]
    assert model.calls == 3  # two actions, then done


def test_a_heal_whose_lookahead_skips_a_typing_step_fails(tmp_path: Path) -> None:
    # The rebuild renames "Email" and drops the password field: the scripted model types the
    # email into "E-mail", and the screen then matches "Continue", two steps on, past the
    # step that typed the password.
    check = recorded(tmp_path, app=TIPS)
    app = rebuilt(app=TIPS.replace("label: Email, id: email}", "label: E-mail, id: email}"))
    result, phone = run(check, app, ScriptedModel())
    outcome = result.outcome
    assert (result.verdict, outcome.failure_class, outcome.step) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT, 2)
    assert outcome.message == (
        'step 2 (Type "ada@example.com" into "Email") drifted: "Email" isn\'t on the screen; the healed step '
        'no longer types ${LOGIN_PASSWORD} (healed as Type "ada@example.com" into "E-mail")'
    )
    assert typed(phone) == [("E-mail", "ada@example.com")]
    assert not heal_file_for(check).exists()


def test_a_heal_that_types_into_another_field_of_the_recorded_screen_fails(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    model = HealsWith([("TYPE", "Email", "${LOGIN_PASSWORD}")])
    result, _ = run(check, PASSCODE, model)
    assert drifted(result).endswith(
        '; the healed step types ${LOGIN_PASSWORD} into "Email", another field of the recorded screen, '
        'not into "Password" (healed as Type "${LOGIN_PASSWORD}" into "Email")'
    )


def test_a_heal_into_a_renamed_field_that_shows_the_text_fails(tmp_path: Path) -> None:
    # The password field became a plain text field under a new name: the scripted model types
    # into it (the one new field), and the heal fails rather than keep a password in clear.
    check = recorded(tmp_path)
    result, _ = run(check, rebuilt("{role: TextField, label: Your word}"), ScriptedModel())
    assert drifted(result).endswith(
        '; the healed step types ${LOGIN_PASSWORD} into "Your word", a field that shows what is typed, '
        'where "Password" hid it (healed as Type "${LOGIN_PASSWORD}" into "Your word")'
    )


def test_a_live_step_the_model_taps_instead_of_typing_fails(tmp_path: Path) -> None:
    check = recorded(tmp_path, LITERAL)
    model = HealsWith([("TAP", "Password", None)])
    result, phone = run(check, APP, model)
    outcome = result.outcome
    assert (result.verdict, outcome.failure_class, outcome.step) == (mc.Verdict.FAILED, mc.FailureClass.DRIFT, 3)
    assert outcome.message == (
        'step 3 (Type into "Password"): the model\'s action for this live step no longer types into "Password" '
        '(it did Tap "Password")'
    )
    assert typed(phone) == [("Email", "ada@example.com")]
    assert leaks(tmp_path, result, "hunter22") == []


def test_a_live_step_the_model_types_into_another_field_fails(tmp_path: Path) -> None:
    check = recorded(tmp_path, LITERAL)
    result, _ = run(check, APP, HealsWith([("TYPE", "Email", "hunter22")]))
    assert result.outcome.failure_class is mc.FailureClass.DRIFT
    assert result.outcome.message.startswith(
        'step 3 (Type into "Password"): the model\'s action for this live step types into "Email", another '
        'field of the recorded screen, not into "Password"'
    )


def test_a_renamed_live_password_field_heals_and_its_text_is_never_stored(tmp_path: Path) -> None:
    check = recorded(tmp_path, LITERAL)
    result, phone = run(check, PASSCODE, ScriptedModel())
    assert result.verdict is mc.Verdict.PASSED, result.outcome
    assert typed(phone)[-1] == ("Passcode", "hunter22")
    (entry,) = read_heal_file(heal_file_for(check))
    assert (entry.from_, entry.to) == ('Type into "Password"', 'Type into "Passcode"')
    # The healed step is live as the recorded one was: the model types it on the next run too.
    again, phone = run(check, PASSCODE, ScriptedModel())
    assert (again.verdict, again.model_calls) == (mc.Verdict.PASSED, 1)
    assert [s.source for s in again.steps][2] is StepSource.LIVE
    assert typed(phone)[-1] == ("Passcode", "hunter22")
    assert leaks(tmp_path, again, "hunter22") == []


def test_a_carried_path_whose_heal_stops_typing_is_not_kept(tmp_path: Path) -> None:
    check = recorded(tmp_path)
    newer = PASSCODE.replace('version: "1.0"', 'version: "1.1"').replace('build: "1"', 'build: "2"')
    result, phone = run(check, newer, HealsWith([("TAP", "Passcode", None)]), carry=True)
    # The heal fails the carried path, so the run records afresh, and the scripted recording
    # can't find "Password" either: nothing passes and nothing is kept.
    assert result.verdict is mc.Verdict.FAILED
    assert result.carried_from == "1.0 (1)"
    assert result.path_why is not None
    assert 'the healed step no longer types ${LOGIN_PASSWORD} (healed as Tap "Passcode")' in result.path_why
    assert result.heals == ()
    assert not heal_file_for(check).exists()
    assert ("Passcode", PASSWORD) not in typed(phone)
    # With the scripted model the carried path heals right, and the heal waits for review.
    carried, phone = run(check, newer, ScriptedModel(), carry=True)
    assert (carried.verdict, carried.carried_from) == (mc.Verdict.PASSED, "1.0 (1)")
    assert [e.to for e in read_heal_file(heal_file_for(check))] == ['Type "${LOGIN_PASSWORD}" into "Passcode"']
    assert leaks(tmp_path, carried, PASSWORD) == []


def test_a_heal_that_types_the_secrets_value_into_a_plain_field_writes_it_nowhere(tmp_path: Path) -> None:
    # The value itself (a model can only know it from elsewhere) into a field that shows it: the
    # journal keeps the reference, the field reads back scrubbed, and the heal fails.
    check = recorded(tmp_path)
    result, phone = run(
        check, rebuilt("{role: TextField, label: Your word}"), HealsWith([("TYPE", "Your word", PASSWORD)])
    )
    assert drifted(result).endswith(
        '; the healed step no longer types ${LOGIN_PASSWORD} (healed as Type into "Your word")'
    )
    assert typed(phone)[-1] == ("Your word", PASSWORD)
    journal = (tmp_path / result.run_dir / "journal.jsonl").read_text()
    assert '"text":"${LOGIN_PASSWORD}"' in journal
    assert leaks(tmp_path, result, PASSWORD) == []
