"""Oracle for checkout-gym: the generator's parameters, with this account's catalog ids.

Uses the public seed (or STRIPEBENCH_GYM_SEED where that reaches it: the sandbox hides
STRIPEBENCH_* variables, so under the harness the oracle proves the public seed),
looks the catalog ids up with the agent's own key (lookup keys and shipping-rate
metadata) and writes submission.json into the working directory.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import stripe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import DEFAULT_COUNT, PUBLIC_SEED, generate, resolve  # noqa: E402


def catalog_ids(client: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Price ids by lookup key and shipping-rate ids by their `lookup` metadata."""
    prices = {p.lookup_key: p.id for p in client.v1.prices.list({"limit": 100}).data
              if p.lookup_key}
    rates = {r.metadata["lookup"]: r.id for r in client.v1.shipping_rates.list({"limit": 100}).data
             if r.metadata and "lookup" in r.metadata}
    return prices, rates


def main() -> None:
    base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
    client = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                                 base_addresses={"api": base}, max_network_retries=2)
    prices, rates = catalog_ids(client)
    seed = int(os.environ.get("STRIPEBENCH_GYM_SEED") or PUBLIC_SEED)
    count = int(os.environ.get("STRIPEBENCH_GYM_COUNT") or DEFAULT_COUNT)
    answers = {str(item["number"]): resolve(item["params"], prices, rates)
               for item in generate(seed, count)}
    out = Path(os.environ.get("STRIPEBENCH_WORKDIR", ".")) / "submission.json"
    out.write_text(json.dumps(answers, indent=2) + "\n")
    print(f"wrote {len(answers)} answers to {out}")


if __name__ == "__main__":
    main()
