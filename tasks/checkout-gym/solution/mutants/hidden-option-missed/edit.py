"""Mutant: page 20's adjustable quantity left out."""

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


for item in answers["20"]["line_items"]:
    item.pop("adjustable_quantity", None)
path.write_text(json.dumps(answers, indent=2) + "\n")
