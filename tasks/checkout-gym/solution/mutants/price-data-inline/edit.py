"""Mutant: page 17's catalog price written inline as price_data."""

import json
import os
import urllib.request
from pathlib import Path

path = Path(os.environ.get("STRIPEBENCH_WORKDIR", ".")) / "submission.json"
answers = json.loads(path.read_text())


def listed(what):
    base = os.environ.get("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
    request = urllib.request.Request(f"{base}/v1/{what}?limit=100", headers={
        "Authorization": "Bearer " + os.environ["STRIPE_SECRET_KEY"]})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["data"]


prices = {p["id"]: p for p in listed("prices")}
for item in answers["17"]["line_items"]:
    price = prices[item.pop("price")]
    item["price_data"] = {"currency": price["currency"], "product": price["product"],
                          "unit_amount": price["unit_amount"]}
path.write_text(json.dumps(answers, indent=2) + "\n")
