"""Record every endpoint's JSON before and after the upgrade, and compare.

    python tools/record_json.py before.json     # with the services on stripe-python 5.5.0
    python tools/record_json.py after.json      # once they run stripe-python 16.1.0

Before the upgrade the services pinned API version "2022-08-01"; this tool only calls
the services, never Stripe, so it names no version of its own.
"""

import json
import os
import sys
import urllib.request

PATHS = {"PAYMENTS_URL": ["/version"], "INVOICES_URL": ["/version"],
         "SUBSCRIPTIONS_URL": ["/version"]}


def main():
    out = {}
    for variable, paths in PATHS.items():
        base = os.environ.get(variable, "").rstrip("/")
        for path in paths:
            with urllib.request.urlopen(base + path, timeout=10) as response:
                out[variable + path] = json.load(response)
    with open(sys.argv[1], "w") as handle:
        json.dump(out, handle, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
