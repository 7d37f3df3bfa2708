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
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import DEFAULT_COUNT, PUBLIC_SEED, generate, resolve  # noqa: E402


def _list(base: str, key: str, path: str) -> list[dict[str, Any]]:
    request = urllib.request.Request(f"{base}{path}?limit=100",
                                     headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        data: list[dict[str, Any]] = json.load(response)["data"]
    return data


def catalog_ids(base: str, key: str) -> tuple[dict[str, str], dict[str, str]]:
    """Price ids by lookup key and shipping-rate ids by their `lookup` metadata (stdlib
    only: the oracle runs with whatever python the sandbox has)."""
    prices = {p["lookup_key"]: p["id"] for p in _list(base, key, "/v1/prices")
              if p.get("lookup_key")}
    rates = {r["metadata"]["lookup"]: r["id"] for r in _list(base, key, "/v1/shipping_rates")
             if "lookup" in (r.get("metadata") or {})}
    return prices, rates


def main() -> None:
    base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
    prices, rates = catalog_ids(base, os.environ["STRIPE_SECRET_KEY"])
    seed = int(os.environ.get("STRIPEBENCH_GYM_SEED") or PUBLIC_SEED)
    count = int(os.environ.get("STRIPEBENCH_GYM_COUNT") or DEFAULT_COUNT)
    answers = {str(item["number"]): resolve(item["params"], prices, rates)
               for item in generate(seed, count)}
    out = Path(os.environ.get("STRIPEBENCH_WORKDIR", ".")) / "submission.json"
    out.write_text(json.dumps(answers, indent=2) + "\n")
    print(f"wrote {len(answers)} answers to {out}")


if __name__ == "__main__":
    main()
