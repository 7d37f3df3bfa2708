"""Oracle for checkout-gym: the generator's parameters, with this account's catalog ids.

Reads the same seed the set-up used (STRIPEBENCH_GYM_SEED, default the public seed),
looks the catalog ids up with the agent's own key (lookup keys and shipping-rate
metadata) and writes submission.json into the working directory.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from generate import generate, resolve  # noqa: E402
from prepare import catalog_ids, settings, stripe_client  # noqa: E402


def main() -> None:
    base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
    client = stripe_client(base, os.environ["STRIPE_SECRET_KEY"])
    prices, rates = catalog_ids(client)
    seed, count = settings()
    answers = {str(item["number"]): resolve(item["params"], prices, rates)
               for item in generate(seed, count)}
    out = Path(os.environ.get("STRIPEBENCH_WORKDIR", ".")) / "submission.json"
    out.write_text(json.dumps(answers, indent=2) + "\n")
    print(f"wrote {len(answers)} answers to {out}")


if __name__ == "__main__":
    main()
