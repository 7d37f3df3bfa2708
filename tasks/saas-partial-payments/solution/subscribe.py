"""Sign up on Launchpad and subscribe to Base in Chromium, paying the first invoice in
two halves on hosted Checkout with the 4242 card.

    python subscribe.py WORKDIR

Uses the app the task's service runs (`next dev` reloads the changed code), and writes
the subscription's id to WORKDIR/submission/subscription_id.txt.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import stripe
from playwright.sync_api import Page, sync_playwright

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def launch_options() -> dict[str, Any]:
    """Chromium that reaches Stripe's hosts: inside a routed sandbox it already does;
    beside a plain-HTTP emulator (no routing) it needs the project's TLS front."""
    base = os.environ.get("STRIPE_API_BASE", "")
    if base.startswith("http://"):
        from stripebench.routing.chromium import launch_options as routed
        return routed(None, base)
    return {"executable_path": "/usr/bin/chromium", "args": CHROMIUM_ARGS}


def pay_half(page: Page, paid: str = "") -> str:
    """Pay the hosted Checkout page the app sent the browser to (not the one `paid`)."""
    page.wait_for_url(lambda url: "checkout.stripe.com/c/pay/cs_" in url and url != paid)
    here = page.url
    page.locator("#card-number").fill("4242 4242 4242 4242")
    page.locator("#card-expiry").fill("12 / 34")
    page.locator("#card-cvc").fill("123")
    page.locator("#card-name").fill("Sam Founder")
    page.locator("#billing-country").select_option("US")
    page.locator("#billing-postal_code").fill("94107")
    page.locator("#submit").click()
    return here


def subscribe(app: str) -> str:
    email = f"founder.{int(time.time())}@example.com"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_options())
        page = browser.new_page()
        page.set_default_timeout(120_000)  # next dev compiles each route on first use
        page.goto(app + "/pricing")
        page.get_by_role("link", name="Subscribe to Base").click()
        page.locator("input[name=email]").fill(email)
        page.locator("input[name=password]").fill("launch-day-2026")
        page.get_by_role("button", name="Sign up").click()
        first = pay_half(page)
        pay_half(page, paid=first)
        page.wait_for_url(re.compile(r"/dashboard$"))
        status = page.get_by_test_id("status").inner_text()
        browser.close()
    client = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                                 base_addresses={"api": os.environ["STRIPE_API_BASE"]})
    customer = client.v1.customers.list(params={"email": email}).data[0]
    subscription = client.v1.subscriptions.list(params={"customer": customer.id}).data[0]
    print(f"subscribed ({status}) as {subscription.id}")
    return str(subscription.id)


def main() -> None:
    workdir = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    subscription_id = subscribe(os.environ["APP_URL"])
    out = workdir / "submission" / "subscription_id.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text(subscription_id + "\n")


if __name__ == "__main__":
    main()
