"""Grader of saas-embedded-checkout (see docs/tasks/saas-embedded-checkout.md).

The submitted Checkout Session and its subscription are read through the API; the app's
own PostgreSQL through its Unix socket; and the restarted app is probed in Chromium: a
fresh customer signs up from the pricing page and must meet an embedded Checkout of a
new subscription session, pay it, and come back through the return route to a dashboard
that shows the plan (with the team's row in step).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

from stripebench.grading import Grader, stripe_client
from stripebench.grading.environment import workdir

TRIAL_SECONDS = 14 * 86400
PROBE_BUDGET = 150.0   # the browser probe in all (next dev compiles routes on first use)
STEP_MS = 60_000       # each page load or wait in it
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def app_rows(query: str, *params: str) -> list[list[str]]:
    """Rows of the app's own database, through its socket (where db/env.sh puts it;
    psql's variables carry the parameters, quoted by psql)."""
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))
    root = str(workdir().resolve()).encode()
    socket_dir = f"/tmp/launchpad-{hashlib.sha256(root).hexdigest()[:12]}"
    argv = [str(bins[-1]), "-qtAX", "-F", "\t", "-h", socket_dir,
            "-U", "launchpad", "-d", "launchpad"]
    for n, value in enumerate(params):
        argv += ["-v", f"p{n}={value}"]
    done = subprocess.run(argv, input=query, capture_output=True, text=True, timeout=20)
    if done.returncode != 0:
        raise RuntimeError(f"the app's database: {done.stderr.strip()[:300]}")
    return [line.split("\t") for line in done.stdout.splitlines() if line]


def team_of_subscription(subscription_id: str) -> dict[str, str] | None:
    rows = app_rows("select stripe_customer_id, stripe_subscription_id, stripe_product_id, "
                    "plan_name, subscription_status from teams "
                    "where stripe_subscription_id = :'p0'", subscription_id)
    keys = ["customer", "subscription", "product", "plan", "status"]
    return dict(zip(keys, rows[0], strict=True)) if rows else None


def launch_options() -> dict[str, Any]:
    base = os.environ.get("STRIPE_API_BASE", "")
    if base.startswith("http://"):  # no routing: Stripe's hosts through a TLS front
        from stripebench.routing.chromium import launch_options as routed
        return routed(None, base)
    return {"executable_path": "/usr/bin/chromium", "args": CHROMIUM_ARGS}


def subscribe_control(page: Any, plan: str) -> Any:
    """The Subscribe link or button beside the plan's name, found as a customer finds
    it (whatever else it says)."""
    named = page.get_by_text(plan, exact=True).first
    around = named.locator("xpath=ancestor-or-self::*[self::a or self::button or .//a"
                           " or .//button][1]")
    if around.evaluate("e => ['A', 'BUTTON'].includes(e.tagName)"):
        return around
    return around.locator("a, button").filter(has_text=re.compile("subscribe", re.I)).first


class Probe:
    """A fresh customer signs up from the restarted app's pricing page and subscribes
    to Base through whatever Checkout the app shows, paying with 4242."""

    def __init__(self, client: Any, app: str, base_price: str) -> None:
        self.client, self.app, self.base_price = client, app, base_price
        self.email = f"probe.{int(time.time() * 1000) % 10**9}@example.com"
        self.session: Any = None
        self.embedded_frame = False
        self.dashboard: dict[str, str] = {}

    def run(self) -> None:
        from playwright.sync_api import sync_playwright

        deadline = time.monotonic() + PROBE_BUDGET
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**launch_options())
            try:
                page = browser.new_page()
                page.set_default_timeout(STEP_MS)
                page.goto(self.app + "/pricing")
                subscribe_control(page, "Base").click()
                page.wait_for_url(re.compile(r"/sign-up"))
                page.locator("input[name=email]").fill(self.email)
                page.locator("input[name=password]").fill("probe-password-1")
                page.get_by_role("button", name="Sign up").click()
                # Embedded Checkout's iframe names the session it shows.
                frame_element = page.wait_for_selector(
                    "iframe[src*='checkout.stripe.com/c/embedded/']", timeout=STEP_MS)
                self.embedded_frame = frame_element is not None
                shown = re.search(r"/c/embedded/(cs_[A-Za-z0-9_]+)",
                                  frame_element.get_attribute("src") or "")
                if shown:
                    self.session = self.client.v1.checkout.sessions.retrieve(shown.group(1))
                frame = frame_element.content_frame() if frame_element else None
                if frame is None or time.monotonic() > deadline:
                    return
                frame.wait_for_selector("#card-number", timeout=STEP_MS)
                frame.locator("#card-number").fill("4242 4242 4242 4242")
                frame.locator("#card-expiry").fill("12 / 34")
                frame.locator("#card-cvc").fill("123")
                frame.locator("#card-name").fill("Probe Customer")
                frame.locator("#billing-country").select_option("US")
                frame.locator("#billing-postal_code").fill("94107")
                frame.locator("#submit").click()
                page.wait_for_url(re.compile(r"/dashboard"), timeout=STEP_MS)
                page.wait_for_load_state("load")
                self.dashboard = {"text": page.locator("body").inner_text()}
            finally:
                browser.close()


def main() -> None:
    grader = Grader()
    client = stripe_client()
    base_price = client.v1.prices.list(params={"lookup_keys": ["base_monthly"]}).data[0]
    submitted = workdir() / "submission" / "checkout_session_id.txt"

    def read_submission() -> Any:
        session_id = submitted.read_text().strip()
        return client.v1.checkout.sessions.retrieve(session_id, params={
            "expand": ["line_items", "subscription", "discounts.promotion_code"]})

    session: Any = None

    def gate() -> bool:
        nonlocal session
        session = read_submission()
        return session.id.startswith("cs_")

    if not grader.gate("submitted_session", gate):
        grader.write()
        return
    subscription = session.subscription if not isinstance(session.subscription, str) else \
        client.v1.subscriptions.retrieve(session.subscription)

    # ------------------------------------------------------------- the subscription
    grader.check("embedded_ui_mode", 2, session.ui_mode in ("embedded_page", "embedded"))
    grader.check("subscription_mode", 1, session.mode == "subscription")
    grader.check("completed", 2, session.status == "complete")
    grader.check("base_plan", 1, lambda: [li.price.id for li in session.line_items.data]
                 == [base_price.id])
    grader.check("trial_kept", 1, lambda: subscription is not None and
                 subscription.status == "trialing" and
                 subscription.trial_end - subscription.trial_start == TRIAL_SECONDS and
                 bool(subscription.default_payment_method))

    def promotion_code() -> bool:
        codes = [d.promotion_code for d in (session.discounts or []) if d.promotion_code]
        if len(codes) != 1 or isinstance(codes[0], str) or codes[0].code != "TAKE20":
            return False
        coupon = client.v1.coupons.retrieve(codes[0].promotion.coupon)
        return coupon.percent_off == 20 and coupon.duration == "forever"

    grader.check("promotion_code", 2, promotion_code)
    grader.check("discount_on_subscription", 1, lambda: subscription is not None and any(
        (d if isinstance(d, str) else d.id) for d in (subscription.discounts or [])))

    def app_database() -> bool:
        team = team_of_subscription(subscription.id)
        # The row follows the subscription bought (that it is Base is base_plan's).
        product = client.v1.products.retrieve(subscription["items"].data[0].price.product)
        return team is not None and team["customer"] == session.customer and \
            team["plan"] == product.name and team["status"] == subscription.status and \
            team["product"] == product.id

    grader.check("app_database", 2, app_database)

    def signed_up_in_app() -> bool:
        """The subscriber is a user of the app (whether the team row recorded the
        subscription is app_database's)."""
        customer = client.v1.customers.retrieve(session.customer)
        rows = app_rows("select email from users where lower(email) = lower(:'p0')",
                        customer.email or "")
        return len(rows) == 1

    grader.check("signed_up_in_app", 1, signed_up_in_app)

    # ------------------------------------------------------------- the restarted app
    probe = Probe(client, os.environ["APP_URL"], base_price.id)
    grader.check("probe_mounts_embedded_checkout", 2, lambda: probe.run() or
                 probe.embedded_frame)
    probe_session = probe.session

    grader.check("probe_session_settings", 2, lambda: probe_session is not None and
                 probe_session.id != session.id and probe_session.status == "open" and
                 probe_session.ui_mode in ("embedded_page", "embedded") and
                 probe_session.mode == "subscription" and
                 [li.price.id for li in client.v1.checkout.sessions.line_items.list(
                     probe_session.id).data] == [base_price.id])

    grader.check("promotion_codes_allowed", 1, lambda: probe_session is not None and
                 bool(probe_session.allow_promotion_codes))

    # A session made by hand beside the app (its own return URL) is not the app's.
    grader.check("submitted_through_app", 1, lambda: probe_session is not None and
                 session.return_url == probe_session.return_url and
                 session.ui_mode == probe_session.ui_mode and
                 bool(session.allow_promotion_codes) == bool(
                     probe_session.allow_promotion_codes))

    def probe_returned() -> bool:
        if probe_session is None:
            return False
        paid = client.v1.checkout.sessions.retrieve(probe_session.id)
        team = team_of_subscription(str(paid.subscription))
        sub = client.v1.subscriptions.retrieve(str(paid.subscription))
        # The team row follows Stripe (the trial itself is trial_kept's).
        return (paid.status == "complete" and team is not None and team["plan"] == "Base"
                and team["status"] == sub.status and sub.status in probe.dashboard.get(
                    "text", "") and "Base" in probe.dashboard.get("text", ""))

    grader.check("return_route", 2, probe_returned)
    grader.write()


if __name__ == "__main__":
    main()
