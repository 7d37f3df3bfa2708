"""Mutant: page 13's catalog shipping rate written inline as shipping_rate_data."""

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


rates = {r["id"]: r for r in listed("shipping_rates")}
for option in answers["13"]["shipping_options"]:
    rate = rates[option.pop("shipping_rate")]
    option["shipping_rate_data"] = {
        "display_name": rate["display_name"], "type": "fixed_amount",
        "fixed_amount": {"amount": rate["fixed_amount"]["amount"], "currency": "usd"},
        "delivery_estimate": rate["delivery_estimate"]}
path.write_text(json.dumps(answers, indent=2) + "\n")
