"""Register the shop's webhook endpoint and keep its signing secret next to app.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import stripe


def main() -> None:
    work = Path(sys.argv[1])
    shop = os.environ.get("SHOP_URL", "http://127.0.0.1:4242").rstrip("/")
    client = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"], base_addresses={
        "api": os.environ.get("STRIPE_API_BASE", "https://api.stripe.com")})
    endpoint = client.v1.webhook_endpoints.create(params={
        "url": f"{shop}/stripe/events",
        "enabled_events": ["checkout.session.completed",
                           "checkout.session.async_payment_succeeded"]})
    (work / "webhook_secret.txt").write_text(str(endpoint.secret) + "\n")


if __name__ == "__main__":
    main()
