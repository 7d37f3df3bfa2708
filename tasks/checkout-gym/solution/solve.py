"""Oracle for checkout-gym: the public seed's answers, with this account's catalog ids.

answers.json holds the create parameters of the public seed's 20 pages, naming catalog
objects symbolically ({"lookup_key": ...} for a price, {"shipping_rate_lookup": ...} for
a shipping rate); this looks the ids up with the agent's own key (lookup keys and
shipping-rate metadata) and writes submission.json into the working directory. The
oracle proves the public seed only (the harness runs that one; a private seed's pages
would need reading, as an agent does).
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


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


def resolve(value: Any, price_ids: dict[str, str], rate_ids: dict[str, str]) -> Any:
    """Replace symbolic catalog references with this account's ids."""
    if isinstance(value, dict):
        if set(value) == {"lookup_key"}:
            return price_ids[value["lookup_key"]]
        if set(value) == {"shipping_rate_lookup"}:
            return rate_ids[value["shipping_rate_lookup"]]
        return {k: resolve(v, price_ids, rate_ids) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, price_ids, rate_ids) for v in value]
    return value


def main() -> None:
    base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
    prices, rates = catalog_ids(base, os.environ["STRIPE_SECRET_KEY"])
    symbolic = json.loads((HERE / "answers.json").read_text())
    answers = {number: resolve(params, prices, rates) for number, params in symbolic.items()}
    out = Path(os.environ.get("STRIPEBENCH_WORKDIR", ".")) / "submission.json"
    out.write_text(json.dumps(answers, indent=2) + "\n")
    print(f"wrote {len(answers)} answers to {out}")


if __name__ == "__main__":
    main()
