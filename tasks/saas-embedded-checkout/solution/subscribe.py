"""Create TAKE20, then sign up on Launchpad and subscribe to Base through its embedded
Checkout in Chromium with that code and the 4242 card.

    python subscribe.py WORKDIR

Uses the app the task's service runs (`next dev` reloads the migrated code), and writes
the completed session's id to WORKDIR/submission/checkout_session_id.txt.
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


def create_promotion_code() -> None:
    client = stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"],
                                 base_addresses={"api": os.environ["STRIPE_API_BASE"]})
    coupon = client.v1.coupons.create(params={**plan()["coupon"], "name": "TAKE20"})
    client.v1.promotion_codes.create(params={
        "code": "TAKE20", "promotion": {"type": "coupon", "coupon": coupon.id}})


# What the customer does; subscribe.json beside this script may change it (a variant
# that subscribes differently overlays its own).
PLAN = {"plan": "Base", "promotion_code": "TAKE20", "coupon": {"percent_off": 20,
                                                               "duration": "forever"}}


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


def subscribe(app: str) -> str:
    email = f"founder.{int(time.time())}@example.com"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_options())
        page = browser.new_page()
        page.set_default_timeout(120_000)  # next dev compiles each route on first use
        returns: list[str] = []
        page.on("request", lambda r: returns.append(r.url)
                if "/api/stripe/checkout?session_id=" in r.url else None)
        page.goto(app + "/pricing")
        wanted = plan()
        subscribe_control(page, wanted["plan"]).click()
        page.locator("input[name=email]").fill(email)
        page.locator("input[name=password]").fill("launch-day-2026")
        page.get_by_role("button", name="Sign up").click()
        frame = page.frame_locator("iframe[src*='/c/embedded/']")
        if wanted["promotion_code"]:
            frame.locator("#promotion_code").fill(wanted["promotion_code"])
            frame.locator("#apply-code").click()
            frame.locator(".code-chip", has_text=wanted["promotion_code"]).wait_for()
        frame.locator("#card-number").fill("4242 4242 4242 4242")
        frame.locator("#card-expiry").fill("12 / 34")
        frame.locator("#card-cvc").fill("123")
        frame.locator("#card-name").fill("Sam Founder")
        frame.locator("#billing-country").select_option("US")
        frame.locator("#billing-postal_code").fill("94107")
        frame.locator("#submit").click()
        page.wait_for_url(re.compile(r"/dashboard$"))
        status = page.locator("body").inner_text()[:200]
        browser.close()
    found = re.search(r"session_id=(cs_[A-Za-z0-9_]+)", returns[-1] if returns else "")
    if not found:
        raise SystemExit("Checkout never returned to /api/stripe/checkout")
    print(f"subscribed ({status}) through {found.group(1)}")
    return found.group(1)


def main() -> None:
    workdir = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    create_promotion_code()
    session_id = subscribe(os.environ["APP_URL"])
    out = workdir / "submission" / "checkout_session_id.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text(session_id + "\n")


if __name__ == "__main__":
    main()
