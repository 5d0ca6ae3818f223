"""What model calls cost.

Rule 1: cost = usage x price, in USD per million tokens, input, output and cached input apart.
Rule 2: a model's price is the longest entry of the table its name starts with; users extend the
        table. A model with no entry is priced as the default entry and the cost says it's an
        estimate.
Rule 3: when a provider gives no usage, usage is estimated at 4 characters a token for the
        prompt plus 150 output tokens a call, and the cost says it's an estimate.
Rule 4: a cost in words is dollars with two decimals (four in a report or ``junit.xml``), with
        ``~`` in front whenever any part of it was estimated, whatever the amount: ``~$0.00`` is
        an estimate that rounds to nothing, never an exact ``$0.00``.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .model import Prompt, Usage

__all__ = ["DEFAULT_PRICES", "Cost", "Price", "PriceTable", "estimate_usage"]

#: Rule 3's figures.
CHARS_PER_TOKEN = 4
OUTPUT_TOKENS_PER_CALL = 150


@attrs.frozen
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cached: float = 0.0


#: List prices per million tokens (input, output, cached input). Extend with PriceTable.extend.
DEFAULT_PRICES: Mapping[str, Price] = {
    "claude-opus": Price(15.0, 75.0, 1.5),
    "claude-sonnet": Price(3.0, 15.0, 0.3),
    "claude-sonnet-5": Price(2.0, 10.0, 0.2),
    "claude-haiku": Price(1.0, 5.0, 0.1),
    "gpt-5-nano": Price(0.05, 0.4, 0.005),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1),
    "gpt-4.1": Price(2.0, 8.0, 0.5),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075),
    "gpt-4o": Price(2.5, 10.0, 1.25),
    "scripted": Price(0.0, 0.0, 0.0),
}


@attrs.frozen
class Cost:
    """A cost in USD and whether any part of it was estimated."""

    usd: float = 0.0
    estimated: bool = False

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.usd + other.usd, self.estimated or other.estimated)

    def text(self, places: int = 2) -> str:
        """Rule 4: ``$0.00``, or ``~$0.02`` when any part of it is estimated; ``places`` decimals."""
        return f"{'~' if self.estimated else ''}${self.usd:.{places}f}"


@attrs.frozen
class PriceTable:
    """Prices by model-name prefix (Rule 2)."""

    prices: Mapping[str, Price] = attrs.field(factory=lambda: dict(DEFAULT_PRICES))
    default: Price = Price(3.0, 15.0, 0.3)

    def extend(self, more: Mapping[str, Price]) -> PriceTable:
        """A table with more (or replaced) entries."""
        return PriceTable({**self.prices, **more}, self.default)

    def price_of(self, model: str) -> tuple[Price, bool]:
        """The price for ``model`` and whether it is a guess (no entry matched)."""
        matches = [prefix for prefix in self.prices if model.startswith(prefix)]
        if not matches:
            return self.default, True
        return self.prices[max(matches, key=len)], False

    def cost(self, model: str, usage: Usage) -> Cost:
        """Rule 1, marked estimated when the usage or the price is."""
        price, guessed = self.price_of(model)
        usd = (
            usage.input_tokens * price.input + usage.output_tokens * price.output + usage.cached_tokens * price.cached
        ) / 1_000_000
        return Cost(usd, usage.estimated or guessed)


def estimate_usage(prompt: Prompt) -> Usage:
    """Rule 3: 4 characters a token for the prompt, plus 150 output tokens."""
    chars = len(prompt.system) + len(prompt.text())
    return Usage(input_tokens=chars // CHARS_PER_TOKEN, output_tokens=OUTPUT_TOKENS_PER_CALL, estimated=True)
