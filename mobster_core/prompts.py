"""For model adapters: what the model is told and the one tool it answers with.

An adapter translates a :class:`~mobster_core.Prompt` into its vendor's request (the system prompt,
``Prompt.text()`` as the user message, the screenshot when there is one, and :data:`ACTION_TOOL` as
the one tool, forced), and the tool call it gets back with :func:`parse_decision`. When the vendor
gives no usage, :func:`estimate_usage` estimates it. See ``docs/smart.md``.
"""

from ._rules.model.cost import estimate_usage
from ._rules.model.prompt import ACTION_TOOL, ACTION_TOOL_NAME, MAX_ACTIONS, SYSTEM_PROMPT, parse_decision, screen_rows

__all__ = [
    "ACTION_TOOL",
    "ACTION_TOOL_NAME",
    "MAX_ACTIONS",
    "SYSTEM_PROMPT",
    "estimate_usage",
    "parse_decision",
    "screen_rows",
]
