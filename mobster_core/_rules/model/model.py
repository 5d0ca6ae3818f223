"""What a model is given and what it answers (provider-neutral).

The agent issue refines the prompt; adapters only translate these shapes to and from a vendor API.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from mobster_core._rules.vocabulary.steps import Op, Step

__all__ = ["Decision", "DecisionKind", "ModelAction", "Prompt", "Usage"]


@attrs.frozen
class Prompt:
    """Everything a model sees for one turn."""

    system: str
    request: str
    history: tuple[str, ...]
    screen: str
    tool_schema: Mapping[str, Any] = attrs.field(factory=dict, hash=False)
    screenshot: bytes | None = None
    #: The check's steps, one per item (the request has them too, as text).
    steps: tuple[str, ...] = ()
    #: In a heal: the recorded steps from the drifted one on (the request says which changed and why).
    recorded: tuple[Step, ...] = ()

    def text(self) -> str:
        """The user message every adapter sends: the request, what was done, the screen now."""
        done = "\n".join(f"{n}. {h}" for n, h in enumerate(self.history, 1)) or "(nothing yet)"
        return f"{self.request}\n\nDone so far:\n{done}\n\nThe screen now:\n{self.screen}"


class DecisionKind(enum.StrEnum):
    """Act, or stop because the check is done, or stop because the model is blocked."""

    ACT = "act"
    DONE = "done"
    BLOCKED = "blocked"


@attrs.frozen
class ModelAction:
    """One action a model asked for. ``target`` names an element row of the prompt (``e12``)."""

    op: Op
    target: str | None = None
    text: str | None = None


@attrs.frozen
class Usage:
    """Tokens a call used. ``estimated`` is True when the provider gave none and we estimated."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    estimated: bool = False


@attrs.frozen
class Decision:
    """A model's answer for one turn."""

    kind: DecisionKind
    actions: tuple[ModelAction, ...] = ()
    reason: str = ""
    usage: Usage = Usage()
