"""Grader of saas-partial-payments (see docs/tasks/saas-partial-payments.md).

The submitted subscription, its first invoice and that invoice's payments are read
through the API; the app's own PostgreSQL through its Unix socket; the restarted app's
pricing page over HTTP; and the restarted app is probed in Chromium as a customer uses
it: a fresh customer subscribes to Base from the pricing page (the Subscribe control
beside the plan's name), pays whatever Checkout pages the app sends them to (following
the app's own pay links between them) until it shows the dashboard, and their
subscription must then be what the instruction asks (its first invoice paid by two
Checkout payments of half each, active, and the team row in step).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from stripebench.grading import Grader, stripe_client
from stripebench.grading.environment import workdir


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


PROBE_BUDGET = 170.0   # the browser probe in all (next dev compiles routes on first use)
STEP_MS = 60_000       # each page load or wait in it
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


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


def pay_checkout_page(page: Any) -> None:
    page.locator("#card-number").fill("4242 4242 4242 4242")
    page.locator("#card-expiry").fill("12 / 34")
    page.locator("#card-cvc").fill("123")
    page.locator("#card-name").fill("Probe Customer")
    page.locator("#billing-country").select_option("US")
    page.locator("#billing-postal_code").fill("94107")
    page.locator("#submit").click()


def probe_subscribe(app: str) -> str:
    """A fresh customer subscribes to Base through the restarted app and pays what it
    asks, through at most four Checkout pages; their email."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    email = f"probe.{int(time.time() * 1000) % 10**9}@example.com"
    deadline = time.monotonic() + PROBE_BUDGET
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_options())
        try:
            page = browser.new_page()
            page.set_default_timeout(STEP_MS)
            page.goto(app + "/pricing")
            subscribe_control(page, "Base").click()
            page.wait_for_url(re.compile(r"/sign-up"))
            page.locator("input[name=email]").fill(email)
            page.locator("input[name=password]").fill("probe-password-1")
            page.get_by_role("button", name="Sign up").click()
            page.wait_for_url(lambda url: "/sign-up" not in url)
            paid: set[str] = set()
            while len(paid) < 4 and time.monotonic() < deadline:
                try:  # the next Checkout page, or the dashboard
                    page.wait_for_url(lambda url: ("/c/pay/cs_" in url and url not in paid)
                                      or url.rstrip("/").endswith("/dashboard"))
                except PlaywrightTimeout:
                    pass
                if "/c/pay/cs_" in page.url and page.url not in paid:
                    here = page.url
                    paid.add(here)
                    pay_checkout_page(page)
                    page.wait_for_url(lambda url, here=here: url != here)
                    continue
                if not page.url.startswith(app):
                    break
                page.wait_for_load_state("load")
                onward = page.locator("a, button").filter(
                    has_text=re.compile(r"\bpay\b|second half|remaining", re.I))
                if not onward.count():
                    break
                onward.first.click()
        finally:
            browser.close()
    return email


def first_invoice(client: Any, subscription_id: str) -> Any:
    invoices = client.v1.invoices.list(params={"subscription": subscription_id, "limit": 100})
    created = [i for i in invoices.auto_paging_iter()
               if i.billing_reason == "subscription_create"]
    return created[0] if len(created) == 1 else None


def main() -> None:
    grader = Grader()
    client = stripe_client()
    base_price = client.v1.prices.list(params={"lookup_keys": ["base_monthly"]}).data[0]
    subscription: Any = None

    def gate() -> bool:
        nonlocal subscription
        submitted = (workdir() / "submission" / "subscription_id.txt").read_text().strip()
        subscription = client.v1.subscriptions.retrieve(submitted)
        return str(subscription.id).startswith("sub_")

    if not grader.gate("submitted_subscription", gate):
        grader.write()
        return
    invoice = first_invoice(client, subscription.id)

    grader.check("no_trial", 1, subscription.trial_start is None and
                 subscription.trial_end is None)
    grader.check("base_plan", 1, [item.price.id for item in subscription["items"].data]
                 == [base_price.id])
    grader.check("invoice_paid", 2, lambda: invoice is not None and invoice.status == "paid"
                 and invoice.amount_due == invoice.amount_paid > 0)
    grader.check("subscription_active", 2, subscription.status == "active")

    def halves_of(inv: Any) -> list[Any]:
        """The invoice's paid payments, if each is a PaymentIntent of half the amount."""
        if inv is None:
            return []
        listed = client.v1.invoice_payments.list(params={"invoice": inv.id, "limit": 100})
        paid = [p for p in listed.auto_paging_iter() if p.status == "paid"]
        return paid if all(p.amount_paid * 2 == inv.amount_due and
                           p.payment.type == "payment_intent" for p in paid) else []

    def from_checkout_of(paid: list[Any], customer: str) -> float:
        """Each paid half's PaymentIntent is that of a completed, paid payment-mode
        Checkout Session of the customer (a fraction per payment, of two)."""
        good = 0
        for payment in paid[:2]:
            sessions = client.v1.checkout.sessions.list(params={
                "payment_intent": payment.payment.payment_intent})
            good += any(s.status == "complete" and s.payment_status == "paid" and
                        s.mode == "payment" and s.customer == customer
                        for s in sessions.data)
        return good / 2

    def team_row(subscription_id: str) -> list[list[str]]:
        return app_rows("select stripe_customer_id, plan_name, subscription_status, "
                        "stripe_product_id from teams where stripe_subscription_id = :'p0'",
                        subscription_id)

    payments: list[Any] = []
    if invoice is not None:
        listed = client.v1.invoice_payments.list(params={"invoice": invoice.id, "limit": 100})
        payments = [p for p in listed.auto_paging_iter() if p.status == "paid"]

    grader.check("two_halves", 2, lambda: invoice is not None and len(payments) == 2 and all(
        p.amount_paid * 2 == invoice.amount_due and p.payment.type == "payment_intent"
        for p in payments))

    grader.check("from_checkout", 2, lambda: from_checkout_of(payments, subscription.customer))

    def app_database() -> bool:
        """The team row follows the subscription bought (that it is Base is base_plan's)."""
        product = client.v1.products.retrieve(subscription["items"].data[0].price.product)
        return team_row(subscription.id) == [[subscription.customer, product.name, "active",
                                              product.id]]

    grader.check("app_database", 2, app_database)

    def signed_up_in_app() -> bool:
        """The subscriber is a user of the app (the team row is app_database's)."""
        customer = client.v1.customers.retrieve(subscription.customer)
        rows = app_rows("select email from users where lower(email) = lower(:'p0')",
                        customer.email or "")
        return len(rows) == 1

    grader.check("signed_up_in_app", 1, signed_up_in_app)

    def no_trial_in_app() -> bool:
        with urllib.request.urlopen(os.environ["APP_URL"] + "/pricing", timeout=90) as page:
            text = page.read().decode("utf-8", "replace")
        return "Base" in text and "free trial" not in text.lower()

    grader.check("no_trial_in_app", 1, no_trial_in_app)

    # ------------------------------------------------------------- the restarted app
    probed: dict[str, Any] = {}

    def probe() -> bool:
        email = probe_subscribe(os.environ["APP_URL"])
        customers = client.v1.customers.list(params={"email": email}).data
        found = [s for c in customers for s in client.v1.subscriptions.list(
            params={"customer": c.id, "status": "all"}).data]
        if len(found) != 1:
            raise ValueError(f"the probe's customer has {len(found)} subscriptions")
        probed["subscription"] = found[0]
        probed["invoice"] = first_invoice(client, found[0].id)
        return True

    made = grader.check("probe_subscribes", 2, probe)

    def probe_paid_in_halves() -> bool:
        sub, inv = probed["subscription"], probed["invoice"]
        halves = halves_of(inv)
        if not (sub.status == "active" and sub.trial_start is None and inv is not None
                and inv.status == "paid" and len(halves) == 2
                and from_checkout_of(halves, sub.customer) == 1.0):
            raise ValueError(f"the probe's subscription is {sub.status}, its first invoice "
                             f"{getattr(inv, 'status', None)} with {len(halves)} paid halves")
        return True

    grader.check("probe_paid_in_halves", 2, lambda: made and probe_paid_in_halves())
    grader.check("probe_team_active", 2, lambda: made and team_row(
        probed["subscription"].id) == [[probed["subscription"].customer, "Base", "active",
                                        base_price.product]])
    grader.write()


if __name__ == "__main__":
    main()
