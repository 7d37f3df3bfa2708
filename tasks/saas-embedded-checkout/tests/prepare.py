"""Task setup (outside the sandbox, before the services): install Launchpad's npm packages
from the offline cache, and register its webhook endpoint with the trial's account,
keeping the signing secret in .env as `stripe listen` users do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import stripe

EVENTS = ["customer.subscription.created", "customer.subscription.updated",
          "customer.subscription.deleted"]


def main() -> int:
    workdir = Path(os.environ["STRIPEBENCH_WORKDIR"])
    done = subprocess.run(["bash", "scripts/install.sh"], cwd=workdir)
    if done.returncode != 0:
        print("npm install from the offline cache failed", file=sys.stderr)
        return 1
    client = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                                 base_addresses={"api": os.environ["STRIPE_API_BASE"]})
    endpoint = client.v1.webhook_endpoints.create(params={
        "url": f"{os.environ['APP_URL']}/api/stripe/webhook", "enabled_events": EVENTS})
    (workdir / ".env").write_text(
        "# The signing secret of this app's webhook endpoint at Stripe (the trial's set-up\n"
        f"# registered it for /api/stripe/webhook).\nSTRIPE_WEBHOOK_SECRET={endpoint.secret}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
