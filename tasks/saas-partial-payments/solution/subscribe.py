"""Sign up on Launchpad and subscribe to Base in Chromium, paying the first invoice in
two halves on hosted Checkout with the 4242 card.

    python subscribe.py WORKDIR

Uses the app the task's service runs (`next dev` reloads the changed code), and writes
the subscription's id to WORKDIR/submission/subscription_id.txt.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import stripe
from playwright.sync_api import Locator, Page, sync_playwright

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def launch_options() -> dict[str, Any]:
    """Chromium that reaches Stripe's hosts: inside a routed sandbox it already does;
    beside a plain-HTTP emulator (no routing) it needs the project's TLS front."""
    base = os.environ.get("STRIPE_API_BASE", "")
    if base.startswith("http://"):
        from stripebench.routing.chromium import launch_options as routed
        return routed(None, base)
    return {"executable_path": "/usr/bin/chromium", "args": CHROMIUM_ARGS}


# What the customer does; subscribe.json beside this script may change it (a variant
# that subscribes differently overlays its own).
PLAN = {"plan": "Base"}


def plan() -> dict[str, Any]:
    overlay = Path(__file__).with_name("subscribe.json")
    return {**PLAN, **(json.loads(overlay.read_text()) if overlay.is_file() else {})}


def subscribe_control(page: Page, name: str) -> Locator:
    """The Subscribe link or button beside the plan's name."""
    around = page.get_by_text(name, exact=True).first.locator(
        "xpath=ancestor-or-self::*[self::a or self::button or .//a or .//button][1]")
    if around.evaluate("e => ['A', 'BUTTON'].includes(e.tagName)"):
        return around
    return around.locator("a, button").filter(has_text=re.compile("subscribe", re.I)).first


def pay_half(page: Page) -> str:
    """Pay the hosted Checkout page the browser is on."""
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
        subscribe_control(page, plan()["plan"]).click()
        page.locator("input[name=email]").fill(email)
        page.locator("input[name=password]").fill("launch-day-2026")
        page.get_by_role("button", name="Sign up").click()
        # Pay each Checkout page the app sends us to (or links to), until the dashboard.
        paid: set[str] = set()
        while len(paid) < 4:
            page.wait_for_url(lambda url: ("/c/pay/cs_" in url and url not in paid)
                              or url.rstrip("/").endswith("/dashboard"))
            if "/c/pay/cs_" in page.url:
                here = pay_half(page)
                paid.add(here)
                page.wait_for_url(lambda url, here=here: url != here)
                continue
            page.wait_for_load_state("load")
            onward = page.locator("a, button").filter(
                has_text=re.compile(r"\bpay\b|second half|remaining", re.I))
            if not onward.count():
                break
            onward.first.click()
        status = page.locator("body").inner_text()[:200]
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
