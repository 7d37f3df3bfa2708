"""Grader of saas-partial-payments (see docs/tasks/saas-partial-payments.md).

The submitted subscription, its first invoice and that invoice's payments are read
through the API; the app's own PostgreSQL through its Unix socket; the restarted app's
pricing page over HTTP.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
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
                 and invoice.amount_due == base_price.unit_amount == invoice.amount_paid)
    grader.check("subscription_active", 2, subscription.status == "active")

    payments: list[Any] = []
    if invoice is not None:
        listed = client.v1.invoice_payments.list(params={"invoice": invoice.id, "limit": 100})
        payments = [p for p in listed.auto_paging_iter() if p.status == "paid"]

    grader.check("two_halves", 2, lambda: invoice is not None and len(payments) == 2 and all(
        p.amount_paid * 2 == invoice.amount_due and p.payment.type == "payment_intent"
        for p in payments))

    def from_checkout() -> float:
        """Each paid half's PaymentIntent is that of a completed, paid Checkout Session of
        the subscription's customer (a fraction per payment, of two)."""
        good = 0
        for payment in payments[:2]:
            sessions = client.v1.checkout.sessions.list(params={
                "payment_intent": payment.payment.payment_intent})
            good += any(s.status == "complete" and s.payment_status == "paid" and
                        s.mode == "payment" and s.customer == subscription.customer
                        for s in sessions.data)
        return good / 2

    grader.check("from_checkout", 2, from_checkout)

    def app_database() -> bool:
        rows = app_rows("select stripe_customer_id, plan_name, subscription_status, "
                        "stripe_product_id from teams where stripe_subscription_id = :'p0'",
                        subscription.id)
        return rows == [[subscription.customer, "Base", "active", base_price.product]]

    grader.check("app_database", 2, app_database)

    def signed_up_in_app() -> bool:
        rows = app_rows("select u.email from users u join team_members m on m.user_id = u.id "
                        "join teams t on t.id = m.team_id where t.stripe_subscription_id = "
                        ":'p0'", subscription.id)
        customer = client.v1.customers.retrieve(subscription.customer)
        return len(rows) == 1 and rows[0][0] == (customer.email or "").lower()

    grader.check("signed_up_in_app", 1, signed_up_in_app)

    def no_trial_in_app() -> bool:
        with urllib.request.urlopen(os.environ["APP_URL"] + "/pricing", timeout=90) as page:
            text = page.read().decode("utf-8", "replace")
        return "Base" in text and "free trial" not in text.lower()

    grader.check("no_trial_in_app", 1, no_trial_in_app)
    grader.write()


if __name__ == "__main__":
    main()
