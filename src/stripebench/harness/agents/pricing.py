"""List prices in USD per million tokens (input, output), for cost accounting.

Public list prices at the time of writing; a model not listed has no cost (None) unless
STRIPEBENCH_PRICE="input,output" (USD per million tokens) is set.
"""

from __future__ import annotations

import os

PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4o": (2.5, 10.0),
}


def price_for(model: str) -> tuple[float, float] | None:
    override = os.environ.get("STRIPEBENCH_PRICE")
    if override:
        low, high = (float(x) for x in override.split(","))
        return low, high
    # longest known prefix: "claude-sonnet-4-5-20250929" is priced as claude-sonnet-4-5
    matches = [name for name in PRICES if model.startswith(name)]
    return PRICES[max(matches, key=len)] if matches else None


def cost(model: str, input_tokens: int, output_tokens: int) -> float | None:
    price = price_for(model)
    if price is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 6)
