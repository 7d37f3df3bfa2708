"""Mutant: page 6's allow_promotion_codes left out."""

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


answers["6"].pop("allow_promotion_codes")
path.write_text(json.dumps(answers, indent=2) + "\n")
